/* dtype: the facts table and the 16-bit float conversions. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dtype.h"

static const struct {
  kg_dtype dt;
  const char *name;
  size_t size, acc_size;
  int is_float;
  double u;
} k_facts[] = {
    {KG_I32, "i32", 4, 4, 0, 0.0},        {KG_I64, "i64", 8, 8, 0, 0.0},
    {KG_F32, "f32", 4, 4, 1, 0x1p-24},    {KG_F64, "f64", 8, 8, 1, 0x1p-53},
    {KG_F16, "f16", 2, 4, 1, 0x1p-24},    {KG_BF16, "bf16", 2, 4, 1, 0x1p-24},
};

START_TEST(test_dtype_table_facts) {
  const kg_dtype_info *d = kg_dtype_get(k_facts[_i].dt);
  ck_assert_ptr_nonnull(d);
  ck_assert_str_eq(d->name, k_facts[_i].name);
  ck_assert_uint_eq(d->size, k_facts[_i].size);
  ck_assert_uint_eq(d->acc_size, k_facts[_i].acc_size);
  ck_assert_int_eq(d->is_float, k_facts[_i].is_float);
  ck_assert(d->unit_roundoff == k_facts[_i].u);
  if (d->is_float) ck_assert(ldexp(1.0, -d->acc_mant_bits) == d->unit_roundoff);
  kg_dtype dt = KG_NDTYPES;
  ck_assert_int_eq(kg_dtype_parse(k_facts[_i].name, &dt), 0);
  ck_assert_int_eq(dt, k_facts[_i].dt);
}
END_TEST

static float f32_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Values exactly representable in the 16-bit format, with their encodings. */
static const struct {
  float v;
  uint16_t bits;
} k_f16_exact[] = {
    {0.0f, 0x0000},     {-0.0f, 0x8000},    {1.0f, 0x3c00},        {-2.5f, 0xc100},
    {65504.0f, 0x7bff}, {-65504.0f, 0xfbff}, {0x1p-24f, 0x0001},   {0x1p-14f, 0x0400},
    {0x3ffp-24f, 0x03ff}, {0.5f, 0x3800},   {0x1.004p0f, 0x3c01},
}, k_bf16_exact[] = {
    {0.0f, 0x0000},     {-0.0f, 0x8000},    {1.0f, 0x3f80},        {-2.5f, 0xc020},
    {65280.0f, 0x477f}, {0x1p-24f, 0x3380}, {0x1p-133f, 0x0001},   {0x1p127f, 0x7f00},
    {0x1.02p0f, 0x3f81},
};

START_TEST(test_f16_round_trip_exact) {
  float v = k_f16_exact[_i].v;
  uint16_t h = kg_f16_from_float(v);
  ck_assert_msg(h == k_f16_exact[_i].bits, "f16(%a) = 0x%04x, want 0x%04x", v, h, k_f16_exact[_i].bits);
  float back = kg_f16_to_float(h);
  ck_assert(back == v && signbit(back) == signbit(v));
}
END_TEST

START_TEST(test_bf16_round_trip_exact) {
  float v = k_bf16_exact[_i].v;
  uint16_t b = kg_bf16_from_float(v);
  ck_assert_msg(b == k_bf16_exact[_i].bits, "bf16(%a) = 0x%04x, want 0x%04x", v, b, k_bf16_exact[_i].bits);
  float back = kg_bf16_to_float(b);
  ck_assert(back == v && signbit(back) == signbit(v));
}
END_TEST

/* Round to nearest, ties to even, overflow to Inf. */
static const struct {
  float in;
  uint16_t bits;
} k_f16_round[] = {
    {0x1.002p0f, 0x3c00},         /* 1 + 2^-11: tie, even is 1 */
    {0x1.006p0f, 0x3c02},         /* 1 + 3*2^-11: tie, even is 1 + 2^-9 */
    {0x1.00201p0f, 0x3c01},       /* just above the tie */
    {2047.5f, 0x6800},            /* tie rounds up into the next binade: 2048 */
    {0x1p-25f, 0x0000},           /* half the smallest subnormal: tie to 0 */
    {0x3p-25f, 0x0002},           /* tie between subnormals 1 and 2: 2 */
    {0x1.0001p-25f, 0x0001},      /* just above the tie */
    {0x7ffp-25f, 0x0400},         /* largest subnormal + half: rounds to 2^-14 */
    {-0x1p-30f, 0x8000},          /* underflow keeps the sign */
    {65519.0f, 0x7bff},           /* below the halfway point to 65536 */
    {65520.0f, 0x7c00},           /* halfway to 65536: even is Inf */
    {70000.0f, 0x7c00},  {-70000.0f, 0xfc00}, {FLT_MAX, 0x7c00},
    {INFINITY, 0x7c00},  {-INFINITY, 0xfc00},
}, k_bf16_round[] = {
    {0x1.01p0f, 0x3f80},          /* 1 + 2^-8: tie, even is 1 */
    {0x1.03p0f, 0x3f82},          /* 1 + 3*2^-8: tie, even is 1 + 2^-6 */
    {0x1.01001p0f, 0x3f81},       /* just above the tie */
    {255.5f, 0x4380},             /* tie rounds up into the next binade: 256 */
    {70000.0f, 0x4789},           /* finite in bf16: 70144 */
    {FLT_MAX, 0x7f80},   {-FLT_MAX, 0xff80},
    {INFINITY, 0x7f80},  {-INFINITY, 0xff80},
};

START_TEST(test_f16_rounding) {
  uint16_t h = kg_f16_from_float(k_f16_round[_i].in);
  ck_assert_msg(h == k_f16_round[_i].bits, "f16(%a) = 0x%04x, want 0x%04x", k_f16_round[_i].in, h, k_f16_round[_i].bits);
}
END_TEST

START_TEST(test_bf16_rounding) {
  uint16_t b = kg_bf16_from_float(k_bf16_round[_i].in);
  ck_assert_msg(b == k_bf16_round[_i].bits, "bf16(%a) = 0x%04x, want 0x%04x", k_bf16_round[_i].in, b, k_bf16_round[_i].bits);
}
END_TEST

START_TEST(test_f16_decode_specials) {
  ck_assert(kg_f16_to_float(0x7c00) == INFINITY);
  ck_assert(kg_f16_to_float(0xfc00) == -INFINITY);
  ck_assert(isnan(kg_f16_to_float(0x7e00)));
  ck_assert(isnan(kg_f16_to_float(0x7c01)));
  ck_assert(kg_bf16_to_float(0x7f80) == INFINITY);
  ck_assert(kg_bf16_to_float(0xff80) == -INFINITY);
  ck_assert(isnan(kg_bf16_to_float(0x7fc0)));
  ck_assert(kg_bf16_to_float(0x4789) == 70144.0f);
}
END_TEST

/* NaNs of both signs, quiet and signalling; 0x7f800001 would round to Inf
 * if the NaN test were missing. */
static const uint32_t k_nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu};

START_TEST(test_dtype_nan_stays_nan) {
  float nan = f32_of(k_nans[_i]);
  ck_assert(isnan(kg_f16_to_float(kg_f16_from_float(nan))));
  ck_assert(isnan(kg_bf16_to_float(kg_bf16_from_float(nan))));
}
END_TEST

/* kg_dtype_store rounds to the storage format and returns what it stored. */
static const struct {
  kg_dtype dt;
  double in, stored;
} k_store[] = {
    {KG_I32, -7, -7},          {KG_I64, 0x1p60, 0x1p60},   {KG_F32, 0.1, (float)0.1},
    {KG_F64, 0.1, 0.1},        {KG_F16, 0x1.002p0, 1.0},   {KG_BF16, 0x1.03p0, 0x1.04p0},
    {KG_F16, 70000, INFINITY}, {KG_BF16, -3.0, -3.0},
};

START_TEST(test_dtype_store_load) {
  unsigned char buf[3 * 8];
  double got = kg_dtype_store(k_store[_i].dt, buf, 2, k_store[_i].in);
  ck_assert(got == k_store[_i].stored);
  ck_assert(kg_dtype_load(k_store[_i].dt, buf, 2) == k_store[_i].stored);
}
END_TEST

/* kg_dtype_load_many reads what kg_dtype_load reads, element by element:
 * random bytes, so floats include NaNs, infinities and subnormals. */
START_TEST(test_dtype_load_many) {
  kg_dtype dt = (kg_dtype)_i;
  size_t size = kg_dtype_get(dt)->size;
  unsigned char buf[67 * 8];
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < sizeof buf; i++) x = x * 6364136223846793005ull + 1442695040888963407ull, buf[i] = (unsigned char)(x >> 56);
  double many[64];
  kg_dtype_load_many(dt, buf + 3 * size, 64, many); /* from element 3 */
  for (size_t i = 0; i < 64; i++) {
    double one = kg_dtype_load(dt, buf, 3 + i);
    ck_assert_msg(!memcmp(&one, &many[i], sizeof one), "element %zu: %a, not %a", i, many[i], one);
  }
}
END_TEST

START_TEST(test_dtype_load_int_wide) {
  int64_t big[2] = {0, INT64_MAX - 1};
  int32_t small[2] = {0, INT32_MIN};
  ck_assert_int_eq(kg_dtype_load_int(KG_I64, big, 1), INT64_MAX - 1);
  ck_assert_int_eq(kg_dtype_load_int(KG_I32, small, 1), INT32_MIN);
}
END_TEST

static const char *const k_unknown[] = {"", "f128", "I32", "float", "i32 ", "bf", "int32"};

START_TEST(test_dtype_parse_rejects) {
  kg_dtype dt = KG_F64;
  ck_assert_int_eq(kg_dtype_parse(k_unknown[_i], &dt), -1);
  ck_assert_int_eq(dt, KG_F64);
}
END_TEST

START_TEST(test_dtype_get_out_of_range) {
  ck_assert_ptr_null(kg_dtype_get(KG_NDTYPES));
  ck_assert_ptr_null(kg_dtype_get((kg_dtype)-1));
}
END_TEST

#define N(a) (int)(sizeof a / sizeof a[0])

Suite *make_dtype_suite(void) {
  Suite *s = suite_create("dtype");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_dtype_table_facts, 0, N(k_facts));
  tcase_add_loop_test(core, test_f16_round_trip_exact, 0, N(k_f16_exact));
  tcase_add_loop_test(core, test_bf16_round_trip_exact, 0, N(k_bf16_exact));
  tcase_add_loop_test(core, test_dtype_store_load, 0, N(k_store));
  tcase_add_loop_test(core, test_dtype_load_many, 0, KG_NDTYPES);
  tcase_add_test(core, test_dtype_load_int_wide);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_loop_test(limits, test_f16_rounding, 0, N(k_f16_round));
  tcase_add_loop_test(limits, test_bf16_rounding, 0, N(k_bf16_round));
  tcase_add_test(limits, test_f16_decode_specials);
  tcase_add_loop_test(limits, test_dtype_nan_stays_nan, 0, N(k_nans));
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_dtype_parse_rejects, 0, N(k_unknown));
  tcase_add_test(errors, test_dtype_get_out_of_range);
  suite_add_tcase(s, errors);
  return s;
}
