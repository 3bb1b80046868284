/* reference: CPU sums, the error bound and the verdict. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dtype.h"
#include "reference.h"

START_TEST(test_reference_i32_wraps) {
  int32_t x[] = {INT32_MAX, 1};
  kg_ref r;
  kg_reference(KG_I32, x, 2, &r);
  ck_assert_uint_eq(r.isum, (uint64_t)(int64_t)INT32_MIN);
  int32_t y[] = {INT32_MIN, -1, -1};
  kg_reference(KG_I32, y, 3, &r);
  ck_assert_uint_eq(r.isum, (uint64_t)(int64_t)(INT32_MAX - 1));
}
END_TEST

START_TEST(test_reference_i64_wraps) {
  int64_t x[] = {INT64_MAX, 1, 0};
  kg_ref r;
  kg_reference(KG_I64, x, 3, &r);
  ck_assert_uint_eq(r.isum, (uint64_t)INT64_MIN);
}
END_TEST

/* 2^120 + 1 is not representable even in a 113-bit long double: only a
 * compensated sum gets 1. */
START_TEST(test_reference_compensated) {
  double a[] = {1e16, 1, -1e16}, b[] = {0x1p120, 1, -0x1p120}, c[] = {1, 0x1p120, 1, -0x1p120, 1};
  kg_ref r;
  kg_reference(KG_F64, a, 3, &r);
  ck_assert(r.sum == 1.0L);
  ck_assert(r.sum_abs == 2e16L + 1);
  kg_reference(KG_F64, b, 3, &r);
  ck_assert(r.sum == 1.0L);
  kg_reference(KG_F64, c, 5, &r);
  ck_assert(r.sum == 3.0L);
  ck_assert(!r.has_nan && !r.has_pinf && !r.has_ninf);
}
END_TEST

START_TEST(test_reference_narrow_floats) {
  float f[10];
  for (int i = 0; i < 10; i++) f[i] = 0.1f;
  kg_ref r;
  kg_reference(KG_F32, f, 10, &r);
  ck_assert(r.sum == 10.0L * 0.1f);
  uint16_t h[] = {kg_f16_from_float(1.5f), kg_f16_from_float(-0.25f)};
  kg_reference(KG_F16, h, 2, &r);
  ck_assert(r.sum == 1.25L && r.sum_abs == 1.75L);
  uint16_t b[] = {kg_bf16_from_float(-3.0f), kg_bf16_from_float(0.5f)};
  kg_reference(KG_BF16, b, 2, &r);
  ck_assert(r.sum == -2.5L && r.sum_abs == 3.5L);
}
END_TEST

START_TEST(test_reference_special_flags) {
  double x[] = {1, NAN, 2, INFINITY, -INFINITY, -4};
  kg_ref r;
  kg_reference(KG_F64, x, 6, &r);
  ck_assert(r.has_nan && r.has_pinf && r.has_ninf);
  ck_assert(r.sum == -1.0L && r.sum_abs == 7.0L); /* the finite elements only */
  kg_reference(KG_F64, x, 1, &r);
  ck_assert(!r.has_nan && !r.has_pinf && !r.has_ninf);
  float y[] = {-INFINITY, 1};
  kg_reference(KG_F32, y, 2, &r);
  ck_assert(!r.has_nan && !r.has_pinf && r.has_ninf);
}
END_TEST

/* kg_reference reads the floats a block at a time: over several blocks and a
 * partial last one, every element counts, wherever it falls. Small integers
 * with specials (floats) and the min and max in odd places. */
START_TEST(test_reference_every_element) {
  enum { N = 3 * 512 + 7 };
  kg_dtype dt = (kg_dtype)_i;
  int fl = kg_dtype_get(dt)->is_float;
  static unsigned char buf[N * 8];
  double sum = 0, abs = 0;
  for (size_t i = 0; i < N; i++) {
    double v = i == 513 ? 60 : i == N - 1 ? -50 : (double)(i % 7) - 3;
    if (fl && (i == 600 || i == 1000 || i == 1300)) v = i == 600 ? -INFINITY : i == 1000 ? NAN : INFINITY;
    kg_dtype_store(dt, buf, i, v);
    if (isfinite(v)) sum += v, abs += fabs(v);
  }
  kg_ref r;
  kg_reference(dt, buf, N, &r);
  if (!fl) {
    ck_assert_int_eq((int64_t)r.isum, (int64_t)sum);
    ck_assert_int_eq(r.imin, -50);
    ck_assert_int_eq(r.imax, 60);
    ck_assert_uint_eq(r.nvals, N);
    return;
  }
  ck_assert(r.sum == sum && r.sum_err == 0 && r.sum_abs == abs);
  ck_assert(r.has_nan && r.has_pinf && r.has_ninf);
  ck_assert(r.fmin == -INFINITY && r.fmax == INFINITY);
  ck_assert_uint_eq(r.nvals, N - 1); /* the NaN is no value */
  kg_reference(dt, buf, 1000, &r); /* the first two blocks and part of the next: no NaN, no +Inf */
  ck_assert(!r.has_nan && !r.has_pinf && r.has_ninf);
  kg_reference(dt, buf, 600, &r);
  ck_assert(!r.has_ninf && r.fmin == -3 && r.fmax == 60);
}
END_TEST

/* References of two stretches merge into the reference of the whole. */
START_TEST(test_reference_merge) {
  kg_ref total = {0}, part;
  int32_t a[] = {INT32_MAX, 5}, b[] = {1, -5};
  kg_reference(KG_I32, a, 2, &part);
  kg_reference_merge(KG_I32, &total, &part);
  kg_reference(KG_I32, b, 2, &part);
  kg_reference_merge(KG_I32, &total, &part);
  ck_assert_uint_eq(total.isum, (uint64_t)(int64_t)INT32_MIN); /* wrapped like the whole */
  double x[] = {0.5, -3, NAN, 0x1p60, -0x1p60, INFINITY, 2};
  kg_ref whole;
  kg_reference(KG_F64, x, 7, &whole);
  total = (kg_ref){0};
  for (int k = 0; k < 7; k += 3) {
    kg_reference(KG_F64, x + k, k + 3 < 7 ? 3 : 7 - k, &part);
    kg_reference_merge(KG_F64, &total, &part);
  }
  ck_assert(total.sum == whole.sum && total.sum == -0.5L);
  ck_assert(total.sum_abs == whole.sum_abs);
  ck_assert(total.has_nan && total.has_pinf && !total.has_ninf);
  /* A partial can be huge while the total cancels: its residual must survive. */
  double big[] = {0x1p120, 1, -0x1p120};
  total = (kg_ref){0};
  for (int k = 0; k < 3; k++) {
    kg_reference(KG_F64, big + k, 1, &part);
    kg_reference_merge(KG_F64, &total, &part);
  }
  ck_assert(total.sum == 1.0L);
}
END_TEST

START_TEST(test_error_bound_formula) {
  ck_assert(kg_error_bound(KG_F32, 8, 0x1p20L) == 1.0);
  ck_assert(kg_error_bound(KG_BF16, 8, 0x1p20L) == 1.0); /* 16-bit types accumulate in f32 */
  ck_assert(kg_error_bound(KG_F64, 4, 0x1p50L) == 1.0);
  ck_assert_double_eq_tol(kg_error_bound(KG_F32, 21, 1000.0L), 2 * 21 * 0x1p-24 * 1000, 1e-18);
  ck_assert(kg_error_bound(KG_F32, 8, 0.0L) == 0.0);
}
END_TEST

START_TEST(test_value_from_acc_and_format) {
  char s[32];
  int32_t i = -12;
  kg_value v = kg_value_from_acc(KG_I32, &i);
  ck_assert_uint_eq(v.bits, (uint64_t)(int64_t)-12);
  kg_value_format(KG_I32, v, s, sizeof s);
  ck_assert_str_eq(s, "-12");
  float f = 0.1f;
  v = kg_value_from_acc(KG_F16, &f); /* 16-bit results come back as float */
  ck_assert(v.f == (double)0.1f);
  kg_value_format(KG_F32, v, s, sizeof s);
  ck_assert_str_eq(s, "0.10000000149011612");
  double d = NAN;
  v = kg_value_from_acc(KG_F64, &d);
  kg_value_format(KG_F64, v, s, sizeof s);
  ck_assert_str_eq(s, "nan");
  kg_ref r = {.has_pinf = 1, .has_ninf = 1};
  kg_ref_format(KG_F32, &r, s, sizeof s);
  ck_assert_str_eq(s, "nan");
  r = (kg_ref){.isum = (uint64_t)INT64_MIN};
  kg_ref_format(KG_I64, &r, s, sizeof s);
  ck_assert_str_eq(s, "-9223372036854775808");
}
END_TEST

#define I32MIN ((uint64_t)(int64_t)INT32_MIN)
#define IREF(v) {.isum = (v)}
#define FREF(s, a) {.sum = (s), .sum_abs = (a)}
#define SPECIAL(nan, pinf, ninf) {.sum = 3, .sum_abs = 3, .has_nan = nan, .has_pinf = pinf, .has_ninf = ninf}
#define IGOT(v) {.bits = (v)}
#define FGOT(v) {.f = (v)}

/* ratio < 0 means +Inf. */
static const struct {
  const char *what;
  kg_dtype dt;
  kg_pattern p;
  kg_ref ref;
  kg_value got;
  double depth;
  int pass;
  double abs_err, bound, ratio;
  const char *why; /* part of the reason; NULL for a pass */
} k_judge[] = {
    {"i32 equal", KG_I32, KG_PAT_EXACT, IREF(5), IGOT(5), 1, 1, 0, 0, 0, NULL},
    {"i32 off by one", KG_I32, KG_PAT_EXACT, IREF(5), IGOT(6), 1, 0, 1, 0, -1, "integer"},
    {"i32 wrapped, zero-extended", KG_I32, KG_PAT_WRAP, IREF(I32MIN), IGOT(0x80000000u), 1, 1, 0, 0, 0, NULL},
    {"i32 wrapped, off by one", KG_I32, KG_PAT_WRAP, IREF(I32MIN), IGOT(I32MIN + 1), 1, 0, 1, 0, -1, "integer"},
    {"i64 off by one", KG_I64, KG_PAT_WRAP, IREF((uint64_t)INT64_MIN), IGOT((uint64_t)INT64_MAX), 1, 0, 1, 0, -1, "integer"},
    {"f32 exact equal", KG_F32, KG_PAT_EXACT, FREF(5, 9), FGOT(5), 8, 1, 0, 0, 0, NULL},
    {"f32 exact one ulp", KG_F32, KG_PAT_EXACT, FREF(5, 9), FGOT(5 + 0x1p-21), 8, 0, 0x1p-21, 0, -1, "exact"},
    {"f64 exact one ulp", KG_F64, KG_PAT_EXACT, FREF(5, 9), FGOT(5 - 0x1p-50), 8, 0, 0x1p-50, 0, -1, "exact"},
    {"bounded, on the bound", KG_F32, KG_PAT_UNIFORM, FREF(100, 0x1p20), FGOT(101), 8, 1, 1, 1, 1, NULL},
    {"bounded, below", KG_F32, KG_PAT_UNIFORM, FREF(100, 0x1p20), FGOT(99.25), 8, 1, 0.75, 1, 0.75, NULL},
    {"bounded, just inside", KG_F32, KG_PAT_CANCEL, FREF(100, 0x1p20), FGOT(101 - 0x1p-40), 8, 1, 1 - 0x1p-40, 1, 1 - 0x1p-40, NULL},
    {"bounded, just outside", KG_F32, KG_PAT_UNIFORM, FREF(100, 0x1p20), FGOT(101 + 0x1p-40), 8, 0, 1 + 0x1p-40, 1, 1 + 0x1p-40, "bound"},
    {"bounded, far outside", KG_F32, KG_PAT_UNIFORM, FREF(100, 0x1p20), FGOT(98.5), 8, 0, 1.5, 1, 1.5, "bound"},
    {"bf16 bound uses the f32 accumulator", KG_BF16, KG_PAT_UNIFORM, FREF(0, 0x1p20), FGOT(1.5), 8, 0, 1.5, 1, 1.5, "bound"},
    {"f64 bounded", KG_F64, KG_PAT_UNIFORM, FREF(1, 0x1p50), FGOT(2), 4, 1, 1, 1, 1, NULL},
    {"zero bound, zero error", KG_F32, KG_PAT_UNIFORM, FREF(0, 0), FGOT(0), 8, 1, 0, 0, 0, NULL},
    {"zero bound, tiny error", KG_F32, KG_PAT_UNIFORM, FREF(0, 0), FGOT(1e-300), 8, 0, 1e-300, 0, -1, "bound"},
    {"NaN expected, NaN got", KG_F32, KG_PAT_NAN, SPECIAL(1, 0, 0), FGOT(NAN), 8, 1, 0, 0, 0, NULL},
    {"NaN expected, number got", KG_F32, KG_PAT_NAN, SPECIAL(1, 0, 0), FGOT(3), 8, 0, INFINITY, 0, -1, "NaN"},
    {"Inf - Inf expected, +Inf got", KG_F16, KG_PAT_INF_NAN, SPECIAL(0, 1, 1), FGOT(INFINITY), 8, 0, INFINITY, 0, -1, "NaN"},
    {"Inf - Inf expected, NaN got", KG_F16, KG_PAT_INF_NAN, SPECIAL(0, 1, 1), FGOT(NAN), 8, 1, 0, 0, 0, NULL},
    {"+Inf expected, +Inf got", KG_F32, KG_PAT_INF, SPECIAL(0, 1, 0), FGOT(INFINITY), 8, 1, 0, 0, 0, NULL},
    {"+Inf expected, -Inf got", KG_F32, KG_PAT_INF, SPECIAL(0, 1, 0), FGOT(-INFINITY), 8, 0, INFINITY, 0, -1, "infinity"},
    {"+Inf expected, huge got", KG_F64, KG_PAT_INF, SPECIAL(0, 1, 0), FGOT(1e308), 8, 0, INFINITY, 0, -1, "infinity"},
    {"finite expected, NaN got", KG_F32, KG_PAT_UNIFORM, FREF(1, 1), FGOT(NAN), 8, 0, INFINITY, 0x1p-20, -1, "not finite"},
    {"finite expected, +Inf got", KG_F32, KG_PAT_EXACT, FREF(1, 1), FGOT(INFINITY), 8, 0, INFINITY, 0, -1, "not finite"},
};

START_TEST(test_judge_case) {
  kg_judgement j;
  memset(&j, 0x7f, sizeof j);
  kg_judge(k_judge[_i].dt, k_judge[_i].p, &k_judge[_i].ref, k_judge[_i].got, k_judge[_i].depth, &j);
  const char *what = k_judge[_i].what;
  ck_assert_msg(j.pass == k_judge[_i].pass, "%s: pass %d", what, j.pass);
  ck_assert_msg(j.abs_err == k_judge[_i].abs_err, "%s: abs_err %a", what, j.abs_err);
  ck_assert_msg(j.bound == k_judge[_i].bound, "%s: bound %a", what, j.bound);
  if (k_judge[_i].ratio < 0) ck_assert_msg(isinf(j.ratio) && j.ratio > 0, "%s: ratio %g", what, j.ratio);
  else ck_assert_double_eq_tol(j.ratio, k_judge[_i].ratio, 1e-15);
  if (j.bound > 0 && isfinite(j.abs_err)) ck_assert_double_eq_tol(j.ratio, j.abs_err / j.bound, 1e-15);
  if (k_judge[_i].why) ck_assert_msg(j.why && strstr(j.why, k_judge[_i].why), "%s: why '%s'", what, j.why);
  else ck_assert_ptr_null(j.why);
}
END_TEST


/* ---- min and max ---------------------------------------------------------- */

/* A buffer of dtype dt holding vals (ints written exactly, floats rounded to
 * the storage type); out gets what was stored, as doubles. */
static void fill(kg_dtype dt, const double *vals, size_t n, void *buf, double *out) {
  for (size_t i = 0; i < n; i++) {
    if (dt == KG_I32) ((int32_t *)buf)[i] = (int32_t)vals[i], out[i] = vals[i];
    else if (dt == KG_I64) ((int64_t *)buf)[i] = (int64_t)vals[i], out[i] = vals[i];
    else out[i] = kg_dtype_store(dt, buf, i, vals[i]);
  }
}

/* The value a result holds after the accumulator: float for f32/f16/bf16. */
static kg_value acc_value(kg_dtype dt, double v) {
  kg_value x = {0, 0};
  if (!kg_dtype_get(dt)->is_float) x.bits = (uint64_t)(int64_t)v;
  else x.f = kg_dtype_get(dt)->acc_size == 4 ? (double)(float)v : v;
  return x;
}

/* The next value up in the accumulator: one bit off. */
static kg_value one_off(kg_dtype dt, kg_value v) {
  if (!kg_dtype_get(dt)->is_float) v.bits += 1;
  else v.f = kg_dtype_get(dt)->acc_size == 4 ? (double)nextafterf((float)v.f, INFINITY) : nextafter(v.f, INFINITY);
  return v;
}

/* Loop index: the dtype. Exact min and max over values that each dtype holds
 * exactly (f16/bf16 as stored, then widened exactly), any pattern; a result
 * one bit off fails. */
START_TEST(test_reference_minmax_exact) {
  kg_dtype dt = (kg_dtype)_i;
  static const double ints[] = {5, -7, 2147483647.0, -2147483648.0, 0, 12};
  static const double reals[] = {1.5, -0.375, 65504, -1e-3, 0.1, 3e-5, -2.75};
  int is_float = kg_dtype_get(dt)->is_float;
  const double *vals = is_float ? reals : ints;
  size_t n = is_float ? 7 : 6;
  unsigned char buf[64];
  double stored[8];
  fill(dt, vals, n, buf, stored);
  double lo = stored[0], hi = stored[0];
  for (size_t i = 1; i < n; i++) lo = stored[i] < lo ? stored[i] : lo, hi = stored[i] > hi ? stored[i] : hi;
  kg_ref ref;
  kg_reference(dt, buf, n, &ref);
  static const kg_pattern pats[] = {KG_PAT_EXACT, KG_PAT_UNIFORM, KG_PAT_WRAP};
  for (int op = KG_OP_MIN; op <= KG_OP_MAX; op++) {
    kg_value want = acc_value(dt, op == KG_OP_MIN ? lo : hi), got = kg_ref_minmax((unsigned)op, 0, dt, &ref);
    if (is_float) ck_assert_double_eq(got.f, want.f);
    else ck_assert_uint_eq(got.bits, want.bits);
    for (size_t p = 0; p < 3; p++) {
      kg_judgement j;
      kg_judge_op((unsigned)op, 0, dt, pats[p], &ref, want, 1e9, &j);
      ck_assert_msg(j.pass, "%s %s: %s", kg_dtype_get(dt)->name, op == KG_OP_MIN ? "min" : "max", j.why);
      ck_assert(j.bound == 0 && j.ratio == 0);
      /* a huge depth gives a sum a wide bound; a min or max has none */
      kg_judge_op((unsigned)op, 0, dt, pats[p], &ref, one_off(dt, want), 1e9, &j);
      ck_assert(!j.pass);
      ck_assert_ptr_nonnull(strstr(j.why, op == KG_OP_MIN ? "min differs" : "max differs"));
    }
    char text[64], shown[64];
    kg_ref_format_op((unsigned)op, 0, dt, &ref, text, sizeof text);
    kg_value_format(dt, want, shown, sizeof shown);
    ck_assert_str_eq(text, shown);
  }
  /* a sum through the same door is the sum's verdict */
  kg_judgement j;
  kg_judge_op(KG_OP_SUM, 0, dt, KG_PAT_EXACT, &ref, acc_value(dt, hi), 1, &j);
  ck_assert(!j.pass);
}
END_TEST

/* Loop index: the dtype. n = 0 gives the identity the ABI states. */
START_TEST(test_reference_minmax_identity) {
  kg_dtype dt = (kg_dtype)_i;
  kg_ref ref;
  kg_reference(dt, NULL, 0, &ref);
  kg_value mn = kg_ref_minmax(KG_OP_MIN, 0, dt, &ref), mx = kg_ref_minmax(KG_OP_MAX, 0, dt, &ref);
  if (dt == KG_I32) {
    ck_assert_int_eq((int64_t)mn.bits, INT32_MAX);
    ck_assert_int_eq((int64_t)mx.bits, INT32_MIN);
  } else if (dt == KG_I64) {
    ck_assert_int_eq((int64_t)mn.bits, INT64_MAX);
    ck_assert_int_eq((int64_t)mx.bits, INT64_MIN);
  } else {
    ck_assert(isinf(mn.f) && mn.f > 0);
    ck_assert(isinf(mx.f) && mx.f < 0);
  }
  kg_judgement j;
  kg_judge_op(KG_OP_MIN, KG_NAN_IGNORE, dt, KG_PAT_EXACT, &ref, mn, 1, &j);
  ck_assert(j.pass);
  kg_judge_op(KG_OP_MAX, 0, dt, KG_PAT_EXACT, &ref, (kg_value){0, 0}, 1, &j); /* 0 is a sum's identity */
  ck_assert(!j.pass);
}
END_TEST

/* Loop index: the float dtypes. The NaN policy is checked: PROPAGATE must
 * return NaN when an input is, IGNORE the min/max of the rest (NaN only
 * when every input is); the reason names the policy broken. */
static const kg_dtype k_floats[] = {KG_F32, KG_F64, KG_F16, KG_BF16};

START_TEST(test_reference_minmax_nan_policy) {
  kg_dtype dt = k_floats[_i];
  unsigned char buf[64];
  double stored[4];
  fill(dt, (const double[]){2, NAN, -3, 5}, 4, buf, stored);
  kg_ref ref;
  kg_reference(dt, buf, 4, &ref);
  kg_judgement j;
  kg_value nan = {0, NAN};
  /* propagate */
  ck_assert(isnan(kg_ref_minmax(KG_OP_MIN, KG_NAN_PROPAGATE, dt, &ref).f));
  kg_judge_op(KG_OP_MIN, KG_NAN_PROPAGATE, dt, KG_PAT_NAN, &ref, nan, 1, &j);
  ck_assert(j.pass);
  kg_judge_op(KG_OP_MIN, KG_NAN_PROPAGATE, dt, KG_PAT_NAN, &ref, acc_value(dt, -3), 1, &j);
  ck_assert(!j.pass);
  ck_assert_str_eq(j.why, "expected NaN: the input holds a NaN and the variant declares NaN propagate");
  /* ignore */
  ck_assert_double_eq(kg_ref_minmax(KG_OP_MAX, KG_NAN_IGNORE, dt, &ref).f, 5);
  ck_assert_double_eq(kg_ref_minmax(KG_OP_MIN, KG_NAN_IGNORE, dt, &ref).f, -3);
  kg_judge_op(KG_OP_MAX, KG_NAN_IGNORE, dt, KG_PAT_NAN, &ref, acc_value(dt, 5), 1, &j);
  ck_assert(j.pass);
  kg_judge_op(KG_OP_MAX, KG_NAN_IGNORE, dt, KG_PAT_NAN, &ref, nan, 1, &j);
  ck_assert(!j.pass);
  ck_assert_str_eq(j.why, "returned NaN but the variant declares NaN ignore");
  kg_judge_op(KG_OP_MAX, KG_NAN_IGNORE, dt, KG_PAT_NAN, &ref, acc_value(dt, 2), 1, &j);
  ck_assert(!j.pass);
  /* every input NaN: NaN either way */
  fill(dt, (const double[]){NAN, NAN}, 2, buf, stored);
  kg_reference(dt, buf, 2, &ref);
  ck_assert(isnan(kg_ref_minmax(KG_OP_MAX, KG_NAN_IGNORE, dt, &ref).f));
  kg_judge_op(KG_OP_MAX, KG_NAN_IGNORE, dt, KG_PAT_NAN, &ref, acc_value(dt, -INFINITY), 1, &j);
  ck_assert(!j.pass);
  ck_assert_str_eq(j.why, "expected NaN: every input is NaN");
  /* no NaN in the input: a NaN result is wrong under either policy */
  fill(dt, (const double[]){1, INFINITY, -INFINITY}, 3, buf, stored);
  kg_reference(dt, buf, 3, &ref);
  kg_judge_op(KG_OP_MIN, KG_NAN_PROPAGATE, dt, KG_PAT_INF_NAN, &ref, nan, 1, &j);
  ck_assert(!j.pass);
  ck_assert_str_eq(j.why, "returned NaN from an input without NaN");
  kg_judge_op(KG_OP_MIN, KG_NAN_PROPAGATE, dt, KG_PAT_INF_NAN, &ref, acc_value(dt, -INFINITY), 1, &j);
  ck_assert(j.pass);
}
END_TEST

/* -0 and +0 are one value: a min or max may return either. */
START_TEST(test_reference_minmax_signed_zero) {
  kg_dtype dt = k_floats[_i];
  unsigned char buf[64];
  double stored[3];
  fill(dt, (const double[]){0.0, -0.0, 1}, 3, buf, stored);
  kg_ref ref;
  kg_reference(dt, buf, 3, &ref);
  kg_judgement j;
  kg_judge_op(KG_OP_MIN, 0, dt, KG_PAT_EXACT, &ref, (kg_value){0, -0.0}, 1, &j);
  ck_assert(j.pass);
  kg_judge_op(KG_OP_MIN, 0, dt, KG_PAT_EXACT, &ref, (kg_value){0, 0.0}, 1, &j);
  ck_assert(j.pass);
}
END_TEST

/* Partial references merge to the whole's min and max, from a zeroed total
 * (as kg_input_make starts) and across parts that are all NaN. */
START_TEST(test_reference_minmax_merge) {
  double x[] = {NAN, NAN, 7, -2, 9, 4, -8, 3};
  int32_t y[] = {40, 50, 60, 70};
  kg_ref whole, total = {0}, part;
  kg_reference(KG_F64, x, 8, &whole);
  for (int k = 0; k < 8; k += 2) {
    kg_reference(KG_F64, x + k, 2, &part);
    kg_reference_merge(KG_F64, &total, &part);
  }
  ck_assert_double_eq(total.fmin, -8);
  ck_assert_double_eq(total.fmax, 9);
  ck_assert_uint_eq(total.nvals, whole.nvals);
  ck_assert(total.has_nan);
  total = (kg_ref){0};
  for (int k = 0; k < 4; k += 2) {
    kg_reference(KG_I32, y + k, 2, &part);
    kg_reference_merge(KG_I32, &total, &part);
  }
  ck_assert_int_eq(total.imin, 40); /* not the zeroed total's 0 */
  ck_assert_int_eq(total.imax, 70);
}
END_TEST

Suite *make_reference_suite(void) {
  Suite *s = suite_create("reference");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_reference_i32_wraps);
  tcase_add_test(core, test_reference_i64_wraps);
  tcase_add_test(core, test_reference_compensated);
  tcase_add_test(core, test_reference_narrow_floats);
  tcase_add_loop_test(core, test_reference_every_element, 0, KG_NDTYPES);
  tcase_add_test(core, test_reference_merge);
  tcase_add_test(core, test_error_bound_formula);
  tcase_add_test(core, test_value_from_acc_and_format);
  tcase_add_loop_test(core, test_judge_case, 0, sizeof k_judge / sizeof k_judge[0]);
  tcase_add_loop_test(core, test_reference_minmax_exact, 0, KG_NDTYPES);
  tcase_add_loop_test(core, test_reference_minmax_nan_policy, 0, 4);
  tcase_add_loop_test(core, test_reference_minmax_signed_zero, 0, 4);
  tcase_add_test(core, test_reference_minmax_merge);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_test(limits, test_reference_special_flags);
  tcase_add_loop_test(limits, test_reference_minmax_identity, 0, KG_NDTYPES);
  suite_add_tcase(s, limits);
  return s;
}
