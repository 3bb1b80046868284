/* merge: shards joined back into the whole run; what it refuses. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "plan.h"
#include "results.h"
#include "testutil.h"

static char g_dir[256];

static void setup(void) { kgt_mkscratch(g_dir, sizeof g_dir, "merge"); }
static void teardown(void) { kgt_rmtree(g_dir); }

/* A small whole run: every case passed, "got" names the case. */
static void whole_run(kg_run *run) {
  static const size_t sizes[] = {1, 2, 33, 1000};
  kg_plan_opts o = {"cub_sum,two_pass,reduce0_divergent", "i32,f32", NULL, sizes, 4, NULL, 0, 0};
  char err[256];
  memset(run, 0, sizeof *run);
  ck_assert_int_eq(kg_plan_build(&o, &run->cases, &run->n, err, sizeof err), 0);
  run->results = calloc(run->n, sizeof *run->results);
  for (size_t i = 0; i < run->n; i++) {
    run->results[i].status = KG_ST_PASS;
    run->results[i].device = (int)(i % 2);
    snprintf(run->results[i].got, sizeof run->results[i].got, "%zu", i);
  }
  kgt_stamp(&run->meta, "abc123");
  run->meta.dev = kgt_h200();
  run->meta.seed = 1;
  run->meta.repeats = 3;
  run->meta.wall_s = 10;
}

/* Writes shard i/n of run into DIR/name. */
static void write_shard(const kg_run *whole, unsigned i, unsigned n, const char *name, double wall) {
  kg_run s = *whole;
  s.cases = malloc(whole->n * sizeof *s.cases);
  s.results = malloc(whole->n * sizeof *s.results);
  size_t k = 0;
  size_t *group = malloc(whole->n * sizeof *group);
  kg_plan_groups(whole->cases, whole->n, group);
  for (size_t c = 0; c < whole->n; c++)
    if (group[c] % n == i - 1) s.cases[k] = whole->cases[c], s.results[k++] = whole->results[c];
  s.n = k;
  s.meta.wall_s = wall;
  snprintf(s.meta.shard, sizeof s.meta.shard, "%u/%u", i, n);
  char path[512], err[256];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  ck_assert_msg(kg_results_write(path, &s, err, sizeof err) == 0, "%s", err);
  free(group);
  kg_run_free(&s);
}

static int merge(const char *a, const char *b, kg_run *out, char *err, size_t errlen) {
  char pa[512], pb[512];
  snprintf(pa, sizeof pa, "%s/%s", g_dir, a);
  snprintf(pb, sizeof pb, "%s/%s", g_dir, b);
  const char *paths[] = {pa, pb};
  return kg_merge_runs(paths, 2, out, err, errlen);
}

START_TEST(test_merge_round_trip) {
  kg_run whole, merged, reread;
  whole_run(&whole);
  write_shard(&whole, 2, 2, "b.json", 12); /* the order of the files does not matter */
  write_shard(&whole, 1, 2, "a.json", 11);
  char err[512], path[512];
  ck_assert_msg(merge("b.json", "a.json", &merged, err, sizeof err) == 0, "%s", err);
  snprintf(path, sizeof path, "%s/all.json", g_dir);
  ck_assert_int_eq(kg_results_write(path, &merged, err, sizeof err), 0);
  ck_assert_msg(kg_results_read(path, &reread, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(reread.n, whole.n);
  for (size_t i = 0; i < whole.n; i++) {
    const kg_case *x = &reread.cases[i], *y = &whole.cases[i];
    ck_assert(x->variant == y->variant && x->dtype == y->dtype && x->n == y->n && x->pattern == y->pattern &&
              x->supported == y->supported && x->timed == y->timed);
    ck_assert_int_eq(reread.results[i].status, whole.results[i].status);
    ck_assert_str_eq(reread.results[i].got, whole.results[i].got);
    ck_assert_int_eq(reread.results[i].device, whole.results[i].device);
  }
  ck_assert_double_eq(reread.meta.wall_s, 12); /* the longest shard */
  ck_assert_str_eq(reread.meta.shard, "");
  ck_assert_str_eq(reread.meta.commit, "abc123");
  kg_run_free(&whole);
  kg_run_free(&merged);
  kg_run_free(&reread);
}
END_TEST

START_TEST(test_merge_shard_recorded) {
  kg_run whole, back;
  whole_run(&whole);
  write_shard(&whole, 1, 3, "a.json", 1);
  char path[512], err[256];
  snprintf(path, sizeof path, "%s/a.json", g_dir);
  char *text = kgt_slurp(path);
  ck_assert_ptr_nonnull(strstr(text, "\"shard\":\"1/3\""));
  free(text);
  ck_assert_int_eq(kg_results_read(path, &back, err, sizeof err), 0);
  ck_assert_str_eq(back.meta.shard, "1/3");
  kg_run_free(&back);
  kg_run_free(&whole);
}
END_TEST

START_TEST(test_merge_refuses_duplicate) {
  kg_run whole, out;
  whole_run(&whole);
  write_shard(&whole, 1, 2, "a.json", 1);
  write_shard(&whole, 1, 2, "b.json", 1);
  char err[512] = "";
  ck_assert_int_eq(merge("a.json", "b.json", &out, err, sizeof err), -1);
  char want[1200];
  snprintf(want, sizeof want, "is in both %s/a.json and %s/b.json: refusing to merge", g_dir, g_dir);
  ck_assert_msg(strstr(err, want) != NULL, "%s", err);
  ck_assert_ptr_null(strchr(err, '\n'));
  kg_run_free(&whole);
}
END_TEST

/* A case twice inside one file is that file's fault: named as such, not as
 * "in more than one file" (the old message, which blamed the merge). */
START_TEST(test_merge_refuses_duplicate_within_file) {
  kg_run whole, out;
  whole_run(&whole);
  write_shard(&whole, 2, 2, "b.json", 1);
  whole.cases[1] = whole.cases[0]; /* cases[1] is now cases[0] again */
  write_shard(&whole, 1, 2, "a.json", 1);
  char err[512] = "", path[512];
  snprintf(path, sizeof path, "%s/a.json", g_dir);
  ck_assert_int_eq(merge("a.json", "b.json", &out, err, sizeof err), -1);
  ck_assert_msg(strncmp(err, path, strlen(path)) == 0, "'%s' does not start with %s", err, path);
  ck_assert_msg(strstr(err, ": cases[1] (reduce0_divergent i32 1 exact): the same case as cases[0]") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "both") == NULL && strstr(err, "more than one") == NULL, "%s", err);
  ck_assert_ptr_null(strchr(err, '\n'));
  kg_run_free(&whole);
}
END_TEST

static const struct {
  const char *what, *message;
} k_mismatch[] = {
    {"version", "different kgate_version"},
    {"commit", "different kgate_commit"},
    {"gpu", "different GPU model"},
    {"seed", "different seed"},
};

START_TEST(test_merge_refuses_mismatch) {
  kg_run whole, out;
  whole_run(&whole);
  write_shard(&whole, 1, 2, "a.json", 1);
  const char *what = k_mismatch[_i].what;
  if (!strcmp(what, "version")) snprintf(whole.meta.version, sizeof whole.meta.version, "0.2.0");
  if (!strcmp(what, "commit")) snprintf(whole.meta.commit, sizeof whole.meta.commit, "def456");
  if (!strcmp(what, "gpu")) snprintf(whole.meta.dev.name, sizeof whole.meta.dev.name, "NVIDIA H100 80GB HBM3");
  if (!strcmp(what, "seed")) whole.meta.seed = 2;
  write_shard(&whole, 2, 2, "b.json", 1);
  char err[512] = "";
  ck_assert_int_eq(merge("a.json", "b.json", &out, err, sizeof err), -1);
  ck_assert_msg(strstr(err, k_mismatch[_i].message) != NULL, "'%s' lacks '%s'", err, k_mismatch[_i].message);
  kg_run_free(&whole);
}
END_TEST

/* Shards of one gate come from one CI run: another run id, or one shard
 * with an id and one without, is refused naming both files and both ids;
 * shards of one run merge, every runner named once. */
START_TEST(test_merge_provenance) {
  kg_run whole, out;
  whole_run(&whole);
  whole.meta.prov = (kg_provenance){.run_id = 1234, .run_attempt = 1, .runner = "gpu-a", .repository = "acme/kgate"};
  write_shard(&whole, 1, 2, "a.json", 1);
  snprintf(whole.meta.prov.runner, sizeof whole.meta.prov.runner, "gpu-b");
  write_shard(&whole, 2, 2, "b.json", 1);
  char err[1024] = "", want[1400];
  ck_assert_msg(merge("a.json", "b.json", &out, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(out.meta.prov.run_id, 1234);
  ck_assert_str_eq(out.meta.prov.runner, "gpu-a,gpu-b");
  ck_assert_str_eq(out.meta.prov.repository, "acme/kgate");
  kg_run_free(&out);
  static const long long other[] = {1235, 0};
  for (size_t k = 0; k < 2; k++) {
    whole.meta.prov.run_id = other[k];
    write_shard(&whole, 2, 2, "c.json", 1);
    ck_assert_int_eq(merge("a.json", "c.json", &out, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s/a.json and %s/c.json come from different CI runs (run_id 1234 and %lld; 0: none "
             "recorded): refusing to merge", g_dir, g_dir, other[k]);
    ck_assert_str_eq(err, want);
  }
  kg_run_free(&whole);
}
END_TEST

/* The command: exit 2 with one line on a refusal, 0 and an ordinary results file otherwise. */
/* A paired run's shards: each carries its cells; the merge joins them and
 * refuses a paired file beside an unpaired one, and a cell twice. */
static void write_paired(const kg_run *whole, unsigned i, const char *name, int paired, const char *variant) {
  kg_run s = *whole;
  s.cases = malloc(whole->n * sizeof *s.cases);
  s.results = malloc(whole->n * sizeof *s.results);
  size_t k = 0, *group = malloc(whole->n * sizeof *group);
  kg_plan_groups(whole->cases, whole->n, group);
  for (size_t c = 0; c < whole->n; c++)
    if (group[c] % 2 == i - 1) s.cases[k] = whole->cases[c], s.results[k++] = whole->results[c];
  s.n = k;
  snprintf(s.meta.shard, sizeof s.meta.shard, "%u/2", i);
  s.pairs = calloc(1, sizeof *s.pairs);
  if (paired) {
    s.pair = (kg_pair_meta){.on = 1, .confidence = 0.99, .copies = 4, .quads = 16, .rounds = 2, .max_rounds = 6};
    snprintf(s.pair.base_name, sizeof s.pair.base_name, "kgate");
    s.npairs = 1;
    kg_pair_cell *c = &s.pairs[0];
    snprintf(c->variant, sizeof c->variant, "%s", variant);
    c->dtype = KG_F32, c->n = (size_t)1 << 22, c->min_effect = 0.01, c->rounds = 2;
    c->stat = (kg_pair_stat){8, 128, i == 1 ? 1.03 : 1.0, i == 1 ? 1.02 : 0.995, i == 1 ? 1.04 : 1.005, 10, 9.7,
                             i == 1 ? KG_PV_SLOWER : KG_PV_SAME};
  }
  char path[512], err[256];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  ck_assert_msg(kg_results_write(path, &s, err, sizeof err) == 0, "%s", err);
  free(group);
  kg_run_free(&s);
}

START_TEST(test_merge_paired_cells) {
  kg_run whole, out;
  char err[512];
  whole_run(&whole);
  write_paired(&whole, 1, "p1.json", 1, "cub_sum");
  write_paired(&whole, 2, "p2.json", 1, "two_pass");
  ck_assert_msg(merge("p2.json", "p1.json", &out, err, sizeof err) == 0, "%s", err);
  ck_assert(out.pair.on);
  ck_assert_uint_eq(out.npairs, 2);
  ck_assert_str_eq(out.pairs[0].variant, "cub_sum"); /* SLOWER first */
  ck_assert_int_eq(out.pairs[0].stat.verdict, KG_PV_SLOWER);
  ck_assert_double_eq_tol(out.pairs[0].stat.lo, 1.02, 1e-12);
  kg_run_free(&out);
  write_paired(&whole, 2, "u2.json", 0, NULL);
  ck_assert_int_eq(merge("p1.json", "u2.json", &out, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "is paired and"));
  write_paired(&whole, 2, "d2.json", 1, "cub_sum");
  ck_assert_int_eq(merge("p1.json", "d2.json", &out, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "paired cell cub_sum f32"));
  kg_run_free(&whole);
}
END_TEST

START_TEST(test_merge_command) {
  kg_run whole;
  whole_run(&whole);
  write_shard(&whole, 1, 2, "a.json", 1);
  write_shard(&whole, 2, 2, "b.json", 1);
  char a[512], b[512], all[512];
  snprintf(a, sizeof a, "%s/a.json", g_dir);
  snprintf(b, sizeof b, "%s/b.json", g_dir);
  snprintf(all, sizeof all, "%s/all.json", g_dir);
  ck_assert_int_eq(kgt_run_cli((char *[]){"merge", a, b, "-o", all, NULL}), 0);
  ck_assert_int_eq(kgt_run_cli((char *[]){"compare", all, all, NULL}), 0);
  ck_assert_int_eq(kgt_run_cli((char *[]){"merge", a, a, "-o", all, NULL}), 2);
  kg_run_free(&whole);
}
END_TEST

Suite *make_merge_suite(void) {
  Suite *s = suite_create("merge");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, setup, teardown);
  tcase_add_test(core, test_merge_round_trip);
  tcase_add_test(core, test_merge_shard_recorded);
  tcase_add_test(core, test_merge_command);
  tcase_add_test(core, test_merge_paired_cells);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, setup, teardown);
  tcase_add_test(errors, test_merge_refuses_duplicate);
  tcase_add_test(errors, test_merge_refuses_duplicate_within_file);
  tcase_add_loop_test(errors, test_merge_refuses_mismatch, 0, sizeof k_mismatch / sizeof k_mismatch[0]);
  tcase_add_test(errors, test_merge_provenance);
  suite_add_tcase(s, errors);
  return s;
}
