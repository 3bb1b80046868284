/* testutil: helpers that several Check suites share (scratch folders, whole
 * files, quiet command runs, hand-made runs). Test-only; kgt_ prefix. */
#ifndef KGATE_TESTUTIL_H
#define KGATE_TESTUTIL_H

#include <stddef.h>

#include "cli.h"
#include "proto.h"
#include "results.h"

/* A fresh folder /tmp/kg_<tag>_XXXXXX into dir (asserted): each test gets its own. */
void kgt_mkscratch(char *dir, size_t len, const char *tag);
/* rm -rf dir; returns system()'s status so a fixture may assert it or not. */
int kgt_rmtree(const char *dir);
/* Names in dir, dot files and keep (may be NULL) left out: spots stray temp files. */
int kgt_count_files(const char *dir, const char *keep);

/* The whole file, malloc'ed; NULL when it cannot be opened. */
char *kgt_slurp(const char *path);
/* Writes text as the whole file (asserted). */
void kgt_spit(const char *path, const char *text);
/* Replaces the first from in the file with to (from must be there: asserted): a forged field. */
void kgt_edit(const char *path, const char *from, const char *to);

/* Parses {"kgate", args..., NULL} (err emptied first), as main would; args past
 * KGT_MAXARGS are not read. */
enum { KGT_MAXARGS = 24 };
int kgt_parse(char *const *args, kg_cli *cli, char *err, size_t errlen);
/* Asserts that args are refused as usage errors with a message holding message. */
void kgt_assert_rejected(char *const *args, const char *message);
/* kg_cli_run with stdout and stderr sent to /dev/null, so the log stays readable. */
int kgt_run_quiet(const kg_cli *cli);
/* Parse, then run quietly: the exit code either step gives. */
int kgt_run_cli(char **args);
/* The same, its stdout and stderr together into out (the last len - 1
 * bytes; a usage error's message instead when parsing refused args). */
int kgt_run_capture(char **args, char *out, size_t len);

/* A 12-sample timing around med, as the chart and history tests expect. */
kg_timing kgt_timing(double med);
/* Appends a supported case and its result of status st to a hand-made run
 * whose arrays hold cap (asserted); variant must be in the registry. */
void kgt_add_case(kg_run *run, size_t cap, const char *variant, kg_dtype dt, size_t n, kg_pattern p, int timed,
                  kg_status st);
/* The date, version 0.1.0 and commit every hand-made run carries. */
void kgt_stamp(kg_run_meta *m, const char *commit);
/* The H200 the chart, history and page tests describe. */
kg_device_info kgt_h200(void);

/* --- A nightly's detection, made by hand (the page and chart tests). */
#include "detect.h"

enum { KGT_NIGHTS = 6, KGT_NSERIES = 10 };
/* Six paired nights of the H200 (kgt_h200), commits c0ffee1..c0ffee6, and a
 * detection over them: ten f32 cells at 2^25 (reduce0_divergent ..., the
 * registry's first ten), the first of them 2 % slower from night 4 (index 3)
 * in an open regression finding; an environment notice on night 2; an
 * acknowledged improvement of the second cell from night 5. Static storage:
 * valid until the next call. */
void kgt_nightly(kg_history **h, kg_detection **d);

/* --- Processes (the supervisor's process groups and signals). */
#include <sys/types.h>

/* Runs body(ctx, msg, len) in a forked child that adopts orphans
 * (PR_SET_CHILD_SUBREAPER), so a process that outlived its killing comes back
 * to it. body writes "" into msg when all it checked held, else what failed;
 * it must not use ck_assert. Returns the child's wait status; msg gets the
 * body's text ("child died before reporting" when it did not finish). */
int kgt_subreaper_child(void (*body)(void *ctx, char *msg, size_t len), void *ctx, char *msg, size_t len);
/* Forks a process that waits (at most 30 s) for path to exist, then sends
 * sig to target. Its pid, to be waited for. */
pid_t kgt_signal_when(const char *path, pid_t target, int sig);
/* 1 when pid is gone within wait_s seconds (an orphan handed to us is
 * waited for), 0 when it still runs (it is then killed, not to linger). */
int kgt_gone(pid_t pid, double wait_s);
/* Two pids from path ("<a> <b>"): 0, or -1 when it is missing or malformed. */
int kgt_read_pids(const char *path, pid_t *a, pid_t *b);

/* --- Tables sized to their data. */
/* Whether each of the nrows lines after the line of text that starts with
 * head has a cell starting at the display column (UTF-8 code points) where
 * heading starts in that line, after a space. "" in why when so, else which
 * row is off. 1 when aligned. */
int kgt_column_aligned(const char *text, const char *head, const char *heading, size_t nrows, char *why, size_t len);

#endif
