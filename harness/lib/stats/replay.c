/* The detector's calibration on recorded nights (replay.h). */
#include "replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "stats.h"
#include "verdict.h"

static const double k_steps[KG_REPLAY_STEPS] = {0.0025, 0.005, 0.01, 0.02, 0.05};

kg_replay_opts kg_replay_defaults(void) {
  return (kg_replay_opts){.seed = 1, .series = 200, .nights = 60, .plants = 200, .within = 3,
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

/* ---- synthetic histories ------------------------------------------------------- */

static void synth_free(kg_history *h) {
  for (size_t t = 0; t < h->n; t++) free(h->runs[t].paired.cells);
  free(h->runs);
  memset(h, 0, sizeof *h);
}

/* The nights idx[0 .. len) of pool as a history of consecutive nights; each
 * night's cells are copied, so a plant may change them. */
static int synth(const kg_history *pool, const size_t *idx, size_t len, kg_history *h) {
  h->n = 0;
  if (!(h->runs = calloc(len ? len : 1, sizeof *h->runs))) return -1;
  for (size_t t = 0; t < len; t++, h->n++) {
    const kg_hist_run *src = &pool->runs[idx[t]];
    kg_hist_run *r = &h->runs[t];
    r->dev = src->dev, r->hot = src->hot, r->paired = src->paired;
    r->paired.control = NULL, r->paired.ncontrol = 0;
    snprintf(r->date, sizeof r->date, "2026-01-01T03:17:00Z");
    snprintf(r->commit, sizeof r->commit, "%07zx", 0x1000000 + t);
    size_t bytes = src->paired.n * sizeof *r->paired.cells;
    if (!(r->paired.cells = malloc(bytes ? bytes : 1))) return synth_free(h), -1;
    if (bytes) memcpy(r->paired.cells, src->paired.cells, bytes);
  }
  return 0;
}

static size_t *draw(uint64_t *s, const size_t *from, size_t nfrom, size_t len) {
  size_t *idx = malloc((len ? len : 1) * sizeof *idx);
  for (size_t t = 0; idx && t < len; t++) idx[t] = from[pick(s, nfrom)];
  return idx;
}

static kg_hist_pcell *cell_at(kg_history *h, size_t t, const kg_hist_pcell *key) {
  kg_hist_paired *p = &h->runs[t].paired;
  return (kg_hist_pcell *)kg_hist_pfind(p->cells, p->n, key->variant, key->dtype, key->n);
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

static size_t regression_cells(const kg_detection *d) {
  size_t n = 0;
  for (size_t i = 0; i < d->nfind; i++) n += d->find[i].kind == KG_FIND_REGRESSION ? d->find[i].ncells : 0;
  return n;
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

typedef struct ctx {
  const kg_history *pool;
  const kg_replay_opts *o;
  uint64_t rng;
  size_t *all; /* 0 .. pool->n */
  kg_hist_pcell *cells; /* the first night's cells: the keys plants choose from */
  size_t ncells;
} ctx;

/* One synthetic series with plant applied from night t0 (plant may be NULL), detected. */
typedef void (*plant_fn)(kg_history *h, const kg_hist_pcell *key, size_t t0, double arg);

static int run_one(ctx *c, const size_t *idx, size_t len, plant_fn plant, const kg_hist_pcell *key, size_t t0,
                   double arg, kg_history *h, kg_detection *d) {
  if (synth(c->pool, idx, len, h)) return -1;
  if (plant) plant(h, key, t0, arg);
  kg_detect_opts o = c->o->detect;
  if (kg_detect(h, NULL, &o, d)) return synth_free(h), -1;
  return 0;
}

static void plant_step(kg_history *h, const kg_hist_pcell *key, size_t t0, double s) {
  for (size_t t = t0; t < h->n; t++) {
    kg_hist_pcell *e = cell_at(h, t, key);
    if (e) e->ratio *= 1 + s, e->lo *= 1 + s, e->hi *= 1 + s, e->head_us *= 1 + s;
  }
}
static void plant_blip(kg_history *h, const kg_hist_pcell *key, size_t t0, double s) {
  kg_hist_pcell *e = cell_at(h, t0, key);
  if (e) e->ratio *= 1 + s, e->lo *= 1 + s, e->hi *= 1 + s, e->head_us *= 1 + s;
}
static void plant_ramp(kg_history *h, const kg_hist_pcell *key, size_t t0, double per_night) {
  for (size_t t = t0; t < h->n; t++) {
    kg_hist_pcell *e = cell_at(h, t, key);
    double f = 1 + per_night * (double)(t - t0 + 1);
    if (e) e->ratio *= f, e->lo *= f, e->hi *= f, e->head_us *= f;
  }
}
/* The cell's log ratio strays twice as far from its level (level: the median). */
static void plant_noise(kg_history *h, const kg_hist_pcell *key, size_t t0, double level) {
  for (size_t t = t0; t < h->n; t++) {
    kg_hist_pcell *e = cell_at(h, t, key);
    if (!e) continue;
    double f = e->ratio / level;
    e->ratio *= f, e->lo *= f, e->hi *= f;
  }
}

/* The A/A series: false alarms of the detector and of the old rule. */
static int aa_series(ctx *c, kg_replay_result *r) {
  size_t alarms = 0, old = 0, len = (size_t)c->o->nights;
  for (int i = 0; i < c->o->series; i++) {
    size_t *idx = draw(&c->rng, c->all, c->pool->n, len);
    kg_history h;
    kg_detection d;
    if (!idx || run_one(c, idx, len, NULL, NULL, 0, 0, &h, &d)) return free(idx), -1;
    size_t a = regression_cells(&d);
    alarms += a, r->fa_series_with_any += a > 0;
    for (size_t t = 1; t < h.n; t++)
      for (size_t k = 0; k < c->ncells; k++) old += (size_t)old_step(&h, t, &c->cells[k]);
    kg_detection_free(&d);
    synth_free(&h);
    free(idx);
  }
  r->fa_per_series = (double)alarms / c->o->series;
  r->old_fa_per_series = (double)old / c->o->series;
  return 0;
}

/* A plant's series: 30 nights, the step at a night after the warm-up and a few watched nights. */
enum { PLANT_NIGHTS = 30 };

static size_t plant_night(ctx *c) {
  size_t first = (size_t)c->o->detect.warmup + 4, last = PLANT_NIGHTS - (size_t)c->o->within - 1;
  return first + pick(&c->rng, last - first + 1);
}

static int step_row(ctx *c, size_t n, double step, kg_replay_row *row) {
  size_t sel[c->ncells ? c->ncells : 1], m = 0;
  for (size_t k = 0; k < c->ncells; k++)
    if (c->cells[k].n == n) sel[m++] = k;
  double delays[c->o->plants > 0 ? c->o->plants : 1];
  *row = (kg_replay_row){.n = n, .step = step, .plants = c->o->plants};
  for (int i = 0; m && i < c->o->plants; i++) {
    const kg_hist_pcell *key = &c->cells[sel[pick(&c->rng, m)]];
    size_t t0 = plant_night(c), at, fb;
    size_t *idx = draw(&c->rng, c->all, c->pool->n, PLANT_NIGHTS);
    kg_history h;
    kg_detection d;
    if (!idx || run_one(c, idx, PLANT_NIGHTS, plant_step, key, t0, step, &h, &d)) return free(idx), -1;
    if (alarm_on(&d, key, &at, &fb) && at >= t0) {
      row->flagged_ever++;
      if (at - t0 + 1 <= (size_t)c->o->within) {
        delays[row->flagged++] = (double)(at - t0 + 1);
        row->right_night += fb == t0;
      }
    }
    for (size_t t = t0; t < t0 + (size_t)c->o->within && t < h.n; t++)
      if (old_step(&h, t, key)) {
        row->old_flagged++;
        break;
      }
    kg_detection_free(&d);
    synth_free(&h);
    free(idx);
  }
  row->delay_median = row->flagged ? kg_median(delays, (size_t)row->flagged) : NAN;
  return 0;
}

/* Blips, ramps and a noisier cell: alarms (or flags) on the planted cell. */
static int shapes(ctx *c, kg_replay_result *r) {
  int count = c->o->plants;
  for (int kind = 0; kind < 3; kind++)
    for (int i = 0; i < count; i++) {
      const kg_hist_pcell *key = &c->cells[pick(&c->rng, c->ncells)];
      size_t t0 = plant_night(c), at, fb;
      double arg = 0.05;
      plant_fn fn = plant_blip;
      if (kind == 1) fn = plant_ramp, arg = 0.001;
      if (kind == 2) {
        double v[c->pool->n ? c->pool->n : 1];
        size_t m = 0;
        for (size_t t = 0; t < c->pool->n; t++) {
          const kg_hist_paired *p = &c->pool->runs[t].paired;
          const kg_hist_pcell *e = kg_hist_pfind(p->cells, p->n, key->variant, key->dtype, key->n);
          if (e) v[m++] = e->ratio;
        }
        fn = plant_noise, arg = m ? kg_median(v, m) : 1;
      }
      size_t *idx = draw(&c->rng, c->all, c->pool->n, PLANT_NIGHTS);
      kg_history h;
      kg_detection d;
      if (!idx || run_one(c, idx, PLANT_NIGHTS, fn, key, t0, arg, &h, &d)) return free(idx), -1;
      int got = alarm_on(&d, key, &at, &fb) && at >= t0;
      if (kind == 0) r->blips++, r->blip_alarms += got;
      if (kind == 1) r->ramps++, r->ramp_flagged += got && at - t0 + 1 <= 10;
      if (kind == 2) r->noisy++, r->noisy_alarms += got;
      kg_detection_free(&d);
      synth_free(&h);
      free(idx);
    }
  return 0;
}

/* Series of one card's nights, then another card's: a runner swap. */
static int card_swaps(ctx *c, kg_replay_result *r) {
  const kg_history *p = c->pool;
  size_t first[p->n ? p->n : 1], second[p->n ? p->n : 1];
  for (int i = 0; i < c->o->series; i++) {
    size_t a = pick(&c->rng, p->n), b = pick(&c->rng, p->n), na = 0, nb = 0;
    for (size_t t = 0; t < p->n; t++) {
      if (!strcmp(kg_hist_card(&p->runs[t]), kg_hist_card(&p->runs[a]))) first[na++] = t;
      else if (!strcmp(kg_hist_card(&p->runs[t]), kg_hist_card(&p->runs[b]))) second[nb++] = t;
    }
    if (!nb) continue; /* the same card twice */
    size_t half = PLANT_NIGHTS / 2, idx[PLANT_NIGHTS];
    for (size_t t = 0; t < PLANT_NIGHTS; t++) idx[t] = t < half ? first[pick(&c->rng, na)] : second[pick(&c->rng, nb)];
    kg_history h;
    kg_detection d;
    if (run_one(c, idx, PLANT_NIGHTS, NULL, NULL, 0, 0, &h, &d)) return -1;
    r->card_blocks++, r->card_block_alarms += regression_cells(&d) > 0;
    kg_detection_free(&d);
    synth_free(&h);
  }
  return 0;
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
  ctx c = {pool, o, o->seed, malloc(pool->n * sizeof(size_t)), pool->runs[0].paired.cells, pool->runs[0].paired.n};
  if (!c.all) return snprintf(err, errlen, "out of memory"), -1;
  for (size_t t = 0; t < pool->n; t++) c.all[t] = t;
  r->pool = pool->n, r->cells = c.ncells;
  for (size_t t = 0; t < pool->n; t++) {
    size_t same = 0;
    for (size_t u = 0; u < t; u++) same += !strcmp(kg_hist_card(&pool->runs[u]), kg_hist_card(&pool->runs[t]));
    r->cards += same == 0;
  }
  size_t sizes[KG_REPLAY_SIZES], ns = 0;
  for (size_t k = 0; k < c.ncells; k++) {
    size_t j = 0;
    while (j < ns && sizes[j] != c.cells[k].n) j++;
    if (j == ns && ns < KG_REPLAY_SIZES) sizes[ns++] = c.cells[k].n;
  }
  int rc = aa_series(&c, r);
  for (size_t i = 0; !rc && i < ns; i++)
    for (int s = 0; !rc && s < KG_REPLAY_STEPS; s++) rc = step_row(&c, sizes[i], k_steps[s], &r->rows[r->nrows++]);
  if (!rc) rc = shapes(&c, r);
  if (!rc) rc = card_swaps(&c, r);
  free(c.all);
  if (rc) snprintf(err, errlen, "out of memory");
  return rc;
}

static void pct(FILE *f, int k, int of) {
  if (of) fprintf(f, "%.1f %%", 100.0 * k / of);
  else fputs("-", f);
}

void kg_replay_markdown(FILE *f, const kg_replay_opts *o, const kg_replay_result *r) {
  fprintf(f, "Replay of %zu recorded nights (%zu cells a night, %zu card(s)); seed %llu; ARL0 %.0f nights a cell, "
             "the step tuned for %.2f of the gate's minimum effect (delta %.0f-%.0f sigma), warm-up %d nights.\n\n",
          r->pool, r->cells, r->cards, (unsigned long long)o->seed, o->detect.arl0, o->detect.design,
          o->detect.delta_min, o->detect.delta_max, o->detect.warmup);
  fprintf(f, "False alarms (A/A, %d series of %d nights): %.3f regression alarms per %d nights across all cells "
             "(%d series with any); the old consecutive-run rule: %.1f.\n\n",
          o->series, o->nights, r->fa_per_series, o->nights, r->fa_series_with_any, r->old_fa_per_series);
  fprintf(f, "| size | step | plants | flagged within %d nights | median delay (nights) | first bad night right | "
             "flagged at all (of 30 nights) | old rule within %d |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n",
          o->within, o->within);
  for (size_t i = 0; i < r->nrows; i++) {
    const kg_replay_row *w = &r->rows[i];
    fprintf(f, "| %zu | %.2f %% | %d | ", w->n, 100 * w->step, w->plants);
    pct(f, w->flagged, w->plants);
    if (w->flagged) fprintf(f, " | %.0f | ", w->delay_median);
    else fputs(" | - | ", f);
    pct(f, w->right_night, w->flagged);
    fputs(" | ", f);
    pct(f, w->flagged_ever, w->plants);
    fputs(" | ", f);
    pct(f, w->old_flagged, w->plants);
    fputs(" |\n", f);
  }
  fprintf(f, "\nOne-night +5 %% blips that alarmed: %d of %d. Ramps of +0.1 %% a night flagged within 10 nights: "
             "%d of %d. A cell whose spread doubles, alarms: %d of %d. Card swaps (15 nights of one card, 15 of "
             "another) with any alarm: %d of %d.\n",
          r->blip_alarms, r->blips, r->ramp_flagged, r->ramps, r->noisy_alarms, r->noisy, r->card_block_alarms,
          r->card_blocks);
}
