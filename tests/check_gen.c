/* gen: the input generator (kernels/inputgen.h): every element is made on
 * its own, and the fingerprint sees what it must see. That its data never
 * change unnoticed is the ref_table test's: the shipped references
 * (data/kgate-refs.txt) hold every default input's fingerprint. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "pattern.h"
#include "sizes.h"

static void random_bytes(unsigned char *b, size_t len, uint32_t seed) {
  for (size_t i = 0; i < len; i++) {
    seed = seed * 1664525u + 1013904223u;
    b[i] = (unsigned char)(seed >> 24);
  }
}

/* Every byte of every length up to 40 (tails of each width), each changed
 * to two other values: the fingerprint always moves. */
START_TEST(test_gen_fingerprint_one_byte) {
  unsigned char b[40];
  for (size_t len = 1; len <= sizeof b; len++) {
    random_bytes(b, len, (uint32_t)len);
    uint64_t fp = kg_gen_fingerprint(b, len);
    for (size_t i = 0; i < len; i++) {
      unsigned char keep = b[i];
      for (unsigned d = 1; d <= 128; d *= 128) {
        b[i] = (unsigned char)(keep ^ d);
        ck_assert_msg(kg_gen_fingerprint(b, len) != fp, "len %zu: byte %zu ^ %u not seen", len, i, d);
      }
      b[i] = keep;
    }
    ck_assert(kg_gen_fingerprint(b, len) == fp);
  }
}
END_TEST

/* Two distinct elements swapped, in the same 8-byte word or far apart, for
 * every element width. */
START_TEST(test_gen_fingerprint_swap) {
  kg_dtype dt = (kg_dtype)_i;
  size_t sz = kg_dtype_get(dt)->size, n = 4097, bytes = n * sz;
  unsigned char *b = malloc(bytes), tmp[8];
  ck_assert_ptr_nonnull(b);
  kg_pattern_fill(dt, kg_dtype_get(dt)->is_float ? KG_PAT_UNIFORM : KG_PAT_WRAP, 9, n, b);
  uint64_t fp = kg_gen_fingerprint(b, bytes);
  const size_t pairs[][2] = {{0, 1}, {2, 3}, {0, n - 1}, {17, 18}, {100, 3000}, {n - 2, n - 1}};
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    unsigned char *x = b + pairs[k][0] * sz, *y = b + pairs[k][1] * sz;
    ck_assert(memcmp(x, y, sz) != 0);
    memcpy(tmp, x, sz), memcpy(x, y, sz), memcpy(y, tmp, sz);
    ck_assert_msg(kg_gen_fingerprint(b, bytes) != fp, "%s: swap of %zu and %zu not seen", kg_dtype_get(dt)->name,
                  pairs[k][0], pairs[k][1]);
    memcpy(tmp, x, sz), memcpy(x, y, sz), memcpy(y, tmp, sz);
  }
  ck_assert(kg_gen_fingerprint(b, bytes) == fp);
  free(b);
}
END_TEST

/* An element dropped (the rest shifted down, the length one element
 * shorter), or the last one dropped, or a zero byte appended to the tail. */
START_TEST(test_gen_fingerprint_drop) {
  kg_dtype dt = (kg_dtype)_i;
  size_t sz = kg_dtype_get(dt)->size, n = 1001, bytes = n * sz;
  unsigned char *b = malloc(bytes + 1), *c = malloc(bytes + 1);
  ck_assert(b && c);
  kg_pattern_fill(dt, KG_PAT_EXACT, 4, n, b);
  uint64_t fp = kg_gen_fingerprint(b, bytes);
  const size_t drops[] = {0, 1, 500, n - 1};
  for (size_t k = 0; k < 4; k++) {
    size_t at = drops[k];
    memcpy(c, b, at * sz);
    memcpy(c + at * sz, b + (at + 1) * sz, (n - 1 - at) * sz);
    ck_assert_msg(kg_gen_fingerprint(c, bytes - sz) != fp, "%s: element %zu dropped, not seen", kg_dtype_get(dt)->name, at);
  }
  memcpy(c, b, bytes);
  c[bytes] = 0;
  ck_assert(kg_gen_fingerprint(c, bytes + 1) != fp);
  free(b), free(c);
}
END_TEST

/* Zero bytes: the same value from any pointer (none is read), and not the
 * value of a zero-padded tail; zero bytes of each length all differ. */
START_TEST(test_gen_fingerprint_lengths) {
  unsigned char z[64] = {0};
  uint64_t empty = kg_gen_fingerprint(NULL, 0);
  ck_assert(kg_gen_fingerprint(z, 0) == empty);
  uint64_t seen[65];
  for (size_t len = 0; len <= 64; len++) {
    seen[len] = kg_gen_fingerprint(z, len);
    for (size_t k = 0; k < len; k++) ck_assert_msg(seen[k] != seen[len], "%zu and %zu zero bytes collide", k, len);
  }
  unsigned char abc[4] = {1, 2, 3, 0};
  ck_assert(kg_gen_fingerprint(abc, 3) != kg_gen_fingerprint(abc, 4));
}
END_TEST

/* Loop index: the dtype. The generator's own copies of two dtype facts (it
 * cannot read the table on the GPU) agree with dtype.c's table. */
START_TEST(test_gen_dtype_facts) {
  kg_dtype dt = (kg_dtype)_i;
  const kg_dtype_info *d = kg_dtype_get(dt);
  ck_assert_uint_eq(kg_gen_elem_size(dt), d->size);
  if (d->is_float) ck_assert_int_eq(kg_gen_acc_mant_bits(dt), d->acc_mant_bits);
}
END_TEST

/* Loop index: the dtype. Elements stored one at a time in a scattered order
 * (as GPU threads do) give the sequential fill: a store writes element j
 * and nothing else, and needs no earlier element. */
START_TEST(test_gen_store_any_order) {
  kg_dtype dt = (kg_dtype)_i;
  size_t sz = kg_dtype_get(dt)->size, n = 1001; /* 1001 and the stride 389 are coprime */
  unsigned char *a = malloc(n * sz), *b = malloc(n * sz);
  ck_assert(a && b);
  for (int p = 0; p < KG_NPATTERNS; p++) {
    if (!kg_pattern_applies((kg_pattern)p, dt)) continue;
    kg_gen g;
    kg_gen_init(&g, dt, p, 11, n);
    memset(b, 0xcc, n * sz);
    for (size_t k = 0; k < n; k++) kg_gen_store(&g, k * 389 % n, b);
    kg_pattern_fill(dt, (kg_pattern)p, 11, n, a);
    ck_assert_msg(memcmp(a, b, n * sz) == 0, "%s %s: scattered stores differ", kg_dtype_get(dt)->name,
                  kg_pattern_name((kg_pattern)p));
  }
  free(a), free(b);
}
END_TEST

/* The fingerprint is the length term plus one term per word in any order
 * (what kg_dev_fingerprint adds up in parallel): summed backwards here. */
START_TEST(test_gen_fingerprint_order_free) {
  unsigned char b[8 * 37 + 5];
  random_bytes(b, sizeof b, 77);
  uint64_t s = 0, w = 0;
  memcpy(&w, b + 8 * 37, 5);
  s += kg_gen_fp_term(w, 37);
  for (size_t i = 37; i-- > 0;) {
    memcpy(&w, b + 8 * i, 8);
    s += kg_gen_fp_term(w, i);
  }
  s += kg_gen_fp_length(sizeof b);
  ck_assert(s == kg_gen_fingerprint(b, sizeof b));
}
END_TEST

Suite *make_gen_suite(void) {
  Suite *s = suite_create("gen");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_gen_fingerprint_one_byte);
  tcase_add_loop_test(core, test_gen_fingerprint_swap, 0, KG_NDTYPES);
  tcase_add_loop_test(core, test_gen_fingerprint_drop, 0, KG_NDTYPES);
  tcase_add_test(core, test_gen_fingerprint_lengths);
  tcase_add_test(core, test_gen_fingerprint_order_free);
  tcase_add_loop_test(core, test_gen_dtype_facts, 0, KG_NDTYPES);
  tcase_add_loop_test(core, test_gen_store_any_order, 0, KG_NDTYPES);
  suite_add_tcase(s, core);
  return s;
}
