/* check_seqreplay: the paired gate's sequential decision (seqtest.h), its
 * arithmetic, and its error rates replayed on recorded paired cells
 * (seqreplay.h): the A/A cells of tests/data/h200-paired.json and every
 * cell of the A/A nights of tests/data/nightly/h100-aa16.jsonl, at a true
 * effect of 0 (A/A), of delta0 = m / 2 and of m, per size class. The seed is fixed, so the
 * counts are the same on every run; the bounds asserted are the ones
 * docs/timing-and-verdicts.md states. The suite fails when the rule loses
 * its power at m or its guard at m / 2: the interval rule before it and a
 * rule with a loose alpha are replayed too and must miss. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairrun.h"
#include "results.h"
#include "seqreplay.h"
#include "seqtest.h"
#include "testutil.h"

#define FIXTURE KG_SOURCE_DIR "/tests/data/h200-paired.json"
#define NIGHTS KG_SOURCE_DIR "/tests/data/nightly/h100-aa16.jsonl"

/* What the docs state (docs/timing-and-verdicts.md, "The sequential decision"). */
#define AA_FALSE_MAX 1e-5    /* SLOWER or FASTER per A/A cell: 240 cells, a false verdict in < 0.25 % of gates */
#define AA_FALSE_MAX_LEAN 5e-5 /* the same when a worker gives its blocks a tenth of their variance alike */
#define POWER_AT_M_MIN 0.95  /* SLOWER at a true m */
#define SLOWER_AT_HALF_MAX 0.005 /* SLOWER at a true m / 2 */

static kg_pblock blk(double x) { return (kg_pblock){.log_ratio = x, .pairs = 32, .head_us = 100, .base_us = 100}; }

/* ---- Core: the decision on blocks --------------------------------------- */

START_TEST(test_seq_identical_blocks_at_zero_same) {
  kg_pblock b[4] = {blk(0), blk(0), blk(0), blk(0)};
  kg_seq_rule r = kg_seq_rule_for(0.01);
  kg_seq_stat s;
  kg_seq_decide(b, 4, &r, 0, &s);
  ck_assert_int_eq(s.blocks, 4);
  ck_assert_int_eq(s.verdict, KG_PV_SAME);
  ck_assert(s.llr_slower == -KG_SEQ_LLR_MAX && s.llr_faster == -KG_SEQ_LLR_MAX);
}
END_TEST

START_TEST(test_seq_slower_needs_two_rounds) {
  /* +2 % with a spread of 0.1 %: far beyond m = 1 % */
  kg_pblock b[8];
  for (int i = 0; i < 8; i++) b[i] = blk(log(1.02) + (i % 2 ? 0.001 : -0.001));
  kg_seq_rule r = kg_seq_rule_for(0.01);
  kg_seq_stat s;
  kg_seq_decide(b, 8, &r, 1, &s);
  ck_assert_int_eq(s.verdict, KG_PV_SLOWER);
  ck_assert(s.llr_slower >= kg_seq_upper(&r));
  kg_seq_decide(b, 8, &r, 0, &s); /* one worker's blocks: no SLOWER yet */
  ck_assert_int_eq(s.verdict, KG_PV_UNDECIDED);
  for (int i = 0; i < 8; i++) b[i].log_ratio = -b[i].log_ratio;
  kg_seq_decide(b, 8, &r, 1, &s);
  ck_assert_int_eq(s.verdict, KG_PV_FASTER);
  ck_assert(s.llr_faster >= kg_seq_upper(&r) && s.llr_slower < 0);
}
END_TEST

/* The ratio is the one-sided t test's statistic in likelihood form beyond e1. */
START_TEST(test_seq_llr_is_t_statistic) {
  double x[5] = {0.020, 0.022, 0.018, 0.025, 0.015}, sl, fa;
  double e0 = log1p(0.005), e1 = log1p(0.01);
  kg_seq_llr(x, 5, e0, e1, &sl, &fa);
  double m = 0, ss = 0;
  for (int i = 0; i < 5; i++) m += x[i] / 5;
  for (int i = 0; i < 5; i++) ss += (x[i] - m) * (x[i] - m);
  double t = (m - e0) / sqrt(ss / 4 / 5);
  ck_assert_double_eq_tol(sl, 2.5 * log(1 + t * t / 4), 1e-9);
}
END_TEST

/* Blocks that cannot be measurements do not vote; fewer than two decide nothing. */
START_TEST(test_seq_bad_blocks_skipped) {
  kg_pblock b[3] = {blk(0), blk(NAN), blk(0.001)};
  b[2].pairs = 0;
  kg_seq_rule r = kg_seq_rule_for(0.01);
  kg_seq_stat s;
  kg_seq_decide(b, 3, &r, 1, &s);
  ck_assert_int_eq(s.blocks, 1);
  ck_assert_int_eq(s.verdict, KG_PV_UNDECIDED);
  ck_assert(s.llr_slower == 0 && s.llr_faster == 0);
  r.delta0 = r.min_effect; /* no zone: no decision */
  kg_pblock c[2] = {blk(0), blk(0)};
  kg_seq_decide(c, 2, &r, 1, &s);
  ck_assert_int_eq(s.verdict, KG_PV_UNDECIDED);
}
END_TEST

START_TEST(test_seq_bounds_are_walds) {
  kg_seq_rule r = kg_seq_rule_for(0.005);
  ck_assert_double_eq_tol(r.delta0, 0.0025, 1e-15);
  ck_assert_double_eq_tol(kg_seq_upper(&r), log(0.95 / 0.002), 1e-12);
  ck_assert_double_eq_tol(kg_seq_lower(&r), log(0.05 / 0.998), 1e-12);
}
END_TEST

/* ---- Replay: the error rates on recorded cells ------------------------- */

/* Two recordings: the A/A cells of an H200 paired run (its SAME cells, 8
 * blocks each), and every cell of the 19 A/A nights on fifteen H100 cards
 * (16 rounds of 4 blocks: every variant and dtype at 2^22 and 2^25). */
enum { H200, H100, NFIXTURES };
static kg_seq_cell *g_cells[NFIXTURES];
static size_t g_ncells[NFIXTURES];

static void load_cells(void) {
  kg_run run;
  kg_history h;
  char err[512] = "";
  ck_assert_msg(kg_results_read(FIXTURE, &run, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_seq_cells(&run, 1, &g_cells[H200], &g_ncells[H200], err, sizeof err) == 0, "%s", err);
  kg_run_free(&run);
  ck_assert_msg(kg_history_read(NIGHTS, &h, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_seq_cells_history(&h, 4, &g_cells[H100], &g_ncells[H100], err, sizeof err) == 0, "%s", err);
  kg_history_free(&h);
}

static void free_cells(void) {
  for (int f = 0; f < NFIXTURES; f++) free(g_cells[f]), g_cells[f] = NULL;
}

/* The rows: a recording and a size class (its minimum effect). */
static const struct {
  int fixture;
  double m;
} k_rows[] = {{H200, 0.005}, {H200, 0.01}, {H100, 0.005}, {H100, 0.01}};

typedef struct how {
  int df;              /* 0 normal blocks, 5: Student t(5) */
  double share;        /* the share of a block's variance its worker gives all its blocks */
  int interval_rule;   /* the rule before */
  double alpha;        /* > 0: instead of the default */
} how;

static kg_seq_replay_result replay(int row, double shift, long trials, how h) {
  kg_seq_replay_opts o = kg_seq_replay_defaults();
  o.only_effect = k_rows[row].m, o.shift = shift, o.trials = trials, o.df = h.df, o.round_share = h.share;
  o.interval_rule = h.interval_rule;
  if (h.alpha > 0) o.alpha = h.alpha;
  kg_seq_replay_result r;
  int f = k_rows[row].fixture;
  ck_assert_int_eq(kg_seq_replay(g_cells[f], g_ncells[f], &o, &r), 0);
  printf("seqreplay: %s, m %.1f %%, shift %.1f m, %s%s%s: %ld cells: SLOWER %ld FASTER %ld SAME %ld UNDECIDED %ld, "
         "rounds %.2f, decided after one %.1f %%\n",
         f == H200 ? "h200-paired" : "h100-aa16", 100 * k_rows[row].m, shift,
         h.interval_rule ? "the interval rule" : "sequential", h.df ? ", t(5) blocks" : "",
         h.share > 0 ? ", a tenth shared by a worker" : "", r.trials, r.count[KG_PV_SLOWER], r.count[KG_PV_FASTER],
         r.count[KG_PV_SAME], r.count[KG_PV_UNDECIDED], r.mean_rounds, 100.0 * (double)r.first_round / (double)r.trials);
  fflush(stdout); /* a failed check ends its process */
  return r;
}

static double share(const kg_seq_replay_result *r, kg_pverdict v) { return (double)r->count[v] / (double)r->trials; }

/* the kinds of blocks every bound must hold for: normal, heavier-tailed, and leaning together by worker */
static const how k_hows[] = {{0, 0, 0, 0}, {5, 0, 0, 0}, {0, 0.1, 0, 0}};
enum { NHOWS = sizeof k_hows / sizeof k_hows[0] };

START_TEST(test_replay_aa_false_rate) {
  for (int k = 0; k < NHOWS; k++) {
    kg_seq_replay_result r = replay(_i, 0, k ? 200000 : 500000, k_hows[k]);
    double f = share(&r, KG_PV_SLOWER) + share(&r, KG_PV_FASTER), bound = k_hows[k].share > 0 ? AA_FALSE_MAX_LEAN : AA_FALSE_MAX;
    ck_assert_msg(f <= bound, "A/A false verdicts %.2g a cell, more than %.2g", f, bound);
  }
}
END_TEST

START_TEST(test_replay_power_at_m) {
  for (int k = 0; k < 2; k++) { /* independent blocks: the lean costs power, which the GPU measures */
    kg_seq_replay_result r = replay(_i, 1, 40000, k_hows[k]);
    ck_assert_msg(share(&r, KG_PV_SLOWER) >= POWER_AT_M_MIN, "SLOWER at m in %.4f of cells, less than %.2f",
                  share(&r, KG_PV_SLOWER), POWER_AT_M_MIN);
  }
}
END_TEST

START_TEST(test_replay_half_m_not_slower) {
  for (int k = 0; k < NHOWS; k++) {
    kg_seq_replay_result r = replay(_i, 0.5, 100000, k_hows[k]);
    ck_assert_msg(share(&r, KG_PV_SLOWER) <= SLOWER_AT_HALF_MAX, "SLOWER at m/2 in %.4f of cells, more than %.3f",
                  share(&r, KG_PV_SLOWER), SLOWER_AT_HALF_MAX);
  }
}
END_TEST

/* The replay can fail: the interval rule before this one decides a true m
 * almost never, and alpha = 0.2 says SLOWER at m / 2 far too often. */
START_TEST(test_replay_catches_weak_rules) {
  kg_seq_replay_result r = replay(_i, 1, 40000, (how){0, 0, 1, 0});
  ck_assert_msg(share(&r, KG_PV_SLOWER) < POWER_AT_M_MIN, "the interval rule passed the power test");
  r = replay(_i, 0.5, 100000, (how){0, 0, 0, 0.2});
  ck_assert_msg(share(&r, KG_PV_SLOWER) > SLOWER_AT_HALF_MAX, "alpha 0.2 passed the m/2 test");
}
END_TEST

START_TEST(test_replay_deterministic) {
  kg_seq_replay_result a = replay(_i, 1, 2000, k_hows[0]), b = replay(_i, 1, 2000, k_hows[0]);
  ck_assert(memcmp(a.count, b.count, sizeof a.count) == 0 && a.mean_rounds == b.mean_rounds);
}
END_TEST

/* ---- Errors: impossible sequential state in a results file ------------- */

static char g_dir[256];

static void dir_setup(void) { kgt_mkscratch(g_dir, sizeof g_dir, "seqreplay"); }
static void dir_teardown(void) { kgt_rmtree(g_dir); }

static const struct {
  const char *from, *to, *message;
} k_bad[] = {
    /* a SAME cell with no blocks */
    {"\"base_us\":27.450462,\"min_effect\":0.01,\"blocks\":8", "\"base_us\":27.450462,\"min_effect\":0.01,\"blocks\":0",
     "SAME with 0 blocks: a verdict needs blocks (reduce0_divergent i32 4194304)"},
    /* negative blocks */
    {"\"min_effect\":0.005,\"blocks\":8", "\"min_effect\":0.005,\"blocks\":-8",
     "negative n, blocks, pairs, rounds or set_aside (two_pass i32 33554432)"},
};

START_TEST(test_results_refuse_impossible_state) {
  char *text = kgt_slurp(FIXTURE), bad[512], err[512] = "";
  ck_assert_ptr_nonnull(text);
  char *at = strstr(text, k_bad[_i].from);
  ck_assert_msg(at != NULL, "fixture lacks %s", k_bad[_i].from);
  size_t lf = strlen(k_bad[_i].from), lt = strlen(k_bad[_i].to), len = strlen(text);
  char *edited = malloc(len - lf + lt + 1);
  memcpy(edited, text, (size_t)(at - text));
  memcpy(edited + (at - text), k_bad[_i].to, lt);
  strcpy(edited + (at - text) + lt, at + lf);
  snprintf(bad, sizeof bad, "%s/bad.json", g_dir);
  kgt_spit(bad, edited);
  kg_run run;
  ck_assert_int_eq(kg_results_read(bad, &run, err, sizeof err), -1);
  ck_assert_msg(strstr(err, k_bad[_i].message) != NULL, "message '%s' lacks \"%s\"", err, k_bad[_i].message);
  free(text);
  free(edited);
}
END_TEST

/* A variant's dtypes pooled: the sums of its cells' ratios against the
 * bounds of its largest minimum effect; one dtype alone is no pool. */
START_TEST(test_pools_sum_cells) {
  kg_pair_cell c[4] = {{.variant = "v", .dtype = KG_F32, .n = 1 << 22, .min_effect = 0.01, .rounds = 2},
                       {.variant = "v", .dtype = KG_I32, .n = 1 << 22, .min_effect = 0.01, .rounds = 3},
                       {.variant = "v", .dtype = KG_F32, .n = 1 << 25, .min_effect = 0.005, .rounds = 2},
                       {.variant = "w", .dtype = KG_F32, .n = 1 << 22, .min_effect = 0.01, .rounds = 2}};
  double sl[4] = {3.5, 3.0, 9.0, -4.0}, fa[4] = {-5.0, -6.0, -20.0, -4.0};
  for (int i = 0; i < 4; i++) {
    c[i].sequential = 1, c[i].llr_slower = sl[i], c[i].llr_faster = fa[i];
    c[i].stat = (kg_pair_stat){.blocks = 8, .verdict = KG_PV_UNDECIDED};
  }
  kg_pair_meta m = {.sequential = 1};
  kg_pair_pool *p;
  size_t n;
  ck_assert_int_eq(kg_pair_pools(c, 4, &m, &p, &n), 0);
  ck_assert_uint_eq(n, 1); /* v at 2^22 only: v at 2^25 and w have one cell */
  ck_assert_str_eq(p[0].variant, "v");
  ck_assert(p[0].n == 1 << 22 && p[0].cells == 2 && p[0].blocks == 16 && p[0].min_effect == 0.01);
  ck_assert_double_eq_tol(p[0].llr_slower, 6.5, 1e-12);
  ck_assert_int_eq(p[0].verdict, KG_PV_SLOWER); /* 6.5 >= ln(0.95 / 0.002) = 6.16: each cell alone is UNDECIDED */
  free(p);
  m.sequential = 0; /* the interval decided: nothing to pool */
  ck_assert_int_eq(kg_pair_pools(c, 4, &m, &p, &n), 0);
  ck_assert(p == NULL && n == 0);
}
END_TEST

/* The new fields written and read back; without them the file reads as before. */
START_TEST(test_results_sequential_round_trip) {
  kg_run run, back;
  char err[512] = "", path[512];
  ck_assert_msg(kg_results_read(FIXTURE, &run, err, sizeof err) == 0, "%s", err);
  kg_seq_rule r = kg_seq_rule_for(1);
  run.pair.sequential = 1, run.pair.alpha = r.alpha, run.pair.beta = r.beta, run.pair.delta0_share = 0.5;
  run.pair.llr_upper = kg_seq_upper(&r), run.pair.llr_lower = kg_seq_lower(&r), run.pair.change_rounds = 2;
  for (size_t i = 0; i < run.npairs; i++) {
    kg_pair_cell *c = &run.pairs[i];
    if (c->stat.blocks < 2) continue;
    c->sequential = 1;
    c->llr_slower = c->stat.verdict == KG_PV_SLOWER ? 7.5 : -3.5 - (double)i;
    c->llr_faster = c->stat.verdict == KG_PV_FASTER ? 8.0 : -4.25;
    if (c->stat.verdict == KG_PV_UNDECIDED) c->llr_slower = 1.0;
  }
  ck_assert_int_eq(kg_pair_pools(run.pairs, run.npairs, &run.pair, &run.pools, &run.npools), 0);
  ck_assert_uint_gt(run.npools, 0);
  snprintf(path, sizeof path, "%s/seq.json", g_dir);
  ck_assert_msg(kg_results_write(path, &run, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_results_read(path, &back, err, sizeof err) == 0, "%s", err);
  ck_assert(back.pair.sequential && back.pair.alpha == r.alpha && back.pair.change_rounds == 2);
  ck_assert_double_eq_tol(back.pair.llr_upper, run.pair.llr_upper, 1e-9); /* written to 15 significant digits */
  ck_assert_uint_eq(back.npairs, run.npairs);
  for (size_t i = 0; i < run.npairs; i++) {
    const kg_pair_cell *a = &run.pairs[i], *b = NULL;
    for (size_t j = 0; j < back.npairs; j++)
      if (!strcmp(back.pairs[j].variant, a->variant) && back.pairs[j].dtype == a->dtype && back.pairs[j].n == a->n)
        b = &back.pairs[j];
    ck_assert_ptr_nonnull(b);
    ck_assert(b->sequential == a->sequential && b->llr_slower == a->llr_slower && b->llr_faster == a->llr_faster);
  }
  ck_assert_uint_eq(back.npools, run.npools);
  for (size_t i = 0; i < run.npools; i++)
    ck_assert(!strcmp(back.pools[i].variant, run.pools[i].variant) && back.pools[i].verdict == run.pools[i].verdict &&
              back.pools[i].llr_slower == run.pools[i].llr_slower && back.pools[i].blocks == run.pools[i].blocks);
  kg_run_free(&back);
  /* a SLOWER cell whose ratio does not reach the bound is refused, the cell named */
  for (size_t i = 0; i < run.npairs; i++)
    if (run.pairs[i].stat.verdict == KG_PV_SLOWER) run.pairs[i].llr_slower = 1.0;
  ck_assert_msg(kg_results_write(path, &run, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kg_results_read(path, &back, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "SLOWER but llr_slower 1 and llr_faster") && strstr(err, "(two_pass i32 33554432)"), "%s",
                err);
  kg_run_free(&run);
}
END_TEST

static Suite *make_seqreplay_suite(void) {
  Suite *s = suite_create("seqreplay");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_seq_identical_blocks_at_zero_same);
  tcase_add_test(core, test_seq_slower_needs_two_rounds);
  tcase_add_test(core, test_seq_llr_is_t_statistic);
  tcase_add_test(core, test_seq_bad_blocks_skipped);
  tcase_add_test(core, test_seq_bounds_are_walds);
  suite_add_tcase(s, core);
  TCase *rep = tcase_create("Limits");
  tcase_add_checked_fixture(rep, load_cells, free_cells);
  tcase_set_timeout(rep, 120);
  int ns = (int)(sizeof k_rows / sizeof k_rows[0]);
  tcase_add_loop_test(rep, test_replay_aa_false_rate, 0, ns);
  tcase_add_loop_test(rep, test_replay_power_at_m, 0, ns);
  tcase_add_loop_test(rep, test_replay_half_m_not_slower, 0, ns);
  tcase_add_loop_test(rep, test_replay_catches_weak_rules, 0, ns);
  tcase_add_loop_test(rep, test_replay_deterministic, 0, ns);
  suite_add_tcase(s, rep);
  TCase *errs = tcase_create("Errors");
  tcase_add_checked_fixture(errs, dir_setup, dir_teardown);
  tcase_add_loop_test(errs, test_results_refuse_impossible_state, 0, (int)(sizeof k_bad / sizeof k_bad[0]));
  tcase_add_test(errs, test_results_sequential_round_trip);
  tcase_add_test(core, test_pools_sum_cells);
  suite_add_tcase(s, errs);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(make_seqreplay_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
