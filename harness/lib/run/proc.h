/* Process plumbing for worker processes: spawn with pipes in a process group
 * of its own, read bounded lines, end and reap. CUDA-free, protocol-free: the
 * supervisor (supervisor.h) says what the lines mean.
 *
 * Process groups. A child runs in its own group (setpgid in the child and in
 * the parent) and is always ended as a group (kill(-pgid, SIGKILL)), also at
 * exit of this process: a child that forks (compute-sanitizer, a wrapper
 * script) leaves nothing running behind it.
 *
 * Lines. A line is at most max_line bytes before its newline; a longer one,
 * or one holding a NUL byte, is KG_LINE_BAD with the reason in bad. The
 * buffer never grows past max_line + 1 bytes.
 *
 * Interruption. kg_proc_watch names a flag and a wake-up pipe (the
 * supervisor's signal trap): read_line returns KG_LINE_INTR once the flag is
 * set, and reap stops waiting for a polite exit. */
#ifndef KG_PROC_H
#define KG_PROC_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct kg_proc {
  pid_t pid;    /* also the id of its process group; -1 when none */
  int to, from; /* pipe ends: the child's stdin and stdout */
  size_t max_line;
  char *buf; /* bytes read but not yet returned as lines; never past max_line + 1 */
  size_t len, cap;
  size_t scanned;  /* buf[0, scanned) holds no newline: only new bytes are searched */
  size_t used;     /* the line returned last, with its newline */
  const char *bad; /* KG_LINE_BAD: how the child broke the line rule (static text) */
} kg_proc;

enum {
  KG_LINE_OK = 1,
  KG_LINE_NONE = 0,
  KG_LINE_EOF = -1,
  KG_LINE_TIMEOUT = -2,
  KG_LINE_BAD = -3,
  KG_LINE_INTR = -4
};

/* The stop flag and the read end of the wake-up pipe (may hold -1) to watch. */
void kg_proc_watch(const volatile sig_atomic_t *stop, const int *wake_fd);
/* Empties the wake-up pipe: the flag says why it woke. */
void kg_proc_drain_wake(void);

/* Starts argv[0] (execv) with pipes on its stdin and stdout: 0, or -1 with
 * errno. A program that cannot be executed says so on stderr and exits 127. */
int kg_proc_spawn(kg_proc *w, char *const *argv, size_t max_line);
/* SIGKILL to the child's whole group. */
void kg_proc_kill(const kg_proc *w);
/* Reads what the pipe holds: 1 when bytes came (or none: interrupted, or the
 * buffer is full), 0 on EOF or error. */
int kg_proc_fill(kg_proc *w);
/* The next whole line, its newline made a NUL, valid until kg_proc_consume:
 * KG_LINE_OK, KG_LINE_NONE while incomplete, KG_LINE_BAD. */
int kg_proc_take_line(kg_proc *w, char **line);
/* Drops the line returned last. */
void kg_proc_consume(kg_proc *w);
/* What the child sent beyond the lines taken, buffered or waiting in the
 * pipe: 0 nothing, > 0 that many bytes, -1 it closed its output. */
long kg_proc_leftover(kg_proc *w);
/* The next line until deadline (kg_now_s, label.h): KG_LINE_OK, KG_LINE_BAD,
 * KG_LINE_EOF, KG_LINE_TIMEOUT or KG_LINE_INTR. */
int kg_proc_read_line(kg_proc *w, double deadline, char **line);
/* Writes line and a newline to the child's stdin: 0 or -1. */
int kg_proc_send(kg_proc *w, const char *line);
/* Ends the child (closing its stdin asks it to exit; after grace seconds, or
 * at once once the stop flag is set, its group is killed), reaps it and
 * describes how it ended in why ("worker exited with status N", "worker
 * killed by signal N (name)", "worker did not exit and was killed"). Returns
 * its exit status, or -1 when it was killed, died of a signal or there was
 * none. */
int kg_proc_reap(kg_proc *w, double grace, char *why, size_t len);

/* Runs argv (posix_spawn, stdout to a pipe), reads its output until EOF, cap
 * bytes or timeout_ms without any, then kills and reaps it. 0 with the
 * malloc'ed output NUL-terminated in *out (*len bytes), or -1 with "cannot
 * run worker P: reason" / "out of memory" in err. */
int kg_proc_capture(char *const *argv, size_t cap, int timeout_ms, char **out, size_t *len, char *err, size_t errlen);

#endif
