/* The nightly's detector (detect.h). Per paired cell, x_t = ln(ratio_t)
 * against the pinned reference. A segment of a series starts at its first
 * night, at a re-pin (another reference hash) and at an acknowledgement; its
 * first `warmup` nights are not scored, and from then on each night is
 * scored against the level L_t (the median of the segment's nights before t,
 * renewed while both sums rest at 0 and frozen while either climbs, so a few
 * warm-up nights do not fix the level for good):
 *   z_t = clip((x_t - L_t) / sigma_t, -clip, clip)
 *   up_t = max(0, up_{t-1} + z_t - k),  down_t = max(0, down_{t-1} - z_t - k)
 * with k and the clip tuned per cell (kg_cusum_tune), and up_t > h is an
 * alarm (down_t > h an improvement). sigma: the variance of first
 * differences (each capped at 2.5 sigma, so the step itself or one wild
 * night weighs as a normal one), shrunk toward the cells of its size by
 * empirical Bayes (stats.h, kg_eb_prior): a cell's few nights cannot make it
 * hair-triggered, and a quiet cell keeps its own small sigma once its nights
 * say so. sigma_t is sigma, widened on a night whose own interval is three
 * times the cell's typical one by that night's excess variance. No floor tied
 * to the step: that would make the step undetectable.
 * With the clip one night adds at most clip - k to up, and h > clip - k: a
 * single wild night never alarms. Per variant, the same CUSUM runs on the
 * pooled score sum(clip(z, +-3)) / sqrt(m) of its watched cells (its own
 * level and sigma, shrunk toward the other variants'). A finding is the
 * environment's only on evidence: the control (the reference against itself)
 * alarmed in its window, or the reference's own time on that night's card
 * moved (health); never because many cells moved or the card was new. */
#include "detect.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "fileio.h"
#include "jread.h"
#include "paired.h"
#include "sizes.h"
#include "stats.h"
#include "fields.h"

kg_detect_opts kg_detect_defaults(void) {
  /* docs/nightly.md: the budget of < 0.1 false alarms per 60 nights over
   * kgate's 240 cells, half to the cells (240 * 60 / 0.05 = 288,000 nights
   * a cell) and half to the 20 variants' pooled scores (24,000); the step is
   * the design aim, half the gate's minimum effect; measured by replay. */
  return (kg_detect_opts){.arl0 = 288000, .arl0_pooled = 24000, .design = 0.5, .delta_min = 2, .delta_max = 8,
                          .pool_delta = 4, .warmup = 4, .pooled = 1, .health_pct = 3.0};
}

kg_detect_opts kg_detect_legacy(void) {
  return (kg_detect_opts){.arl0 = 50000, .arl0_pooled = 50000, .design = 1.0, .delta_min = 2, .delta_max = 5,
                          .pool_delta = 4, .warmup = 4, .legacy = 1, .health_pct = 3.0};
}

/* Siegmund: ARL(0) ~ (exp(2 k b) - 2 k b - 1) / (2 k^2), b = h + 1.166, for
 * in-control scores of mean 0 and variance 1. */
static double siegmund_arl0(double h, double k) {
  double b = h + 1.166, a = 2 * k * b;
  return (exp(a) - a - 1) / (2 * k * k);
}

double kg_cusum_threshold(double arl0, double delta) {
  double k = delta / 2, lo = 0, hi = 100;
  for (int i = 0; i < 200; i++) {
    double mid = (lo + hi) / 2;
    if (siegmund_arl0(mid, k) < arl0) lo = mid;
    else hi = mid;
  }
  return hi;
}

double kg_cusum_step(const kg_detect_opts *o, size_t bytes) {
  return log(1 + o->design * kg_pair_min_effect(bytes, 0));
}

void kg_cusum_tune(const kg_detect_opts *o, double sigma, size_t bytes, double *k, double *clip, double *h) {
  double delta = kg_cusum_step(o, bytes) / sigma;
  delta = delta < o->delta_min ? o->delta_min : delta > o->delta_max ? o->delta_max : delta;
  *k = delta / 2, *clip = delta + 1;
  *h = fmax(kg_cusum_threshold(o->arl0, delta), *clip - *k + 0.5);
}

/* ---- acknowledgements -------------------------------------------------------- */

void kg_acks_free(kg_acks *a) {
  for (size_t i = 0; i < a->n; i++) free(a->acks[i].cells);
  free(a->acks);
  memset(a, 0, sizeof *a);
}

/* "variant dtype n": one cell of an acknowledgement. */
static int parse_cell(const char *s, kg_find_cell *c) {
  char v[64], d[16];
  unsigned long long n;
  int used = 0;
  if (sscanf(s, "%63s %15s %llu%n", v, d, &n, &used) != 3 || s[used] || kg_why_bad_variant(v) ||
      kg_dtype_parse(d, &c->dtype) || n > KG_SIZE_MAX)
    return -1;
  snprintf(c->variant, sizeof c->variant, "%s", v);
  c->n = (size_t)n;
  return 0;
}

static const char *why_bad_from(const char *s) {
  return kg_why_bad_date(s) && kg_why_bad_commit(s) ? "not a night's date (2026-11-25T03:17:00Z) or commit" : NULL;
}
static const char *why_bad_reason(const char *s) { return *s ? kg_why_bad_module_text(s, SIZE_MAX) : "empty: say why"; }

int kg_acks_read(const char *path, kg_acks *a, char *err, size_t errlen) {
  memset(a, 0, sizeof *a);
  json_t *doc;
  int rc = kg_json_load(path, &doc, err, errlen);
  if (rc == 1) return 0; /* no file: nothing acknowledged */
  if (rc) return -1;
  kg_jrd r = {.file = path, .err = err, .errlen = errlen};
  kg_jrd_kind(&r, doc, "kgate-acknowledged", "a kgate acknowledgement file", 1);
  json_t *list = kg_jrd_arr(&r, doc, "acknowledged");
  size_t n = json_array_size(list);
  /* As closed as its schema: a misspelt key is an error, never dropped. */
  static const char *const k_keys[] = {"kind", "schema_version", "acknowledged", NULL};
  static const char *const k_ack_keys[] = {"from", "reason", "cells", NULL};
  kg_jrd_keys(&r, doc, k_keys);
  if (!r.failed && !(a->acks = calloc(n ? n : 1, sizeof *a->acks))) kg_jrd_fail(&r, "out of memory");
  for (size_t i = 0; i < n && !r.failed; i++, a->n++) {
    json_t *o = json_array_get(list, i);
    kg_ack *k = &a->acks[i];
    snprintf(r.where, sizeof r.where, "acknowledged[%zu]", i);
    if (!json_is_object(o)) {
      kg_jrd_fail(&r, "not an object");
      break;
    }
    kg_jrd_keys(&r, o, k_ack_keys);
    kg_jrd_text(&r, o, "from", k->from, sizeof k->from, why_bad_from);
    kg_jrd_text(&r, o, "reason", k->reason, sizeof k->reason, why_bad_reason);
    json_t *cells = kg_jrd_arr(&r, o, "cells"); /* [] : every cell */
    size_t m = json_array_size(cells);
    if (!r.failed && !(k->cells = calloc(m ? m : 1, sizeof *k->cells))) kg_jrd_fail(&r, "out of memory");
    for (size_t j = 0; j < m && !r.failed; j++, k->ncells++) {
      const char *s = json_string_value(json_array_get(cells, j));
      if (!s || parse_cell(s, &k->cells[j]))
        kg_jrd_fail(&r, "cells[%zu] is not \"variant dtype n\" (e.g. \"cub_sum f32 33554432\")", j);
    }
  }
  json_decref(doc);
  if (r.failed) kg_acks_free(a);
  return r.failed ? -1 : 0;
}

/* Whether run r is the night an acknowledgement names (its date, or a commit prefix). */
static int ack_night(const kg_ack *k, const kg_hist_run *r) {
  if (!strcmp(k->from, r->date)) return 1;
  size_t n = strlen(k->from);
  return n >= 7 && !strncmp(k->from, r->commit, n);
}

static int ack_covers(const kg_ack *k, const kg_series *s) {
  if (!k->ncells) return 1;
  for (size_t i = 0; i < k->ncells; i++)
    if (k->cells[i].dtype == s->dtype && k->cells[i].n == s->n && !strcmp(k->cells[i].variant, s->variant))
      return 1;
  return 0;
}

/* ---- series -------------------------------------------------------------------- */

/* The distinct cells of every night (cells, or control when control), sorted. */
static kg_hist_pcell *all_cells(const kg_history *h, int control, size_t *count) {
  size_t total = 0;
  for (size_t t = 0; t < h->n; t++) total += control ? h->runs[t].paired.ncontrol : h->runs[t].paired.n;
  kg_hist_pcell *all = malloc((total ? total : 1) * sizeof *all);
  if (!all) return NULL;
  size_t k = 0;
  for (size_t t = 0; t < h->n; t++) {
    const kg_hist_paired *p = &h->runs[t].paired;
    size_t m = control ? p->ncontrol : p->n;
    if (m) memcpy(all + k, control ? p->control : p->cells, m * sizeof *all);
    k += m;
  }
  if (total) qsort(all, total, sizeof *all, kg_hist_pcell_cmp);
  size_t u = 0;
  for (size_t i = 0; i < total; i++)
    if (!u || kg_hist_pcell_cmp(&all[u - 1], &all[i])) all[u++] = all[i];
  *count = u;
  return all;
}

static int series_alloc(kg_series *s, size_t nruns) {
  double *m = malloc(6 * (nruns ? nruns : 1) * sizeof *m);
  if (!m) return -1;
  s->ratio = m, s->lo = m + nruns, s->hi = m + 2 * nruns, s->up = m + 3 * nruns, s->down = m + 4 * nruns;
  s->z = m + 5 * nruns;
  for (size_t t = 0; t < 6 * nruns; t++) m[t] = NAN;
  return 0;
}

static void series_free(kg_series *s) {
  free(s->ratio);
  memset(s, 0, sizeof *s);
}

/* First differences of x over [from, to), missing nights skipped; their count. */
static size_t diffs(const double *x, size_t from, size_t to, double *d) {
  size_t m = 0;
  double prev = NAN;
  for (size_t t = from; t < to; t++) {
    if (isnan(x[t])) continue;
    if (!isnan(prev)) d[m++] = x[t] - prev;
    prev = x[t];
  }
  return m;
}

/* Robust sigma from first differences: 1.4826 median|d| / sqrt 2 (NaN: fewer than 2). */
static double robust_sigma(const double *x, size_t from, size_t to) {
  double d[to - from + 1];
  size_t m = diffs(x, from, to, d);
  for (size_t i = 0; i < m; i++) d[i] = fabs(d[i]);
  return m >= 2 ? 1.4826 * kg_median(d, m) / sqrt(2.0) : NAN;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The cap's sigma from first differences: their 80th percentile of |d| over
 * 1.2816 sqrt 2 (NaN: fewer than 2). The median, as robust_sigma, sees only
 * a cell's quiet nights: on the recorded 16-round nights some cells
 * (atomic_per_element f16/bf16/i64) sit within 0.01 % most nights and
 * 0.2-0.9 % away on one night in five, and a cap from the quiet nights
 * called every second such night a regression. The 80th percentile counts
 * those nights as the cell's spread, yet one step among five differences
 * still does not move it. */
static double spread_sigma(const double *x, size_t from, size_t to) {
  double d[to - from + 1];
  size_t m = diffs(x, from, to, d);
  if (m < 2) return NAN;
  for (size_t i = 0; i < m; i++) d[i] = fabs(d[i]);
  qsort(d, m, sizeof *d, cmp_double);
  double at = 0.8 * (double)(m - 1), f = at - floor(at);
  size_t i = (size_t)at;
  double q = i + 1 < m ? d[i] * (1 - f) + d[i + 1] * f : d[i];
  return q / (1.2816 * sqrt(2.0));
}

/* The variance of x from its first differences, each capped at 2.5 sqrt2
 * cap (the step night, or one wild night, weighs as a 2.5 sigma one) and
 * corrected for the cap under normal noise. nu: the differences over 1.5,
 * since neighbouring ones share a night (the correlation of their squares
 * is 1/4). */
static void capped_var(const double *x, size_t from, size_t to, double cap, double *s2, double *nu) {
  static const double c = 2.5;
  /* E min(Z^2, c^2) for a unit normal Z */
  double e = erf(c / sqrt(2.0)) - 2 * c * exp(-c * c / 2) / sqrt(2 * M_PI) + c * c * erfc(c / sqrt(2.0));
  double d[to - from + 1], lim = 2 * c * c * cap * cap, sum = 0;
  size_t m = diffs(x, from, to, d);
  for (size_t i = 0; i < m; i++) sum += fmin(d[i] * d[i], isfinite(lim) && lim > 0 ? lim : INFINITY);
  *s2 = m ? sum / (double)m / 2 / e : NAN;
  *nu = (double)m / 1.5;
}

/* ---- findings ------------------------------------------------------------------ */

typedef struct alarm {
  size_t series, first_bad, last_good, at;
  kg_find_kind kind;
  int acknowledged;
  size_t pool; /* 0: the cell's own detector; else the pooled alarm's number */
  double before, after;
} alarm;

typedef struct alarms {
  size_t n, cap;
  alarm *a;
} alarms;

static int push_alarm(alarms *l, alarm a) {
  if (l->n == l->cap) {
    size_t c = l->cap ? 2 * l->cap : 32;
    alarm *more = realloc(l->a, c * sizeof *more);
    if (!more) return -1;
    l->a = more, l->cap = c;
  }
  l->a[l->n++] = a;
  return 0;
}

/* The night before t on which x had a value (t itself when none). */
static size_t prev_night(const double *x, size_t t) {
  for (size_t p = t; p-- > 0;)
    if (!isnan(x[p])) return p;
  return t;
}

/* Median ratio over [from, to). */
static double median_ratio(const kg_series *s, size_t from, size_t to) {
  double v[to > from ? to - from : 1];
  size_t m = 0;
  for (size_t t = from; t < to; t++)
    if (!isnan(s->ratio[t])) v[m++] = s->ratio[t];
  return m ? kg_median(v, m) : NAN;
}

typedef struct scan_ctx {
  const kg_history *h;
  const kg_acks *acks;
  const kg_detect_opts *o;
} scan_ctx;

/* One watched series: a cell's log ratios or a variant's pooled scores. */
typedef struct watch {
  const double *x; /* per night, NaN: none */
  kg_series *s;    /* where its sums, scores and tuning go */
  size_t bytes;    /* a cell's input bytes (its step); 0: a pooled score */
  double floor;    /* its class's median robust sigma: the cap of differences (legacy: the floor) */
  const double *se; /* a cell's per-night standard error from its own interval (NaN: none); NULL: a pooled score */
  double s0sq, nu0; /* its class's prior (nu0 NaN: none) */
} watch;

/* What an alarm of series si in direction dir (0 up) does: recorded by fn,
 * which sets *restart to the night the series is watched again from with a
 * new level (an acknowledged change), or leaves it. -1: out of memory. */
typedef int (*alarm_fn)(void *arg, size_t si, int dir, size_t first_bad, size_t at, double level, size_t *restart);

/* Where a segment of x that starts at `from` ends: the next re-pin (another
 * reference), or the end of the history. */
static size_t segment_end(const scan_ctx *c, const double *x, size_t from, const char *sha) {
  for (size_t t = from + 1; t < c->h->n; t++) {
    const kg_hist_run *r = &c->h->runs[t];
    if (r->paired.has && !isnan(x[t]) && strcmp(r->paired.ref_sha256, sha)) return t;
  }
  return c->h->n;
}

/* Whether an acknowledgement closes an alarm of s whose last good night is
 * last_good and whose alarm came at `at`. */
static int acknowledged(const scan_ctx *c, const kg_series *s, size_t last_good, size_t at) {
  for (size_t i = 0; c->acks && i < c->acks->n; i++) {
    const kg_ack *k = &c->acks->acks[i];
    if (!ack_covers(k, s)) continue;
    for (size_t t = last_good + 1; t <= at; t++)
      if (ack_night(k, &c->h->runs[t])) return 1;
  }
  return 0;
}

/* The segment's sigma: its capped variance shrunk toward its class (legacy:
 * robust, floored by the class median and the step over delta_max). */
static double segment_sigma(const scan_ctx *c, const watch *w, size_t from, size_t to) {
  double own = c->o->legacy ? robust_sigma(w->x, from, to) : spread_sigma(w->x, from, to);
  if (c->o->legacy) {
    double fl = fmax(w->floor, w->bytes ? kg_cusum_step(c->o, w->bytes) / c->o->delta_max : 0);
    return own >= fl ? own : fl;
  }
  double s2, nu;
  capped_var(w->x, from, to, fmax(isnan(own) ? 0 : own, isnan(w->floor) ? 0 : w->floor), &s2, &nu);
  if (isnan(w->nu0)) return nu >= 1 ? sqrt(s2) : NAN; /* no class to learn from: its own nights */
  return sqrt(kg_eb_shrink(s2, nu, w->s0sq, w->nu0));
}

static void tune(const scan_ctx *c, const watch *w, double sigma, double *k, double *clip, double *h) {
  if (w->bytes) {
    kg_cusum_tune(c->o, sigma, w->bytes, k, clip, h);
    return;
  }
  double delta = c->o->pool_delta;
  *k = delta / 2, *clip = delta + 1;
  *h = fmax(kg_cusum_threshold(c->o->arl0_pooled, delta), *clip - *k + 0.5);
}

/* Inserts v into the sorted v[0 .. *m). */
static void sorted_put(double *v, size_t *m, double x) {
  size_t i = *m;
  for (; i > 0 && v[i - 1] > x; i--) v[i] = v[i - 1];
  v[i] = x, (*m)++;
}

static double sorted_median(const double *v, size_t m) { return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2; }

/* The level of the sorted v[0 .. m): their mean, each value held within
 * 2.5 sigma of their median (a wild night weighs as a 2.5 sigma one). The
 * mean, not the median: a cell whose nights come from a few cards has a
 * lopsided spread, and the CUSUM's scores must average 0. */
static double level_of(const double *v, size_t m, double sigma) {
  double med = sorted_median(v, m), sum = 0, lim = 2.5 * sigma;
  for (size_t i = 0; i < m; i++) sum += fmax(med - lim, fmin(med + lim, v[i]));
  return sum / (double)m;
}

/* The cell's typical night's own variance over [from, to): the median of
 * se^2 (NaN when no night has an interval). */
static double typical_se2(const watch *w, size_t from, size_t to) {
  double v[to > from ? to - from : 1];
  size_t m = 0;
  for (size_t t = from; w->se && t < to; t++)
    if (!isnan(w->x[t]) && isfinite(w->se[t])) v[m++] = w->se[t] * w->se[t];
  return m ? kg_median(v, m) : NAN;
}

/* Night t's variance beyond the cell's typical night, when its own interval
 * is more than three times as wide as the typical one (0 otherwise): a
 * night whose rounds disagree says less, and weighs less. On the recorded
 * 16-round H100 nights such nights are atomic_per_element's f16/bf16/i64
 * cells on about one night in five, their intervals 30-100 times the usual;
 * replayed, a bar at twice the width also took power from honest nights
 * (cards differ in their spread: 92.5 % of 2^22 cells at P >= 0.95, not
 * 95.0 %), and one at ten times let jump nights through (0.12 false alarms
 * per 60 nights, not 0.065). Three to five times: the same replay. */
static double excess_var(const watch *w, size_t t, double se2) {
  if (!w->se || !isfinite(w->se[t]) || !(se2 > 0)) return 0;
  double v = w->se[t] * w->se[t];
  return v > 9 * se2 ? v - se2 : 0;
}

/* Scores one segment [from, to) of w (series si); alarms (at most one each
 * way) go to fn. *restart: the night fn asked to watch again from (else to).
 * The level is renewed from the segment's nights before t while both sums
 * rest at 0, and frozen while either climbs (legacy: the warm-up's median). */
static int scan_segment(const scan_ctx *c, const watch *w, size_t si, size_t from, size_t to, alarm_fn fn, void *arg,
                        size_t *restart) {
  *restart = to;
  size_t seen = 0, watch_from = to, wu = c->o->warmup < 1 ? 1 : c->o->warmup > 64 ? 64 : (size_t)c->o->warmup;
  double *past = malloc((to - from + 1) * sizeof *past);
  if (!past) return -1;
  for (size_t t = from; t < to && seen < wu; t++)
    if (!isnan(w->x[t])) {
      sorted_put(past, &seen, w->x[t]);
      if (seen == wu) watch_from = t + 1;
    }
  double sigma = seen < wu ? NAN : segment_sigma(c, w, from, to), k, clip, hh;
  if (!(sigma > 0)) return free(past), 0; /* too young to watch, or no spread to measure */
  tune(c, w, sigma, &k, &clip, &hh);
  kg_series *s = w->s;
  double level = c->o->legacy ? sorted_median(past, seen) : level_of(past, seen, sigma), up = 0, down = 0;
  size_t nlevel = seen;
  double se2 = c->o->legacy ? NAN : typical_se2(w, from, to);
  s->sigma = sigma, s->k = k, s->h = hh;
  size_t up0 = watch_from, down0 = watch_from; /* the first night after the last zero */
  int fired[2] = {0, 0}, rc = 0;
  for (size_t t = watch_from; t < to && *restart == to && !rc; t++) {
    if (isnan(w->x[t])) continue;
    if (!c->o->legacy && up == 0 && down == 0) level = level_of(past, seen, sigma), nlevel = seen;
    /* the level is itself an estimate from nlevel nights: tonight's distance
     * from it spreads by sqrt(1 + 1/nlevel) sigma (a self-starting CUSUM);
     * a night whose own interval is three times the typical one's adds its
     * excess variance (excess_var) */
    double v = c->o->legacy ? sigma * sigma : sigma * sigma * (1 + 1.0 / (double)nlevel);
    v += excess_var(w, t, se2);
    double z = (w->x[t] - level) / sqrt(v);
    z = z > clip ? clip : z < -clip ? -clip : z;
    if (up == 0) up0 = t;
    if (down == 0) down0 = t;
    up = fmax(0, up + z - k), down = fmax(0, down - z - k);
    s->up[t] = up, s->down[t] = down, s->z[t] = z;
    sorted_put(past, &seen, w->x[t]);
    for (int dir = 0; dir < 2 && !rc && *restart == to; dir++) {
      if (fired[dir] || (dir ? down : up) <= hh) continue;
      fired[dir] = 1;
      rc = fn(arg, si, dir, dir ? down0 : up0, t, level, restart);
    }
  }
  s->level = w->bytes ? exp(level) : level;
  free(past);
  return rc;
}

/* Scans every segment of w. */
static int scan_series(const scan_ctx *c, const watch *w, size_t si, alarm_fn fn, void *arg) {
  const kg_history *h = c->h;
  size_t from = 0;
  while (from < h->n && isnan(w->x[from])) from++;
  while (from < h->n) {
    size_t to = segment_end(c, w->x, from, h->runs[from].paired.ref_sha256), next;
    if (scan_segment(c, w, si, from, to, fn, arg, &next)) return -1;
    from = next;
    while (from < h->n && isnan(w->x[from])) from++;
  }
  return 0;
}

static int fill_series(const kg_history *h, const kg_hist_pcell *key, int control, kg_series *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->variant, sizeof s->variant, "%s", key->variant);
  s->dtype = key->dtype, s->n = key->n, s->sigma = s->level = NAN;
  if (series_alloc(s, h->n)) return -1;
  for (size_t t = 0; t < h->n; t++) {
    const kg_hist_paired *p = &h->runs[t].paired;
    const kg_hist_pcell *e = control ? kg_hist_pfind(p->control, p->ncontrol, key->variant, key->dtype, key->n)
                                     : kg_hist_pfind(p->cells, p->n, key->variant, key->dtype, key->n);
    if (e) s->ratio[t] = e->ratio, s->lo[t] = e->lo, s->hi[t] = e->hi;
  }
  return 0;
}

/* Per night, the two-sided normal quantile of its confidence (NaN: none
 * recorded). The interval's own t quantile over a night's blocks is a few
 * per cent larger, so a standard error read with this errs larger. */
static double *night_quantiles(const kg_history *h) {
  double *q = malloc((h->n ? h->n : 1) * sizeof *q);
  for (size_t t = 0; q && t < h->n; t++) {
    double conf = h->runs[t].paired.confidence;
    q[t] = t && conf == h->runs[t - 1].paired.confidence ? q[t - 1]
           : conf > 0 && conf < 1                        ? kg_student_t(conf, 1 << 20)
                                                         : NAN;
  }
  return q;
}

/* Night t's standard error of ln ratio from its interval (q: its quantile); NaN when unknown. */
static double night_se(const kg_series *s, size_t t, double q) {
  double lo = s->lo[t], hi = s->hi[t];
  return q > 0 && lo > 0 && hi >= lo ? log(hi / lo) / (2 * q) : NAN;
}

/* Per watched series, its class's median robust sigma and variance prior
 * (fit over the series with the same class[]: a cell's element count, the
 * noise follows the launch shape more than the bytes; every pooled score
 * is of one class). x: n series of nruns values each. */
static int class_priors(const double *x, const size_t *cls, size_t n, size_t nruns, watch *w) {
  double *own = malloc((n ? n : 1) * 5 * sizeof *own);
  if (!own) return -1;
  double *s2 = own + n, *nu = own + 2 * n, *a = own + 3 * n, *b = own + 4 * n;
  for (size_t i = 0; i < n; i++) own[i] = robust_sigma(x + i * nruns, 0, nruns);
  for (size_t i = 0; i < n; i++) {
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
      if (cls[j] == cls[i] && !isnan(own[j])) a[m++] = own[j];
    w[i].floor = m ? kg_median(a, m) : NAN;
  }
  /* the class's floor is the median's (legacy's floor too); a cell's cap, its spread (spread_sigma) */
  for (size_t i = 0; i < n; i++) own[i] = spread_sigma(x + i * nruns, 0, nruns);
  for (size_t i = 0; i < n; i++)
    capped_var(x + i * nruns, 0, nruns, fmax(isnan(own[i]) ? 0 : own[i], isnan(w[i].floor) ? 0 : w[i].floor),
               &s2[i], &nu[i]);
  for (size_t i = 0; i < n; i++) {
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
      if (cls[j] == cls[i]) a[m] = s2[j], b[m++] = nu[j];
    if (kg_eb_prior(a, b, m, &w[i].s0sq, &w[i].nu0)) w[i].s0sq = w[i].nu0 = NAN;
  }
  free(own);
  return 0;
}

/* ---- environment and health ------------------------------------------------------ */

/* Night t's reference against its card's earlier nights: the median over
 * cells of base_us / that cell's median on the card (NaN: fewer than 3
 * earlier nights on the card). *nights, *cells: what it rests on. */
static double health_ratio(const kg_history *h, size_t t, size_t *nights, size_t *cells) {
  const kg_hist_run *now = &h->runs[t];
  const char *card = kg_hist_card(now);
  *nights = *cells = 0;
  if (!now->paired.has || !card[0]) return NAN;
  size_t nc = now->paired.n, m = 0, k;
  for (size_t u = 0; u < t; u++) *nights += !strcmp(kg_hist_card(&h->runs[u]), card) && h->runs[u].paired.has;
  if (*nights < 3) return NAN;
  double *rel = malloc((nc ? nc : 1) * sizeof *rel), *past = malloc((t ? t : 1) * sizeof *past);
  if (!rel || !past) return free(rel), free(past), NAN;
  for (size_t i = 0; i < nc; i++) {
    const kg_hist_pcell *c = &now->paired.cells[i];
    k = 0;
    for (size_t u = 0; u < t; u++) {
      const kg_hist_run *r = &h->runs[u];
      if (strcmp(kg_hist_card(r), card) || strcmp(r->paired.ref_sha256, now->paired.ref_sha256)) continue;
      const kg_hist_pcell *e = kg_hist_pfind(r->paired.cells, r->paired.n, c->variant, c->dtype, c->n);
      if (e) past[k++] = e->base_us;
    }
    if (k >= 3) rel[m++] = c->base_us / kg_median(past, k);
  }
  double r = m ? kg_median(rel, m) : NAN;
  free(rel), free(past);
  *cells = m;
  return r;
}

/* The evidence that a night's machine, not its build, moved: the control
 * alarmed in a window holding it (env, filled up front), or the
 * reference's own time on its card moved (health, worked out on demand). */
typedef struct evidence {
  const kg_history *h;
  double pct;
  unsigned char *env;    /* 1: the control's */
  signed char *health;   /* -1: not yet known */
} evidence;

static int health_night(evidence *e, size_t t) {
  if (e->health[t] < 0) {
    size_t nights, cells;
    e->health[t] = health_ratio(e->h, t, &nights, &cells) > 1 + e->pct / 100;
  }
  return e->health[t];
}

/* Whether a night between an alarm's change night and the alarm itself was the environment's. */
static int in_environment(evidence *e, const alarm *a) {
  for (size_t t = a->first_bad; t <= a->at; t++)
    if (e->env[t] || health_night(e, t)) return 1;
  return 0;
}

/* The latest night's reference against its card's earlier nights. */
static int health_finding(const kg_history *h, double pct, kg_finding *f) {
  if (!h->n) return 0;
  size_t last = h->n - 1, nights, m;
  double r = health_ratio(h, last, &nights, &m);
  if (!(r > 1 + pct / 100)) return 0;
  memset(f, 0, sizeof *f);
  f->kind = KG_FIND_HEALTH, f->first_bad = f->last_good = f->alarm = last;
  snprintf(f->note, sizeof f->note,
           "the reference ran %.1f %% slower on card %s than on its %zu earlier nights (median of %zu cells): the "
           "machine changed, not the code",
           100 * (r - 1), kg_hist_card(&h->runs[last]), nights, m);
  return 1;
}

/* ---- grouping ---------------------------------------------------------------------- */

static int alarm_order(const void *pa, const void *pb) {
  const alarm *a = pa, *b = pb;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->acknowledged != b->acknowledged) return a->acknowledged - b->acknowledged;
  if (a->first_bad != b->first_bad) return a->first_bad > b->first_bad ? -1 : 1; /* newest first */
  if (a->series != b->series) return a->series < b->series ? -1 : 1;
  return a->at < b->at ? -1 : a->at > b->at; /* a cell flagged by both detectors: the earlier alarm */
}

static const char *k_env_note = "%zu cell(s) moved while the control (the reference against a second load of itself) "
                                "moved or the reference's own time on its card moved: the environment, not a commit";

/* Alarms of one kind, acknowledgement and change night become one finding
 * (a cell flagged by its own and its variant's detector, once). */
static int group(kg_detection *d, alarms *al) {
  if (al->n) qsort(al->a, al->n, sizeof *al->a, alarm_order);
  for (size_t i = 0; i < al->n;) {
    size_t j = i, pooled = 0;
    while (j < al->n && al->a[j].kind == al->a[i].kind && al->a[j].acknowledged == al->a[i].acknowledged &&
           al->a[j].first_bad == al->a[i].first_bad)
      j++;
    kg_finding *more = realloc(d->find, (d->nfind + 1) * sizeof *more);
    if (!more) return -1;
    d->find = more;
    kg_finding *f = &d->find[d->nfind++];
    memset(f, 0, sizeof *f);
    f->kind = al->a[i].kind, f->first_bad = al->a[i].first_bad, f->last_good = al->a[i].last_good;
    f->acknowledged = al->a[i].acknowledged, f->alarm = al->a[i].at;
    if (!(f->cells = calloc(j - i, sizeof *f->cells))) return -1;
    for (size_t k = i; k < j; k++) {
      if (al->a[k].at < f->alarm) f->alarm = al->a[k].at;
      if (al->a[k].last_good < f->last_good) f->last_good = al->a[k].last_good;
      if (k > i && al->a[k].series == al->a[k - 1].series) continue;
      const kg_series *s = &d->series[al->a[k].series];
      kg_find_cell *c = &f->cells[f->ncells++];
      snprintf(c->variant, sizeof c->variant, "%s", s->variant);
      c->dtype = s->dtype, c->n = s->n, c->before = al->a[k].before, c->after = al->a[k].after;
      pooled += al->a[k].pool != 0;
    }
    if (f->kind == KG_FIND_ENVIRONMENT) snprintf(f->note, sizeof f->note, k_env_note, f->ncells);
    else if (pooled)
      snprintf(f->note, sizeof f->note, "%zu of the %zu cell(s) flagged by their variant's pooled score (its dtypes "
               "and sizes together)", pooled, f->ncells);
    if (f->kind == KG_FIND_REGRESSION && !f->acknowledged) d->open_regressions++;
    i = j;
  }
  return 0;
}

/* ---- the detectors ---------------------------------------------------------------------- */

/* The cells of one history (or its control) and their alarms. */
typedef struct cellset {
  const scan_ctx *c;
  kg_series *s;
  double *x; /* n * nruns log ratios */
  size_t n;
  alarms *out;
  size_t pools; /* pooled alarms so far */
  size_t g0, g1; /* the variant being pooled: its cells [g0, g1) */
} cellset;

static int cell_alarm(void *arg, size_t si, int dir, size_t fb, size_t at, double level, size_t *restart) {
  cellset *cs = arg;
  const scan_ctx *c = cs->c;
  kg_series *s = &cs->s[si];
  size_t lg = prev_night(cs->x + si * c->h->n, fb);
  int ack = acknowledged(c, s, lg, at);
  alarm a = {si, fb, lg, at, dir ? KG_FIND_IMPROVEMENT : KG_FIND_REGRESSION, ack, 0, exp(level), NAN};
  a.after = median_ratio(s, fb, ack ? at + 1 : c->h->n);
  if (push_alarm(cs->out, a)) return -1;
  if (ack) *restart = fb; /* watched again from there, with a new level */
  return 0;
}

/* A variant's pooled score crossed: its cells that moved the score's way
 * (mean score over the window beyond 1, else beyond 0) are the finding's. */
static int pool_alarm(void *arg, size_t si, int dir, size_t fb, size_t at, double level, size_t *restart) {
  (void)si, (void)level;
  cellset *cs = arg;
  const scan_ctx *c = cs->c;
  size_t nruns = c->h->n, pool = ++cs->pools, listed = 0, acked = 0;
  double sign = dir ? -1 : 1;
  for (double bar = 1; bar >= 0 && !listed; bar -= 1)
    for (size_t i = cs->g0; i < cs->g1; i++) {
      kg_series *s = &cs->s[i];
      double sum = 0;
      size_t m = 0;
      for (size_t t = fb; t <= at; t++)
        if (!isnan(s->z[t])) sum += sign * s->z[t], m++;
      if (!m || sum / (double)m <= bar) continue;
      size_t lg = prev_night(cs->x + i * nruns, fb);
      int ack = acknowledged(c, s, lg, at);
      alarm a = {i, fb, lg, at, dir ? KG_FIND_IMPROVEMENT : KG_FIND_REGRESSION, ack, pool, s->level, NAN};
      a.after = median_ratio(s, fb, ack ? at + 1 : nruns);
      if (push_alarm(cs->out, a)) return -1;
      listed++, acked += ack;
    }
  if (listed && acked == listed) *restart = fb;
  return 0;
}

/* Each variant's pooled score, watched like a cell. */
static int detect_pooled(cellset *cs) {
  const scan_ctx *c = cs->c;
  size_t nruns = c->h->n, ng = 0;
  size_t *start = malloc((cs->n + 1) * sizeof *start);
  if (!start) return -1;
  for (size_t i = 0; i < cs->n; i++)
    if (!i || strcmp(cs->s[i].variant, cs->s[i - 1].variant)) start[ng++] = i;
  start[ng] = cs->n;
  double *y = malloc((ng ? ng : 1) * (nruns ? nruns : 1) * sizeof *y);
  watch *w = calloc(ng ? ng : 1, sizeof *w);
  kg_series *ps = calloc(ng ? ng : 1, sizeof *ps);
  size_t *cls = calloc(ng ? ng : 1, sizeof *cls);
  int rc = y && w && ps && cls ? 0 : -1;
  for (size_t g = 0; !rc && g < ng; g++) {
    for (size_t t = 0; t < nruns; t++) {
      double sum = 0;
      size_t m = 0;
      for (size_t i = start[g]; i < start[g + 1]; i++)
        if (!isnan(cs->s[i].z[t])) sum += fmax(-3, fmin(3, cs->s[i].z[t])), m++;
      y[g * nruns + t] = m >= 2 ? sum / sqrt((double)m) : NAN;
    }
    rc = series_alloc(&ps[g], nruns);
    w[g] = (watch){.x = y + g * nruns, .s = &ps[g]};
  }
  if (!rc) rc = class_priors(y, cls, ng, nruns, w);
  for (size_t g = 0; !rc && g < ng; g++) {
    cs->g0 = start[g], cs->g1 = start[g + 1];
    if (start[g + 1] - start[g] >= 2) rc = scan_series(c, &w[g], g, pool_alarm, cs);
  }
  for (size_t g = 0; ps && g < ng; g++) series_free(&ps[g]);
  free(start), free(y), free(w), free(ps), free(cls);
  return rc;
}

static int detect_cells(const kg_history *h, int control, const scan_ctx *c, kg_series **series, size_t *nseries,
                        alarms *al, size_t *pools) {
  size_t n, nruns = h->n;
  kg_hist_pcell *keys = all_cells(h, control, &n);
  if (!keys) return -1;
  kg_series *s = calloc(n ? n : 1, sizeof *s);
  double *x = malloc((n ? n : 1) * (nruns ? nruns : 1) * sizeof *x);
  double *se = malloc((n ? n : 1) * (nruns ? nruns : 1) * sizeof *se), *q = night_quantiles(h);
  watch *w = calloc(n ? n : 1, sizeof *w);
  size_t *cls = calloc(n ? n : 1, sizeof *cls);
  int rc = s && x && se && q && w && cls ? 0 : -1;
  for (size_t i = 0; !rc && i < n; i++) {
    rc = fill_series(h, &keys[i], control, &s[i]);
    for (size_t t = 0; !rc && t < nruns; t++)
      x[i * nruns + t] = log(s[i].ratio[t]), se[i * nruns + t] = night_se(&s[i], t, q[t]);
    w[i] = (watch){.x = x + i * nruns, .s = &s[i], .bytes = s[i].n * kg_dtype_get(s[i].dtype)->size,
                   .se = se + i * nruns};
    cls[i] = s[i].n;
  }
  free(keys);
  if (!rc) rc = class_priors(x, cls, n, nruns, w);
  cellset cs = {c, s, x, n, al, 0, 0, 0};
  for (size_t i = 0; !rc && i < n; i++) rc = scan_series(c, &w[i], i, cell_alarm, &cs);
  if (!rc && c->o->pooled && !c->o->legacy) rc = detect_pooled(&cs);
  *pools = cs.pools;
  free(x), free(se), free(q), free(w), free(cls);
  *series = s, *nseries = s ? n : 0;
  return rc;
}

/* The control's alarms (either way) mark their windows; then each alarm of
 * the cells whose window holds such a night, or a night the reference's own
 * time moved on its card, is the environment's. Counts each detector's
 * regression alarms. */
static int classify(kg_detection *d, const alarms *ctl, alarms *al, size_t pools, const kg_history *h, double pct) {
  unsigned char *env = calloc(h->n ? h->n : 1, 1), *pooled = calloc(pools + 1, 1);
  signed char *health = malloc(h->n ? h->n : 1);
  if (!env || !pooled || !health) return free(env), free(pooled), free(health), -1;
  memset(health, -1, h->n);
  for (size_t i = 0; i < ctl->n; i++)
    for (size_t t = ctl->a[i].first_bad; t <= ctl->a[i].at; t++) env[t] = 1;
  evidence e = {h, pct, env, health};
  for (size_t i = 0; i < al->n; i++) {
    alarm *a = &al->a[i];
    if (a->kind != KG_FIND_REGRESSION) continue;
    if (in_environment(&e, a)) {
      a->kind = KG_FIND_ENVIRONMENT, a->after = median_ratio(&d->series[a->series], a->first_bad, a->at + 1);
      continue;
    }
    if (!a->pool) d->cell_alarms++;
    else if (!pooled[a->pool]) pooled[a->pool] = 1, d->pooled_alarms++;
  }
  free(env), free(pooled), free(health);
  return 0;
}

int kg_detect(const kg_history *h, const kg_acks *acks, const kg_detect_opts *o, kg_detection *d) {
  memset(d, 0, sizeof *d);
  scan_ctx c = {h, acks, o};
  alarms al = {0}, ctl = {0};
  kg_series *cs = NULL;
  size_t ncs = 0, pools = 0, ctl_pools = 0;
  int rc = detect_cells(h, 0, &c, &d->series, &d->nseries, &al, &pools);
  if (!rc) rc = detect_cells(h, 1, &c, &cs, &ncs, &ctl, &ctl_pools);
  if (!rc) rc = classify(d, &ctl, &al, pools, h, o->health_pct);
  if (!rc) rc = group(d, &al);
  kg_finding hf;
  int got = rc ? 0 : health_finding(h, o->health_pct, &hf);
  if (got > 0) {
    kg_finding *more = realloc(d->find, (d->nfind + 1) * sizeof *more);
    if (!more) rc = -1;
    else d->find = more, d->find[d->nfind++] = hf;
  }
  for (size_t i = 0; i < ncs; i++) series_free(&cs[i]);
  free(cs), free(al.a), free(ctl.a);
  if (rc) kg_detection_free(d);
  return rc;
}

void kg_detection_free(kg_detection *d) {
  for (size_t i = 0; i < d->nfind; i++) free(d->find[i].cells);
  for (size_t i = 0; i < d->nseries; i++) series_free(&d->series[i]);
  free(d->find);
  free(d->series);
  memset(d, 0, sizeof *d);
}
