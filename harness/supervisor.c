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

typedef struct worker {
  pid_t pid;
  int to, from; /* pipe ends: the worker's stdin and stdout */
  char *buf;    /* bytes read but not yet returned as lines */
  size_t len, cap;
} worker;

enum { LINE_OK = 1, LINE_EOF = 0, LINE_TIMEOUT = -2 };

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int spawn(worker *w, char *const *argv) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC)) return -1;
  if (pipe2(out, O_CLOEXEC)) {
    close(in[0]);
    close(in[1]);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return -1;
  }
  if (pid == 0) {
    /* A pipe end may already sit on fd 0 or 1 (we were started with it
     * closed): then dup2 is a no-op and only clearing close-on-exec helps. */
    if (in[0] == STDIN_FILENO) fcntl(in[0], F_SETFD, 0);
    else dup2(in[0], STDIN_FILENO);
    if (out[1] == STDOUT_FILENO) fcntl(out[1], F_SETFD, 0);
    else dup2(out[1], STDOUT_FILENO);
    execv(argv[0], argv);
    fprintf(stderr, "kgate: cannot run worker %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  *w = (worker){.pid = pid, .to = in[1], .from = out[0]};
  return 0;
}

/* Next line without its newline, in a buffer valid until the next call. */
static int read_line(worker *w, double deadline, char **line) {
  for (;;) {
    char *nl = w->len ? memchr(w->buf, '\n', w->len) : NULL;
    if (nl) {
      *nl = '\0';
      *line = w->buf;
      return LINE_OK;
    }
    double left = deadline - now_s();
    if (left <= 0) return LINE_TIMEOUT;
    struct pollfd pfd = {.fd = w->from, .events = POLLIN};
    int r = poll(&pfd, 1, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue; /* the deadline check above ends the wait */
    if (w->cap - w->len < 4096) {
      size_t cap = w->cap ? 2 * w->cap : 8192;
      char *b = realloc(w->buf, cap);
      if (!b) return LINE_EOF;
      w->buf = b;
      w->cap = cap;
    }
    ssize_t got = read(w->from, w->buf + w->len, w->cap - w->len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return LINE_EOF;
    w->len += (size_t)got;
  }
}

/* Drops the line returned last from the buffer. */
static void consume_line(worker *w) {
  char *end = memchr(w->buf, '\0', w->len);
  size_t used = (size_t)(end - w->buf) + 1;
  memmove(w->buf, w->buf + used, w->len - used);
  w->len -= used;
}

static int send_line(worker *w, const char *line) {
  size_t len = strlen(line);
  char *msg = malloc(len + 1);
  if (!msg) return -1;
  memcpy(msg, line, len);
  msg[len] = '\n';
  size_t off = 0;
  int rc = 0;
  while (off <= len) {
    ssize_t put = write(w->to, msg + off, len + 1 - off);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      rc = -1;
      break;
    }
    off += (size_t)put;
  }
  free(msg);
  return rc;
}

/* Ends the worker (closing its stdin asks it to exit; kill after grace
 * seconds) and describes how it ended. Returns its exit status, or -1 when
 * it was killed or died of a signal (or there was none). */
static int reap(worker *w, double grace, char *why, size_t len) {
  if (w->pid <= 0) return -1;
  close(w->to);
  close(w->from);
  int status = 0;
  double deadline = now_s() + grace;
  pid_t r;
  while ((r = waitpid(w->pid, &status, WNOHANG)) == 0 && now_s() < deadline) {
    struct timespec t = {0, 5000000};
    nanosleep(&t, NULL);
  }
  if (r == 0) {
    kill(w->pid, SIGKILL);
    waitpid(w->pid, &status, 0);
  }
  if (why) {
    if (r == 0) snprintf(why, len, "worker did not exit and was killed");
    else if (WIFSIGNALED(status))
      snprintf(why, len, "worker killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else snprintf(why, len, "worker exited with status %d", WEXITSTATUS(status));
  }
  free(w->buf);
  *w = (worker){.pid = -1};
  return r != 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void fail_case(kg_result *r, const char *fmt, const char *detail) {
  memset(r, 0, sizeof *r);
  r->status = KG_ST_ERROR;
  snprintf(r->message, sizeof r->message, fmt, detail);
}

/* Starts a worker and reads its hello. 0, or -1 with the reason in err. */
static int start_argv(worker *w, char *const *argv, double start_timeout_s, kg_device_info *dev, char *err,
                      size_t errlen) {
  if (spawn(w, argv)) {
    snprintf(err, errlen, "cannot start a worker process: %s", strerror(errno));
    return -1;
  }
  char *line;
  int got = read_line(w, now_s() + start_timeout_s, &line);
  if (got == LINE_OK) {
    int rc = kg_proto_decode_hello(line, dev, err, errlen);
    consume_line(w);
    if (rc == 0) return 0;
    reap(w, 1.0, NULL, 0);
    return -1;
  }
  char why[160];
  reap(w, got == LINE_TIMEOUT ? 0.0 : 2.0, why, sizeof why); /* EOF: let it exit and say how */
  snprintf(err, errlen, "worker failed to start: %s", got == LINE_TIMEOUT ? "no hello in time" : why);
  return -1;
}

static int start(worker *w, const kg_super_opts *o, kg_device_info *dev, char *err, size_t errlen) {
  return start_argv(w, o->worker_argv, o->start_timeout_s, dev, err, errlen);
}

int kg_supervise_probe(char *const *argv, double start_timeout_s, kg_device_info *dev, char *err, size_t errlen) {
  void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
  worker w = {.pid = -1};
  int rc = start_argv(&w, argv, start_timeout_s, dev, err, errlen);
  if (rc == 0) reap(&w, 10.0, NULL, 0);
  signal(SIGPIPE, old_pipe);
  return rc;
}

/* --sanitize: what the log gained since *off. Fails r (when it passed or
 * merely errored) with the first report; 1 when the log showed errors. */
static int sanitized(const kg_super_san *o, long *off, kg_result *r) {
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
      int bad = o->scan(text ? text : "", got, first, sizeof first);
      free(text);
      *off += (long)got;
      if (bad) {
        dirty = 1;
        char msg[sizeof r->message];
        snprintf(msg, sizeof msg, "sanitizer (%.20s): %.160s", o->tool ? o->tool : "compute-sanitizer",
                 first[0] ? first : "errors reported (see its log)");
        if (r->status == KG_ST_PASS || r->status == KG_ST_ERROR) r->status = KG_ST_FAIL;
        memcpy(r->message, msg, sizeof msg);
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
static void ended(const kg_super_san *o, long *off, int code, kg_result *last) {
  if (!o || !o->log || !last) return;
  int before = last->status;
  if (sanitized(o, off, last)) return;
  if (code == o->exit_code && before == KG_ST_PASS) {
    last->status = KG_ST_FAIL;
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
  worker w;
  int state;       /* S_DOWN: no process (one starts when there is work); S_DEAD: never again */
  double deadline; /* S_STARTING: for the hello; S_BUSY: the watchdog */
  size_t cur;      /* S_BUSY: the case it is on */
  size_t next, end; /* the rest of its current input group */
  int said_hello;
} slot;

typedef struct multi {
  const kg_case *cases;
  size_t ncases, qpos; /* qpos: the first case of the next group not handed out */
  size_t *orph_a, *orph_b, norph; /* groups (rests of) left by dead devices */
  kg_result *results;
  const kg_super_opts *o;
  size_t done;
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

/* Reads what the pipe holds: 1 when bytes (or nothing, interrupted) came, 0 on EOF or error. */
static int fill(worker *w) {
  if (w->cap - w->len < 4096) {
    size_t cap = w->cap ? 2 * w->cap : 8192;
    char *b = realloc(w->buf, cap);
    if (!b) return 0;
    w->buf = b;
    w->cap = cap;
  }
  ssize_t got = read(w->from, w->buf + w->len, w->cap - w->len);
  if (got < 0 && errno == EINTR) return 1;
  if (got <= 0) return 0;
  w->len += (size_t)got;
  return 1;
}

static int take_line(worker *w, char **line) {
  char *nl = w->len ? memchr(w->buf, '\n', w->len) : NULL;
  if (!nl) return 0;
  *nl = '\0';
  *line = w->buf;
  return 1;
}

int kg_supervise_devices(const kg_case *cases, size_t ncases, const kg_run_params *p, const kg_super_opts *o,
                         const kg_super_dev *workers, size_t nworkers, kg_result *results, kg_device_info *devs,
                         char *err, size_t errlen) {
  void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN); /* a dead worker must not kill us */
  int rc = 0, stop = 0;
  for (size_t i = 0; i < ncases; i++) memset(&results[i], 0, sizeof results[i]);
  slot *slots = calloc(nworkers ? nworkers : 1, sizeof *slots);
  struct pollfd *pfd = calloc(nworkers ? nworkers : 1, sizeof *pfd);
  size_t *pidx = calloc(nworkers ? nworkers : 1, sizeof *pidx);
  multi m = {cases, ncases, 0, calloc(nworkers + 1, sizeof(size_t)), calloc(nworkers + 1, sizeof(size_t)), 0,
             results, o, 0};
  if (!slots || !pfd || !pidx || !m.orph_a || !m.orph_b) {
    snprintf(err, errlen, "out of memory");
    rc = -1;
    nworkers = 0;
  }
  for (size_t k = 0; k < nworkers; k++) slots[k] = (slot){.w = {.pid = -1}, .state = S_DOWN};
  for (;;) {
    /* Hand out work; start workers where there is work for them. */
    for (size_t k = 0; k < nworkers; k++) {
      slot *s = &slots[k];
      if (stop && (s->state == S_IDLE || s->state == S_DOWN)) {
        if (s->state == S_IDLE) reap(&s->w, 10.0, NULL, 0);
        s->state = S_DEAD;
        continue;
      }
      if (s->state == S_DOWN && has_work(&m, s)) {
        if (spawn(&s->w, workers[k].worker_argv)) {
          snprintf(err, errlen, "cannot start a worker process: %s", strerror(errno));
          rc = -1;
          orphan(&m, s);
          continue;
        }
        s->state = S_STARTING;
        s->deadline = now_s() + o->start_timeout_s;
      }
      if (s->state != S_IDLE) continue;
      long i = next_case(&m, s, &devs[k], workers[k].device);
      if (i < 0) {
        reap(&s->w, 10.0, NULL, 0);
        s->state = S_DOWN;
        continue;
      }
      s->cur = (size_t)i;
      char *msg = kg_proto_encode_case(s->cur, &cases[s->cur], p);
      int sent = msg && send_line(&s->w, msg) == 0;
      free(msg);
      s->state = S_BUSY;
      s->deadline = now_s() + o->timeout_s;
      if (!sent) s->deadline = 0; /* handled below as a dead worker: its exit says why */
    }
    size_t np = 0;
    double soonest = 0;
    for (size_t k = 0; k < nworkers; k++) {
      slot *s = &slots[k];
      if (s->state != S_STARTING && s->state != S_BUSY) continue;
      if (!np || s->deadline < soonest) soonest = s->deadline;
      pfd[np] = (struct pollfd){.fd = s->w.from, .events = POLLIN};
      pidx[np++] = k;
    }
    if (!np) break;
    double left = soonest - now_s();
    int r = poll(pfd, np, left > 0 ? (int)(left * 1000) + 1 : 0);
    if (r < 0 && errno != EINTR) break;
    for (size_t q = 0; q < np; q++) {
      slot *s = &slots[pidx[q]];
      size_t k = pidx[q];
      int eof = s->state == S_BUSY && s->deadline == 0; /* the case could not be sent */
      if (!eof && r > 0 && pfd[q].revents) eof = !fill(&s->w);
      else if (s->deadline > 0 && now_s() < s->deadline) continue;
      char *line;
      int have = take_line(&s->w, &line);
      if (!have && !eof && s->deadline > 0 && now_s() < s->deadline) continue;
      char why[160];
      if (s->state == S_STARTING) {
        if (have) {
          int hrc = kg_proto_decode_hello(line, &devs[k], err, errlen);
          consume_line(&s->w);
          if (hrc) {
            reap(&s->w, 1.0, NULL, 0);
            rc = -1;
            orphan(&m, s);
            continue;
          }
          s->state = S_IDLE;
          s->said_hello = 1;
          for (size_t j = 0; j < nworkers && o->one_model && !stop; j++) {
            if (j == k || !slots[j].said_hello || !strcmp(devs[j].name, devs[k].name)) continue;
            snprintf(err, errlen, "devices %d (%.80s) and %d (%.80s) are different GPU models: run --devices needs one",
                     workers[j].device, devs[j].name, workers[k].device, devs[k].name);
            rc = -2;
            stop = 1;
          }
        } else {
          int timeout = !eof;
          if (timeout) kill(s->w.pid, SIGKILL);
          reap(&s->w, timeout ? 0.0 : 2.0, why, sizeof why);
          snprintf(err, errlen, "worker failed to start: %s", timeout ? "no hello in time" : why);
          rc = rc ? rc : -1;
          orphan(&m, s);
        }
        continue;
      }
      /* S_BUSY: an answer, a death, or the watchdog. */
      kg_result *res = &results[s->cur];
      if (have) {
        size_t idx = s->cur;
        int restart = 0;
        char perr[160];
        if (kg_proto_decode_result(line, &idx, res, &restart, perr, sizeof perr) || idx != s->cur) {
          fail_case(res, "worker broke the protocol: %s", idx != s->cur ? "answer for another case" : perr);
          restart = 1;
        }
        consume_line(&s->w);
        s->state = S_IDLE;
        if (restart) reap(&s->w, 2.0, NULL, 0), s->state = S_DOWN;
      } else if (!eof) {
        kill(s->w.pid, SIGKILL);
        reap(&s->w, 1.0, NULL, 0);
        snprintf(why, sizeof why, "%g", o->timeout_s);
        fail_case(res, "timeout after %s s", why);
        s->state = S_DOWN;
      } else {
        reap(&s->w, 2.0, why, sizeof why);
        fail_case(res, "%s", why);
        s->state = S_DOWN;
      }
      res->device = workers[k].device;
      report(&m, s->cur);
    }
  }
  for (size_t k = 0; k < nworkers; k++)
    if (slots[k].w.pid > 0) reap(&slots[k].w, 10.0, NULL, 0);
  /* Unsupported cases no worker was needed for (or left when none could start). */
  for (size_t i = 0; i < ncases && !stop; i++)
    if (!cases[i].supported && results[i].status == KG_ST_PENDING) {
      results[i].status = KG_ST_UNSUPPORTED;
      report(&m, i);
    }
  free(slots);
  free(pfd);
  free(pidx);
  free(m.orph_a);
  free(m.orph_b);
  signal(SIGPIPE, old_pipe);
  return rc;
}

int kg_supervise_san(const kg_case *cases, size_t ncases, const kg_run_params *p, const kg_super_opts *o,
                     const kg_super_san *san, kg_result *results, kg_device_info *dev, char *err, size_t errlen) {
  void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN); /* a dead worker must not kill us */
  worker w = {.pid = -1};
  int rc = 0;
  long log_off = 0;
  kg_result *last = NULL; /* the last case the current worker ran */
  /* a sanitized worker may take a while to write its final reports and exit */
  double grace = san && san->log ? 60.0 : 2.0;
  for (size_t i = 0; i < ncases; i++) memset(&results[i], 0, sizeof results[i]);
  for (size_t i = 0; i < ncases; i++) {
    kg_result *r = &results[i];
    if (!cases[i].supported) {
      r->status = KG_ST_UNSUPPORTED;
    } else {
      if (w.pid <= 0) {
        fresh_log(san, &log_off);
        last = NULL;
        if (start(&w, o, dev, err, errlen)) {
          rc = -1;
          break;
        }
      }
      char *msg = kg_proto_encode_case_exact(i, &cases[i], p, san && san->exact_alloc);
      char *line = NULL;
      int got = msg && send_line(&w, msg) == 0 ? read_line(&w, now_s() + o->timeout_s, &line) : LINE_EOF;
      free(msg);
      char why[160];
      if (got == LINE_OK) {
        size_t idx = i;
        int restart = 0;
        char perr[160];
        if (kg_proto_decode_result(line, &idx, r, &restart, perr, sizeof perr) || idx != i) {
          fail_case(r, "worker broke the protocol: %s", idx != i ? "answer for another case" : perr);
          restart = 1;
        }
        consume_line(&w);
        sanitized(san, &log_off, r);
        last = r;
        if (restart || (san && san->fresh_worker)) ended(san, &log_off, reap(&w, restart ? grace : 60.0, NULL, 0), r);
      } else if (got == LINE_TIMEOUT) {
        kill(w.pid, SIGKILL);
        reap(&w, 1.0, NULL, 0);
        snprintf(why, sizeof why, "%g", o->timeout_s);
        fail_case(r, "timeout after %s s", why);
        sanitized(san, &log_off, r);
      } else {
        int code = reap(&w, grace, why, sizeof why);
        fail_case(r, "%s", why);
        ended(san, &log_off, code, r);
      }
    }
    if (o->progress) o->progress(o->progress_ctx, i + 1, ncases, &cases[i], r);
  }
  if (w.pid > 0) ended(san, &log_off, reap(&w, san && san->log ? 60.0 : 10.0, NULL, 0), last);
  signal(SIGPIPE, old_pipe);
  return rc;
}
