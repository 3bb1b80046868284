/* rmodel: the report model's decisions, apart from any printer: report
 * order, quiet rows, the short report's caps, the explanations, the CI
 * tests and their tallies. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "report.h"
#include "testutil.h"
#include "varreg.h"
#include "rmodel.h"

enum { NCELLS = 160 };

static kg_pair_cell g_cells[NCELLS];
static kg_run g_run;

/* A paired run: n cells, verdict v[k % nv] each, the first with two blocks. */
static void paired_run(size_t n, const kg_pverdict *v, size_t nv) {
  memset(&g_run, 0, sizeof g_run);
  memset(g_cells, 0, sizeof g_cells);
  for (size_t k = 0; k < n; k++) {
    kg_pair_cell *c = &g_cells[k];
    snprintf(c->variant, sizeof c->variant, "v%03zu", k);
    c->dtype = KG_F32, c->n = 1u << 22, c->min_effect = 0.01, c->rounds = 2;
    c->stat = (kg_pair_stat){.blocks = 8, .pairs = 64, .ratio = 1.02, .lo = 1.01, .hi = 1.03, .head_us = 102,
                             .base_us = 100, .verdict = v[k % nv]};
  }
  g_run.pairs = g_cells, g_run.npairs = n;
  g_run.pair = (kg_pair_meta){.on = 1, .base_path = "/b/m.so", .base_name = "m", .base_version = "1",
                              .confidence = 0.99, .copies = 4, .rounds = 2, .max_rounds = 6};
}

/* The cells in kg_pverdict_order whatever the file's order; SAME and
 * UNCHANGED quiet; every verdict's row level from one table. */
START_TEST(test_rmodel_paired_order) {
  const kg_pverdict v[] = {KG_PV_SAME, KG_PV_UNCHANGED, KG_PV_FASTER, KG_PV_SLOWER, KG_PV_UNDECIDED};
  paired_run(10, v, 5);
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_build(&d, &g_run, NULL), 0);
  const kg_rm_table *t = &d.paired.cells;
  ck_assert_uint_eq(t->nrows, 10);
  for (size_t i = 1; i < t->nrows; i++) {
    const kg_pair_cell *a = t->rows[i - 1].src, *b = t->rows[i].src;
    ck_assert_int_le(kg_pverdict_rank(a->stat.verdict), kg_pverdict_rank(b->stat.verdict));
  }
  for (size_t i = 0; i < t->nrows; i++) {
    kg_pverdict pv = ((const kg_pair_cell *)t->rows[i].src)->stat.verdict;
    ck_assert_int_eq(t->rows[i].quiet, pv == KG_PV_SAME || pv == KG_PV_UNCHANGED);
    ck_assert_int_eq(t->rows[i].sev == KG_SEV_REGRESSION, pv == KG_PV_SLOWER);
    ck_assert_int_eq(!!(t->rows[i].cells[0].flags & KG_RM_STRONG), pv == KG_PV_SLOWER);
  }
  ck_assert_uint_eq(t->shown, 6); /* the loud ones: 2 FASTER, 2 SLOWER, 2 UNDECIDED */
  ck_assert_str_eq(d.paired.counts, "2 SLOWER, 0 UNKNOWN, 2 UNDECIDED, 0 MISSING, 2 FASTER, 0 NEW, 2 SAME, 2 UNCHANGED");
  ck_assert_str_eq(d.paired.same_line, "2 more cells are SAME.");
  ck_assert_ptr_nonnull(d.paired.unchanged_line);
  ck_assert_ptr_null(d.paired.state);
  kg_rdoc_free(&d);
}
END_TEST

/* A short report lists KG_RM_MAX_PAIRS loud cells and says how many more;
 * the model keeps every row (the page lists them all). */
START_TEST(test_rmodel_paired_cap) {
  const kg_pverdict v[] = {KG_PV_SLOWER};
  paired_run(NCELLS, v, 1);
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_build(&d, &g_run, NULL), 0);
  ck_assert_uint_eq(d.paired.cells.nrows, NCELLS);
  ck_assert_uint_eq(d.paired.cells.shown, KG_RM_MAX_PAIRS);
  char *md = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&md, &len);
  ck_assert_int_eq(kg_print_markdown(f, &d), 0);
  fclose(f);
  char more[64];
  snprintf(more, sizeof more, "... and %d more (see the results JSON)", NCELLS - KG_RM_MAX_PAIRS);
  ck_assert_msg(strstr(md, more) != NULL, "%s", more);
  ck_assert_ptr_null(strstr(md, "| v159 |")); /* past the cap */
  free(md);
  kg_rdoc_free(&d);
}
END_TEST

/* What the section says instead of a table: nothing paired, all SAME. */
START_TEST(test_rmodel_paired_states) {
  const kg_pverdict same[] = {KG_PV_SAME}, quiet[] = {KG_PV_SAME, KG_PV_UNCHANGED};
  kg_rdoc d;
  paired_run(0, same, 1);
  ck_assert_int_eq(kg_rdoc_build(&d, &g_run, NULL), 0);
  ck_assert_ptr_nonnull(strstr(d.paired.state, "No cell was paired"));
  kg_rdoc_free(&d);
  paired_run(3, same, 1);
  ck_assert_int_eq(kg_rdoc_build(&d, &g_run, NULL), 0);
  ck_assert_str_eq(d.paired.state, "All 3 paired cells are SAME: no change beyond the minimum effect.");
  ck_assert_ptr_null(d.paired.same_line);
  kg_rdoc_free(&d);
  paired_run(3, quiet, 2);
  ck_assert_int_eq(kg_rdoc_build(&d, &g_run, NULL), 0);
  ck_assert_str_eq(d.paired.state, "No paired cell changed beyond the minimum effect.");
  ck_assert_str_eq(d.paired.same_line, "2 cells are SAME.");
  kg_rdoc_free(&d);
}
END_TEST

/* One explanation per verdict: a table row beside its numbers says nothing
 * more, the CI test of an UNDECIDED cell says why with the numbers. */
START_TEST(test_rmodel_explanations) {
  const kg_pverdict v[] = {KG_PV_UNDECIDED, KG_PV_MISSING, KG_PV_UNKNOWN};
  paired_run(3, v, 3);
  g_cells[1].stat.blocks = 0, g_cells[2].stat.blocks = 0;
  snprintf(g_cells[2].message, sizeof g_cells[2].message, "every timing errored");
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_build(&d, &g_run, NULL), 0);
  const kg_rm_table *t = &d.paired.cells;
  ck_assert_str_eq(t->rows[0].cells[11].text, "unknown: every timing errored");
  ck_assert_ptr_null(t->rows[0].cells[4].text); /* no numbers: an empty cell */
  ck_assert_str_eq(t->rows[1].cells[11].text, "");  /* UNDECIDED with an interval: its numbers say it */
  ck_assert_str_eq(t->rows[2].cells[11].text, "missing: the base module has this cell, head does not");
  ck_assert_str_eq(d.suites[0].name, "paired");
  ck_assert_uint_eq(d.suites[0].tally.skipped, 3);
  ck_assert_ptr_nonnull(strstr(d.tests[0].message, "undecided: the interval reaches across the minimum effect"));
  kg_rdoc_free(&d);
}
END_TEST

/* Every test is in one suite, and the whole tally is the suites' sum. */
START_TEST(test_rmodel_tally) {
  const kg_pverdict v[] = {KG_PV_SLOWER, KG_PV_SAME, KG_PV_UNKNOWN};
  paired_run(6, v, 3);
  kg_case cases[2] = {{kg_variant_find("cub_sum"), KG_F32, 1 << 22, KG_PAT_UNIFORM, 1, 1},
                      {kg_variant_find("two_pass"), KG_F32, 100, KG_PAT_EXACT, 0, 1}};
  kg_result res[2] = {{.status = KG_ST_PASS, .timing = {.samples = 10, .median_us = 10, .q1_us = 9, .q3_us = 11}},
                      {.status = KG_ST_FAIL}};
  g_run.cases = cases, g_run.results = res, g_run.n = 2;
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_build(&d, &g_run, NULL), 0);
  kg_rm_tally sum = {0};
  size_t tests = 0;
  for (size_t s = 0; s < d.nsuites; s++) {
    sum.tests += d.suites[s].tally.tests, sum.failures += d.suites[s].tally.failures;
    sum.skipped += d.suites[s].tally.skipped;
    tests += d.suites[s].count;
  }
  ck_assert_uint_eq(d.nsuites, 3); /* paired, cub_sum, two_pass */
  ck_assert_uint_eq(tests, d.ntests);
  ck_assert_uint_eq(sum.tests, d.tally.tests);
  ck_assert_uint_eq(d.tally.tests, 6 + 2 + 1); /* the cells, cub_sum's check and perf, two_pass's check */
  ck_assert_uint_eq(d.tally.failures, 2 + 1);  /* two SLOWER cells, the failed check */
  ck_assert_uint_eq(sum.failures, d.tally.failures);
  ck_assert_uint_eq(d.failed.nrows, 1);
  ck_assert_ptr_null(d.cases[0].pair); /* no cell of cub_sum among v000..v005 */
  kg_rdoc_free(&d);
}
END_TEST

/* The timed cells' cold L2 is a fact of the model: its counts, and the
 * cells it could not be verified for with why; a run without the guard says nothing. */
START_TEST(test_rmodel_cold) {
  memset(&g_run, 0, sizeof g_run);
  int v = kg_variant_find("cub_sum");
  kg_case cases[4] = {{v, KG_F32, 1 << 22, KG_PAT_UNIFORM, 1, 1}, {v, KG_F32, 1000, KG_PAT_UNIFORM, 1, 1},
                      {v, KG_F32, 1 << 25, KG_PAT_UNIFORM, 1, 1}, {v, KG_F32, 33, KG_PAT_UNIFORM, 1, 0}};
  kg_result res[4] = {{.status = KG_ST_PASS}, {.status = KG_ST_PASS}, {.status = KG_ST_PASS}, {.status = KG_ST_PASS}};
  g_run.cases = cases, g_run.results = res, g_run.n = 4;
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_build(&d, &g_run, NULL), 0);
  ck_assert_ptr_null(d.cold);
  for (size_t k = 0; k < d.nitems; k++) ck_assert_str_ne(d.items[k].label, "Cold L2");
  kg_rdoc_free(&d);
  res[0].guard = (kg_guard){.on = 1, .cold = KG_COLD_VERIFIED};
  res[1].guard = (kg_guard){.on = 1, .cold = KG_COLD_NOT_VERIFIED};
  snprintf(res[1].guard.cold_why, sizeof res[1].guard.cold_why, "flushed reads (2 us) no slower than unflushed (2 us)");
  res[2].guard = (kg_guard){.on = 1, .cold = KG_COLD_TOO_LARGE};
  ck_assert_int_eq(kg_rdoc_build(&d, &g_run, NULL), 0);
  ck_assert_str_eq(d.cold, "1 verified, 1 not verified, 1 too large to tell of 3 timed cells");
  ck_assert_str_eq(d.cold_cells, "cub_sum f32 n=1000 uniform: flushed reads (2 us) no slower than unflushed (2 us)");
  int found = 0;
  for (size_t k = 0; k < d.nitems; k++)
    if (!strcmp(d.items[k].label, "Cold L2")) {
      found = 1;
      ck_assert_uint_eq(d.items[k].nparts, 3);
    }
  ck_assert(found);
  kg_rdoc_free(&d);
}
END_TEST

/* The nightly's findings: one set of words for history check's lines, its
 * Markdown summary and the page (check_html.c holds the page's). */
START_TEST(test_rmodel_findings) {
  kg_history *h;
  kg_detection *det;
  kgt_nightly(&h, &det);
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_init(&d), 0);
  ck_assert_int_eq(kg_rdoc_findings(&d, h, det, "https://github.com/o/r"), 0);
  ck_assert_uint_eq(d.findings.n, det->nfind);
  const kg_rm_finding *reg = &d.findings.find[0];
  ck_assert_str_eq(reg->title, "regression (open)");
  ck_assert_str_eq(reg->tag, "REGRESSION");
  ck_assert_str_eq(reg->compare, "https://github.com/o/r/compare/c0ffee3...c0ffee4");
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ck_assert_int_eq(kg_print_nightly_markdown(f, &d), 0);
  kg_report_findings(f, &d);
  fclose(f);
  /* The last night's verdict heads the summary; the nights not PASS follow, a run of one verdict a row. */
  ck_assert_msg(strstr(text, "## kgate nightly: REGRESSION\n\n**REGRESSION**: 1 cell slower than the reference's accepted "
                             "level (1 open regression finding)\n\n"),
                "%s", text);
  ck_assert_msg(strstr(text, "| 2026-11-21 02:00 UTC | **ENVIRONMENT** | the control or the reference's own time moved: "
                             "the machine, not a commit |\n| 2026-11-23 02:00 UTC to 2026-11-25 02:00 UTC (3 nights) | "
                             "**REGRESSION** | 1 cell slower than the reference's accepted level |\n\n2 of 6 nights PASS."),
                "%s", text);
  ck_assert_msg(strstr(text, "kgate: 2026-11-23 02:00 UTC to 2026-11-25 02:00 UTC (3 nights): REGRESSION: 1 cell slower "
                             "than the reference's accepted level\nkgate: history check: 6 nights, 10 cells watched: 1 "
                             "open regression finding(s); last night (2026-11-25 02:00 UTC): REGRESSION: "),
                "%s", text);
  ck_assert_msg(strstr(text, "### regression (open): first bad night 2026-11-23 02:00 UTC, commits `c0ffee3..c0ffee4` "
                             "([compare](https://github.com/o/r/compare/c0ffee3...c0ffee4))\n"),
                "%s", text);
  ck_assert_msg(strstr(text, "| reduce0\\_divergent | f32 | 33554432 | "), "%s", text);
  ck_assert_msg(strstr(text, "kgate: regression (open) since the night of 2026-11-23 02:00 UTC (commits c0ffee3..c0ffee4)\n"
                             "  reduce0_divergent f32 33554432: +2.00 % (ratio "),
                "%s", text);
  free(text);
  kg_rdoc_free(&d);
}
END_TEST

/* Each night's verdict, from the detector's findings and the night's checks
 * (kgt_nightly: an environment notice on night 1, an open regression of one
 * cell from night 3, an acknowledged improvement from night 4). */
START_TEST(test_rmodel_night_verdicts) {
  kg_history *h;
  kg_detection *det;
  kgt_nightly(&h, &det);
  kg_night v[KGT_NIGHTS];
  static const kg_night_verdict want[KGT_NIGHTS] = {KG_NIGHT_PASS, KG_NIGHT_ENVIRONMENT, KG_NIGHT_PASS,
                                                     KG_NIGHT_REGRESSION, KG_NIGHT_REGRESSION, KG_NIGHT_REGRESSION};
  kg_night_verdicts(h, det, v);
  for (int i = 0; i < KGT_NIGHTS; i++) ck_assert_msg(v[i].verdict == want[i], "night %d: %d", i, v[i].verdict);
  ck_assert_uint_eq(v[3].cells, 1);
  ck_assert_ptr_eq(v[3].finding, &det->find[0]);
  const char *cell = det->find[0].cells[0].variant;
  ck_assert(kg_night_regressed(h, det, 3, cell, KG_F32, (size_t)1 << 25));
  ck_assert(!kg_night_regressed(h, det, 2, cell, KG_F32, (size_t)1 << 25)); /* before its first bad night */
  ck_assert(!kg_night_regressed(h, det, 3, cell, KG_F64, (size_t)1 << 25));
  ck_assert(!kg_night_regressed(h, det, 4, det->find[2].cells[0].variant, KG_F32, (size_t)1 << 25)); /* the improvement */
  /* A failed check is FAIL whatever the detector says. */
  h->runs[4].checks = (kg_counts){.cases = 10, .passed = 9, .failed = 1};
  kg_night_verdicts(h, det, v);
  ck_assert_int_eq(v[4].verdict, KG_NIGHT_FAIL);
  ck_assert_int_eq(v[5].verdict, KG_NIGHT_REGRESSION);
  /* Acknowledged, the regression's level is accepted: its nights pass, and say so; runner health on the last. */
  kg_finding find[4];
  memcpy(find, det->find, 3 * sizeof *find);
  find[0].acknowledged = 1;
  find[3] = (kg_finding){.kind = KG_FIND_HEALTH, .first_bad = 5, .last_good = 5, .alarm = 5};
  kg_detection acked = *det;
  acked.find = find, acked.nfind = 4, acked.open_regressions = 0;
  kg_night_verdicts(h, &acked, v);
  ck_assert_int_eq(v[3].verdict, KG_NIGHT_PASS);
  ck_assert_uint_eq(v[3].acked, 1);
  ck_assert_int_eq(v[5].verdict, KG_NIGHT_HEALTH);
  ck_assert(!kg_night_regressed(h, &acked, 5, cell, KG_F32, (size_t)1 << 25));
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_init(&d), 0);
  ck_assert_int_eq(kg_rdoc_findings(&d, h, &acked, NULL), 0);
  ck_assert_str_eq(d.findings.night[3].word, "PASS");
  ck_assert_str_eq(d.findings.night[3].why, "every watched cell within its accepted level (the new level of 1 cell "
                                            "acknowledged)");
  ck_assert_str_eq(d.findings.night[4].why, "1 of 10 cases failed or errored");
  ck_assert_str_eq(d.findings.night[5].word, "RUNNER HEALTH");
  kg_rdoc_free(&d);
  /* Without a detector (no paired night): the checks alone. */
  kg_night_verdicts(h, NULL, v);
  for (int i = 0; i < KGT_NIGHTS; i++) ck_assert_int_eq(v[i].verdict, i == 4 ? KG_NIGHT_FAIL : KG_NIGHT_PASS);
}
END_TEST

/* A module the lint could not read is a failure in every report (the gate
 * exits 3 for it); with --lint off it is said to be off, and fails none. */
START_TEST(test_rmodel_lint_not_run) {
  kg_lint_module m[2] = {{.path = "/x/own.so", .why = "/x/own.so: cuobjdump -xelf failed on it"},
                         {.path = "/x/team.so", .off = 1, .why = "--lint off"}};
  kg_run run = {.lint = m, .nlint = 2};
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_build(&d, &run, NULL), 0);
  ck_assert_uint_eq(d.tally.failures, 1);
  ck_assert_uint_eq(d.tally.skipped, 1);
  ck_assert_int_eq(d.lint.lines[0].sev, KG_SEV_FAILURE);
  ck_assert(d.lint.n == 2 && d.lint.unread == 1 && d.lint.findings == 0);
  ck_assert(d.lint.mods[0].state == KG_RM_LINT_NOT_RUN && d.lint.mods[1].state == KG_RM_LINT_OFF);
  char *md = NULL, *xml = NULL;
  size_t len = 0, xlen = 0;
  FILE *f = open_memstream(&md, &len), *x = open_memstream(&xml, &xlen);
  ck_assert_int_eq(kg_print_markdown(f, &d), 0);
  ck_assert_int_eq(kg_print_junit(x, &d), 0);
  fclose(f), fclose(x);
  ck_assert_msg(strstr(md, "- own.so: **not run**: /x/own.so: cuobjdump -xelf failed on it; the gate fails (exit 3; "
                           "--lint off runs without the lint)\n"),
                "%s", md);
  ck_assert_msg(strstr(md, "- team.so: off (--lint off): not linted\n"), "%s", md);
  ck_assert_msg(strstr(xml, "<testsuite name=\"lint\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\">"), "%s",
                xml);
  ck_assert_msg(strstr(xml, "<testcase classname=\"kgate.lint\" name=\"own.so\">\n      <failure message=\"not run: "
                            "/x/own.so: cuobjdump -xelf failed on it; the gate fails (exit 3"),
                "%s", xml);
  ck_assert_msg(strstr(xml, "name=\"team.so\">\n      <skipped message=\"off (--lint off): not linted\"/>"), "%s", xml);
  free(md), free(xml);
  kg_rdoc_free(&d);
}
END_TEST

/* A lint note (what the lint could not classify) is shown in the reports
 * and fails nothing: the module's line carries no severity. */
START_TEST(test_rmodel_lint_note) {
  kg_lint_item note = {.kernel = "_Z1kPi", .arch = 90, .side = "note",
                       .first = "0x0040 ATOM.E.OR.STRONG.SM PT, R7, desc[UR4][R2.64], R9",
                       .second = "a block-scope atomic decides a read"};
  kg_lint_module m = {.path = "/x/team.so", .ran = 1, .kernels = 3, .notes = &note, .nnotes = 1};
  kg_run run = {.lint = &m, .nlint = 1};
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_build(&d, &run, NULL), 0);
  ck_assert_uint_eq(d.tally.failures, 0);
  char *md = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&md, &len);
  ck_assert_int_eq(kg_print_markdown(f, &d), 0);
  fclose(f);
  ck_assert_msg(strstr(md, "note: `_Z1kPi` (sm_90): 0x0040 ATOM.E.OR.STRONG.SM") &&
                    strstr(md, "a block-scope atomic decides a read (not a failure)"),
                "%s", md);
  free(md);
  kg_rdoc_free(&d);
}
END_TEST

/* The terminal's lint lines are the section's (kg_rdoc.lint): a finding, a
 * waiver in use and a note under their module's line, a module not read
 * said on stderr; the verdict counts the same findings and modules. */
START_TEST(test_rmodel_lint_terminal) {
  kg_lint_item item = {.kernel = "_Z3badPi", .arch = 90, .side = "release", .first = "0x0110 STG.E [R2], R5",
                       .second = "0x0150 ATOMG.E.INC"};
  kg_lint_item note = {.kernel = "_Z1kPi", .arch = 80, .side = "note", .first = "0x0040 ATOM.E.OR.STRONG.SM",
                       .second = "a block-scope atomic decides a read"};
  kg_lint_waived w = {.variant = "single_pass", .reason = "tagged slots", .findings = 2};
  kg_lint_module m[3] = {{.path = "/x/team.so", .ran = 1, .kernels = 7, .tickets = 2, .items = &item, .nitems = 1,
                          .waived = &w, .nwaived = 1, .notes = &note, .nnotes = 1},
                         {.path = "/x/own\x1b[2J.so"},
                         {.path = "/x/off.so", .off = 1, .why = "--lint off"}};
  kg_run run = {.lint = m, .nlint = 3};
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_build(&d, &run, NULL), 0);
  ck_assert(d.lint.n == 3 && d.lint.findings == 1 && d.lint.unread == 1);
  ck_assert_str_eq(d.lint.mods[1].why, "no reason recorded");
  ck_assert_int_eq(d.verdict.exit_code, 1); /* the finding decides before the module not read */
  char *out = NULL, *err = NULL;
  size_t len = 0, elen = 0;
  FILE *f = open_memstream(&out, &len), *e = open_memstream(&err, &elen);
  kg_report_lint(f, &d);
  kg_report_lint_unread(e, &d);
  fclose(f), fclose(e);
  ck_assert_str_eq(out, "lint FINDING _Z3badPi (sm_90) release: 0x0110 STG.E [R2], R5 -> 0x0150 ATOMG.E.INC\n"
                        "lint single_pass: waived: tagged slots\n"
                        "lint note _Z1kPi (sm_80): 0x0040 ATOM.E.OR.STRONG.SM: a block-scope atomic decides a read "
                        "(not a failure)\n"
                        "lint team.so: 7 kernels, 2 tickets, 1 finding\n"
                        "lint own?[2J.so: not run: no reason recorded\n"
                        "lint off.so: off (--lint off): not linted\n");
  ck_assert_str_eq(err, "kgate: lint: /x/own?[2J.so was not linted: no reason recorded (a failure, exit 3; --lint off "
                        "runs without the lint)\n");
  free(out), free(err);
  kg_rdoc_free(&d);
}
END_TEST

static char *compare_text(const kg_rdoc *d) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  kg_report_compare(f, d);
  fclose(f);
  return text;
}

/* compare's section: the SAME rows left out and counted (naming --all when
 * by default), the cells NEW lacks (a failure unless --missing allow), NEW's
 * failed cases, NEW's own paired SLOWER cells (ten named, the rest
 * counted); paths from the command line are escaped. */
START_TEST(test_rmodel_compare_section) {
  kg_cmp_row rows[3] = {{"cub_sum", KG_F32, 1 << 22, KG_V_MISSING, 10, 0, 0, 0.03, 1},
                        {"two_pass", KG_F32, 1 << 22, KG_V_SAME, 10, 10, 0, 0.03, 1},
                        {"atomic", KG_F32, 1 << 22, KG_V_SAME, 10, 10, 0, 0.03, 1}};
  kg_comparison cmp = {.n = 3, .rows = rows};
  cmp.count[KG_V_MISSING] = 1, cmp.count[KG_V_SAME] = 2;
  kg_case c = {.variant = 0, .dtype = KG_F32, .n = 1};
  kg_result r = {.status = KG_ST_FAIL};
  kg_pair_cell cells[12];
  for (int i = 0; i < 12; i++)
    cells[i] = (kg_pair_cell){.dtype = KG_I32, .n = (size_t)i + 1, .min_effect = 0.01,
                              .stat = {.verdict = KG_PV_SLOWER, .ratio = 1.02, .lo = 1.01, .hi = 1.03}};
  for (int i = 0; i < 12; i++) snprintf(cells[i].variant, sizeof cells[i].variant, "v%d", i);
  kg_run run = {.n = 1, .cases = &c, .results = &r, .pairs = cells, .npairs = 12};
  run.pair = (kg_pair_meta){.on = 1, .base_name = "kgate-kernels", .base_version = "0.1.0"};
  kg_rm_gate g = {.baseline = "old.json", .missing_fails = 1, .compared = "new\x1b[2J.json", .only_changed = 2};
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_build_gate(&d, &run, &cmp, &g), 0);
  ck_assert(d.compare.on && d.compare.only);
  char *text = compare_text(&d);
  ck_assert_msg(!strstr(text, "\nSAME ") && strstr(text, "\nMISSING cub_sum "), "%s", text);
  ck_assert_msg(strstr(text, "\nonly changed: 2 SAME cells of 3 left out of the table (--all prints them; --json keeps "
                             "every cell)\nmissing: 1 of the cells in old.json are not in new?[2J.json (a failure; "
                             "--missing allow accepts them)\nfailed: new?[2J.json has 1 failed and 0 errored cases\n"
                             "paired: new?[2J.json carries its own run against its base build (kgate-kernels 0.1.0): "
                             "12 SLOWER, 0 FASTER, 0 SAME, 0 UNDECIDED of 12 cells; its SLOWER cells decide the "
                             "verdict, as in that run:\n  SLOWER v0 i32 n=1: +2.00% [+1.00%, +3.00%] against the base "
                             "(min effect 1.0%)\n"),
                "%s", text);
  ck_assert_msg(strstr(text, "\n  SLOWER v9 i32 n=10: ") && !strstr(text, "SLOWER v10 ") &&
                    strstr(text, "\n  and 2 more SLOWER cells (kgate report new?[2J.json --html DIR shows every one)\n"),
                "%s", text);
  free(text);
  kg_rdoc_free(&d);
  /* --all (or a pipe): every row, no count; --missing allow: the same cells, no failure */
  g.only_changed = 0, g.missing_fails = 0, run.pair.on = 0;
  ck_assert_int_eq(kg_rdoc_build_gate(&d, &run, &cmp, &g), 0);
  text = compare_text(&d);
  ck_assert_msg(strstr(text, "\nSAME    two_pass ") && !strstr(text, "only changed") && !strstr(text, "paired:") &&
                    strstr(text, "are not in new?[2J.json (--missing allow: not a failure)\n"),
                "%s", text);
  free(text);
  kg_rdoc_free(&d);
  /* not a comparison's document: the table alone */
  ck_assert_int_eq(kg_rdoc_build(&d, &run, &cmp), 0);
  ck_assert(!d.compare.on && !d.compare.nlines);
  kg_rdoc_free(&d);
}
END_TEST

Suite *make_rmodel_suite(void) {
  Suite *s = suite_create("rmodel");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_rmodel_paired_order);
  tcase_add_test(core, test_rmodel_paired_cap);
  tcase_add_test(core, test_rmodel_paired_states);
  tcase_add_test(core, test_rmodel_explanations);
  tcase_add_test(core, test_rmodel_tally);
  tcase_add_test(core, test_rmodel_cold);
  tcase_add_test(core, test_rmodel_findings);
  tcase_add_test(core, test_rmodel_night_verdicts);
  tcase_add_test(core, test_rmodel_lint_not_run);
  tcase_add_test(core, test_rmodel_lint_note);
  tcase_add_test(core, test_rmodel_lint_terminal);
  tcase_add_test(core, test_rmodel_compare_section);
  suite_add_tcase(s, core);
  return s;
}
