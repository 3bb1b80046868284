/* The re-check after timing (recheck.h): the edits between samples and
 * each sample's expected result, on the CPU. */
#include "recheck.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "pattern.h"

/* Exponents of powers of two a float dtype stores exactly: the smallest
 * normal, and the largest an edit may use. An f16 holds at most 2^15; bf16
 * and f32 stop at 2^64 and f64 at 2^512, far below overflow, so that the
 * accumulated sum stays finite with every element at its largest. */
static void pow2_range(kg_dtype dt, int *lo, int *hi) {
  *lo = dt == KG_F16 ? -14 : dt == KG_F64 ? -1022 : -126;
  *hi = dt == KG_F16 ? 15 : dt == KG_F64 ? 512 : 64;
}

/* Element place of the input, as its bytes and as a number. */
static double old_value(const kg_recheck *r, size_t place, unsigned char bytes[8], int64_t *ival) {
  memset(bytes, 0, 8);
  kg_gen_store_at(&r->gen, place, bytes, 0);
  if (!kg_dtype_get(r->dt)->is_float) {
    *ival = kg_dtype_load_int(r->dt, bytes, 0);
    return (double)*ival;
  }
  *ival = 0;
  return kg_dtype_load(r->dt, bytes, 0);
}

/* The place of odd sample i's edit. */
static size_t place_of(const kg_recheck *r, size_t i) { return (size_t)(kg_gen_hash(r->key, i) % r->n); }

/* Float sums: the smallest power of two M whose edit over an element of
 * magnitude a moves the expected sum farther than the bounds before and
 * after it together (with a factor 2 to spare: the CPU's long double
 * update rounds too), so that no one result is within both. 0: none fits. */
static double magnitude(const kg_recheck *r, double a) {
  int lo, hi;
  pow2_range(r->dt, &lo, &hi);
  double before = kg_error_bound(r->dt, r->plan_depth, r->ref.sum_abs);
  int e = ilogb(a + before > 0 ? a + before : 1.0);
  for (e = e < lo ? lo : e; e <= hi; e++) {
    double m = ldexp(1.0, e);
    double after = kg_error_bound(r->dt, r->plan_depth, r->ref.sum_abs - a + m);
    if (m - a > 2 * (before + after)) return m;
  }
  return 0;
}

/* Min and max: a power of two beyond the input's extreme (the type's limit
 * for integers), as a value of dt; 0 with why when none fits. */
static int beyond(const kg_recheck *r, double *t, char *why, size_t len) {
  int max = r->op == KG_OP_MAX;
  if (!kg_dtype_get(r->dt)->is_float) {
    int64_t top = r->dt == KG_I32 ? INT32_MAX : INT64_MAX, bottom = r->dt == KG_I32 ? INT32_MIN : INT64_MIN;
    int64_t x = max ? r->ref.imax : r->ref.imin;
    if (x == (max ? top : bottom))
      return snprintf(why, len, "the input holds the type's %s value", max ? "largest" : "smallest"), 0;
    *t = max ? (double)top : (double)bottom; /* read back through the integer path (edit_value) */
    return 1;
  }
  double x = max ? r->ref.fmax : -r->ref.fmin; /* the magnitude to pass, as a max */
  int lo, hi;
  pow2_range(r->dt, &lo, &hi);
  int e = x < 1 ? 0 : ilogb(x) + 1;
  if (e > (r->dt == KG_F16 ? 15 : r->dt == KG_F64 ? 1023 : 127))
    return snprintf(why, len, "no value beyond the input's %s fits the type", max ? "max" : "min"), 0;
  *t = max ? ldexp(1.0, e) : -ldexp(1.0, e);
  return 1;
}

/* r's kind (and why) from its input, operation and plan_depth. */
static void plan(kg_recheck *r) {
  const kg_ref *ref = &r->ref;
  int is_float = kg_dtype_get(r->dt)->is_float;
  double t;
  r->kind = KG_RECHECK_EXACT;
  r->why[0] = '\0';
  if (r->n == 0) {
    r->kind = KG_RECHECK_NONE, snprintf(r->why, sizeof r->why, "an empty input");
  } else if (is_float && (ref->has_nan || ref->has_pinf || ref->has_ninf)) {
    r->kind = KG_RECHECK_NONE, snprintf(r->why, sizeof r->why, "the input holds a NaN or an infinity");
  } else if (r->op == KG_OP_MIN || r->op == KG_OP_MAX) {
    if (!beyond(r, &t, r->why, sizeof r->why)) r->kind = KG_RECHECK_NONE;
  } else if (is_float && !kg_pattern_is_exact(r->pattern, r->dt)) {
    double widest = fabs(ref->fmin) > fabs(ref->fmax) ? fabs(ref->fmin) : fabs(ref->fmax);
    r->kind = magnitude(r, widest) > 0 ? KG_RECHECK_BOUNDED : KG_RECHECK_WEAK;
    if (r->kind == KG_RECHECK_WEAK)
      snprintf(r->why, sizeof r->why, "the error bound is wider than any change %s holds", kg_dtype_get(r->dt)->name);
  }
}

void kg_recheck_init(kg_recheck *r, kg_dtype dt, kg_pattern pattern, unsigned op, unsigned nan, uint64_t seed,
                     size_t n, double depth, const kg_ref *ref, uint64_t key) {
  memset(r, 0, sizeof *r);
  r->dt = dt, r->pattern = pattern, r->op = op, r->nan = nan, r->n = n, r->ref = *ref;
  r->depth = r->plan_depth = depth;
  r->key = key;
  kg_gen_init(&r->gen, (int)dt, (int)pattern, seed, n);
  plan(r);
}

void kg_recheck_pair(kg_recheck *head, kg_recheck *base, double base_depth) {
  if (base_depth > head->plan_depth) head->plan_depth = base_depth;
  plan(head);
  *base = *head;
  base->depth = base_depth;
}

/* The new value of odd sample i's edit over old (as a number; ints in *inew). */
static double edit_value(const kg_recheck *r, size_t i, double old, int64_t iold, int64_t *inew) {
  double t = 0;
  char why[80];
  int is_float = kg_dtype_get(r->dt)->is_float;
  if (r->op == KG_OP_MIN || r->op == KG_OP_MAX) {
    beyond(r, &t, why, sizeof why);
    if (!is_float) *inew = r->op == KG_OP_MAX ? (r->dt == KG_I32 ? INT32_MAX : INT64_MAX)
                                              : (r->dt == KG_I32 ? INT32_MIN : INT64_MIN);
    return t;
  }
  uint64_t h = kg_gen_mix(r->key ^ (i * 0x9e3779b97f4a7c15ull) ^ 0x5851f42d4c957f2dull);
  if (!is_float) {
    int64_t v = r->dt == KG_I32 ? (int64_t)(int32_t)(uint32_t)h : (int64_t)h;
    *inew = v == iold ? v ^ 1 : v;
    return (double)*inew;
  }
  if (kg_pattern_is_exact(r->pattern, r->dt)) return old != 0 ? -old : (h & 1) ? 1.0 : -1.0;
  double m = magnitude(r, fabs(old));
  int lo, hi;
  pow2_range(r->dt, &lo, &hi);
  if (m == 0) m = ldexp(1.0, hi); /* weak: the largest change there is */
  return (h & 1) ? m : -m;
}

int kg_recheck_edit(const kg_recheck *r, size_t i, size_t *place, unsigned char value[8]) {
  if (r->kind == KG_RECHECK_NONE || i == 0) return 0;
  if (i % 2 == 0) return kg_recheck_restore(r, i, place, value);
  int64_t iold, inew = 0;
  *place = place_of(r, i);
  double old = old_value(r, *place, value, &iold), v = edit_value(r, i, old, iold, &inew);
  memset(value, 0, 8);
  if (kg_dtype_get(r->dt)->is_float) kg_dtype_store(r->dt, value, 0, v);
  else if (r->dt == KG_I32) {
    int32_t x = (int32_t)inew;
    memcpy(value, &x, 4);
  } else {
    memcpy(value, &inew, 8);
  }
  return 1;
}

int kg_recheck_restore(const kg_recheck *r, size_t done, size_t *place, unsigned char value[8]) {
  if (r->kind == KG_RECHECK_NONE || done < 2 || done % 2) return 0; /* sample done-1 read an unchanged input */
  int64_t iold;
  *place = place_of(r, done - 1);
  old_value(r, *place, value, &iold);
  return 1;
}

void kg_recheck_ref(const kg_recheck *r, size_t i, kg_ref *out) {
  *out = r->ref;
  size_t place;
  unsigned char nb[8], ob[8];
  if (r->kind == KG_RECHECK_NONE || i % 2 == 0 || !kg_recheck_edit(r, i, &place, nb)) return;
  int64_t iold, inew = 0;
  double old = old_value(r, place, ob, &iold);
  if (!kg_dtype_get(r->dt)->is_float) {
    inew = kg_dtype_load_int(r->dt, nb, 0);
    out->isum += (uint64_t)inew - (uint64_t)iold; /* mod 2^64; i32 reads the low half */
    if (r->op == KG_OP_MIN) out->imin = inew;
    if (r->op == KG_OP_MAX) out->imax = inew;
    return;
  }
  double v = kg_dtype_load(r->dt, nb, 0);
  out->sum += (long double)v - (long double)old;
  out->sum_abs += fabsl((long double)v) - fabsl((long double)old);
  if (r->op == KG_OP_MIN) out->fmin = v;
  if (r->op == KG_OP_MAX) out->fmax = v;
}

int kg_recheck_judge(const kg_recheck *r, size_t i, size_t count, const void *acc, char *msg, size_t len) {
  kg_ref ref;
  kg_recheck_ref(r, i, &ref);
  kg_value got = kg_value_from_acc(r->dt, acc);
  kg_judgement j;
  kg_judge_op(r->op, r->nan, r->dt, r->pattern, &ref, got, r->depth, &j);
  if (j.pass) return 1;
  char g[40], want[40], how[48] = "as checked";
  kg_value_format(r->dt, got, g, sizeof g);
  kg_ref_format_op(r->op, r->nan, r->dt, &ref, want, sizeof want);
  if (i % 2 && r->kind != KG_RECHECK_NONE) snprintf(how, sizeof how, "element %zu changed", place_of(r, i));
  snprintf(msg, len, "after timing, sample %zu of %zu (input %s): got %s, expected %s (%s)", i + 1, count, how, g, want,
           j.why ? j.why : "differs");
  return 0;
}
