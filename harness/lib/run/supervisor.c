#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dtype.h"
#include "proc.h"
#include "label.h"
#include "phases.h"

#define NONE ((size_t)-1)
/* --- Signals: the handler sets a flag and writes a byte to a self-pipe,
 * nothing else; poll() watches the pipe, so a signal that lands between a
 * check of the flag and the poll still wakes it. */

static volatile sig_atomic_t g_caught;
static int g_wake[2] = {-1, -1};
static int g_trap_depth;
static struct sigaction g_saved[2];
static const int k_trapped[2] = {SIGINT, SIGTERM};

static void on_signal(int sig) {
  int saved = errno;
  if (!g_caught) g_caught = sig;
  if (g_wake[1] >= 0) {
    ssize_t put = write(g_wake[1], "", 1);
    (void)put; /* a full pipe is awake already */
  }
  errno = saved;
}

void kg_super_trap(int on) {
  if (on) {
    if (g_trap_depth++) return;
    kg_proc_watch(&g_caught, &g_wake[0]);
    if (pipe2(g_wake, O_CLOEXEC | O_NONBLOCK)) g_wake[0] = g_wake[1] = -1; /* then the flag alone (poll's EINTR) */
    for (int k = 0; k < 2; k++) {
      sigaction(k_trapped[k], NULL, &g_saved[k]);
      if (!(g_saved[k].sa_flags & SA_SIGINFO) && g_saved[k].sa_handler == SIG_IGN) continue; /* nohup: stays ignored */
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_signal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESTART; /* poll is woken by the pipe; other calls need not see EINTR */
      sigaction(k_trapped[k], &sa, NULL);
    }
    return;
  }
  if (g_trap_depth == 0 || --g_trap_depth) return;
  for (int k = 0; k < 2; k++) sigaction(k_trapped[k], &g_saved[k], NULL);
  /* The handler is gone: nothing writes to the pipe any more. */
  if (g_wake[0] >= 0) close(g_wake[0]), close(g_wake[1]);
  g_wake[0] = g_wake[1] = -1;
}

int kg_super_interrupted(void) { return g_caught; }

const char *kg_super_signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal";
}

static void interrupted_err(char *err, size_t errlen) {
  snprintf(err, errlen, "interrupted by %s", kg_super_signal_name(g_caught));
}

static void fail_case(kg_result *r, kg_fail_kind kind, const char *fmt, const char *detail) {
  memset(r, 0, sizeof *r);
  r->status = KG_ST_ERROR, r->fail = kind;
  snprintf(r->message, sizeof r->message, fmt, detail);
}

/* The wait for a worker's hello ended with got (not KG_LINE_OK): ends the
 * worker and says why in err. -1, or KG_SUPER_INTERRUPTED. */
static int start_failed(kg_proc *w, int got, double start_timeout_s, char *err, size_t errlen) {
  char why[160];
  const char *bad = w->bad;
  if (got != KG_LINE_EOF) kg_proc_kill(w);
  kg_proc_reap(w, got == KG_LINE_EOF ? 2.0 : 0.0, why, sizeof why); /* EOF: let it exit and say how */
  if (got == KG_LINE_INTR) return interrupted_err(err, errlen), KG_SUPER_INTERRUPTED;
  if (got == KG_LINE_TIMEOUT) snprintf(err, errlen, "worker failed to start: no hello in time (%g s)", start_timeout_s);
  else if (got == KG_LINE_BAD) snprintf(err, errlen, "worker failed to start: worker broke the protocol: %s", bad);
  else snprintf(err, errlen, "worker failed to start: %s", why);
  return -1;
}

/* The case the worker answered broke the protocol after its answer: it
 * fails (keeping its device), and the worker ends. */
static void fail_answered(kg_result *r, const char *what) {
  int device = r->device;
  fail_case(r, KG_FK_CRASH, "worker broke the protocol: %s", what);
  r->device = device;
}

/* An idle worker is about to get a case: whatever it sent since its last
 * answer ends it, and fails the case it answered last (prev, unless NONE).
 * Returns 0 when it sent nothing and may go on, else what it sent: > 0
 * bytes, -1 when it exited. */
static long drop_unasked(kg_proc *w, kg_result *results, size_t prev) {
  long extra = kg_proc_leftover(w);
  if (!extra) return 0;
  char why[160] = "", what[128];
  kg_proc_kill(w);
  kg_proc_reap(w, 0.0, why, sizeof why);
  if (extra > 0) snprintf(what, sizeof what, "%ld bytes after its answer", extra);
  else snprintf(what, sizeof what, "exited after its answer (%.100s)", why);
  if (prev != NONE) fail_answered(&results[prev], what);
  return extra;
}

/* How the wait for a case's answer ended (settle). */
enum {
  END_IDLE,    /* answered: results[cur] holds it; the worker may take the next case */
  END_RESTART, /* answered, or failed as a broken answer: the caller ends the worker */
  END_DOWN,    /* failed (broken line, watchdog, death): the worker is reaped */
  END_RERUN    /* a late second answer for prev, which fails; cur is not settled and runs
                  again on a fresh worker; this one is reaped */
};

/* Settles case cur on worker w after its wait gave got (line: the line, for
 * KG_LINE_OK): the one place that tells an answer, a broken protocol, a
 * timeout and a dead worker apart, for the device scheduler and the
 * sanitizer mode alike. prev: the case w answered before (NONE: none);
 * eof_grace: how long a worker that closed its output may take to exit. */
static int settle(kg_proc *w, int got, char *line, kg_result *results, size_t cur, size_t prev, double timeout_s,
                  double eof_grace) {
  kg_result *res = &results[cur];
  if (got == KG_LINE_OK) {
    size_t idx = cur;
    int restart = 0;
    char perr[160];
    kg_result ans;
    memset(&ans, 0, sizeof ans);
    int broken = kg_proto_decode_result(line, &idx, &ans, &restart, perr, sizeof perr) != 0;
    if (!broken && idx != cur && idx == prev) { /* this case was not to blame */
      fail_answered(&results[prev], "answered twice");
      kg_proc_kill(w);
      kg_proc_reap(w, 0.0, NULL, 0);
      return END_RERUN;
    }
    if (broken || idx != cur) {
      fail_case(res, KG_FK_CRASH, "worker broke the protocol: %s", broken ? perr : "answer for another case");
      restart = 1;
    } else {
      *res = ans;
    }
    kg_proc_consume(w);
    return restart ? END_RESTART : END_IDLE;
  }
  char why[160];
  if (got == KG_LINE_EOF) { /* it died: let it exit and say how */
    kg_proc_reap(w, eof_grace, why, sizeof why);
    fail_case(res, KG_FK_CRASH, "%s", why);
    return END_DOWN;
  }
  const char *bad = w->bad; /* static text: outlives the reap */
  kg_proc_kill(w);
  kg_proc_reap(w, got == KG_LINE_BAD ? 0.0 : 1.0, NULL, 0);
  snprintf(why, sizeof why, "%g", timeout_s);
  if (got == KG_LINE_BAD) fail_case(res, KG_FK_CRASH, "worker broke the protocol: %s", bad);
  else fail_case(res, KG_FK_TIMEOUT, "timeout after %s s", why);
  return END_DOWN;
}

/* Starts a worker and reads its hello. 0, or -1 with the reason in err
 * (KG_SUPER_INTERRUPTED after SIGINT/SIGTERM). */
static int start_argv(kg_proc *w, char *const *argv, double start_timeout_s, kg_device_info *dev, char *err,
                      size_t errlen) {
  if (g_caught) return interrupted_err(err, errlen), KG_SUPER_INTERRUPTED;
  if (kg_proc_spawn(w, argv, KG_PROTO_MAX_LINE)) {
    snprintf(err, errlen, "cannot start a worker process: %s", strerror(errno));
    return -1;
  }
  char *line;
  int got = kg_proc_read_line(w, kg_now_s() + start_timeout_s, &line);
  if (got == KG_LINE_OK) {
    int rc = kg_proto_decode_hello(line, dev, err, errlen);
    kg_proc_consume(w);
    long extra = rc == 0 ? kg_proc_leftover(w) : 0;
    if (rc == 0 && extra == 0) return 0;
    if (extra) snprintf(err, errlen, "worker failed to start: worker broke the protocol: %s after its hello",
                        extra > 0 ? "bytes" : "it exited");
    kg_proc_reap(w, 1.0, NULL, 0);
    return -1;
  }
  return start_failed(w, got, start_timeout_s, err, errlen);
}

static int start(kg_proc *w, const kg_super_opts *o, kg_device_info *dev, char *err, size_t errlen) {
  return start_argv(w, o->worker_argv, o->start_timeout_s, dev, err, errlen);
}

int kg_supervise_probe(char *const *argv, double start_timeout_s, kg_device_info *dev, char *err, size_t errlen) {
  kg_super_trap(1);
  void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
  kg_proc w = {.pid = -1};
  int rc = start_argv(&w, argv, start_timeout_s, dev, err, errlen);
  if (rc == 0) kg_proc_reap(&w, 10.0, NULL, 0);
  signal(SIGPIPE, old_pipe);
  kg_super_trap(0);
  return rc;
}

/* --sanitize: what the log gained since *off. Fails r (when it passed or
 * merely errored) with the first report; 1 when the log showed errors. */
static int sanitized(const kg_super_san *o, long *off, kg_result *r, int variant) {
  if (!o || !o->log || !o->scan) return 0;
  FILE *f = fopen(o->log, "rb");
  if (!f) return 0;
  int dirty = 0;
  if (fseek(f, 0, SEEK_END) == 0) {
    long end = ftell(f);
    if (end > *off && fseek(f, *off, SEEK_SET) == 0) {
      size_t want = (size_t)(end - *off);
      char *text = malloc(want);
      size_t got = text ? fread(text, 1, want, f) : 0;
      char first[256] = "";
      int bad = o->scan(o->scan_ctx, variant, text ? text : "", got, first, sizeof first);
      free(text);
      *off += (long)got;
      if (bad) {
        dirty = 1;
        char msg[sizeof r->message];
        snprintf(msg, sizeof msg, "sanitizer (%.20s): %.160s", o->tool ? o->tool : "compute-sanitizer",
                 first[0] ? first : "errors reported (see its log)");
        if (r->status == KG_ST_PASS || r->status == KG_ST_ERROR) r->status = KG_ST_FAIL;
        memcpy(r->message, msg, sizeof msg);
        r->fail = KG_FK_SANITIZER;
      } else if (first[0] && r->status == KG_ST_PASS && !r->message[0]) { /* reports a waiver covers */
        snprintf(r->message, sizeof r->message, "sanitizer (%.20s): %.160s", o->tool ? o->tool : "compute-sanitizer",
                 first);
      }
    }
  }
  fclose(f);
  return dirty;
}

/* Empties the sanitizer log before a worker starts. */
static void fresh_log(const kg_super_san *o, long *off) {
  *off = 0;
  if (!o || !o->log) return;
  FILE *f = fopen(o->log, "wb");
  if (f) fclose(f);
}

/* A sanitized worker ended with `code`: reports written at its exit go to the
 * last case it ran (when it had not failed already). */
static void ended(const kg_super_san *o, long *off, int code, kg_result *last, int variant) {
  if (!o || !o->log || !last) return;
  int before = last->status;
  if (sanitized(o, off, last, variant)) return;
  if (code == o->exit_code && before == KG_ST_PASS) {
    last->status = KG_ST_FAIL, last->fail = KG_FK_SANITIZER;
    snprintf(last->message, sizeof last->message, "sanitizer (%s): exit status %d at worker exit, no report parsed",
             o->tool ? o->tool : "compute-sanitizer", code);
  }
}

int kg_supervise(const kg_case *cases, size_t ncases, const kg_run_params *p, const kg_super_opts *o,
                 kg_result *results, kg_device_info *dev, char *err, size_t errlen) {
  kg_super_dev one = {o->worker_argv, 0};
  return kg_supervise_devices(cases, ncases, p, o, &one, 1, results, dev, err, errlen);
}

/* --- Several devices: one slot per device, a worker in each, poll() over all. */

enum { S_DOWN, S_STARTING, S_IDLE, S_BUSY, S_DEAD };

typedef struct slot {
  kg_proc w;
  int state;       /* S_DOWN: no process (one starts when there is work); S_DEAD: never again */
  double deadline; /* S_STARTING: for the hello; S_BUSY: the watchdog */
  double spawned;  /* when its worker was started */
  size_t cur;      /* S_BUSY: the case it is on */
  size_t prev;     /* the case this worker answered last (NONE: none yet) */
  size_t next, end; /* the rest of its current input group */
  int said_hello;
  double startup_s; /* its workers' start-ups in this call */
} slot;

typedef struct multi {
  int started; /* a worker has said hello (o->started called) */
  const kg_case *cases;
  size_t ncases, qpos; /* qpos: the first case of the next group not handed out */
  size_t *orph_a, *orph_b, norph; /* groups (rests of) left by dead devices */
  kg_result *results;
  const kg_super_opts *o;
  size_t done;
  const kg_run_params *p;
  const kg_super_dev *workers;
  size_t nworkers;
  slot *slots;
  kg_device_info *devs;
  char *err;
  size_t errlen;
  int rc, stop; /* stop: two GPU models under one_model; nothing more is handed out */
} multi;

static int same_input(const kg_case *a, const kg_case *b) {
  return a->dtype == b->dtype && a->n == b->n && a->pattern == b->pattern;
}

static int any_supported(const multi *m, size_t a, size_t b) {
  for (size_t i = a; i < b; i++)
    if (m->cases[i].supported) return 1;
  return 0;
}

static int has_work(const multi *m, const slot *s) {
  if (any_supported(m, s->next, s->end) || any_supported(m, m->qpos, m->ncases)) return 1;
  for (size_t k = 0; k < m->norph; k++)
    if (any_supported(m, m->orph_a[k], m->orph_b[k])) return 1;
  return 0;
}

static void report(multi *m, size_t i) {
  m->done++;
  if (m->o->progress) m->o->progress(m->o->progress_ctx, m->done, m->ncases, &m->cases[i], &m->results[i]);
}

/* Gives a slot a new range: an orphaned one first, else the next group. 0 when none is left. */
static int take_group(multi *m, slot *s) {
  if (m->norph) {
    m->norph--;
    s->next = m->orph_a[m->norph];
    s->end = m->orph_b[m->norph];
    return 1;
  }
  if (m->qpos >= m->ncases) return 0;
  size_t a = m->qpos, b = a + 1;
  while (b < m->ncases && same_input(&m->cases[a], &m->cases[b])) b++;
  s->next = a;
  s->end = b;
  m->qpos = b;
  return 1;
}

/* The next case the slot's device can run; unsupported and too-large cases
 * on the way are marked and reported. -1 when no work is left. */
static long next_case(multi *m, slot *s, const kg_device_info *dev, int device) {
  for (;;) {
    if (s->next >= s->end && !take_group(m, s)) return -1;
    size_t i = s->next++;
    const kg_case *c = &m->cases[i];
    kg_result *r = &m->results[i];
    if (!c->supported) {
      r->status = KG_ST_UNSUPPORTED;
      report(m, i);
      continue;
    }
    double need = 2.0 * (double)c->n * (double)kg_dtype_get(c->dtype)->size; /* input + pristine copy */
    if (dev->mem_bytes > 0 && need > 0.8 * (double)dev->mem_bytes) {
      r->status = KG_ST_UNSUPPORTED;
      snprintf(r->message, sizeof r->message, "skipped: needs %.1f GiB of device memory, the device has %.1f GiB",
               need / 0.8 / 1073741824.0, (double)dev->mem_bytes / 1073741824.0);
      r->device = device;
      report(m, i);
      continue;
    }
    return (long)i;
  }
}

/* The device cannot go on: the rest of its group goes to the others. */
static void orphan(multi *m, slot *s) {
  if (s->next < s->end) {
    m->orph_a[m->norph] = s->next;
    m->orph_b[m->norph] = s->end;
    m->norph++;
  }
  s->next = s->end = 0;
  s->state = S_DEAD;
}

/* An idle worker is about to get a case: whatever it sent since its last
 * answer fails that answer's case (or, right after its hello, its start),
 * and the worker ends. 0 when it may go on. */
static int check_idle(multi *m, slot *s) {
  long extra = drop_unasked(&s->w, m->results, s->prev);
  if (!extra) return 0;
  s->state = S_DOWN;
  if (s->prev != NONE) return -1;
  snprintf(m->err, m->errlen, "worker failed to start: worker broke the protocol: %s after its hello",
           extra > 0 ? "bytes" : "it exited");
  orphan(m, s);
  return -1;
}

/* Slot k needs a case: starts its worker where there is work for it, or
 * sends the next case to an idle one. */
static void hand_out(multi *m, size_t k) {
  slot *s = &m->slots[k];
  if (s->state == S_IDLE && check_idle(m, s) && s->state == S_DEAD) m->rc = m->rc ? m->rc : -1;
  if (m->stop && (s->state == S_IDLE || s->state == S_DOWN)) {
    if (s->state == S_IDLE) kg_proc_reap(&s->w, 10.0, NULL, 0);
    s->state = S_DEAD;
    return;
  }
  if (s->state == S_DOWN && has_work(m, s)) {
    if (kg_proc_spawn(&s->w, m->workers[k].worker_argv, KG_PROTO_MAX_LINE)) {
      snprintf(m->err, m->errlen, "cannot start a worker process: %s", strerror(errno));
      m->rc = -1;
      orphan(m, s);
      return;
    }
    s->state = S_STARTING;
    s->prev = NONE;
    s->spawned = kg_now_s();
    s->deadline = s->spawned + m->o->start_timeout_s;
  }
  if (s->state != S_IDLE) return;
  long i = next_case(m, s, &m->devs[k], m->workers[k].device);
  if (i < 0) {
    kg_proc_reap(&s->w, 10.0, NULL, 0);
    s->state = S_DOWN;
    return;
  }
  s->cur = (size_t)i;
  char *msg = kg_proto_encode_case(s->cur, &m->cases[s->cur], m->p);
  int sent = msg && kg_proc_send(&s->w, msg) == 0;
  free(msg);
  s->state = S_BUSY;
  s->deadline = kg_now_s() + m->o->timeout_s;
  if (!sent) s->deadline = 0; /* handled as a dead worker: its exit says why */
}

/* Slot k's wait for its hello ended with got: it is idle, or its device is
 * dropped; under one_model a second GPU model stops the run. */
static void on_hello(multi *m, size_t k, int got, char *line) {
  slot *s = &m->slots[k];
  if (got != KG_LINE_OK) {
    start_failed(&s->w, got, m->o->start_timeout_s, m->err, m->errlen);
    m->rc = m->rc ? m->rc : -1;
    orphan(m, s);
    return;
  }
  int hrc = kg_proto_decode_hello(line, &m->devs[k], m->err, m->errlen);
  kg_proc_consume(&s->w);
  if (hrc) {
    kg_proc_reap(&s->w, 1.0, NULL, 0);
    m->rc = -1;
    orphan(m, s);
    return;
  }
  s->state = S_IDLE;
  if (!m->started && m->o->started) m->o->started(m->o->progress_ctx);
  m->started = 1;
  s->said_hello = 1;
  s->startup_s += kg_now_s() - s->spawned;
  const kg_device_info *devs = m->devs;
  for (size_t j = 0; j < m->nworkers && m->o->one_model && !m->stop; j++) {
    if (j == k || !m->slots[j].said_hello || !strcmp(devs[j].name, devs[k].name)) continue;
    snprintf(m->err, m->errlen, "devices %d (%.80s) and %d (%.80s) are different GPU models: run --devices needs one",
             m->workers[j].device, devs[j].name, m->workers[k].device, devs[k].name);
    m->rc = KG_SUPER_MODELS;
    m->stop = 1;
  }
}

/* Slot k's case ended with got (settle): the worker goes idle or down, and
 * the case is reported unless it runs again. */
static void on_case_end(multi *m, size_t k, int got, char *line) {
  slot *s = &m->slots[k];
  int end = settle(&s->w, got, line, m->results, s->cur, s->prev, m->o->timeout_s, 2.0);
  if (end == END_RERUN) {
    s->next = s->cur; /* next_case took it from [next, end): put it back */
    s->state = S_DOWN;
    return;
  }
  s->state = S_DOWN;
  if (end != END_DOWN) s->prev = s->cur, s->state = S_IDLE;
  if (end == END_RESTART) kg_proc_reap(&s->w, 2.0, NULL, 0), s->state = S_DOWN;
  m->results[s->cur].device = m->workers[k].device;
  report(m, s->cur);
}

/* Slot k was polled (ready: its pipe has news): reads what came and, when
 * its wait is over (a line, EOF, the deadline), ends the wait. */
static void on_ready(multi *m, size_t k, int ready) {
  slot *s = &m->slots[k];
  int eof = s->state == S_BUSY && s->deadline == 0; /* the case could not be sent */
  if (!eof && ready) eof = !kg_proc_fill(&s->w);
  else if (s->deadline > 0 && kg_now_s() < s->deadline) return;
  char *line = NULL;
  int have = kg_proc_take_line(&s->w, &line);
  int late = s->deadline <= 0 || kg_now_s() >= s->deadline;
  if (have == KG_LINE_NONE && !eof && !late) return;
  int got = have != KG_LINE_NONE ? have : eof ? KG_LINE_EOF : KG_LINE_TIMEOUT;
  if (s->state == S_STARTING) on_hello(m, k, got, line);
  else on_case_end(m, k, got, line);
}

/* Waits for the first worker with news or past its deadline, and handles
 * each. 0 when nothing is in flight any more, or on a signal. */
static int wait_round(multi *m, struct pollfd *pfd, size_t *pidx) {
  size_t np = 0;
  double soonest = 0;
  for (size_t k = 0; k < m->nworkers; k++) {
    slot *s = &m->slots[k];
    if (s->state != S_STARTING && s->state != S_BUSY) continue;
    if (!np || s->deadline < soonest) soonest = s->deadline;
    pfd[np] = (struct pollfd){.fd = s->w.from, .events = POLLIN};
    pidx[np++] = k;
  }
  if (!np) return 0;
  if (g_wake[0] >= 0) pfd[np] = (struct pollfd){.fd = g_wake[0], .events = POLLIN};
  double left = soonest - kg_now_s();
  int r = poll(pfd, np + (g_wake[0] >= 0), left > 0 ? (int)(left * 1000) + 1 : 0);
  if (r < 0 && errno != EINTR) return 0;
  if (g_wake[0] >= 0 && r > 0 && pfd[np].revents) kg_proc_drain_wake();
  if (g_caught) return 0;
  for (size_t q = 0; q < np; q++) on_ready(m, pidx[q], r > 0 && pfd[q].revents);
  return 1;
}

/* After the rounds: a signal leaves the cases in flight pending; every
 * worker is reaped; unsupported cases no worker was needed for are marked. */
static void finish(multi *m) {
  if (g_caught) { /* stop now: the case in flight did not finish, it stays pending */
    for (size_t k = 0; k < m->nworkers; k++) {
      if (m->slots[k].state == S_BUSY) memset(&m->results[m->slots[k].cur], 0, sizeof m->results[0]);
      kg_proc_kill(&m->slots[k].w);
    }
    interrupted_err(m->err, m->errlen);
    m->rc = KG_SUPER_INTERRUPTED;
  }
  for (size_t k = 0; k < m->nworkers; k++)
    if (m->slots[k].w.pid > 0) kg_proc_reap(&m->slots[k].w, 10.0, NULL, 0);
  /* (or left when none could start) */
  for (size_t i = 0; i < m->ncases && !m->stop; i++)
    if (!m->cases[i].supported && m->results[i].status == KG_ST_PENDING) {
      m->results[i].status = KG_ST_UNSUPPORTED;
      report(m, i);
    }
}

/* The call's start-ups for the phase times: its devices' workers started side by side. */
static void count_startups(const multi *m) {
  double sum = 0;
  size_t devices = 0;
  for (size_t k = 0; k < m->nworkers; k++) sum += m->slots[k].startup_s, devices += m->slots[k].said_hello;
  if (m->o->startup_s) *m->o->startup_s += kg_phase_startup(sum, devices);
}

int kg_supervise_devices(const kg_case *cases, size_t ncases, const kg_run_params *p, const kg_super_opts *o,
                         const kg_super_dev *workers, size_t nworkers, kg_result *results, kg_device_info *devs,
                         char *err, size_t errlen) {
  kg_super_trap(1);
  void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN); /* a dead worker must not kill us */
  for (size_t i = 0; i < ncases; i++) memset(&results[i], 0, sizeof results[i]);
  struct pollfd *pfd = calloc(nworkers + 1, sizeof *pfd);
  size_t *pidx = calloc(nworkers + 1, sizeof *pidx);
  multi m = {.cases = cases, .ncases = ncases, .orph_a = calloc(nworkers + 1, sizeof(size_t)),
             .orph_b = calloc(nworkers + 1, sizeof(size_t)), .results = results, .o = o, .p = p,
             .workers = workers, .nworkers = nworkers, .slots = calloc(nworkers ? nworkers : 1, sizeof(slot)),
             .devs = devs, .err = err, .errlen = errlen};
  if (!m.slots || !pfd || !pidx || !m.orph_a || !m.orph_b) {
    snprintf(err, errlen, "out of memory");
    m.rc = -1;
    m.nworkers = 0;
  }
  for (size_t k = 0; k < m.nworkers; k++) m.slots[k] = (slot){.w = {.pid = -1}, .state = S_DOWN, .prev = NONE};
  while (!g_caught) {
    for (size_t k = 0; k < m.nworkers; k++) hand_out(&m, k);
    if (!wait_round(&m, pfd, pidx)) break;
  }
  finish(&m);
  count_startups(&m);
  free(m.slots);
  free(pfd);
  free(pidx);
  free(m.orph_a);
  free(m.orph_b);
  signal(SIGPIPE, old_pipe);
  kg_super_trap(0);
  return m.rc;
}

/* --sanitize: one worker at a time, the cases in order. */
typedef struct san_state {
  kg_proc w;
  int rc;
  long log_off;    /* how much of the sanitizer log has been read */
  kg_result *last; /* the last case the current worker ran */
  int last_variant; /* its variant */
  size_t prev;     /* the case it answered last */
  double grace;    /* how long a worker that closed its output may take to exit */
} san_state;

/* One sanitized case on the current worker (started here when there is
 * none): 1 when it must run again on a fresh worker, -1 after a signal or
 * when no worker starts (*rc says which), else 0. */
static int san_case(const kg_case *cases, size_t i, const kg_run_params *p, const kg_super_opts *o,
                    const kg_super_san *san, kg_result *results, kg_device_info *dev, san_state *st, char *err,
                    size_t errlen) {
  kg_result *r = &results[i];
  if (st->w.pid > 0 && st->prev != NONE) drop_unasked(&st->w, results, st->prev); /* that case broke the protocol */
  if (st->w.pid <= 0) {
    fresh_log(san, &st->log_off);
    st->last = NULL;
    st->prev = NONE;
    if ((st->rc = start(&st->w, o, dev, err, errlen)) != 0) return -1;
  }
  char *msg = kg_proto_encode_case_exact(i, &cases[i], p, san && san->exact_alloc);
  char *line = NULL;
  int got = msg && kg_proc_send(&st->w, msg) == 0 ? kg_proc_read_line(&st->w, kg_now_s() + o->timeout_s, &line)
                                                   : KG_LINE_EOF;
  free(msg);
  if (got == KG_LINE_INTR) return -1; /* the case did not finish: it stays pending */
  int end = settle(&st->w, got, line, results, i, st->prev, o->timeout_s, st->grace);
  if (end == END_RERUN) return 1;
  sanitized(san, &st->log_off, r, cases[i].variant);
  if (end == END_DOWN) return 0;
  st->last = r;
  st->last_variant = cases[i].variant;
  st->prev = i;
  if (end == END_RESTART || (san && san->fresh_worker))
    ended(san, &st->log_off, kg_proc_reap(&st->w, end == END_RESTART ? st->grace : 60.0, NULL, 0), r, cases[i].variant);
  return 0;
}

int kg_supervise_san(const kg_case *cases, size_t ncases, const kg_run_params *p, const kg_super_opts *o,
                     const kg_super_san *san, kg_result *results, kg_device_info *dev, char *err, size_t errlen) {
  kg_super_trap(1);
  void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN); /* a dead worker must not kill us */
  /* a sanitized worker may take a while to write its final reports and exit */
  san_state st = {.w = {.pid = -1}, .prev = NONE, .grace = san && san->log ? 60.0 : 2.0};
  for (size_t i = 0; i < ncases; i++) memset(&results[i], 0, sizeof results[i]);
  for (size_t i = 0; i < ncases && !g_caught; i++) {
    if (!cases[i].supported) {
      results[i].status = KG_ST_UNSUPPORTED;
    } else {
      int again = san_case(cases, i, p, o, san, results, dev, &st, err, errlen);
      if (again < 0) break;
      if (again) {
        i--; /* this case runs again on a fresh worker */
        continue;
      }
    }
    if (o->progress) o->progress(o->progress_ctx, i + 1, ncases, &cases[i], &results[i]);
  }
  if (g_caught) {
    kg_proc_kill(&st.w);
    interrupted_err(err, errlen);
    st.rc = KG_SUPER_INTERRUPTED;
  }
  if (st.w.pid > 0)
    ended(san, &st.log_off, kg_proc_reap(&st.w, san && san->log ? 60.0 : 10.0, NULL, 0), st.last, st.last_variant);
  signal(SIGPIPE, old_pipe);
  kg_super_trap(0);
  return st.rc;
}
