#include "suggest.h"

#include <string.h>

enum { KG_SUGGEST_MAXLEN = 64 };

size_t kg_edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  /* Names are short; past the cap nothing is a typo of anything, so the
   * difference in length is a fine stand-in. */
  if (la > KG_SUGGEST_MAXLEN || lb > KG_SUGGEST_MAXLEN) return KG_SUGGEST_MAXLEN;
  size_t row[KG_SUGGEST_MAXLEN + 1];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb];
}

void kg_suggest_init(kg_suggest *s, const char *word) { *s = (kg_suggest){word, NULL, (size_t)-1}; }

void kg_suggest_add(kg_suggest *s, const char *candidate) {
  if (!candidate) return;
  size_t d = kg_edit_distance(s->word, candidate);
  if (d < s->dist) s->best = candidate, s->dist = d;
}

const char *kg_suggest_best(const kg_suggest *s) {
  return s->best && s->dist > 0 && s->dist <= 2 && 2 * s->dist < strlen(s->word) ? s->best : NULL;
}
