#include "suggest.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

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
  /* In half edits: F32 for f32, BF16 for bf16, a slip of the shift key, is
   * one typo but nearer than any other (F32 is one edit from i32 too). */
  size_t d =
      strcasecmp(s->word, candidate) ? 2 * kg_edit_distance(s->word, candidate) : strcmp(s->word, candidate) != 0;
  if (d < s->dist) s->best = candidate, s->dist = d;
}

const char *kg_suggest_best(const kg_suggest *s) {
  size_t edits = (s->dist + 1) / 2;
  return s->best && edits > 0 && edits <= 2 && 2 * edits < strlen(s->word) ? s->best : NULL;
}

int kg_suggest_list(const char *list, const char *what, const char *(*name)(int), int n, char *err, size_t errlen) {
  for (const char *p = list;; p++) {
    size_t len = strcspn(p, ",");
    char item[KG_SUGGEST_MAXLEN + 1];
    snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
    kg_suggest s;
    kg_suggest_init(&s, item);
    int found = 0;
    for (int k = 0; k < n && !found; k++) found = len == strlen(name(k)) && !strncmp(p, name(k), len);
    for (int k = 0; k < n && !found; k++) kg_suggest_add(&s, name(k));
    const char *best = found ? NULL : kg_suggest_best(&s);
    if (!found) {
      snprintf(err, errlen, "unknown %s '%.*s'%s%s%s (see --help)", what, (int)(len < 100 ? len : 100), p,
               best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
      return -1;
    }
    p += len;
    if (!*p) return 0;
  }
}
