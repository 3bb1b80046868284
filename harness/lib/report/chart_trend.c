/* Chart 3, the trend: % of peak over the history per variant at one size,
 * a panel per variant, the baseline's band, the REGRESSION nights' cells
 * marked (plots/trend.gp). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_night.h"
#include "dtype.h"
#include "label.h"
#include "verdict.h"

/* % of peak of a time on the device of run r. */
static double pct_at(const kg_hist_run *r, kg_dtype dt, size_t n, double us) {
  if (!(us > 0) || !(r->dev.peak_gbps > 0)) return NAN;
  return 100 * (double)n * (double)kg_dtype_get(dt)->size / (us * 1e3) / r->dev.peak_gbps;
}

static const kg_base_entry *base_find(const kg_baseline *b, const char *variant, kg_dtype dt, size_t n) {
  for (size_t i = 0; b && i < b->n; i++)
    if (b->entries[i].dtype == dt && b->entries[i].n == n && !strcmp(b->entries[i].variant, variant) &&
        b->entries[i].t.samples > 0)
      return &b->entries[i];
  return NULL;
}

/* Entries of every run drawn: room enough for any list built from them. */
static size_t trend_entries(const kg__trend *t) {
  size_t total = 0;
  for (size_t j = 0; j < t->nruns; j++) total += t->h->runs[t->runs[j]].n;
  return total;
}

/* The size a trend shows: 2^25 if any run timed it, else the largest timed.
 * 0 when no run timed dt, -1 out of memory. */
static int trend_size(const kg__trend *t, kg_dtype dt, size_t *n) {
  size_t *all = calloc(trend_entries(t) + 1, sizeof *all), nall = 0, picked[2];
  if (!all) return -1;
  for (size_t j = 0; j < t->nruns; j++) {
    const kg_hist_run *r = &t->h->runs[t->runs[j]];
    for (size_t i = 0; i < r->n; i++)
      if (r->entries[i].dtype == dt) all[nall++] = r->entries[i].n; /* repeats: kg_chart_pick_sizes counts them once */
  }
  size_t np = kg_chart_pick_sizes(all, nall, picked, 2);
  free(all);
  if (np) *n = picked[np - 1];
  return np != 0;
}

/* Variants: every name timed at n in some run (one pass: a year of nightly
 * runs is ~10^6 entries), in registry order, unknown names last. */
static size_t trend_names(const kg__trend *t, kg_dtype dt, size_t n, const char **names) {
  size_t count = 0;
  for (size_t j = 0; j < t->nruns; j++) {
    const kg_hist_run *r = &t->h->runs[t->runs[j]];
    for (size_t i = 0; i < r->n; i++) {
      const kg_hist_entry *e = &r->entries[i];
      if (e->dtype != dt || e->n != n) continue;
      size_t c = 0;
      while (c < count && strcmp(names[c], e->variant)) c++;
      if (c == count) names[count++] = e->variant;
    }
  }
  qsort(names, count, sizeof *names, kg__ladder_cmp);
  return count;
}

/* Per-variant lists of numbers for the .vars file, built beside the data
 * and written once complete. */
enum { KG__NLISTS = 4 };
typedef struct kg__lists {
  FILE *f[KG__NLISTS];
  char *buf[KG__NLISTS];
  size_t len[KG__NLISTS];
} kg__lists;

static int lists_open(kg__lists *l) {
  int bad = 0;
  memset(l, 0, sizeof *l);
  for (int k = 0; k < KG__NLISTS; k++) bad |= !(l->f[k] = open_memstream(&l->buf[k], &l->len[k]));
  if (bad)
    for (int k = 0; k < KG__NLISTS; k++)
      if (l->f[k]) fclose(l->f[k]), free(l->buf[k]);
  return bad ? -1 : 0;
}

static void lists_write(FILE *g, kg__lists *l) {
  fputs("# per variant: the baseline's % of peak and its tolerance band (nan: none), y ranges (lo hi)\n", g);
  static const char *const keys[KG__NLISTS] = {"base_mid", "base_lo", "base_hi", "yranges"};
  for (int k = 0; k < KG__NLISTS; k++) {
    fclose(l->f[k]);
    fprintf(g, "%s = '%s'\n", keys[k], l->buf[k] ? l->buf[k] : ""); /* numbers only */
    free(l->buf[k]);
  }
}

/* A point's tooltip: the variant, its % of peak and quartiles, the night. */
static void trend_tip(FILE *f, const kg__trend *t, size_t run, const char *name, size_t n, double pm, double pq1,
                      double pq3) {
  char what[128], value[128], label[32];
  kg_size_label(n, label, sizeof label);
  snprintf(what, sizeof what, "%s, n = %s", name, label);
  /* q3 is the slower time: the lower % of peak */
  snprintf(value, sizeof value, "%.2f %% of peak, quartiles %.2f to %.2f %%", pm, pq3, pq1);
  kg__night_tip(f, t, run, what, value);
}

/* A variant's block in the .dat: a row per run that timed it, with the
 * night's verdict (the report model's) and its marker: -1 on a night the
 * verdict is REGRESSION because of this cell (an open finding that holds
 * the night names it). Widens [*lo, *hi] to its numbers; returns the
 * markers. */
static size_t trend_block(FILE *f, const kg__trend *t, const char *name, kg_dtype dt, size_t n, double *lo,
                          double *hi) {
  size_t flagged = 0;
  kg__dat_comment(f, name);
  for (size_t j = 0; j < t->nruns; j++) {
    const kg_hist_run *r = &t->h->runs[t->runs[j]];
    const kg_hist_entry *e = kg_hist_find(r, name, dt, n);
    if (!e) continue;
    double pm = pct_at(r, dt, n, e->t.median_us), pq3 = pct_at(r, dt, n, e->t.q3_us),
           pq1 = pct_at(r, dt, n, e->t.q1_us);
    int mark = t->nights[t->runs[j]].verdict == KG_NIGHT_REGRESSION &&
                       kg_night_regressed(t->h, t->det, t->runs[j], name, dt, n)
                   ? -1
                   : 0;
    flagged += mark != 0;
    fprintf(f, "%zu", j + 1);
    kg__dat_num(f, pm);
    kg__dat_num(f, pq3);
    kg__dat_num(f, pq1);
    fprintf(f, " %d", mark);
    kg__dat_verdict(f, t, t->runs[j]);
    trend_tip(f, t, t->runs[j], name, n, pm, pq1, pq3);
    fputc('\n', f);
    *lo = fmin(*lo, fmin(pm, pq3)), *hi = fmax(*hi, fmax(pm, pq1));
  }
  fputs("\n\n", f);
  return flagged;
}

/* Variant c's entries in the lists: the baseline's % of peak on the latest
 * run's device and its tolerance band (NaN: no baseline), and the y range
 * of its panel over [lo, hi] and the band. */
static void trend_lists(kg__lists *l, const kg__trend *t, size_t c, const char *name, kg_dtype dt, size_t n,
                        double lo, double hi) {
  const kg_dtype_info *di = kg_dtype_get(dt);
  const kg_base_entry *b = base_find(t->base, name, dt, n);
  double tol = kg_tolerance(n * di->size, t->tol_pct), mid = NAN, blo = NAN, bhi = NAN;
  if (b) {
    mid = pct_at(&t->h->runs[t->runs[t->nruns - 1]], dt, n, b->t.median_us);
    blo = mid / (1 + tol), bhi = mid / (1 - tol);
    lo = fmin(lo, blo), hi = fmax(hi, bhi);
  }
  /* A panel spans at least a tenth of its level, so noise is not magnified into a cliff. */
  double centre = (lo + hi) / 2, span = fmax(hi - lo, fmax(0.1 * centre, 1e-3));
  fprintf(l->f[0], "%s%.6g", c ? " " : "", mid);
  fprintf(l->f[1], "%s%.6g", c ? " " : "", blo);
  fprintf(l->f[2], "%s%.6g", c ? " " : "", bhi);
  fprintf(l->f[3], "%s%.6g %.6g", c ? " " : "", fmax(0, centre - span * 0.65), centre + span * 0.65);
}

/* The panel grid, the titles and the legend. */
static void trend_vars(FILE *g, const kg__trend *t, const kg_dtype_info *di, size_t n, size_t count, size_t flagged) {
  const kg_hist_run *last = &t->h->runs[t->runs[t->nruns - 1]];
  size_t cols = count < 4 ? count : 4, rows = (count + cols - 1) / cols;
  kg__gp_num(g, "cols", (double)cols);
  kg__gp_num(g, "rows", (double)rows);
  kg__gp_num(g, "width", cols < 4 ? 420 * (double)cols + 80 : 1500);
  kg__gp_num(g, "height", 190 + 250 * (double)rows);
  char label[32], bytes[32], first[48], lastd[48];
  kg_size_label(n, label, sizeof label);
  kg_bytes_label((double)n * (double)di->size, bytes, sizeof bytes);
  kg_date_label(t->h->runs[t->runs[0]].date, first, sizeof first);
  kg_date_label(last->date, lastd, sizeof lastd);
  kg__gp_str(g, "title", "%s sum at n = %s (%s): %% of theoretical peak over %zu run%s", di->name, label, bytes,
             t->nruns, t->nruns == 1 ? "" : "s");
  if (t->det)
    kg__gp_str(g, "subtitle", "%s \u00b7 %s to %s \u00b7 %s L2 \u00b7 %zu point%s of a REGRESSION night marked",
               last->dev.name, first, lastd, last->hot ? "warm" : "cold", flagged, flagged == 1 ? "" : "s");
  else
    kg__gp_str(g, "subtitle", "%s \u00b7 %s to %s \u00b7 %s L2", last->dev.name, first, lastd,
               last->hot ? "warm" : "cold");
  kg__gp_str(g, "legend", "line: median %% of peak (bars: quartiles) \u00b7 %s%s",
             t->base ? "band: baseline \u00b1 "
                       "tolerance (dashed: its median); \u25ef outside the band"
                     : "no baseline given: no band",
             t->det ? " \u00b7 \u25bc a night the nightly's detector calls REGRESSION, on the cells its finding names"
                    : "");
}

static int trend_names_draw(const kg__job *job, const kg__trend *t, kg_dtype dt, size_t n, const char **names,
                            size_t count);
static int trend_draw(const kg__job *job, const kg__trend *t, kg_dtype dt) {
  size_t n;
  int have = trend_size(t, dt, &n);
  const char **names = have > 0 ? malloc((trend_entries(t) + 1) * sizeof *names) : NULL;
  if (have < 0 || (have && !names)) return kg__oom(job);
  size_t count = have ? trend_names(t, dt, n, names) : 0;
  int rc = count ? trend_names_draw(job, t, dt, n, names, count) : 0;
  free(names);
  return rc;
}

/* The trend of the variants names[0..count) at n. */
static int trend_names_draw(const kg__job *job, const kg__trend *t, kg_dtype dt, size_t n, const char **names,
                            size_t count) {
  const kg_dtype_info *di = kg_dtype_get(dt);
  kg__pair p;
  if (kg__pair_open(&p, job, di->name,
                    "# kgate trend, %s, n = %zu: one block per variant (two blank lines apart), one row per run\n"
                    "# columns: run pct_peak pct_at_q3 pct_at_q1 mark verdict tip (the night's verdict; mark -1: "
                    "REGRESSION in "
                    "this cell)\n",
                    di->name, n))
    return -1;
  FILE *f = p.dat.f, *g = p.vars.f;
  kg__lists l;
  if (lists_open(&l)) {
    kg__pair_abort(&p);
    return kg__oom(job);
  }
  size_t flagged = 0;
  for (size_t c = 0; c < count; c++) {
    double lo = INFINITY, hi = -INFINITY;
    flagged += trend_block(f, t, names[c], dt, n, &lo, &hi);
    kg__gp_item(g, "name", c + 1, names[c]);
    trend_lists(&l, t, c, names[c], dt, n, lo, hi);
  }
  lists_write(g, &l);
  kg__gp_num(g, "nseries", (double)count);
  kg__gp_num(g, "nruns", (double)t->nruns);
  kg__trend_xtics(g, t);
  trend_vars(g, t, di, n, count, flagged);
  snprintf(p.chart->caption, sizeof p.chart->caption, "%s: %% of peak at n = %zu per variant over %zu runs%s", di->name,
           n, t->nruns, t->base ? ", baseline band" : "");
  return kg__pair_commit(&p, job);
}

/* One L2 mode per chart, the latest run's: cold and warm times differ by design. */
static int same_l2(const kg_history *h, size_t j) { return h->runs[j].hot == h->runs[h->n - 1].hot; }

int kg__chart_trend(const kg__job *job, kg_dtype dt) {
  kg__trend t;
  if (kg__nights_open(&t, job, same_l2)) return -1;
  t.base = job->src->band, t.tol_pct = job->src->tol_pct;
  int rc = trend_draw(job, &t, dt);
  kg__nights_free(&t);
  return rc;
}
