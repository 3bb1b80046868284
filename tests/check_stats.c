/* stats: quartiles, the noise estimate, and the stopping rule. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "stats.h"

static const struct {
  double x[8];
  size_t n;
  double median, q1, q3, min;
} k_tables[] = {
    {{1, 2, 3, 4, 5}, 5, 3, 2, 4, 1},
    {{5, 1, 4, 2, 3}, 5, 3, 2, 4, 1},         /* unsorted: same answer */
    {{1, 2, 3, 4}, 4, 2.5, 1.75, 3.25, 1},    /* type 7: h = 3p */
    {{10, 20}, 2, 15, 12.5, 17.5, 10},
    {{7}, 1, 7, 7, 7, 7},
    {{3, 3, 3, 9, 1, 3}, 6, 3, 3, 3, 1},      /* ties */
    {{8, 1, 7, 2, 6, 3, 5, 4}, 8, 4.5, 2.75, 6.25, 1},
};

START_TEST(test_stats_quartiles) {
  kg_stats s;
  kg_stats_compute(k_tables[_i].x, k_tables[_i].n, &s);
  ck_assert_uint_eq(s.count, k_tables[_i].n);
  ck_assert_double_eq_tol(s.median, k_tables[_i].median, 1e-12);
  ck_assert_double_eq_tol(s.q1, k_tables[_i].q1, 1e-12);
  ck_assert_double_eq_tol(s.q3, k_tables[_i].q3, 1e-12);
  ck_assert_double_eq(s.min, k_tables[_i].min);
}
END_TEST

START_TEST(test_stats_input_not_modified) {
  double x[] = {5, 1, 4, 2, 3}, copy[5];
  memcpy(copy, x, sizeof x);
  kg_stats s;
  kg_stats_compute(x, 5, &s);
  ck_assert_mem_eq(x, copy, sizeof x);
}
END_TEST

START_TEST(test_stats_noise_formula) {
  double x[] = {1, 2, 3, 4, 5};
  kg_stats s;
  kg_stats_compute(x, 5, &s);
  ck_assert_double_eq_tol(s.noise, 1.2533 * (2 / 1.349) / sqrt(5.0) / 3, 1e-12);
}
END_TEST

/* A deterministic stream of samples around 100 us: uniform jitter of +-spread
 * plus, every 16th sample, a slow outlier (a preempted launch). */
static uint64_t g_rng;
static unsigned g_k;
static void seed(uint64_t s) { g_rng = s, g_k = 0; }
static double sample(double spread) {
  g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
  double u = (double)(g_rng >> 11) / 9007199254740992.0; /* [0, 1) */
  return 100 * (1 + spread * (2 * u - 1)) + (++g_k % 16 == 0 ? 50 : 0);
}

START_TEST(test_stats_noise_shrinks) {
  static double x[1600];
  seed(42);
  for (size_t i = 0; i < 1600; i++) x[i] = sample(0.1);
  kg_stats a, b, c;
  kg_stats_compute(x, 16, &a);
  kg_stats_compute(x, 160, &b);
  kg_stats_compute(x, 1600, &c);
  ck_assert_double_gt(a.noise, 0);
  /* Same distribution, ten times the samples: about sqrt(10) less noise. */
  ck_assert_double_lt(b.noise, a.noise / 2);
  ck_assert_double_lt(c.noise, b.noise / 2);
}
END_TEST

/* The worker's loop: sample until enough, up to a cap. */
static size_t samples_needed(double spread, size_t min_samples, double max_noise, size_t cap) {
  static double x[2000];
  kg_stats s;
  seed(7);
  for (size_t n = 1; n <= cap; n++) {
    x[n - 1] = sample(spread);
    kg_stats_compute(x, n, &s);
    if (kg_stats_enough(&s, min_samples, max_noise)) return n;
  }
  return 0;
}

START_TEST(test_stats_tight_series_stops_at_min) {
  ck_assert_uint_eq(samples_needed(1e-4, 10, 0.005, 1000), 10);
  ck_assert_uint_eq(samples_needed(1e-4, 25, 0.005, 1000), 25);
}
END_TEST

START_TEST(test_stats_noisy_series_goes_on) {
  /* +-20 %: noise at 10 samples is about 6 %; 0.5 % needs ~1500 samples. */
  ck_assert_uint_eq(samples_needed(0.2, 10, 0.005, 200), 0);
  size_t n = samples_needed(0.2, 10, 0.02, 2000);
  ck_assert_uint_gt(n, 50);
  ck_assert_uint_lt(n, 2000);
}
END_TEST

START_TEST(test_stats_enough_rules) {
  kg_stats s = {.median = 100, .q1 = 99, .q3 = 101, .min = 98, .count = 10, .noise = 0.004};
  ck_assert(kg_stats_enough(&s, 10, 0.005));
  ck_assert(!kg_stats_enough(&s, 11, 0.005));
  ck_assert(!kg_stats_enough(&s, 10, 0.003));
  s.noise = NAN;
  ck_assert(!kg_stats_enough(&s, 1, 1));
}
END_TEST

START_TEST(test_stats_empty) {
  kg_stats s;
  memset(&s, 0xff, sizeof s);
  kg_stats_compute(NULL, 0, &s);
  ck_assert(s.count == 0 && s.median == 0 && s.q1 == 0 && s.q3 == 0 && s.min == 0 && s.noise == 0);
  ck_assert(!kg_stats_enough(&s, 0, 1));
}
END_TEST

/* One sample says nothing about spread: never enough on its own. */
START_TEST(test_stats_single_sample_noise) {
  double x = 3;
  kg_stats s;
  kg_stats_compute(&x, 1, &s);
  ck_assert(isinf(s.noise) && s.noise > 0);
  ck_assert(!kg_stats_enough(&s, 1, 1e9));
}
END_TEST

START_TEST(test_stats_identical_and_zero) {
  double same[] = {4, 4, 4}, zero[] = {0, 0, 1, 2}, neg[] = {-3, -2, -1, 0};
  kg_stats s;
  kg_stats_compute(same, 3, &s);
  ck_assert_double_eq(s.noise, 0);
  ck_assert(kg_stats_enough(&s, 3, 0));
  kg_stats_compute(zero, 4, &s); /* median 0.5 > 0: finite */
  ck_assert(isfinite(s.noise));
  kg_stats_compute(neg, 4, &s); /* median <= 0: no relative error */
  ck_assert(isinf(s.noise));
}
END_TEST

/* digamma and trigamma at known values (Abramowitz and Stegun 6.3, 6.4):
 * psi(1) = -gamma, psi(1/2) = -gamma - 2 ln 2, psi1(1) = pi^2/6,
 * psi1(1/2) = pi^2/2; trigamma's inverse undoes it. */
START_TEST(test_stats_gamma_functions) {
  const double g = 0.57721566490153286, pi = 3.14159265358979324;
  ck_assert_double_eq_tol(kg_digamma(1), -g, 1e-10);
  ck_assert_double_eq_tol(kg_digamma(0.5), -g - 2 * log(2.0), 1e-10);
  ck_assert_double_eq_tol(kg_trigamma(1), pi * pi / 6, 1e-10);
  ck_assert_double_eq_tol(kg_trigamma(0.5), pi * pi / 2, 1e-10);
  for (double x = 0.05; x < 500; x *= 2.5) ck_assert_double_eq_tol(kg_trigamma_inv(kg_trigamma(x)), x, 1e-8 * x);
  ck_assert(isnan(kg_digamma(0)) && isnan(kg_trigamma_inv(-1)));
}
END_TEST

/* The variance prior: equal variances fit nu0 = +Inf (all shrink to one);
 * variances spread far beyond chance fit a small nu0, so each keeps most of
 * its own; a posterior lies between its own variance and s0^2. */
START_TEST(test_stats_eb_prior) {
  double same[6] = {4, 4, 4, 4, 4, 4}, nu[6] = {5, 5, 5, 5, 5, 5}, s0sq, nu0;
  ck_assert_int_eq(kg_eb_prior(same, nu, 6, &s0sq, &nu0), 0);
  ck_assert(isinf(nu0));
  ck_assert_double_eq_tol(kg_eb_shrink(9, 5, s0sq, nu0), s0sq, 1e-12);
  double wide[6] = {0.01, 100, 0.1, 10, 1, 1000};
  ck_assert_int_eq(kg_eb_prior(wide, nu, 6, &s0sq, &nu0), 0);
  ck_assert(nu0 > 0 && nu0 < 5);
  double post = kg_eb_shrink(100, 5, s0sq, nu0);
  ck_assert(post < 100 && post > s0sq);
  ck_assert_int_eq(kg_eb_prior(wide, nu, 2, &s0sq, &nu0), -1); /* too few */
}
END_TEST

Suite *make_stats_suite(void) {
  Suite *s = suite_create("stats");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_stats_quartiles, 0, (int)(sizeof k_tables / sizeof k_tables[0]));
  tcase_add_test(core, test_stats_input_not_modified);
  tcase_add_test(core, test_stats_noise_formula);
  tcase_add_test(core, test_stats_noise_shrinks);
  tcase_add_test(core, test_stats_tight_series_stops_at_min);
  tcase_add_test(core, test_stats_noisy_series_goes_on);
  tcase_add_test(core, test_stats_enough_rules);
  tcase_add_test(core, test_stats_gamma_functions);
  tcase_add_test(core, test_stats_eb_prior);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_test(limits, test_stats_empty);
  tcase_add_test(limits, test_stats_single_sample_noise);
  tcase_add_test(limits, test_stats_identical_and_zero);
  suite_add_tcase(s, limits);
  return s;
}
