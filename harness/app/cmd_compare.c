/* kgate compare OLD NEW: two results (or a baseline and a result) offline:
 * one document (rmodel.h) of NEW against OLD, its compare section on the
 * terminal, its reports, its verdict and exit code, as a run's. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "exitcode.h"
#include "gateout.h"
#include "options.h"
#include "publish.h"
#include "report.h"
#include "results.h"
#include "settings.h"
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

/* The document of NEW against OLD, built once: its table and lines (what
 * NEW lacks or failed, its own paired cells), its reports, its verdict
 * line; then the JSON and the chart. The exit code is the document's
 * (rmodel.h), as a run's. */
static int finish(FILE *out, const kg_comparison *cmp, const kg_run *run, const kg_compare_opts *co) {
  char err[512];
  /* On a terminal a person reads it: the changed rows (asv continuous); a
   * pipe or a file gets every row unless --only-changed. */
  int only = co->only_changed ? 1 : !co->all_rows && isatty(fileno(out)) ? 2 : 0;
  kg_rm_gate gate = {.baseline = co->old_path, .missing_fails = !co->allow_missing, .compared = co->new_path,
                     .only_changed = only};
  /* the tables in --sort's order, every row (the Markdown's lists no SAME one) */
  kg_comparison sorted;
  kg_rdoc doc = {0};
  int bad_reports = kg_comparison_view(cmp, (kg_cmp_order)co->sort, 0, &sorted);
  if (!bad_reports) {
    kg_rdoc_build_gate(&doc, run, &sorted, &gate); /* out of memory: each write says so */
    if (!doc.oom) {
      kg_report_compare(out, &doc);
      kg_report_lint_unread(stderr, &doc); /* NEW's lint as in its run: a module not linted says so here */
    }
    bad_reports = kg_out_reports(co->reports, &doc) != 0;
    kg_report_verdict(out, &doc);
  }
  kg_comparison_free(&sorted);
  if (co->json && kg_comparison_write(co->json, cmp, co->old_path, co->new_path, !co->allow_missing, err, sizeof err))
    bad_reports = 1, fprintf(stderr, "kgate: %s\n", err);
  int plots = co->plots ? kg_publish_charts(co->plots, run, 0, cmp, co->old_path) : KG_EXIT_OK;
  int code = doc.run ? kg_rm_exit_code(&doc.verdict, bad_reports ? KG_EXIT_USAGE : plots) : KG_EXIT_ENV;
  if (!doc.run) fprintf(stderr, "kgate: out of memory for the comparison's reports\n");
  kg_rdoc_free(&doc);
  return code;
}

/* The files read and compared: 0, or -1 after saying why. */
static int load(const kg_compare_opts *co, kg_run *run, kg_comparison *cmp) {
  char err[512];
  kg_baseline old, now;
  if (kg_baseline_load(co->old_path, &old, err, sizeof err)) /* names the file, also when it does not exist */
    return fprintf(stderr, "kgate: %s\n", err), -1;
  if (kg_results_read(co->new_path, run, err, sizeof err) || kg_baseline_from_run(run, &now)) {
    fprintf(stderr, "kgate: %s\n", err);
    kg_baseline_free(&old);
    return -1;
  }
  int rc = kg_compare(&old, &now, co->tolerance_pct, cmp, err, sizeof err);
  kg_baseline_free(&old);
  kg_baseline_free(&now);
  if (rc) fprintf(stderr, "kgate: %s\n", err);
  return rc ? -1 : 0;
}

static int run(void *settings, const kg_cmd_call *call) {
  kg_compare_opts *co = settings;
  co->old_path = call->args[0], co->new_path = call->args[1];
  kg_run r = {0};
  kg_comparison cmp = {0};
  int code = KG_EXIT_USAGE;
  if (!load(co, &r, &cmp)) {
    FILE *out = co->json && !strcmp(co->json, "-") ? stderr : stdout; /* --json -: stdout is the JSON alone */
    code = finish(out, &cmp, &r, co);
  }
  kg_comparison_free(&cmp);
  kg_run_free(&r);
  return code;
}

const kg_cmd cmd_compare = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_compare_opts), .least = 2, .most = 2,
                            .label = "compare", .needs = "two files: OLD.json NEW.json",
                            .formats = KG_FORMATS_COMPARE, .reports = offsetof(kg_compare_opts, reports), .run = run};
