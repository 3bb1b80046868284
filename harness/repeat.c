#include "repeat.h"

#include <stdlib.h>

typedef struct key_ctx {
  const char *items;
  size_t size;
  int (*cmp)(const void *, const void *);
} key_ctx;

/* Item order, then position: equal items sort in file order. */
static int by_key(const void *pa, const void *pb, void *arg) {
  const key_ctx *k = arg;
  size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
  int c = k->cmp(k->items + a * k->size, k->items + b * k->size);
  return c ? c : (a > b) - (a < b);
}

int kg_find_repeat(const void *items, size_t n, size_t size, int (*cmp)(const void *, const void *), size_t *first,
                   size_t *again) {
  size_t *pos = malloc((n ? n : 1) * sizeof *pos);
  if (!pos) return -1;
  for (size_t i = 0; i < n; i++) pos[i] = i;
  key_ctx k = {items, size, cmp};
  qsort_r(pos, n, sizeof *pos, by_key, &k);
  int found = 0;
  for (size_t j = 1; j < n && !found; j++) {
    if (cmp(k.items + pos[j - 1] * size, k.items + pos[j] * size)) continue;
    *first = pos[j - 1];
    *again = pos[j];
    found = 1;
  }
  free(pos);
  return found;
}
