#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "label.h"
#include "child.h"

static const volatile sig_atomic_t *g_stop;
static const int *g_wake;

void kg_proc_watch(const volatile sig_atomic_t *stop, const int *wake_fd) {
  g_stop = stop;
  g_wake = wake_fd;
}

static int stopped(void) { return g_stop && *g_stop; }
static int wake_fd(void) { return g_wake ? *g_wake : -1; }

void kg_proc_drain_wake(void) {
  char junk[64];
  while (wake_fd() >= 0 && read(wake_fd(), junk, sizeof junk) > 0) {
  }
}

/* --- Live child groups, killed at exit of this process whatever the path. */

enum { MAX_LIVE = 256 };
static pid_t g_live[MAX_LIVE];

static void kill_live(void) {
  for (int k = 0; k < MAX_LIVE; k++)
    if (g_live[k] > 0) kill(-g_live[k], SIGKILL);
}

static void track(pid_t pid, int on) {
  static int registered;
  if (!registered) registered = atexit(kill_live) == 0;
  for (int k = 0; k < MAX_LIVE; k++)
    if (on ? g_live[k] <= 0 : g_live[k] == pid) {
      g_live[k] = on ? pid : 0;
      return;
    }
}

int kg_proc_spawn(kg_proc *w, char *const *argv, size_t max_line) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC)) return -1;
  if (pipe2(out, O_CLOEXEC)) {
    close(in[0]);
    close(in[1]);
    return -1;
  }
  /* Its own group, so that it is killed with whatever it forks; the
   * terminal's Ctrl-C reaches the supervisor alone, which decides. */
  const kg_spawn_opts so = {.fd = {in[0], out[1], -1}, .own_group = 1, .what = "worker"};
  pid_t pid = kg_spawn(argv, &so);
  if (pid < 0) {
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return -1;
  }
  track(pid, 1);
  close(in[0]);
  close(out[1]);
  *w = (kg_proc){.pid = pid, .to = in[1], .from = out[0], .max_line = max_line};
  return 0;
}

void kg_proc_kill(const kg_proc *w) {
  if (w->pid > 0) kill(-w->pid, SIGKILL);
}

int kg_proc_fill(kg_proc *w) {
  if (w->cap - w->len < 4096 && w->cap < w->max_line + 1) {
    size_t cap = w->cap ? 2 * w->cap : 8192;
    if (cap > w->max_line + 1) cap = w->max_line + 1;
    char *b = realloc(w->buf, cap);
    if (!b) return 0;
    w->buf = b;
    w->cap = cap;
  }
  if (w->len == w->cap) return 1;
  ssize_t got = read(w->from, w->buf + w->len, w->cap - w->len);
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return 1;
  if (got <= 0) return 0;
  w->len += (size_t)got;
  return 1;
}

int kg_proc_take_line(kg_proc *w, char **line) {
  char *nl = w->len > w->scanned ? memchr(w->buf + w->scanned, '\n', w->len - w->scanned) : NULL;
  if (!nl) {
    w->scanned = w->len;
    if (w->len <= w->max_line) return KG_LINE_NONE;
    static char why[64]; /* outlives the reap that follows: callers read it after */
    snprintf(why, sizeof why, "line longer than %zu bytes", w->max_line);
    w->bad = why;
    return KG_LINE_BAD;
  }
  size_t n = (size_t)(nl - w->buf);
  if (memchr(w->buf, '\0', n)) {
    w->bad = "NUL byte inside a line";
    return KG_LINE_BAD;
  }
  *nl = '\0';
  w->used = n + 1;
  *line = w->buf;
  return KG_LINE_OK;
}

void kg_proc_consume(kg_proc *w) {
  memmove(w->buf, w->buf + w->used, w->len - w->used);
  w->len -= w->used;
  w->used = w->scanned = 0;
}

long kg_proc_leftover(kg_proc *w) {
  if (w->len) return (long)w->len;
  struct pollfd p = {.fd = w->from, .events = POLLIN};
  if (poll(&p, 1, 0) <= 0 || !p.revents) return 0;
  if (!kg_proc_fill(w)) return -1;
  return (long)w->len;
}

int kg_proc_read_line(kg_proc *w, double deadline, char **line) {
  for (;;) {
    int got = kg_proc_take_line(w, line);
    if (got != KG_LINE_NONE) return got;
    if (stopped()) return KG_LINE_INTR;
    double left = deadline - kg_now_s();
    if (left <= 0) return KG_LINE_TIMEOUT;
    struct pollfd pfd[2] = {{.fd = w->from, .events = POLLIN}, {.fd = wake_fd(), .events = POLLIN}};
    int r = poll(pfd, wake_fd() >= 0 ? 2 : 1, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue; /* the deadline check above ends the wait */
    if (wake_fd() >= 0 && pfd[1].revents) kg_proc_drain_wake();
    if (pfd[0].revents && !kg_proc_fill(w)) return KG_LINE_EOF;
  }
}

int kg_proc_send(kg_proc *w, const char *line) {
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

/* Its whole process group is killed before the leader is reaped: the
 * unreaped leader holds the group id, so no other process can have it. */
int kg_proc_reap(kg_proc *w, double grace, char *why, size_t len) {
  if (w->pid <= 0) return -1;
  close(w->to);
  close(w->from);
  int exited = 0;
  double deadline = kg_now_s() + grace;
  for (;;) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == w->pid) {
      exited = 1;
      break;
    }
    if (kg_now_s() >= deadline || stopped()) break;
    struct timespec t = {0, 5000000};
    nanosleep(&t, NULL);
  }
  kg_proc_kill(w);
  int status = 0;
  while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
  }
  track(w->pid, 0);
  if (why) {
    if (!exited) snprintf(why, len, "worker did not exit and was killed");
    else if (WIFSIGNALED(status))
      snprintf(why, len, "worker killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else snprintf(why, len, "worker exited with status %d", WEXITSTATUS(status));
  }
  free(w->buf);
  *w = (kg_proc){.pid = -1};
  return exited && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int kg_proc_capture(char *const *argv, size_t cap, int timeout_ms, char **out, size_t *outlen, char *err,
                    size_t errlen) {
  int fds[2];
  if (pipe(fds)) return snprintf(err, errlen, "cannot start a worker: %s", strerror(errno)), -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  pid_t pid;
  extern char **environ;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc) {
    close(fds[0]);
    return snprintf(err, errlen, "cannot run worker %s: %s", argv[0], strerror(rc)), -1;
  }
  size_t len = 0;
  char *buf = malloc(cap + 1);
  while (buf && len < cap) {
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    if (poll(&p, 1, timeout_ms) <= 0) break;
    ssize_t got = read(fds[0], buf + len, cap - len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    len += (size_t)got;
  }
  close(fds[0]);
  kill(pid, SIGKILL); /* it has said what it will say (or hung) */
  int status;
  waitpid(pid, &status, 0);
  if (!buf) return snprintf(err, errlen, "out of memory"), -1;
  buf[len] = '\0';
  *out = buf;
  *outlen = len;
  return 0;
}
