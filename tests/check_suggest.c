/* suggest: edit distance and the "did you mean" threshold. */
#include <check.h>
#include <string.h>

#include "suggest.h"

static const struct {
  const char *a, *b;
  size_t d;
} k_dist[] = {
    {"", "", 0},           {"check", "check", 0},  {"chek", "check", 1},     {"hceck", "check", 2},
    {"", "abc", 3},        {"abc", "", 3},         {"kitten", "sitting", 3}, {"--verbos", "--verbose", 1},
};

START_TEST(test_suggest_edit_distance) {
  ck_assert_uint_eq(kg_edit_distance(k_dist[_i].a, k_dist[_i].b), k_dist[_i].d);
  ck_assert_uint_eq(kg_edit_distance(k_dist[_i].b, k_dist[_i].a), k_dist[_i].d);
}
END_TEST

/* The nearest name within 2 edits and under half the word; nothing for an
 * exact match (it was not a typo) or a far word. */
START_TEST(test_suggest_threshold) {
  static const char *const names[] = {"check", "run", "compare", "list"};
  static const struct {
    const char *word, *best;
  } cases[] = {{"chek", "check"}, {"rnu", NULL}, {"comprae", "compare"}, {"lst", "list"},
               {"run", NULL},     {"zzzzz", NULL}, {"ru", NULL}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    kg_suggest s;
    kg_suggest_init(&s, cases[c].word);
    for (size_t k = 0; k < 4; k++) kg_suggest_add(&s, names[k]);
    kg_suggest_add(&s, NULL);
    const char *best = kg_suggest_best(&s);
    if (cases[c].best) ck_assert_msg(best && !strcmp(best, cases[c].best), "%s: got %s", cases[c].word, best ? best : "none");
    else ck_assert_msg(!best, "%s: got %s", cases[c].word, best);
  }
}
END_TEST

Suite *make_suggest_suite(void) {
  Suite *s = suite_create("suggest");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_suggest_edit_distance, 0, sizeof k_dist / sizeof k_dist[0]);
  tcase_add_test(core, test_suggest_threshold);
  suite_add_tcase(s, core);
  return s;
}
