/* The nightly's detector (detect.h). Per paired cell, x_t = ln(ratio_t)
 * against the pinned reference. A segment of a series starts at its first
 * night, at a re-pin (another reference hash) and at an acknowledgement; its
 * first `warmup` nights set the accepted level mu0 (their median), and from
 * then on each night is scored
 *   z_t = clip((x_t - mu0) / sigma, -clip, clip)
 *   up_t = max(0, up_{t-1} + z_t - k),  down_t = max(0, down_{t-1} - z_t - k)
 * with k and the clip tuned per cell (kg_cusum_tune), and up_t > h is an
 * alarm (down_t > h an improvement). sigma is robust, from first
 * differences: 1.4826 median|x_t - x_{t-1}| / sqrt 2, floored by the median
 * sigma of the cells of the same size (a quiet cell's few nights cannot make
 * it hair-triggered). With the clip one night adds at most clip - k to up,
 * and h > clip - k: a single wild night never alarms. */
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
  /* docs/nightly.md: chosen on the recorded nights of tests/data/nightly. */
  return (kg_detect_opts){.arl0 = 50000, .design = 1.0, .delta_min = 2, .delta_max = 5, .warmup = 4,
                          .env_share = 0.25, .health_pct = 3.0};
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

double kg_cusum_step(const kg_detect_opts *o, size_t bytes) { return log(1 + o->design * kg_pair_min_effect(bytes, 0)); }

void kg_cusum_tune(const kg_detect_opts *o, double sigma, size_t bytes, double *k, double *clip, double *h) {
  double delta = kg_cusum_step(o, bytes) / sigma;
  delta = delta < o->delta_min ? o->delta_min : delta > o->delta_max ? o->delta_max : delta;
  *k = delta / 2, *clip = delta + 1;
  *h = fmax(kg_cusum_threshold(o->arl0, delta), *clip - *k + 0.5);
}

const char *kg_find_kind_name(kg_find_kind k) {
  static const char *const names[KG_NFIND_KINDS] = {"regression", "environment", "health", "improvement"};
  return k < KG_NFIND_KINDS ? names[k] : "?";
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
static const char *why_bad_reason(const char *s) { return kg_why_bad_module_text(s, SIZE_MAX); }

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
  if (!r.failed && !(a->acks = calloc(n ? n : 1, sizeof *a->acks))) kg_jrd_fail(&r, "out of memory");
  for (size_t i = 0; i < n && !r.failed; i++, a->n++) {
    json_t *o = json_array_get(list, i);
    kg_ack *k = &a->acks[i];
    snprintf(r.where, sizeof r.where, "acknowledged[%zu]", i);
    if (!json_is_object(o)) {
      kg_jrd_fail(&r, "not an object");
      break;
    }
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

/* Robust sigma of x[from .. to) (NaN: missing nights skipped) from first differences. */
static double robust_sigma(const double *ratio, size_t from, size_t to) {
  double d[to - from + 1];
  size_t m = 0;
  double prev = NAN;
  for (size_t t = from; t < to; t++) {
    if (isnan(ratio[t])) continue;
    double x = log(ratio[t]);
    if (!isnan(prev)) d[m++] = fabs(x - prev);
    prev = x;
  }
  return m >= 2 ? 1.4826 * kg_median(d, m) / sqrt(2.0) : NAN;
}

/* ---- findings ------------------------------------------------------------------ */

typedef struct alarm {
  size_t series, first_bad, last_good, at;
  kg_find_kind kind;
  int acknowledged;
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

/* The night before t on which the series had a value (t itself when none). */
static size_t prev_night(const kg_series *s, size_t t) {
  for (size_t p = t; p-- > 0;)
    if (!isnan(s->ratio[p])) return p;
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
  const double *floor_by_series; /* sigma floor per series */
} scan_ctx;

/* Where a segment of series s that starts at `from` ends: the next re-pin
 * (another reference), or the end of the history. */
static size_t segment_end(const scan_ctx *c, const kg_series *s, size_t from, const char *sha) {
  for (size_t t = from + 1; t < c->h->n; t++) {
    const kg_hist_run *r = &c->h->runs[t];
    if (r->paired.has && !isnan(s->ratio[t]) && strcmp(r->paired.ref_sha256, sha)) return t;
  }
  return c->h->n;
}

/* Whether an acknowledgement closes an alarm of s whose change night is
 * first_bad and whose alarm came at `at`. */
static int acknowledged(const scan_ctx *c, const kg_series *s, size_t last_good, size_t at) {
  for (size_t i = 0; c->acks && i < c->acks->n; i++) {
    const kg_ack *k = &c->acks->acks[i];
    if (!ack_covers(k, s)) continue;
    for (size_t t = last_good + 1; t <= at; t++)
      if (ack_night(k, &c->h->runs[t])) return 1;
  }
  return 0;
}

/* The first night in [lo, hi] on a card the series had not run on since
 * `from` (hi + 1 when none): a runner that joined, whose own offsets of a
 * few tenths of a percent in some cells (measured: docs/nightly.md) would
 * otherwise read as a step. */
static size_t new_card_night(const scan_ctx *c, const kg_series *s, size_t from, size_t lo, size_t hi) {
  for (size_t u = lo; u <= hi; u++) {
    if (isnan(s->ratio[u])) continue;
    const char *card = kg_hist_card(&c->h->runs[u]);
    int seen = 0;
    for (size_t v = from; v < u && !seen; v++) seen = !isnan(s->ratio[v]) && !strcmp(kg_hist_card(&c->h->runs[v]), card);
    if (!seen) return u;
  }
  return hi + 1;
}

/* Scores one segment [from, to) of series si; alarms (at most one each way)
 * go to out. An acknowledged alarm ends the segment: *restart is its change
 * night, where the cell is watched again with a new level (else to). */
static int scan_segment(const scan_ctx *c, kg_series *s, size_t si, size_t from, size_t to, alarms *out,
                        size_t *restart) {
  *restart = to;
  size_t seen = 0, watch = to, wu = c->o->warmup < 1 ? 1 : c->o->warmup > 64 ? 64 : (size_t)c->o->warmup;
  double warm[64];
  for (size_t t = from; t < to && seen < wu; t++)
    if (!isnan(s->ratio[t])) {
      warm[seen++] = log(s->ratio[t]);
      if (seen == wu) watch = t + 1;
    }
  if (seen < wu) return 0; /* too young to watch */
  double mu0 = kg_median(warm, seen), sigma = robust_sigma(s->ratio, from, to);
  /* sigma floored by the cells of its size (a few quiet nights must not make a
   * hair trigger) and by the step over delta_max (a spread below that, one
   * card's nights, would make a runner's own offsets of a few tenths of a
   * percent a step) */
  size_t bytes = s->n * kg_dtype_get(s->dtype)->size;
  double fl = fmax(c->floor_by_series[si], kg_cusum_step(c->o, bytes) / c->o->delta_max), k, clip, hh;
  if (!(sigma >= fl)) sigma = fl;
  if (!(sigma > 0)) return 0;
  kg_cusum_tune(c->o, sigma, bytes, &k, &clip, &hh);
  s->sigma = sigma, s->level = exp(mu0), s->k = k, s->h = hh;
  double up = 0, down = 0;
  size_t up0 = watch, down0 = watch; /* the first night after the last zero */
  int fired_up = 0, fired_down = 0;
  for (size_t t = watch; t < to; t++) {
    if (isnan(s->ratio[t])) continue;
    double z = (log(s->ratio[t]) - mu0) / sigma;
    z = z > clip ? clip : z < -clip ? -clip : z;
    if (up == 0) up0 = t;
    if (down == 0) down0 = t;
    up = fmax(0, up + z - k), down = fmax(0, down - z - k);
    s->up[t] = up, s->down[t] = down, s->z[t] = z;
    for (int dir = 0; dir < 2; dir++) {
      int *fired = dir ? &fired_down : &fired_up;
      size_t fb = dir ? down0 : up0;
      if (*fired || (dir ? down : up) <= hh) continue;
      *fired = 1;
      size_t lg = prev_night(s, fb), card = new_card_night(c, s, from, fb, t);
      int ack = acknowledged(c, s, lg, t);
      alarm a = {si, fb, lg, t, dir ? KG_FIND_IMPROVEMENT : KG_FIND_REGRESSION, ack, exp(mu0), NAN};
      if (card <= t) a.kind = KG_FIND_ENVIRONMENT, a.first_bad = card, a.last_good = prev_night(s, card);
      a.after = median_ratio(s, a.first_bad, ack || card <= t ? t + 1 : to);
      if (push_alarm(out, a)) return -1;
      if (ack || card <= t) { /* watched again from there, with a new level */
        *restart = card <= t ? card : fb;
        return 0;
      }
    }
  }
  return 0;
}

/* Fills the series' values and scans every segment. */
static int scan_series(const scan_ctx *c, kg_series *s, size_t si, alarms *out) {
  const kg_history *h = c->h;
  size_t from = h->n;
  for (size_t t = 0; t < h->n; t++) {
    if (!isnan(s->ratio[t]) && from == h->n) from = t;
  }
  while (from < h->n) {
    const char *sha = h->runs[from].paired.ref_sha256;
    size_t to = segment_end(c, s, from, sha), next;
    if (scan_segment(c, s, si, from, to, out, &next)) return -1;
    from = next;
    while (from < h->n && isnan(s->ratio[from])) from++;
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

/* Per series, the median sigma of the series of its size (bytes per element
 * differ, but the nightly's noise follows the element count's launch shape). */
static double *sigma_floors(const kg_series *s, size_t n, size_t nruns) {
  double *own = malloc((n ? n : 1) * sizeof *own), *fl = malloc((n ? n : 1) * sizeof *fl);
  double *tmp = malloc((n ? n : 1) * sizeof *tmp);
  if (!own || !fl || !tmp) {
    free(own), free(fl), free(tmp);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) own[i] = robust_sigma(s[i].ratio, 0, nruns);
  for (size_t i = 0; i < n; i++) {
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
      if (s[j].n == s[i].n && !isnan(own[j])) tmp[m++] = own[j];
    fl[i] = m ? kg_median(tmp, m) : NAN;
  }
  free(own), free(tmp);
  return fl;
}

/* ---- environment and health ------------------------------------------------------ */

/* Per night, whether the machine rather than the code moved: the control
 * alarmed, or at least env_share of the night's watched cells sit beyond 2
 * sigma on one side. */
static void environment_nights(const kg_detection *d, const alarms *ctl, const kg_history *h, double share,
                               unsigned char *env) {
  for (size_t i = 0; i < ctl->n; i++)
    for (size_t t = ctl->a[i].first_bad; t <= ctl->a[i].at; t++) env[t] = 1;
  for (size_t t = 0; t < h->n; t++) {
    size_t watched = 0, hi = 0, lo = 0;
    for (size_t i = 0; i < d->nseries; i++) {
      double z = d->series[i].z[t];
      if (isnan(z)) continue;
      watched++, hi += z > 2, lo += z < -2;
    }
    if (watched >= 8 && (hi >= share * watched || lo >= share * watched)) env[t] = 1;
  }
}

/* Whether a night between an alarm's change night and the alarm itself was the environment's. */
static int in_environment(const unsigned char *env, const alarm *a) {
  for (size_t t = a->first_bad; t <= a->at; t++)
    if (env[t]) return 1;
  return 0;
}

/* The latest night's reference against its card's earlier nights: the
 * median over cells of base_us / that cell's median on the card. */
static int health_finding(const kg_history *h, double pct, kg_finding *f) {
  if (!h->n) return 0;
  size_t last = h->n - 1;
  const kg_hist_run *now = &h->runs[last];
  const char *card = kg_hist_card(now);
  if (!now->paired.has || !card[0]) return 0;
  size_t nc = now->paired.n, m = 0, nights = 0;
  double *rel = malloc((nc ? nc : 1) * sizeof *rel), *past = malloc((h->n ? h->n : 1) * sizeof *past);
  if (!rel || !past) return free(rel), free(past), -1;
  for (size_t t = 0; t < last; t++) nights += !strcmp(kg_hist_card(&h->runs[t]), card) && h->runs[t].paired.has;
  for (size_t i = 0; nights >= 3 && i < nc; i++) {
    const kg_hist_pcell *c = &now->paired.cells[i];
    size_t k = 0;
    for (size_t t = 0; t < last; t++) {
      const kg_hist_run *r = &h->runs[t];
      if (strcmp(kg_hist_card(r), card) || strcmp(r->paired.ref_sha256, now->paired.ref_sha256)) continue;
      const kg_hist_pcell *e = kg_hist_pfind(r->paired.cells, r->paired.n, c->variant, c->dtype, c->n);
      if (e) past[k++] = e->base_us;
    }
    if (k >= 3) rel[m++] = c->base_us / kg_median(past, k);
  }
  double r = m ? kg_median(rel, m) : NAN;
  free(rel), free(past);
  if (!(r > 1 + pct / 100)) return 0;
  memset(f, 0, sizeof *f);
  f->kind = KG_FIND_HEALTH, f->first_bad = f->last_good = f->alarm = last;
  snprintf(f->note, sizeof f->note,
           "the reference ran %.1f %% slower on card %s than on its %zu earlier nights (median of %zu cells): the "
           "machine changed, not the code",
           100 * (r - 1), card, nights, m);
  return 1;
}

/* ---- grouping ---------------------------------------------------------------------- */

static int alarm_order(const void *pa, const void *pb) {
  const alarm *a = pa, *b = pb;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->acknowledged != b->acknowledged) return a->acknowledged - b->acknowledged;
  if (a->first_bad != b->first_bad) return a->first_bad > b->first_bad ? -1 : 1; /* newest first */
  return a->series < b->series ? -1 : a->series > b->series;
}

/* Alarms of one kind, acknowledgement and change night become one finding. */
static int group(kg_detection *d, alarms *al) {
  if (al->n) qsort(al->a, al->n, sizeof *al->a, alarm_order);
  for (size_t i = 0; i < al->n;) {
    size_t j = i;
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
      const kg_series *s = &d->series[al->a[k].series];
      kg_find_cell *c = &f->cells[f->ncells++];
      snprintf(c->variant, sizeof c->variant, "%s", s->variant);
      c->dtype = s->dtype, c->n = s->n, c->before = al->a[k].before, c->after = al->a[k].after;
      if (al->a[k].at < f->alarm) f->alarm = al->a[k].at;
      if (al->a[k].last_good < f->last_good) f->last_good = al->a[k].last_good;
    }
    if (f->kind == KG_FIND_ENVIRONMENT)
      snprintf(f->note, sizeof f->note, "%zu cell(s) moved when the runner changed card, the control moved, or a "
               "quarter of the cells moved together: the environment, not a commit", f->ncells);
    if (f->kind == KG_FIND_REGRESSION && !f->acknowledged) d->open_regressions++;
    i = j;
  }
  return 0;
}

/* ---- the whole history ---------------------------------------------------------------- */

static int detect_cells(const kg_history *h, int control, const scan_ctx *base, kg_series **series, size_t *nseries,
                        alarms *al) {
  size_t n;
  kg_hist_pcell *keys = all_cells(h, control, &n);
  if (!keys) return -1;
  kg_series *s = calloc(n ? n : 1, sizeof *s);
  int rc = s ? 0 : -1;
  for (size_t i = 0; !rc && i < n; i++) rc = fill_series(h, &keys[i], control, &s[i]);
  free(keys);
  double *fl = rc ? NULL : sigma_floors(s, n, h->n);
  if (!fl) rc = -1;
  scan_ctx c = *base;
  c.floor_by_series = fl;
  for (size_t i = 0; !rc && i < n; i++) rc = scan_series(&c, &s[i], i, al);
  free(fl);
  *series = s, *nseries = s ? n : 0;
  return rc;
}

int kg_detect(const kg_history *h, const kg_acks *acks, const kg_detect_opts *o, kg_detection *d) {
  memset(d, 0, sizeof *d);
  scan_ctx c = {h, acks, o, NULL};
  alarms al = {0}, ctl = {0};
  kg_series *cs = NULL;
  size_t ncs = 0;
  unsigned char *env = calloc(h->n ? h->n : 1, 1);
  int rc = env ? 0 : -1;
  if (!rc) rc = detect_cells(h, 0, &c, &d->series, &d->nseries, &al);
  if (!rc) rc = detect_cells(h, 1, &c, &cs, &ncs, &ctl);
  if (!rc) {
    environment_nights(d, &ctl, h, o->env_share, env);
    for (size_t i = 0; i < al.n; i++)
      if (al.a[i].kind == KG_FIND_REGRESSION && in_environment(env, &al.a[i])) al.a[i].kind = KG_FIND_ENVIRONMENT;
    rc = group(d, &al);
  }
  kg_finding hf;
  int got = rc ? 0 : health_finding(h, o->health_pct, &hf);
  if (got < 0) rc = -1;
  if (got > 0) {
    kg_finding *more = realloc(d->find, (d->nfind + 1) * sizeof *more);
    if (!more) rc = -1;
    else d->find = more, d->find[d->nfind++] = hf;
  }
  for (size_t i = 0; i < ncs; i++) series_free(&cs[i]);
  free(cs), free(env), free(al.a), free(ctl.a);
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
