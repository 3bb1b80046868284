/* verdict: the noise-aware per-case verdict, tolerances, and comparing baselines. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "verdict.h"

/* A timing summary with its interquartile range. */
#define T(med, lo, hi) {.samples = 20, .median_us = (med), .q1_us = (lo), .q3_us = (hi), .min_us = (lo) - 1}
#define UNTIMED {.samples = 0}

typedef struct verdict_case {
  const char *what;
  kg_timing base, now;
  double tol;
  kg_verdict want;
} verdict_case;

/* Tolerances of 0.25 and 0.5 keep the boundaries exact in binary. */
static const verdict_case k_verdicts[] = {
    {"clear slowdown", T(100, 99, 101), T(110, 109, 111), 0.03, KG_V_SLOWER},
    {"slowdown within tolerance", T(100, 99.8, 100.2), T(102, 101.8, 102.2), 0.03, KG_V_SAME},
    {"noisy but equal: median +20 %, intervals overlap", T(100, 90, 130), T(120, 95, 140), 0.03, KG_V_SAME},
    {"clear speedup", T(100, 99, 101), T(80, 79, 81), 0.03, KG_V_FASTER},
    {"speedup within tolerance", T(100, 99.8, 100.2), T(98, 97.8, 98.2), 0.03, KG_V_SAME},
    {"noisy speedup: intervals overlap", T(100, 70, 110), T(80, 75, 120), 0.03, KG_V_SAME},
    {"baseline not timed", UNTIMED, T(100, 99, 101), 0.03, KG_V_UNKNOWN},
    {"this run not timed", T(100, 99, 101), UNTIMED, 0.03, KG_V_UNKNOWN},
    {"neither timed", UNTIMED, UNTIMED, 0.03, KG_V_UNKNOWN},
    {"identical", T(100, 99, 101), T(100, 99, 101), 0.03, KG_V_SAME},
    {"median exactly at +tolerance", T(100, 99, 101), T(125, 124, 126), 0.25, KG_V_SAME},
    {"median just past +tolerance", T(100, 99, 101), T(125.5, 124, 126), 0.25, KG_V_SLOWER},
    {"now.q1 equals base.q3", T(100, 90, 110), T(150, 110, 160), 0.25, KG_V_SAME},
    {"now.q1 just above base.q3", T(100, 90, 110), T(150, 110.5, 160), 0.25, KG_V_SLOWER},
    {"median exactly at -tolerance", T(100, 99, 101), T(50, 49, 51), 0.5, KG_V_SAME},
    {"median just past -tolerance", T(100, 99, 101), T(49.5, 49, 51), 0.5, KG_V_FASTER},
    {"now.q3 equals base.q1", T(100, 90, 110), T(40, 30, 90), 0.5, KG_V_SAME},
    {"now.q3 just below base.q1", T(100, 90, 110), T(40, 30, 89.5), 0.5, KG_V_FASTER},
    {"zero tolerance still needs separated intervals", T(100, 95, 105), T(101, 96, 106), 0, KG_V_SAME},
};

START_TEST(test_verdict_of_table) {
  const verdict_case *c = &k_verdicts[_i];
  kg_verdict got = kg_verdict_of(&c->base, &c->now, c->tol);
  ck_assert_msg(got == c->want, "%s: got %s, want %s", c->what, kg_verdict_name(got), kg_verdict_name(c->want));
}
END_TEST

START_TEST(test_verdict_name) {
  const char *want[KG_NVERDICTS] = {"SAME", "SLOWER", "FASTER", "NEW", "MISSING", "UNKNOWN"};
  for (int v = 0; v < KG_NVERDICTS; v++) ck_assert_str_eq(kg_verdict_name((kg_verdict)v), want[v]);
  ck_assert_str_eq(kg_verdict_name(KG_NVERDICTS), "?");
}
END_TEST

typedef struct tol_case {
  size_t bytes;
  double override_pct, want;
} tol_case;

#define MiB ((size_t)1 << 20)
static const tol_case k_tols[] = {
    {0, 0, 0.20},
    {MiB - 1, 0, 0.20},
    {MiB, 0, 0.15},
    {64 * MiB - 1, 0, 0.15},
    {64 * MiB, 0, 0.03},
    {(size_t)1 << 34, 0, 0.03},
    {100, 2.5, 0.025},
    {(size_t)1 << 34, 20, 0.20},
    {100, -1, 0.20}, /* not positive: the size class stands */
};

START_TEST(test_tolerance_classes) {
  const tol_case *c = &k_tols[_i];
  ck_assert_double_eq_tol(kg_tolerance(c->bytes, c->override_pct), c->want, 1e-12);
}
END_TEST

/* ---- kg_compare --------------------------------------------------------- */

#define E(v, dt, n, t) {v, dt, n, t}

/* Deliberately out of key order: kg_compare must not rely on it. */
static kg_base_entry g_base_entries[] = {
    E("reduce7_shuffle", KG_F32, 1 << 20, T(60, 59, 61)),
    E("retired_variant", KG_F32, 1 << 20, T(10, 9, 11)),
    E("reduce0_divergent", KG_F32, 1 << 20, T(100, 99, 101)),
    E("two_pass", KG_I32, 1024, T(5, 4.9, 5.1)),
    E("cub_sum", KG_F32, 1 << 20, T(50, 49, 51)),
    E("neighbored", KG_F64, 4096, T(7, 6.9, 7.1)),
    E("reduce2_sequential", KG_F64, 1 << 20, T(30, 29, 31)),
    E("reduce2_sequential", KG_I32, 1 << 24, T(90, 89, 91)),
    E("reduce2_sequential", KG_I32, 1 << 20, T(20, 19, 21)),
};

static kg_base_entry g_now_entries[] = {
    E("cub_sum", KG_F32, 1 << 20, T(50.5, 49.5, 51.5)),
    E("reduce0_divergent", KG_F32, 1 << 20, T(120, 119, 121)),
    E("reduce1_strided", KG_I64, 2048, T(3, 2.9, 3.1)),
    E("reduce7_shuffle", KG_F32, 1 << 20, T(40, 39, 41)),
    E("two_pass", KG_I32, 1024, UNTIMED),
    E("reduce2_sequential", KG_I32, 1 << 20, T(20, 19, 21)),
    E("reduce2_sequential", KG_F64, 1 << 20, T(30, 29, 31)),
    E("reduce2_sequential", KG_I32, 1 << 24, T(90, 89, 91)),
};

static kg_baseline g_base, g_now;

static void make_baselines(void) {
  kg_device_info dev = {.name = "NVIDIA H100 80GB HBM3", .cc_major = 9, .sms = 132, .driver_version = 12080,
                        .runtime_version = 12080, .uuid = "GPU-0123abcd-4567-89ab-cdef-0123456789ab"};
  g_base = (kg_baseline){.dev = dev, .n = sizeof g_base_entries / sizeof g_base_entries[0], .entries = g_base_entries};
  g_now = (kg_baseline){.dev = dev, .n = sizeof g_now_entries / sizeof g_now_entries[0], .entries = g_now_entries};
}

typedef struct want_row {
  const char *variant;
  kg_dtype dtype;
  size_t n;
  kg_verdict verdict;
} want_row;

/* Regressions first, then registry order (unknown names last), dtype, n. */
static const want_row k_want_rows[] = {
    {"reduce0_divergent", KG_F32, 1 << 20, KG_V_SLOWER},
    {"two_pass", KG_I32, 1024, KG_V_UNKNOWN},
    {"neighbored", KG_F64, 4096, KG_V_MISSING},
    {"retired_variant", KG_F32, 1 << 20, KG_V_MISSING},
    {"reduce7_shuffle", KG_F32, 1 << 20, KG_V_FASTER},
    {"reduce1_strided", KG_I64, 2048, KG_V_NEW},
    {"reduce2_sequential", KG_I32, 1 << 20, KG_V_SAME},
    {"reduce2_sequential", KG_I32, 1 << 24, KG_V_SAME},
    {"reduce2_sequential", KG_F64, 1 << 20, KG_V_SAME},
    {"cub_sum", KG_F32, 1 << 20, KG_V_SAME},
};

START_TEST(test_compare_rows_and_order) {
  kg_comparison c;
  char err[256] = "";
  ck_assert_int_eq(kg_compare(&g_base, &g_now, 0, &c, err, sizeof err), 0);
  size_t nwant = sizeof k_want_rows / sizeof k_want_rows[0];
  ck_assert_uint_eq(c.n, nwant);
  for (size_t i = 0; i < nwant; i++) {
    const kg_cmp_row *r = &c.rows[i];
    ck_assert_msg(strcmp(r->variant, k_want_rows[i].variant) == 0 && r->dtype == k_want_rows[i].dtype &&
                      r->n == k_want_rows[i].n && r->verdict == k_want_rows[i].verdict,
                  "row %zu: %s %d %zu %s", i, r->variant, r->dtype, r->n, kg_verdict_name(r->verdict));
  }
  ck_assert_str_eq(c.warning, "");
  kg_comparison_free(&c);
  ck_assert_ptr_null(c.rows);
  ck_assert_uint_eq(c.n, 0);
}
END_TEST

START_TEST(test_compare_counts) {
  kg_comparison c;
  char err[256];
  ck_assert_int_eq(kg_compare(&g_base, &g_now, 0, &c, err, sizeof err), 0);
  ck_assert_uint_eq(c.count[KG_V_SLOWER], 1);
  ck_assert_uint_eq(c.count[KG_V_UNKNOWN], 1);
  ck_assert_uint_eq(c.count[KG_V_MISSING], 2);
  ck_assert_uint_eq(c.count[KG_V_FASTER], 1);
  ck_assert_uint_eq(c.count[KG_V_NEW], 1);
  ck_assert_uint_eq(c.count[KG_V_SAME], 4);
  kg_comparison_free(&c);
}
END_TEST

START_TEST(test_compare_numbers) {
  kg_comparison c;
  char err[256];
  ck_assert_int_eq(kg_compare(&g_base, &g_now, 0, &c, err, sizeof err), 0);
  const kg_cmp_row *slow = &c.rows[0], *unknown = &c.rows[1], *missing = &c.rows[2], *added = &c.rows[5];
  ck_assert_double_eq_tol(slow->base_us, 100, 1e-12);
  ck_assert_double_eq_tol(slow->now_us, 120, 1e-12);
  ck_assert_double_eq_tol(slow->change, 0.2, 1e-12);
  ck_assert_double_eq_tol(slow->tol, 0.15, 1e-12);    /* 4 MiB of f32 */
  ck_assert_double_eq_tol(unknown->tol, 0.20, 1e-12); /* 4 KiB of i32: launch-bound */
  ck_assert_double_eq_tol(unknown->base_us, 5, 1e-12);
  ck_assert(unknown->now_us == 0 && unknown->change == 0);
  ck_assert(missing->now_us == 0 && missing->change == 0 && missing->base_us == 7);
  ck_assert(added->base_us == 0 && added->change == 0 && added->now_us == 3);
  ck_assert_double_eq_tol(c.rows[7].tol, 0.03, 1e-12); /* 64 MiB of i32 */
  kg_comparison_free(&c);
}
END_TEST

/* A sweep against a baseline of two sizes: like with like. The NEW cases at
 * sizes the baseline holds none of are left out and counted; a new variant at
 * a held size stays NEW, an untimed case stays UNKNOWN (even at a left-out
 * size), a retired one MISSING. */
START_TEST(test_compare_common_sizes) {
  static kg_base_entry base[] = {
      E("cub_sum", KG_F32, 1 << 20, T(50, 49, 51)),
      E("cub_sum", KG_F32, 1 << 24, T(90, 89, 91)),
      E("retired_variant", KG_F32, 1 << 24, T(10, 9, 11)),
  };
  static kg_base_entry now[] = {
      E("cub_sum", KG_F32, 1 << 20, T(50, 49, 51)),      E("cub_sum", KG_F32, 1 << 22, T(60, 59, 61)),
      E("cub_sum", KG_F32, 1 << 24, T(90, 89, 91)),      E("cub_sum", KG_F32, 1 << 26, T(300, 299, 301)),
      E("cub_sum", KG_I32, 1 << 26, T(300, 299, 301)),   E("reduce1_strided", KG_F32, 1 << 20, T(3, 2.9, 3.1)),
      E("two_pass", KG_I32, 1 << 22, UNTIMED),
  };
  kg_baseline b = {.dev = g_base.dev, .n = 3, .entries = base}, n = {.dev = g_base.dev, .n = 7, .entries = now};
  kg_comparison c;
  char err[256];
  ck_assert_int_eq(kg_compare(&b, &n, 0, &c, err, sizeof err), 0);
  ck_assert_uint_eq(c.count[KG_V_NEW], 4);
  for (int pass = 0; pass < 2; pass++) { /* a second call finds nothing more to leave out */
    ck_assert_int_eq(kg_comparison_common_sizes(&c), 0);
    ck_assert_uint_eq(c.n, 5);
    ck_assert_uint_eq(c.count[KG_V_NEW], 1);
    ck_assert_uint_eq(c.count[KG_V_SAME], 2);
    ck_assert_uint_eq(c.count[KG_V_UNKNOWN], 1);
    ck_assert_uint_eq(c.count[KG_V_MISSING], 1);
    ck_assert_uint_eq(c.left_out, 3);
    ck_assert_uint_eq(c.left_dtype[KG_F32], 2);
    ck_assert_uint_eq(c.left_dtype[KG_I32], 1);
    ck_assert_uint_eq(c.left_sizes, 2);
    ck_assert_uint_eq(c.left_min, (size_t)1 << 22);
    ck_assert_uint_eq(c.left_max, (size_t)1 << 26);
  }
  size_t counted = 0;
  for (size_t i = 0; i < c.n; i++) {
    const kg_cmp_row *r = &c.rows[i];
    ck_assert_msg(r->verdict != KG_V_NEW || (!strcmp(r->variant, "reduce1_strided") && r->n == 1 << 20), "%s %zu",
                  r->variant, r->n);
    if (r->verdict == KG_V_UNKNOWN) ck_assert(!strcmp(r->variant, "two_pass") && !r->in_base);
    counted++;
  }
  ck_assert_uint_eq(counted, c.n);
  kg_comparison_free(&c);
}
END_TEST

START_TEST(test_compare_override) {
  kg_comparison c;
  char err[256];
  ck_assert_int_eq(kg_compare(&g_base, &g_now, 25, &c, err, sizeof err), 0);
  ck_assert_uint_eq(c.count[KG_V_SLOWER], 0); /* +20 % is within 25 % */
  ck_assert_uint_eq(c.count[KG_V_FASTER], 1); /* -33 % is not */
  for (size_t i = 0; i < c.n; i++) ck_assert_double_eq_tol(c.rows[i].tol, 0.25, 1e-12);
  kg_comparison_free(&c);
}
END_TEST

/* Another physical card, or one the baseline did not record: every
 * tolerance grows by the card-to-card spread, and the reports say why. */
START_TEST(test_compare_other_card) {
  static const char *const k_uuids[] = {"GPU-ffffffff-4567-89ab-cdef-0123456789ab", ""};
  for (size_t k = 0; k < 2; k++) {
    snprintf(g_base.dev.uuid, sizeof g_base.dev.uuid, "%s", k_uuids[k]);
    g_base.dev.roofline_gbps = 4497, g_now.dev.roofline_gbps = 4404;
    kg_comparison c;
    char err[256];
    ck_assert_int_eq(kg_compare(&g_base, &g_now, 0, &c, err, sizeof err), 0);
    ck_assert_int_eq(c.cross_card, 1);
    for (size_t i = 0; i < c.n; i++) {
      size_t bytes = c.rows[i].n * kg_dtype_get(c.rows[i].dtype)->size;
      ck_assert_double_eq_tol(c.rows[i].tol, kg_tolerance(bytes, 0) + kg_card_spread(bytes), 1e-12);
      ck_assert(kg_card_spread(bytes) > 0);
    }
    ck_assert_msg(strstr(c.warning, k ? "baseline from an unrecorded card (roofline 4497 GB/s)"
                                      : "baseline from GPU-ffffffff-4567-89ab-cdef-0123456789ab (roofline 4497 GB/s)"),
                  "%s", c.warning);
    ck_assert_msg(strstr(c.warning, "this run on GPU-0123abcd-4567-89ab-cdef-0123456789ab (roofline 4404 GB/s)"), "%s",
                  c.warning);
    kg_comparison_free(&c);
    /* --tolerance is taken as given, on any card */
    ck_assert_int_eq(kg_compare(&g_base, &g_now, 25, &c, err, sizeof err), 0);
    for (size_t i = 0; i < c.n; i++) ck_assert_double_eq_tol(c.rows[i].tol, 0.25, 1e-12);
    ck_assert_ptr_nonnull(strstr(c.warning, "--tolerance applies as given"));
    kg_comparison_free(&c);
  }
  /* the same card: no widening, no warning */
  kg_comparison c;
  char err[256];
  ck_assert_int_eq(kg_compare(&g_now, &g_now, 0, &c, err, sizeof err), 0);
  ck_assert_int_eq(c.cross_card, 0);
  ck_assert_str_eq(c.warning, "");
  kg_comparison_free(&c);
  /* Neither UUID recorded: 0.3 % apart, maybe two cards (widened, and said so,
   * not called another card); one roofline measurement to the bit (a file
   * compared with itself): one card, nothing to say. */
  kg_baseline a = g_base, b = g_now;
  a.dev.uuid[0] = b.dev.uuid[0] = '\0';
  a.dev.roofline_gbps = 4550.125, b.dev.roofline_gbps = 4534.5;
  ck_assert_int_eq(kg_compare(&a, &b, 0, &c, err, sizeof err), 0);
  ck_assert_int_eq(c.cross_card, 1);
  ck_assert_msg(strstr(c.warning, "neither file records its card's UUID (baseline roofline 4550 GB/s, this run roofline "
                                  "4534 GB/s), so they may be two cards: each tolerance is widened") != NULL,
                "%s", c.warning);
  ck_assert_msg(!strstr(c.warning, "another card"), "%s", c.warning);
  kg_comparison_free(&c);
  b.dev.roofline_gbps = a.dev.roofline_gbps;
  ck_assert_int_eq(kg_compare(&a, &b, 0, &c, err, sizeof err), 0);
  ck_assert_int_eq(c.cross_card, 0);
  ck_assert_str_eq(c.warning, "");
  for (size_t i = 0; i < c.n; i++) {
    size_t bytes = c.rows[i].n * kg_dtype_get(c.rows[i].dtype)->size;
    ck_assert_double_eq_tol(c.rows[i].tol, kg_tolerance(bytes, 0), 1e-12);
  }
  kg_comparison_free(&c);
}
END_TEST

START_TEST(test_compare_driver_warning) {
  g_now.dev.driver_version = g_now.dev.runtime_version = 13000;
  kg_comparison c;
  char err[256];
  ck_assert_int_eq(kg_compare(&g_base, &g_now, 0, &c, err, sizeof err), 0);
  ck_assert_str_eq(c.warning,
                   "baseline taken with driver 12080 / CUDA runtime 12080, this run 13000 / 13000: timings may shift");
  ck_assert_uint_eq(c.count[KG_V_SLOWER], 1); /* a warning, not a refusal */
  kg_comparison_free(&c);
  g_now.dev.driver_version = 12080; /* the runtime alone differs */
  ck_assert_int_eq(kg_compare(&g_base, &g_now, 0, &c, err, sizeof err), 0);
  ck_assert_ptr_nonnull(strstr(c.warning, "this run 12080 / 13000"));
  kg_comparison_free(&c);
}
END_TEST

START_TEST(test_compare_other_gpu) {
  snprintf(g_now.dev.name, sizeof g_now.dev.name, "NVIDIA H200");
  kg_comparison c;
  char err[256] = "";
  ck_assert_int_eq(kg_compare(&g_base, &g_now, 0, &c, err, sizeof err), -1);
  ck_assert_str_eq(err, "baseline is for NVIDIA H100 80GB HBM3, this run is on NVIDIA H200");
  ck_assert_ptr_null(c.rows);
  ck_assert_uint_eq(c.n, 0);
  kg_comparison_free(&c); /* safe after a refusal */
}
END_TEST

START_TEST(test_compare_empty) {
  kg_comparison c;
  char err[256];
  g_base.n = 0;
  ck_assert_int_eq(kg_compare(&g_base, &g_now, 0, &c, err, sizeof err), 0);
  size_t untimed = 0; /* a case that failed its check has no timing: UNKNOWN, not NEW */
  for (size_t i = 0; i < g_now.n; i++) untimed += g_now.entries[i].t.samples == 0;
  ck_assert_uint_gt(untimed, 0);
  ck_assert_uint_eq(c.count[KG_V_UNKNOWN], untimed);
  ck_assert_uint_eq(c.count[KG_V_NEW], g_now.n - untimed);
  kg_comparison_free(&c);
  g_now.n = 0;
  ck_assert_int_eq(kg_compare(&g_base, &g_now, 0, &c, err, sizeof err), 0);
  ck_assert_uint_eq(c.n, 0);
  kg_comparison_free(&c);
}
END_TEST

Suite *make_verdict_suite(void) {
  Suite *s = suite_create("verdict");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_verdict_of_table, 0, (int)(sizeof k_verdicts / sizeof k_verdicts[0]));
  tcase_add_test(core, test_verdict_name);
  tcase_add_loop_test(core, test_tolerance_classes, 0, (int)(sizeof k_tols / sizeof k_tols[0]));
  suite_add_tcase(s, core);
  TCase *cmp = tcase_create("Compare");
  tcase_add_checked_fixture(cmp, make_baselines, NULL);
  tcase_add_test(cmp, test_compare_rows_and_order);
  tcase_add_test(cmp, test_compare_counts);
  tcase_add_test(cmp, test_compare_numbers);
  tcase_add_test(cmp, test_compare_override);
  tcase_add_test(cmp, test_compare_common_sizes);
  tcase_add_test(cmp, test_compare_driver_warning);
  tcase_add_test(cmp, test_compare_other_card);
  suite_add_tcase(s, cmp);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, make_baselines, NULL);
  tcase_add_test(errors, test_compare_other_gpu);
  tcase_add_test(errors, test_compare_empty);
  suite_add_tcase(s, errors);
  return s;
}
