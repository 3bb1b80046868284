/* The commands built on the library: check/run (the gate), list, compare,
 * selftest, baseline update, merge. Each takes its own options (cli.c fills
 * them), never the whole command line. */
#ifndef KG_GATE_H
#define KG_GATE_H

#include <stdint.h>
#include <stdio.h>

#include "export.h"
#include "model.h"
#include "module.h"
#include "pairrun.h"
#include "plan.h"
#include "results.h"

enum { KG_GATE_MAXDEVICES = 64 };

/* The kernel modules a command loads: list, check, run, selftest. */
typedef struct kg_modules {
  const char *worker;                   /* worker program (hidden --worker); NULL: this executable */
  const char *kernels[KG_MODULES_MAX];  /* --kernels, repeatable: modules whose variants join kgate's own */
  int nkernels;
  const char *own; /* run, worker: --own-kernels, kgate's own module (default beside the executable) */
  const char *mutants; /* selftest, worker: --mutant-kernels, the planted bugs' module (selftest's default beside kgate) */
  const char *base_kernels[KG_MODULES_MAX]; /* run: --base-kernels, repeatable: the base builds; */
  int nbase;                                /* each cell is paired with the base variant of its name */
  const char *pins; /* run: --reference PINS.json, every base module must be a pinned reference (refpin.h) */
} kg_modules;

/* check and run. */
typedef struct kg_gate_opts {
  int timing;        /* run: time the perf sizes and compare; 0: check */
  kg_plan_opts plan; /* --variant, --dtype, --pattern, --sizes, --perf-sizes */
  int with_kgate;    /* --with-kgate: with --kernels and no --variant, kgate's own variants too */
  uint64_t seed;
  int repeats;
  double timeout_s;
  int device;
  int devices[KG_GATE_MAXDEVICES]; /* --devices 0,2,... */
  int ndevices;                    /* 0: -d's device alone */
  int devices_all;                 /* --devices all: every device the worker sees */
  int quiet, verbose;
  int plan_only; /* --plan: print the plan and exit, touching no GPU */
  kg_time_opts time;
  const char *sanitize;      /* check: compute-sanitizer tools, comma-separated */
  unsigned shard_i, shard_n; /* --shard i/N (shard_n 0: the whole plan) */
  int tier_huge;             /* --tier huge adds 2^31+1 and 2^32+3 */
  int lint_off;              /* --lint off: no lint, recorded as off; else a module not linted fails (exit 3) */
  const char *carry_from;    /* run --carry-from DIR: the baseline folder whose check record carries cases over */
  kg_modules mods;
  kg_pair_settings paired;
  /* the options run shares with compare and the drawing commands */
  double tolerance_pct; /* 0: per size class */
  const char *baseline_dir;
  const char *reports[KG_NFORMATS]; /* --json, --csv, ... (export.h): report files, "-" for stdout */
  const char *plots;                /* run: --plots DIR */
} kg_gate_opts;

/* compare OLD NEW. */
typedef struct kg_compare_opts {
  const char *old_path, *new_path;
  double tolerance_pct;
  const char *reports[KG_NFORMATS]; /* the formats whose kg_formats row says compare */
  const char *plots;                /* --plots DIR: the comparison chart */
  int allow_missing;                /* --missing allow: cells of OLD that NEW lacks do not fail */
  const char *json;                 /* --json FILE: the counts and every cell's verdict */
  int only_changed;                 /* --only-changed: the printed table without its SAME rows */
  int all_rows;                     /* --all: every row, also on a terminal (where only the changed are the default) */
  int sort;                         /* --sort: the printed rows' order (kg_cmp_order) */
} kg_compare_opts;

/* selftest. */
typedef struct kg_selftest_opts {
  int device;
  double timeout_s; /* 60 (check's default) means the selftest's own, 20 */
  int quiet;
  const char *only; /* --only: mutant names */
  int huge;         /* --huge: also the mutant that needs n > 2^31 */
  kg_modules mods;
  kg_pair_settings paired;
} kg_selftest_opts;

/* baseline update RESULTS. */
typedef struct kg_baseline_opts {
  const char *results;
  const char *baseline_dir;
} kg_baseline_opts;

/* merge A B ... -o ALL. */
typedef struct kg_merge_opts {
  const char *const *inputs;
  int ninputs;
  const char *out;
} kg_merge_opts;

/* The settings of check and run (cmd_check.c, cmd_run.c): the defaults no
 * row states, whether the call needs no GPU (--plan), what the rows
 * allocated; and the parsers of --sanitize, --shard and --devices
 * (gate_options.def, command.h's kg_opt_fn). */
void kg_gate_opts_init(void *go);
int kg_gate_opts_gpu_free(const void *go);
void kg_gate_opts_free(void *go);
int kg_gate_set_sanitize(void *go, const char *value, char *err, size_t errlen);
int kg_gate_set_dtypes(void *go, const char *value, char *err, size_t errlen);
int kg_gate_set_patterns(void *go, const char *value, char *err, size_t errlen);
int kg_gate_set_shard(void *go, const char *value, char *err, size_t errlen);
int kg_gate_set_devices(void *go, const char *value, char *err, size_t errlen);

/* check, and run (check + timing + baseline comparison + reports). Returns the exit code;
 * after SIGINT/SIGTERM, 128 + the signal, with the results so far written, marked incomplete. */
int kg_gate_run(const kg_gate_opts *go);
/* list: kgate's own variants and those of the --kernels modules. */
int kg_gate_list(const kg_modules *mods, const char *json);
/* compare OLD NEW: verdicts offline; 1 when NEW has failed or errored cases,
 * lint findings, or lacks cells of OLD (unless allow_missing), else 3 when
 * NEW's lint did not run (kg_gate_lint_code), else 4 when a case is SLOWER. */
int kg_gate_compare(const kg_compare_opts *co);
/* selftest: every mutant through the check that must catch it. */
int kg_gate_selftest(const kg_selftest_opts *so);
/* baseline update RESULTS: merge a fully correct run into DIR/<gpu-slug>.json. */
int kg_gate_baseline_update(const kg_baseline_opts *bo);

/* merge A B ... -o ALL: one results file from several (merge.h). */
int kg_gate_merge(const kg_merge_opts *mo);

/* What the lint of a run (or a results file) decides: KG_EXIT_FAIL on a
 * finding that counts; else KG_EXIT_ENV when a module was not linted (no
 * disassembler, a module it cannot read) and the run did not say --lint off,
 * with one line per such module on err ("kgate: lint: MODULE was not linted:
 * WHY ..."); else KG_EXIT_OK. A run with no lint record (check --sanitize, a
 * results file from before the lint) is KG_EXIT_OK. */
int kg_gate_lint_code(const kg_run *run, FILE *err);

/* One cell of the check --sanitize summary, for a variant's supported cases
 * under one tool: "clean" (all ran, none failed), "FAIL (k of r cases; first:
 * ...)", "not run" (none ran: the worker could not start, or the run
 * stopped), and ", incomplete (r of n run)" after either when only some ran.
 * Returns 0 (out untouched) when the variant has no supported case. */
int kg_gate_san_cell(const kg_case *cases, const kg_result *res, size_t n, int variant, char *out, size_t len);

#endif
