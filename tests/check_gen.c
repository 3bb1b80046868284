/* gen: the input generator (kernels/inputgen.h): its data never change
 * unnoticed (a golden table of fingerprints), every element is made on its
 * own, and the fingerprint sees what it must see. */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "pattern.h"
#include "sizes.h"

static const struct {
  kg_dtype dt;
  kg_pattern p;
  size_t n;
  uint64_t fp;
} k_golden[] = {
#include "gen_golden.inc"
};
#define NGOLDEN (sizeof k_golden / sizeof k_golden[0])

/* Enum spellings for KG_GEN_GOLDEN_PRINT, in enum order. */
static const char *const k_dt_names[KG_NDTYPES] = {"KG_I32", "KG_I64", "KG_F32", "KG_F64", "KG_F16", "KG_BF16"};
static const char *const k_pat_names[KG_NPATTERNS] = {
    "KG_PAT_EXACT", "KG_PAT_WRAP", "KG_PAT_UNIFORM", "KG_PAT_CANCEL", "KG_PAT_NAN",
    "KG_PAT_INF",   "KG_PAT_INF_NAN", "KG_PAT_TINY", "KG_PAT_HUGE"};

/* Rows past this size are checked only where the exact pattern runs past its
 * budget (f32, f16 and bf16 past 2^23 elements: a path no smaller size takes),
 * or with KG_GEN_GOLDEN_ALL set: in a Debug build on 2 cores all the rows up
 * to 2^22+1 take 6 s, those 2^25 rows 7 s, the other 2^25 rows 28 s more. In a Release build the ctest
 * check_gen_golden_all checks every row (13 s on 2 cores), and check_gpu_gen
 * holds the GPU's inputs to every row too. */
static const size_t k_golden_cap = ((size_t)1 << 22) + 1;

static int past_budget(kg_dtype dt, kg_pattern p, size_t n) {
  const kg_dtype_info *d = kg_dtype_get(dt);
  return p == KG_PAT_EXACT && d->is_float && (double)n > ldexp(1.0, d->acc_mant_bits - 1);
}

typedef struct {
  kg_dtype dt;
  kg_pattern p;
  size_t n, lo, hi;
  void *buf;
} fill_job;

static void *fill_part(void *arg) {
  fill_job *j = arg;
  kg_pattern_fill_range(j->dt, j->p, 1, j->n, j->buf, j->lo, j->hi);
  return NULL;
}

/* The seed-1 fill with two threads (kg_pattern_fill_range pieces equal one
 * fill: check_pattern proves it), so the 2^25 rows fit the time budget. */
static void fill2(kg_dtype dt, kg_pattern p, size_t n, void *buf) {
  fill_job a = {dt, p, n, 0, n / 2, buf}, b = {dt, p, n, n / 2, n, buf};
  pthread_t t;
  int started = pthread_create(&t, NULL, fill_part, &b) == 0;
  fill_part(&a);
  if (started) pthread_join(t, NULL);
  else fill_part(&b);
}

/* Loop index: dtype * KG_NPATTERNS + pattern. Every recorded size of the
 * group refilled and fingerprinted; the first mismatch is named. */
START_TEST(test_gen_golden_fill) {
  kg_dtype dt = (kg_dtype)(_i / KG_NPATTERNS);
  kg_pattern p = (kg_pattern)(_i % KG_NPATTERNS);
  if (!kg_pattern_applies(p, dt)) return;
  size_t sz = kg_dtype_get(dt)->size, rows = 0, bad = 0, first = 0;
  uint64_t got_first = 0;
  int print = getenv("KG_GEN_GOLDEN_PRINT") != NULL, all = print || getenv("KG_GEN_GOLDEN_ALL") != NULL;
  for (size_t i = 0; i < NGOLDEN; i++) {
    if (k_golden[i].dt != dt || k_golden[i].p != p) continue;
    size_t n = k_golden[i].n;
    if (n > k_golden_cap && !past_budget(dt, p, n) && !all) continue;
    void *buf = malloc(n ? n * sz : 1);
    ck_assert_ptr_nonnull(buf);
    fill2(dt, p, n, buf);
    uint64_t fp = kg_gen_fingerprint(buf, n * sz);
    free(buf);
    if (print) printf("    {%s, %s, %zu, 0x%016llxull},\n", k_dt_names[dt], k_pat_names[p], n, (unsigned long long)fp);
    if (fp != k_golden[i].fp && bad++ == 0) first = i, got_first = fp;
    rows++;
  }
  ck_assert_msg(rows > 0, "%s %s: no golden rows", kg_dtype_get(dt)->name, kg_pattern_name(p));
  ck_assert_msg(bad == 0, "%s %s: %zu of %zu sizes changed, first n=%zu: fingerprint 0x%016llx, golden 0x%016llx",
                kg_dtype_get(dt)->name, kg_pattern_name(p), bad, rows, k_golden[first].n,
                (unsigned long long)got_first, (unsigned long long)k_golden[first].fp);
}
END_TEST

/* The table covers every default size for every group that applies. */
START_TEST(test_gen_golden_covers_defaults) {
  size_t nsizes, groups = 0;
  const size_t *sizes = kg_sizes_default(&nsizes);
  for (int d = 0; d < KG_NDTYPES; d++)
    for (int p = 0; p < KG_NPATTERNS; p++) {
      if (!kg_pattern_applies((kg_pattern)p, (kg_dtype)d)) continue;
      groups++;
      for (size_t k = 0; k < nsizes; k++) {
        int found = 0;
        for (size_t i = 0; i < NGOLDEN && !found; i++)
          found = k_golden[i].dt == (kg_dtype)d && k_golden[i].p == (kg_pattern)p && k_golden[i].n == sizes[k];
        ck_assert_msg(found, "%s %s n=%zu: not in the golden table", kg_dtype_get((kg_dtype)d)->name,
                      kg_pattern_name((kg_pattern)p), sizes[k]);
      }
    }
  ck_assert_uint_eq(NGOLDEN, groups * nsizes);
}
END_TEST

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
  tcase_add_test(core, test_gen_golden_covers_defaults);
  suite_add_tcase(s, core);
  TCase *golden = tcase_create("Golden");
  tcase_set_timeout(golden, 120);
  tcase_add_loop_test(golden, test_gen_golden_fill, 0, KG_NDTYPES * KG_NPATTERNS);
  suite_add_tcase(s, golden);
  return s;
}
