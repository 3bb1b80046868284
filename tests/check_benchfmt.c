/* benchfmt: github-action-benchmark's customSmallerIsBetter and Bencher's
 * BMF, written from a committed H200 run and parsed back: one entry per
 * timed case that passed, each field equal to the fixture's timing. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "export.h"
#include "varreg.h"
#include "results.h"
#include "testutil.h"

static kg_run g_run;
static char g_dir[64], g_path[128];

static void load_run(void) {
  char err[512] = "";
  memset(&g_run, 0, sizeof g_run);
  ck_assert_msg(kg_results_read(KG_SOURCE_DIR "/tests/data/h200-run1.json", &g_run, err, sizeof err) == 0, "%s", err);
  kgt_mkscratch(g_dir, sizeof g_dir, "benchfmt");
  snprintf(g_path, sizeof g_path, "%s/out.json", g_dir);
}

static void free_run(void) {
  kg_run_free(&g_run);
  kgt_rmtree(g_dir);
}

/* The format written to a file and parsed back (asserted). */
static json_t *written(kg_format_id id) {
  char err[512] = "";
  ck_assert_msg(kg_report_file(id, g_path, &g_run, NULL, err, sizeof err) == 0, "%s", err);
  json_error_t je;
  json_t *doc = json_load_file(g_path, JSON_REJECT_DUPLICATES, &je);
  ck_assert_msg(doc != NULL, "%s is not JSON: %s at line %d", kg_formats[id].name, je.text, je.line);
  return doc;
}

static size_t timed_passed(void) {
  size_t k = 0;
  for (size_t i = 0; i < g_run.n; i++)
    k += g_run.results[i].status == KG_ST_PASS && g_run.results[i].timing.samples > 0;
  return k;
}

/* The case named "variant/dtype/n" (asserted to exist and to be timed). */
static size_t case_named(const char *name) {
  for (size_t i = 0; i < g_run.n; i++) {
    char want[128];
    const kg_case *c = &g_run.cases[i];
    snprintf(want, sizeof want, "%s/%s/%zu", kg_variants[c->variant].name, kg_dtype_get(c->dtype)->name, c->n);
    if (!strcmp(want, name) && g_run.results[i].timing.samples > 0) return i;
  }
  ck_abort_msg("no timed case named %s", name);
  return 0;
}

static double num(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  ck_assert_msg(json_is_number(v), "%s is not a number", key);
  return json_number_value(v);
}

START_TEST(test_github_benchmark_fields) {
  size_t want = timed_passed();
  ck_assert_uint_gt(want, 10); /* the fixture times many cells: the test is not vacuous */
  json_t *doc = written(KG_FMT_GITHUB_BENCHMARK);
  ck_assert(json_is_array(doc));
  ck_assert_uint_eq(json_array_size(doc), want);
  size_t i;
  json_t *e;
  json_array_foreach(doc, i, e) {
    ck_assert_uint_eq(json_object_size(e), 5); /* name, unit, value, range, extra: nothing else */
    const char *name = json_string_value(json_object_get(e, "name"));
    ck_assert_ptr_nonnull(name);
    const kg_timing *t = &g_run.results[case_named(name)].timing;
    ck_assert_str_eq(json_string_value(json_object_get(e, "unit")), "us");
    ck_assert_double_eq_tol(num(e, "value"), t->median_us, 1e-9 * t->median_us);
    char range[64];
    snprintf(range, sizeof range, "\u00b1 %.4g", (t->q3_us - t->q1_us) / 2);
    ck_assert_str_eq(json_string_value(json_object_get(e, "range")), range);
    const char *extra = json_string_value(json_object_get(e, "extra"));
    char samples[64];
    snprintf(samples, sizeof samples, "median of %d samples", t->samples);
    ck_assert_msg(extra && strstr(extra, samples) && strstr(extra, g_run.meta.dev.name), "%s", extra);
  }
  json_decref(doc);
}
END_TEST

START_TEST(test_bencher_fields) {
  size_t want = timed_passed();
  json_t *doc = written(KG_FMT_BENCHER);
  ck_assert(json_is_object(doc));
  ck_assert_uint_eq(json_object_size(doc), want);
  const char *name;
  json_t *m;
  json_object_foreach(doc, name, m) {
    size_t c = case_named(name);
    const kg_timing *t = &g_run.results[c].timing;
    double n = (double)g_run.cases[c].n;
    ck_assert_uint_eq(json_object_size(m), 2);
    json_t *lat = json_object_get(m, "latency"), *thr = json_object_get(m, "throughput");
    ck_assert(json_is_object(lat) && json_is_object(thr));
    ck_assert_double_eq_tol(num(lat, "value"), t->median_us * 1e3, 1e-9 * t->median_us * 1e3);
    ck_assert_double_eq_tol(num(lat, "lower_value"), t->q1_us * 1e3, 1e-9 * t->q1_us * 1e3);
    ck_assert_double_eq_tol(num(lat, "upper_value"), t->q3_us * 1e3, 1e-9 * t->q3_us * 1e3);
    double per_s = n / t->median_us * 1e6;
    ck_assert_double_eq_tol(num(thr, "value"), per_s, 1e-9 * per_s);
    ck_assert(num(thr, "lower_value") <= num(thr, "value") && num(thr, "value") <= num(thr, "upper_value"));
    ck_assert(num(lat, "lower_value") <= num(lat, "value") && num(lat, "value") <= num(lat, "upper_value"));
  }
  json_decref(doc);
}
END_TEST

/* A case that failed its check, though it carries a timing, is in neither format. */
START_TEST(test_failed_case_left_out) {
  size_t c = g_run.n;
  for (size_t i = 0; i < g_run.n && c == g_run.n; i++)
    if (g_run.results[i].timing.samples > 0) c = i;
  ck_assert_uint_lt(c, g_run.n);
  size_t want = timed_passed();
  g_run.results[c].status = KG_ST_FAIL;
  char name[128];
  snprintf(name, sizeof name, "%s/%s/%zu", kg_variants[g_run.cases[c].variant].name,
           kg_dtype_get(g_run.cases[c].dtype)->name, g_run.cases[c].n);
  json_t *gab = written(KG_FMT_GITHUB_BENCHMARK);
  ck_assert_uint_eq(json_array_size(gab), want - 1);
  size_t i;
  json_t *e;
  json_array_foreach(gab, i, e) ck_assert_str_ne(json_string_value(json_object_get(e, "name")), name);
  json_decref(gab);
  json_t *bmf = written(KG_FMT_BENCHER);
  ck_assert_uint_eq(json_object_size(bmf), want - 1);
  ck_assert_ptr_null(json_object_get(bmf, name));
  json_decref(bmf);
}
END_TEST

/* No timed case (a check run): Bencher's file is an empty object, still
 * JSON; github-action-benchmark refuses an empty array ("No benchmark result
 * was found"), so its file is not written: a note says why, and the fan-out
 * does not fail for it. */
START_TEST(test_untimed_run_empty) {
  for (size_t i = 0; i < g_run.n; i++) g_run.results[i].timing.samples = 0;
  json_t *bmf = written(KG_FMT_BENCHER);
  ck_assert(json_is_object(bmf) && json_object_size(bmf) == 0);
  json_decref(bmf);
  unlink(g_path);
  char err[512] = "";
  ck_assert_int_eq(kg_report_file(KG_FMT_GITHUB_BENCHMARK, g_path, &g_run, NULL, err, sizeof err), 1);
  ck_assert_msg(strstr(err, "not written: no timed case passed") != NULL, "%s", err);
  ck_assert_int_eq(access(g_path, F_OK), -1); /* nothing written */
  kg_rdoc doc;
  ck_assert_int_eq(kg_rdoc_build(&doc, &g_run, NULL), 0);
  const char *paths[KG_NFORMATS] = {0};
  paths[KG_FMT_GITHUB_BENCHMARK] = g_path;
  char *said = NULL;
  size_t len = 0;
  FILE *errs = open_memstream(&said, &len);
  ck_assert_int_eq(kg_report_files(paths, &doc, errs), 0);
  fclose(errs);
  kg_rdoc_free(&doc);
  ck_assert_msg(strncmp(said, "kgate: note: ", 13) == 0, "%s", said);
  free(said);
  ck_assert_int_eq(access(g_path, F_OK), -1);
}
END_TEST

Suite *make_benchfmt_suite(void) {
  Suite *s = suite_create("benchfmt");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, load_run, free_run);
  tcase_add_test(core, test_github_benchmark_fields);
  tcase_add_test(core, test_bencher_fields);
  tcase_add_test(core, test_failed_case_left_out);
  tcase_add_test(core, test_untimed_run_empty);
  suite_add_tcase(s, core);
  return s;
}
