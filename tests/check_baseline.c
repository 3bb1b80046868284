/* baseline: GPU slugs, baseline files, and `kgate baseline update`'s refusals and merge. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baseline.h"
#include "varreg.h"
#include "testutil.h"

static char g_dir[64], g_path[128];

static void scratch_setup(void) {
  kgt_mkscratch(g_dir, sizeof g_dir, "baseline");
  snprintf(g_path, sizeof g_path, "%s/nvidia-h200.json", g_dir);
}

static void scratch_teardown(void) { kgt_rmtree(g_dir); }

/* --- runs to build baselines from */

enum { MAXC = 8 };
static kg_case g_cases[MAXC];
static kg_result g_results[MAXC];

static kg_timing tm(double median) {
  return (kg_timing){20, median, median * 0.99, median * 1.01, median * 0.98, 0.003, 0, 1980, 0, 0};
}

static kg_run new_run(const char *gpu) {
  kg_run run = {.cases = g_cases, .results = g_results};
  snprintf(run.meta.dev.name, sizeof run.meta.dev.name, "%s", gpu);
  run.meta.dev.driver_version = 13000;
  snprintf(run.meta.commit, sizeof run.meta.commit, "c0ffee");
  snprintf(run.meta.version, sizeof run.meta.version, "0.1.0");
  snprintf(run.meta.date, sizeof run.meta.date, "2026-11-21T08:30:00Z");
  return run;
}

/* Appends a case; median 0 means not timed (timed is still set when failed). */
static void add(kg_run *run, const char *variant, kg_dtype dt, size_t n, int timed, kg_status st, double median) {
  kgt_add_case(run, MAXC, variant, dt, n, KG_PAT_UNIFORM, timed, st);
  if (median > 0) g_results[run->n - 1].timing = tm(median);
}

static void assert_entry(const kg_baseline *b, size_t i, const char *variant, kg_dtype dt, size_t n, int samples,
                         double median) {
  ck_assert_uint_lt(i, b->n);
  const kg_base_entry *e = &b->entries[i];
  ck_assert_str_eq(e->variant, variant);
  ck_assert_int_eq(e->dtype, dt);
  ck_assert_uint_eq(e->n, n);
  ck_assert_int_eq(e->t.samples, samples);
  ck_assert_double_eq(e->t.median_us, median);
}

/* --- slugs */

static const struct {
  const char *name, *slug;
} k_slugs[] = {
    {"NVIDIA H200", "nvidia-h200"},
    {"NVIDIA H100 80GB HBM3", "nvidia-h100-80gb-hbm3"},
    {"NVIDIA A100-SXM4-80GB", "nvidia-a100-sxm4-80gb"},
    {"  Tesla V100-SXM2-16GB  ", "tesla-v100-sxm2-16gb"},
    {"NVIDIA GeForce RTX 4090", "nvidia-geforce-rtx-4090"},
    {"A__B..c(d)", "a-b-c-d"},
    {"--", ""},
    {"", ""},
};

START_TEST(test_baseline_slug) {
  char out[64];
  kg_gpu_slug(k_slugs[_i].name, out, sizeof out);
  ck_assert_str_eq(out, k_slugs[_i].slug);
}
END_TEST

START_TEST(test_baseline_slug_truncates) {
  char out[16];
  kg_gpu_slug("NVIDIA H200", out, 8); /* "nvidia-h" does not fit: no trailing '-' */
  ck_assert_str_eq(out, "nvidia");
  kg_gpu_slug("NVIDIA H200", out, 9);
  ck_assert_str_eq(out, "nvidia-h");
  kg_gpu_slug("NVIDIA H200", out, 1);
  ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_baseline_same_gpu) {
  kg_device_info a = {.name = "NVIDIA H200", .driver_version = 1}, b = {.name = "NVIDIA H200", .driver_version = 2},
                 c = {.name = "NVIDIA H100 80GB HBM3"};
  ck_assert(kg_same_gpu(&a, &b));
  ck_assert(!kg_same_gpu(&a, &c));
}
END_TEST

/* --- Core: from a run, to a file and back */

START_TEST(test_baseline_from_run_sorted) {
  kg_run run = new_run("NVIDIA H200");
  add(&run, "cub_sum", KG_F32, 4194304, 1, KG_ST_PASS, 100);
  add(&run, "neighbored", KG_F32, 4194304, 1, KG_ST_PASS, 300);
  add(&run, "reduce0_divergent", KG_F32, 4194304, 1, KG_ST_PASS, 400);
  add(&run, "reduce0_divergent", KG_F32, 1024, 1, KG_ST_PASS, 5);
  add(&run, "reduce0_divergent", KG_I32, 4194304, 1, KG_ST_FAIL, 0); /* timed, failed: samples 0 */
  add(&run, "reduce1_strided", KG_F32, 33, 0, KG_ST_PASS, 0);        /* not a perf case */
  kg_baseline b;
  ck_assert_int_eq(kg_baseline_from_run(&run, &b), 0);
  ck_assert_uint_eq(b.n, 5);
  /* registry order (the ladder), then dtype, then n */
  assert_entry(&b, 0, "reduce0_divergent", KG_I32, 4194304, 0, 0);
  assert_entry(&b, 1, "reduce0_divergent", KG_F32, 1024, 20, 5);
  assert_entry(&b, 2, "reduce0_divergent", KG_F32, 4194304, 20, 400);
  assert_entry(&b, 3, "neighbored", KG_F32, 4194304, 20, 300);
  assert_entry(&b, 4, "cub_sum", KG_F32, 4194304, 20, 100);
  ck_assert_str_eq(b.dev.name, "NVIDIA H200");
  ck_assert_str_eq(b.commit, "c0ffee");
  kg_baseline_free(&b);
}
END_TEST

START_TEST(test_baseline_write_load) {
  kg_run run = new_run("NVIDIA H200");
  add(&run, "reduce7_shuffle", KG_BF16, 1000003, 1, KG_ST_PASS, 33.25);
  add(&run, "two_pass", KG_F64, 1 << 25, 1, KG_ST_PASS, 70.5);
  g_results[0].timing.noise = INFINITY;
  kg_baseline a, b;
  char err[512] = "";
  ck_assert_int_eq(kg_baseline_from_run(&run, &a), 0);
  ck_assert_msg(kg_baseline_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_baseline_load(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(b.n, 2);
  for (size_t i = 0; i < 2; i++) {
    const kg_timing *s = &a.entries[i].t, *t = &b.entries[i].t;
    assert_entry(&b, i, a.entries[i].variant, a.entries[i].dtype, a.entries[i].n, s->samples, s->median_us);
    ck_assert(t->q1_us == s->q1_us && t->q3_us == s->q3_us && t->min_us == s->min_us && t->noise == s->noise);
  }
  ck_assert_str_eq(b.dev.name, a.dev.name);
  ck_assert_int_eq(b.dev.driver_version, 13000);
  ck_assert_str_eq(b.commit, "c0ffee");
  ck_assert_str_eq(b.date, "2026-11-21T08:30:00Z");
  /* One entry per line, for readable diffs. */
  char *text = kgt_slurp(g_path);
  ck_assert_ptr_nonnull(strstr(text, "\n{\"variant\":\"reduce7_shuffle\",\"dtype\":\"bf16\",\"n\":1000003,"));
  ck_assert_ptr_nonnull(strstr(text, "\"noise\":null"));
  free(text);
  kg_baseline_free(&a);
  kg_baseline_free(&b);
}
END_TEST

/* A hand-edited file: any order, and variants the registry no longer has (last, by name). */
START_TEST(test_baseline_load_sorts) {
  kgt_spit(g_path, "{\"kind\":\"kgate-baseline\",\"schema_version\":1,\"kgate_commit\":\"x\",\"date\":\"2026-11-21T08:30:00Z\",\"device\":"
               "{\"name\":\"NVIDIA H200\",\"cc_major\":9,\"cc_minor\":0,\"sms\":132,\"l2_bytes\":1,\"mem_bytes\":2,"
               "\"mem_clock_khz\":3,\"bus_width_bits\":4,\"peak_gbps\":4.5,\"roofline_gbps\":null,"
               "\"driver_version\":5,\"runtime_version\":6},\"entries\":["
               "{\"variant\":\"zz_old\",\"dtype\":\"f32\",\"n\":1,\"samples\":3,\"median_us\":1,\"q1_us\":1,"
               "\"q3_us\":1,\"min_us\":1,\"noise\":0},"
               "{\"variant\":\"cub_sum\",\"dtype\":\"f32\",\"n\":1,\"samples\":3,\"median_us\":2,\"q1_us\":1,"
               "\"q3_us\":2,\"min_us\":1,\"noise\":0},"
               "{\"variant\":\"aa_old\",\"dtype\":\"f32\",\"n\":1,\"samples\":3,\"median_us\":3,\"q1_us\":1,"
               "\"q3_us\":3,\"min_us\":1,\"noise\":0},"
               "{\"variant\":\"reduce0_divergent\",\"dtype\":\"f32\",\"n\":1,\"samples\":3,\"median_us\":4,"
               "\"q1_us\":1,\"q3_us\":4,\"min_us\":1,\"noise\":0}]}");
  kg_baseline b;
  char err[512] = "";
  ck_assert_msg(kg_baseline_load(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(b.n, 4);
  assert_entry(&b, 0, "reduce0_divergent", KG_F32, 1, 3, 4);
  assert_entry(&b, 1, "cub_sum", KG_F32, 1, 3, 2);
  assert_entry(&b, 2, "aa_old", KG_F32, 1, 3, 3);
  assert_entry(&b, 3, "zz_old", KG_F32, 1, 3, 1);
  /* null: not measured */
  ck_assert(isnan(b.dev.roofline_gbps) && b.dev.peak_gbps == 4.5 && b.dev.runtime_version == 6);
  kg_baseline_free(&b);
}
END_TEST

/* A results file works as the older side of a comparison: its perf cases. */
START_TEST(test_baseline_load_results_file) {
  kg_run run = new_run("NVIDIA H200");
  add(&run, "reduce1_strided", KG_F32, 33, 0, KG_ST_PASS, 0);
  add(&run, "reduce2_sequential", KG_F32, 4194304, 1, KG_ST_PASS, 250);
  add(&run, "reduce3_first_add", KG_F32, 4194304, 1, KG_ST_ERROR, 0);
  char err[512] = "";
  ck_assert_msg(kg_results_write(g_path, &run, err, sizeof err) == 0, "%s", err);
  kg_baseline b;
  ck_assert_msg(kg_baseline_load(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(b.n, 2);
  assert_entry(&b, 0, "reduce2_sequential", KG_F32, 4194304, 20, 250);
  assert_entry(&b, 1, "reduce3_first_add", KG_F32, 4194304, 0, 0);
  ck_assert_str_eq(b.dev.name, "NVIDIA H200");
  ck_assert_str_eq(b.commit, "c0ffee");
  kg_baseline_free(&b);
}
END_TEST

/* --- Errors of loading */

static const struct {
  const char *text, *message;
} k_bad_files[] = {
    {"{\"kind\":\"kgate-baseline\",", "malformed JSON at line 1"},
    {"[]", "not a JSON object"},
    {"{\"kind\":\"kgate-history\",\"schema_version\":1}", "not a kgate baseline or results file (kind 'kgate-history')"},
    {"{\"schema_version\":1}", "missing field 'kind'"},
    {"{\"kind\":\"kgate-baseline\",\"schema_version\":2}", "schema_version 2 is not supported (this kgate reads 1)"},
    {"{\"kind\":\"kgate-baseline\",\"schema_version\":1,\"device\":{},\"kgate_commit\":\"x\","
     "\"date\":\"2026-11-21T08:30:00Z\","
     "\"entries\":[]}",
     "device: missing field 'name'"},
    {"{\"kind\":\"kgate-results\",\"schema_version\":1}", "missing field 'run'"},
};

START_TEST(test_baseline_load_rejects) {
  kgt_spit(g_path, k_bad_files[_i].text);
  kg_baseline b;
  char err[512] = "";
  ck_assert_int_eq(kg_baseline_load(g_path, &b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, g_path) != NULL, "message '%s' does not name the file", err);
  ck_assert_msg(strstr(err, k_bad_files[_i].message) != NULL, "message '%s' lacks \"%s\"", err,
                k_bad_files[_i].message);
  ck_assert(b.n == 0 && b.entries == NULL);
}
END_TEST

START_TEST(test_baseline_load_bad_entry) {
  kg_run run = new_run("NVIDIA H200");
  add(&run, "cub_sum", KG_F32, 4194304, 1, KG_ST_PASS, 100);
  kg_baseline a, b;
  char err[512] = "";
  ck_assert_int_eq(kg_baseline_from_run(&run, &a), 0);
  ck_assert_int_eq(kg_baseline_write(g_path, &a, err, sizeof err), 0);
  char *text = kgt_slurp(g_path), *at = strstr(text, "\"f32\"");
  memcpy(at, "\"f31\"", 5);
  kgt_spit(g_path, text);
  ck_assert_int_eq(kg_baseline_load(g_path, &b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "entries[0]: unknown dtype 'f31'") != NULL, "%s", err);
  free(text);
  kg_baseline_free(&a);
}
END_TEST

START_TEST(test_baseline_load_missing) {
  kg_baseline b;
  char err[512] = "";
  ck_assert_int_eq(kg_baseline_load(g_path, &b, err, sizeof err), 1);
  ck_assert(b.n == 0 && b.entries == NULL);
}
END_TEST

/* --- update: refusals leave the file byte for byte as it was */

static const char *existing_baseline(const char *gpu) {
  kg_run run = new_run(gpu);
  add(&run, "reduce0_divergent", KG_F32, 1024, 1, KG_ST_PASS, 5);
  add(&run, "reduce0_divergent", KG_F32, 4194304, 1, KG_ST_PASS, 400);
  add(&run, "cub_sum", KG_F32, 4194304, 1, KG_ST_PASS, 100);
  kg_baseline b;
  char err[512] = "";
  ck_assert_int_eq(kg_baseline_from_run(&run, &b), 0);
  snprintf(b.commit, sizeof b.commit, "old");
  ck_assert_msg(kg_baseline_write(g_path, &b, err, sizeof err) == 0, "%s", err);
  kg_baseline_free(&b);
  return kgt_slurp(g_path);
}

static void assert_untouched(const char *before) {
  char *now = kgt_slurp(g_path);
  if (before) ck_assert_str_eq(now, before);
  else ck_assert_ptr_null(now);
  free(now);
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), before ? 1 : 0);
}

START_TEST(test_baseline_update_refuses_failed_run) {
  const char *before = existing_baseline("NVIDIA H200");
  kg_run run = new_run("NVIDIA H200");
  add(&run, "reduce0_divergent", KG_F32, 4194304, 1, KG_ST_PASS, 300);
  add(&run, "reduce1_strided", KG_I64, 65537, 0, KG_ST_FAIL, 0);
  char err[512] = "";
  ck_assert_int_eq(kg_baseline_update(g_path, &run, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "1 case(s) did not pass, first reduce1_strided i64 n=65537 uniform: fail") != NULL, "%s",
                err);
  assert_untouched(before);
  g_results[1].status = KG_ST_ERROR;
  ck_assert_int_eq(kg_baseline_update(g_path, &run, err, sizeof err), -1);
  assert_untouched(before);
  free((void *)before);
  unlink(g_path); /* nor is a new file started */
  ck_assert_int_eq(kg_baseline_update(g_path, &run, err, sizeof err), -1);
  assert_untouched(NULL);
}
END_TEST

START_TEST(test_baseline_update_refuses_other_gpu) {
  const char *before = existing_baseline("NVIDIA H100 80GB HBM3");
  kg_run run = new_run("NVIDIA H200");
  add(&run, "reduce0_divergent", KG_F32, 4194304, 1, KG_ST_PASS, 300);
  char err[512] = "", want[512];
  ck_assert_int_eq(kg_baseline_update(g_path, &run, err, sizeof err), -1);
  snprintf(want, sizeof want, "baseline %s is for NVIDIA H100 80GB HBM3, this run is on NVIDIA H200", g_path);
  ck_assert_str_eq(err, want);
  assert_untouched(before);
  free((void *)before);
}
END_TEST

START_TEST(test_baseline_update_refuses_untimed_run) {
  const char *before = existing_baseline("NVIDIA H200");
  kg_run run = new_run("NVIDIA H200");
  add(&run, "reduce0_divergent", KG_F32, 33, 0, KG_ST_PASS, 0);
  char err[512] = "";
  ck_assert_int_eq(kg_baseline_update(g_path, &run, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "timed no case") != NULL, "%s", err);
  assert_untouched(before);
  free((void *)before);
}
END_TEST

START_TEST(test_baseline_update_refuses_bad_file) {
  static const char *const texts[] = {"{\"kind\":\"kgate-baseline\",\"schema", "{\"kind\":\"kgate-baseline\"}"};
  kg_run run = new_run("NVIDIA H200");
  add(&run, "reduce0_divergent", KG_F32, 4194304, 1, KG_ST_PASS, 300);
  char err[512] = "";
  for (int i = 0; i < 2; i++) {
    kgt_spit(g_path, texts[i]);
    ck_assert_int_eq(kg_baseline_update(g_path, &run, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "not updating the baseline: ", 27) == 0 && strstr(err, g_path), "%s", err);
    assert_untouched(texts[i]);
  }
  /* Nor is a results file overwritten with a baseline. */
  ck_assert_int_eq(kg_results_write(g_path, &run, err, sizeof err), 0);
  char *before = kgt_slurp(g_path);
  ck_assert_int_eq(kg_baseline_update(g_path, &run, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "is a results file") != NULL, "%s", err);
  assert_untouched(before);
  free(before);
}
END_TEST

/* A FIFO as the baseline: refused at once, still a FIFO. */
START_TEST(test_baseline_update_refuses_fifo) {
  ck_assert_int_eq(mkfifo(g_path, 0600), 0);
  kg_run run = new_run("NVIDIA H200");
  add(&run, "reduce0_divergent", KG_F32, 4194304, 1, KG_ST_PASS, 300);
  char err[512] = "", want[256];
  ck_assert_int_eq(kg_baseline_update(g_path, &run, err, sizeof err), -1);
  snprintf(want, sizeof want, "not updating the baseline: cannot read %s: it is a FIFO, not a regular file", g_path);
  ck_assert_str_eq(err, want);
  struct stat st;
  ck_assert_int_eq(lstat(g_path, &st), 0);
  ck_assert(S_ISFIFO(st.st_mode));
}
END_TEST

/* --- update: the merge */

START_TEST(test_baseline_update_merges) {
  free((void *)existing_baseline("NVIDIA H200"));
  kg_run run = new_run("NVIDIA H200");
  run.meta.dev.driver_version = 13010;
  snprintf(run.meta.commit, sizeof run.meta.commit, "newcommit");
  snprintf(run.meta.date, sizeof run.meta.date, "2026-12-01T00:00:00Z");
  add(&run, "reduce0_divergent", KG_F32, 4194304, 1, KG_ST_PASS, 350); /* replaces 400 */
  add(&run, "reduce7_shuffle", KG_F32, 4194304, 1, KG_ST_PASS, 110);   /* new */
  add(&run, "reduce1_strided", KG_F32, 33, 0, KG_ST_PASS, 0);          /* not a perf case */
  add(&run, "neighbored", KG_F16, 1000, 0, KG_ST_UNSUPPORTED, 0);
  char err[512] = "";
  ck_assert_msg(kg_baseline_update(g_path, &run, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), 1);
  kg_baseline b;
  ck_assert_msg(kg_baseline_load(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(b.n, 4);
  assert_entry(&b, 0, "reduce0_divergent", KG_F32, 1024, 20, 5); /* not covered: survives */
  assert_entry(&b, 1, "reduce0_divergent", KG_F32, 4194304, 20, 350);
  assert_entry(&b, 2, "reduce7_shuffle", KG_F32, 4194304, 20, 110);
  assert_entry(&b, 3, "cub_sum", KG_F32, 4194304, 20, 100);
  ck_assert_int_eq(b.dev.driver_version, 13010);
  ck_assert_str_eq(b.commit, "newcommit");
  ck_assert_str_eq(b.date, "2026-12-01T00:00:00Z");
  kg_baseline_free(&b);
}
END_TEST

START_TEST(test_baseline_update_creates) {
  kg_run run = new_run("NVIDIA H200");
  add(&run, "cub_sum", KG_F64, 1 << 20, 1, KG_ST_PASS, 42);
  char err[512] = "";
  ck_assert_msg(kg_baseline_update(g_path, &run, err, sizeof err) == 0, "%s", err);
  kg_baseline b;
  ck_assert_int_eq(kg_baseline_load(g_path, &b, err, sizeof err), 0);
  ck_assert_uint_eq(b.n, 1);
  assert_entry(&b, 0, "cub_sum", KG_F64, 1 << 20, 20, 42);
  kg_baseline_free(&b);
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), 1);
}
END_TEST

/* --- the writers' lock: two updates side by side */

/* Two shards (disjoint cases) updating g_path at the same moment; 0 when both
 * exited 0. */
static int update_side_by_side(void) {
  int go[2];
  ck_assert_int_eq(pipe(go), 0);
  pid_t kids[2];
  for (int k = 0; k < 2; k++) {
    kids[k] = fork();
    ck_assert_int_ge(kids[k], 0);
    if (kids[k] == 0) {
      char c, err[512];
      close(go[1]);
      if (read(go[0], &c, 1) != 0) _exit(9);
      kg_run run = new_run("NVIDIA H200");
      add(&run, k ? "reduce7_shuffle" : "reduce0_divergent", KG_F32, 4194304, 1, KG_ST_PASS, 100 + k);
      _exit(kg_baseline_update(g_path, &run, err, sizeof err) == 0 ? 0 : 1);
    }
  }
  close(go[0]);
  close(go[1]);
  int bad = 0;
  for (int k = 0; k < 2; k++) {
    int st;
    ck_assert_int_eq(waitpid(kids[k], &st, 0), kids[k]);
    bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
  }
  return bad ? -1 : 0;
}

/* R rounds of two shards updating one baseline at once (every other round
 * from no file, else over a baseline holding a third case): both shards and
 * the old case are there afterwards. KGATE_CONCURRENT_ROUNDS sets R. */
START_TEST(test_baseline_update_concurrent) {
  const char *env = getenv("KGATE_CONCURRENT_ROUNDS");
  int rounds = env ? atoi(env) : 40, lost = 0, failed = 0;
  for (int r = 0; r < rounds; r++) {
    unlink(g_path);
    if (r % 2) free((void *)existing_baseline("NVIDIA H200"));
    failed += update_side_by_side() != 0;
    kg_baseline b;
    char err[512] = "";
    ck_assert_msg(kg_baseline_load(g_path, &b, err, sizeof err) == 0, "%s", err);
    kg_base_entry k0 = {.variant = "reduce0_divergent", .dtype = KG_F32, .n = 4194304},
                  k7 = {.variant = "reduce7_shuffle", .dtype = KG_F32, .n = 4194304},
                  kc = {.variant = "cub_sum", .dtype = KG_F32, .n = 4194304};
    int have = 0;
    for (size_t i = 0; i < b.n; i++) {
      const kg_base_entry *e = &b.entries[i];
      for (int k = 0; k < 3; k++) {
        const kg_base_entry *want = k == 0 ? &k0 : k == 1 ? &k7 : &kc;
        if (!strcmp(e->variant, want->variant) && e->dtype == want->dtype && e->n == want->n) have |= 1 << k;
      }
    }
    lost += !(have & 1) + !(have & 2) + (r % 2 && !(have & 4));
    kg_baseline_free(&b);
  }
  fprintf(stderr, "baseline update side by side: %d rounds of 2 shards, %d shards lost, %d failed\n", rounds, lost,
          failed);
  ck_assert_int_eq(lost, 0);
  ck_assert_int_eq(failed, 0);
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), 1);
}
END_TEST

/* A baseline reached through a symbolic link (a shared baselines folder):
 * the link stays, the file it names is updated, its mode kept. */
START_TEST(test_baseline_update_through_symlink) {
  char real[160];
  snprintf(real, sizeof real, "%s/shared.json", g_dir);
  ck_assert_int_eq(symlink("shared.json", g_path), 0);
  free((void *)existing_baseline("NVIDIA H200"));
  ck_assert_int_eq(chmod(real, 0640), 0);
  kg_run run = new_run("NVIDIA H200");
  add(&run, "reduce7_shuffle", KG_F32, 4194304, 1, KG_ST_PASS, 110);
  char err[512] = "";
  ck_assert_msg(kg_baseline_update(g_path, &run, err, sizeof err) == 0, "%s", err);
  struct stat st;
  ck_assert_int_eq(lstat(g_path, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_int_eq(stat(real, &st), 0);
  ck_assert_int_eq(st.st_mode & 07777, 0640);
  kg_baseline b;
  ck_assert_int_eq(kg_baseline_load(real, &b, err, sizeof err), 0);
  ck_assert_uint_eq(b.n, 4);
  kg_baseline_free(&b);
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), 2);
}
END_TEST

#define N(a) (int)(sizeof a / sizeof a[0])

Suite *make_baseline_suite(void) {
  Suite *s = suite_create("baseline");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, scratch_setup, scratch_teardown);
  tcase_add_loop_test(core, test_baseline_slug, 0, N(k_slugs));
  tcase_add_test(core, test_baseline_same_gpu);
  tcase_add_test(core, test_baseline_from_run_sorted);
  tcase_add_test(core, test_baseline_write_load);
  tcase_add_test(core, test_baseline_load_sorts);
  tcase_add_test(core, test_baseline_load_results_file);
  tcase_add_test(core, test_baseline_update_merges);
  tcase_add_test(core, test_baseline_update_creates);
  tcase_add_test(core, test_baseline_update_through_symlink);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_checked_fixture(limits, scratch_setup, scratch_teardown);
  tcase_add_test(limits, test_baseline_slug_truncates);
  tcase_add_test(limits, test_baseline_load_missing);
  tcase_set_timeout(limits, 300);
  tcase_add_test(limits, test_baseline_update_concurrent);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, scratch_setup, scratch_teardown);
  tcase_add_loop_test(errors, test_baseline_load_rejects, 0, N(k_bad_files));
  tcase_add_test(errors, test_baseline_load_bad_entry);
  tcase_add_test(errors, test_baseline_update_refuses_failed_run);
  tcase_add_test(errors, test_baseline_update_refuses_other_gpu);
  tcase_add_test(errors, test_baseline_update_refuses_untimed_run);
  tcase_add_test(errors, test_baseline_update_refuses_bad_file);
  tcase_add_test(errors, test_baseline_update_refuses_fifo);
  suite_add_tcase(s, errors);
  return s;
}
