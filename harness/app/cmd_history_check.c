/* kgate history check HISTORY: the nightly's findings (nightly.c). */
#include "nightly.h"
#include "options.h"

#define KG_SETTINGS kg_nightly_opts
static const kg_opt k_rows[] = {
    KG_ROW_ACK(ack),
    KG_OPTION("--summary", NULL, OPT_STR(summary, NULL), "FILE", "the findings as Markdown (- for stdout)"),
};

static int run(void *settings, const kg_cmd_call *call) {
  kg_nightly_opts *o = settings;
  o->history = call->args[0];
  return kg_nightly_check(o);
}

const kg_cmd cmd_history_check = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_nightly_opts), .least = 1, .most = 1,
                                  .label = "history check", .needs = "a history file", .run = run};
