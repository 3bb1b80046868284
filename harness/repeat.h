/* Finding an item that repeats an earlier one (the same case twice in a
 * baseline, in a history line): the readers refuse it, naming both places. */
#ifndef KG_REPEAT_H
#define KG_REPEAT_H

#include <stddef.h>

/* Looks for two items of items[0, n) (each size bytes) that cmp calls equal.
 * 1 with their positions in *first < *again (of the equal items, the pair
 * that sorts first, its two lowest positions), 0 when all differ, -1 out of
 * memory. items is not reordered. */
int kg_find_repeat(const void *items, size_t n, size_t size, int (*cmp)(const void *, const void *), size_t *first,
                   size_t *again);

#endif
