/* The paired gate's rounds: which cells of a run are paired with the base
 * module, running them in fresh worker processes round after round, and the
 * verdicts (paired.h). The supervisor carries the paired cases like any
 * other; this module decides what to send and what the answers mean. */
#ifndef KG_PAIRRUN_H
#define KG_PAIRRUN_H

#include <stddef.h>
#include <stdio.h>

#include "modload.h"
#include "paired.h"
#include "results.h"
#include "seqtest.h"
#include "supervisor.h"
#include "unchanged.h"

/* The interval's two-sided level. With a minimum effect on top, a false
 * SLOWER needs the mean of the blocks beyond min effect + t * se, so the
 * measured A/A rate sits far below 1 - this. */
#define KG_PAIR_CONFIDENCE 0.99
/* With the interval rule (the nightly): a cell decided before the rounds
 * every cell gets are done stops there when its interval at this level
 * decides too: the early look spends half
 * of the error rate of the level above (Bonferroni), so stopping early adds
 * at most that to a cell's chance of a wrong verdict. */
#define KG_PAIR_EARLY 0.995

/* A cell to time: the head variant against base_variant (a registry index)
 * of kgate's own module (base_module 0) or the same name in the base module
 * (base_module 1). */
typedef struct kg_pair_job {
  int variant, base_module, base_variant;
  kg_dtype dtype;
  size_t n;
} kg_pair_job;

/* The paired gate's settings, one struct from the command line to the
 * rounds: `run --base-kernels` and selftest's paired rows (--rounds,
 * --max-rounds, --pair-seconds, --min-effect, --copies, --cell-seconds). */
typedef struct kg_pair_settings {
  kg_pair_opts pair;      /* copies, quads per block, seconds per cell */
  int rounds, max_rounds; /* fresh-worker rounds for every cell, and at most for undecided ones (max_rounds
                             below rounds: rounds) */
  double budget_s;        /* wall time the rounds past `rounds` may take */
  double min_effect_pct;  /* 0: kg_pair_min_effect by size */
  int time_unchanged;     /* pair cells proven unchanged too (unchanged.h); the gate caller decides */
  /* 1: the sequential decision (seqtest.h): every round a look, a cell stops
   * as soon as it is decided, rounds = the rounds an undecided cell gets
   * whatever the budget; 0: the interval decides (the nightly, whose
   * detector is calibrated on intervals of every round) */
  int sequential;
  int absolute_unchanged; /* time cells proven unchanged once, unpaired (else not at all) */
} kg_pair_settings;

/* Whether the base module has the variant (a registry index) for dt: its
 * timed cases are then timed by the paired rounds alone. */
int kg_pair_in_base(const kg_modinfo *base, int variant, kg_dtype dt);

/* The cells of a run against a base module: every timed case that passed
 * whose variant the base has for its dtype becomes a job; a timed case the
 * base lacks is NEW; one the base has that failed is UNKNOWN; with
 * all_variants, every base variant (and dtype) that this kgate lacks is
 * MISSING at each timed (dtype, n). cells gets one entry per outcome (jobs
 * first, in order), *jobs the jobs (cells[0 .. *njobs) belong to them). 0, or
 * -1 out of memory. */
int kg_pair_plan(const kg_run *run, const kg_modinfo *base, int all_variants, kg_pair_cell **cells,
                 size_t *ncells, kg_pair_job **jobs, size_t *njobs);

/* Rounds at most (--max-rounds allows 64). */
#define KG_PAIR_MAX_ROUNDS 64

/* What the rounds say of a job's head case: its absolute timing from the
 * head's samples (kg_pair_combine_timing), its guard (the last round's,
 * with the samples re-checked summed over the rounds; on 0: none came),
 * and status KG_ST_PASS, or KG_ST_FAIL with fail and message when its
 * results were wrong after timing (then no timing). */
typedef struct kg_pair_head {
  kg_timing timing;
  kg_guard guard;
  kg_status status;
  kg_fail_kind fail;
  char message[200];
} kg_pair_head;

/* Times the jobs against their base (rp->pair: module and base variant, the
 * same for every job; rp->pair.on is set here): `rounds` rounds of every job
 * still undecided (ps->sequential: a cell stops at the first round its
 * sequential test decides; else early only at KG_PAIR_EARLY), then rounds of
 * the undecided ones while budget_s and max_rounds allow; each
 * round is one kg_supervise_devices call (fresh workers), and a line on log
 * (cells, undecided, seconds; NULL: none). cells[j] (j < njobs)
 * get their statistics and verdicts. A job whose timing errored in every round
 * is UNKNOWN with the worker's message. Every round re-checks both sides'
 * results after timing (the worker's paired case): a job whose head or base
 * was wrong gets no more rounds and its cell is UNKNOWN, saying which side;
 * a wrong head also fails its head case. head (NULL: not wanted) gets what
 * the rounds say of each job's head case (kg_pair_head). Returns 0, -1
 * out of memory, or the supervisor's code with err (a worker that could not
 * start, KG_SUPER_INTERRUPTED: the cut round is not counted). */
int kg_pair_rounds(const kg_pair_job *jobs, size_t njobs, kg_pair_cell *cells, const kg_pair_settings *ps,
                   FILE *log, const kg_run_params *rp, const kg_super_opts *so, const kg_super_dev *devs, size_t ndev,
                   kg_device_info *devinfo, kg_pair_head *head, char *err, size_t errlen);

/* A job's head (kg_pair_rounds, or a proven cell's one timing pass) on the
 * run's timed cases of its (variant, dtype, n): its guard when it has one;
 * passed, its timing; failed, the failure (status, fail, message) and no
 * timing. */
void kg_pair_apply_head(kg_run *run, const kg_pair_job *job, const kg_pair_head *h);

/* The rounds' absolute timings of one cell (n of them) as one: medians of
 * the rounds' medians and quartiles (each round's q1 <= median <= q3 keeps
 * that order), the least minimum, every sample counted, and the median's
 * error as the rounds' median error over sqrt(n), the rounds being
 * independent. n <= 0 gives an untimed (all zero) timing. */
kg_timing kg_pair_combine_timing(const kg_timing *t, int n);

/* A variant's dtypes pooled, per size (kg_pair_pool): the cells decided
 * sequentially, two or more of one (variant, n), their ratios summed and
 * judged against the bounds of the largest minimum effect among them
 * (SLOWER and FASTER when one of them had KG_SEQ_CHANGE_ROUNDS rounds).
 * *pools is malloc'ed (NULL and 0 when none). 0, or -1 out of memory. */
int kg_pair_pools(const kg_pair_cell *cells, size_t n, const kg_pair_meta *m, kg_pair_pool **pools, size_t *npools);

/* Moves the proven jobs (and their cells) behind the others, keeping each
 * side's order; returns how many are not proven (the jobs still to time). */
size_t kg_pair_partition(kg_pair_job *jobs, kg_pair_cell *cells, size_t njobs, const int *proven);

/* What the paired gate of a run works with: the base module (its union),
 * the settings, the rounds' workers (one per device: argv with the base
 * modules) and, for the proof that cells are unchanged, the machine code of
 * head and base (NULL: no proof; no_proof: why the tables could not be read,
 * said on log). */
typedef struct kg_pair_gate_in {
  const kg_modinfo *base;
  const kg_pair_settings *ps;
  int all_variants; /* no --variant: the base's variants this kgate lacks are MISSING */
  const kg_run_params *rp;
  const kg_super_opts *so;
  const kg_super_dev *devs;
  size_t ndev;
  const kg_code_table *head_code, *base_code;
  const char *no_proof;
  FILE *log; /* progress lines (rounds, the proof), or NULL */
} kg_pair_gate_in;

/* The paired gate over a run whose check has run: plans the cells
 * (kg_pair_plan), proves the unchanged ones and times them once, pairs the
 * rest in rounds, gives each paired case its head's absolute timing, and
 * fills run->pair and run->pairs (sorted). *unchanged_s gets the time the
 * unchanged cells' pass took. 0, or -1 when no worker could start or out of
 * memory (said on stderr, "kgate: paired timing: ..."); after a signal, 0
 * with the run marked incomplete. */
int kg_pair_gate(kg_run *run, const kg_pair_gate_in *in, double *unchanged_s);

#endif
