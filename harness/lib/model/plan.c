#include "plan.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "varreg.h"
#include "sizes.h"
#include "suggest.h"

int kg_plan_select(const char *list, int (*lookup)(const char *), const char *what, uint64_t *mask, char *err,
                   size_t errlen) {
  *mask = 0;
  char *copy = strdup(list);
  if (!copy) return -1;
  int rc = 0;
  char *item = copy;
  for (;;) {
    char *comma = strchr(item, ',');
    if (comma) *comma = '\0';
    int i = lookup(item);
    if (i < 0) {
      snprintf(err, errlen, "unknown %s '%s' (try kgate list)", what, item);
      rc = -1;
      break;
    }
    *mask |= 1ull << i;
    if (!comma) break;
    item = comma + 1;
  }
  free(copy);
  return rc;
}

static int dtype_lookup(const char *name) {
  kg_dtype dt;
  return kg_dtype_parse(name, &dt) ? -1 : (int)dt;
}

static int pattern_lookup(const char *name) {
  kg_pattern p;
  return kg_pattern_parse(name, &p) ? -1 : (int)p;
}

kg_pattern kg_perf_pattern(kg_dtype dt) { return kg_dtype_get(dt)->is_float ? KG_PAT_UNIFORM : KG_PAT_WRAP; }

static int is_perf_size(const kg_plan_opts *o, size_t n) {
  for (size_t i = 0; i < o->nperf; i++)
    if (o->perf_sizes[i] == n) return 1;
  return 0;
}

/* One --variant item: a name, or a glob (fnmatch: *, ?, [...]) over the real
 * variants' names. -1 with the message in err when it selects nothing: a
 * mistyped name gets the nearest variant's name. */
static int select_variant(const char *item, unsigned char *sel, char *err, size_t errlen) {
  if (strpbrk(item, "*?[")) {
    int matched = 0;
    for (size_t v = 0; v < kg_nvariants; v++)
      if (!fnmatch(item, kg_variants[v].name, 0)) sel[v] = 1, matched = 1;
    if (!matched)
      snprintf(err, errlen,
               "--variant '%.100s' matches no variant (try kgate list; a module's variants need --kernels)", item);
    return matched ? 0 : -1;
  }
  int v = kg_variant_find(item);
  if (v >= 0) return sel[v] = 1, 0;
  kg_suggest s;
  kg_suggest_init(&s, item);
  for (size_t k = 0; k < kg_nvariants; k++) kg_suggest_add(&s, kg_variants[k].name);
  const char *best = kg_suggest_best(&s);
  snprintf(err, errlen, "unknown variant '%.100s'%s%.100s%s (try kgate list; a module's variants need --kernels)", item,
           best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
  return -1;
}

/* --variant: a flag per registry index (the registry outgrows a 64-bit mask
 * once modules are loaded). NULL list: every variant, or with modules_only
 * the variants of the --kernels modules only (a team's gate is its own). */
static int select_variants(const char *list, int modules_only, unsigned char *sel, char *err, size_t errlen) {
  memset(sel, !list, kg_nvariants);
  if (!list && modules_only)
    for (size_t v = 0; v < kg_nvariants; v++) sel[v] = kg_variants[v].module >= 1;
  if (!list) return 0;
  char *copy = strdup(list);
  if (!copy) return snprintf(err, errlen, "out of memory"), -1;
  int rc = 0;
  for (char *item = copy, *comma; !rc; item = comma + 1) {
    if ((comma = strchr(item, ','))) *comma = '\0';
    rc = select_variant(item, sel, err, errlen);
    if (!comma) break;
  }
  free(copy);
  return rc;
}

kg_plan_estimate kg_plan_estimate_time(const kg_case *cases, size_t ncases, double max_seconds) {
  double base = 1.5, timed = 0;
  for (size_t i = 0; i < ncases; i++) {
    if (!cases[i].supported) continue;
    base += 0.5e-3;
    timed += cases[i].timed;
  }
  return (kg_plan_estimate){base + 0.1 * timed, base + max_seconds * timed};
}

int kg_plan_policy(kg_plan_opts *o, int sanitize, int timing, int huge, size_t **owned) {
  static const size_t k_perf_default[] = {(size_t)1 << 22, (size_t)1 << 25};
  *owned = NULL;
  if (sanitize) {
    if (!o->sizes) o->sizes = kg_san_default_sizes(&o->nsizes);
    if (!o->patterns) o->patterns = "exact";
  }
  if (timing && !o->perf_sizes) o->perf_sizes = k_perf_default, o->nperf = 2;
  if (!timing) o->perf_sizes = NULL, o->nperf = 0;
  if (!huge) return 0;
  size_t nbase = o->nsizes;
  const size_t *base = o->sizes ? o->sizes : kg_sizes_default(&nbase);
  size_t *sizes = malloc((nbase + 2) * sizeof *sizes);
  if (!sizes) return -1;
  memcpy(sizes, base, nbase * sizeof *sizes);
  sizes[nbase] = ((size_t)1 << 31) + 1;
  sizes[nbase + 1] = ((size_t)1 << 32) + 3;
  o->sizes = *owned = sizes;
  o->nsizes = nbase + 2;
  return 0;
}

int kg_plan_build(const kg_plan_opts *o, kg_case **cases, size_t *ncases, char *err, size_t errlen) {
  uint64_t dmask = ~0ull, pmask = ~0ull;
  *cases = NULL;
  *ncases = 0;
  unsigned char vsel[KG_REGISTRY_MAX];
  if (select_variants(o->variants, o->modules_only, vsel, err, errlen)) return -1;
  if (o->dtypes && kg_plan_select(o->dtypes, dtype_lookup, "dtype", &dmask, err, errlen)) return -1;
  if (o->patterns && kg_plan_select(o->patterns, pattern_lookup, "pattern", &pmask, err, errlen)) return -1;
  size_t nbase = o->nsizes;
  const size_t *base = o->sizes ? o->sizes : kg_sizes_default(&nbase);
  /* The sizes checked, plus any perf size not among them. */
  size_t *sizes = malloc((nbase + o->nperf + 1) * sizeof *sizes);
  if (!sizes) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  size_t nsizes = 0;
  for (size_t i = 0; i < nbase + o->nperf; i++) {
    size_t n = i < nbase ? base[i] : o->perf_sizes[i - nbase];
    int seen = 0;
    for (size_t k = 0; k < nsizes; k++) seen |= sizes[k] == n;
    if (!seen) sizes[nsizes++] = n;
  }

  size_t cap = nsizes * KG_NDTYPES * KG_NPATTERNS * kg_nvariants;
  kg_case *list = malloc((cap ? cap : 1) * sizeof *list);
  if (!list) {
    free(sizes);
    snprintf(err, errlen, "out of memory for %zu cases", cap);
    return -1;
  }
  size_t k = 0;
  for (int d = 0; d < KG_NDTYPES; d++) {
    if (!(dmask >> d & 1)) continue;
    for (size_t s = 0; s < nsizes; s++)
      for (int p = 0; p < KG_NPATTERNS; p++) {
        if (!(pmask >> p & 1) || !kg_pattern_applies((kg_pattern)p, (kg_dtype)d)) continue;
        for (size_t v = 0; v < kg_nvariants; v++) {
          /* A dtype the variant does not declare (its module's table, or
           * kgate's registry) is not planned: the plan's report counts it. */
          if (!vsel[v] || !kg_variant_supports((int)v, (kg_dtype)d)) continue;
          int supported = kg_case_supported((int)v, (kg_dtype)d, (kg_pattern)p);
          int timed = supported && p == (int)kg_perf_pattern((kg_dtype)d) && is_perf_size(o, sizes[s]);
          list[k++] = (kg_case){(int)v, (kg_dtype)d, sizes[s], (kg_pattern)p, supported, timed};
        }
      }
  }
  free(sizes);
  if (k == 0) {
    free(list);
    snprintf(err, errlen, "the selection leaves no case to run (a dtype no selected variant declares, or a pattern "
                          "that does not apply to the dtype? kgate list shows each variant's dtypes)");
    return -1;
  }
  *cases = list;
  *ncases = k;
  return 0;
}

static int same_input(const kg_case *a, const kg_case *b) {
  return a->dtype == b->dtype && a->n == b->n && a->pattern == b->pattern;
}

size_t kg_plan_groups(const kg_case *cases, size_t ncases, size_t *group) {
  size_t g = 0;
  for (size_t i = 0; i < ncases; i++) {
    if (i > 0 && !same_input(&cases[i - 1], &cases[i])) g++;
    if (group) group[i] = g;
  }
  return ncases ? g + 1 : 0;
}

int kg_shard_parse(const char *text, unsigned *i, unsigned *n) {
  unsigned long a, b;
  char *end;
  if (!text || !isdigit((unsigned char)*text)) return -1;
  a = strtoul(text, &end, 10);
  if (*end != '/' || !isdigit((unsigned char)end[1])) return -1;
  b = strtoul(end + 1, &end, 10);
  if (*end || a < 1 || b < 1 || a > b || b > 4096) return -1;
  *i = (unsigned)a;
  *n = (unsigned)b;
  return 0;
}

size_t kg_plan_shard(kg_case *cases, size_t ncases, unsigned i, unsigned n) {
  size_t kept = 0, g = 0;
  kg_case prev = {0};
  for (size_t k = 0; k < ncases; k++) {
    if (k > 0 && !same_input(&prev, &cases[k])) g++;
    prev = cases[k];
    if (g % n == i - 1) cases[kept++] = cases[k];
  }
  return kept;
}
