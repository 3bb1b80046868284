/* Chart data: everything a chart shows is decided in C, from the run; the
 * gnuplot scripts in plots/ only draw. Geometry that gnuplot makes awkward
 * (bar positions, axis ranges, tick lists, colours by variant family) is
 * computed by each kind's writer (chart_<name>.c, with what they share in
 * chart_io.c) and written to <name>.vars, so each script stays a page of
 * plotting commands that a person can run by hand:
 *   gnuplot -e "vars='out/ladder-f32.vars'; fmt='png'; out='x.png'" plots/ladder.gp
 * This file is the table of kinds, and the sizes charts show. */
#include "chart.h"

#include <stdio.h>
#include <string.h>

#include "chart_kinds.h"

/* The two perf sizes the design card asks for. */
static const size_t k_ladder_sizes[] = {(size_t)1 << 22, (size_t)1 << 25};

void kg_size_label(size_t n, char *buf, size_t len) {
  static const char *const sup[10] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
                                      "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
  if (n == 0 || (n & (n - 1))) {
    snprintf(buf, len, "%zu", n);
    return;
  }
  int e = 0;
  while (((size_t)1 << e) != n) e++;
  if (e < 10) snprintf(buf, len, "2%s", sup[e]);
  else snprintf(buf, len, "2%s%s", sup[e / 10], sup[e % 10]);
}

size_t kg_chart_pick_sizes(const size_t *timed_n, size_t count, size_t *picked, size_t max) {
  size_t k = 0;
  for (size_t s = 0; s < sizeof k_ladder_sizes / sizeof k_ladder_sizes[0] && k < max; s++)
    for (size_t i = 0; i < count; i++)
      if (timed_n[i] == k_ladder_sizes[s]) {
        picked[k++] = timed_n[i];
        break;
      }
  if (k) return k;
  /* Neither: the largest ones, which are the bandwidth-bound ones, found
   * by selection (no copy, so no limit on count; repeats count once). */
  for (size_t below = (size_t)-1, first = 1; k < max; first = 0) {
    int found = 0;
    size_t best = 0;
    for (size_t i = 0; i < count; i++)
      if ((first || timed_n[i] < below) && (!found || timed_n[i] > best)) best = timed_n[i], found = 1;
    if (!found) break;
    picked[k++] = below = best;
  }
  for (size_t i = 0; i < k / 2; i++) { /* ascending */
    size_t t = picked[i];
    picked[i] = picked[k - 1 - i], picked[k - 1 - i] = t;
  }
  return k;
}

/* ---- the charts of a run: one table ------------------------------------------------ */

/* What a chart is drawn from. */
typedef enum kg__when {
  KG__WITH_RUN,     /* the run's own charts (plot, run --plots, report) */
  KG__WITH_PAIRED,  /* the same, when the run is paired */
  KG__WITH_CMP,     /* a comparison with a baseline */
  KG__WITH_HISTORY, /* a history (history plot, report --history) */
  KG__WITH_DETECT,  /* a history with paired nights, read by the detector */
} kg__when;

/* Every chart kgate draws, in the order the page lists them: a new chart is
 * a row here (its writer draws one dtype) and its script plots/<name>.gp. */
static const struct {
  kg_chart_kind_info info;
  kg__when when;
  int (*one)(const kg__job *job, kg_dtype dt); /* chart_<name>.c */
} k_charts[] = {
    {{"ratio", "Against the pinned reference, per night"}, KG__WITH_DETECT, kg__chart_ratio},
    {{"bandwidth", "Bandwidth against input size"}, KG__WITH_RUN, kg__chart_bandwidth},
    {{"ladder", "The ladder: % of theoretical peak"}, KG__WITH_RUN, kg__chart_ladder},
    {{"trend", "Trend: % of peak over the history"}, KG__WITH_HISTORY, kg__chart_trend},
    {{"compare", "Comparison with the baseline"}, KG__WITH_CMP, kg__chart_compare},
    {{"paired", "Paired gate: change against the base build"}, KG__WITH_PAIRED, kg__chart_paired},
};
enum { KG__NKINDS = sizeof k_charts / sizeof k_charts[0] };

int kg_chart_nkinds(void) { return KG__NKINDS; }

const kg_chart_kind_info *kg_chart_kind_get(kg_chart_kind k) {
  return k >= 0 && k < KG__NKINDS ? &k_charts[k].info : NULL;
}

kg_chart_kind kg_chart_kind_find(const char *name) {
  for (int k = 0; k < KG__NKINDS; k++)
    if (!strcmp(k_charts[k].info.name, name)) return k;
  return -1;
}

static int applies(kg__when w, const kg_chart_src *s) {
  switch (w) {
  case KG__WITH_RUN: return s->run && s->with_run;
  case KG__WITH_PAIRED: return s->run && s->with_run && s->run->pair.on;
  case KG__WITH_CMP: return s->run && s->cmp;
  case KG__WITH_HISTORY: return s->history && s->history->n;
  case KG__WITH_DETECT: return s->history && s->history->n && s->detect && s->detect->nseries;
  }
  return 0;
}

int kg_chart_write(const char *dir, const kg_chart_src *src, const char *only, kg_charts *out, char *err,
                   size_t errlen) {
  for (int k = 0; k < KG__NKINDS; k++) {
    if ((only && strcmp(only, k_charts[k].info.name)) || !applies(k_charts[k].when, src)) continue;
    kg__job job = {dir, src, k, k_charts[k].info.name, out, err, errlen};
    for (int d = 0; d < KG_NDTYPES; d++)
      if (k_charts[k].one(&job, (kg_dtype)d)) return -1;
  }
  return 0;
}
