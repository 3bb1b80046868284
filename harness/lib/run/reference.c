#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"

/* Neumaier's compensated step in long double: far below any bound we test. */
static void neumaier(long double *s, long double *c, long double x) {
  long double t = *s + x;
  *c += fabsl(*s) >= fabsl(x) ? (*s - t) + x : (x - t) + *s;
  *s = t;
}

/* Knuth's two-sum: *s + *err == a + b exactly. */
static void two_sum(long double a, long double b, long double *s, long double *err) {
  long double t = a + b, bb = t - a;
  *err = (a - (t - bb)) + (b - bb);
  *s = t;
}

/* Integers: the sum wraps mod 2^64, every element counts for the min and max. */
static void reference_int(kg_dtype dt, const void *buf, size_t n, kg_ref *ref) {
  uint64_t s = 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t i = 0; i < n; i++) {
    int64_t x = dt == KG_I64 ? ((const int64_t *)buf)[i] : ((const int32_t *)buf)[i];
    s += (uint64_t)x;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  ref->isum = dt == KG_I32 ? (uint64_t)(int64_t)(int32_t)(uint32_t)s : s;
  ref->imin = lo, ref->imax = hi;
  ref->nvals = n;
}

/* The elements are read a block at a time (kg_dtype_load_many) so that no
 * call sits inside the summing loop: a call would move the long-double sums
 * out of the FPU's registers and back for every element. The same
 * operations in the same order, so the same bits. */
#define REF_BLOCK 512

void kg_reference(kg_dtype dt, const void *buf, size_t n, kg_ref *ref) {
  memset(ref, 0, sizeof *ref);
  ref->imin = INT64_MAX, ref->imax = INT64_MIN, ref->fmin = INFINITY, ref->fmax = -INFINITY;
  if (!kg_dtype_get(dt)->is_float) {
    reference_int(dt, buf, n, ref);
    return;
  }
  long double s = 0, c = 0, a = 0;
  double fmin = INFINITY, fmax = -INFINITY, xs[REF_BLOCK];
  size_t nvals = 0, size = kg_dtype_get(dt)->size;
  int nan = 0, pinf = 0, ninf = 0;
  for (size_t b = 0; b < n; b += REF_BLOCK) {
    size_t m = n - b < REF_BLOCK ? n - b : REF_BLOCK;
    kg_dtype_load_many(dt, (const char *)buf + b * size, m, xs);
    for (size_t i = 0; i < m; i++) {
      double x = xs[i];
      if (isnan(x)) nan = 1;
      else if (isinf(x)) *(x > 0 ? &pinf : &ninf) = 1;
      if (!isnan(x)) {
        nvals++;
        if (x < fmin) fmin = x;
        if (x > fmax) fmax = x;
      }
      if (!isfinite(x)) continue;
      neumaier(&s, &c, x);
      a += fabsl((long double)x);
    }
  }
  ref->has_nan = nan, ref->has_pinf = pinf, ref->has_ninf = ninf;
  ref->nvals = nvals, ref->fmin = fmin, ref->fmax = fmax;
  two_sum(s, c, &ref->sum, &ref->sum_err);
  ref->sum_abs = a;
}

void kg_reference_merge(kg_dtype dt, kg_ref *total, const kg_ref *part) {
  uint64_t s = total->isum + part->isum;
  total->isum = dt == KG_I32 ? (uint64_t)(int64_t)(int32_t)(uint32_t)s : s;
  /* Carry the residuals: a partial may be huge while the total cancels. */
  long double t, e;
  two_sum(total->sum, part->sum, &t, &e);
  two_sum(t, total->sum_err + part->sum_err + e, &total->sum, &total->sum_err);
  total->sum_abs += part->sum_abs;
  total->has_nan |= part->has_nan;
  total->has_pinf |= part->has_pinf;
  total->has_ninf |= part->has_ninf;
  if (part->nvals && !total->nvals) { /* total may be all zeros (a fresh sum): take the part's */
    total->imin = part->imin, total->imax = part->imax, total->fmin = part->fmin, total->fmax = part->fmax;
    total->nvals = part->nvals;
  } else if (part->nvals) {
    if (part->imin < total->imin) total->imin = part->imin;
    if (part->imax > total->imax) total->imax = part->imax;
    if (part->fmin < total->fmin) total->fmin = part->fmin;
    if (part->fmax > total->fmax) total->fmax = part->fmax;
    total->nvals += part->nvals;
  }
}

kg_value kg_value_from_acc(kg_dtype dt, const void *acc) {
  kg_value v = {0, 0};
  switch (dt) {
  case KG_I32: {
    int32_t x;
    memcpy(&x, acc, 4);
    v.bits = (uint64_t)(int64_t)x;
    break;
  }
  case KG_I64: memcpy(&v.bits, acc, 8); break;
  case KG_F64: memcpy(&v.f, acc, 8); break;
  default: {
    float x;
    memcpy(&x, acc, 4);
    v.f = x;
  }
  }
  return v;
}

static void format_float(double f, char *buf, size_t len) {
  if (isnan(f)) snprintf(buf, len, "nan");
  else snprintf(buf, len, "%.17g", f);
}

void kg_value_format(kg_dtype dt, kg_value v, char *buf, size_t len) {
  if (kg_dtype_get(dt)->is_float) format_float(v.f, buf, len);
  else snprintf(buf, len, "%lld", (long long)(int64_t)v.bits);
}

/* What the reference says the result must be, specials first. */
static double expected_float(const kg_ref *ref) {
  if (ref->has_nan || (ref->has_pinf && ref->has_ninf)) return NAN;
  if (ref->has_pinf) return INFINITY;
  if (ref->has_ninf) return -INFINITY;
  return (double)ref->sum;
}

void kg_ref_format(kg_dtype dt, const kg_ref *ref, char *buf, size_t len) {
  if (kg_dtype_get(dt)->is_float) format_float(expected_float(ref), buf, len);
  else snprintf(buf, len, "%lld", (long long)(int64_t)ref->isum);
}

double kg_error_bound(kg_dtype dt, double depth, long double sum_abs) {
  return (double)(2.0L * depth * kg_dtype_get(dt)->unit_roundoff * sum_abs);
}

void kg_judge(kg_dtype dt, kg_pattern p, const kg_ref *ref, kg_value got, double depth, kg_judgement *j) {
  memset(j, 0, sizeof *j);
  if (!kg_dtype_get(dt)->is_float) {
    uint64_t mask = dt == KG_I32 ? 0xffffffffull : ~0ull;
    uint64_t diff = (got.bits - ref->isum) & mask;
    j->pass = diff == 0;
    int64_t sdiff = dt == KG_I32 ? (int64_t)(int32_t)(uint32_t)diff : (int64_t)diff;
    j->abs_err = fabs((double)sdiff);
    j->ratio = j->pass ? 0 : INFINITY;
    j->why = j->pass ? NULL : "integer sum differs";
    return;
  }
  double want = expected_float(ref);
  if (isnan(want) || isinf(want)) {
    j->pass = isnan(want) ? isnan(got.f) != 0 : got.f == want;
    j->abs_err = j->pass ? 0 : INFINITY;
    j->ratio = j->pass ? 0 : INFINITY;
    j->why = j->pass ? NULL : isnan(want) ? "expected NaN" : "expected an infinity";
    return;
  }
  if (!isfinite(got.f)) {
    j->abs_err = j->ratio = INFINITY;
    j->bound = kg_pattern_is_exact(p, dt) ? 0 : kg_error_bound(dt, depth, ref->sum_abs);
    j->why = "result is not finite";
    return;
  }
  long double err = fabsl((long double)got.f - ref->sum);
  j->abs_err = (double)err;
  if (kg_pattern_is_exact(p, dt)) {
    j->pass = err == 0;
    j->ratio = j->pass ? 0 : INFINITY;
    j->why = j->pass ? NULL : "exact-tier sum differs";
    return;
  }
  j->bound = kg_error_bound(dt, depth, ref->sum_abs);
  j->pass = err <= j->bound;
  j->ratio = j->bound > 0 ? (double)(err / j->bound) : (err == 0 ? 0 : INFINITY);
  j->why = j->pass ? NULL : "error exceeds the bound";
}

/* ---- min and max ---------------------------------------------------------- */

kg_value kg_ref_minmax(unsigned op, unsigned nan, kg_dtype dt, const kg_ref *ref) {
  kg_value v = {0, 0};
  int is_min = op == KG_OP_MIN;
  if (!kg_dtype_get(dt)->is_float) {
    /* imin/imax start at the i64 identity; i32's is its own. */
    int64_t x = is_min ? ref->imin : ref->imax;
    if (!ref->nvals && dt == KG_I32) x = is_min ? INT32_MAX : INT32_MIN;
    v.bits = (uint64_t)x;
    return v;
  }
  if (ref->has_nan && (nan == KG_NAN_PROPAGATE || ref->nvals == 0)) v.f = NAN;
  else v.f = is_min ? ref->fmin : ref->fmax; /* +inf / -inf when empty */
  return v;
}

void kg_judge_op(unsigned op, unsigned nan, kg_dtype dt, kg_pattern p, const kg_ref *ref, kg_value got, double depth,
                 kg_judgement *j) {
  if (op != KG_OP_MIN && op != KG_OP_MAX) {
    kg_judge(dt, p, ref, got, depth, j);
    return;
  }
  memset(j, 0, sizeof *j);
  kg_value want = kg_ref_minmax(op, nan, dt, ref);
  if (!kg_dtype_get(dt)->is_float) {
    j->pass = got.bits == want.bits;
    j->abs_err = j->pass ? 0 : fabs((double)(int64_t)got.bits - (double)(int64_t)want.bits);
    j->ratio = j->pass ? 0 : INFINITY;
    j->why = j->pass ? NULL : op == KG_OP_MIN ? "integer min differs" : "integer max differs";
    return;
  }
  if (isnan(want.f)) {
    j->pass = isnan(got.f) != 0;
    j->why = j->pass                   ? NULL
             : nan == KG_NAN_PROPAGATE ? "expected NaN: the input holds a NaN and the variant declares NaN propagate"
                                       : "expected NaN: every input is NaN";
  } else if (isnan(got.f)) {
    j->why =
        ref->has_nan ? "returned NaN but the variant declares NaN ignore" : "returned NaN from an input without NaN";
  } else {
    j->pass = got.f == want.f; /* exact: -0 == +0, every other value is one bit pattern */
    j->why = j->pass ? NULL : op == KG_OP_MIN ? "min differs (a min is exact)" : "max differs (a max is exact)";
  }
  j->abs_err = j->pass ? 0 : isfinite(got.f) && isfinite(want.f) ? fabs(got.f - want.f) : INFINITY;
  j->ratio = j->pass ? 0 : INFINITY;
}

void kg_ref_format_op(unsigned op, unsigned nan, kg_dtype dt, const kg_ref *ref, char *buf, size_t len) {
  if (op != KG_OP_MIN && op != KG_OP_MAX) kg_ref_format(dt, ref, buf, len);
  else kg_value_format(dt, kg_ref_minmax(op, nan, dt, ref), buf, len);
}
