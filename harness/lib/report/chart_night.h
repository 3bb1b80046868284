/* What the charts of a history share (chart_trend.c, chart_ratio.c): the
 * nights drawn, each night's verdict of the report model, and the x axis of
 * nights. */
#ifndef KG_CHART_NIGHT_H
#define KG_CHART_NIGHT_H

#include <stddef.h>
#include <stdio.h>

#include "chart_io.h"
#include "rmodel.h"

typedef struct kg__trend {
  const kg_history *h;
  size_t *runs; /* the runs drawn, history indices (malloc'ed) */
  size_t nruns;
  const kg_baseline *base; /* may be NULL */
  double tol_pct;
  const kg_detection *det; /* the detector over the history, or NULL */
  kg_night *nights;        /* each history night's verdict (rmodel.h, kg_night_verdicts; malloc'ed) */
} kg__trend;

/* The nights of the job's history that keep says to draw, and every
 * night's verdict (the job's detector, if any); base and tol_pct unset.
 * 0, or -1 with the job's err (out of memory). kg__nights_free after. */
int kg__nights_open(kg__trend *t, const kg__job *job, int (*keep)(const kg_history *h, size_t j));
void kg__nights_free(kg__trend *t);

/* A night's verdict as a data column: its word, quoted ("RUNNER HEALTH" is two). */
void kg__dat_verdict(FILE *f, const kg__trend *t, size_t run);

/* A night's point's tooltip (kg__dat_tip): what (the variant and size),
 * its value and interval, then the night's date, commit and verdict. */
void kg__night_tip(FILE *f, const kg__trend *t, size_t run, const char *what, const char *value);

/* Tick labels: as short as tells neighbouring runs apart, at most five a
 * panel, the date over the time so a label stays narrow. */
void kg__trend_xtics(FILE *g, const kg__trend *t);

#endif
