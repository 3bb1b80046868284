/* The history file: JSON Lines, one run per line, appended and never
 * rewritten. A line holds what a trend needs (the device, the L2 mode, the
 * case counts, and per timed case its median and quartiles) and nothing that
 * can be recomputed, so a year of nightly runs stays a few megabytes. */
#include "history.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "dtype.h"
#include "escape.h"
#include "fileio.h"
#include "jread.h"
#include "label.h"
#include "varreg.h"
#include "sizes.h"
#include "fields.h"
#include "validate.h"

/* Six significant digits: a timing's noise is above 0.1 %, and a nightly
 * line of 2,500 cases should not carry 17 digits per number. */
static json_t *real6(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.6g", v);
  return kg_json_real(strtod(buf, NULL));
}

static json_t *perf_json(const kg_run *run) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    const kg_timing *t = &run->results[i].timing;
    if (!c->timed || t->samples <= 0) continue;
    json_t *e = json_pack("[ss I o o o i]", kg_variants[c->variant].name, kg_dtype_get(c->dtype)->name,
                          (json_int_t)c->n, real6(t->median_us), real6(t->q1_us), real6(t->q3_us), t->samples);
    if (json_array_append_new(a, e)) json_decref(a), a = NULL;
  }
  return a;
}

/* A run's measured paired cells (an interval from two blocks or more):
 * [variant, dtype, n, ratio, lo, hi, head_us, base_us]. NEW, MISSING,
 * UNKNOWN and UNCHANGED cells have no blocks: no measurement, so the
 * detector never reads their placeholder ratio as one. */
static json_t *pcells_json(const kg_run *run) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < run->npairs; i++) {
    const kg_pair_cell *c = &run->pairs[i];
    const kg_pair_stat *s = &c->stat;
    if (s->blocks < 2 || !(s->lo > 0 && isfinite(s->hi) && s->head_us > 0 && s->base_us > 0)) continue;
    json_t *e = json_pack("[ss I o o o o o]", c->variant, kg_dtype_get(c->dtype)->name, (json_int_t)c->n,
                          real6(s->ratio), real6(s->lo), real6(s->hi), real6(s->head_us), real6(s->base_us));
    if (json_array_append_new(a, e)) json_decref(a), a = NULL;
  }
  return a;
}

/* The night against the pinned reference: who the reference is, and every
 * measured cell's ratio and interval; NULL when the run was not paired. */
static json_t *paired_json(const kg_run *run, const kg_run *control) {
  const kg_pair_meta *m = &run->pair;
  if (!m->on) return NULL;
  json_t *o = json_pack("{s{ss ss ss ss} ss so si so}", "reference", "name", m->base_name, "version", m->base_version,
                        "sha256", m->base_sha256, "commit", m->base_commit, "card", run->meta.dev.uuid, "confidence",
                        kg_json_real(m->confidence), "rounds", m->rounds, "cells", pcells_json(run));
  if (o && control && control->pair.on && json_object_set_new(o, "control", pcells_json(control)))
    json_decref(o), o = NULL;
  return o;
}

char *kg_history_line(const kg_run *run, const kg_run *paired, const kg_run *control) {
  const kg_run_meta *m = &run->meta;
  kg_counts k = kg_count_results(run->results, run->n);
  json_t *doc = json_pack("{ss si ss ss ss so sb s{sI sI sI sI sI sI} so}", "kind", "kgate-history", "schema_version",
                          KG_HISTORY_SCHEMA, "date", m->date, "kgate_commit", m->commit, "kgate_version", m->version,
                          "device", kg_device_to_json(&m->dev, KG_FORM_FILE), "hot", m->time.hot, "checks", "cases",
                          (json_int_t)k.cases, "passed", (json_int_t)k.passed, "failed", (json_int_t)k.failed,
                          "errors", (json_int_t)k.errored, "unsupported", (json_int_t)k.unsupported, "pending",
                          (json_int_t)k.pending, "perf", perf_json(run));
  json_t *p = doc ? paired_json(paired ? paired : run, control) : NULL;
  if (p && json_object_set_new(doc, "paired", p)) json_decref(doc), doc = NULL;
  /* The night's toolchain and machine: the paired run's (its cells are the night's), else the run's. */
  const kg_toolchain *tc = paired && kg_toolchain_known(&paired->meta.dev.toolchain) ? &paired->meta.dev.toolchain
                                                                                       : &m->dev.toolchain;
  if (doc && kg_toolchain_known(tc) && json_object_set_new(doc, "toolchain", kg_toolchain_to_json(tc)))
    json_decref(doc), doc = NULL;
  /* Where the night was made: the commit it built is the range a finding names (kg_hist_commit). */
  const kg_provenance *pv = paired && kg_provenance_known(&paired->meta.prov) ? &paired->meta.prov : &m->prov;
  if (doc && kg_provenance_known(pv) && json_object_set_new(doc, "provenance", kg_provenance_to_json(pv)))
    json_decref(doc), doc = NULL;
  char *line = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(15)) : NULL;
  json_decref(doc);
  return line;
}

/* ---- reading ------------------------------------------------------------- */

static int entry_cmp(const void *pa, const void *pb) {
  const kg_hist_entry *a = pa, *b = pb;
  int c = strcmp(a->variant, b->variant);
  if (c) return c;
  if (a->dtype != b->dtype) return a->dtype < b->dtype ? -1 : 1;
  return a->n < b->n ? -1 : a->n > b->n;
}

const kg_hist_entry *kg_hist_find(const kg_hist_run *r, const char *variant, kg_dtype dt, size_t n) {
  kg_hist_entry key = {.dtype = dt, .n = n};
  snprintf(key.variant, sizeof key.variant, "%s", variant);
  return bsearch(&key, r->entries, r->n, sizeof key, entry_cmp);
}

/* A row's key, [variant, dtype, n, ...] with `size` items, into variant,
 * *dt and *n; the row named in r->where from there on. 0, or -1 (failed). */
static int read_key(kg_jrd *r, json_t *a, size_t size, const char *shape, char variant[64], kg_dtype *dt, size_t *n) {
  const char *v = json_string_value(json_array_get(a, 0)), *dtype = json_string_value(json_array_get(a, 1));
  json_t *nj = json_array_get(a, 2);
  if (json_array_size(a) != size || !v || !dtype || !json_is_integer(nj)) {
    kg_jrd_fail(r, "expected %s", shape);
    return -1;
  }
  /* A variant the registry no longer knows stays: its past is still
   * history. Its name reaches charts and pages, so it must be a name. */
  const char *why = kg_why_bad_variant(v);
  char shown[72];
  if (why) {
    kg_jrd_fail(r, "variant '%s': %s", kg_esc_term(v, shown, sizeof shown), why);
    return -1;
  }
  if (kg_dtype_parse(dtype, dt)) {
    kg_jrd_fail(r, "unknown dtype '%s'", kg_esc_term(dtype, shown, sizeof shown));
    return -1;
  }
  json_int_t nv = json_integer_value(nj);
  kg_entry_label(v, dtype, (long long)nv, shown, sizeof shown);
  size_t len = strlen(r->where);
  snprintf(r->where + len, sizeof r->where - len, " (%s)", shown);
  if (nv < 0 || (unsigned long long)nv > (unsigned long long)KG_SIZE_MAX) {
    kg_jrd_fail(r, "n is %lld: outside [0, %zu]", (long long)nv, KG_SIZE_MAX);
    return -1;
  }
  snprintf(variant, 64, "%s", v);
  *n = (size_t)nv;
  return 0;
}

/* One perf entry, [variant, dtype, n, median_us, q1_us, q3_us, samples]. */
static void read_entry(kg_jrd *r, json_t *a, kg_hist_entry *e) {
  json_t *samples = json_array_get(a, 6);
  if (read_key(r, a, 7, "[variant, dtype, n, median_us, q1_us, q3_us, samples]", e->variant, &e->dtype, &e->n))
    return;
  if (!json_is_integer(samples)) {
    kg_jrd_fail(r, "samples should be an integer");
    return;
  }
  json_int_t sv = json_integer_value(samples);
  if (sv < 1 || sv > INT_MAX) {
    kg_jrd_fail(r, "samples is %lld: a timing has at least 1", (long long)sv);
    return;
  }
  e->t = (kg_timing){.samples = (int)sv};
  static const char *const names[3] = {"median_us", "q1_us", "q3_us"};
  double *v[3] = {&e->t.median_us, &e->t.q1_us, &e->t.q3_us};
  for (int k = 0; k < 3; k++) {
    json_t *x = json_array_get(a, (size_t)(3 + k));
    if (json_is_null(x)) {
      kg_jrd_fail(r, "%s is null: not a finite time", names[k]);
      return;
    }
    if (!json_is_number(x)) {
      kg_jrd_fail(r, "%s should be a number", names[k]);
      return;
    }
    *v[k] = json_number_value(x);
  }
  char bad[200];
  if (kg_timing_check(&e->t, 0, bad, sizeof bad)) kg_jrd_fail(r, "%s", bad);
}

static void read_checks(kg_jrd *r, json_t *o, kg_counts *k) {
  static const char *const k_keys[] = {"cases", "passed", "failed", "errors", "unsupported", "pending", NULL};
  const long long most = (long long)1 << 48;
  k->cases = (size_t)kg_jrd_range(r, o, "cases", 0, most);
  k->passed = (size_t)kg_jrd_range(r, o, "passed", 0, most);
  k->failed = (size_t)kg_jrd_range(r, o, "failed", 0, most);
  k->errored = (size_t)kg_jrd_range(r, o, "errors", 0, most);
  k->unsupported = (size_t)kg_jrd_range(r, o, "unsupported", 0, most);
  k->pending = (size_t)kg_jrd_range(r, o, "pending", 0, most);
  /* Every case is in exactly one of these (kg_count_results). */
  if (!r->failed && k->passed + k->failed + k->errored + k->unsupported + k->pending != k->cases)
    kg_jrd_fail(r, "checks: passed, failed, errors, unsupported and pending do not add up to cases");
  if (json_is_object(o)) {
    size_t len = strlen(r->where);
    snprintf(r->where + len, sizeof r->where - len, ": checks");
    kg_jrd_keys(r, o, k_keys);
    if (!r->failed) r->where[len] = '\0';
  }
}

/* The same (variant, dtype, n) twice in one run's perf: refused, naming
 * both. where_len: the length of "line N" in r->where. */
static void refuse_duplicates(kg_jrd *r, const kg_hist_run *run, size_t where_len) {
  size_t i, j;
  if (!kg_find_duplicate(r, run->entries, run->n, sizeof *run->entries, entry_cmp, &i, &j)) return;
  char label[96];
  const kg_hist_entry *e = &run->entries[j];
  kg_entry_label(e->variant, kg_dtype_get(e->dtype)->name, (long long)e->n, label, sizeof label);
  snprintf(r->where + where_len, sizeof r->where - where_len, ": perf[%zu] (%s)", j, label);
  kg_jrd_fail(r, "the same case as perf[%zu]: a case appears once in a run", i);
}

/* One paired cell, [variant, dtype, n, ratio, lo, hi, head_us, base_us]. */
static void read_pcell(kg_jrd *r, json_t *a, kg_hist_pcell *c) {
  if (read_key(r, a, 8, "[variant, dtype, n, ratio, lo, hi, head_us, base_us]", c->variant, &c->dtype, &c->n)) return;
  double *v[5] = {&c->ratio, &c->lo, &c->hi, &c->head_us, &c->base_us};
  for (int k = 0; k < 5; k++) {
    json_t *x = json_array_get(a, (size_t)(3 + k));
    *v[k] = json_is_number(x) ? json_number_value(x) : NAN;
  }
  /* What kgate's paired statistics can produce: a positive ratio inside its
   * interval, and real times (kg_timing_check: no value that cannot be true). */
  if (!(c->lo > 0 && c->lo <= c->ratio && c->ratio <= c->hi && isfinite(c->hi) && c->head_us > 0 &&
        isfinite(c->head_us) && c->base_us > 0 && isfinite(c->base_us) && c->hi / c->lo < 1e3))
    kg_jrd_fail(r, "ratio, lo, hi and the times must be finite with 0 < lo <= ratio <= hi, times > 0");
}

int kg_hist_pcell_cmp(const void *pa, const void *pb) {
  const kg_hist_pcell *a = pa, *b = pb;
  int c = strcmp(a->variant, b->variant);
  if (c) return c;
  if (a->dtype != b->dtype) return a->dtype < b->dtype ? -1 : 1;
  return a->n < b->n ? -1 : a->n > b->n;
}

const char *kg_hist_commit(const kg_hist_run *r) { return r->prov.sha[0] ? r->prov.sha : r->commit; }

const char *kg_hist_card(const kg_hist_run *r) { return r->paired.card[0] ? r->paired.card : r->dev.uuid; }

const kg_hist_pcell *kg_hist_pfind(const kg_hist_pcell *cells, size_t n, const char *variant, kg_dtype dt, size_t sz) {
  if (!n) return NULL; /* a night without paired cells has no array at all */
  kg_hist_pcell key = {.dtype = dt, .n = sz};
  snprintf(key.variant, sizeof key.variant, "%s", variant);
  return bsearch(&key, cells, n, sizeof key, kg_hist_pcell_cmp);
}

/* A list of paired cells (key: "cells" or "control") into *out, sorted; a cell twice is refused. */
static void read_pcells(kg_jrd *r, json_t *o, const char *key, kg_hist_pcell **out, size_t *nout) {
  json_t *a = kg_jrd_arr(r, o, key);
  size_t n = json_array_size(a), len = strlen(r->where);
  if (r->failed || !(*out = calloc(n ? n : 1, sizeof **out))) {
    if (!r->failed) kg_jrd_fail(r, "out of memory");
    return;
  }
  for (size_t i = 0; i < n && !r->failed; i++, (*nout)++) {
    snprintf(r->where + len, sizeof r->where - len, ": paired.%s[%zu]", key, i);
    read_pcell(r, json_array_get(a, i), &(*out)[i]);
  }
  if (r->failed) return;
  size_t i, j;
  r->where[len] = '\0';
  if (kg_find_duplicate(r, *out, *nout, sizeof **out, kg_hist_pcell_cmp, &i, &j))
    kg_jrd_fail(r, "paired.%s[%zu] is the same cell as paired.%s[%zu]", key, j, key, i);
  qsort(*out, *nout, sizeof **out, kg_hist_pcell_cmp);
}

/* The reference's name and version: a module's text (fields.h). */
static const char *why_bad_ref_text(const char *s) { return kg_why_bad_module_text(s, SIZE_MAX); }

/* A card's UUID as the worker writes it; "" when the run did not know it. */
static const char *why_bad_card(const char *s) { return *s ? kg_why_bad_uuid(s) : NULL; }

/* "paired": optional (older lines, unpaired nights). */
static void read_paired(kg_jrd *r, json_t *doc, kg_hist_paired *p) {
  json_t *o = json_object_get(doc, "paired");
  if (!o) return;
  size_t len = strlen(r->where);
  snprintf(r->where + len, sizeof r->where - len, ": paired");
  json_t *ref = kg_jrd_obj(r, o, "reference", 0);
  if (!r->failed && !json_is_object(o)) kg_jrd_fail(r, "not an object");
  if (r->failed) return;
  p->has = 1;
  static const char *const k_keys[] = {"card", "cells", "confidence", "control", "reference", "rounds", NULL};
  static const char *const k_ref_keys[] = {"commit", "name", "sha256", "version", NULL};
  kg_jrd_text(r, ref, "name", p->ref_name, sizeof p->ref_name, why_bad_ref_text);
  kg_jrd_text(r, ref, "version", p->ref_version, sizeof p->ref_version, why_bad_ref_text);
  kg_jrd_text(r, ref, "sha256", p->ref_sha256, sizeof p->ref_sha256, kg_why_bad_hex_list);
  kg_jrd_text(r, ref, "commit", p->ref_commit, sizeof p->ref_commit, kg_why_bad_hex_list);
  if (json_object_get(o, "card")) kg_jrd_text(r, o, "card", p->card, sizeof p->card, why_bad_card);
  p->confidence = kg_jrd_num(r, o, "confidence");
  p->rounds = (int)kg_jrd_range(r, o, "rounds", 1, 1 << 20); /* a paired night had its rounds */
  if (!r->failed && !(p->confidence > 0 && p->confidence < 1)) kg_jrd_fail(r, "confidence must lie in (0, 1)");
  r->where[len] = '\0';
  read_pcells(r, o, "cells", &p->cells, &p->n);
  if (json_object_get(o, "control")) read_pcells(r, o, "control", &p->control, &p->ncontrol);
  snprintf(r->where + len, sizeof r->where - len, ": paired");
  kg_jrd_keys(r, o, k_keys);
  snprintf(r->where + len, sizeof r->where - len, ": paired.reference");
  kg_jrd_keys(r, ref, k_ref_keys);
  if (!r->failed) r->where[len] = '\0';
}

/* One parsed line into *run. */
static void read_run(kg_jrd *r, json_t *doc, kg_hist_run *run) {
  /* As closed as the schema: a misspelt key ("pairde") is an error, never dropped. */
  static const char *const k_keys[] = {"kind", "schema_version", "date", "kgate_commit", "kgate_version", "device",
                                       "toolchain", "provenance", "hot", "checks", "perf", "paired", NULL};
  const char *kind = kg_jrd_str(r, doc, "kind");
  char shown[72];
  if (!r->failed && strcmp(kind, "kgate-history") != 0)
    kg_jrd_fail(r, "not a kgate history line (kind '%s')", kg_esc_term(kind, shown, sizeof shown));
  long long version = kg_jrd_int(r, doc, "schema_version");
  if (!r->failed && version != KG_HISTORY_SCHEMA)
    kg_jrd_fail(r, "schema_version %lld is not supported (this kgate reads %d)", version, KG_HISTORY_SCHEMA);
  /* Dates become tick labels and table rows; commits too. */
  kg_jrd_text(r, doc, "date", run->date, sizeof run->date, kg_why_bad_date);
  kg_jrd_text(r, doc, "kgate_commit", run->commit, sizeof run->commit, kg_why_bad_commit);
  kg_jrd_text(r, doc, "kgate_version", run->version, sizeof run->version, kg_why_bad_commit);
  json_t *dev = kg_jrd_obj(r, doc, "device", 0), *checks = kg_jrd_obj(r, doc, "checks", 0);
  run->hot = kg_jrd_bool(r, doc, "hot");
  json_t *perf = kg_jrd_arr(r, doc, "perf");
  char e[300];
  if (!r->failed && kg_device_from_json(dev, &run->dev, KG_FORM_FILE, e, sizeof e)) kg_jrd_fail(r, "device: %s", e);
  json_t *tc = json_object_get(doc, "toolchain"); /* optional: lines before it read as unknown */
  size_t len = strlen(r->where);
  snprintf(r->where + len, sizeof r->where - len, ": toolchain");
  if (tc && !r->failed) kg_toolchain_read(r, tc, &run->dev.toolchain);
  if (!r->failed) r->where[len] = '\0';
  json_t *pv = json_object_get(doc, "provenance"); /* optional: lines before it, and nights outside CI */
  snprintf(r->where + len, sizeof r->where - len, ": provenance");
  if (pv && !r->failed) kg_provenance_read(r, pv, &run->prov);
  if (!r->failed) r->where[len] = '\0';
  read_checks(r, checks, &run->checks);
  if (r->failed) return;
  size_t n = json_array_size(perf);
  run->entries = calloc(n ? n : 1, sizeof *run->entries);
  if (!run->entries) {
    kg_jrd_fail(r, "out of memory");
    return;
  }
  for (size_t i = 0; i < n && !r->failed; i++, run->n++) {
    snprintf(r->where + len, sizeof r->where - len, ": perf[%zu]", i);
    read_entry(r, json_array_get(perf, i), &run->entries[i]);
  }
  if (!r->failed) refuse_duplicates(r, run, len);
  qsort(run->entries, run->n, sizeof *run->entries, entry_cmp);
  r->where[len] = '\0';
  if (!r->failed) read_paired(r, doc, &run->paired);
  if (!r->failed) kg_jrd_keys(r, doc, k_keys);
}

static void hist_paired_free(kg_hist_paired *p) {
  free(p->cells);
  free(p->control);
  memset(p, 0, sizeof *p);
}

/* The night on a line after the one before it (line `before`): a later
 * date, never the same one. Dates are one fixed-width UTC format
 * (kg_why_bad_date), so their bytes order them as time does. */
static void refuse_disorder(kg_jrd *r, const kg_hist_run *prev, const kg_hist_run *run, size_t before) {
  int c = strcmp(run->date, prev->date);
  if (c > 0) return;
  if (c == 0 && !strcmp(run->commit, prev->commit))
    kg_jrd_fail(r, "date %s, commit %s: the same night as line %zu (a night appears once)", run->date, run->commit,
                before);
  else if (c == 0)
    kg_jrd_fail(r, "date %s is the date of line %zu too: two nights on one date", run->date, before);
  else
    kg_jrd_fail(r, "date %s is before line %zu's (%s): nights out of order (oldest first)", run->date, before,
                prev->date);
}

/* Parses the history line by line from l (memory: the longest line and the
 * parsed runs, never the whole file). With copy, every line read goes there
 * byte for byte, a newline added to a last line that lacked one: the old part
 * of an append, written while it is checked. Without keep, a run's entries
 * are dropped once read (an append needs only the runs' identities). */
static int parse_history(const char *path, kg_lines *l, FILE *copy, int keep, kg_history *h, char *err,
                         size_t errlen) {
  memset(h, 0, sizeof *h);
  size_t cap = 0, line = 0, n, prev_line = 0;
  char *s;
  int got = 0, nl;
  kg_jrd r = {.file = path, .err = err, .errlen = errlen};
  while (!r.failed && (got = kg_lines_next(l, &s, &n, &nl, err, errlen)) == 1) {
    line++;
    if (copy && (fwrite(s, 1, n, copy) != n || fputc('\n', copy) == EOF)) {
      snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
      r.failed = 1;
      break;
    }
    if (strspn(s, " \t\r") >= n) continue; /* blank */
    snprintf(r.where, sizeof r.where, "line %zu", line);
    if (h->n == cap) {
      cap = cap ? 2 * cap : 64;
      kg_hist_run *more = realloc(h->runs, cap * sizeof *more);
      if (!more) {
        kg_jrd_fail(&r, "out of memory");
        break;
      }
      h->runs = more;
    }
    json_error_t je;
    json_t *doc = json_loadb(s, n, JSON_REJECT_DUPLICATES, &je);
    kg_hist_run *run = &h->runs[h->n];
    memset(run, 0, sizeof *run);
    if (!doc) kg_jrd_fail(&r, "malformed JSON at column %d: %s", je.column, je.text);
    else if (!json_is_object(doc)) kg_jrd_fail(&r, "not a JSON object");
    else read_run(&r, doc, run);
    json_decref(doc);
    h->n++;
    if (!keep) {
      free(run->entries);
      run->entries = NULL;
      run->n = 0;
      hist_paired_free(&run->paired);
    }
    snprintf(r.where, sizeof r.where, "line %zu", line);
    if (!r.failed && h->n > 1 && !kg_same_gpu(&h->runs[0].dev, &run->dev))
      kg_jrd_fail(&r, "a run of %s in a history of %s", run->dev.name, h->runs[0].dev.name);
    if (!r.failed && h->n > 1) refuse_disorder(&r, &h->runs[h->n - 2], run, prev_line);
    prev_line = line;
  }
  if (got < 0) r.failed = 1; /* err says why */
  if (r.failed) kg_history_free(h);
  return r.failed ? -1 : 0;
}

int kg_history_read(const char *path, kg_history *h, char *err, size_t errlen) {
  int fd;
  memset(h, 0, sizeof *h);
  if (kg_in_open(path, KG_HISTORY_MAX, &fd, err, errlen)) return -1;
  kg_lines l;
  kg_lines_init(&l, fd, path, KG_HISTORY_MAX);
  int rc = parse_history(path, &l, NULL, 1, h, err, errlen);
  kg_lines_free(&l);
  close(fd);
  return rc;
}

void kg_history_free(kg_history *h) {
  for (size_t i = 0; i < h->n; i++) free(h->runs[i].entries), hist_paired_free(&h->runs[i].paired);
  free(h->runs);
  memset(h, 0, sizeof *h);
}

/* ---- appending ----------------------------------------------------------- */

static int has_timed(const kg_run *run) {
  for (size_t i = 0; i < run->n; i++)
    if (run->cases[i].timed && run->results[i].timing.samples > 0) return 1;
  return 0;
}

/* kg_history_add under the writers' lock. */
static int add_locked(const char *path, const kg_run *run, const kg_run *paired, const kg_run *control, char *err,
                      size_t errlen) {
  int fd, rc = kg_in_open(path, KG_HISTORY_MAX, &fd, err, errlen);
  if (rc < 0) return -1;
  char *line = kg_history_line(run, paired, control);
  kg_outfile o;
  kg_history h = {0};
  if (!line) {
    snprintf(err, errlen, "cannot write %s: out of memory", path);
    rc = -1;
  } else if (kg_out_open(&o, path, err, errlen)) {
    rc = -1;
  } else {
    /* The old lines are copied as they are checked: a file that is not a
     * history is refused, not buried under a new line. */
    kg_lines l;
    kg_lines_init(&l, fd, path, KG_HISTORY_MAX);
    errno = 0;
    rc = rc == 1 ? 0 : parse_history(path, &l, o.f, 0, &h, err, errlen);
    kg_lines_free(&l);
    int dup = 0;
    for (size_t i = 0; rc == 0 && i < h.n; i++)
      dup |= !strcmp(h.runs[i].date, run->meta.date) && !strcmp(h.runs[i].commit, run->meta.commit) &&
             kg_same_gpu(&h.runs[i].dev, &run->meta.dev);
    const char *last = h.n ? h.runs[h.n - 1].date : NULL;
    if (rc == 0 && h.n && !kg_same_gpu(&h.runs[0].dev, &run->meta.dev)) {
      snprintf(err, errlen, "%s holds runs of %s, this run is of %s: keep one history per GPU model", path,
               h.runs[0].dev.name, run->meta.dev.name);
      rc = -1;
    } else if (rc == 0 && dup) {
      rc = 1;
    } else if (rc == 0 && last && strcmp(run->meta.date, last) <= 0) { /* a line no reader would accept after it */
      snprintf(err, errlen, "not adding to %s: the run's date %s is not after its last night's (%s): a history "
               "holds one night a date, oldest first", path, run->meta.date, last);
      rc = -1;
    } else if (rc == 0 && (fputs(line, o.f) == EOF || fputc('\n', o.f) == EOF)) {
      snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
      rc = -1;
    }
    if (rc == 0) rc = kg_out_commit(&o, err, errlen);
    else kg_out_abort(&o);
  }
  if (fd >= 0) close(fd);
  free(line);
  kg_history_free(&h);
  return rc;
}

int kg_history_add(const char *path, const kg_run *run, const kg_run *paired, const kg_run *control, char *err,
                   size_t errlen) {
  /* A line no reader accepts would wedge every later add, plot and report:
   * an invalid run is refused before anything is written. */
  char bad[400];
  if (kg_run_check(run, bad, sizeof bad)) {
    snprintf(err, errlen, "not adding to %s: the run is not valid: %s", path, bad);
    return -1;
  }
  if (!has_timed(run)) {
    snprintf(err, errlen, "the run timed no case: nothing to add to %s (kgate run times the perf sizes)", path);
    return -1;
  }
  /* One appender at a time: two read-modify-renames side by side would each
   * copy the old lines and the second rename would drop the first's line. */
  kg_lock lk;
  if (kg_lock_take(&lk, path, err, errlen)) return -1;
  int rc = add_locked(path, run, paired, control, err, errlen);
  kg_lock_drop(&lk);
  return rc;
}

/* ---- what changed in a window ---------------------------------------------- */

/* A CUDA version as the driver and runtime give it (13000, 12080) as "13.0", "12.8"; "" for 0. */
static void cuda_version(int v, char *buf, size_t len) {
  if (v > 0) snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
  else if (len) buf[0] = '\0';
}

enum { WC_NVCC, WC_CCCL, WC_FLAGS, WC_DRIVER, WC_DRIVER_CUDA, WC_RUNTIME, WC_IMAGE, WC_CARD, WC_N };
static const char *const k_wc_name[WC_N] = {"nvcc",          "CCCL",         "flags",        "driver",
                                            "driver's CUDA", "CUDA runtime", "runner image", "card"};

/* Field f of night r as text ("" unknown); a digest and a card cut to 12 characters, as people compare them. */
static void wc_value(const kg_hist_run *r, int f, char *buf, size_t len) {
  const kg_toolchain *t = &r->dev.toolchain;
  const char *s = NULL;
  switch (f) {
  case WC_NVCC: s = t->nvcc; break;
  case WC_CCCL: s = t->cccl; break;
  case WC_FLAGS: s = t->flags; break;
  case WC_DRIVER: s = t->driver; break;
  case WC_DRIVER_CUDA: cuda_version(r->dev.driver_version, buf, len); return;
  case WC_RUNTIME: cuda_version(r->dev.runtime_version, buf, len); return;
  case WC_IMAGE: s = t->image; break;
  default: s = kg_hist_card(r);
  }
  snprintf(buf, len, "%.*s", f == WC_FLAGS || f == WC_CARD ? 12 : (int)len, s);
}

/* Appends to buf, cut at len (never past it). */
static void wc_put(char *buf, size_t len, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void wc_put(char *buf, size_t len, size_t *at, const char *fmt, ...) {
  if (*at + 1 >= len) return;
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(buf + *at, len - *at, fmt, ap);
  va_end(ap);
  if (w <= 0) return;
  if (*at + (size_t)w < len) {
    *at += (size_t)w;
    return;
  }
  /* cut: never inside a character (the arrow is three bytes): drop a last
   * character whose lead byte wants more bytes than the cut left */
  size_t end = len - 1, lead = end;
  while (lead > *at && ((unsigned char)buf[lead - 1] & 0xc0) == 0x80) lead--;
  if (lead > *at) {
    unsigned char c = (unsigned char)buf[lead - 1];
    size_t want = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (end - (lead - 1) < want) buf[lead - 1] = '\0';
  }
  *at = len - 1;
}

int kg_hist_what_changed(const kg_history *h, size_t last_good, size_t first_bad, char *buf, size_t len) {
  if (len) buf[0] = '\0';
  if (!h || last_good >= first_bad || first_bad >= h->n) return -1;
  const kg_hist_run *good = &h->runs[last_good], *bad = &h->runs[first_bad];
  size_t when[WC_N]; /* the night each changed field first moved from the last good night's value; 0: unchanged */
  int changed = 0;
  for (int f = 0; f < WC_N; f++) {
    char a[128], b[128];
    wc_value(good, f, a, sizeof a), wc_value(bad, f, b, sizeof b);
    when[f] = 0;
    if (!strcmp(a, b)) continue;
    changed++;
    for (size_t i = last_good + 1; i <= first_bad && !when[f]; i++) {
      wc_value(&h->runs[i], f, b, sizeof b);
      if (strcmp(a, b)) when[f] = i;
    }
  }
  size_t at = 0;
  /* One group per night, oldest first: "a -> b, c -> d on <night>". */
  for (size_t night = last_good + 1; night <= first_bad; night++) {
    int in_group = 0;
    for (int f = 0; f < WC_N; f++) {
      if (when[f] != night) continue;
      char a[128], b[128];
      wc_value(good, f, a, sizeof a), wc_value(bad, f, b, sizeof b);
      wc_put(buf, len, &at, "%s%s %s \u2192 %s", in_group ? ", " : at ? "; " : "", k_wc_name[f], a[0] ? a : "unknown",
             b[0] ? b : "unknown");
      in_group = 1;
    }
    char date[64];
    kg_date_label(h->runs[night].date, date, sizeof date);
    if (in_group && night == first_bad) wc_put(buf, len, &at, " on the first bad night");
    else if (in_group) wc_put(buf, len, &at, " on the night of %s", date);
  }
  if (!changed) wc_put(buf, len, &at, "nothing of the toolchain or machine changed");
  for (int f = 0, listed = 0; f < WC_N; f++) {
    char a[128], b[128];
    wc_value(good, f, a, sizeof a), wc_value(bad, f, b, sizeof b);
    if (a[0] || b[0]) continue;
    wc_put(buf, len, &at, "%s%s", listed++ ? ", " : "; not recorded: ", k_wc_name[f]);
  }
  return changed;
}
