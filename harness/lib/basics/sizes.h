/* Problem sizes: the default edge list and the --sizes parser. */
#ifndef KG_SIZES_H
#define KG_SIZES_H

#include <stddef.h>

/* Largest n accepted on the command line (2^40 elements). */
#define KG_SIZE_MAX ((size_t)1 << 40)

/* The default edge list, ascending. */
const size_t *kg_sizes_default(size_t *count);

/* Parses a comma-separated list: decimal numbers, k/M/G suffixes (powers of
 * 1024), 2^N, each optionally followed by +D or -D ("2^22-1", "32M+1").
 * Duplicates are dropped, order is kept. On error returns -1 and writes a
 * one-line message naming the bad item. *out is malloc'ed. */
int kg_sizes_parse(const char *text, size_t **out, size_t *count, char *err, size_t errlen);

/* The sizes sanitized runs use unless --sizes says otherwise: short, but
 * every one exercises a tail or a partial warp or block (2^25 would take
 * hours under racecheck). */
const size_t *kg_san_default_sizes(size_t *count);

#endif
