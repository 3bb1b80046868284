/* pattern: seeded inputs, which patterns apply, and the exact tier's guarantee. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "pattern.h"

static void *fill(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n) {
  void *buf = malloc(n ? n * kg_dtype_get(dt)->size : 1);
  ck_assert_ptr_nonnull(buf);
  kg_pattern_fill(dt, p, seed, n, buf);
  return buf;
}

/* Distinct element bit patterns, counting no further than 3. */
static int distinct3(kg_dtype dt, const void *buf, size_t n) {
  size_t sz = kg_dtype_get(dt)->size;
  const unsigned char *b = buf;
  const unsigned char *seen[3];
  int k = 0;
  for (size_t i = 0; i < n && k < 3; i++) {
    int dup = 0;
    for (int j = 0; j < k; j++) dup |= memcmp(seen[j], b + i * sz, sz) == 0;
    if (!dup) seen[k++] = b + i * sz;
  }
  return k;
}

static const size_t k_small[] = {16, 33, 1000};

/* Loop index: the dtype. Every applicable pattern, a few sizes. */
START_TEST(test_pattern_fill_deterministic) {
  kg_dtype dt = (kg_dtype)_i;
  size_t sz = kg_dtype_get(dt)->size;
  for (int p = 0; p < KG_NPATTERNS; p++) {
    if (!kg_pattern_applies((kg_pattern)p, dt)) continue;
    for (size_t k = 0; k < sizeof k_small / sizeof k_small[0]; k++) {
      size_t n = k_small[k];
      void *a = fill(dt, (kg_pattern)p, 1, n), *b = fill(dt, (kg_pattern)p, 1, n), *c = fill(dt, (kg_pattern)p, 2, n);
      ck_assert_msg(memcmp(a, b, n * sz) == 0, "%s %s n=%zu: same seed, other data", kg_dtype_get(dt)->name,
                    kg_pattern_name((kg_pattern)p), n);
      ck_assert_msg(memcmp(a, c, n * sz) != 0, "%s %s n=%zu: seeds 1 and 2 give the same data", kg_dtype_get(dt)->name,
                    kg_pattern_name((kg_pattern)p), n);
      ck_assert_msg(distinct3(dt, a, n) == 3, "%s %s n=%zu: fewer than 3 distinct values", kg_dtype_get(dt)->name,
                    kg_pattern_name((kg_pattern)p), n);
      free(a), free(b), free(c);
    }
  }
}
END_TEST

START_TEST(test_pattern_applies) {
  kg_dtype dt = (kg_dtype)_i;
  int is_float = kg_dtype_get(dt)->is_float;
  for (int p = 0; p < KG_NPATTERNS; p++) {
    int want = is_float ? p != KG_PAT_WRAP : (p == KG_PAT_EXACT || p == KG_PAT_WRAP);
    ck_assert_msg(kg_pattern_applies((kg_pattern)p, dt) == want, "%s %s", kg_dtype_get(dt)->name,
                  kg_pattern_name((kg_pattern)p));
    int exact = p == KG_PAT_EXACT || (p == KG_PAT_WRAP && !is_float);
    ck_assert_int_eq(kg_pattern_is_exact((kg_pattern)p, dt), exact);
  }
}
END_TEST

START_TEST(test_pattern_names_round_trip) {
  for (int p = 0; p < KG_NPATTERNS; p++) {
    kg_pattern q = KG_NPATTERNS;
    ck_assert_int_eq(kg_pattern_parse(kg_pattern_name((kg_pattern)p), &q), 0);
    ck_assert_int_eq(q, p);
  }
  ck_assert_str_eq(kg_pattern_name(KG_PAT_INF_NAN), "inf_minus_inf");
}
END_TEST

/* Loop index: the dtype. Filling in pieces gives the same input as one fill
 * (parallel input generation relies on it). */
START_TEST(test_pattern_fill_range_pieces) {
  kg_dtype dt = (kg_dtype)_i;
  size_t sz = kg_dtype_get(dt)->size, n = 1000;
  const size_t cuts[] = {0, 1, 2, 333, 500, 999, 1000};
  for (int p = 0; p < KG_NPATTERNS; p++) {
    if (!kg_pattern_applies((kg_pattern)p, dt)) continue;
    void *whole = fill(dt, (kg_pattern)p, 5, n);
    unsigned char *pieces = malloc(n * sz);
    memset(pieces, 0xcc, n * sz);
    for (int k = 0; k + 1 < 7; k++) kg_pattern_fill_range(dt, (kg_pattern)p, 5, n, pieces, cuts[k], cuts[k + 1]);
    ck_assert_msg(memcmp(whole, pieces, n * sz) == 0, "%s %s: pieces differ from one fill", kg_dtype_get(dt)->name,
                  kg_pattern_name((kg_pattern)p));
    free(whole), free(pieces);
  }
}
END_TEST

START_TEST(test_pattern_int_exact_range) {
  size_t n = 100000;
  int32_t *a = fill(KG_I32, KG_PAT_EXACT, 7, n);
  int64_t *b = fill(KG_I64, KG_PAT_EXACT, 7, n);
  size_t wrong = 0;
  for (size_t i = 0; i < n; i++) wrong += !(a[i] != 0 && a[i] >= -1000 && a[i] <= 1000 && b[i] != 0 && b[i] >= -1000 && b[i] <= 1000);
  ck_assert_uint_eq(wrong, 0);
  free(a), free(b);
}
END_TEST

START_TEST(test_pattern_int_wrap_full_range) {
  size_t n = 1000;
  int32_t *a = fill(KG_I32, KG_PAT_WRAP, 1, n);
  int64_t *b = fill(KG_I64, KG_PAT_WRAP, 1, n);
  int big32 = 0, big64 = 0, neg32 = 0, neg64 = 0;
  for (size_t i = 0; i < n; i++) {
    big32 |= a[i] > (1 << 30) || a[i] < -(1 << 30), neg32 |= a[i] < 0;
    big64 |= b[i] > (INT64_C(1) << 62) || b[i] < -(INT64_C(1) << 62), neg64 |= b[i] < 0;
  }
  ck_assert(big32 && big64 && neg32 && neg64);
  free(a), free(b);
}
END_TEST

/* The exact tier: integers with sum|x| <= 2^mant of the accumulator, so every
 * partial sum in any order is an exact integer. Checked at the largest
 * default size, where most elements must be zero. */
static const struct {
  kg_dtype dt;
  size_t n;
} k_exact[] = {
    {KG_F32, 1}, {KG_F32, 1000}, {KG_F32, ((size_t)1 << 22) + 1}, {KG_F32, (size_t)1 << 25},
    {KG_F16, 1000}, {KG_F16, (size_t)1 << 25}, {KG_BF16, 1000}, {KG_BF16, (size_t)1 << 25},
    {KG_F64, 1000003},
};

START_TEST(test_pattern_float_exact_tier) {
  kg_dtype dt = k_exact[_i].dt;
  size_t n = k_exact[_i].n;
  const kg_dtype_info *d = kg_dtype_get(dt);
  void *buf = fill(dt, KG_PAT_EXACT, 1, n);
  double sum_abs = 0, fwd = 0, bwd = 0;
  float ffwd = 0, fbwd = 0;
  size_t nonzero = 0, wrong = 0; /* every Check assertion costs a syscall: count, assert once */
  for (size_t i = 0; i < n; i++) {
    double x = kg_dtype_load(dt, buf, i), y = kg_dtype_load(dt, buf, n - 1 - i);
    wrong += !(x == floor(x) && fabs(x) <= 64);
    sum_abs += fabs(x), nonzero += x != 0;
    fwd += x, bwd += y;
    ffwd += (float)x, fbwd += (float)y;
  }
  ck_assert_msg(wrong == 0, "%s n=%zu: %zu elements are not integers in [-64, 64]", d->name, n, wrong);
  ck_assert_msg(sum_abs <= ldexp(1.0, d->acc_mant_bits), "%s n=%zu: sum|x| = %g", d->name, n, sum_abs);
  ck_assert(fwd == bwd);
  if (d->acc_size == 4) ck_assert(ffwd == fwd && fbwd == fwd); /* float accumulation is exact too */
  ck_assert_uint_ge(nonzero, n < 4 ? n : n / 8);
  if (n >= 16) ck_assert_int_ge(distinct3(dt, buf, n), 2);
  free(buf);
}
END_TEST

/* Loop index: the float dtypes, KG_F32 onwards. tiny: every value below the
 * smallest normal and most of them nonzero; huge: every value within the
 * scale, the largest near it, and 2^33 of them still below the largest
 * finite accumulator value. */
START_TEST(test_pattern_scaled_ranges) {
  kg_dtype dt = (kg_dtype)(KG_F32 + _i);
  const kg_dtype_info *d = kg_dtype_get(dt);
  double min_normal = ldexp(1.0, dt == KG_F16 ? -14 : dt == KG_F64 ? -1022 : -126);
  double acc_max = d->acc_size == 8 ? 0x1.fffffffffffffp1023 : 0x1.fffffep127;
  size_t n = 4097;
  void *x = fill(dt, KG_PAT_TINY, 3, n);
  size_t outside = 0, nonzero = 0;
  for (size_t i = 0; i < n; i++) {
    double v = kg_dtype_load(dt, x, i);
    outside += !(fabs(v) < min_normal), nonzero += v != 0;
  }
  free(x);
  ck_assert_msg(outside == 0, "%s tiny: %zu values are normal", d->name, outside);
  ck_assert_msg(nonzero >= n * 3 / 4, "%s tiny: only %zu of %zu nonzero", d->name, nonzero, n);
  double scale = kg_pattern_scale(KG_PAT_HUGE, dt), top = 0;
  ck_assert(scale * 0x1p33 < acc_max);
  x = fill(dt, KG_PAT_HUGE, 3, n);
  outside = 0;
  for (size_t i = 0; i < n; i++) {
    double v = kg_dtype_load(dt, x, i);
    outside += !(fabs(v) <= scale);
    if (fabs(v) > top) top = fabs(v);
  }
  free(x);
  ck_assert_msg(outside == 0, "%s huge: %zu values past the scale", d->name, outside);
  ck_assert_msg(top >= scale / 2, "%s huge: largest %g, scale %g", d->name, top, scale);
}
END_TEST

/* Loop index: the float dtypes, KG_F32 onwards. */
START_TEST(test_pattern_specials_count) {
  kg_dtype dt = (kg_dtype)(KG_F32 + _i);
  const size_t sizes[] = {1, 2, 33, 1000};
  for (size_t k = 0; k < 4; k++) {
    size_t n = sizes[k];
    const kg_pattern pats[] = {KG_PAT_NAN, KG_PAT_INF, KG_PAT_INF_NAN, KG_PAT_UNIFORM};
    for (int q = 0; q < 4; q++) {
      void *buf = fill(dt, pats[q], 3, n);
      size_t nans = 0, pinf = 0, ninf = 0, outside = 0;
      for (size_t i = 0; i < n; i++) {
        double x = kg_dtype_load(dt, buf, i);
        nans += isnan(x) != 0, pinf += x == INFINITY, ninf += x == -INFINITY;
        outside += isfinite(x) && fabs(x) > 1;
      }
      size_t want_nan = pats[q] == KG_PAT_NAN, want_pinf = pats[q] == KG_PAT_INF || pats[q] == KG_PAT_INF_NAN;
      size_t want_ninf = pats[q] == KG_PAT_INF_NAN && n >= 2;
      ck_assert_msg(nans == want_nan && pinf == want_pinf && ninf == want_ninf,
                    "%s %s n=%zu: %zu NaN, %zu +Inf, %zu -Inf", kg_dtype_get(dt)->name, kg_pattern_name(pats[q]), n,
                    nans, pinf, ninf);
      ck_assert_uint_eq(outside, 0); /* the rest is uniform in [-1, 1] */
      free(buf);
    }
  }
}
END_TEST

START_TEST(test_pattern_cancel_pairs) {
  size_t n = 1000;
  float *x = fill(KG_F32, KG_PAT_CANCEL, 1, n);
  double sum_abs = 0;
  for (size_t i = 0; i < n; i++) sum_abs += fabs(x[i]);
  for (size_t i = 0; i < n / 2; i += 4) {
    ck_assert(x[i] == -x[n - 1 - i]);
    ck_assert(fabs(x[i]) >= 0x1p19);
  }
  ck_assert(sum_abs > 1e6);
  free(x);
}
END_TEST

START_TEST(test_pattern_fill_empty) {
  for (int d = 0; d < KG_NDTYPES; d++)
    for (int p = 0; p < KG_NPATTERNS; p++) {
      unsigned char canary[8];
      memset(canary, 0xcc, sizeof canary);
      kg_pattern_fill((kg_dtype)d, (kg_pattern)p, 1, 0, canary);
      for (int i = 0; i < 8; i++) ck_assert_uint_eq(canary[i], 0xcc);
    }
}
END_TEST

static const char *const k_unknown[] = {"", "Exact", "inf-minus-inf", "random", "nan "};

START_TEST(test_pattern_parse_rejects) {
  kg_pattern p = KG_PAT_CANCEL;
  ck_assert_int_eq(kg_pattern_parse(k_unknown[_i], &p), -1);
  ck_assert_int_eq(p, KG_PAT_CANCEL);
  ck_assert_str_eq(kg_pattern_name(KG_NPATTERNS), "?");
  ck_assert_int_eq(kg_pattern_applies(KG_NPATTERNS, KG_F32), 0);
}
END_TEST

Suite *make_pattern_suite(void) {
  Suite *s = suite_create("pattern");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_pattern_fill_deterministic, 0, KG_NDTYPES);
  tcase_add_loop_test(core, test_pattern_applies, 0, KG_NDTYPES);
  tcase_add_test(core, test_pattern_names_round_trip);
  tcase_add_loop_test(core, test_pattern_fill_range_pieces, 0, KG_NDTYPES);
  tcase_add_test(core, test_pattern_int_exact_range);
  tcase_add_test(core, test_pattern_int_wrap_full_range);
  tcase_add_loop_test(core, test_pattern_specials_count, 0, KG_NDTYPES - KG_F32);
  tcase_add_test(core, test_pattern_cancel_pairs);
  tcase_add_loop_test(core, test_pattern_scaled_ranges, 0, KG_NDTYPES - KG_F32);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_set_timeout(limits, 60);
  tcase_add_loop_test(limits, test_pattern_float_exact_tier, 0, sizeof k_exact / sizeof k_exact[0]);
  tcase_add_test(limits, test_pattern_fill_empty);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_pattern_parse_rejects, 0, sizeof k_unknown / sizeof k_unknown[0]);
  suite_add_tcase(s, errors);
  return s;
}
