/* kgate lint FILE...: the fences of last-block tickets in machine code (lintcmd.c). */
#include "cli.h"
#include "lintcmd.h"
#include "options.h"

#define KG_SETTINGS kg_lint_opts
static const kg_opt k_rows[] = {
    KG_OPTION("--kernel", NULL, OPT_STR(kernel, NULL), "TEXT",
              "only the kernels whose symbol contains TEXT (e.g. mut_fence_none)"),
};

static int run(void *settings, const kg_cmd_call *call) {
  kg_lint_opts *o = settings;
  o->files = call->args, o->nfiles = call->nargs;
  return kg_lint_main(o);
}

const kg_cmd cmd_lint = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_lint_opts), .least = 1, .most = KG_CLI_MAXARGS,
                         .label = "lint", .needs = "a kernel module, cubin or SASS listing", .run = run};
