/* Command line: parsing into kg_cli, and dispatch to the commands (gate.h). */
#ifndef KG_CLI_H
#define KG_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "exitcode.h"
#include "export.h"
#include "gate.h"
#include "model.h"
#include "publish.h"

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
  KG_CMD_HISTORY_CHECK, /* history check HISTORY.jsonl [--ack FILE] [--summary FILE] */
  KG_CMD_HISTORY_CALIBRATE, /* history calibrate NIGHTS.jsonl [--seed N] */
  KG_CMD_REFERENCE_VERIFY,  /* reference verify PINS.json MODULE.so */
  KG_CMD_REPORT,   /* report RESULTS.json --html DIR */
  KG_CMD_SELFTEST, /* selftest [--only LIST] [--huge] */
  KG_CMD_MERGE,    /* merge A.json B.json ... -o ALL.json */
  KG_CMD_LINT,     /* lint FILE... [--kernel TEXT] */
  KG_CMD_WORKER
} kg_command;

enum { KG_CLI_MAXARGS = 64 };

/* The parsed command line. Parsing writes check's and run's options straight
 * into gate; the options several commands share sit beside it, and
 * kg_cli_run hands each command its own struct (the kg_cli_* fillers below). */
typedef struct kg_cli {
  kg_command cmd;
  const char *args[KG_CLI_MAXARGS]; /* compare: OLD NEW; baseline update, plot, history add, report: RESULTS;
                                       history plot: HISTORY; merge: the results files */
  int nargs;
  /* check, run; its device, timeout, quiet, modules and paired rounds serve list,
   * selftest and the worker too. Its shared outputs (tolerance_pct,
   * baseline_dir, reports, plots) and timing are set by kg_cli_gate. */
  kg_gate_opts gate;
  double tolerance_pct; /* run, compare, plot, history plot, report; 0: per size class */
  const char *baseline_dir; /* run, baseline update, history plot */
  const char *reports[KG_NFORMATS]; /* check, run, compare: --json, --csv, ... (export.h), "-" for stdout */
  const char *plots;    /* run, compare: --plots DIR, draw the run's charts there */
  const char *output;   /* plot, history plot: -o DIR (default ".") */
  const char *baseline; /* plot, report, history plot: --baseline FILE (a baseline or a results file) */
  const char *history;  /* report: --history FILE, the trend charts and step changes */
  const char *file;     /* history add: --file HISTORY.jsonl */
  const char *control;  /* history add: --control CONTROL.json, the reference against itself */
  const char *paired;   /* history add: --paired PAIRED.json, the night against the reference */
  const char *ack;      /* history check: --ack FILE, the acknowledged findings */
  const char *summary;  /* history check: --summary FILE, Markdown ("-" for stdout) */
  const char *html;     /* report: --html DIR */
  const char *json;     /* list, compare: --json FILE ("-" for stdout); check and run's is in reports */
  const char *only;     /* selftest: mutant names */
  int huge;             /* selftest: also the mutant that needs n > 2^31 */
  const char *merge_out; /* merge: -o ALL.json */
  const char *lint_kernel; /* lint: --kernel TEXT, only the kernels whose symbol contains it */
  int allow_missing;     /* compare: --missing allow */
  unsigned help_commands; /* help: whose options to print (kgate help run, kgate run --help); 0: every command's */
  /* the worker's hidden options */
  int roofline; /* measure the roofline before the hello (its --own-kernels: gate.mods.own) */
  int describe; /* describe the modules and exit */
} kg_cli;

/* Parses argv. Returns 0, or KG_EXIT_USAGE with a one-line message in err. */
int kg_cli_parse(int argc, char **argv, kg_cli *cli, char *err, size_t errlen);
void kg_cli_free(kg_cli *cli);
/* The whole usage: every command, every option and the commands that take it. */
void kg_cli_usage(FILE *f);

/* Each command's options from a parsed command line: what kg_cli_run passes down. */
kg_gate_opts kg_cli_gate(const kg_cli *cli);
kg_compare_opts kg_cli_compare(const kg_cli *cli);
kg_selftest_opts kg_cli_selftest(const kg_cli *cli);
kg_publish_opts kg_cli_publish(const kg_cli *cli);

/* Runs a parsed command (not the worker) and returns the exit code. */
int kg_cli_run(const kg_cli *cli);

#endif
