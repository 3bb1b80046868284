/* "Did you mean": the nearest of a set of names to a mistyped word, by edit
 * distance, for the CLI's and the plan's error messages. */
#ifndef KG_SUGGEST_H
#define KG_SUGGEST_H

#include <stddef.h>

typedef struct kg_suggest {
  const char *word; /* what was typed */
  const char *best; /* the nearest candidate so far */
  size_t dist;      /* its edit distance, in half edits (1: it differs in case alone) */
} kg_suggest;

void kg_suggest_init(kg_suggest *s, const char *word);
/* Offers one candidate name (NULL is ignored). */
void kg_suggest_add(kg_suggest *s, const char *candidate);
/* The nearest candidate when it is close enough to be a typo (at most 2 edits,
 * and fewer than half the word's length; a change of case alone is one), else NULL. */
const char *kg_suggest_best(const kg_suggest *s);
/* Checks a comma-separated list of words against a vocabulary, name(0) ..
 * name(n - 1): 0, or -1 with "unknown WHAT 'X'; did you mean 'Y'? (see
 * --help)" in err (the suggestion only when one is close). */
int kg_suggest_list(const char *list, const char *what, const char *(*name)(int), int n, char *err, size_t errlen);
/* Levenshtein distance (insert, delete, substitute), capped at 64 for long words. */
size_t kg_edit_distance(const char *a, const char *b);

#endif
