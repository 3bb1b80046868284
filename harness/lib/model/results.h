/* A run in memory, and the results JSON (schema in docs/results-schema.md). */
#ifndef KG_RESULTS_H
#define KG_RESULTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "checkrec.h"
#include "lint.h"
#include "plan.h"
#include "model.h"

/* 2: the paired gate's "paired" object; files of schema 1 (no "paired") are read too. */
#define KG_RESULTS_SCHEMA 2

/* Where a run's wall time went ("phases" in the results JSON; absent: not
 * recorded), as wall time on any number of devices (run/phases.h).
 * startup: the workers' spawn to hello (CUDA, the modules, the roofline),
 * those of the paired rounds included; inputs: making inputs and their
 * references; check: the rest of the check matrix; timing: the absolute
 * timing of the timed cases; paired: the paired rounds but their workers'
 * start-up. These add up to wall_s but for the moments between passes;
 * reports: compare, verdicts, summaries and files up to the results file,
 * after wall_s. */
typedef struct kg_phases {
  int known;
  double startup_s, inputs_s, check_s, timing_s, paired_s, reports_s;
} kg_phases;

typedef struct kg_run_meta {
  char date[32]; /* UTC, ISO 8601: 2026-11-21T08:30:00Z */
  char version[32], commit[64];
  kg_device_info dev;
  uint64_t seed;
  int repeats;
  kg_time_opts time;
  double tolerance; /* --tolerance in percent, 0 = per size class */
  double wall_s;
  char shard[24]; /* --shard "i/N" ("shard" in run.options); empty for a whole plan */
  char incomplete[16]; /* the signal that stopped the run ("SIGINT", "SIGTERM"); empty when it ran to its end */
  kg_provenance prov;  /* the CI run and runner ("provenance"; absent: not known) */
  kg_phases phases;
} kg_run_meta;

/* One cell of a paired run: a (variant, dtype, n) against the base. */
typedef struct kg_pair_cell {
  char variant[64];
  kg_dtype dtype;
  size_t n;
  kg_pair_stat stat;  /* stat.verdict: SAME/SLOWER/FASTER/UNDECIDED, or NEW/MISSING/UNKNOWN/UNCHANGED (no numbers) */
  double min_effect;  /* fraction */
  int rounds;         /* worker processes that timed it */
  int set_aside;      /* samples set aside over all rounds */
  char message[160];  /* UNKNOWN: why (its check failed, its timing errored); UNCHANGED: the evidence */
  /* the sequential decision's evidence (stats/seqtest.h): the log-likelihood
   * ratios for "slower" and "faster" on its stat.blocks blocks; sequential 0:
   * decided by the interval (a file before it, the nightly) */
  int sequential;
  double llr_slower, llr_faster;
} kg_pair_cell;

/* A variant's verdict at one size with its dtypes pooled (the sums of its
 * cells' ratios against the same bounds): a regression of a variant moves
 * its dtypes together. Beside the cells' verdicts, "paired.variants". */
typedef struct kg_pair_pool {
  char variant[64];
  size_t n;
  int cells, blocks;
  double min_effect; /* the largest of its cells' */
  double llr_slower, llr_faster;
  kg_pverdict verdict; /* SAME / SLOWER / FASTER / UNDECIDED */
} kg_pair_pool;

enum { KG_PIN_SHAS = 4 * 65, KG_PIN_COMMITS = 4 * 41 }; /* up to four base modules' identities */

/* How the run was paired ("paired" in the results JSON; absent: not paired). */
typedef struct kg_pair_meta {
  int on;
  char base_path[1024], base_name[64], base_version[64];
  /* the base modules' SHA-256s, and with --reference their pinned commits ("+" between modules) */
  char base_sha256[KG_PIN_SHAS], base_commit[KG_PIN_COMMITS];
  double confidence, min_effect_pct; /* min_effect_pct 0: per size class */
  int copies, quads, rounds, max_rounds;
  double budget_s, wall_s;
  /* the sequential decision ("sequential" in the results JSON; absent: the
   * interval decided): its error rates, delta0 as a share of m, Wald's
   * bounds on the ratios, and the rounds SLOWER and FASTER need */
  int sequential;
  double alpha, beta, delta0_share, llr_upper, llr_lower;
  int change_rounds;
} kg_pair_meta;

typedef struct kg_run {
  kg_run_meta meta;
  size_t n;
  kg_case *cases;     /* malloc'ed */
  kg_result *results; /* malloc'ed, results[i] belongs to cases[i] */
  kg_pair_meta pair;
  /* the lint of the modules (kgate's own, then each --kernels one): "lint"
   * in the results JSON */
  kg_lint_module *lint;
  size_t nlint;
  size_t npairs;
  kg_pair_cell *pairs; /* malloc'ed: regressions first (see pairrun.h) */
  size_t npools;
  kg_pair_pool *pools; /* malloc'ed: a variant's dtypes pooled, per size (sequential runs) */
  /* the groups this run proved what it checks of, and which it carried
   * over ("check_record" in the results JSON; absent: none probed) */
  kg_crec check;
} kg_run;

/* The results JSON of run (NULL when memory ran out); its list of cases,
 * KG_RESULTS_LIST, is written one case a line (kg_json_put). */
json_t *kg_results_json(const kg_run *run);
#define KG_RESULTS_LIST "cases"
/* Writes the results JSON atomically ("-" for stdout). 0, or -1 with err. */
int kg_results_write(const char *path, const kg_run *run, char *err, size_t errlen);
/* `kgate list --json`: every real variant in the registry with its facts, as
 * a results file's "variants" writes them, plus its name (docs/schema/list.schema.json).
 * "-" is stdout. 0, or -1 with err. */
int kg_variants_write(const char *path, char *err, size_t errlen);
/* Reads a results JSON. Rejects malformed JSON, another "kind", another
 * schema_version, missing fields, unknown variant/dtype/pattern names, a
 * value that cannot be true (fields.h: dates, commits, the GPU name,
 * timings) and a case twice, with a one-line message naming the file, the
 * case and the field. */
int kg_results_read(const char *path, kg_run *run, char *err, size_t errlen);
void kg_run_free(kg_run *run);

/* Numbers derived from a timed case. */
typedef struct kg_perf {
  double gbps;         /* n * element size / median */
  double pct_peak;     /* of meta.dev.peak_gbps */
  double pct_roofline; /* of meta.dev.roofline_gbps (0 when not measured) */
  double vs_cub;       /* cub_sum's median / this median for the same dtype and n: > 1 is faster than CUB; 0 if none */
} kg_perf;

/* Zeros when case i was not timed. */
kg_perf kg_perf_of(const kg_run *run, size_t i);

/* Sorts cells regressions first (SLOWER, UNKNOWN, UNDECIDED, MISSING, FASTER,
 * NEW, SAME, UNCHANGED), then variant, dtype, n. */
void kg_pair_sort(kg_pair_cell *cells, size_t n);
/* Counts by verdict. */
void kg_pair_count(const kg_pair_cell *cells, size_t n, size_t count[KG_NPVERDICTS]);

#endif
