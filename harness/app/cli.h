/* Command line: parsing into kg_cli, and dispatch to the commands (gate.h). */
#ifndef KG_CLI_H
#define KG_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "exitcode.h"
#include "export.h"
#include "model.h"

typedef enum kg_command {
  KG_CMD_HELP,
  KG_CMD_VERSION,
  KG_CMD_LIST,
  KG_CMD_CHECK,
  KG_CMD_RUN,
  KG_CMD_COMPARE,
  KG_CMD_BASELINE, /* baseline update RESULTS.json */
  KG_CMD_PLOT,     /* plot RESULTS.json [-o DIR] [--baseline OLD.json] */
  KG_CMD_HISTORY_ADD,  /* history add RESULTS.json --file HISTORY.jsonl */
  KG_CMD_HISTORY_PLOT, /* history plot HISTORY.jsonl [-o DIR] */
  KG_CMD_REPORT,   /* report RESULTS.json --html DIR */
  KG_CMD_SELFTEST, /* selftest [--only LIST] [--huge] */
  KG_CMD_MERGE,    /* merge A.json B.json ... -o ALL.json */
  KG_CMD_WORKER
} kg_command;

enum { KG_CLI_MAXARGS = 64, KG_CLI_MAXDEVICES = 64, KG_CLI_MAXMODULES = 16 /* = KG_MODULES_MAX */ };

typedef struct kg_cli {
  kg_command cmd;
  const char *variants, *dtypes, *patterns; /* comma lists, NULL for all */
  size_t *sizes;                            /* NULL for the default edge list */
  size_t nsizes;
  size_t *perf_sizes; /* run: sizes to time (default 2^22, 2^25) */
  size_t nperf;
  uint64_t seed;
  int repeats;
  double timeout_s;
  int device;
  int quiet, verbose;
  kg_time_opts time;
  double tolerance_pct; /* 0: per size class */
  const char *baseline_dir;
  const char *reports[KG_NFORMATS]; /* --json, --csv, ... (export.h): report files, "-" for stdout */
  const char *output;   /* plot, history plot: -o DIR (default ".") */
  const char *plots;    /* run, compare: --plots DIR, draw the run's charts there */
  const char *baseline; /* plot, report, history plot: --baseline FILE (a baseline or a results file) */
  const char *history;  /* report: --history FILE, the trend charts and step changes */
  const char *file;     /* history add: --file HISTORY.jsonl */
  const char *html;     /* report: --html DIR */
  const char *args[KG_CLI_MAXARGS]; /* compare: OLD NEW; baseline update, plot, history add, report: RESULTS;
                                       history plot: HISTORY; merge: the results files */
  int nargs;
  const char *worker; /* worker program (hidden --worker; default: this executable) */
  int roofline;       /* worker: measure the roofline before the hello (hidden) */
  const char *sanitize; /* check: compute-sanitizer tools, comma-separated */
  const char *only;     /* selftest: mutant names */
  int huge;             /* selftest: also the mutant that needs n > 2^31 */
  unsigned shard_i, shard_n; /* check, run: --shard i/N (shard_n 0: the whole plan) */
  int devices[KG_CLI_MAXDEVICES]; /* check, run: --devices 0,2,... */
  int ndevices;                   /* 0: -d's device alone */
  int devices_all;                /* --devices all: every device the worker sees */
  int tier_huge;                  /* check, run: --tier huge adds 2^31+1 and 2^32+3 */
  const char *merge_out;          /* merge: -o ALL.json */
  /* kernel modules (list, check, run, selftest, worker) and the paired gate (run --base-kernels) */
  const char *own_kernels; /* worker: kgate's own module (hidden --own-kernels; default beside the executable) */
  const char *kernels[KG_CLI_MAXMODULES]; /* --kernels, repeatable: modules whose variants join kgate's own */
  int nkernels;
  const char *base_kernels[KG_CLI_MAXMODULES]; /* run, worker: --base-kernels, repeatable: the base builds; */
  int nbase;                                    /* each cell is paired with the base variant of its name */
  int describe; /* worker: describe the modules and exit (hidden) */
  kg_pair_opts pair;        /* copies, quads per block, seconds per cell */
  int rounds, max_rounds;   /* run: fresh-worker rounds for every cell, and at most for undecided ones */
  double pair_budget_s;     /* run: wall time the rounds past --rounds may use */
  double min_effect_pct;    /* run: --min-effect, 0 = per size class */
} kg_cli;

/* Parses argv. Returns 0, or KG_EXIT_USAGE with a one-line message in err. */
int kg_cli_parse(int argc, char **argv, kg_cli *cli, char *err, size_t errlen);
void kg_cli_free(kg_cli *cli);
void kg_cli_usage(FILE *f);

/* Runs a parsed command (not the worker) and returns the exit code. */
int kg_cli_run(const kg_cli *cli);

#endif
