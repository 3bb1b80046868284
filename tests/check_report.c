/* report: counts, the check table and the variant list. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "varreg.h"
#include "report.h"
#include "testutil.h"

START_TEST(test_count_results) {
  const kg_status st[] = {KG_ST_PASS, KG_ST_PASS, KG_ST_FAIL, KG_ST_ERROR, KG_ST_ERROR,
                          KG_ST_ERROR, KG_ST_UNSUPPORTED, KG_ST_PENDING, KG_ST_PENDING};
  kg_result r[9] = {{0}};
  for (int i = 0; i < 9; i++) r[i].status = st[i];
  r[1].nondeterministic = 1, r[2].nondeterministic = 1;
  kg_counts c = kg_count_results(r, 9);
  ck_assert_uint_eq(c.cases, 9);
  ck_assert_uint_eq(c.passed, 2);
  ck_assert_uint_eq(c.failed, 1);
  ck_assert_uint_eq(c.errored, 3);
  ck_assert_uint_eq(c.unsupported, 1);
  ck_assert_uint_eq(c.pending, 2);
  ck_assert_uint_eq(c.nondeterministic, 2);
  c = kg_count_results(r, 0);
  ck_assert_uint_eq(c.cases + c.passed + c.pending, 0);
}
END_TEST

START_TEST(test_case_label) {
  kg_case c = {kg_variant_find("reduce0_divergent"), KG_F32, 257, KG_PAT_UNIFORM, 1, 0};
  char s[160];
  kg_case_label(&c, s, sizeof s);
  ck_assert_str_eq(s, "reduce0_divergent f32 n=257 uniform");
}
END_TEST

/* Six cases over three variants: cub_sum passes two and fails one,
 * reduce0_divergent crashes twice, neighbored is unsupported for f16. */
enum { NCASES = 6 };
static kg_case g_cases[NCASES];
static kg_result g_results[NCASES];

static void make_cases(void) {
  int cub = kg_variant_find("cub_sum"), r0 = kg_variant_find("reduce0_divergent");
  g_cases[0] = (kg_case){cub, KG_F32, 33, KG_PAT_UNIFORM, 1, 0};
  g_cases[1] = (kg_case){cub, KG_F32, 1000, KG_PAT_UNIFORM, 1, 0};
  g_cases[2] = (kg_case){r0, KG_I32, 7, KG_PAT_EXACT, 1, 0};
  g_cases[3] = (kg_case){r0, KG_I32, 8, KG_PAT_EXACT, 1, 0};
  g_cases[4] = (kg_case){kg_variant_find("neighbored"), KG_F16, 7, KG_PAT_EXACT, 0, 0};
  g_cases[5] = (kg_case){cub, KG_F32, 2, KG_PAT_CANCEL, 1, 0};
  memset(g_results, 0, sizeof g_results);
  g_results[0] = (kg_result){.status = KG_ST_PASS, .got = "1.5", .expected = "1.5", .bound = 1, .ratio = 0.25,
                             .nondeterministic = 1};
  g_results[1] = (kg_result){.status = KG_ST_FAIL, .got = "5", .expected = "6", .abs_err = 1, .bound = 0.5, .ratio = 2,
                             .message = "error exceeds the bound"};
  g_results[2] = (kg_result){.status = KG_ST_ERROR, .message = "worker killed by signal 11 (Segmentation fault)"};
  g_results[3] = (kg_result){.status = KG_ST_ERROR, .message = "timeout after 60 s"};
  g_results[4] = (kg_result){.status = KG_ST_UNSUPPORTED};
  g_results[5] = (kg_result){.status = KG_ST_PASS, .got = "2", .expected = "2", .abs_err = 0.5, .bound = 1, .ratio = 0.5};
}

static char *g_text; /* static, not local: GCC's -Wdangling-pointer misreads open_memstream(&local) */
static size_t g_len;

static char *report(int verbose, const kg_device_info *dev) {
  FILE *f = open_memstream(&g_text, &g_len);
  ck_assert_ptr_nonnull(f);
  kg_report_check(f, g_cases, g_results, NCASES, dev, 1.5, verbose);
  fclose(f);
  return g_text;
}

/* The table row of a variant: cases, pass, fail, error, unsup, nondet, max ratio. */
static int row(const char *text, const char *variant, size_t v[6], double *worst) {
  char name[64], seed[16];
  for (const char *line = text; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
    if (sscanf(line, "%63s %15s %zu %zu %zu %zu %zu %zu %lf", name, seed, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
               worst) == 9 &&
        strcmp(name, variant) == 0)
      return 1;
  return 0;
}

/* Whether some line of text holds both a and b. */
static int on_one_line(const char *text, const char *a, const char *b) {
  for (const char *p = strstr(text, a); p; p = strstr(p + 1, a)) {
    size_t len = strcspn(p, "\n");
    const char *q = strstr(p, b);
    if (q && (size_t)(q - p) < len) return 1;
  }
  return 0;
}

START_TEST(test_report_check_rows) {
  kg_device_info dev = {.name = "fake device"};
  char *text = report(0, &dev);
  size_t v[6];
  double worst;
  ck_assert_msg(row(text, "cub_sum", v, &worst), "%s", text);
  ck_assert(v[0] == 3 && v[1] == 2 && v[2] == 1 && v[3] == 0 && v[4] == 0 && v[5] == 1);
  ck_assert_double_eq_tol(worst, 0.5, 1e-12); /* the worst passing case; failures are listed below */
  ck_assert(row(text, "reduce0_divergent", v, &worst));
  ck_assert(v[0] == 2 && v[1] == 0 && v[3] == 2);
  ck_assert(row(text, "neighbored", v, &worst));
  ck_assert(v[0] == 1 && v[4] == 1);
  ck_assert(!row(text, "two_pass", v, &worst)); /* no cases, no row */
  free(text);
}
END_TEST

START_TEST(test_report_check_failed_cases) {
  kg_device_info dev = {.name = "fake device"};
  char *text = report(0, &dev);
  ck_assert_ptr_nonnull(strstr(text, "failed cases:"));
  ck_assert_msg(strstr(text, "cub_sum f32 n=1000 uniform: got 5, expected 6, |err| 1, bound 0.5, err/bound 2: error "
                             "exceeds the bound"),
                "%s", text);
  ck_assert_msg(on_one_line(text, "reduce0_divergent i32 n=7 exact", "worker killed by signal 11"), "%s", text);
  ck_assert_msg(on_one_line(text, "reduce0_divergent i32 n=8 exact", "timeout after 60 s"), "%s", text);
  ck_assert_ptr_null(strstr(text, "n=33 ")); /* passes are listed only with verbose */
  ck_assert_ptr_null(strstr(text, "neighbored f16"));
  ck_assert_msg(strstr(text, "summary: 6 cases, 2 passed, 1 failed, 2 errors, 1 unsupported, 1 nondeterministic on fake "
                             "device in 1.5 s\n"),
                "%s", text);
  free(text);
}
END_TEST

START_TEST(test_report_check_verbose) {
  char *text = report(1, NULL);
  ck_assert_ptr_nonnull(strstr(text, "\ncases:\n"));
  ck_assert_msg(strstr(text, "ok    cub_sum f32 n=33 uniform: got 1.5, expected 1.5"), "%s", text);
  ck_assert_ptr_nonnull(strstr(text, ", nondeterministic"));
  ck_assert_ptr_nonnull(strstr(text, " on no device in 1.5 s"));
  free(text);
}
END_TEST

START_TEST(test_report_check_not_run) {
  g_results[1].status = g_results[2].status = g_results[3].status = KG_ST_PENDING;
  char *buf = report(0, NULL);
  ck_assert_msg(strstr(buf, "6 cases, 2 passed, 0 failed, 0 errors, 1 unsupported, 1 nondeterministic, 3 not run"), "%s",
                buf);
  ck_assert_ptr_null(strstr(buf, "failed cases"));
  free(buf);
}
END_TEST

START_TEST(test_report_list) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  kg_report_list(f);
  fclose(f);
  size_t lines = 0;
  for (char *p = text; *p; p++) lines += *p == '\n';
  ck_assert_uint_eq(lines, kg_nvariants + 1);
  for (size_t v = 0; v < kg_nvariants; v++) {
    char start[64];
    snprintf(start, sizeof start, "\n%s ", kg_variants[v].name);
    char *line = strstr(text, start);
    ck_assert_msg(line != NULL, "%s missing from the list", kg_variants[v].name);
    char *end = strchr(line + 1, '\n');
    *end = '\0';
    ck_assert_ptr_nonnull(strstr(line, kg_variants[v].idea));
    ck_assert_int_eq(strstr(line, "in-place") != NULL, (kg_variants[v].flags & KG_CLOBBERS) != 0);
    ck_assert_int_eq(strstr(line, "float-atomics") != NULL, (kg_variants[v].flags & KG_FLOAT_ATOMICS) != 0);
    ck_assert_ptr_nonnull(strstr(line, kg_variants[v].dtypes == KG_DT_ALL ? " i32,i64,f32,f64,f16,bf16 " : " i32,i64,f32,f64 "));
    *end = '\n';
  }
  free(text);
}
END_TEST

/* Text from a results file printed to the terminal: an ESC sequence in a
 * GPU name, a message, got or a baseline's variant name would clear the
 * screen or retitle the window. Shown with '?' instead; no control byte but
 * the line ends reaches the terminal. */
static void assert_no_control_bytes(const char *text) {
  for (const unsigned char *p = (const unsigned char *)text; *p; p++)
    ck_assert_msg(*p == '\n' || (*p >= 0x20 && *p != 0x7f && !(p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0)),
                  "control byte 0x%02x at %zu in:\n%s", *p, (size_t)(p - (const unsigned char *)text), text);
}

START_TEST(test_report_control_characters) {
  kg_device_info dev = {.name = "GPU\x1b]0;owned\x07\x1b[2J\xc2\x9b" "31m"};
  snprintf(g_results[1].message, sizeof g_results[1].message, "bad\x1b[2Jnews\nsecond line\r");
  snprintf(g_results[1].got, sizeof g_results[1].got, "5\x1b[8m");
  snprintf(g_results[2].message, sizeof g_results[2].message, "crash\x1b[1A\x1b[K");
  char *text = report(1, &dev);
  assert_no_control_bytes(text);
  ck_assert_msg(strstr(text, "got 5?[8m, expected 6") && strstr(text, "bad?[2Jnews?second line?"), "%s", text);
  ck_assert_msg(strstr(text, " on GPU?]0;owned??[2J?31m in 1.5 s\n"), "%s", text);
  free(text);
  /* The timing and comparison tables too. */
  int cub = kg_variant_find("cub_sum");
  kg_case c = {cub, KG_F32, 1 << 25, KG_PAT_UNIFORM, 1, 1};
  kg_result r = {.status = KG_ST_PASS, .timing = {.samples = 10, .median_us = 40, .q1_us = 39, .q3_us = 41, .min_us = 38}};
  kg_run run = {.meta = {.dev = dev}, .n = 1, .cases = &c, .results = &r};
  kg_cmp_row row = {"zz\x1b[2J", KG_F32, 1 << 25, KG_V_MISSING, 40, 0, 0, 0.03, 1};
  kg_comparison cmp = {.n = 1, .rows = &row, .warning = "driver \x1b[2J"};
  cmp.count[KG_V_MISSING] = 1;
  FILE *f = open_memstream(&g_text, &g_len);
  kg_rdoc doc;
  ck_assert_int_eq(kg_rdoc_build(&doc, &run, &cmp), 0);
  kg_report_perf(f, &doc);
  kg_report_compare(f, &doc);
  kg_rdoc_free(&doc);
  fclose(f);
  assert_no_control_bytes(g_text);
  ck_assert_msg(strstr(g_text, "zz?[2J") && strstr(g_text, "warning: driver ?[2J"), "%s", g_text);
  free(g_text);
}
END_TEST

/* ---- the paired table ---- */

static kg_pair_cell pcell(const char *variant, kg_pverdict v, int blocks, const char *message) {
  kg_pair_cell c = {.dtype = KG_F32, .n = 1 << 22, .min_effect = 0.01, .rounds = blocks ? 2 : 0};
  snprintf(c.variant, sizeof c.variant, "%s", variant);
  snprintf(c.message, sizeof c.message, "%s", message);
  c.stat = (kg_pair_stat){.blocks = blocks, .pairs = 8 * blocks, .ratio = blocks ? 1.02 : 1, .lo = blocks ? 1.01 : 1,
                          .hi = blocks ? 1.03 : 1, .head_us = blocks ? 102 : 0, .base_us = blocks ? 100 : 0,
                          .verdict = v};
  return c;
}

static char *report_pairs(kg_pair_cell *cells, size_t n) {
  kg_run run = {.pairs = cells, .npairs = n};
  run.pair = (kg_pair_meta){.on = 1, .base_path = "/base/libkgate_kernels.so", .base_name = "kgate-kernels",
                            .base_version = "0.1.0", .confidence = 0.99, .copies = 4, .rounds = 2, .max_rounds = 6};
  FILE *f = open_memstream(&g_text, &g_len);
  ck_assert_ptr_nonnull(f);
  kg_rdoc doc;
  ck_assert_int_eq(kg_rdoc_build(&doc, &run, NULL), 0);
  kg_report_pairs(f, &doc);
  kg_rdoc_free(&doc);
  fclose(f);
  return g_text;
}

static void assert_column(const char *text, const char *head, const char *heading, size_t nrows) {
  char why[512];
  ck_assert_msg(kgt_column_aligned(text, head, heading, nrows, why, sizeof why), "%s in:\n%s", why, text);
}

/* compare's table of cmp, as the document of an empty run prints it. */
static char *compare_table(const kg_comparison *cmp) {
  kg_run run = {0};
  kg_rdoc doc;
  ck_assert_int_eq(kg_rdoc_build(&doc, &run, cmp), 0);
  FILE *f = open_memstream(&g_text, &g_len);
  ck_assert_ptr_nonnull(f);
  kg_report_compare(f, &doc);
  fclose(f);
  kg_rdoc_free(&doc);
  return g_text;
}

/* A variant name longer than kgate's own: every column after it moves
 * over, on every row alike (compare, the paired table). */
START_TEST(test_report_columns_fit_long_names) {
  static const char *long_name = "cuda_samples_reduce6_multipass_templated";
  kg_cmp_row rows[2] = {{"cub_sum", KG_F32, 1 << 22, KG_V_SAME, 10, 10, 0, 0.03, 1},
                        {"", KG_I32, 1 << 25, KG_V_SLOWER, 10, 12, 0.2, 0.03, 1}};
  snprintf(rows[1].variant, sizeof rows[1].variant, "%s", long_name);
  kg_comparison cmp = {.n = 2, .rows = rows};
  g_text = compare_table(&cmp);
  assert_column(g_text, "verdict ", "dtype", 2);
  ck_assert_msg(strstr(g_text, long_name) != NULL, "%s", g_text); /* whole, not cut */
  free(g_text);
  /* short names only: the column is as wide as the longest of them, not a fixed 24 */
  rows[1] = rows[0];
  cmp.n = 1;
  g_text = compare_table(&cmp);
  ck_assert_msg(strncmp(g_text, "verdict variant dtype ", 22) == 0, "%s", g_text);
  ck_assert_msg(strstr(g_text, "\nSAME    cub_sum f32  ") != NULL, "%s", g_text);
  free(g_text);

  kg_pair_cell cells[] = {pcell("cub_sum", KG_PV_SAME, 8, ""), pcell(long_name, KG_PV_SLOWER, 8, ""),
                          pcell("two_pass", KG_PV_UNKNOWN, 0, "its check failed")};
  char *text = report_pairs(cells, 3);
  assert_column(text, "verdict ", "dtype", 3);
  free(text);
}
END_TEST

/* A row per cell; the counts in the report order (as Markdown and the page), UNCHANGED only when a cell is. */
START_TEST(test_report_pairs_rows) {
  kg_pair_cell cells[] = {pcell("reduce0_divergent", KG_PV_SLOWER, 8, ""), pcell("cub_sum", KG_PV_SAME, 8, ""),
                          pcell("two_pass", KG_PV_UNKNOWN, 0, "its check failed")};
  char *text = report_pairs(cells, 3);
  ck_assert_msg(on_one_line(text, "SLOWER    reduce0_divergent", "+2.00%"), "%s", text);
  ck_assert_msg(on_one_line(text, "UNKNOWN   two_pass", "its check failed"), "%s", text);
  ck_assert_msg(strstr(text, "\npaired verdicts: 1 SLOWER, 1 UNKNOWN, 0 UNDECIDED, 0 MISSING, 0 FASTER, 0 NEW, 1 SAME\n"),
                "%s", text);
  ck_assert_ptr_null(strstr(text, "UNCHANGED"));
  free(text);
}
END_TEST

/* UNCHANGED cells: one line, not a row each, and counted last. */
START_TEST(test_report_pairs_unchanged) {
  const char *evidence = "same machine code (sm_90, SHA-256 3f2a9c01d4e5b6a7) and launches: 2 kernels, 3 launches";
  kg_pair_cell cells[] = {pcell("reduce0_divergent", KG_PV_SLOWER, 8, ""), pcell("cub_sum", KG_PV_UNCHANGED, 0, evidence),
                          pcell("two_pass", KG_PV_UNCHANGED, 0, evidence), pcell("reduce7_shuffle", KG_PV_SAME, 8, "")};
  char *text = report_pairs(cells, 4);
  ck_assert_msg(strstr(text, "\n2 cells UNCHANGED: identical machine code and launches in base and head, not timed (the "
                             "evidence per cell is in the results JSON)\npaired verdicts: 1 SLOWER, 0 UNKNOWN, 0 UNDECIDED, "
                             "0 MISSING, 0 FASTER, 0 NEW, 1 SAME, 2 UNCHANGED\n"),
                "%s", text);
  ck_assert_ptr_null(strstr(text, "cub_sum"));
  ck_assert_ptr_null(strstr(text, "SHA-256"));
  free(text);
  text = report_pairs(cells + 1, 1);
  ck_assert_msg(strstr(text, "\n1 cell UNCHANGED: identical"), "%s", text);
  free(text);
}
END_TEST

Suite *make_report_suite(void) {
  Suite *s = suite_create("report");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, make_cases, NULL);
  tcase_add_test(core, test_count_results);
  tcase_add_test(core, test_case_label);
  tcase_add_test(core, test_report_check_rows);
  tcase_add_test(core, test_report_check_failed_cases);
  tcase_add_test(core, test_report_check_verbose);
  tcase_add_test(core, test_report_list);
  tcase_add_test(core, test_report_pairs_rows);
  tcase_add_test(core, test_report_pairs_unchanged);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_checked_fixture(limits, make_cases, NULL);
  tcase_add_test(limits, test_report_check_not_run);
  tcase_add_test(limits, test_report_control_characters);
  tcase_add_test(limits, test_report_columns_fit_long_names);
  suite_add_tcase(s, limits);
  return s;
}
