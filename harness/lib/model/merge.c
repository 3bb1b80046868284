/* kgate merge: joins results files whose cases are disjoint and whose runs
 * are comparable (same kgate, same GPU model, same inputs and L2 mode), so
 * the result is an ordinary results file for compare, baseline update, plot
 * and report. */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "dtype.h"
#include "results.h"
#include "varreg.h"

typedef struct item {
  kg_case c;
  kg_result r;
  size_t file; /* which input it came from, for the message naming both */
} item;

static int item_cmp(const void *pa, const void *pb) {
  const kg_case *a = &((const item *)pa)->c, *b = &((const item *)pb)->c;
  if (a->dtype != b->dtype) return a->dtype < b->dtype ? -1 : 1;
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  if (a->pattern != b->pattern) return a->pattern < b->pattern ? -1 : 1;
  return (a->variant > b->variant) - (a->variant < b->variant);
}

/* Why run b cannot join run a, or NULL. */
static const char *mismatch(const kg_run_meta *a, const kg_run_meta *b) {
  if (strcmp(a->version, b->version)) return "kgate_version";
  if (strcmp(a->commit, b->commit)) return "kgate_commit";
  if (!kg_same_gpu(&a->dev, &b->dev)) return "GPU model";
  if (a->seed != b->seed) return "seed";
  if (a->repeats != b->repeats) return "repeats";
  if (a->time.hot != b->time.hot) return "L2 mode (--hot)";
  return NULL;
}

/* Shards run side by side on several runners: the merged run names each
 * once, comma-separated (cut at a character boundary when too many). */
static void add_runner(char *runners, size_t len, const char *runner) {
  if (!runner[0]) return;
  size_t n = strlen(runner);
  for (const char *p = runners; (p = strstr(p, runner)); p += n)
    if ((p == runners || p[-1] == ',') && (p[n] == ',' || !p[n])) return;
  char all[512];
  snprintf(all, sizeof all, "%s%s%s", runners, runners[0] ? "," : "", runner);
  kg_copy_text(runners, len, all);
}

/* The paired cells of several runs (shards of one paired run): all paired
 * against the same base module, each cell once. 0, or -1 with err. */
static int merge_pairs(const char *const *paths, const kg_run *runs, size_t nruns, kg_run *out, char *err,
                       size_t errlen) {
  size_t total = 0;
  for (size_t f = 0; f < nruns; f++) {
    if (runs[f].pair.on != runs[0].pair.on) {
      snprintf(err, errlen, "%s is paired and %s is not: refusing to merge", paths[runs[0].pair.on ? 0 : f],
               paths[runs[0].pair.on ? f : 0]);
      return -1;
    }
    if (strcmp(runs[f].pair.base_name, runs[0].pair.base_name) ||
        strcmp(runs[f].pair.base_version, runs[0].pair.base_version)) {
      snprintf(err, errlen, "%s and %s were paired against different base modules: refusing to merge", paths[0],
               paths[f]);
      return -1;
    }
    total += runs[f].npairs;
  }
  if (!runs[0].pair.on) return 0;
  out->pair = runs[0].pair;
  out->pairs = malloc((total ? total : 1) * sizeof *out->pairs);
  if (!out->pairs) return snprintf(err, errlen, "out of memory"), -1;
  for (size_t f = 0; f < nruns; f++) {
    if (runs[f].pair.wall_s > out->pair.wall_s) out->pair.wall_s = runs[f].pair.wall_s;
    for (size_t i = 0; i < runs[f].npairs; i++) {
      const kg_pair_cell *c = &runs[f].pairs[i];
      for (size_t j = 0; j < out->npairs; j++)
        if (!strcmp(out->pairs[j].variant, c->variant) && out->pairs[j].dtype == c->dtype && out->pairs[j].n == c->n) {
          snprintf(err, errlen, "paired cell %.63s %s n=%zu is in more than one file (%s): refusing to merge",
                   c->variant, kg_dtype_get(c->dtype)->name, c->n, paths[f]);
          return -1;
        }
      out->pairs[out->npairs++] = *c;
    }
  }
  kg_pair_sort(out->pairs, out->npairs);
  return 0;
}

/* Why run f may not join run 0 (runs[0..f] read), in err: -1; or 0. */
static int refuse_join(const char *const *paths, const kg_run *runs, size_t f, char *err, size_t errlen) {
  const char *what = f ? mismatch(&runs[0].meta, &runs[f].meta) : NULL;
  long long id0 = runs[0].meta.prov.run_id, id = runs[f].meta.prov.run_id;
  if (what) {
    snprintf(err, errlen, "%s and %s have different %s: refusing to merge", paths[0], paths[f], what);
    return -1;
  }
  if (id != id0) { /* shards of one gate come from one CI run; 0: none recorded */
    snprintf(err, errlen, "%s and %s come from different CI runs (run_id %lld and %lld; 0: none recorded): "
             "refusing to merge", paths[0], paths[f], id0, id);
    return -1;
  }
  return 0;
}

/* Reads the files in order until one does not read or may not join the
 * first. *loaded: the runs read (to free), *total: their cases. 0, or -1
 * with err. */
static int load_runs(const char *const *paths, size_t npaths, kg_run *runs, size_t *loaded, size_t *total,
                     char *err, size_t errlen) {
  for (size_t f = 0; f < npaths; f++) {
    if (kg_results_read(paths[f], &runs[f], err, errlen)) return -1; /* a failed read frees its own */
    *loaded = f + 1;
    *total += runs[f].n;
    if (refuse_join(paths, runs, f, err, errlen)) return -1;
  }
  return 0;
}

/* Every file's cases in one array (*joined, to free), sorted, refused when
 * a case is in two files. 0, or -1 with err. */
static int join_cases(const char *const *paths, const kg_run *runs, size_t npaths, size_t total, item **joined,
                      char *err, size_t errlen) {
  item *all = *joined = malloc((total ? total : 1) * sizeof *all);
  if (!all) return snprintf(err, errlen, "out of memory"), -1;
  size_t k = 0;
  for (size_t f = 0; f < npaths; f++)
    for (size_t i = 0; i < runs[f].n; i++) all[k++] = (item){runs[f].cases[i], runs[f].results[i], f};
  qsort(all, total, sizeof *all, item_cmp);
  /* A case twice inside one file is refused by kg_results_read already,
   * so equal neighbours here come from two files. */
  for (size_t i = 1; i < total; i++) {
    if (item_cmp(&all[i - 1], &all[i])) continue;
    const kg_case *c = &all[i].c;
    size_t a = all[i - 1].file < all[i].file ? all[i - 1].file : all[i].file;
    size_t b = all[i - 1].file ^ all[i].file ^ a;
    snprintf(err, errlen, "case %s %s n=%zu %s is in both %s and %s: refusing to merge",
             kg_variants[c->variant].name, kg_dtype_get(c->dtype)->name, c->n, kg_pattern_name(c->pattern),
             paths[a], paths[b]);
    return -1;
  }
  return 0;
}

/* The merged run from the joined cases: the first file's metadata and lint
 * (taken from runs[0]), every file's wall time and runner, the paired
 * cells. 0, or -1 with err and *out freed. */
static int merged_run(const char *const *paths, kg_run *runs, size_t npaths, const item *all, size_t total,
                      kg_run *out, char *err, size_t errlen) {
  out->meta = runs[0].meta;
  out->meta.shard[0] = '\0';
  out->meta.phases.known = 0; /* shards on several machines: their phase times do not add up to one run's */
  /* every shard lints the same modules: the first one's lint is the run's */
  out->lint = runs[0].lint, out->nlint = runs[0].nlint;
  runs[0].lint = NULL, runs[0].nlint = 0;
  for (size_t f = 1; f < npaths; f++) {
    if (runs[f].meta.wall_s > out->meta.wall_s) out->meta.wall_s = runs[f].meta.wall_s;
    add_runner(out->meta.prov.runner, sizeof out->meta.prov.runner, runs[f].meta.prov.runner);
  }
  out->cases = malloc((total ? total : 1) * sizeof *out->cases);
  out->results = malloc((total ? total : 1) * sizeof *out->results);
  if (!out->cases || !out->results) {
    kg_run_free(out);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < total; i++) out->cases[i] = all[i].c, out->results[i] = all[i].r;
  out->n = total;
  if (merge_pairs(paths, runs, npaths, out, err, errlen)) return kg_run_free(out), -1;
  return 0;
}

int kg_merge_runs(const char *const *paths, size_t npaths, kg_run *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  kg_run *runs = calloc(npaths ? npaths : 1, sizeof *runs);
  if (!runs) return snprintf(err, errlen, "out of memory"), -1;
  size_t total = 0, loaded = 0;
  item *all = NULL;
  int rc = load_runs(paths, npaths, runs, &loaded, &total, err, errlen);
  if (!rc) rc = join_cases(paths, runs, npaths, total, &all, err, errlen);
  if (!rc) rc = merged_run(paths, runs, npaths, all, total, out, err, errlen);
  free(all);
  for (size_t f = 0; f < loaded && f < npaths; f++) kg_run_free(&runs[f]);
  free(runs);
  return rc;
}
