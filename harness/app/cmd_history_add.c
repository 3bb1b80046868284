/* kgate history add RESULTS --file HISTORY: one line appended (publish.c). */
#include "options.h"
#include "publish.h"

#define KG_SETTINGS kg_publish_opts
static const kg_opt k_rows[] = {
    KG_OPTION("--file", NULL, OPT_STR(file, NULL), "FILE", "the history file to append to"),
    KG_OPTION("--control", NULL, OPT_STR(control, NULL), "FILE",
              "the control run (the reference paired with a second load of itself)"),
    KG_OPTION("--paired", NULL, OPT_STR(paired, NULL), "FILE",
              "the night's run against the reference, when it is not RESULTS.json's"),
};

static int run(void *settings, const kg_cmd_call *call) {
  kg_publish_opts *po = settings;
  po->input = call->args[0];
  return kg_publish_history_add(po);
}

const kg_cmd cmd_history_add = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_publish_opts), .least = 1, .most = 1,
                                .label = "history add", .needs = "a results file",
                                .required = offsetof(kg_publish_opts, file), .required_text = "--file HISTORY.jsonl",
                                .run = run};
