/* The charts kgate draws, as data: for each chart a data file (<name>.dat)
 * and a settings file (<name>.vars, gnuplot assignments) in the output
 * folder, which plots/<kind>.gp reads. plot.h runs gnuplot on them. */
#ifndef KG_CHART_H
#define KG_CHART_H

#include <stddef.h>

#include "baseline.h"
#include "history.h"
#include "results.h"
#include "verdict.h"

typedef enum kg_chart_kind {
  KG_CHART_BANDWIDTH, /* 1: GB/s against n per dtype, peak and roofline lines, the L2 size */
  KG_CHART_LADDER,    /* 2: % of peak per variant at 2^22 and 2^25, bars in ladder order */
  KG_CHART_TREND,     /* 3: % of peak at 2^25 over the runs of a history, baseline band */
  KG_CHART_COMPARE,   /* 4: time new / baseline per case, SLOWER highlighted */
  KG_CHART_PAIRED,    /* 5: the paired gate: change head / base per cell with its interval */
  KG_NCHART_KINDS
} kg_chart_kind;

typedef struct kg_chart_kind_info {
  const char *name;    /* file stem prefix and script: "bandwidth" -> plots/bandwidth.gp */
  const char *heading; /* for the HTML page */
} kg_chart_kind_info;

const kg_chart_kind_info *kg_chart_kind_get(kg_chart_kind k);

enum { KG_MAX_CHARTS = 64 };

typedef struct kg_chart {
  kg_chart_kind kind;
  char name[48];     /* file stem in the output folder: "bandwidth-f32" (.dat, .vars, .png, .svg) */
  char caption[200]; /* one line for people: the HTML alt text and caption */
} kg_chart;

typedef struct kg_charts {
  size_t n;
  kg_chart c[KG_MAX_CHARTS];
} kg_charts;

/* Each writer adds one chart per dtype that has something to draw (none is
 * not an error), writing its .dat and .vars into dir atomically. 0, or -1
 * with err when a file cannot be written. */
int kg_chart_bandwidth(const char *dir, const kg_run *run, kg_charts *out, char *err, size_t errlen);
int kg_chart_ladder(const char *dir, const kg_run *run, kg_charts *out, char *err, size_t errlen);
/* cmp: the comparison of run against a baseline (kg_compare); base_label
 * (may be NULL) names the baseline in the subtitle. */
int kg_chart_compare(const char *dir, const kg_run *run, const kg_comparison *cmp, const char *base_label,
                     kg_charts *out, char *err, size_t errlen);
/* The paired gate's cells (run->pairs, when run->pair.on): per dtype with
 * at least one cell that has numbers, a row per (variant, n) in ladder
 * order; NEW, MISSING and UNKNOWN cells are rows of text, no point. */
int kg_chart_paired(const char *dir, const kg_run *run, kg_charts *out, char *err, size_t errlen);
/* base may be NULL (no band). steps come from kg_history_steps. */
int kg_chart_trend(const char *dir, const kg_history *h, const kg_baseline *base, double tol_override_pct,
                   const kg_step *steps, size_t nsteps, kg_charts *out, char *err, size_t errlen);

/* The sizes the ladder and the trend show for a dtype: 2^22 and 2^25 where
 * timed, otherwise the largest timed sizes (at most max). Returns the count,
 * sizes ascending. timed_n: the timed sizes of the dtype, any order. */
size_t kg_chart_pick_sizes(const size_t *timed_n, size_t count, size_t *picked, size_t max);

/* "2²²" for a power of two, "1000003" otherwise (UTF-8 superscripts: the
 * charts and the page print sizes the way people write them). */
void kg_size_label(size_t n, char *buf, size_t len);

#endif
