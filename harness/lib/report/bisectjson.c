/* kgate bisect's result as a file, written and read (bisectjson.h). */
#include "bisectjson.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "fileio.h"
#include "jread.h"

/* ---- writing ---------------------------------------------------------------------------- */

/* A log ratio as a signed percentage. */
static double pct(double m) { return 100 * expm1(m); }

static const char *id_of(const kg_bisect_report *b, size_t i) { return i < b->r->n && b->ids ? b->ids[i] : "?"; }

static json_t *effect_json(const kg_bisect_effect *e) {
  return json_pack("{s:o,s:o,s:o,s:i,s:i}", "pct", kg_json_real(pct(e->m)), "lo_pct", kg_json_real(pct(e->lo)),
                   "hi_pct", kg_json_real(pct(e->hi)), "runs", e->runs, "cells", e->cells);
}

int kg_bisect_write_json(const char *path, const kg_bisect_report *b, char *err, size_t errlen) {
  const kg_bisect_result *r = b->r;
  json_t *cells = json_array(), *commits = json_array(), *steps = json_array();
  for (size_t k = 0; k < b->ncells; k++) {
    const kg_bisect_cell *c = &b->cells[k];
    json_array_append_new(cells,
                          json_pack("{s:s,s:o,s:o}", "variant", c->variant, "dtype",
                                    c->dtype == KG_NDTYPES ? json_null() : json_string(kg_dtype_get(c->dtype)->name),
                                    "n", c->n ? json_integer((json_int_t)c->n) : json_null()));
  }
  for (size_t i = 0; i < r->n; i++)
    json_array_append_new(commits,
                          json_pack("{s:s,s:b,s:o}", "commit", id_of(b, i), "build_failed", r->failed && r->failed[i],
                                    "fingerprint", r->fp && r->fp[i][0] ? json_string(r->fp[i]) : json_null()));
  for (size_t s = 0; s < r->nsteps; s++) {
    const kg_bisect_step *st = &r->steps[s];
    json_array_append_new(steps, json_pack("{s:s,s:s,s:s,s:o,s:o,s:s}", "good", id_of(b, st->good), "mid",
                                           id_of(b, st->mid), "bad", id_of(b, st->bad), "left", effect_json(&st->left),
                                           "right", effect_json(&st->right), "verdict",
                                           st->verdict == 1 ? "bad" : st->verdict == 0 ? "good" : "undecided"));
  }
  json_t *doc = json_pack("{s:s,s:i,s:s,s:i,s:s,s:o,s:o,s:o,s:o,s:o}", "kind", "kgate-bisect", "schema_version",
                          KG_BISECT_SCHEMA, "outcome", kg_bisect_outcome_name(r->outcome), "exit_code",
                          kg_bisect_exit(r->outcome), "why", r->why, "estimate_pct", kg_json_real(pct(r->estimate)),
                          "cells", cells, "commits", commits, "steps", steps,
                          "counts", json_pack("{s:I,s:I,s:i,s:i,s:I,s:I,s:I}", "commits", (json_int_t)r->n, "modules",
                                              (json_int_t)r->built, "builds_run", b->made, "from_cache", b->cached,
                                              "identical", (json_int_t)r->identical, "build_failed",
                                              (json_int_t)r->skipped, "distinct", (json_int_t)r->ngroups));
  if (!doc) return snprintf(err, errlen, "out of memory"), -1;
  json_object_set_new(doc, "time_s", json_pack("{s:o,s:o,s:o}", "wall", kg_json_real(r->wall_s), "builds",
                                               kg_json_real(r->build_s), "paired_runs", kg_json_real(r->measure_s)));
  if (b->fp_how) json_object_set_new(doc, "fingerprint", json_string(b->fp_how));
  if (r->reproduce.runs) json_object_set_new(doc, "reproduce", effect_json(&r->reproduce));
  if (r->verify.runs) json_object_set_new(doc, "verify", effect_json(&r->verify));
  if (r->outcome == KG_BISECT_FOUND) {
    json_object_set_new(doc, "culprit", json_string(id_of(b, r->culprit)));
    json_object_set_new(doc, "parent", json_string(id_of(b, r->parent)));
  }
  if (r->last_cand > 0) {
    json_t *cand = json_array();
    for (size_t i = r->first_cand; i <= r->last_cand && i < r->n; i++)
      json_array_append_new(cand, json_string(id_of(b, i)));
    json_object_set_new(doc, "candidates", cand);
  }
  if (r->outcome == KG_BISECT_OUTSIDE) json_object_set_new(doc, "changed", json_string(r->changed));
  int rc = kg_json_write(path, doc, NULL, err, errlen);
  json_decref(doc);
  return rc;
}

/* ---- reading ---------------------------------------------------------------------------- */

static const char *why_bad_commit40(const char *s) {
  return strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40 ? NULL : "not a commit (40 lowercase hex digits)";
}

static const char *why_bad_fingerprint(const char *s) {
  return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64 ? NULL : "not a SHA-256 (64 lowercase hex digits)";
}

static const char *why_bad_line(const char *s) { return kg_why_bad_module_text(s, 511); }

/* r->where as "name" or "name[i]"; "" restores the top. */
static void at(kg_jrd *r, const char *name, long i) {
  if (r->failed) return;
  if (i < 0) snprintf(r->where, sizeof r->where, "%s", name);
  else snprintf(r->where, sizeof r->where, "%s[%ld]", name, i);
}

/* An object in list (or o[key] when list is NULL) that must be there, closed to keys. */
static json_t *object(kg_jrd *r, json_t *o, const char *key, const char *const *keys) {
  json_t *v = kg_jrd_obj(r, o, key, 0);
  if (v) kg_jrd_keys(r, v, keys);
  return v;
}

static json_t *item(kg_jrd *r, json_t *list, size_t i, const char *const *keys) {
  json_t *v = json_array_get(list, i);
  if (!json_is_object(v)) {
    kg_jrd_fail(r, "not an object");
    return NULL;
  }
  kg_jrd_keys(r, v, keys);
  return v;
}

/* A number that is not null, in [lo, hi]. */
static double number(kg_jrd *r, json_t *o, const char *key, double lo, double hi) {
  if (json_is_null(json_object_get(o, key))) kg_jrd_fail(r, "%s is null: a number is needed", key);
  return kg_jrd_real(r, o, key, lo, hi, 0);
}

/* The percentages of an effect: above -100 % (a time ratio is above 0); null for not measured. */
static double percent(kg_jrd *r, json_t *o, const char *key) { return kg_jrd_real(r, o, key, -100, 1e6, NAN); }

static void effect(kg_jrd *r, json_t *o, kg_bisect_doc_effect *e) {
  static const char *const keys[] = {"pct", "lo_pct", "hi_pct", "runs", "cells", NULL};
  if (!o) return;
  kg_jrd_keys(r, o, keys);
  e->pct = percent(r, o, "pct"), e->lo = percent(r, o, "lo_pct"), e->hi = percent(r, o, "hi_pct");
  e->runs = (int)kg_jrd_range(r, o, "runs", 1, 100000);
  e->cells = (int)kg_jrd_range(r, o, "cells", 0, 100000000);
  if (!r->failed && e->lo > e->hi) kg_jrd_fail(r, "lo_pct %g is above hi_pct %g", e->lo, e->hi);
  e->has = !r->failed;
}

static void optional_effect(kg_jrd *r, json_t *doc, const char *key, kg_bisect_doc_effect *e) {
  if (!json_object_get(doc, key)) return;
  at(r, key, -1);
  effect(r, kg_jrd_obj(r, doc, key, 0), e);
}

static void read_cells(kg_jrd *r, json_t *doc, kg_bisect_doc *d) {
  static const char *const keys[] = {"variant", "dtype", "n", NULL};
  json_t *list = kg_jrd_arr(r, doc, "cells");
  size_t n = json_array_size(list);
  if (!r->failed && !(d->cells = calloc(n ? n : 1, sizeof *d->cells))) kg_jrd_fail(r, "out of memory");
  for (size_t i = 0; i < n && !r->failed; i++) {
    kg_bisect_cell *c = &d->cells[i];
    at(r, "cells", (long)i);
    json_t *o = item(r, list, i, keys);
    kg_jrd_text(r, o, "variant", c->variant, sizeof c->variant, kg_why_bad_variant);
    json_t *dt = json_object_get(o, "dtype"), *sz = json_object_get(o, "n");
    c->dtype = KG_NDTYPES;
    if (!r->failed &&
        (!dt || (!json_is_null(dt) && (!json_is_string(dt) || kg_dtype_parse(json_string_value(dt), &c->dtype)))))
      kg_jrd_fail(r, "dtype is not a dtype kgate knows, or null");
    c->n = !r->failed && !json_is_null(sz) ? (size_t)kg_jrd_range(r, o, "n", 1, (long long)1 << 40) : 0;
    if (!r->failed) d->ncells++;
  }
}

static void read_commits(kg_jrd *r, json_t *doc, kg_bisect_doc *d) {
  static const char *const keys[] = {"commit", "build_failed", "fingerprint", NULL};
  json_t *list = kg_jrd_arr(r, doc, "commits");
  size_t n = json_array_size(list);
  if (!r->failed && !n) kg_jrd_fail(r, "commits is empty: a range has its last good commit at least");
  if (!r->failed && !(d->commits = calloc(n, sizeof *d->commits))) kg_jrd_fail(r, "out of memory");
  for (size_t i = 0; i < n && !r->failed; i++) {
    at(r, "commits", (long)i);
    json_t *o = item(r, list, i, keys);
    char fp[65];
    kg_jrd_text(r, o, "commit", d->commits[i], sizeof d->commits[i], why_bad_commit40);
    kg_jrd_bool(r, o, "build_failed");
    if (!r->failed && !json_is_null(json_object_get(o, "fingerprint")))
      kg_jrd_text(r, o, "fingerprint", fp, sizeof fp, why_bad_fingerprint);
    if (!r->failed) d->ncommits++;
  }
}

/* The index of commit c in the range, or -1. */
static long index_of(const kg_bisect_doc *d, const char *c) {
  for (size_t i = 0; i < d->ncommits; i++)
    if (!strcmp(d->commits[i], c)) return (long)i;
  return -1;
}

/* A commit of the range under key: its index (the file's text must be one of commits). */
static long range_commit(kg_jrd *r, json_t *o, const char *key, const kg_bisect_doc *d) {
  char c[41];
  kg_jrd_text(r, o, key, c, sizeof c, why_bad_commit40);
  long i = r->failed ? -1 : index_of(d, c);
  if (!r->failed && i < 0) kg_jrd_fail(r, "%s %s is not a commit of the range (commits)", key, c);
  return i;
}

static void read_steps(kg_jrd *r, json_t *doc, const kg_bisect_doc *d) {
  static const char *const keys[] = {"good", "mid", "bad", "left", "right", "verdict", NULL};
  json_t *list = kg_jrd_arr(r, doc, "steps");
  for (size_t i = 0; i < json_array_size(list) && !r->failed; i++) {
    at(r, "steps", (long)i);
    json_t *o = item(r, list, i, keys);
    long g = range_commit(r, o, "good", d), m = range_commit(r, o, "mid", d), b = range_commit(r, o, "bad", d);
    if (!r->failed && !(g < m && m < b)) kg_jrd_fail(r, "mid is not between good and bad in the range");
    kg_bisect_doc_effect e;
    const char *v = kg_jrd_str(r, o, "verdict");
    if (!r->failed && strcmp(v, "good") && strcmp(v, "bad") && strcmp(v, "undecided"))
      kg_jrd_fail(r, "verdict is not good, bad or undecided");
    size_t len = strlen(r->where);
    for (int k = 0; k < 2 && !r->failed; k++) {
      snprintf(r->where + len, sizeof r->where - len, ".%s", k ? "right" : "left");
      effect(r, kg_jrd_obj(r, o, k ? "right" : "left", 0), &e);
    }
  }
}

/* counts and time_s: closed, every value there; counts.commits is the range's length. */
static void read_tallies(kg_jrd *r, json_t *doc, const kg_bisect_doc *d) {
  static const char *const counts[] = {"commits", "modules", "builds_run", "from_cache", "identical",
                                       "build_failed", "distinct", NULL};
  static const char *const times[] = {"wall", "builds", "paired_runs", NULL};
  at(r, "counts", -1);
  json_t *o = object(r, doc, "counts", counts);
  for (size_t k = 0; counts[k] && !r->failed; k++) {
    long long v = kg_jrd_range(r, o, counts[k], 0, 100000000);
    if (!k && !r->failed && (size_t)v != d->ncommits)
      kg_jrd_fail(r, "commits is %lld: the file lists %zu commits", v, d->ncommits);
  }
  at(r, "time_s", -1);
  o = object(r, doc, "time_s", times);
  for (size_t k = 0; times[k] && !r->failed; k++) number(r, o, times[k], 0, 1e9);
}

/* culprit and parent (found: both, parent first), candidates (a run of the range, in order). */
static void read_answer(kg_jrd *r, json_t *doc, kg_bisect_doc *d) {
  int found = d->outcome == KG_BISECT_FOUND, has = json_object_get(doc, "culprit") || json_object_get(doc, "parent");
  at(r, "", -1);
  if (!r->failed && found != has)
    kg_jrd_fail(r, found ? "outcome found names no culprit and parent" : "a culprit, but the outcome is not found");
  if (found) {
    d->culprit = range_commit(r, doc, "culprit", d), d->parent = range_commit(r, doc, "parent", d);
    if (!r->failed && d->parent >= d->culprit) kg_jrd_fail(r, "parent is not before culprit in the range");
  }
  json_t *cand = json_object_get(doc, "candidates");
  if (!cand || r->failed) return;
  at(r, "candidates", -1);
  size_t n = json_array_size(cand);
  if (!json_is_array(cand) || !n) kg_jrd_fail(r, "not a list of commits");
  for (size_t i = 0; i < n && !r->failed; i++) {
    const char *c = json_string_value(json_array_get(cand, i));
    long k = c && !why_bad_commit40(c) ? index_of(d, c) : -1;
    if (k < 0 || (i && k != d->cand_last + 1)) kg_jrd_fail(r, "[%zu] is not the next commit of the range", i);
    if (!i) d->cand_first = k;
    d->cand_last = k;
  }
}

int kg_bisect_read(const char *path, kg_bisect_doc *d, char *err, size_t errlen) {
  static const char *const keys[] = {"kind", "schema_version", "outcome", "exit_code", "why", "estimate_pct", "cells",
                                     "commits", "steps", "counts", "time_s", "fingerprint", "reproduce", "verify",
                                     "culprit", "parent", "candidates", "changed", NULL};
  *d = (kg_bisect_doc){.culprit = -1, .parent = -1, .cand_first = -1, .cand_last = -1};
  json_t *doc;
  int rc = kg_json_load(path, &doc, err, errlen);
  if (rc == 1) return snprintf(err, errlen, "%s: no such file", path), -1;
  if (rc) return -1;
  kg_jrd r = {.file = path, .err = err, .errlen = errlen};
  kg_jrd_kind(&r, doc, "kgate-bisect", "a kgate bisect result", KG_BISECT_SCHEMA);
  kg_jrd_keys(&r, doc, keys);
  const char *o = kg_jrd_str(&r, doc, "outcome");
  int known = 0;
  for (int k = KG_BISECT_FOUND; k <= KG_BISECT_ENV && !known; k++)
    if (!strcmp(o, kg_bisect_outcome_name((kg_bisect_outcome)k))) d->outcome = (kg_bisect_outcome)k, known = 1;
  if (!r.failed && !known)
    kg_jrd_fail(&r, "outcome is not one of found, outside, not-reproduced, undecided, bad-input, environment");
  long long code = kg_jrd_int(&r, doc, "exit_code");
  if (!r.failed && code != kg_bisect_exit(d->outcome))
    kg_jrd_fail(&r, "exit_code %lld is not outcome %s's (%d)", code, o, kg_bisect_exit(d->outcome));
  kg_jrd_text(&r, doc, "why", d->why, sizeof d->why, why_bad_line);
  d->estimate_pct = percent(&r, doc, "estimate_pct");
  if (json_object_get(doc, "fingerprint")) {
    char how[512];
    kg_jrd_text(&r, doc, "fingerprint", how, sizeof how, why_bad_line);
  }
  if (json_object_get(doc, "changed")) kg_jrd_text(&r, doc, "changed", d->changed, sizeof d->changed, why_bad_line);
  read_cells(&r, doc, d);
  read_commits(&r, doc, d);
  read_steps(&r, doc, d);
  read_tallies(&r, doc, d);
  optional_effect(&r, doc, "reproduce", &d->reproduce);
  optional_effect(&r, doc, "verify", &d->verify);
  read_answer(&r, doc, d);
  json_decref(doc);
  if (r.failed) kg_bisect_doc_free(d);
  return r.failed ? -1 : 0;
}

void kg_bisect_doc_free(kg_bisect_doc *d) {
  free(d->cells);
  free(d->commits);
  d->cells = NULL, d->commits = NULL, d->ncells = d->ncommits = 0;
}

/* ---- which finding it is of ---------------------------------------------------------------- */

/* A night's commit names commit c: 7-40 hex, a prefix of it. */
static int names(const char *night, const char *c) {
  size_t n = strlen(night);
  return n >= 7 && n <= 40 && strspn(night, "0123456789abcdef") == n && !strncmp(night, c, n);
}

int kg_bisect_doc_of(const kg_bisect_doc *d, const kg_history *h, const kg_finding *f) {
  if (f->kind != KG_FIND_REGRESSION || !h || f->last_good >= f->first_bad || f->first_bad >= h->n || !d->ncommits ||
      !d->ncells)
    return 0;
  if (!names(kg_hist_commit(&h->runs[f->last_good]), d->commits[0]) ||
      !names(kg_hist_commit(&h->runs[f->first_bad]), d->commits[d->ncommits - 1]))
    return 0;
  for (size_t k = 0; k < d->ncells; k++) {
    const kg_bisect_cell *c = &d->cells[k];
    int in = 0;
    for (size_t i = 0; i < f->ncells && !in; i++)
      in = f->cells[i].dtype == c->dtype && f->cells[i].n == c->n && !strcmp(f->cells[i].variant, c->variant);
    if (!in) return 0;
  }
  return 1;
}

int kg_bisect_doc_answers(const kg_bisect_doc *d) {
  return d->outcome == KG_BISECT_FOUND || d->outcome == KG_BISECT_OUTSIDE || d->outcome == KG_BISECT_NOT_REPRODUCED ||
         d->outcome == KG_BISECT_UNDECIDED;
}
