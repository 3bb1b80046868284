/* The paired gate's plan: which cells of a run are paired with the base,
 * and which are NEW, UNKNOWN or MISSING; the order of the verdict table. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairrun.h"
#include "varreg.h"

#define N22 ((size_t)1 << 22)

static kg_case g_cases[4];
static kg_result g_results[4];

/* A run: reduce7 f32 passed and timed, cub_sum f32 passed and timed,
 * reduce0 f32 timed but failed, reduce7 f32 at 33 untimed. */
static kg_run make_run(void) {
  int r7 = kg_variant_find("reduce7_shuffle"), cub = kg_variant_find("cub_sum"), r0 = kg_variant_find("reduce0_divergent");
  g_cases[0] = (kg_case){r7, KG_F32, N22, KG_PAT_UNIFORM, 1, 1};
  g_cases[1] = (kg_case){cub, KG_F32, N22, KG_PAT_UNIFORM, 1, 1};
  g_cases[2] = (kg_case){r0, KG_F32, N22, KG_PAT_UNIFORM, 1, 1};
  g_cases[3] = (kg_case){r7, KG_F32, 33, KG_PAT_UNIFORM, 1, 0};
  memset(g_results, 0, sizeof g_results);
  for (int i = 0; i < 4; i++) g_results[i].status = KG_ST_PASS;
  g_results[0].timing.samples = g_results[1].timing.samples = 10;
  g_results[2].status = KG_ST_FAIL;
  kg_run run = {0};
  run.n = 4, run.cases = g_cases, run.results = g_results;
  return run;
}

/* The base: reduce7 (f32 among its dtypes), reduce0, a mutant, and a
 * variant this kgate does not have; no cub_sum. */
static kg_modvariant g_base_v[] = {{.name = "reduce7_shuffle", .dtypes = 0x3f},
                                   {.name = "reduce0_divergent", .dtypes = 0x3f},
                                   {.name = "mut_none", .dtypes = 0x04},
                                   {.name = "team_only", .dtypes = 0x04}};

static kg_modinfo base_info(void) {
  kg_modinfo mi = {0};
  mi.n = 4, mi.v = g_base_v;
  return mi;
}

static const kg_pair_cell *find(const kg_pair_cell *c, size_t n, const char *variant) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(c[i].variant, variant)) return &c[i];
  return NULL;
}

START_TEST(test_pair_plan_outcomes) {
  kg_run run = make_run();
  kg_modinfo base = base_info();
  kg_pair_cell *cells;
  kg_pair_job *jobs;
  size_t ncells, njobs;
  ck_assert_int_eq(kg_pair_plan(&run, &base, 1, &cells, &ncells, &jobs, &njobs), 0);
  ck_assert_uint_eq(njobs, 1); /* only reduce7: passed, timed, in the base */
  ck_assert_int_eq(jobs[0].variant, kg_variant_find("reduce7_shuffle"));
  ck_assert_uint_eq(jobs[0].n, N22);
  ck_assert_str_eq(cells[0].variant, "reduce7_shuffle");
  ck_assert_int_eq(cells[0].stat.verdict, KG_PV_UNDECIDED);
  ck_assert_int_eq(find(cells, ncells, "cub_sum")->stat.verdict, KG_PV_NEW);
  const kg_pair_cell *u = find(cells, ncells, "reduce0_divergent");
  ck_assert_int_eq(u->stat.verdict, KG_PV_UNKNOWN);
  ck_assert_ptr_nonnull(strstr(u->message, "fail"));
  const kg_pair_cell *m = find(cells, ncells, "team_only");
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(m->stat.verdict, KG_PV_MISSING);
  ck_assert_uint_eq(m->n, N22); /* at the size the run timed for f32 */
  ck_assert_ptr_null(find(cells, ncells, "mut_none")); /* a base's mutant is kgate's too */
  ck_assert_uint_eq(ncells, 4);
  free(cells);
  free(jobs);
}
END_TEST

/* With --variant, base variants outside the selection are not MISSING. */
START_TEST(test_pair_plan_selection_no_missing) {
  kg_run run = make_run();
  kg_modinfo base = base_info();
  kg_pair_cell *cells;
  kg_pair_job *jobs;
  size_t ncells, njobs;
  ck_assert_int_eq(kg_pair_plan(&run, &base, 0, &cells, &ncells, &jobs, &njobs), 0);
  ck_assert_ptr_null(find(cells, ncells, "team_only"));
  ck_assert_uint_eq(ncells, 3);
  free(cells);
  free(jobs);
}
END_TEST

START_TEST(test_pair_sort_regressions_first) {
  kg_pair_cell c[5];
  memset(c, 0, sizeof c);
  const kg_pverdict v[5] = {KG_PV_SAME, KG_PV_FASTER, KG_PV_SLOWER, KG_PV_UNDECIDED, KG_PV_SLOWER};
  const char *names[5] = {"a", "b", "d", "c", "b"};
  for (int i = 0; i < 5; i++) c[i].stat.verdict = v[i], snprintf(c[i].variant, sizeof c[i].variant, "%s", names[i]);
  kg_pair_sort(c, 5);
  ck_assert_int_eq(c[0].stat.verdict, KG_PV_SLOWER);
  ck_assert_str_eq(c[0].variant, "b");
  ck_assert_str_eq(c[1].variant, "d");
  ck_assert_int_eq(c[2].stat.verdict, KG_PV_UNDECIDED);
  ck_assert_int_eq(c[3].stat.verdict, KG_PV_FASTER);
  ck_assert_int_eq(c[4].stat.verdict, KG_PV_SAME);
  size_t count[KG_NPVERDICTS];
  kg_pair_count(c, 5, count);
  ck_assert_uint_eq(count[KG_PV_SLOWER], 2);
  ck_assert_uint_eq(count[KG_PV_SAME], 1);
  ck_assert_uint_eq(count[KG_PV_NEW], 0);
}
END_TEST

/* kg_pair_sort's order is the reports' (kg_pverdict_order): UNCHANGED
 * after SAME, last; and it is counted like any other verdict. */
START_TEST(test_pair_sort_unchanged_last) {
  kg_pair_cell c[KG_NPVERDICTS];
  memset(c, 0, sizeof c);
  for (int i = 0; i < KG_NPVERDICTS; i++) c[i].stat.verdict = (kg_pverdict)(KG_NPVERDICTS - 1 - i);
  kg_pair_sort(c, KG_NPVERDICTS);
  for (int k = 0; k < KG_NPVERDICTS; k++)
    ck_assert_msg(c[k].stat.verdict == kg_pverdict_order[k], "place %d: %s, want %s", k,
                  kg_pverdict_name(c[k].stat.verdict), kg_pverdict_name(kg_pverdict_order[k]));
  ck_assert_int_eq(c[KG_NPVERDICTS - 1].stat.verdict, KG_PV_UNCHANGED);
  size_t count[KG_NPVERDICTS];
  kg_pair_count(c, KG_NPVERDICTS, count);
  ck_assert_uint_eq(count[KG_PV_UNCHANGED], 1);
}
END_TEST

/* One timing pass: a passed timed case with no absolute samples (the check
 * left it to the paired rounds) is paired, not UNKNOWN. */
START_TEST(test_pair_plan_untimed_pass) {
  kg_run run = make_run();
  memset(&g_results[0].timing, 0, sizeof g_results[0].timing);
  kg_modinfo base = base_info();
  kg_pair_cell *cells;
  kg_pair_job *jobs;
  size_t ncells, njobs;
  ck_assert_int_eq(kg_pair_plan(&run, &base, 0, &cells, &ncells, &jobs, &njobs), 0);
  ck_assert_uint_eq(njobs, 1);
  ck_assert_int_eq(jobs[0].variant, kg_variant_find("reduce7_shuffle"));
  ck_assert(kg_pair_in_base(&base, kg_variant_find("reduce7_shuffle"), KG_F32));
  ck_assert(!kg_pair_in_base(&base, kg_variant_find("cub_sum"), KG_F32));
  free(cells);
  free(jobs);
}
END_TEST

START_TEST(test_pair_combine_timing) {
  kg_timing t[3] = {
      {.samples = 100, .median_us = 10, .q1_us = 9, .q3_us = 11, .min_us = 8, .noise = 0.01, .sm_clock_mhz = 1980, .set_aside = 2},
      {.samples = 50, .median_us = 12, .q1_us = 11.5, .q3_us = 15, .min_us = 7, .noise = 0.03, .sm_clock_mhz = 1980},
      {.samples = 80, .median_us = 11, .q1_us = 10, .q3_us = 12, .min_us = 9, .noise = 0.02, .sm_clock_mhz = 1980},
  };
  kg_timing c = kg_pair_combine_timing(t, 3);
  ck_assert_int_eq(c.samples, 230);
  ck_assert_int_eq(c.set_aside, 2);
  ck_assert_double_eq_tol(c.median_us, 11, 1e-12);
  ck_assert_double_eq_tol(c.q1_us, 10, 1e-12);
  ck_assert_double_eq_tol(c.q3_us, 12, 1e-12);
  ck_assert_double_eq_tol(c.min_us, 7, 1e-12);
  ck_assert_double_eq_tol(c.noise, 0.02 / sqrt(3.0), 1e-12);
  ck_assert_double_eq_tol(c.sm_clock_mhz, 1980, 1e-9);
  ck_assert(c.min_us <= c.q1_us && c.q1_us <= c.median_us && c.median_us <= c.q3_us);
  ck_assert_int_eq(kg_pair_combine_timing(t, 0).samples, 0);
  kg_timing one = kg_pair_combine_timing(&t[1], 1);
  ck_assert_double_eq_tol(one.median_us, 12, 1e-12);
  ck_assert_double_eq_tol(one.noise, 0.03, 1e-12);
}
END_TEST

/* The proven jobs move behind the others, their cells with them, each side in its order. */
START_TEST(test_pair_partition) {
  kg_pair_job jobs[5];
  kg_pair_cell cells[5];
  for (int j = 0; j < 5; j++) {
    jobs[j] = (kg_pair_job){.variant = j, .dtype = KG_I32, .n = (size_t)j + 1};
    memset(&cells[j], 0, sizeof cells[j]);
    snprintf(cells[j].variant, sizeof cells[j].variant, "v%d", j);
  }
  const int proven[5] = {1, 0, 1, 0, 0};
  ck_assert_uint_eq(kg_pair_partition(jobs, cells, 5, proven), 3);
  static const int k_order[5] = {1, 3, 4, 0, 2};
  for (int j = 0; j < 5; j++) {
    ck_assert_int_eq(jobs[j].variant, k_order[j]);
    ck_assert_uint_eq(jobs[j].n, (size_t)k_order[j] + 1);
    char want[8];
    snprintf(want, sizeof want, "v%d", k_order[j]);
    ck_assert_str_eq(cells[j].variant, want);
  }
  const int none[1] = {0};
  ck_assert_uint_eq(kg_pair_partition(jobs, cells, 1, none), 1);
}
END_TEST

/* The rounds' head on the run: passed, its timing and guard go to the timed
 * case of its cell (not to the untimed case at 33, not to another
 * variant's); wrong after timing, the case fails with the message, its
 * timing dropped and its guard kept. */
START_TEST(test_pair_apply_head) {
  kg_run run = make_run();
  int r7 = kg_variant_find("reduce7_shuffle");
  kg_pair_job job = {.variant = r7, .base_variant = r7, .dtype = KG_F32, .n = N22};
  kg_pair_head h = {.timing = {.samples = 64, .median_us = 5}, .guard = {.on = 1, .rechecked = 40},
                    .status = KG_ST_PASS};
  kg_pair_apply_head(&run, &job, &h);
  ck_assert(g_results[0].status == KG_ST_PASS && g_results[0].timing.median_us == 5);
  ck_assert(g_results[0].guard.on && g_results[0].guard.rechecked == 40);
  ck_assert(!g_results[1].guard.on && g_results[1].timing.median_us == 0);
  ck_assert(!g_results[3].guard.on && g_results[3].timing.samples == 0);
  h.status = KG_ST_FAIL, h.fail = KG_FK_WRONG_AFTER_TIMING;
  snprintf(h.message, sizeof h.message, "paired, copy 2, after timing, sample 5 of 128: got 1, expected 2");
  kg_pair_apply_head(&run, &job, &h);
  ck_assert_int_eq(g_results[0].status, KG_ST_FAIL);
  ck_assert_int_eq(g_results[0].fail, KG_FK_WRONG_AFTER_TIMING);
  ck_assert_str_eq(g_results[0].message, h.message);
  ck_assert(g_results[0].timing.samples == 0 && g_results[0].guard.on);
  ck_assert_int_eq(g_results[1].status, KG_ST_PASS);
}
END_TEST

/* A cell that was wrong after timing (UNKNOWN) joins no pool, whatever
 * blocks it gathered before: its variant's other dtype is then alone. */
START_TEST(test_pair_pools_skip_wrong) {
  kg_pair_cell c[2] = {{.variant = "v", .dtype = KG_F32, .n = N22, .min_effect = 0.01, .rounds = 2},
                       {.variant = "v", .dtype = KG_I32, .n = N22, .min_effect = 0.01, .rounds = 2}};
  for (int i = 0; i < 2; i++) {
    c[i].sequential = 1, c[i].llr_slower = 4, c[i].llr_faster = -5;
    c[i].stat = (kg_pair_stat){.blocks = 8, .verdict = KG_PV_UNDECIDED};
  }
  kg_pair_meta m = {.sequential = 1};
  kg_pair_pool *p;
  size_t n;
  ck_assert_int_eq(kg_pair_pools(c, 2, &m, &p, &n), 0);
  ck_assert_uint_eq(n, 1);
  free(p);
  c[1].stat.verdict = KG_PV_UNKNOWN;
  ck_assert_int_eq(kg_pair_pools(c, 2, &m, &p, &n), 0);
  ck_assert(p == NULL && n == 0);
}
END_TEST

Suite *make_pairrun_suite(void) {
  Suite *s = suite_create("pairrun");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_pair_plan_untimed_pass);
  tcase_add_test(core, test_pair_combine_timing);
  tcase_add_test(core, test_pair_plan_outcomes);
  tcase_add_test(core, test_pair_plan_selection_no_missing);
  tcase_add_test(core, test_pair_sort_regressions_first);
  tcase_add_test(core, test_pair_sort_unchanged_last);
  tcase_add_test(core, test_pair_partition);
  tcase_add_test(core, test_pair_apply_head);
  tcase_add_test(core, test_pair_pools_skip_wrong);
  suite_add_tcase(s, core);
  return s;
}
