/* repeat: the first pair of equal items, by key order, then file order. */
#include <check.h>
#include <string.h>

#include "repeat.h"

static int int_cmp(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  return (a > b) - (a < b);
}

static const struct {
  int items[6];
  size_t n;
  int found;
  size_t first, again;
} k_rows[] = {
    {{3, 1, 2}, 3, 0, 0, 0},
    {{5, 4, 5}, 3, 1, 0, 2},
    {{9, 2, 9, 2}, 4, 1, 1, 3},       /* the pair that sorts first: the 2s */
    {{7, 7, 7}, 3, 1, 0, 1},          /* three alike: the two lowest positions */
    {{1, 8, 6, 4, 8, 6}, 6, 1, 2, 5}, /* 6 sorts before 8 */
};

/* --- Core */

START_TEST(test_repeat_table) {
  int items[6];
  memcpy(items, k_rows[_i].items, sizeof items);
  size_t first = 99, again = 99;
  ck_assert_int_eq(kg_find_repeat(items, k_rows[_i].n, sizeof *items, int_cmp, &first, &again), k_rows[_i].found);
  if (k_rows[_i].found) {
    ck_assert_uint_eq(first, k_rows[_i].first);
    ck_assert_uint_eq(again, k_rows[_i].again);
  }
  ck_assert_mem_eq(items, k_rows[_i].items, sizeof items); /* not reordered */
}
END_TEST

/* --- Limits */

START_TEST(test_repeat_empty_and_one) {
  int one = 4;
  size_t first, again;
  ck_assert_int_eq(kg_find_repeat(NULL, 0, sizeof one, int_cmp, &first, &again), 0);
  ck_assert_int_eq(kg_find_repeat(&one, 1, sizeof one, int_cmp, &first, &again), 0);
}
END_TEST

Suite *make_repeat_suite(void) {
  Suite *s = suite_create("repeat");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_repeat_table, 0, sizeof k_rows / sizeof k_rows[0]);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_test(limits, test_repeat_empty_and_one);
  suite_add_tcase(s, limits);
  return s;
}
