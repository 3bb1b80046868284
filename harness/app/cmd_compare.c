/* kgate compare OLD NEW: two results (or a baseline and a result) offline (gate.c). */
#include "gate.h"
#include "options.h"
#include "suggest.h"
#include "verdict.h"

static const char *order_word(int k) { return kg_cmp_order_name(k); }

/* --sort verdict|change|name. */
static int set_sort(void *settings, const char *value, char *err, size_t errlen) {
  if (kg_suggest_list(value, "--sort key", order_word, KG_NCMP_ORDERS, err, errlen)) return KG_OPT_SAID;
  int order = kg_cmp_order_parse(value);
  if (order < 0) return KG_OPT_BAD; /* a list of them */
  ((kg_compare_opts *)settings)->sort = order;
  return 0;
}

#define KG_SETTINGS kg_compare_opts
static const kg_opt k_rows[] = {
    KG_ROW_TOLERANCE(tolerance_pct),
    KG_ROW_PLOTS(plots),
    KG_OPTION("--missing", NULL, OPT_CHOICE(allow_missing, "allow"), "allow|fail",
              "whether cells of OLD that NEW lacks fail (exit 1, the default) or not"),
    KG_OPTION("--only-changed", NULL, OPT_FLAG(only_changed), NULL,
              "leave the SAME cells out of the printed table and say how many (--json keeps every cell; "
              "the default on a terminal)"),
    KG_OPTION("--all", NULL, OPT_FLAG(all_rows), NULL,
              "print every row, SAME ones too (the default when the output is not a terminal)"),
    KG_OPTION("--sort", NULL, OPT_CALLBACK(set_sort), "verdict|change|name",
              "the table's order: verdict (default; regressions first), change (largest |change| first), name"),
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
