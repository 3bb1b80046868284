/* The settings of a gate session (session.h): what check and run take, as
 * their option rows (app/gate_options.def) fill them, and who hears of it
 * as it goes. */
#ifndef KG_GATESET_H
#define KG_GATESET_H

#include <stdint.h>
#include <stdio.h>

#include "export.h"
#include "model.h"
#include "modload.h"
#include "pairrun.h"
#include "plan.h"

enum { KG_GATE_MAXDEVICES = 64 };

/* The kernel modules a command loads: list, check, run, selftest. */
typedef struct kg_modules {
  const char *worker;                   /* worker program (hidden --worker); NULL: this executable */
  const char *kernels[KG_MODULES_MAX];  /* --kernels, repeatable: modules whose variants join kgate's own */
  int nkernels;
  const char *own; /* run, worker: --own-kernels, kgate's own module (default beside the executable) */
  /* selftest, worker: --mutant-kernels, the planted bugs' module (selftest's default beside kgate) */
  const char *mutants;
  const char *base_kernels[KG_MODULES_MAX]; /* run: --base-kernels, repeatable: the base builds; */
  int nbase;                                /* each cell is paired with the base variant of its name */
  const char *pins; /* run: --reference PINS.json, every base module must be a pinned reference (refpin.h) */
} kg_modules;

/* The settings of check and run. */
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

/* Who hears of the session as it goes. checked: the check's cases are
 * final (the whole plan, or, in a sanitizer run, one tool's pass, named by
 * tool; NULL otherwise). Either may be NULL. */
typedef struct kg_gate_listener {
  void (*checked)(void *ctx, const char *tool, const kg_case *cases, const kg_result *res, size_t n,
                  const kg_device_info *dev, double wall_s);
  void *ctx;
  FILE *log; /* diagnostics, one line each ("kgate: ..."), and the progress line; NULL: stderr */
} kg_gate_listener;

#endif
