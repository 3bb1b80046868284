/* kgate baseline update RESULTS: the baseline of its GPU from a fully correct run (gate.c). */
#include "gate.h"
#include "options.h"

#define KG_SETTINGS kg_baseline_opts
static const kg_opt k_rows[] = {KG_ROW_BASELINE_DIR(baseline_dir)};

static int run(void *settings, const kg_cmd_call *call) {
  kg_baseline_opts *bo = settings;
  bo->results = call->args[0];
  return kg_gate_baseline_update(bo);
}

const kg_cmd cmd_baseline = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_baseline_opts), .least = 1, .most = 1,
                             .label = "baseline", .needs = "a results file", .run = run};
