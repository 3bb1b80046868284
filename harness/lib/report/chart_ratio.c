/* Chart 6, the ratio to the pinned reference per night: a panel per cell
 * (those in the detector's findings first, then the nearest to an alarm),
 * its intervals, accepted level and change points (plots/ratio.gp). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_night.h"
#include "dtype.h"
#include "label.h"
#include "severity.h"

/* The finding f holds (variant, dtype, n). */
static int finding_has(const kg_finding *f, const char *variant, kg_dtype dt, size_t n) {
  for (size_t i = 0; i < f->ncells; i++)
    if (f->cells[i].dtype == dt && f->cells[i].n == n && !strcmp(f->cells[i].variant, variant)) return 1;
  return 0;
}

static int series_in_findings(const kg_detection *d, const kg_series *s) {
  for (size_t i = 0; i < d->nfind; i++)
    if (finding_has(&d->find[i], s->variant, s->dtype, s->n)) return 1;
  return 0;
}

/* How near a series is to an alarm at its latest night: its larger CUSUM sum over the threshold. */
static double alarm_share(const kg_series *s, size_t nruns) {
  for (size_t j = nruns; j-- > 0;)
    if (isfinite(s->ratio[j])) {
      double m = fmax(isfinite(s->up[j]) ? s->up[j] : 0, isfinite(s->down[j]) ? s->down[j] : 0);
      return s->h > 0 ? m / s->h : m;
    }
  return -1;
}

/* The severity a finding is drawn in: an acknowledged one in the notice's grey. */
static kg_severity finding_severity(const kg_finding *f) {
  return f->acknowledged ? KG_SEV_NOTICE : kg_find_severity(f->kind);
}

typedef struct kg__pick {
  const kg_series *s;
  int found;    /* in a finding */
  double share; /* alarm_share */
} kg__pick;

/* Findings' cells first, then the nearest to an alarm, then ladder order. */
static int pick_cmp(const void *pa, const void *pb) {
  const kg__pick *a = pa, *b = pb;
  if (a->found != b->found) return b->found - a->found;
  if (a->share != b->share) return a->share > b->share ? -1 : 1;
  size_t ra = kg__rank_of(a->s->variant), rb = kg__rank_of(b->s->variant);
  return ra != rb ? (ra < rb ? -1 : 1) : a->s->n < b->s->n ? -1 : a->s->n > b->s->n;
}

/* Chart room: 2 rows of 4 panels stay readable at half a page's width. */
enum { KG__RATIO_PANELS = 8 };

/* The .dat block of one panel: a row per paired night, (ratio - 1) in %,
 * and the night's verdict (the report model's). */
static void ratio_block(FILE *f, const kg__trend *t, const kg_series *s) {
  fprintf(f, "# %s %s %zu\n", s->variant, kg_dtype_get(s->dtype)->name, s->n);
  char what[128], label[32];
  kg_size_label(s->n, label, sizeof label);
  snprintf(what, sizeof what, "%s, %s, n = %s", s->variant, kg_dtype_get(s->dtype)->name, label);
  for (size_t j = 0; j < t->nruns; j++) {
    size_t r = t->runs[j];
    fprintf(f, "%zu", j + 1);
    kg__dat_num(f, (s->ratio[r] - 1) * 100);
    kg__dat_num(f, (s->lo[r] - 1) * 100);
    kg__dat_num(f, (s->hi[r] - 1) * 100);
    kg__dat_verdict(f, t, r);
    char value[128];
    snprintf(value, sizeof value, "tonight / reference %+.2f %%, interval [%+.2f, %+.2f] %%", (s->ratio[r] - 1) * 100,
             (s->lo[r] - 1) * 100, (s->hi[r] - 1) * 100);
    kg__night_tip(f, t, r, what, value);
    fputc('\n', f);
  }
  fputs("\n\n", f);
}

/* A panel's y range: its points, intervals and level, at least +-0.5 %. */
static void ratio_range(FILE *g, const kg__trend *t, const kg_series *s, size_t i) {
  double lo = (s->level - 1) * 100, hi = lo;
  for (size_t j = 0; j < t->nruns; j++) {
    size_t r = t->runs[j];
    if (isfinite(s->lo[r])) lo = fmin(lo, (s->lo[r] - 1) * 100);
    if (isfinite(s->hi[r])) hi = fmax(hi, (s->hi[r] - 1) * 100);
  }
  double mid = (lo + hi) / 2, half = fmax((hi - lo) / 2 * 1.15, 0.5);
  char key[24];
  snprintf(key, sizeof key, "ylo%zu", i);
  kg__gp_num(g, key, mid - half);
  snprintf(key, sizeof key, "yhi%zu", i);
  kg__gp_num(g, key, mid + half);
  snprintf(key, sizeof key, "level%zu", i);
  kg__gp_num(g, key, isfinite(s->level) ? (s->level - 1) * 100 : NAN);
}

/* The change points of panel i: each finding's first bad night that names
 * its cell, as mark_panel<k>, mark_x<k>, mark_color<k>. */
static size_t ratio_marks(FILE *g, const kg__trend *t, const kg_detection *d, const kg_series *s, size_t i,
                          size_t nmarks) {
  for (size_t k = 0; k < d->nfind; k++) {
    const kg_finding *fd = &d->find[k];
    if (!finding_has(fd, s->variant, s->dtype, s->n)) continue;
    size_t x = 0;
    for (size_t j = 0; j < t->nruns; j++)
      if (t->runs[j] == fd->first_bad) x = j + 1;
    if (!x) continue;
    char key[24], rgb[16];
    nmarks++;
    snprintf(key, sizeof key, "mark_panel%zu", nmarks);
    kg__gp_num(g, key, (double)i);
    snprintf(key, sizeof key, "mark_x%zu", nmarks);
    kg__gp_num(g, key, (double)x - 0.5); /* between the last good night and the first bad */
    snprintf(rgb, sizeof rgb, "#%06x", kg_severity_get(finding_severity(fd))->ink);
    kg__gp_item(g, "mark_color", nmarks, rgb);
  }
  return nmarks;
}

static void ratio_vars(FILE *g, const kg__trend *t, const kg_dtype_info *di, size_t shown, size_t found,
                       size_t total) {
  const kg_hist_run *last = &t->h->runs[t->runs[t->nruns - 1]];
  size_t cols = shown < 4 ? shown : 4, rows = (shown + cols - 1) / cols;
  char first[48], lastd[48];
  kg_date_label(t->h->runs[t->runs[0]].date, first, sizeof first);
  kg_date_label(last->date, lastd, sizeof lastd);
  kg__gp_num(g, "npanels", (double)shown);
  kg__gp_num(g, "cols", (double)cols);
  kg__gp_num(g, "rows", (double)rows);
  kg__gp_num(g, "nruns", (double)t->nruns);
  kg__gp_num(g, "width", cols < 4 ? 420 * (double)cols + 80 : 1500);
  kg__gp_num(g, "height", 200 + 260 * (double)rows);
  kg__gp_str(g, "title", "%s sum: time against the pinned reference, per night (tonight / reference \u2212 1)",
             di->name);
  kg__gp_str(g, "subtitle", "%s \u00b7 %s to %s \u00b7 reference %s %s", last->dev.name, first, lastd,
         last->paired.ref_name[0] ? last->paired.ref_name : "(unnamed)", last->paired.ref_version);
  if (shown < total)
    kg__gp_str(g, "legend",
               "%zu of %zu cells: %zu in findings, then the nearest to an alarm (CUSUM over its threshold); "
               "%zu not shown \u00b7 bars: interval \u00b7 dashed: accepted level \u00b7 vertical: first bad night",
               shown, total, found < shown ? found : shown, total - shown);
  else
    kg__gp_str(g, "legend",
               "all %zu cells \u00b7 bars: interval \u00b7 dashed: accepted level \u00b7 vertical: first bad "
               "night",
               total);
}

static int ratio_draw(const kg__job *job, const kg__trend *t, const kg_detection *d, kg_dtype dt) {
  const kg_dtype_info *di = kg_dtype_get(dt);
  kg__pick *pick = malloc((d->nseries + 1) * sizeof *pick);
  size_t total = 0, found = 0;
  if (!pick) return kg__oom(job);
  for (size_t i = 0; i < d->nseries; i++) {
    const kg_series *s = &d->series[i];
    if (s->dtype != dt || alarm_share(s, t->h->n) < 0) continue; /* no night has the cell */
    pick[total] = (kg__pick){s, series_in_findings(d, s), alarm_share(s, t->h->n)};
    found += pick[total++].found;
  }
  qsort(pick, total, sizeof *pick, pick_cmp);
  size_t shown = total < KG__RATIO_PANELS ? total : KG__RATIO_PANELS;
  int rc = 0;
  kg__pair p;
  if (shown && !(rc = kg__pair_open(&p, job, di->name,
                                    "# kgate ratio to the pinned reference, %s: a block per cell (a panel), a row per "
                                    "paired night\n# columns: night change lo hi (tonight / reference - 1, %%) verdict "
                                    "(the night's) tip\n",
                                    di->name))) {
    size_t nmarks = 0;
    for (size_t i = 0; i < shown; i++) {
      const kg_series *s = pick[i].s;
      char name[128], label[32];
      kg_size_label(s->n, label, sizeof label);
      snprintf(name, sizeof name, "%s  %s", s->variant, label);
      kg__gp_item(p.vars.f, "name", i + 1, name);
      ratio_block(p.dat.f, t, s);
      ratio_range(p.vars.f, t, s, i + 1);
      nmarks = ratio_marks(p.vars.f, t, d, s, i + 1, nmarks);
    }
    kg__gp_num(p.vars.f, "nmarks", (double)nmarks);
    kg__trend_xtics(p.vars.f, t);
    ratio_vars(p.vars.f, t, di, shown, found, total);
    snprintf(p.chart->caption, sizeof p.chart->caption,
             "%s: tonight / reference per night for %zu of %zu cells (those in findings first, then the nearest to an "
             "alarm), with intervals, the accepted level and the change points",
             di->name, shown, total);
    rc = kg__pair_commit(&p, job);
  }
  free(pick);
  return rc;
}

/* The nights with a paired section: the chart's x. */
static int paired_night(const kg_history *h, size_t j) { return h->runs[j].paired.has; }

int kg__chart_ratio(const kg__job *job, kg_dtype dt) {
  kg__trend t;
  if (kg__nights_open(&t, job, paired_night)) return -1;
  int rc = t.nruns ? ratio_draw(job, &t, job->src->detect, dt) : 0;
  kg__nights_free(&t);
  return rc;
}

