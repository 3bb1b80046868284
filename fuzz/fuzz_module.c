/* libFuzzer target: the kernel-module loader's checks (harness/lib/run/module.c),
 * without CUDA or dlopen. The input's first byte picks what it feeds:
 * - even: the rest is a describe line, the JSON a worker prints for the
 *   supervisor; a line the parser accepts must describe again to a line that
 *   parses to the same modules;
 * - odd: the rest builds a registry table (ABI fields, count, then per
 *   variant a name, flags, dtypes and which functions are missing) that
 *   kg_module_validate must judge without reading past it or calling it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modload.h"

static int run_stub(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  (void)dt, (void)in, (void)n, (void)out, (void)scratch, (void)stream;
  abort(); /* validation must never call into a module */
}
static size_t scratch_stub(int dt, size_t n) {
  (void)dt, (void)n;
  abort();
}
static double depth_stub(size_t n) {
  (void)n;
  abort();
}

static void same_or_abort(const kg_modinfo *a, const kg_modinfo *b) {
  int same = !strcmp(a->path, b->path) && !strcmp(a->name, b->name) && !strcmp(a->version, b->version) && a->n == b->n;
  for (size_t i = 0; same && i < a->n; i++)
    same = !strcmp(a->v[i].name, b->v[i].name) && a->v[i].flags == b->v[i].flags && a->v[i].dtypes == b->v[i].dtypes;
  if (!same) {
    fprintf(stderr, "fuzz_module: a parsed description does not survive describing it again\n");
    abort();
  }
}

static void describe_round_trip(const uint8_t *data, size_t size) {
  char *line = malloc(size + 1), err[512];
  if (!line) return;
  memcpy(line, data, size);
  line[size] = '\0';
  kg_modinfo a[2], b[2];
  int n = kg_module_parse_describe(line, a, 2, err, sizeof err);
  free(line);
  if (n < 0) return;
  kg_loaded_module lm[2];
  kg_module m[2];
  kg_module_variant *v[2] = {NULL, NULL};
  int ok = 1;
  for (int k = 0; k < n; k++) {
    v[k] = calloc(a[k].n + 1, sizeof *v[k]);
    ok &= v[k] != NULL;
    for (size_t i = 0; v[k] && i < a[k].n; i++)
      v[k][i] = (kg_module_variant){a[k].v[i].name, "", "", a[k].v[i].flags, a[k].v[i].dtypes,
                                    run_stub,         scratch_stub, depth_stub, 0, 0};
    m[k] = (kg_module){KG_MODULE_ABI, sizeof(kg_module_variant), a[k].name, a[k].version, a[k].n, v[k]};
    memset(&lm[k], 0, sizeof lm[k]);
    lm[k].m = &m[k];
    snprintf(lm[k].path, sizeof lm[k].path, "%s", a[k].path);
  }
  char *again = ok ? kg_module_describe(lm, NULL, (size_t)n) : NULL;
  if (again) {
    if (kg_module_parse_describe(again, b, 2, err, sizeof err) != n) {
      fprintf(stderr, "fuzz_module: a description kgate wrote does not parse: %s\n", err);
      abort();
    }
    for (int k = 0; k < n; k++) same_or_abort(&a[k], &b[k]), kg_modinfo_free(&b[k]);
    free(again);
  }
  for (int k = 0; k < n; k++) kg_modinfo_free(&a[k]), free(v[k]);
}

/* Bytes to a table: [abi lo][size lo][count] then per variant
 * [name length][name bytes][flags][dtypes][missing functions bits]. */
static void validate_table(const uint8_t *d, size_t size) {
  if (size < 3) return;
  kg_module_variant v[16];
  char names[16][80];
  size_t count = d[2] % 17, pos = 3;
  for (size_t i = 0; i < count && i < 16; i++) {
    size_t len = pos < size ? d[pos++] % 72 : 0;
    size_t take = len < size - pos ? len : size - pos;
    memcpy(names[i], d + pos, take);
    names[i][take] = '\0';
    pos += take;
    unsigned flags = pos < size ? d[pos++] : 0, dtypes = pos < size ? d[pos++] : 0;
    unsigned missing = pos < size ? d[pos++] : 0;
    v[i] = (kg_module_variant){(missing & 8) ? NULL : names[i], "s", "i", flags, dtypes,
                               (missing & 1) ? NULL : run_stub, (missing & 2) ? NULL : scratch_stub,
                               (missing & 4) ? NULL : depth_stub, flags >> 4 & 3u, dtypes >> 6 & 1u};
  }
  kg_module m = {KG_MODULE_ABI ^ (d[0] & 3u), (d[1] & 2u) ? (unsigned)KG_MODULE_VARIANT_MIN - (d[1] & 1u) : (unsigned)sizeof(kg_module_variant) + (d[1] & 1u), "fuzz", "1",
                 count, v};
  char err[256];
  int rc = kg_module_validate(&m, err, sizeof err);
  if (rc == 0 && (m.abi != KG_MODULE_ABI || count == 0)) {
    fprintf(stderr, "fuzz_module: a table of ABI %u with %zu variants was accepted\n", m.abi, count);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  if (data[0] & 1) validate_table(data + 1, size - 1);
  else describe_round_trip(data + 1, size - 1);
  return 0;
}
