/* kgate compare OLD NEW: two results (or a baseline and a result) offline (gate.c). */
#include "gate.h"
#include "options.h"

#define KG_SETTINGS kg_compare_opts
static const kg_opt k_rows[] = {
    KG_ROW_TOLERANCE(tolerance_pct),
    KG_ROW_PLOTS(plots),
    KG_OPTION("--missing", NULL, OPT_CHOICE(allow_missing, "allow"), "allow|fail",
              "whether cells of OLD that NEW lacks fail (exit 1, the default) or not"),
    KG_OPTION("--json", NULL, OPT_STR(json, NULL), "FILE",
              "the counts and every cell's verdict as JSON (docs/schema/compare.schema.json); - for stdout"),
};

static int run(void *settings, const kg_cmd_call *call) {
  kg_compare_opts *co = settings;
  co->old_path = call->args[0], co->new_path = call->args[1];
  return kg_gate_compare(co);
}

const kg_cmd cmd_compare = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_compare_opts), .least = 2, .most = 2,
                            .label = "compare", .needs = "two files: OLD.json NEW.json",
                            .formats = KG_FORMATS_COMPARE, .reports = offsetof(kg_compare_opts, reports), .run = run};
