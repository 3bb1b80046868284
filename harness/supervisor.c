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
static int start(worker *w, const kg_super_opts *o, kg_device_info *dev, char *err, size_t errlen) {
  if (spawn(w, o->worker_argv)) {
    snprintf(err, errlen, "cannot start a worker process: %s", strerror(errno));
    return -1;
  }
  char *line;
  int got = read_line(w, now_s() + o->start_timeout_s, &line);
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
  return kg_supervise_san(cases, ncases, p, o, NULL, results, dev, err, errlen);
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
