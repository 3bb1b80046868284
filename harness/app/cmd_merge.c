/* kgate merge A B ... -o ALL: one results file from several (gate.c, merge.h). */
#include "cli.h"
#include "gate.h"
#include "options.h"

#define KG_SETTINGS kg_merge_opts
static const kg_opt k_rows[] = {KG_ROW_OUTPUT(out, NULL)};

static int run(void *settings, const kg_cmd_call *call) {
  kg_merge_opts *mo = settings;
  mo->inputs = call->args, mo->ninputs = call->nargs;
  return kg_gate_merge(mo);
}

const kg_cmd cmd_merge = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_merge_opts), .least = 2, .most = KG_CLI_MAXARGS,
                          .label = "merge", .needs = "two or more results files",
                          .required = offsetof(kg_merge_opts, out), .required_text = "-o ALL.json", .run = run};
