/* paired: Student's t, block estimates, and the paired gate's decision rule,
 * the rule also on simulated cells with known effects. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "paired.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- Student's t ---- */

/* Two-sided quantiles, 12 significant digits, from mpmath at 40 digits
 * (betainc(df/2, 1/2, 0, df/(df+t^2)) = 1 - confidence, solved by bisection). */
static const struct {
  int df;
  double confidence, t;
} k_t_ref[] = {
    {1, 0.5, 1.0},                {1, 0.8, 3.07768353718},       {1, 0.95, 12.7062047362},
    {1, 0.99, 63.6567411629},     {1, 0.999, 636.619248769},     {1, 0.9999, 6366.19767132},
    {2, 0.5, 0.816496580928},     {2, 0.8, 1.88561808316},       {2, 0.95, 4.30265272975},
    {2, 0.99, 9.92484320092},     {2, 0.999, 31.5990545764},     {2, 0.9999, 99.9924998437},
    {3, 0.5, 0.764892328404},     {3, 0.8, 1.6377443537},        {3, 0.95, 3.18244630528},
    {3, 0.99, 5.84090930973},     {3, 0.999, 12.9239786367},     {3, 0.9999, 28.0001300109},
    {5, 0.5, 0.7266868438},       {5, 0.8, 1.47588404882},       {5, 0.95, 2.57058183564},
    {5, 0.99, 4.03214298356},     {5, 0.999, 6.86882662588},     {5, 0.9999, 11.1777100703},
    {7, 0.5, 0.711141778082},     {7, 0.8, 1.41492392765},       {7, 0.95, 2.36462425159},
    {7, 0.99, 3.49948329735},     {7, 0.999, 5.40788252086},     {7, 0.9999, 7.88458426242},
    {30, 0.5, 0.682755693321},    {30, 0.8, 1.31041502539},      {30, 0.95, 2.0422724563},
    {30, 0.99, 2.74999565357},    {30, 0.999, 3.64595863504},    {30, 0.9999, 4.48241717541},
    {1000, 0.5, 0.674735164607},  {1000, 0.8, 1.28239872146},    {1000, 0.95, 1.96233908083},
    {1000, 0.99, 2.58075469807},  {1000, 0.999, 3.30028264842},  {1000, 0.9999, 3.9063437367},
    {10000, 0.5, 0.674514284484}, {10000, 0.8, 1.28163622973},   {10000, 0.95, 1.96020123989},
    {10000, 0.99, 2.57632104667}, {10000, 0.999, 3.29149996594}, {10000, 0.9999, 3.89216198357},
};

START_TEST(test_student_t_reference_values) {
  double t = kg_student_t(k_t_ref[_i].confidence, k_t_ref[_i].df);
  ck_assert_double_eq_tol(t / k_t_ref[_i].t, 1, 1e-9); /* the promise is 1e-6 relative */
}
END_TEST

/* The textbook values, to their printed four decimals. */
static const struct {
  int df;
  double confidence, t;
} k_t_book[] = {{1, 0.99, 63.6567}, {7, 0.99, 3.4995}, {30, 0.95, 2.0423}, {1000, 0.95, 1.9623}, {2, 0.95, 4.3027}};

START_TEST(test_student_t_table_values) {
  ck_assert_double_eq_tol(kg_student_t(k_t_book[_i].confidence, k_t_book[_i].df), k_t_book[_i].t, 5e-5);
}
END_TEST

/* df 1 (Cauchy) and 2 have closed forms: t = tan(pi c / 2), t = c sqrt(2 / (1 - c^2)). */
START_TEST(test_student_t_closed_forms) {
  for (double c = 0.5; c < 0.99995; c += 0.00049) {
    ck_assert_double_eq_tol(kg_student_t(c, 1) / tan(M_PI * c / 2), 1, 1e-9);
    ck_assert_double_eq_tol(kg_student_t(c, 2) / (c * sqrt(2 / (1 - c * c))), 1, 1e-9);
  }
}
END_TEST

START_TEST(test_student_t_falls_with_df) {
  double prev = INFINITY;
  for (int df = 1; df <= 10000; df += df < 100 ? 1 : 97) {
    double t = kg_student_t(0.99, df);
    ck_assert_double_lt(t, prev);
    ck_assert_double_gt(t, 2.5758293035489); /* the normal's quantile, the limit */
    prev = t;
  }
}
END_TEST

START_TEST(test_student_t_extreme_confidence) {
  double c = 1 - 1e-10; /* far past the table: the Cauchy's closed form still holds */
  ck_assert_double_eq_tol(kg_student_t(c, 1) / (1 / tan(M_PI * (1 - c) / 2)), 1, 1e-6);
}
END_TEST

static const struct {
  double confidence;
  int df;
} k_t_bad[] = {{0.95, 0}, {0.95, -3}, {0, 5}, {1, 5}, {-0.5, 5}, {1.5, 5}, {NAN, 5}, {INFINITY, 5}};

START_TEST(test_student_t_out_of_domain) {
  ck_assert(isnan(kg_student_t(k_t_bad[_i].confidence, k_t_bad[_i].df)));
}
END_TEST

/* ---- names and the minimum effect ---- */

START_TEST(test_pverdict_name_each) {
  static const char *const names[KG_NPVERDICTS] = {
      [KG_PV_SAME] = "SAME", [KG_PV_SLOWER] = "SLOWER",   [KG_PV_FASTER] = "FASTER", [KG_PV_UNDECIDED] = "UNDECIDED",
      [KG_PV_NEW] = "NEW",   [KG_PV_MISSING] = "MISSING", [KG_PV_UNKNOWN] = "UNKNOWN", [KG_PV_UNCHANGED] = "UNCHANGED"};
  for (int v = 0; v < KG_NPVERDICTS; v++) ck_assert_str_eq(kg_pverdict_name((kg_pverdict)v), names[v]);
  ck_assert_str_eq(kg_pverdict_name(KG_NPVERDICTS), "?");
  ck_assert_str_eq(kg_pverdict_name((kg_pverdict)-1), "?");
}
END_TEST

/* UNCHANGED came last: the verdicts before it keep their numbers. */
START_TEST(test_pverdict_unchanged_last) {
  ck_assert_int_eq(KG_PV_SAME, 0);
  ck_assert_int_eq(KG_PV_UNKNOWN, 6);
  ck_assert_int_eq(KG_PV_UNCHANGED, 7);
  ck_assert_int_eq(KG_NPVERDICTS, 8);
}
END_TEST

/* The report order: every verdict once, the blocking ones first, no change
 * (SAME, then UNCHANGED) last. */
START_TEST(test_pverdict_order) {
  int seen[KG_NPVERDICTS] = {0};
  for (int k = 0; k < KG_NPVERDICTS; k++) {
    ck_assert_uint_lt((unsigned)kg_pverdict_order[k], KG_NPVERDICTS);
    seen[kg_pverdict_order[k]]++;
  }
  for (int v = 0; v < KG_NPVERDICTS; v++) ck_assert_int_eq(seen[v], 1);
  ck_assert_int_eq(kg_pverdict_order[0], KG_PV_SLOWER);
  ck_assert_int_eq(kg_pverdict_order[KG_NPVERDICTS - 2], KG_PV_SAME);
  ck_assert_int_eq(kg_pverdict_order[KG_NPVERDICTS - 1], KG_PV_UNCHANGED);
}
END_TEST

static const struct {
  size_t bytes;
  double override_pct, want;
} k_min_effect[] = {
    {0, 0, 0.05},
    {(1u << 20) - 1, 0, 0.05},
    {1u << 20, 0, 0.01},
    {(64u << 20) - 1, 0, 0.01},
    {64u << 20, 0, 0.005},
    {SIZE_MAX, 0, 0.005},
    {64u << 20, 2.5, 0.025}, /* an override replaces the default */
    {0, 0.1, 0.001},
    {0, -1, 0.05}, /* <= 0: not set */
};

START_TEST(test_pair_min_effect_sizes) {
  ck_assert_double_eq_tol(kg_pair_min_effect(k_min_effect[_i].bytes, k_min_effect[_i].override_pct),
                          k_min_effect[_i].want, 1e-15);
}
END_TEST

START_TEST(test_pair_min_effect_bad_override) {
  ck_assert(isnan(kg_pair_min_effect(4096, NAN)));
  ck_assert(isnan(kg_pair_min_effect(4096, INFINITY)));
}
END_TEST

/* ---- blocks from pairs ---- */

START_TEST(test_pblock_median_odd) {
  double head[] = {30, 10, 20}, base[] = {10, 10, 10};
  kg_pblock b;
  ck_assert_int_eq(kg_pblock_from_pairs(head, base, 3, &b), 0);
  ck_assert_int_eq(b.pairs, 3);
  ck_assert_double_eq_tol(b.log_ratio, log(2.0), 1e-15);
  ck_assert_double_eq(b.head_us, 20);
  ck_assert_double_eq(b.base_us, 10);
}
END_TEST

START_TEST(test_pblock_median_even) {
  /* Ratios 1, 2, 3, 4: the type-7 median of the logs is (ln 2 + ln 3) / 2. */
  double head[] = {40, 10, 30, 20}, base[] = {10, 10, 10, 10};
  kg_pblock b;
  ck_assert_int_eq(kg_pblock_from_pairs(head, base, 4, &b), 0);
  ck_assert_int_eq(b.pairs, 4);
  ck_assert_double_eq_tol(b.log_ratio, log(6.0) / 2, 1e-15);
  ck_assert_double_eq(b.head_us, 25);
  ck_assert_double_eq(b.base_us, 10);
}
END_TEST

START_TEST(test_pblock_identical_pairs) {
  double t[16];
  for (int i = 0; i < 16; i++) t[i] = 37.25 + i; /* each pair equal, pairs differ */
  kg_pblock b;
  ck_assert_int_eq(kg_pblock_from_pairs(t, t, 16, &b), 0);
  ck_assert_double_eq(b.log_ratio, 0);
  ck_assert_double_eq(b.head_us, b.base_us);
}
END_TEST

START_TEST(test_pblock_extreme_times) {
  /* The quotient 1e300 / 1e-300 overflows; the difference of logs does not. */
  double head[] = {1e300}, base[] = {1e-300};
  kg_pblock b;
  ck_assert_int_eq(kg_pblock_from_pairs(head, base, 1, &b), 0);
  ck_assert_double_eq_tol(b.log_ratio, 600 * log(10.0), 1e-9);
}
END_TEST

/* One pair of five replaced by a time that cannot be true: it is dropped and
 * the block is the block of the other four. */
static const double k_bad_times[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, -5.0};

START_TEST(test_pblock_bad_time_dropped) {
  double head[] = {11, 12, 13, 14, 15}, base[] = {10, 10.5, 10, 10.5, 10};
  kg_pblock want, got;
  ck_assert_int_eq(kg_pblock_from_pairs(head + 1, base + 1, 4, &want), 0);
  for (int side = 0; side < 2; side++) {
    double h[5], b[5];
    memcpy(h, head, sizeof h);
    memcpy(b, base, sizeof b);
    (side ? b : h)[0] = k_bad_times[_i];
    ck_assert_int_eq(kg_pblock_from_pairs(h, b, 5, &got), 0);
    ck_assert_int_eq(got.pairs, 4);
    ck_assert_double_eq(got.log_ratio, want.log_ratio);
    ck_assert_double_eq(got.head_us, want.head_us);
    ck_assert_double_eq(got.base_us, want.base_us);
  }
}
END_TEST

START_TEST(test_pblock_all_dropped) {
  double head[] = {NAN, 0, 10}, base[] = {10, 10, -1};
  kg_pblock b;
  ck_assert_int_eq(kg_pblock_from_pairs(head, base, 3, &b), -1);
  ck_assert_int_eq(b.pairs, 0);
  ck_assert(isnan(b.log_ratio)); /* so kg_pair_decide ignores it if it is kept */
  ck_assert_int_eq(kg_pblock_from_pairs(head, base, 0, &b), -1);
  ck_assert_int_eq(b.pairs, 0);
}
END_TEST

/* ---- the decision on hand-made blocks ---- */

static const kg_pair_rule k_rule = {.min_effect = 0.01, .confidence = 0.99};

static kg_pblock blk(double lr) {
  return (kg_pblock){.log_ratio = lr, .pairs = 32, .head_us = 100 * exp(lr), .base_us = 100};
}

START_TEST(test_pair_decide_arithmetic) {
  kg_pblock b[] = {blk(0.01), blk(0.03), blk(0.02)};
  b[0].pairs = 5, b[1].pairs = 7, b[2].pairs = 9;
  b[0].head_us = 50, b[1].head_us = 70, b[2].head_us = 60;
  b[0].base_us = 3, b[1].base_us = 1, b[2].base_us = 2;
  kg_pair_stat st;
  kg_pair_decide(b, 3, &k_rule, &st);
  /* m = 0.02, s = 0.01, h = t(0.99, 2) * 0.01 / sqrt(3). */
  double h = 9.92484320092 * 0.01 / sqrt(3.0);
  ck_assert_int_eq(st.blocks, 3);
  ck_assert_int_eq(st.pairs, 21);
  ck_assert_double_eq_tol(st.ratio, exp(0.02), 1e-12);
  ck_assert_double_eq_tol(st.lo, exp(0.02 - h), 1e-9);
  ck_assert_double_eq_tol(st.hi, exp(0.02 + h), 1e-9);
  ck_assert_double_eq(st.head_us, 60);
  ck_assert_double_eq(st.base_us, 2);
  ck_assert_int_eq(st.verdict, KG_PV_UNDECIDED); /* (-3.7 %, +8.0 %) straddles +1 % */
}
END_TEST

/* Two blocks m +- d: h = t(0.99, 1) * d = 63.66 d. With e = ln 1.01 = 0.00995: */
static const struct {
  double m, d;
  kg_pverdict want;
} k_rule_cases[] = {
    {0.05, 0.0005, KG_PV_SLOWER},    /* (0.018, 0.082): above e */
    {0.03, 0.0005, KG_PV_UNDECIDED}, /* (-0.002, 0.062): straddles e */
    {0.0, 0.0001, KG_PV_SAME},       /* (-0.0064, 0.0064): inside */
    {0.0, 0.0002, KG_PV_UNDECIDED},  /* (-0.0127, 0.0127): wider than the band */
    {0.005, 0.0001, KG_PV_UNDECIDED}, /* (-0.0014, 0.0114): reaches past e */
    {-0.05, 0.0005, KG_PV_FASTER},   /* mirror of the first */
    {-0.03, 0.0005, KG_PV_UNDECIDED},
    {0.0, 0.0, KG_PV_SAME},          /* zero width */
    {0.00995, 0.0, KG_PV_SAME},      /* just under e */
    {0.00996, 0.0, KG_PV_SLOWER},    /* just over */
    {-0.00996, 0.0, KG_PV_FASTER},
};

START_TEST(test_pair_decide_rule) {
  kg_pblock b[] = {blk(k_rule_cases[_i].m - k_rule_cases[_i].d), blk(k_rule_cases[_i].m + k_rule_cases[_i].d)};
  kg_pair_stat st;
  kg_pair_decide(b, 2, &k_rule, &st);
  ck_assert_str_eq(kg_pverdict_name(st.verdict), kg_pverdict_name(k_rule_cases[_i].want));
}
END_TEST

START_TEST(test_pair_decide_identical_blocks_same) {
  kg_pblock b[8];
  for (int i = 0; i < 8; i++) b[i] = blk(0);
  kg_pair_stat st;
  kg_pair_decide(b, 8, &k_rule, &st);
  ck_assert_int_eq(st.verdict, KG_PV_SAME);
  ck_assert_double_eq(st.ratio, 1);
  ck_assert_double_eq(st.lo, 1);
  ck_assert_double_eq(st.hi, 1);
}
END_TEST

START_TEST(test_pair_decide_identical_blocks_slower) {
  double head[32], base[32];
  for (int i = 0; i < 32; i++) base[i] = 100 + i, head[i] = base[i] * 1.02;
  kg_pblock one, b[8];
  ck_assert_int_eq(kg_pblock_from_pairs(head, base, 32, &one), 0);
  for (int i = 0; i < 8; i++) b[i] = one;
  kg_pair_stat st;
  kg_pair_decide(b, 8, &k_rule, &st);
  ck_assert_int_eq(st.verdict, KG_PV_SLOWER);
  ck_assert_double_eq(st.lo, st.hi); /* s == 0 exactly: a zero-width interval */
  ck_assert_double_eq_tol(st.ratio, 1.02, 1e-12);
}
END_TEST

/* ---- simulated cells ---- */

/* xorshift64* and Box-Muller: a seeded, portable stream. */
static uint64_t g_rng;
static double uniform01(void) { /* (0, 1) */
  g_rng ^= g_rng >> 12, g_rng ^= g_rng << 25, g_rng ^= g_rng >> 27;
  return ((double)((g_rng * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void) { return sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01()); }
static double cauchy(void) { return tan(M_PI * (uniform01() - 0.5)); }

typedef struct sim {
  double effect;    /* true head/base - 1 */
  double sd_block;  /* sd of a block's true log ratio around ln(1 + effect) */
  double sd_sample; /* sd of each sample's log time (normal) */
  double cauchy;    /* > 0: Cauchy scale added to each sample's log time */
  int wild;         /* pairs per block with one time x10 (alternating head, base) */
} sim;

enum { SIM_PAIRS = 32, SIM_BLOCKS = 8, SIM_CELLS = 2000 };

/* One block: its placement moves head and base alike (the pairing cancels
 * it); its own log ratio; 32 pairs of samples around them. */
static kg_pblock sim_block(const sim *p) {
  double place = 100 * exp(0.05 * normal()), lr = log1p(p->effect) + p->sd_block * normal();
  double head[SIM_PAIRS], base[SIM_PAIRS];
  for (int i = 0; i < SIM_PAIRS; i++) {
    head[i] = place * exp(lr + p->sd_sample * normal() + (p->cauchy > 0 ? p->cauchy * cauchy() : 0));
    base[i] = place * exp(p->sd_sample * normal() + (p->cauchy > 0 ? p->cauchy * cauchy() : 0));
  }
  for (int i = 0; i < p->wild; i++) (i % 2 ? base : head)[3 + 5 * i] *= 10;
  kg_pblock b;
  ck_assert_int_eq(kg_pblock_from_pairs(head, base, SIM_PAIRS, &b), 0);
  return b;
}

/* Verdict counts over cells, and how many intervals held the true ratio. */
static void simulate(const sim *p, int cells, uint64_t seed, int count[KG_NPVERDICTS], int *covered) {
  g_rng = seed;
  memset(count, 0, KG_NPVERDICTS * sizeof *count);
  *covered = 0;
  for (int c = 0; c < cells; c++) {
    kg_pblock b[SIM_BLOCKS];
    for (int i = 0; i < SIM_BLOCKS; i++) b[i] = sim_block(p);
    kg_pair_stat st;
    kg_pair_decide(b, SIM_BLOCKS, &k_rule, &st);
    count[st.verdict]++;
    *covered += st.lo <= 1 + p->effect && 1 + p->effect <= st.hi;
  }
}

/* No effect, block noise 0.3 %: an alarm needs the mean 8 sigma from 0. */
START_TEST(test_pair_sim_null_no_false_alarm) {
  int n[KG_NPVERDICTS], cov;
  simulate(&(sim){.effect = 0, .sd_block = 0.003, .sd_sample = 0.005}, SIM_CELLS, 1, n, &cov);
  ck_assert_int_eq(n[KG_PV_SLOWER] + n[KG_PV_FASTER], 0);
  ck_assert_int_ge(n[KG_PV_SAME], SIM_CELLS * 95 / 100); /* h is about 0.0042 of e = 0.00995 */
}
END_TEST

/* +-3 % against a 1 % minimum: m - h sits about 13 standard errors past e. */
START_TEST(test_pair_sim_power) {
  double effect = _i ? -0.03 : 0.03;
  int n[KG_NPVERDICTS], cov;
  simulate(&(sim){.effect = effect, .sd_block = 0.003, .sd_sample = 0.005}, SIM_CELLS, 2 + _i, n, &cov);
  ck_assert_int_ge(n[_i ? KG_PV_FASTER : KG_PV_SLOWER], SIM_CELLS * 99 / 100);
  ck_assert_int_eq(n[_i ? KG_PV_SLOWER : KG_PV_FASTER] + n[KG_PV_SAME], 0);
}
END_TEST

/* A true effect exactly at the minimum: the interval's centre sits on e, so
 * SLOWER (m - h > e) and SAME (m + h < e) each need the t statistic beyond
 * its 0.995 quantile: about 0.5 % each (10 of 2000; allowed 25, 4.7 sigma
 * of the binomial). The rest is UNDECIDED, and FASTER is impossible. */
START_TEST(test_pair_sim_at_minimum) {
  int n[KG_NPVERDICTS], cov;
  simulate(&(sim){.effect = 0.01, .sd_block = 0.003, .sd_sample = 0.005}, SIM_CELLS, 4, n, &cov);
  ck_assert_int_le(n[KG_PV_SLOWER], 25);
  ck_assert_int_le(n[KG_PV_SAME], 25);
  ck_assert_int_eq(n[KG_PV_FASTER], 0);
  ck_assert_int_ge(n[KG_PV_UNDECIDED], SIM_CELLS - 50);
}
END_TEST

/* The 99 % interval holds the true ratio in about 99 % of cells (at least
 * 98 %: 4.5 sigma of the binomial), and is not wider than that needs (at
 * most 99.9 %). A normal quantile in place of t covers about 96 %; a width
 * not divided by sqrt(blocks) covers every cell. */
START_TEST(test_pair_sim_coverage) {
  int n[KG_NPVERDICTS], cov;
  simulate(&(sim){.effect = 0.01, .sd_block = 0.003, .sd_sample = 0.005}, SIM_CELLS, 5, n, &cov);
  ck_assert_int_ge(cov, SIM_CELLS * 98 / 100);
  ck_assert_int_le(cov, SIM_CELLS * 999 / 1000);
}
END_TEST

START_TEST(test_pair_sim_tiny_noise_same) {
  int n[KG_NPVERDICTS], cov;
  simulate(&(sim){.effect = 0, .sd_block = 0.0001, .sd_sample = 0.0001}, SIM_CELLS, 6, n, &cov);
  ck_assert_int_eq(n[KG_PV_SAME], SIM_CELLS);
}
END_TEST

/* ---- heavy tails ---- */

START_TEST(test_pblock_wild_samples) {
  /* 5 of 32 pairs with a x10 time (3 on head, 2 on base) would move the mean
   * of the log ratios by ln(10) / 32 = 0.07; the median stays within noise. */
  g_rng = 7;
  sim p = {.effect = 0.02, .sd_block = 0, .sd_sample = 0.002, .wild = 5};
  double mean_err = 0;
  for (int k = 0; k < 100; k++) {
    kg_pblock b = sim_block(&p);
    ck_assert_double_eq_tol(b.log_ratio, log(1.02), 0.004);
    ck_assert_double_eq_tol(b.head_us / b.base_us, 1.02, 0.01);
    mean_err += fabs(b.log_ratio - log(1.02)) / 100;
  }
  ck_assert_double_lt(mean_err, 0.001);
}
END_TEST

/* Cauchy noise (scale 0.2 % in log time, no finite mean) plus wild samples:
 * the verdicts are those of the clean cells. */
START_TEST(test_pair_sim_heavy_tails) {
  static const struct {
    double effect;
    kg_pverdict want;
  } cases[] = {{0.03, KG_PV_SLOWER}, {-0.03, KG_PV_FASTER}, {0, KG_PV_SAME}};
  for (int c = 0; c < NELEM(cases); c++) {
    int n[KG_NPVERDICTS], cov;
    sim p = {.effect = cases[c].effect, .sd_block = 0.003, .sd_sample = 0.002, .cauchy = 0.002, .wild = 4};
    simulate(&p, 500, 8 + c, n, &cov);
    ck_assert_int_ge(n[cases[c].want], 500 * 95 / 100);
    for (int v = 0; v < KG_PV_UNDECIDED; v++) /* never a wrong decision */
      if (v != (int)cases[c].want) ck_assert_int_eq(n[v], 0);
  }
}
END_TEST

/* ---- limits and errors of the decision ---- */

START_TEST(test_pair_decide_no_blocks) {
  kg_pair_stat st;
  memset(&st, 0x55, sizeof st);
  kg_pair_decide(NULL, 0, &k_rule, &st);
  ck_assert_int_eq(st.blocks, 0);
  ck_assert_int_eq(st.pairs, 0);
  ck_assert_double_eq(st.ratio, 1);
  ck_assert_double_eq(st.lo, 1);
  ck_assert_double_eq(st.hi, 1);
  ck_assert_int_eq(st.verdict, KG_PV_UNDECIDED);
}
END_TEST

START_TEST(test_pair_decide_one_block) {
  kg_pblock b = blk(0.5); /* +65 %, yet one block has no spread: no verdict */
  kg_pair_stat st;
  kg_pair_decide(&b, 1, &k_rule, &st);
  ck_assert_int_eq(st.blocks, 1);
  ck_assert_int_eq(st.pairs, 32);
  ck_assert_double_eq_tol(st.ratio, exp(0.5), 1e-15);
  ck_assert_double_eq(st.lo, st.ratio);
  ck_assert_double_eq(st.hi, st.ratio);
  ck_assert_double_eq(st.head_us, b.head_us);
  ck_assert_int_eq(st.verdict, KG_PV_UNDECIDED);
}
END_TEST

/* A block that cannot be a measurement, among three good ones, is absent. */
static const kg_pblock k_bad_blocks[] = {
    {NAN, 32, 100, 100},      {INFINITY, 32, 100, 100}, {-INFINITY, 32, 100, 100},
    {0.9, 0, 100, 100},       {0.9, 32, NAN, 100},      {0.9, 32, 100, 0},
    {0.9, 32, -100, 100},     {0.9, 32, 100, INFINITY},
};

START_TEST(test_pair_decide_bad_block_ignored) {
  kg_pblock good[] = {blk(0.01), blk(0.012), blk(0.014)};
  kg_pblock mixed[] = {good[0], k_bad_blocks[_i], good[1], good[2]};
  kg_pair_stat want, got;
  kg_pair_decide(good, 3, &k_rule, &want);
  kg_pair_decide(mixed, 4, &k_rule, &got);
  ck_assert_int_eq(got.blocks, 3);
  ck_assert_int_eq(got.pairs, want.pairs);
  ck_assert_double_eq(got.ratio, want.ratio);
  ck_assert_double_eq(got.lo, want.lo);
  ck_assert_double_eq(got.hi, want.hi);
  ck_assert_double_eq(got.head_us, want.head_us);
  ck_assert_int_eq(got.verdict, want.verdict);
  /* Leading bad blocks too (the shift starts at the first good one). */
  kg_pblock lead[] = {k_bad_blocks[_i], k_bad_blocks[_i], good[0], good[1], good[2]};
  kg_pair_decide(lead, 5, &k_rule, &got);
  ck_assert_double_eq(got.ratio, want.ratio);
  ck_assert_double_eq(got.lo, want.lo);
}
END_TEST

START_TEST(test_pair_decide_all_blocks_bad) {
  kg_pair_stat st;
  kg_pair_decide(k_bad_blocks, (size_t)NELEM(k_bad_blocks), &k_rule, &st);
  ck_assert_int_eq(st.blocks, 0);
  ck_assert_double_eq(st.ratio, 1);
  ck_assert_int_eq(st.verdict, KG_PV_UNDECIDED);
}
END_TEST

/* A rule that cannot be true gives no verdict, even on clear evidence. */
static const kg_pair_rule k_bad_rules[] = {
    {0.01, 0}, {0.01, 1}, {0.01, NAN}, {0.01, -0.5}, {-0.01, 0.99}, {NAN, 0.99}, {INFINITY, 0.99},
};

START_TEST(test_pair_decide_bad_rule) {
  kg_pblock b[] = {blk(0.5), blk(0.5), blk(0.5)};
  kg_pair_stat st;
  kg_pair_decide(b, 3, &k_bad_rules[_i], &st);
  ck_assert_int_eq(st.blocks, 3);
  ck_assert_int_eq(st.verdict, KG_PV_UNDECIDED);
  ck_assert_double_eq(st.lo, st.ratio);
  ck_assert_double_eq(st.hi, st.ratio);
}
END_TEST

Suite *make_paired_suite(void) {
  Suite *s = suite_create("paired");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_student_t_reference_values, 0, NELEM(k_t_ref));
  tcase_add_loop_test(core, test_student_t_table_values, 0, NELEM(k_t_book));
  tcase_add_test(core, test_student_t_closed_forms);
  tcase_add_test(core, test_student_t_falls_with_df);
  tcase_add_test(core, test_pverdict_name_each);
  tcase_add_test(core, test_pverdict_unchanged_last);
  tcase_add_test(core, test_pverdict_order);
  tcase_add_loop_test(core, test_pair_min_effect_sizes, 0, NELEM(k_min_effect));
  tcase_add_test(core, test_pblock_median_odd);
  tcase_add_test(core, test_pblock_median_even);
  tcase_add_test(core, test_pblock_identical_pairs);
  tcase_add_test(core, test_pair_decide_arithmetic);
  tcase_add_loop_test(core, test_pair_decide_rule, 0, NELEM(k_rule_cases));
  tcase_add_test(core, test_pair_decide_identical_blocks_same);
  tcase_add_test(core, test_pair_decide_identical_blocks_slower);
  tcase_add_test(core, test_pair_sim_null_no_false_alarm);
  tcase_add_loop_test(core, test_pair_sim_power, 0, 2);
  tcase_add_test(core, test_pair_sim_at_minimum);
  tcase_add_test(core, test_pair_sim_coverage);
  tcase_add_test(core, test_pair_sim_tiny_noise_same);
  tcase_add_test(core, test_pblock_wild_samples);
  tcase_add_test(core, test_pair_sim_heavy_tails);
  tcase_set_timeout(core, 60);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_test(limits, test_student_t_extreme_confidence);
  tcase_add_test(limits, test_pblock_extreme_times);
  tcase_add_test(limits, test_pair_decide_no_blocks);
  tcase_add_test(limits, test_pair_decide_one_block);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_student_t_out_of_domain, 0, NELEM(k_t_bad));
  tcase_add_test(errors, test_pair_min_effect_bad_override);
  tcase_add_loop_test(errors, test_pblock_bad_time_dropped, 0, NELEM(k_bad_times));
  tcase_add_test(errors, test_pblock_all_dropped);
  tcase_add_loop_test(errors, test_pair_decide_bad_block_ignored, 0, NELEM(k_bad_blocks));
  tcase_add_test(errors, test_pair_decide_all_blocks_bad);
  tcase_add_loop_test(errors, test_pair_decide_bad_rule, 0, NELEM(k_bad_rules));
  suite_add_tcase(s, errors);
  return s;
}
