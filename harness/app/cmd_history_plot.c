/* kgate history plot HISTORY: trend charts and the step changes (publish.c). */
#include "options.h"
#include "publish.h"

#define KG_SETTINGS kg_publish_opts
static const kg_opt k_rows[] = {KG_ROW_TOLERANCE(tolerance_pct), KG_ROW_BASELINE_DIR(baseline_dir),
                                KG_ROW_OUTPUT(output, "."), KG_ROW_BASELINE(baseline)};

static int run(void *settings, const kg_cmd_call *call) {
  kg_publish_opts *po = settings;
  po->input = call->args[0];
  return kg_publish_history_plot(po);
}

const kg_cmd cmd_history_plot = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_publish_opts), .least = 1, .most = 1,
                                 .label = "history plot", .needs = "a history file", .run = run};
