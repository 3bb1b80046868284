#include "sizes.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Block sizes in use are 256, 512 and 1024 threads, with up to 8 elements per
 * thread folded at load: the list straddles each multiple that decides a tail. */
static const size_t k_default[] = {
    0,        1,        2,        3,        31,       32,       33,       63,       64,
    65,       255,      256,      257,      511,      512,      513,      1000,     1023,
    1024,     1025,     2047,     2048,     2049,     4095,     4096,     4097,     7919,
    8191,     8192,     8193,     65521,    65535,    65536,    65537,    1000003,  1048577,
    4194303,  4194304,  4194305,  33554431, 33554432,
};

const size_t *kg_sizes_default(size_t *count) {
  *count = sizeof k_default / sizeof k_default[0];
  return k_default;
}

/* Reads an unsigned decimal at *p; -1 when there is none or it overflows. */
static int read_uint(const char **p, unsigned long long *v) {
  if (!isdigit((unsigned char)**p)) return -1;
  errno = 0;
  char *end;
  *v = strtoull(*p, &end, 10);
  if (errno) return -1;
  *p = end;
  return 0;
}

static int parse_one(const char *item, size_t *n) {
  const char *p = item;
  unsigned long long v;
  if (read_uint(&p, &v)) return -1;
  if (*p == '^') {
    p++;
    unsigned long long e;
    if (v != 2 || read_uint(&p, &e) || e > 40) return -1;
    v = 1ull << e;
  } else if (*p == 'k' || *p == 'K' || *p == 'M' || *p == 'G') {
    int shift = *p == 'G' ? 30 : *p == 'M' ? 20 : 10;
    if (v > (KG_SIZE_MAX >> shift)) return -1;
    v <<= shift;
    p++;
  }
  if (*p == '+' || *p == '-') {
    char sign = *p++;
    unsigned long long d;
    if (read_uint(&p, &d)) return -1;
    if (d > KG_SIZE_MAX || (sign == '-' && d > v)) return -1;
    v = sign == '+' ? v + d : v - d;
  }
  if (*p != '\0' || v > KG_SIZE_MAX) return -1;
  *n = (size_t)v;
  return 0;
}

int kg_sizes_parse(const char *text, size_t **out, size_t *count, char *err, size_t errlen) {
  *out = NULL;
  *count = 0;
  size_t cap = 1;
  for (const char *c = text; *c; c++) cap += *c == ',';
  size_t *list = malloc(cap * sizeof *list);
  char *copy = strdup(text);
  if (!list || !copy) {
    free(list);
    free(copy);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  size_t k = 0;
  int rc = 0;
  /* Walk the commas by hand (strtok would skip empty items, which must fail). */
  char *item = copy;
  for (;;) {
    char *comma = strchr(item, ',');
    if (comma) *comma = '\0';
    size_t n;
    if (parse_one(item, &n)) {
      snprintf(err, errlen, "bad size '%s' (expected a count like 1000, 32M, 2^22 or 2^22-1, at most 2^40)", item);
      rc = -1;
      break;
    }
    int seen = 0;
    for (size_t i = 0; i < k; i++) seen |= list[i] == n;
    if (!seen) list[k++] = n;
    if (!comma) break;
    item = comma + 1;
  }
  free(copy);
  if (rc) {
    free(list);
    return -1;
  }
  *out = list;
  *count = k;
  return 0;
}

/* 1 and 31 (a lone thread, a partial warp), 33 (one warp and a bit), 255 and
 * 257 (around one block of 256), 1000 (a partial second-level block), 4097
 * (past 2 * 2048), 65537 (two levels of partials plus one). */
static const size_t k_san_sizes[] = {1, 31, 33, 255, 257, 1000, 4097, 65537};

const size_t *kg_san_default_sizes(size_t *count) {
  *count = sizeof k_san_sizes / sizeof k_san_sizes[0];
  return k_san_sizes;
}
