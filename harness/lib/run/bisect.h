/* kgate bisect's search: which commit of a range made the alarmed cells
 * slower (docs/bisect.md). The search decides; how a commit is built, how a
 * module is fingerprinted and how two modules are paired on the GPU are the
 * caller's (kg_bisect_ops: bisectops.h on a real repository, a table in the
 * tests), so every decision is testable without a GPU.
 *
 * The range is commits c[0] (the last good) .. c[n-1] (the first bad, or
 * the last bad), oldest first; one commit when both nights built the same
 * one. The steps:
 *  1. reproduce: c[n-1] paired against c[0]; a lower bound below half the
 *     estimate stops it (not reproduced: the environment or the toolchain);
 *  2. fingerprint: every commit built, its module fingerprinted; a build
 *     that fails is skipped (git bisect run's 125); runs of equal
 *     fingerprints collapse into one group (the first commit stands for it);
 *     one group from end to end: the cause is outside the module;
 *  3. bisect over the groups: the middle group paired against both ends,
 *     pooled over the cells, rounds added while the two differences do not
 *     say which side the step is on;
 *  4. verify: the culprit (the first commit of the first bad group) against
 *     its parent, the sandwich. */
#ifndef KG_BISECT_H
#define KG_BISECT_H

#include <stddef.h>

/* Estimates of log(head/base) pooled by inverse variance: every cell of every
 * paired run of one comparison. */
typedef struct kg_bisect_pool {
  double sw, swm; /* sum of weights, of weight * estimate */
  int df;         /* sum over cells of blocks - 1 */
  int cells;      /* estimates added */
  int exact;      /* cells proven unchanged (no timing: log ratio 0 exactly) */
} kg_bisect_pool;

/* One cell's estimate: its log ratio, its standard error, its degrees of
 * freedom (blocks - 1); se <= 0 with df 0 is a cell proven unchanged. */
void kg_bisect_pool_add(kg_bisect_pool *p, double m, double se, int df);
/* The pooled log ratio and its two-sided interval at confidence; -1 when
 * nothing was added. A pool of unchanged cells alone is 0 with [0, 0]. */
int kg_bisect_pool_get(const kg_bisect_pool *p, double confidence, double *m, double *lo, double *hi);

/* What the search needs done. Each returns 0, or -1 for an environment
 * failure (why says what; the search stops with KG_BISECT_ENV). */
typedef struct kg_bisect_ops {
  void *ctx;
  /* Builds commit i into a module (its path into module): 0 built, 1 the
   * build failed (the commit is skipped; why says so), -1 environment. */
  int (*build)(void *ctx, size_t i, char *module, size_t len, char *why, size_t wlen);
  /* The fingerprint of a built module: 64 hex digits and a NUL. */
  int (*fingerprint)(void *ctx, const char *module, char hex[65], char *why, size_t wlen);
  /* One paired run of head against base over the cells: each cell's
   * estimate added to pool (kg_bisect_pool_add). */
  int (*measure)(void *ctx, const char *head, const char *base, kg_bisect_pool *pool, char *why, size_t wlen);
} kg_bisect_ops;

typedef struct kg_bisect_opts {
  double estimate;   /* the step's expected log ratio (> 0); 0: the reproduction's own */
  double confidence; /* two-sided level of every interval (0.99) */
  int max_rounds;    /* paired runs per comparison at most, while undecided (>= 1) */
  const char *ends[2]; /* the modules the step was seen between (the nights' own: last good, last bad), or
                          NULL: the ends' builds. Only the reproduction pairs them: a toolchain that moved
                          between them shows as a step that the range's builds do not have */
  void (*log)(void *ctx, const char *line); /* progress, a line at a time, or NULL */
  void *log_ctx;
} kg_bisect_opts;

typedef enum kg_bisect_outcome {
  KG_BISECT_FOUND,          /* the culprit, verified against its parent */
  KG_BISECT_OUTSIDE,        /* reproduced, but every commit builds the same module: toolchain, driver, harness */
  KG_BISECT_NOT_REPRODUCED, /* the step did not reproduce between the range's ends */
  KG_BISECT_UNDECIDED,      /* rounds ran out, skipped builds hide the step, or the culprit did not verify */
  KG_BISECT_BAD_INPUT,      /* an end of the range does not build */
  KG_BISECT_ENV             /* a build or a paired run could not run */
} kg_bisect_outcome;

const char *kg_bisect_outcome_name(kg_bisect_outcome o); /* "found", "outside", ... */
int kg_bisect_exit(kg_bisect_outcome o); /* 0 found or outside, 4 not reproduced, 1 undecided, 2, 3 */

/* An effect: the pooled log ratio head/base, its interval, the paired runs behind it. */
typedef struct kg_bisect_effect {
  double m, lo, hi;
  int runs, cells;
} kg_bisect_effect;

/* A step of the search: the middle group's first commit against the ends'. */
typedef struct kg_bisect_step {
  size_t good, mid, bad;          /* commit indices */
  kg_bisect_effect left, right;   /* mid / good, bad / mid */
  double d, d_lo, d_hi;           /* left - right and its interval: > 0 the step is at or before mid */
  int verdict;                    /* 1 mid is bad, 0 mid is good, -1 undecided */
} kg_bisect_step;

typedef struct kg_bisect_result {
  kg_bisect_outcome outcome;
  size_t n;             /* commits in the range, both ends included */
  double estimate;      /* the step the search looked for (log ratio) */
  kg_bisect_effect reproduce, verify;
  int *failed;          /* per commit: its build failed (skipped) */
  int *group;           /* per commit: its fingerprint's group (-1: not built) */
  char (*fp)[65];       /* per commit: its fingerprint ("" not built) */
  size_t ngroups;
  size_t built, identical, skipped; /* builds made; commits whose fingerprint equals the one before; failed builds */
  size_t culprit, parent; /* commit indices (found, or the bounds of an undecided range) */
  size_t first_cand, last_cand; /* the commits the step may be at (skipped builds widen it) */
  kg_bisect_step *steps;
  size_t nsteps;
  double build_s, measure_s, wall_s;
  char why[512]; /* one line: what the outcome means here */
  char changed[512]; /* the caller's: what the toolchain record says changed over the range ("" unknown) */
} kg_bisect_result;

/* Runs the search over n >= 1 commits (one: the nights' commit, its own
 * modules in o->ends, else bad input). Fills r (kg_bisect_result_free) and
 * returns r->outcome; only out of memory returns KG_BISECT_ENV with r->why
 * "out of memory" and nothing else filled. */
kg_bisect_outcome kg_bisect_run(size_t n, const kg_bisect_ops *ops, const kg_bisect_opts *o, kg_bisect_result *r);
void kg_bisect_result_free(kg_bisect_result *r);

#endif
