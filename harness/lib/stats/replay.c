/* The detector's calibration on recorded nights (replay.h). */
#include "replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "stats.h"
#include "verdict.h"

static const double k_steps[KG_REPLAY_STEPS] = {0.0025, 0.005, 0.01, 0.02, 0.05};
static const double k_pool_shares[KG_REPLAY_POOLS] = {0.25, 0.5, 1};

kg_replay_opts kg_replay_defaults(void) {
  return (kg_replay_opts){.seed = 1, .series = 200, .nights = 60, .plants = 200, .within = 3, .scale = 1,
                          .detect = kg_detect_defaults()};
}

/* splitmix64: a seeded, portable stream, so a calibration reruns exactly. */
static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static size_t pick(uint64_t *s, size_t n) { return (size_t)(next(s) % n); }

typedef struct ctx {
  const kg_history *pool;
  const kg_replay_opts *o;
  uint64_t rng;
  size_t *all;          /* 0 .. pool->n */
  kg_hist_pcell *cells; /* the first night's cells: the keys plants choose from */
  size_t ncells;
  double *median;       /* per key, its median log ratio over the pool (the centre of scale) */
  double *eff;          /* [night * ncells + key]: the night's card's offset, shrunk (card_effects) */
  unsigned *hits;       /* per key, plants flagged (a row's tally) */
  unsigned *legacy_hits;
} ctx;

/* ---- synthetic histories ------------------------------------------------------- */

static void slow(kg_hist_pcell *e, double f) {
  if (e) e->ratio *= f, e->lo *= f, e->hi *= f, e->head_us *= f;
}

static void synth_free(kg_history *h) {
  for (size_t t = 0; t < h->n; t++) free(h->runs[t].paired.cells);
  free(h->runs);
  memset(h, 0, sizeof *h);
}

static size_t key_index(const ctx *c, const kg_hist_pcell *e) {
  const kg_hist_pcell *k = bsearch(e, c->cells, c->ncells, sizeof *c->cells, kg_hist_pcell_cmp);
  return k ? (size_t)(k - c->cells) : c->ncells;
}

/* Scales a cell's distance from its pool median (log scale) by f. */
static void scale_cell(kg_hist_pcell *e, double median, double f) {
  double x = log(e->ratio), g = exp(median + (x - median) * f) / e->ratio;
  e->ratio *= g, e->lo *= g, e->hi *= g, e->head_us *= g;
}

/* The nights idx[0 .. len) of the pool as a history of consecutive nights;
 * each night's cells are copied (and scaled), so a plant may change them.
 * as: NULL, or per night a pool night whose card the night moves to (its
 * own card's offset taken out, that card's put in; SIZE_MAX: stays). */
static int synth_as(const ctx *c, const size_t *idx, const size_t *as, size_t len, kg_history *h) {
  h->n = 0;
  if (!(h->runs = calloc(len ? len : 1, sizeof *h->runs))) return -1;
  for (size_t t = 0; t < len; t++, h->n++) {
    const kg_hist_run *src = &c->pool->runs[idx[t]];
    kg_hist_run *r = &h->runs[t];
    r->dev = src->dev, r->hot = src->hot, r->paired = src->paired;
    r->paired.control = NULL, r->paired.ncontrol = 0;
    snprintf(r->date, sizeof r->date, "2026-01-%02uT%02u:17:00Z", (unsigned)(t / 24 % 28 + 1), (unsigned)(t % 24));
    snprintf(r->commit, sizeof r->commit, "%07zx", 0x1000000 + t);
    size_t bytes = src->paired.n * sizeof *r->paired.cells;
    if (!(r->paired.cells = malloc(bytes ? bytes : 1))) return synth_free(h), -1;
    if (bytes) memcpy(r->paired.cells, src->paired.cells, bytes);
    for (size_t i = 0; c->o->scale != 1 && i < r->paired.n; i++) {
      size_t k = key_index(c, &r->paired.cells[i]);
      if (k < c->ncells) scale_cell(&r->paired.cells[i], c->median[k], c->o->scale);
    }
    for (size_t i = 0; as && as[t] != SIZE_MAX && i < r->paired.n; i++) {
      size_t k = key_index(c, &r->paired.cells[i]);
      if (k < c->ncells) slow(&r->paired.cells[i], exp(c->eff[as[t] * c->ncells + k] - c->eff[idx[t] * c->ncells + k]));
    }
  }
  return 0;
}

static int synth(const ctx *c, const size_t *idx, size_t len, kg_history *h) { return synth_as(c, idx, NULL, len, h); }

static size_t *draw(uint64_t *s, const size_t *from, size_t nfrom, size_t len) {
  size_t *idx = malloc((len ? len : 1) * sizeof *idx);
  for (size_t t = 0; idx && t < len; t++) idx[t] = from[pick(s, nfrom)];
  return idx;
}

static kg_hist_pcell *cell_at(kg_history *h, size_t t, const kg_hist_pcell *key) {
  kg_hist_paired *p = &h->runs[t].paired;
  return (kg_hist_pcell *)kg_hist_pfind(p->cells, p->n, key->variant, key->dtype, key->n);
}

/* The aim at a cell's size: the design step (half the gate's minimum effect). */
static double aim(const ctx *c, const kg_hist_pcell *key) {
  return kg_cusum_step(&c->o->detect, key->n * kg_dtype_get(key->dtype)->size) > 0
             ? expm1(kg_cusum_step(&c->o->detect, key->n * kg_dtype_get(key->dtype)->size))
             : 0;
}

/* ---- what the detector said ----------------------------------------------------- */

static int same_cell(const kg_find_cell *c, const kg_hist_pcell *key) {
  return c->dtype == key->dtype && c->n == key->n && !strcmp(c->variant, key->variant);
}

/* The earliest regression alarm on key: its night and estimated first bad night; 0 when none. */
static int alarm_on(const kg_detection *d, const kg_hist_pcell *key, size_t *at, size_t *first_bad) {
  int got = 0;
  for (size_t i = 0; i < d->nfind; i++) {
    const kg_finding *f = &d->find[i];
    if (f->kind != KG_FIND_REGRESSION) continue;
    for (size_t k = 0; k < f->ncells; k++)
      if (same_cell(&f->cells[k], key) && (!got || f->alarm < *at)) got = 1, *at = f->alarm, *first_bad = f->first_bad;
  }
  return got;
}

/* Per key, the first bad night of the regression finding that holds it (SIZE_MAX: none). */
static void regression_nights(const ctx *c, const kg_detection *d, size_t *fb) {
  for (size_t k = 0; k < c->ncells; k++) fb[k] = SIZE_MAX;
  for (size_t i = 0; i < d->nfind; i++) {
    const kg_finding *f = &d->find[i];
    if (f->kind != KG_FIND_REGRESSION) continue;
    for (size_t j = 0; j < f->ncells; j++) {
      kg_hist_pcell e = {.dtype = f->cells[j].dtype, .n = f->cells[j].n};
      snprintf(e.variant, sizeof e.variant, "%s", f->cells[j].variant);
      size_t k = key_index(c, &e);
      if (k < c->ncells && (fb[k] == SIZE_MAX || f->first_bad > fb[k])) fb[k] = f->first_bad;
    }
  }
}

/* The night key's own CUSUM first crossed its threshold at or after t0 (SIZE_MAX: never). */
static size_t crossed(const kg_detection *d, const kg_hist_pcell *key, size_t t0, size_t nruns) {
  for (size_t i = 0; i < d->nseries; i++) {
    const kg_series *s = &d->series[i];
    if (s->dtype != key->dtype || s->n != key->n || strcmp(s->variant, key->variant)) continue;
    for (size_t t = t0; t < nruns; t++)
      if (s->up[t] > s->h) return t;
    return SIZE_MAX;
  }
  return SIZE_MAX;
}

/* The old rule, for comparison: a case whose absolute time moved beyond its
 * size class's tolerance since the night before (kg_history_steps also asks
 * for separated quartiles, so it flags no more than this). */
static int old_step(const kg_history *h, size_t t, const kg_hist_pcell *key) {
  const kg_hist_paired *a = &h->runs[t - 1].paired, *b = &h->runs[t].paired;
  const kg_hist_pcell *x = kg_hist_pfind(a->cells, a->n, key->variant, key->dtype, key->n);
  const kg_hist_pcell *y = kg_hist_pfind(b->cells, b->n, key->variant, key->dtype, key->n);
  if (!x || !y) return 0;
  double tol = kg_tolerance(key->n * kg_dtype_get(key->dtype)->size, 0);
  return fabs(y->head_us / x->head_us - 1) > tol;
}

/* ---- the runs ------------------------------------------------------------------- */

/* A plant's series: 30 nights, the step at a night after the warm-up and a few watched nights. */
enum { PLANT_NIGHTS = 30 };

static size_t plant_night(ctx *c) {
  size_t first = (size_t)c->o->detect.warmup + 4, last = PLANT_NIGHTS - (size_t)c->o->within - 1;
  return first + pick(&c->rng, last - first + 1);
}

/* The A/A series: false alarms of both detectors, the detector before and the old rule. */
static int aa_series(ctx *c, kg_replay_result *r) {
  size_t cells = 0, pooled = 0, legacy = 0, old = 0, len = (size_t)c->o->nights;
  kg_detect_opts lo = kg_detect_legacy();
  for (int i = 0; i < c->o->series; i++) {
    size_t *idx = draw(&c->rng, c->all, c->pool->n, len);
    kg_history h;
    kg_detection d, e;
    if (!idx || synth(c, idx, len, &h)) return free(idx), -1;
    free(idx);
    if (kg_detect(&h, NULL, &c->o->detect, &d)) return synth_free(&h), -1;
    cells += d.cell_alarms, pooled += d.pooled_alarms;
    r->fa_series_with_any += d.cell_alarms + d.pooled_alarms > 0;
    kg_detection_free(&d);
    if (!c->o->aim_only) {
      if (kg_detect(&h, NULL, &lo, &e)) return synth_free(&h), -1;
      legacy += e.cell_alarms;
      kg_detection_free(&e);
      for (size_t t = 1; t < h.n; t++)
        for (size_t k = 0; k < c->ncells; k++) old += (size_t)old_step(&h, t, &c->cells[k]);
    }
    synth_free(&h);
  }
  double n = c->o->series > 0 ? c->o->series : 1;
  r->fa_cells = (double)cells / n, r->fa_pooled = (double)pooled / n;
  r->fa_legacy = (double)legacy / n, r->fa_old = (double)old / n;
  return 0;
}

/* Tallies which keys of sel (m) the detection flagged as a regression within
 * `within` nights of t0 into hits; delays and right nights into the row's
 * sums when row is not NULL. */
static void tally(ctx *c, const kg_detection *d, size_t nruns, const size_t *sel, size_t m, size_t t0,
                  unsigned *hits, double *delays, size_t *nd, size_t *right) {
  size_t fb[c->ncells ? c->ncells : 1];
  regression_nights(c, d, fb);
  for (size_t j = 0; j < m; j++) {
    size_t k = sel[j], at = crossed(d, &c->cells[k], t0, nruns);
    if (fb[k] == SIZE_MAX || at == SIZE_MAX || at - t0 + 1 > (size_t)c->o->within) continue;
    hits[k]++;
    if (delays) delays[(*nd)++] = (double)(at - t0 + 1), *right += fb[k] == t0;
  }
}

/* The step planted into every cell of size n from t0 of series idx, the
 * history cut `within` nights after the step (what the night of the alarm
 * sees), detected by both detectors (the pooled one off: this is each
 * cell's own power). */
static int step_series(ctx *c, const size_t *idx, const size_t *as, size_t t0, const size_t *sel, size_t m, double step,
                       int legacy, double *delays, size_t *nd, size_t *right, size_t *old) {
  size_t len = t0 + (size_t)c->o->within;
  kg_history h;
  if (synth_as(c, idx, as, len, &h)) return -1;
  for (size_t t = t0; t < len; t++)
    for (size_t j = 0; j < m; j++)
      slow(cell_at(&h, t, &c->cells[sel[j]]), 1 + (step > 0 ? step : aim(c, &c->cells[sel[j]])));
  kg_detect_opts o = c->o->detect, lo = kg_detect_legacy();
  o.pooled = 0;
  kg_detection d;
  if (kg_detect(&h, NULL, &o, &d)) return synth_free(&h), -1;
  tally(c, &d, len, sel, m, t0, c->hits, delays, nd, right);
  kg_detection_free(&d);
  if (legacy) {
    if (kg_detect(&h, NULL, &lo, &d)) return synth_free(&h), -1;
    tally(c, &d, len, sel, m, t0, c->legacy_hits, NULL, NULL, NULL);
    kg_detection_free(&d);
  }
  for (size_t j = 0; old && j < m; j++)
    for (size_t t = t0; t < len; t++)
      if (old_step(&h, t, &c->cells[sel[j]])) {
        (*old)++;
        break;
      }
  synth_free(&h);
  return 0;
}

static double share_at_95(const unsigned *hits, const size_t *sel, size_t m, int plants) {
  size_t ok = 0;
  for (size_t j = 0; j < m; j++) ok += hits[sel[j]] >= 0.95 * plants;
  return m ? (double)ok / (double)m : NAN;
}

static double mean_p(const unsigned *hits, const size_t *sel, size_t m, int plants) {
  double sum = 0;
  for (size_t j = 0; j < m; j++) sum += hits[sel[j]];
  return m && plants ? sum / (double)m / plants : NAN;
}

static int step_row(ctx *c, size_t n, double step, kg_replay_row *row) {
  size_t sel[c->ncells ? c->ncells : 1], m = 0, nd = 0, right = 0, old = 0;
  for (size_t k = 0; k < c->ncells; k++)
    if (c->cells[k].n == n) sel[m++] = k;
  int plants = c->o->plants, legacy = !c->o->aim_only;
  double *delays = malloc((m ? m : 1) * (size_t)(plants > 0 ? plants : 1) * sizeof *delays);
  if (!delays) return -1;
  memset(c->hits, 0, c->ncells * sizeof *c->hits), memset(c->legacy_hits, 0, c->ncells * sizeof *c->hits);
  *row = (kg_replay_row){.n = n, .step = step > 0 || !m ? step : aim(c, &c->cells[sel[0]]), .plants = plants,
                         .cells = (int)m};
  for (int i = 0; m && i < plants; i++) {
    size_t t0 = plant_night(c), *idx = draw(&c->rng, c->all, c->pool->n, PLANT_NIGHTS);
    int rc = idx ? step_series(c, idx, NULL, t0, sel, m, step, legacy, delays, &nd, &right, legacy ? &old : NULL) : -1;
    free(idx);
    if (rc) return free(delays), -1;
  }
  row->p = mean_p(c->hits, sel, m, plants), row->cells_at_95 = share_at_95(c->hits, sel, m, plants);
  row->legacy_p = mean_p(c->legacy_hits, sel, m, plants);
  row->legacy_cells_at_95 = share_at_95(c->legacy_hits, sel, m, plants);
  row->old_p = m && plants ? (double)old / (double)m / plants : NAN;
  row->right_night = nd ? (double)right / (double)nd : NAN;
  row->aim = m && fabs(row->step - aim(c, &c->cells[sel[0]])) < 1e-12;
  row->delay_median = nd ? kg_median(delays, nd) : NAN;
  free(delays);
  return 0;
}

/* Whether any of keys sel (m) sits in a regression finding whose alarm is in [t0, t0 + within). */
static int variant_flagged(ctx *c, const kg_detection *d, const size_t *sel, size_t m, size_t t0) {
  for (size_t j = 0; j < m; j++) {
    size_t at, fb;
    if (alarm_on(d, &c->cells[sel[j]], &at, &fb) && at >= t0 && at - t0 < (size_t)c->o->within) return 1;
  }
  return 0;
}

/* A step of `share` of the aim in every cell of one random variant: flagged
 * with the pooled detector, and by the cells' own detectors alone. */
static int pool_row(ctx *c, double share, kg_replay_pool_row *row) {
  *row = (kg_replay_pool_row){.share = share, .plants = c->o->plants};
  size_t sel[c->ncells ? c->ncells : 1], pooled = 0, cells = 0;
  for (int i = 0; i < c->o->plants; i++) {
    const char *v = c->cells[pick(&c->rng, c->ncells)].variant;
    size_t m = 0, t0 = plant_night(c), len = t0 + (size_t)c->o->within;
    for (size_t k = 0; k < c->ncells; k++)
      if (!strcmp(c->cells[k].variant, v)) sel[m++] = k;
    size_t *idx = draw(&c->rng, c->all, c->pool->n, PLANT_NIGHTS);
    kg_history h;
    if (!idx || synth(c, idx, len, &h)) return free(idx), -1;
    free(idx);
    for (size_t t = t0; t < len; t++)
      for (size_t j = 0; j < m; j++) slow(cell_at(&h, t, &c->cells[sel[j]]), 1 + share * aim(c, &c->cells[sel[j]]));
    for (int with = 0; with < 2; with++) {
      kg_detect_opts o = c->o->detect;
      o.pooled = with;
      kg_detection d;
      if (kg_detect(&h, NULL, &o, &d)) return synth_free(&h), -1;
      int got = variant_flagged(c, &d, sel, m, t0);
      with ? (pooled += got) : (cells += got);
      kg_detection_free(&d);
    }
    synth_free(&h);
  }
  row->pooled_p = c->o->plants ? (double)pooled / c->o->plants : NAN;
  row->cells_p = c->o->plants ? (double)cells / c->o->plants : NAN;
  return 0;
}

/* A runner that changes card on night `half`: before it, nights of any card
 * but b's; from it, nights of card b: any recorded night, moved to b's card
 * (as[t] = b; card_effects). A card's own 1-3 recorded nights would repeat
 * the same few deviations for 15 nights, a shift no card was measured to
 * have. 0: no night of another card. */
static int two_cards(ctx *c, size_t *idx, size_t *as, size_t len, size_t half) {
  const kg_history *p = c->pool;
  size_t first[p->n], na = 0, b = pick(&c->rng, p->n);
  for (size_t t = 0; t < p->n; t++)
    if (strcmp(kg_hist_card(&p->runs[t]), kg_hist_card(&p->runs[b]))) first[na++] = t;
  if (!na) return 0;
  for (size_t t = 0; t < len; t++) {
    idx[t] = t < half ? first[pick(&c->rng, na)] : pick(&c->rng, p->n);
    as[t] = t < half ? SIZE_MAX : b;
  }
  return 1;
}

/* The aim planted into every cell on the night the runner changed card. */
static int swap_plants(ctx *c, kg_replay_result *r) {
  size_t idx[PLANT_NIGHTS], as[PLANT_NIGHTS], sel[c->ncells ? c->ncells : 1], half = PLANT_NIGHTS / 2;
  for (size_t k = 0; k < c->ncells; k++) sel[k] = k;
  memset(c->hits, 0, c->ncells * sizeof *c->hits), memset(c->legacy_hits, 0, c->ncells * sizeof *c->hits);
  for (int i = 0; i < c->o->plants; i++) {
    if (!two_cards(c, idx, as, PLANT_NIGHTS, half)) continue;
    if (step_series(c, idx, as, half, sel, c->ncells, 0, 1, NULL, NULL, NULL, NULL)) return -1;
    r->swaps++;
  }
  r->swap_p = mean_p(c->hits, sel, c->ncells, r->swaps);
  r->swap_legacy_p = mean_p(c->legacy_hits, sel, c->ncells, r->swaps);
  return 0;
}

static void plant_blip(kg_history *h, const kg_hist_pcell *key, size_t t0, double s) {
  slow(cell_at(h, t0, key), 1 + s);
}
static void plant_ramp(kg_history *h, const kg_hist_pcell *key, size_t t0, double per_night) {
  for (size_t t = t0; t < h->n; t++) slow(cell_at(h, t, key), 1 + per_night * (double)(t - t0 + 1));
}
/* The cell's log ratio strays twice as far from its level (level: the median). */
static void plant_noise(kg_history *h, const kg_hist_pcell *key, size_t t0, double level) {
  for (size_t t = t0; t < h->n; t++) {
    kg_hist_pcell *e = cell_at(h, t, key);
    if (e) slow(e, e->ratio / level);
  }
}

/* Blips, ramps and a noisier cell: alarms (or flags) on the planted cell. */
static int shapes(ctx *c, kg_replay_result *r) {
  for (int kind = 0; kind < 3; kind++)
    for (int i = 0; i < c->o->plants; i++) {
      size_t key = pick(&c->rng, c->ncells), t0 = plant_night(c), at, fb;
      size_t *idx = draw(&c->rng, c->all, c->pool->n, PLANT_NIGHTS);
      kg_history h;
      kg_detection d;
      if (!idx || synth(c, idx, PLANT_NIGHTS, &h)) return free(idx), -1;
      free(idx);
      if (kind == 0) plant_blip(&h, &c->cells[key], t0, 0.05);
      if (kind == 1) plant_ramp(&h, &c->cells[key], t0, 0.001);
      if (kind == 2) plant_noise(&h, &c->cells[key], t0, exp(c->median[key]));
      if (kg_detect(&h, NULL, &c->o->detect, &d)) return synth_free(&h), -1;
      int got = alarm_on(&d, &c->cells[key], &at, &fb) && at >= t0;
      if (kind == 0) r->blips++, r->blip_alarms += got;
      if (kind == 1) r->ramps++, r->ramp_flagged += got && at - t0 + 1 <= 10;
      if (kind == 2) r->noisy++, r->noisy_alarms += got;
      kg_detection_free(&d);
      synth_free(&h);
    }
  return 0;
}

/* Series whose runner changes card half way (two_cards), nothing planted. */
static int card_swaps(ctx *c, kg_replay_result *r) {
  size_t idx[PLANT_NIGHTS], as[PLANT_NIGHTS];
  for (int i = 0; i < c->o->series; i++) {
    if (!two_cards(c, idx, as, PLANT_NIGHTS, PLANT_NIGHTS / 2)) continue;
    kg_history h;
    kg_detection d;
    if (synth_as(c, idx, as, PLANT_NIGHTS, &h)) return -1;
    if (kg_detect(&h, NULL, &c->o->detect, &d)) return synth_free(&h), -1;
    r->card_blocks++, r->card_block_alarms += d.cell_alarms + d.pooled_alarms > 0;
    kg_detection_free(&d);
    synth_free(&h);
  }
  return 0;
}

/* Per key, the median log ratio over the pool. */
static int medians(ctx *c) {
  double v[c->pool->n];
  for (size_t k = 0; k < c->ncells; k++) {
    size_t m = 0;
    for (size_t t = 0; t < c->pool->n; t++) {
      const kg_hist_paired *p = &c->pool->runs[t].paired;
      const kg_hist_pcell *e = kg_hist_pfind(p->cells, p->n, c->cells[k].variant, c->cells[k].dtype, c->cells[k].n);
      if (e) v[m++] = log(e->ratio);
    }
    c->median[k] = m ? kg_median(v, m) : 0;
  }
  return 0;
}

/* Sums of one cell's nights for the random-effects fit: its nights in units
 * of its own spread, grouped by card. */
typedef struct card_fit {
  double ssb, ssw, dfb, dfw, n0, cells;
} card_fit;

/* The cards of the pool's nights: per night, the first night of its card. */
static void card_of(const kg_history *p, size_t *card) {
  for (size_t t = 0; t < p->n; t++) {
    card[t] = t;
    for (size_t u = 0; u < t && card[t] == t; u++)
      if (!strcmp(kg_hist_card(&p->runs[u]), kg_hist_card(&p->runs[t]))) card[t] = u;
  }
}

static double night_x(const ctx *c, size_t t, size_t k) {
  const kg_hist_paired *p = &c->pool->runs[t].paired;
  const kg_hist_pcell *e = kg_hist_pfind(p->cells, p->n, c->cells[k].variant, c->cells[k].dtype, c->cells[k].n);
  return e ? log(e->ratio) : NAN;
}

/* Cell k's card means less its grand mean (mean[card], cnt[card]) and its
 * contribution to f; 0 when its nights show no spread or one card only. */
static int card_sums(const ctx *c, size_t k, const size_t *card, double *mean, double *cnt, card_fit *f) {
  size_t n = c->pool->n, N = 0, G = 0;
  double grand = 0, ss = 0, x[n];
  for (size_t t = 0; t < n; t++) mean[t] = cnt[t] = 0;
  for (size_t t = 0; t < n; t++)
    if (!isnan(x[t] = night_x(c, t, k))) mean[card[t]] += x[t], cnt[card[t]]++, grand += x[t], N++;
  if (N < 2) return 0;
  grand /= (double)N;
  double sumsq = 0;
  for (size_t t = 0; t < n; t++)
    if (cnt[t] > 0) mean[t] /= cnt[t], G++, sumsq += cnt[t] * cnt[t];
  for (size_t t = 0; t < n; t++)
    if (!isnan(x[t])) ss += (x[t] - grand) * (x[t] - grand);
  double v = ss / (double)(N - 1);
  if (!(v > 0) || G < 2) return 0;
  for (size_t t = 0; t < n; t++) {
    if (cnt[t] > 0) f->ssb += cnt[t] * (mean[t] - grand) * (mean[t] - grand) / v;
    if (!isnan(x[t])) f->ssw += (x[t] - mean[card[t]]) * (x[t] - mean[card[t]]) / v;
  }
  f->dfb += (double)(G - 1), f->dfw += (double)(N - G);
  f->n0 += ((double)N - sumsq / (double)N) / (double)(G - 1), f->cells++;
  for (size_t t = 0; t < n; t++) mean[t] -= cnt[t] > 0 ? grand : 0;
  return 1;
}

/* Each night's card offset per cell: the card's mean deviation shrunk by the
 * random-effects share its nights earn, w = n lambda / (n lambda + 1),
 * lambda = tau^2 / within from the method of moments over the cells of the
 * size (tau^2 < 0 is 0: no card offset, w = 0). A card swap in the replay
 * moves a night by these offsets (two_cards). */
static void card_effects(ctx *c, kg_replay_result *r) {
  size_t n = c->pool->n, card[n];
  double mean[n], cnt[n];
  card_of(c->pool, card);
  memset(c->eff, 0, n * c->ncells * sizeof *c->eff);
  for (size_t s = 0; s < r->ncard_sizes; s++) {
    card_fit f = {0};
    for (size_t k = 0; k < c->ncells; k++)
      if (c->cells[k].n == r->card_n[s]) card_sums(c, k, card, mean, cnt, &f);
    double msb = f.dfb > 0 ? f.ssb / f.dfb : NAN, msw = f.dfw > 0 ? f.ssw / f.dfw : NAN;
    double tau2 = f.cells > 0 ? fmax(0, (msb - msw) / (f.n0 / f.cells)) : NAN, lambda = tau2 / msw;
    r->card_share[s] = tau2 / (tau2 + msw);
    if (!(lambda > 0)) continue;
    for (size_t k = 0; k < c->ncells; k++) {
      if (c->cells[k].n != r->card_n[s] || !card_sums(c, k, card, mean, cnt, &(card_fit){0})) continue;
      for (size_t t = 0; t < n; t++) {
        double nb = cnt[card[t]], w = nb * lambda / (nb * lambda + 1);
        c->eff[t * c->ncells + k] = nb > 0 ? w * mean[card[t]] : 0;
      }
    }
  }
}

static int run_all(ctx *c, kg_replay_result *r) {
  size_t sizes[KG_REPLAY_SIZES], ns = 0;
  for (size_t k = 0; k < c->ncells; k++) {
    size_t j = 0;
    while (j < ns && sizes[j] != c->cells[k].n) j++;
    if (j == ns && ns < KG_REPLAY_SIZES) sizes[ns++] = c->cells[k].n;
    r->variants += !k || strcmp(c->cells[k].variant, c->cells[k - 1].variant);
  }
  r->ncard_sizes = ns;
  memcpy(r->card_n, sizes, ns * sizeof *sizes);
  card_effects(c, r);
  int rc = aa_series(c, r);
  for (size_t i = 0; !rc && i < ns; i++) {
    if (c->o->aim_only) {
      rc = step_row(c, sizes[i], 0, &r->rows[r->nrows++]);
      continue;
    }
    for (int s = 0; !rc && s < KG_REPLAY_STEPS; s++) rc = step_row(c, sizes[i], k_steps[s], &r->rows[r->nrows++]);
  }
  if (c->o->aim_only) return rc;
  for (int i = 0; !rc && i < KG_REPLAY_POOLS; i++) rc = pool_row(c, k_pool_shares[i], &r->pools[i]);
  if (!rc) rc = swap_plants(c, r);
  if (!rc) rc = shapes(c, r);
  if (!rc) rc = card_swaps(c, r);
  return rc;
}

int kg_replay(const kg_history *pool, const kg_replay_opts *o, kg_replay_result *r, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  size_t usable = 0;
  for (size_t t = 0; t < pool->n; t++) usable += pool->runs[t].paired.has && pool->runs[t].paired.n > 0;
  if (usable < 4 || usable != pool->n) {
    snprintf(err, errlen, "calibration needs at least 4 nights, each paired against the reference (%zu of %zu are)",
             usable, pool->n);
    return -1;
  }
  size_t nc = pool->runs[0].paired.n;
  ctx c = {pool, o, o->seed, malloc(pool->n * sizeof(size_t)), pool->runs[0].paired.cells, nc,
           malloc(nc * sizeof(double)), calloc(pool->n * nc + 1, sizeof(double)), calloc(nc, sizeof(unsigned)),
           calloc(nc, sizeof(unsigned))};
  int rc = c.all && c.median && c.eff && c.hits && c.legacy_hits ? 0 : -1;
  for (size_t t = 0; !rc && t < pool->n; t++) c.all[t] = t;
  r->pool = pool->n, r->cells = c.ncells;
  for (size_t t = 0; t < pool->n; t++) {
    size_t same = 0;
    for (size_t u = 0; u < t; u++) same += !strcmp(kg_hist_card(&pool->runs[u]), kg_hist_card(&pool->runs[t]));
    r->cards += same == 0;
  }
  if (!rc) rc = medians(&c);
  if (!rc) rc = run_all(&c, r);
  free(c.all), free(c.median), free(c.eff), free(c.hits), free(c.legacy_hits);
  if (rc) snprintf(err, errlen, "out of memory");
  return rc;
}

/* ---- Markdown -------------------------------------------------------------------- */

static void pct(FILE *f, double p) {
  if (isnan(p)) fputs("-", f);
  else fprintf(f, "%.1f %%", 100 * p);
}

static const char *size_name(size_t n, char *buf, size_t len) {
  int e = 0;
  while (e < 63 && ((size_t)1 << e) < n) e++;
  if (((size_t)1 << e) == n) snprintf(buf, len, "2^%d", e);
  else snprintf(buf, len, "%zu", n);
  return buf;
}

void kg_replay_markdown(FILE *f, const kg_replay_opts *o, const kg_replay_result *r) {
  const kg_detect_opts *d = &o->detect;
  char b[32];
  fprintf(f, "Replay of %zu recorded nights (%zu cells a night, %zu variants, %zu card(s)); seed %llu; noise scale "
             "%.3f. Cells: ARL0 %.0f nights, the step %.2f of the gate's minimum effect (delta %.0f-%.0f sigma); "
             "variants pooled: ARL0 %.0f, delta %.0f; warm-up %d nights.\n\n",
          r->pool, r->cells, r->variants, r->cards, (unsigned long long)o->seed, o->scale, d->arl0, d->design,
          d->delta_min, d->delta_max, d->arl0_pooled, d->pool_delta, d->warmup);
  fprintf(f, "False alarms (A/A, %d series of %d nights), per %d nights over all %zu cells: **%.3f** (cells %.3f, "
             "pooled variants %.3f; %d series with any); the detector before: %.3f; the old consecutive-run rule: "
             "%.1f.\n\n",
          o->series, o->nights, o->nights, r->cells, r->fa_cells + r->fa_pooled, r->fa_cells, r->fa_pooled,
          r->fa_series_with_any, r->fa_legacy, r->fa_old);
  fprintf(f, "| size | step | plants x cells | P flagged within %d nights | cells with P >= 0.95 | median delay "
             "(nights) | first bad night right | before: P | before: cells >= 0.95 | old rule: P |\n"
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
          o->within);
  for (size_t i = 0; i < r->nrows; i++) {
    const kg_replay_row *w = &r->rows[i];
    fprintf(f, "| %s | %.2f %% | %d x %d | ", size_name(w->n, b, sizeof b), 100 * w->step, w->plants, w->cells);
    pct(f, w->p), fputs(" | ", f), pct(f, w->cells_at_95), fputs(" | ", f);
    if (isnan(w->delay_median)) fputs("-", f);
    else fprintf(f, "%.0f", w->delay_median);
    fputs(" | ", f), pct(f, w->right_night), fputs(" | ", f), pct(f, w->legacy_p), fputs(" | ", f);
    pct(f, w->legacy_cells_at_95), fputs(" | ", f), pct(f, w->old_p), fputs(" |\n", f);
  }
  fprintf(f, "\nA step in every cell of one variant (each size at a share of its aim), flagged within %d nights:\n\n"
             "| share of the aim | plants | with the pooled detector | the cells' own detectors alone |\n"
             "|---:|---:|---:|---:|\n",
          o->within);
  for (int i = 0; i < KG_REPLAY_POOLS; i++) {
    fprintf(f, "| %.2f | %d | ", r->pools[i].share, r->pools[i].plants);
    pct(f, r->pools[i].pooled_p), fputs(" | ", f), pct(f, r->pools[i].cells_p), fputs(" |\n", f);
  }
  fprintf(f, "\nThe aim planted in every cell on the night the runner changed card (%d series): flagged as a "
             "regression within %d nights in ",
          r->swaps, o->within);
  pct(f, r->swap_p), fputs(" of cells (the detector before: ", f), pct(f, r->swap_legacy_p);
  fprintf(f, "). One-night +5 %% blips that alarmed: %d of %d. Ramps of +0.1 %% a night flagged within 10 nights: "
             "%d of %d. A cell whose spread doubles, alarms: %d of %d. Card swaps (15 nights of the other cards, then "
             "15 moved to one card by its offsets) with any alarm: %d of %d.\n",
          r->blip_alarms, r->blips, r->ramp_flagged, r->ramps, r->noisy_alarms, r->noisy, r->card_block_alarms,
          r->card_blocks);
  fputs("\nCard offsets (one-way random effects over the cards, each cell in units of its own spread): the card's "
        "share of a night's variance",
        f);
  for (size_t i = 0; i < r->ncard_sizes; i++) {
    fprintf(f, "%s %s ", i ? "," : "", size_name(r->card_n[i], b, sizeof b));
    if (isnan(r->card_share[i])) fputs("unmeasured (no card with two nights)", f);
    else pct(f, r->card_share[i]);
  }
  fputs(".\n", f);
}

void kg_replay_aim_markdown(FILE *f, int rounds, const kg_replay_opts *o, const kg_replay_result *r) {
  char b[32];
  for (size_t i = 0; i < r->nrows; i++) {
    const kg_replay_row *w = &r->rows[i];
    if (!w->aim) continue;
    fprintf(f, "| %d | %.3f | %s | %d x %d | ", rounds, o->scale, size_name(w->n, b, sizeof b), w->plants, w->cells);
    pct(f, w->p), fputs(" | ", f), pct(f, w->cells_at_95);
    fprintf(f, " | %.3f |\n", r->fa_cells + r->fa_pooled);
  }
}
