/* recheck: the timer's guard on the CPU: the re-check after timing (its
 * edits and expected results against a reference of the edited input), the
 * cold-L2 verdict, and the guard's JSON in both forms. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cold.h"
#include "dtype.h"
#include "fileio.h"
#include "input.h"
#include "jread.h"
#include "model.h"
#include "recheck.h"

#define N(a) (int)(sizeof a / sizeof a[0])

typedef struct rc_case {
  kg_dtype dt;
  kg_pattern p;
  unsigned op;
  size_t n;
  kg_recheck_kind kind;
} rc_case;

static const rc_case k_cases[] = {
    {KG_I32, KG_PAT_WRAP, KG_OP_SUM, 1000, KG_RECHECK_EXACT},
    {KG_I64, KG_PAT_WRAP, KG_OP_SUM, 4097, KG_RECHECK_EXACT},
    {KG_I32, KG_PAT_EXACT, KG_OP_SUM, 777, KG_RECHECK_EXACT},
    {KG_F32, KG_PAT_UNIFORM, KG_OP_SUM, 1 << 16, KG_RECHECK_BOUNDED},
    {KG_F64, KG_PAT_UNIFORM, KG_OP_SUM, 3001, KG_RECHECK_BOUNDED},
    {KG_F16, KG_PAT_UNIFORM, KG_OP_SUM, 1 << 14, KG_RECHECK_BOUNDED},
    {KG_BF16, KG_PAT_UNIFORM, KG_OP_SUM, 5000, KG_RECHECK_BOUNDED},
    {KG_F32, KG_PAT_EXACT, KG_OP_SUM, 1 << 12, KG_RECHECK_EXACT},
    {KG_F32, KG_PAT_TINY, KG_OP_SUM, 2048, KG_RECHECK_BOUNDED},
    {KG_I32, KG_PAT_WRAP, KG_OP_MAX, 1000, KG_RECHECK_EXACT},
    {KG_I64, KG_PAT_EXACT, KG_OP_MIN, 1000, KG_RECHECK_EXACT},
    {KG_F32, KG_PAT_UNIFORM, KG_OP_MIN, 999, KG_RECHECK_EXACT},
    {KG_F16, KG_PAT_UNIFORM, KG_OP_MAX, 4096, KG_RECHECK_EXACT},
    {KG_F64, KG_PAT_EXACT, KG_OP_MAX, 100, KG_RECHECK_EXACT},
};

/* The result a correct variant returns for ref: the reference rounded to the accumulator. */
static void acc_of(kg_dtype dt, unsigned op, const kg_ref *ref, unsigned char acc[8]) {
  memset(acc, 0, 8);
  if (op != KG_OP_SUM) {
    kg_value v = kg_ref_minmax(op, KG_NAN_PROPAGATE, dt, ref);
    if (!kg_dtype_get(dt)->is_float) memcpy(acc, &v.bits, kg_dtype_get(dt)->acc_size);
    else if (dt == KG_F64) memcpy(acc, &v.f, 8);
    else {
      float f = (float)v.f;
      memcpy(acc, &f, 4);
    }
    return;
  }
  if (!kg_dtype_get(dt)->is_float) {
    memcpy(acc, &ref->isum, kg_dtype_get(dt)->acc_size); /* little-endian: the low half for i32 */
  } else if (dt == KG_F64) {
    double d = (double)(ref->sum + ref->sum_err);
    memcpy(acc, &d, 8);
  } else {
    float f = (float)(ref->sum + ref->sum_err);
    memcpy(acc, &f, 4);
  }
}

/* Each sample's edit applied to a copy of the input: the planned reference
 * equals one computed afresh from the edited input; the result a correct
 * variant returns passes, the one before it (a cached result) fails; the
 * restore after an even count of samples gives the input back. */
START_TEST(test_recheck_edits_match_reference) {
  const rc_case *c = &k_cases[_i];
  const kg_dtype_info *di = kg_dtype_get(c->dt);
  unsigned char *pristine = malloc(c->n * di->size), *buf = malloc(c->n * di->size);
  kg_ref ref, fresh, planned;
  kg_input_make(c->dt, c->p, 42, c->n, pristine, &ref, 1);
  memcpy(buf, pristine, c->n * di->size);
  kg_recheck r;
  double depth = 20;
  kg_recheck_init(&r, c->dt, c->p, c->op, KG_NAN_PROPAGATE, 42, c->n, depth, &ref, 0x1234abcdull + (uint64_t)_i);
  ck_assert_msg(r.kind == c->kind, "kind %d (%s)", r.kind, r.why);
  unsigned char acc[8], last[8];
  const size_t count = 12;
  for (size_t i = 0; i < count; i++) {
    size_t place;
    unsigned char v[8];
    if (kg_recheck_edit(&r, i, &place, v)) memcpy(buf + place * di->size, v, di->size);
    ck_assert_int_eq(kg_recheck_edit(&r, i, &place, v), i > 0);
    kg_reference(c->dt, buf, c->n, &fresh);
    kg_recheck_ref(&r, i, &planned);
    if (!di->is_float) {
      uint64_t mask = c->dt == KG_I32 ? 0xffffffffull : ~0ull;
      ck_assert_uint_eq(planned.isum & mask, fresh.isum & mask);
      if (c->op == KG_OP_MAX) ck_assert_int_eq(planned.imax, fresh.imax);
      if (c->op == KG_OP_MIN) ck_assert_int_eq(planned.imin, fresh.imin);
    } else if (c->op == KG_OP_SUM) {
      ck_assert_msg(fabsl(planned.sum + planned.sum_err - fresh.sum - fresh.sum_err) <= 1e-15L * fresh.sum_abs,
                    "sample %zu: sum %Lg, afresh %Lg", i, planned.sum, fresh.sum);
      ck_assert(fabsl(planned.sum_abs - fresh.sum_abs) <= 1e-12L * fresh.sum_abs);
    } else {
      ck_assert(c->op == KG_OP_MIN ? planned.fmin == fresh.fmin : planned.fmax == fresh.fmax);
    }
    acc_of(c->dt, c->op, &fresh, acc);
    char msg[200] = "";
    ck_assert_msg(kg_recheck_judge(&r, i, count, acc, msg, sizeof msg), "sample %zu: %s", i, msg);
    if (i > 0) { /* the last sample's result, returned again */
      ck_assert_int_eq(kg_recheck_judge(&r, i, count, last, msg, sizeof msg), 0);
      ck_assert_msg(strstr(msg, "after timing, sample") != NULL && strstr(msg, "expected") != NULL, "%s", msg);
    }
    memcpy(last, acc, 8);
  }
  size_t place;
  unsigned char v[8];
  ck_assert_int_eq(kg_recheck_restore(&r, count, &place, v), 1);
  memcpy(buf + place * di->size, v, di->size);
  ck_assert_int_eq(memcmp(buf, pristine, c->n * di->size), 0);
  ck_assert_int_eq(kg_recheck_restore(&r, count - 1, &place, v), 0); /* an odd count ends unchanged */
  free(pristine);
  free(buf);
}
END_TEST

/* Where no edit can be judged, nothing is edited and the why says so. */
START_TEST(test_recheck_none_and_weak) {
  kg_ref ref;
  unsigned char buf[64 * 4];
  kg_recheck r;
  size_t place;
  unsigned char v[8];
  kg_input_make(KG_F32, KG_PAT_NAN, 1, 64, buf, &ref, 1);
  kg_recheck_init(&r, KG_F32, KG_PAT_NAN, KG_OP_SUM, 0, 1, 64, 5, &ref, 7);
  ck_assert_int_eq(r.kind, KG_RECHECK_NONE);
  ck_assert_str_eq(r.why, "the input holds a NaN or an infinity");
  ck_assert_int_eq(kg_recheck_edit(&r, 1, &place, v), 0);
  kg_input_make(KG_I32, KG_PAT_WRAP, 1, 0, buf, &ref, 1);
  kg_recheck_init(&r, KG_I32, KG_PAT_WRAP, KG_OP_SUM, 0, 1, 0, 1, &ref, 7);
  ck_assert_str_eq(r.why, "an empty input");
  kg_input_make(KG_I32, KG_PAT_WRAP, 1, 64, buf, &ref, 1);
  ref.imax = INT32_MAX; /* the type's largest value is in the input: no max lies beyond it */
  kg_recheck_init(&r, KG_I32, KG_PAT_WRAP, KG_OP_MAX, 0, 1, 64, 1, &ref, 7);
  ck_assert_int_eq(r.kind, KG_RECHECK_NONE);
  ck_assert_str_eq(r.why, "the input holds the type's largest value");
  /* a bound as wide as the sum itself (depth 2^22 in f16 sums in f32): no change can outgrow it */
  static unsigned char big[(1 << 12) * 2];
  kg_input_make(KG_F16, KG_PAT_UNIFORM, 1, 1 << 12, big, &ref, 1);
  kg_recheck_init(&r, KG_F16, KG_PAT_UNIFORM, KG_OP_SUM, 0, 1, 1 << 12, 0x1p22, &ref, 7);
  ck_assert_int_eq(r.kind, KG_RECHECK_WEAK);
  ck_assert_str_eq(r.why, "the error bound is wider than any change f16 holds");
  ck_assert_int_eq(kg_recheck_edit(&r, 1, &place, v), 1); /* still changed: a result outside the bound fails */
}
END_TEST

/* The edits' places come from the key alone: another key, other places. */
START_TEST(test_recheck_key_moves_places) {
  static unsigned char buf[(1 << 16) * 4];
  kg_ref ref;
  kg_input_make(KG_I32, KG_PAT_WRAP, 3, 1 << 16, buf, &ref, 1);
  kg_recheck a, b;
  kg_recheck_init(&a, KG_I32, KG_PAT_WRAP, KG_OP_SUM, 0, 3, 1 << 16, 1, &ref, 1);
  kg_recheck_init(&b, KG_I32, KG_PAT_WRAP, KG_OP_SUM, 0, 3, 1 << 16, 1, &ref, 2);
  int differ = 0;
  for (size_t i = 1; i < 40; i += 2) {
    size_t pa, pb;
    unsigned char v[8];
    kg_recheck_edit(&a, i, &pa, v);
    kg_recheck_edit(&b, i, &pb, v);
    differ += pa != pb;
  }
  ck_assert_int_ge(differ, 15);
}
END_TEST

/* A paired case: head and base read one copy and share one schedule. The
 * edits are planned at the larger depth (the base's here), so that both
 * sides see the same edits and expected results, the result before each
 * (a cached one) fails on both sides, and each side is judged at its own
 * depth: a result between the two bounds fails the head and passes the
 * base. A base of smaller depth leaves the head's own schedule as it was. */
START_TEST(test_recheck_pair_shares_edits) {
  enum { n = 1 << 16 };
  static float buf[n];
  kg_ref ref, at;
  kg_input_make(KG_F32, KG_PAT_UNIFORM, 9, n, buf, &ref, 1);
  kg_recheck head, base, alone;
  kg_recheck_init(&head, KG_F32, KG_PAT_UNIFORM, KG_OP_SUM, 0, 9, n, 20, &ref, 77);
  alone = head;
  kg_recheck_pair(&head, &base, 4096);
  ck_assert_int_eq(head.kind, KG_RECHECK_BOUNDED);
  ck_assert_int_eq(base.kind, KG_RECHECK_BOUNDED);
  ck_assert(head.depth == 20 && base.depth == 4096 && head.plan_depth == 4096 && base.plan_depth == 4096);
  unsigned char last[8] = {0};
  const size_t count = 12;
  for (size_t i = 0; i < count; i++) {
    size_t ph = 0, pb = 0;
    unsigned char vh[8] = {0}, vb[8] = {0};
    ck_assert_int_eq(kg_recheck_edit(&head, i, &ph, vh), kg_recheck_edit(&base, i, &pb, vb));
    ck_assert(ph == pb && memcmp(vh, vb, 8) == 0);
    kg_ref rh, rb;
    kg_recheck_ref(&head, i, &rh);
    kg_recheck_ref(&base, i, &rb);
    ck_assert(rh.sum == rb.sum && rh.sum_abs == rb.sum_abs);
    unsigned char acc[8], between[8];
    acc_of(KG_F32, KG_OP_SUM, &rh, acc);
    char msg[200] = "";
    ck_assert_msg(kg_recheck_judge(&head, i, count, acc, msg, sizeof msg), "head, sample %zu: %s", i, msg);
    ck_assert_msg(kg_recheck_judge(&base, i, count, acc, msg, sizeof msg), "base, sample %zu: %s", i, msg);
    if (i > 0) {
      ck_assert_int_eq(kg_recheck_judge(&head, i, count, last, msg, sizeof msg), 0);
      ck_assert_int_eq(kg_recheck_judge(&base, i, count, last, msg, sizeof msg), 0);
    }
    memcpy(last, acc, 8);
    at = rh;
    double hb = kg_error_bound(KG_F32, 20, rh.sum_abs), bb = kg_error_bound(KG_F32, 4096, rh.sum_abs);
    at.sum += (long double)sqrt(hb * bb); /* between the bounds, far from both */
    acc_of(KG_F32, KG_OP_SUM, &at, between);
    ck_assert_int_eq(kg_recheck_judge(&head, i, count, between, msg, sizeof msg), 0);
    ck_assert_msg(kg_recheck_judge(&base, i, count, between, msg, sizeof msg), "base, sample %zu: %s", i, msg);
  }
  /* a base of smaller depth: the head's edits are those of the head alone */
  kg_recheck_init(&head, KG_F32, KG_PAT_UNIFORM, KG_OP_SUM, 0, 9, n, 20, &ref, 77);
  kg_recheck_pair(&head, &base, 3);
  for (size_t i = 1; i < count; i++) {
    size_t pa, ph;
    unsigned char va[8] = {0}, vh[8] = {0};
    kg_recheck_edit(&alone, i, &pa, va);
    kg_recheck_edit(&head, i, &ph, vh);
    ck_assert(pa == ph && memcmp(va, vh, 8) == 0);
  }
}
END_TEST

/* Planned at a depth whose bound no change of the dtype outgrows: weak on both sides. */
START_TEST(test_recheck_pair_weak) {
  static unsigned char half[(1 << 12) * 2];
  kg_ref ref;
  kg_recheck head, base;
  kg_input_make(KG_F16, KG_PAT_UNIFORM, 1, 1 << 12, half, &ref, 1);
  kg_recheck_init(&head, KG_F16, KG_PAT_UNIFORM, KG_OP_SUM, 0, 1, 1 << 12, 20, &ref, 7);
  ck_assert_int_eq(head.kind, KG_RECHECK_BOUNDED);
  kg_recheck_pair(&head, &base, 0x1p22);
  ck_assert_int_eq(head.kind, KG_RECHECK_WEAK);
  ck_assert_int_eq(base.kind, KG_RECHECK_WEAK);
  ck_assert_str_eq(base.why, "the error bound is wider than any change f16 holds");
}
END_TEST

typedef struct cold_case {
  size_t bytes;
  int hot;
  double f[5], u[5];
  kg_cold want;
  const char *why; /* a part of cold_why; NULL: empty */
} cold_case;

#define L2 (50LL << 20)
static const cold_case k_cold_cases[] = {
    {16 << 20, 0, {6.1, 6.0, 6.3, 6.2, 6.1}, {2.4, 2.5, 2.6, 2.4, 2.5}, KG_COLD_VERIFIED, NULL},
    {16 << 20, 1, {6.1, 6.0, 6.3, 6.2, 6.1}, {2.4, 2.5, 2.6, 2.4, 2.5}, KG_COLD_HOT, NULL},
    {32 << 20, 0, {6.1, 6.0, 6.3, 6.2, 6.1}, {2.4, 2.5, 2.6, 2.4, 2.5}, KG_COLD_TOO_LARGE, NULL},
    {16 << 20, 0, {2.5, 2.4, 2.6, 2.5, 2.4}, {2.4, 2.5, 2.6, 2.4, 2.5}, KG_COLD_NOT_VERIFIED,
     "no slower than unflushed"},
    /* a gap in the medians, but one flushed read as fast as an unflushed one: not beyond noise */
    {16 << 20, 0, {6.1, 2.5, 6.3, 6.2, 6.1}, {2.4, 2.5, 2.6, 2.4, 2.5}, KG_COLD_NOT_VERIFIED, "no slower"},
    {16 << 20, 0, {NAN, NAN, NAN, 6.2, 6.1}, {2.4, 2.5, 2.6, 2.4, 2.5}, KG_COLD_NOT_VERIFIED, "too few reads"},
    {8, 0, {NAN, NAN, NAN, NAN, NAN}, {NAN, NAN, NAN, NAN, NAN}, KG_COLD_NOT_VERIFIED, "under 16 bytes"},
};

START_TEST(test_cold_judge) {
  const cold_case *c = &k_cold_cases[_i];
  kg_guard g = {0};
  kg_cold_judge(c->bytes, L2, c->hot, c->f, 5, c->u, 5, &g);
  ck_assert_int_eq(g.cold, c->want);
  if (c->why) ck_assert_msg(strstr(g.cold_why, c->why) != NULL, "%s", g.cold_why);
  else ck_assert_str_eq(g.cold_why, "");
  if (c->want == KG_COLD_VERIFIED) ck_assert(g.flushed_us == 6.1 && g.unflushed_us == 2.5);
}
END_TEST

static kg_guard sample_guard(void) {
  kg_guard g = {.on = 1, .cold = KG_COLD_NOT_VERIFIED, .flushed_us = 2.5, .unflushed_us = 2.25,
                .recheck = KG_RECHECK_WEAK, .rechecked = 40, .allocs = 2, .alloc_bytes = 1LL << 33, .streams = 1};
  snprintf(g.cold_why, sizeof g.cold_why, "flushed reads (2.5 us) no slower than unflushed (2.25 us)");
  snprintf(g.recheck_why, sizeof g.recheck_why, "the error bound is wider than any change f16 holds");
  return g;
}

/* Loop index: the form. A case's guard comes back whole; an untimed case has none. */
START_TEST(test_guard_round_trip) {
  kg_form form = (kg_form)_i;
  kg_result r, e;
  memset(&r, 0, sizeof r);
  r.status = KG_ST_PASS, r.repeats = 1, r.depth = 3;
  r.guard = sample_guard();
  json_t *o = kg_result_to_json(&r, form);
  ck_assert_ptr_nonnull(o);
  char err[200] = "";
  ck_assert_msg(kg_result_from_json(o, &e, form, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(memcmp(&e.guard, &r.guard, sizeof r.guard), 0);
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(o, "guard"), "cold")), "not_verified");
  json_decref(o);
  r.guard.on = 0;
  o = kg_result_to_json(&r, form);
  ck_assert_ptr_null(json_object_get(o, "guard"));
  ck_assert_msg(kg_result_from_json(o, &e, form, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(e.guard.on, 0);
  json_decref(o);
}
END_TEST

/* The guard as kgate writes it, with one value made wrong: refused with the field named. */
static const struct {
  const char *from, *to, *message;
} k_bad_guards[] = {
    {"\"cold\":\"not_verified\"", "\"cold\":\"cold\"", "unknown cold 'cold'"},
    {"\"recheck\":\"weak\"", "\"recheck\":\"strong\"", "unknown recheck 'strong'"},
    {"\"allocs\":2", "\"allocs\":-1", "allocs"},
    {"\"streams\":1", "\"streams\":1.5", "streams"},
    {"\"flushed_us\":2.5", "\"flushed_us\":-2.5", "flushed_us"},
    {"\"cold\":\"not_verified\"", "\"cold\":\"verified\"", "cold 'verified' takes no cold_why"},
    {"\"recheck\":\"weak\"", "\"recheck\":\"exact\"", "recheck 'exact' takes no recheck_why"},
    {"\"recheck\":\"weak\"", "\"recheck\":\"none\"", "recheck 'none' yet 40 samples rechecked"},
    {"\"guard\":{", "\"guard\":null,\"x\":{", "guard"},
};

START_TEST(test_guard_reader_refuses) {
  kg_result r, e;
  memset(&r, 0, sizeof r);
  r.status = KG_ST_PASS, r.repeats = 1, r.depth = 3;
  r.guard = sample_guard();
  json_t *o = kg_result_to_json(&r, KG_FORM_FILE);
  char *text = json_dumps(o, JSON_COMPACT), bad[2048];
  json_decref(o);
  const char *at = strstr(text, k_bad_guards[_i].from);
  ck_assert_ptr_nonnull(at);
  snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - text), text, k_bad_guards[_i].to,
           at + strlen(k_bad_guards[_i].from));
  free(text);
  o = json_loads(bad, 0, NULL);
  ck_assert_ptr_nonnull(o);
  char err[300] = "";
  ck_assert_int_eq(kg_result_from_json(o, &e, KG_FORM_FILE, err, sizeof err), -1);
  ck_assert_msg(strstr(err, k_bad_guards[_i].message) != NULL, "'%s' lacks '%s'", err, k_bad_guards[_i].message);
  json_decref(o);
}
END_TEST

Suite *make_recheck_suite(void) {
  Suite *s = suite_create("recheck");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_recheck_edits_match_reference, 0, N(k_cases));
  tcase_add_test(core, test_recheck_key_moves_places);
  tcase_add_test(core, test_recheck_pair_shares_edits);
  tcase_add_loop_test(core, test_cold_judge, 0, N(k_cold_cases));
  tcase_add_loop_test(core, test_guard_round_trip, 0, 2);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_test(limits, test_recheck_none_and_weak);
  tcase_add_test(limits, test_recheck_pair_weak);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_guard_reader_refuses, 0, N(k_bad_guards));
  suite_add_tcase(s, errors);
  return s;
}
