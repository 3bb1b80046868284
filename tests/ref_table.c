/* The shipped reference table (data/kgate-refs.txt), re-derived on the CPU:
 * every default input of seed 1 (each default size, dtype and pattern that
 * applies), its fingerprint and its reference, written in the cache's own
 * format (refcache.h), sorted, so that the same inputs give the same bytes.
 *   ref_table --write FILE   writes the table
 *   ref_table FILE           exit 0 when FILE is exactly what it re-derives,
 *                            1 (naming the first line that differs) when not */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "input.h"
#include "pattern.h"
#include "refcache.h"
#include "sizes.h"

static int derive(kg_refcache *c) {
  size_t ns;
  const size_t *sizes = kg_sizes_default(&ns);
  size_t most = 0;
  for (size_t i = 0; i < ns; i++) most = sizes[i] > most ? sizes[i] : most;
  void *buf = malloc(most * 8 + 1);
  if (!buf) return fprintf(stderr, "ref_table: out of memory\n"), -1;
  char err[300];
  for (int dt = 0; dt < KG_NDTYPES; dt++)
    for (int p = 0; p < KG_NPATTERNS; p++)
      for (size_t i = 0; kg_pattern_applies((kg_pattern)p, (kg_dtype)dt) && i < ns; i++) {
        kg_refcache_entry e = {(kg_dtype)dt, (kg_pattern)p, sizes[i], 1, KG_GEN_VERSION, 0, {0}};
        kg_input_make(e.dt, e.p, e.seed, e.n, buf, &e.ref, 0);
        e.fingerprint = kg_gen_fingerprint(buf, e.n * kg_dtype_get(e.dt)->size);
        if (kg_refcache_put(c, &e, err, sizeof err)) {
          fprintf(stderr, "ref_table: %s\n", err);
          free(buf);
          return -1;
        }
      }
  free(buf);
  return 0;
}

/* The first line where a and b differ (1-based), 0 when they are the same. */
static long first_difference(FILE *a, FILE *b) {
  char la[1024], lb[1024];
  for (long line = 1;; line++) {
    char *ga = fgets(la, sizeof la, a), *gb = fgets(lb, sizeof lb, b);
    if (!ga && !gb) return 0;
    if (!ga || !gb || strcmp(la, lb)) return line;
  }
}

int main(int argc, char **argv) {
  int write = argc == 3 && !strcmp(argv[1], "--write");
  if (!write && argc != 2) return fprintf(stderr, "usage: ref_table [--write] FILE\n"), 2;
  const char *path = argv[argc - 1];
  char tmp[] = "/tmp/kgate-ref-table-XXXXXX", err[600];
  int fd = write ? -1 : mkstemp(tmp);
  if (!write && fd < 0) return perror("ref_table: mkstemp"), 2;
  if (fd >= 0) close(fd), unlink(tmp); /* a fresh name: save merges with what the file holds */
  kg_refcache c = {0};
  int rc = derive(&c);
  if (!rc && kg_refcache_save(&c, write ? path : tmp, NULL, err, sizeof err) != 0) {
    fprintf(stderr, "ref_table: %s\n", err);
    rc = -1;
  }
  kg_refcache_free(&c);
  if (rc || write) return rc ? 2 : 0;
  FILE *a = fopen(path, "r"), *b = fopen(tmp, "r");
  long line = a && b ? first_difference(a, b) : -1;
  if (a) fclose(a);
  if (b) fclose(b);
  unlink(tmp);
  if (line < 0) return fprintf(stderr, "ref_table: cannot read %s\n", path), 2;
  if (line) fprintf(stderr, "ref_table: %s differs from the re-derived table at line %ld (regenerate it: ref_table --write)\n", path, line);
  else printf("ref_table: %s re-derived exactly\n", path);
  return line ? 1 : 0;
}
