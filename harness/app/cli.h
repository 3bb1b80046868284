/* The command line: argv into one command's settings (its rows in
 * app/cmd_<name>.c, command.h), its help, and the dispatch to its run. */
#ifndef KG_CLI_H
#define KG_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "command.h"
#include "exitcode.h"

enum { KG_CLI_MAXARGS = 64 };

/* A parsed command line: the command, its own settings struct and its
 * positional arguments. */
typedef struct kg_cli {
  kg_command cmd;
  void *settings; /* the command's struct (its kg_cmd's size), malloc'ed; NULL after a refused parse */
  const char *args[KG_CLI_MAXARGS];
  int nargs;
  int (*worker_main)(const kg_worker_opts *o); /* set by main in the GPU build: the hidden worker's */
} kg_cli;

/* kgate help's settings: whose usage to print. */
typedef struct kg_help_opts {
  const char *word; /* NULL: the whole usage */
  const char *sub;  /* NULL: every form of word */
} kg_help_opts;

/* Parses argv. Returns 0, or KG_EXIT_USAGE with a one-line message in err. */
int kg_cli_parse(int argc, char **argv, kg_cli *cli, char *err, size_t errlen);
void kg_cli_free(kg_cli *cli);
/* The whole usage: every command, every option and the commands that take it. */
void kg_cli_usage(FILE *f);
/* Whether the parsed command needs the GPU build (commands.def's column, unless its entry's gpu_free says not). */
int kg_cli_needs_gpu(const kg_cli *cli);

/* Runs a parsed command and returns the exit code. */
int kg_cli_run(const kg_cli *cli);

#endif
