/* Per-GPU baselines: the timing summary per (variant, dtype, n) that
 * `kgate compare` judges a run against. The file is written one entry per
 * line in a fixed order, so that a baseline update reads as a short git diff. */
#include "baseline.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "fileio.h"
#include "jread.h"
#include "varreg.h"
#include "sizes.h"
#include "fields.h"
#include "validate.h"

#define R kg_json_real

void kg_baseline_path(const char *dir, const char *gpu_name, char *out, size_t len) {
  char slug[128];
  kg_gpu_slug(gpu_name, slug, sizeof slug);
  snprintf(out, len, "%s/%s.json", dir, slug);
}

int kg_same_gpu(const kg_device_info *a, const kg_device_info *b) { return strcmp(a->name, b->name) == 0; }

/* Registry order (the ladder), not the alphabet; names the registry no longer
 * knows (a variant removed since the baseline) go last, by name. */
static int entry_cmp(const void *pa, const void *pb) {
  const kg_base_entry *a = pa, *b = pb;
  int va = kg_variant_find(a->variant), vb = kg_variant_find(b->variant);
  size_t ra = va < 0 ? kg_nvariants : (size_t)va, rb = vb < 0 ? kg_nvariants : (size_t)vb;
  if (ra != rb) return ra < rb ? -1 : 1;
  int c = strcmp(a->variant, b->variant);
  if (c) return c;
  if (a->dtype != b->dtype) return a->dtype < b->dtype ? -1 : 1;
  return (a->n > b->n) - (a->n < b->n);
}

/* Equal keys: the timed entry first, so that dropping duplicates keeps it. */
static int entry_cmp_timed_first(const void *pa, const void *pb) {
  int c = entry_cmp(pa, pb);
  const kg_base_entry *a = pa, *b = pb;
  return c ? c : (b->t.samples > 0) - (a->t.samples > 0);
}

static void sort_unique(kg_baseline *b) {
  if (b->n == 0) return;
  qsort(b->entries, b->n, sizeof *b->entries, entry_cmp_timed_first);
  size_t k = 1;
  for (size_t i = 1; i < b->n; i++)
    if (entry_cmp(&b->entries[k - 1], &b->entries[i]) != 0) b->entries[k++] = b->entries[i];
  b->n = k;
}

void kg_baseline_free(kg_baseline *b) {
  kg_crec_free(&b->check);
  free(b->entries);
  b->entries = NULL;
  b->n = 0;
}

int kg_baseline_from_run(const kg_run *run, kg_baseline *b) {
  memset(b, 0, sizeof *b);
  b->dev = run->meta.dev;
  snprintf(b->commit, sizeof b->commit, "%s", run->meta.commit);
  snprintf(b->date, sizeof b->date, "%s", run->meta.date);
  if (!(b->entries = calloc(run->n ? run->n : 1, sizeof *b->entries))) return -1;
  for (size_t i = 0; i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    if (!c->timed) continue;
    kg_base_entry *e = &b->entries[b->n++];
    snprintf(e->variant, sizeof e->variant, "%s", kg_variants[c->variant].name);
    e->dtype = c->dtype;
    e->n = c->n;
    e->t = run->results[i].timing; /* samples 0 when the case failed */
  }
  sort_unique(b);
  return 0;
}

static json_t *entry_json(const kg_base_entry *e) {
  return json_pack("{ss ss sI si so so so so so}", "variant", e->variant, "dtype", kg_dtype_get(e->dtype)->name, "n",
                   (json_int_t)e->n, "samples", e->t.samples, "median_us", R(e->t.median_us), "q1_us", R(e->t.q1_us),
                   "q3_us", R(e->t.q3_us), "min_us", R(e->t.min_us), "noise", R(e->t.noise));
}

int kg_baseline_write(const char *path, const kg_baseline *b, char *err, size_t errlen) {
  json_t *entries = json_array();
  for (size_t i = 0; entries && i < b->n; i++)
    if (b->entries[i].t.samples > 0 && json_array_append_new(entries, entry_json(&b->entries[i])))
      json_decref(entries), entries = NULL; /* an untimed entry claims nothing: not written */
  json_t *doc = json_pack("{ss si so ss ss so}", "kind", "kgate-baseline", "schema_version", KG_BASELINE_SCHEMA,
                          "device", kg_device_to_json(&b->dev, KG_FORM_FILE), "kgate_commit", b->commit, "date",
                          b->date, "entries", entries);
  if (doc && b->check.on) json_object_set_new(doc, "check_record", kg_crec_to_json(&b->check, 0));
  int rc = kg_json_write(path, doc, "entries", err, errlen);
  json_decref(doc);
  return rc;
}

static void read_entry(kg_jrd *r, json_t *o, kg_base_entry *e) {
  /* An unknown variant is kept: it shows as MISSING, which is the truth. Its
   * name still reaches reports, charts and messages, so it must be a name. */
  kg_jrd_text(r, o, "variant", e->variant, sizeof e->variant, kg_why_bad_variant);
  const char *dtype = kg_jrd_str(r, o, "dtype");
  long long n = kg_jrd_range(r, o, "n", 0, (long long)KG_SIZE_MAX);
  char shown[72];
  if (!r->failed && kg_dtype_parse(dtype, &e->dtype))
    kg_jrd_fail(r, "unknown dtype '%s'", kg_esc_term(dtype, shown, sizeof shown));
  if (r->failed) return;
  e->n = (size_t)n;
  size_t len = strlen(r->where);
  kg_entry_label(e->variant, dtype, n, shown, sizeof shown);
  snprintf(r->where + len, sizeof r->where - len, " (%s)", shown);
  /* A baseline holds measured timings only: kgate never writes an untimed entry. */
  e->t.samples = (int)kg_jrd_range(r, o, "samples", 1, INT_MAX);
  e->t.median_us = kg_jrd_time(r, o, "median_us");
  e->t.q1_us = kg_jrd_time(r, o, "q1_us");
  e->t.q3_us = kg_jrd_time(r, o, "q3_us");
  e->t.min_us = kg_jrd_time(r, o, "min_us");
  e->t.noise = kg_jrd_real(r, o, "noise", 0, 1e9, INFINITY);
  char why[200];
  if (!r->failed && kg_timing_check(&e->t, 1, why, sizeof why)) kg_jrd_fail(r, "%s", why);
}

/* The same (variant, dtype, n) twice: which one is the baseline? Refused. */
static void refuse_duplicates(kg_jrd *r, const kg_baseline *b) {
  size_t i, j;
  if (!kg_find_duplicate(r, b->entries, b->n, sizeof *b->entries, entry_cmp, &i, &j)) return;
  char label[96];
  const kg_base_entry *e = &b->entries[j];
  kg_entry_label(e->variant, kg_dtype_get(e->dtype)->name, (long long)e->n, label, sizeof label);
  snprintf(r->where, sizeof r->where, "entries[%zu] (%s)", j, label);
  kg_jrd_fail(r, "the same case as entries[%zu]: an entry appears once in a baseline", i);
}

static void read_baseline(kg_jrd *r, json_t *doc, kg_baseline *b) {
  long long version = kg_jrd_int(r, doc, "schema_version");
  if (!r->failed && version != KG_BASELINE_SCHEMA)
    kg_jrd_fail(r, "schema_version %lld is not supported (this kgate reads %d)", version, KG_BASELINE_SCHEMA);
  json_t *dev = kg_jrd_obj(r, doc, "device", 0);
  kg_jrd_text(r, doc, "kgate_commit", b->commit, sizeof b->commit, kg_why_bad_commit);
  kg_jrd_text(r, doc, "date", b->date, sizeof b->date, kg_why_bad_date);
  json_t *entries = kg_jrd_arr(r, doc, "entries");
  char e[300];
  snprintf(r->where, sizeof r->where, "device");
  if (!r->failed && kg_device_from_json(dev, &b->dev, KG_FORM_FILE, e, sizeof e)) kg_jrd_fail(r, "%s", e);
  size_t n = json_array_size(entries);
  if (!r->failed && !(b->entries = calloc(n ? n : 1, sizeof *b->entries))) kg_jrd_fail(r, "out of memory");
  for (size_t i = 0; i < n && !r->failed; i++) {
    json_t *o = json_array_get(entries, i);
    snprintf(r->where, sizeof r->where, "entries[%zu]", i);
    if (!json_is_object(o)) kg_jrd_fail(r, "not an object");
    else read_entry(r, o, &b->entries[b->n++]);
  }
  if (!r->failed) refuse_duplicates(r, b);
  /* a hand-edited file may be out of order */
  sort_unique(b);
  json_t *rec = json_object_get(doc, "check_record"); /* optional: baselines of runs that probed */
  if (!r->failed && rec) {
    snprintf(r->where, sizeof r->where, "check_record");
    if (!json_is_object(rec) || json_object_get(rec, "from")) kg_jrd_fail(r, "not a baseline's check record");
    else kg_crec_read(r, rec, &b->check);
  }
}

/* kg_baseline_load, also telling which kind of file it was. */
static int load(const char *path, kg_baseline *b, int *is_results, char *err, size_t errlen) {
  memset(b, 0, sizeof *b);
  *is_results = 0;
  json_t *doc;
  int rc = kg_json_load(path, &doc, err, errlen);
  if (rc) return rc;
  kg_jrd r = {.file = path, .err = err, .errlen = errlen};
  const char *kind = kg_jrd_str(&r, doc, "kind");
  *is_results = strcmp(kind, "kgate-results") == 0;
  if (!r.failed && !*is_results) {
    if (strcmp(kind, "kgate-baseline") == 0) read_baseline(&r, doc, b);
    else {
      char shown[72];
      kg_jrd_fail(&r, "not a kgate baseline or results file (kind '%s')", kg_esc_term(kind, shown, sizeof shown));
    }
  }
  json_decref(doc);
  if (!r.failed && *is_results) {
    kg_run run;
    if (kg_results_read(path, &run, err, errlen)) return -1;
    rc = kg_baseline_from_run(&run, b);
    kg_run_free(&run);
    if (rc) snprintf(err, errlen, "%s: out of memory", path);
    return rc;
  }
  if (r.failed) kg_baseline_free(b);
  return r.failed ? -1 : 0;
}

int kg_baseline_load(const char *path, kg_baseline *b, char *err, size_t errlen) {
  int is_results;
  return load(path, b, &is_results, err, errlen);
}

/* 0 when the run may become a baseline, else -1 with the reason. A pending
 * case means an interrupted run, which is no more "fully correct" than a
 * failed one. */
static int check_run(const char *path, const kg_run *run, char *err, size_t errlen) {
  size_t bad = 0, timed = 0, first = 0;
  for (size_t i = 0; i < run->n; i++) {
    kg_status s = run->results[i].status;
    if ((s == KG_ST_FAIL || s == KG_ST_ERROR || s == KG_ST_PENDING) && bad++ == 0) first = i;
    timed += run->cases[i].timed && run->results[i].timing.samples > 0;
  }
  if (bad) {
    const kg_case *c = &run->cases[first];
    snprintf(err, errlen, "not updating baseline %s: %zu case(s) did not pass, first %s %s n=%zu %s: %s", path, bad,
             kg_variants[c->variant].name, kg_dtype_get(c->dtype)->name, c->n, kg_pattern_name(c->pattern),
             kg_status_name(run->results[first].status));
    return -1;
  }
  if (timed == 0) {
    snprintf(err, errlen, "not updating baseline %s: the run timed no case", path);
    return -1;
  }
  return 0;
}

/* The baseline's check record after an update: the run's groups, over the
 * old record's when both share their key (the run passed every case, so
 * each group it recorded stands). 0, or -1 out of memory. */
static int merge_record(kg_crec *out, const kg_crec *old, const kg_crec *run) {
  memset(out, 0, sizeof *out);
  const kg_crec *keep = !run->on || kg_crec_same_key(old, run) ? old : NULL, *key = run->on ? run : old;
  if (!key->on) return 0;
  snprintf(out->harness, sizeof out->harness, "%s", key->harness);
  out->arch = key->arch, out->seed = key->seed, out->repeats = key->repeats, out->on = 1;
  for (size_t i = 0; keep && i < keep->n; i++)
    if (kg_crec_put(out, &keep->g[i])) return -1;
  for (size_t i = 0; i < run->n; i++) {
    kg_crec_group g = run->g[i];
    g.carried = 0;
    if (kg_crec_put(out, &g)) return -1;
  }
  return 0;
}

/* kg_baseline_update under the writers' lock. */
static int update_locked(const char *path, const kg_run *run, char *err, size_t errlen) {
  kg_baseline old, now;
  char why[512];
  int is_results, rc = load(path, &old, &is_results, why, sizeof why);
  if (rc < 0) {
    snprintf(err, errlen, "not updating the baseline: %s", why);
    return -1;
  }
  if (rc == 0 && is_results) {
    snprintf(err, errlen, "not updating %s: it is a results file, not a baseline", path);
    kg_baseline_free(&old);
    return -1;
  }
  if (rc == 0 && !kg_same_gpu(&old.dev, &run->meta.dev)) {
    snprintf(err, errlen, "baseline %s is for %s, this run is on %s", path, old.dev.name, run->meta.dev.name);
    kg_baseline_free(&old);
    return -1;
  }
  if (kg_baseline_from_run(run, &now)) {
    snprintf(err, errlen, "not updating baseline %s: out of memory", path);
    kg_baseline_free(&old);
    return -1;
  }
  /* now gets the old entries the run did not time; its untimed ones go. */
  kg_base_entry *all = realloc(now.entries, (now.n + old.n + 1) * sizeof *all);
  if (all) {
    now.entries = all;
    size_t k = 0, timed = now.n;
    for (size_t i = 0; i < timed; i++)
      if (all[i].t.samples > 0) all[k++] = all[i];
    timed = k;
    for (size_t i = 0; i < old.n; i++)
      if (!bsearch(&old.entries[i], all, timed, sizeof *all, entry_cmp)) all[k++] = old.entries[i];
    now.n = k;
    sort_unique(&now);
    rc = merge_record(&now.check, &old.check, &run->check);
    if (rc) snprintf(err, errlen, "not updating baseline %s: out of memory", path);
    else rc = kg_baseline_write(path, &now, err, errlen);
  } else {
    snprintf(err, errlen, "not updating baseline %s: out of memory", path);
    rc = -1;
  }
  kg_baseline_free(&old);
  kg_baseline_free(&now);
  return rc;
}

int kg_baseline_update(const char *path, const kg_run *run, char *err, size_t errlen) {
  char bad[400];
  if (kg_run_check(run, bad, sizeof bad)) {
    snprintf(err, errlen, "not updating baseline %s: the run is not valid: %s", path, bad);
    return -1;
  }
  if (check_run(path, run, err, errlen)) return -1;
  /* One update at a time: two merges side by side would each read the old
   * file, and the second rename would drop the first's cases. */
  kg_lock lk;
  if (kg_lock_take(&lk, path, err, errlen)) return -1;
  int rc = update_locked(path, run, err, errlen);
  kg_lock_drop(&lk);
  return rc;
}
