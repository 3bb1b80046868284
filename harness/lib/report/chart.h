/* The charts kgate draws, as data: for each chart a data file (<name>.dat)
 * and a settings file (<name>.vars, gnuplot assignments) in the output
 * folder, which plots/<kind>.gp reads. plot.h runs gnuplot on them. */
#ifndef KG_CHART_H
#define KG_CHART_H

#include <stddef.h>

#include "baseline.h"
#include "detect.h"
#include "history.h"
#include "results.h"
#include "verdict.h"

/* A kind of chart: a row of chart.c's table of the charts of a run, which
 * says what each draws from and when it applies. Kinds are numbered by their
 * row, in the order the page lists them (0 .. kg_chart_nkinds() - 1). */
typedef int kg_chart_kind;

typedef struct kg_chart_kind_info {
  const char *name;    /* file stem prefix and script: "bandwidth" -> plots/bandwidth.gp */
  const char *heading; /* for the HTML page */
} kg_chart_kind_info;

int kg_chart_nkinds(void);
/* NULL for a kind past the table. */
const kg_chart_kind_info *kg_chart_kind_get(kg_chart_kind k);
/* The kind named name ("ladder"), or -1. */
kg_chart_kind kg_chart_kind_find(const char *name);

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

/* What charts are drawn from. A kind applies when its part is there: the
 * run's own charts (bandwidth, ladder; paired when the run is paired) when
 * with_run, the comparison when cmp, the trend when history, the ratio to
 * the reference when history and detect. The trend and ratio charts carry
 * each night's verdict of the report model (rmodel.h, kg_night_verdicts) in
 * their data, and the trend marks a cell on a REGRESSION night its finding
 * names: the verdict the page and `history check` give that night. */
typedef struct kg_chart_src {
  const kg_run *run; /* needed by every kind but the trend */
  int with_run;
  const kg_comparison *cmp; /* run against a baseline (kg_compare), or NULL */
  const char *base_label;   /* names that baseline in the subtitle; may be NULL */
  const kg_history *history; /* or NULL */
  const kg_baseline *band;   /* the trend's baseline band, or NULL (no band) */
  double tol_pct;            /* the tolerance override for the band */
  /* the detector over history's paired nights (ratio charts, the nights' verdicts), or NULL */
  const kg_detection *detect;
} kg_chart_src;

/* The charts of src: each kind that applies, in table order, one chart per
 * dtype that has something to draw (none is not an error), its .dat and
 * .vars written into dir atomically. only: a kind's name to write that kind
 * alone, NULL for all. 0, or -1 with err when a file cannot be written. */
int kg_chart_write(const char *dir, const kg_chart_src *src, const char *only, kg_charts *out, char *err,
                   size_t errlen);

/* The sizes the ladder and the trend show for a dtype: 2^22 and 2^25 where
 * timed, otherwise the largest timed sizes (at most max). Returns the count,
 * sizes ascending. timed_n: the timed sizes of the dtype, any order, any
 * count, repeats allowed. */
size_t kg_chart_pick_sizes(const size_t *timed_n, size_t count, size_t *picked, size_t max);

/* "2²²" for a power of two, "1000003" otherwise (UTF-8 superscripts: the
 * charts and the page print sizes the way people write them). */
void kg_size_label(size_t n, char *buf, size_t len);

#endif
