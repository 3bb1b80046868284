/* carry: check records (checkrec.h), which cases a baseline's record carries
 * over (carry.h), and the records in baselines and results files. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "carry.h"
#include "checkrec.h"
#include "varreg.h"
#include "testutil.h"

#define HARNESS "1111111111111111111111111111111111111111111111111111111111111111"
#define OTHER "2222222222222222222222222222222222222222222222222222222222222222"
#define DIGEST_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DIGEST_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define N25 ((size_t)1 << 25)

static char g_dir[64], g_path[128];
static void scratch_setup(void) {
  kgt_mkscratch(g_dir, sizeof g_dir, "carry");
  snprintf(g_path, sizeof g_path, "%s/nvidia-h200.json", g_dir);
}
static void scratch_teardown(void) { kgt_rmtree(g_dir); }

static kg_crec rec(const char *harness) {
  kg_crec r = {.on = 1, .arch = 90, .seed = 1, .repeats = 3};
  snprintf(r.harness, sizeof r.harness, "%s", harness);
  return r;
}

static void put(kg_crec *r, const char *variant, kg_dtype dt, size_t n, unsigned patterns, const char *digest) {
  kg_crec_group g = {.dtype = dt, .n = n, .patterns = patterns};
  snprintf(g.variant, sizeof g.variant, "%s", variant);
  snprintf(g.digest, sizeof g.digest, "%s", digest);
  ck_assert_int_eq(kg_crec_put(r, &g), 0);
}

/* A group is carried only with the same key, the same digest, and patterns
 * the record's check covered; each refusal says which. */
START_TEST(test_crec_carries_only_what_was_checked) {
  kg_crec base = rec(HARNESS), run = rec(HARNESS);
  put(&base, "reduce0_divergent", KG_F32, N25, 0x7, DIGEST_A);
  put(&run, "reduce0_divergent", KG_F32, N25, 0x3, DIGEST_A);
  const kg_crec_group *g = &run.g[0];
  char why[120];
  ck_assert_int_eq(kg_crec_carries(&base, &run, g, why, sizeof why), 1);

  run.g[0].patterns = 0xf; /* a pattern the record did not check */
  ck_assert_int_eq(kg_crec_carries(&base, &run, g, why, sizeof why), 0);
  ck_assert_str_eq(why, "patterns its record did not check");
  run.g[0].patterns = 0x3;

  snprintf(run.g[0].digest, sizeof run.g[0].digest, "%s", DIGEST_B);
  ck_assert_int_eq(kg_crec_carries(&base, &run, g, why, sizeof why), 0);
  ck_assert_str_eq(why, "launches or machine code differ");
  snprintf(run.g[0].digest, sizeof run.g[0].digest, "%s", DIGEST_A);

  kg_crec other = rec(OTHER);
  put(&other, "reduce0_divergent", KG_F32, N25, 0x7, DIGEST_A);
  ck_assert_int_eq(kg_crec_carries(&other, &run, g, why, sizeof why), 0);
  ck_assert_str_eq(why, "kgate's check code differs");
  other.g[0].patterns = 0x7;
  snprintf(other.harness, sizeof other.harness, "%s", HARNESS);
  other.arch = 80;
  ck_assert_int_eq(kg_crec_carries(&other, &run, g, why, sizeof why), 0);
  ck_assert_str_eq(why, "checked on sm_80");
  other.arch = 90, other.seed = 2;
  ck_assert_int_eq(kg_crec_carries(&other, &run, g, why, sizeof why), 0);
  ck_assert_str_eq(why, "checked with another seed or repeats");

  kg_crec none = rec(HARNESS); /* no such group: no reason to give */
  ck_assert_int_eq(kg_crec_carries(&none, &run, g, why, sizeof why), 0);
  ck_assert_str_eq(why, "");
  kg_crec_free(&base), kg_crec_free(&run), kg_crec_free(&other), kg_crec_free(&none);
}
END_TEST

/* The JSON form reads back as written, in both forms (a run's keeps from and carried). */
START_TEST(test_crec_json_round_trip) {
  for (int with_run = 0; with_run < 2; with_run++) {
    kg_crec a = rec(HARNESS);
    put(&a, "reduce7_shuffle", KG_I64, N25 - 1, 0x1f, DIGEST_B);
    put(&a, "reduce0_divergent", KG_F32, N25, 0x7, DIGEST_A);
    a.g[1].carried = 1; /* sorted: reduce7 after reduce0 */
    snprintf(a.from, sizeof a.from, "baselines/nvidia-h200.json");
    json_t *o = kg_crec_to_json(&a, with_run);
    ck_assert_ptr_nonnull(o);
    char err[300] = "";
    kg_jrd r = {.file = "x.json", .err = err, .errlen = sizeof err};
    kg_crec b;
    kg_crec_read(&r, o, &b);
    ck_assert_msg(!r.failed, "%s", err);
    ck_assert_int_eq(b.on, 1);
    ck_assert_str_eq(b.harness, HARNESS);
    ck_assert_int_eq(b.arch, 90);
    ck_assert_uint_eq(b.n, 2);
    const kg_crec_group *g = kg_crec_find(&b, "reduce7_shuffle", KG_I64, N25 - 1);
    ck_assert_ptr_nonnull(g);
    ck_assert_uint_eq(g->patterns, 0x1f);
    ck_assert_str_eq(g->digest, DIGEST_B);
    ck_assert_int_eq(g->carried, with_run);
    ck_assert_str_eq(b.from, with_run ? "baselines/nvidia-h200.json" : "");
    json_decref(o);
    kg_crec_free(&a), kg_crec_free(&b);
  }
}
END_TEST

static const struct {
  const char *groups, *message;
} k_bad_groups[] = {
    {"[[\"reduce0_divergent\",\"f32\",33554432,7,\"AAAA\"]]", "groups[0]: digest: not 64 lowercase hex digits"},
    {"[[\"reduce0_divergent\",\"f32\",1024,7,\"" DIGEST_A "\"]]", "groups[0]: n: not a size of at least 1048576"},
    {"[[\"reduce0_divergent\",\"f32\",33554432,0,\"" DIGEST_A "\"]]", "groups[0]: patterns: not a set"},
    {"[[\"reduce0_divergent\",\"f32\",33554432,65536,\"" DIGEST_A "\"]]", "groups[0]: patterns: not a set"},
    {"[[\"reduce0_divergent\",\"f33\",33554432,7,\"" DIGEST_A "\"]]", "groups[0]: unknown dtype 'f33'"},
    {"[[\"bad name\",\"f32\",33554432,7,\"" DIGEST_A "\"]]", "groups[0]: variant: not a variant name"},
    {"[[\"reduce0_divergent\",\"f32\",33554432,7]]", "groups[0]: not [variant, dtype, n, patterns, digest]"},
    {"[[\"reduce0_divergent\",\"f32\",33554432,7,\"" DIGEST_A "\"],[\"reduce0_divergent\",\"f32\",33554432,1,\"" DIGEST_B
     "\"]]",
     "groups[1]: reduce0_divergent f32 33554432 twice"},
};

/* A record that cannot be true is refused, naming the group and the field. */
START_TEST(test_crec_read_refuses) {
  char text[600], err[300] = "";
  snprintf(text, sizeof text, "{\"harness\":\"%s\",\"arch\":90,\"seed\":1,\"repeats\":3,\"groups\":%s}", HARNESS,
           k_bad_groups[_i].groups);
  json_t *o = json_loads(text, 0, NULL);
  ck_assert_ptr_nonnull(o);
  kg_jrd r = {.file = "b.json", .err = err, .errlen = sizeof err};
  snprintf(r.where, sizeof r.where, "check_record");
  kg_crec out;
  kg_crec_read(&r, o, &out);
  ck_assert_int_eq(r.failed, 1);
  ck_assert_msg(strstr(err, "b.json: check_record.") && strstr(err, k_bad_groups[_i].message), "%s", err);
  ck_assert_int_eq(out.on, 0);
  json_decref(o);
}
END_TEST

/* --- runs */
enum { MAXC = 8 };
static kg_case g_cases[MAXC];
static kg_result g_results[MAXC];

static kg_run new_run(void) {
  kg_run run = {.cases = g_cases, .results = g_results};
  snprintf(run.meta.dev.name, sizeof run.meta.dev.name, "NVIDIA H200");
  kgt_stamp(&run.meta, "c0ffee");
  return run;
}

static void add(kg_run *run, const char *variant, kg_dtype dt, size_t n, kg_pattern p, int timed, kg_status st) {
  kgt_add_case(run, MAXC, variant, dt, n, p, timed, st);
  if (timed && st == KG_ST_PASS) g_results[run->n - 1].timing = kgt_timing(100);
}

/* kg_carry_apply: the cases of groups the record covers become PASS and
 * carried with the evidence; a case the check would time, and the groups
 * the record does not cover, are left to the check; the log names why. */
START_TEST(test_carry_apply_marks_only_covered_cases) {
  kg_run run = new_run();
  add(&run, "reduce0_divergent", KG_F32, N25, KG_PAT_UNIFORM, 0, KG_ST_PENDING);
  add(&run, "reduce0_divergent", KG_F32, N25, KG_PAT_CANCEL, 0, KG_ST_PENDING);
  add(&run, "reduce0_divergent", KG_F32, 1024, KG_PAT_UNIFORM, 0, KG_ST_PENDING); /* below the groups' sizes */
  add(&run, "reduce7_shuffle", KG_F32, N25, KG_PAT_UNIFORM, 0, KG_ST_PENDING);     /* another digest */
  add(&run, "reduce1_strided", KG_F32, N25, KG_PAT_UNIFORM, 1, KG_ST_PENDING);     /* timed by the check */
  run.check = rec(HARNESS);
  unsigned two = (1u << KG_PAT_UNIFORM) | (1u << KG_PAT_CANCEL);
  put(&run.check, "reduce0_divergent", KG_F32, N25, two, DIGEST_A);
  put(&run.check, "reduce7_shuffle", KG_F32, N25, 1u << KG_PAT_UNIFORM, DIGEST_B);
  put(&run.check, "reduce1_strided", KG_F32, N25, 1u << KG_PAT_UNIFORM, DIGEST_A);
  kg_crec base = rec(HARNESS);
  put(&base, "reduce0_divergent", KG_F32, N25, (1u << KG_NPATTERNS) - 1, DIGEST_A);
  put(&base, "reduce7_shuffle", KG_F32, N25, (1u << KG_NPATTERNS) - 1, DIGEST_A);
  put(&base, "reduce1_strided", KG_F32, N25, (1u << KG_NPATTERNS) - 1, DIGEST_A);
  char logbuf[1024] = "";
  FILE *log = fmemopen(logbuf, sizeof logbuf, "w");
  ck_assert_ptr_nonnull(log);
  size_t n = kg_carry_apply(&run, g_cases, &base, "baselines/nvidia-h200.json", log);
  fclose(log);
  ck_assert_uint_eq(n, 2);
  for (size_t i = 0; i < 2; i++) {
    ck_assert_int_eq(g_results[i].status, KG_ST_PASS);
    ck_assert_int_eq(g_results[i].carried, 1);
    ck_assert_msg(strstr(g_results[i].message, "carried over from baselines/nvidia-h200.json"), "%s",
                  g_results[i].message);
  }
  for (size_t i = 2; i < 5; i++) {
    ck_assert_int_eq(g_results[i].status, KG_ST_PENDING);
    ck_assert_int_eq(g_results[i].carried, 0);
  }
  ck_assert_int_eq(kg_crec_find(&run.check, "reduce0_divergent", KG_F32, N25)->carried, 1);
  ck_assert_int_eq(kg_crec_find(&run.check, "reduce7_shuffle", KG_F32, N25)->carried, 0);
  ck_assert_str_eq(run.check.from, "baselines/nvidia-h200.json");
  ck_assert_msg(strstr(logbuf, "reduce7_shuffle is checked, not carried over from baselines/nvidia-h200.json: "
                               "launches or machine code differ"),
                "%s", logbuf);
  kg_counts c = kg_count_results(g_results, run.n);
  ck_assert_uint_eq(c.carried, 2);
  ck_assert_uint_eq(c.passed, 2);
  kg_crec_free(&run.check), kg_crec_free(&base);
}
END_TEST

/* A baseline keeps its run's record; an update with the same key adds the
 * run's groups to the old ones, another key replaces them, and a run with no
 * record leaves the old record as it was. */
START_TEST(test_baseline_keeps_check_record) {
  kg_run run = new_run();
  add(&run, "reduce0_divergent", KG_F32, N25, KG_PAT_UNIFORM, 1, KG_ST_PASS);
  run.check = rec(HARNESS);
  put(&run.check, "reduce0_divergent", KG_F32, N25, 1, DIGEST_A);
  char err[512] = "";
  ck_assert_msg(kg_baseline_update(g_path, &run, err, sizeof err) == 0, "%s", err);

  kg_crec_free(&run.check);
  run.check = rec(HARNESS);
  put(&run.check, "reduce7_shuffle", KG_F32, N25, 1, DIGEST_B);
  run.check.g[0].carried = 1; /* a run's mark: a baseline does not keep it */
  ck_assert_msg(kg_baseline_update(g_path, &run, err, sizeof err) == 0, "%s", err);
  kg_baseline b;
  ck_assert_msg(kg_baseline_load(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(b.check.on, 1);
  ck_assert_uint_eq(b.check.n, 2);
  ck_assert_int_eq(kg_crec_find(&b.check, "reduce7_shuffle", KG_F32, N25)->carried, 0);
  kg_baseline_free(&b);

  kg_crec_free(&run.check);
  ck_assert_msg(kg_baseline_update(g_path, &run, err, sizeof err) == 0, "%s", err); /* no record */
  ck_assert_msg(kg_baseline_load(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(b.check.n, 2);
  kg_baseline_free(&b);

  run.check = rec(OTHER);
  put(&run.check, "reduce1_strided", KG_F32, N25, 1, DIGEST_A);
  ck_assert_msg(kg_baseline_update(g_path, &run, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_baseline_load(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(b.check.harness, OTHER);
  ck_assert_uint_eq(b.check.n, 1);
  ck_assert_ptr_nonnull(kg_crec_find(&b.check, "reduce1_strided", KG_F32, N25));
  kg_baseline_free(&b);
  kg_crec_free(&run.check);
}
END_TEST

/* A results file keeps carried cases and the run's record; a carried case
 * that did not pass, or one below the groups' sizes, cannot be true. */
START_TEST(test_results_carried_round_trip) {
  kg_run run = new_run();
  add(&run, "reduce0_divergent", KG_F32, N25, KG_PAT_UNIFORM, 0, KG_ST_PASS);
  add(&run, "reduce0_divergent", KG_F32, 1024, KG_PAT_UNIFORM, 0, KG_ST_PASS);
  g_results[0].carried = 1;
  run.check = rec(HARNESS);
  put(&run.check, "reduce0_divergent", KG_F32, N25, 1, DIGEST_A);
  run.check.g[0].carried = 1;
  snprintf(run.check.from, sizeof run.check.from, "baselines/nvidia-h200.json");
  char path[160], err[512] = "";
  snprintf(path, sizeof path, "%s/r.json", g_dir);
  ck_assert_msg(kg_results_write(path, &run, err, sizeof err) == 0, "%s", err);
  kg_run back;
  ck_assert_msg(kg_results_read(path, &back, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(back.results[0].carried + back.results[1].carried, 1);
  ck_assert_int_eq(back.check.on, 1);
  ck_assert_str_eq(back.check.from, "baselines/nvidia-h200.json");
  ck_assert_int_eq(back.check.g[0].carried, 1);
  kg_run_free(&back);

  g_results[1].carried = 1; /* 1024 elements: no group holds it */
  ck_assert_msg(kg_results_write(path, &run, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kg_results_read(path, &back, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "carried is true, yet the case is smaller"), "%s", err);
  g_results[1].carried = 0;
  g_results[0].status = KG_ST_FAIL;
  ck_assert_msg(kg_results_write(path, &run, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kg_results_read(path, &back, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "carried is true, yet the case did not pass"), "%s", err);
  kg_crec_free(&run.check);
}
END_TEST

Suite *make_carry_suite(void) {
  Suite *s = suite_create("carry");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_crec_carries_only_what_was_checked);
  tcase_add_test(core, test_crec_json_round_trip);
  tcase_add_loop_test(core, test_crec_read_refuses, 0, (int)(sizeof k_bad_groups / sizeof k_bad_groups[0]));
  tcase_add_test(core, test_carry_apply_marks_only_covered_cases);
  suite_add_tcase(s, core);
  TCase *files = tcase_create("Files");
  tcase_add_checked_fixture(files, scratch_setup, scratch_teardown);
  tcase_add_test(files, test_baseline_keeps_check_record);
  tcase_add_test(files, test_results_carried_round_trip);
  suite_add_tcase(s, files);
  return s;
}
