/* The writers of chart.c's table of chart kinds, one file each
 * (chart_<name>.c): each writes one dtype's chart of its kind, or nothing
 * when the dtype has nothing to draw. 0, or -1 with the job's err. What the
 * kinds share is in chart_io.h. (The job names chart.h's types by their
 * struct tags: chart.h is the table's own header, and the kinds include it.) */
#ifndef KG_CHART_KINDS_H
#define KG_CHART_KINDS_H

#include <stddef.h>

#include "dtype.h"

struct kg_chart_src;
struct kg_charts;

/* One kind's writing: what it draws from, and where its charts go. */
typedef struct kg__job {
  const char *dir;
  const struct kg_chart_src *src;
  int kind;         /* kg_chart_kind */
  const char *name; /* the kind's */
  struct kg_charts *out;
  char *err;
  size_t errlen;
} kg__job;

int kg__chart_ratio(const kg__job *job, kg_dtype dt);
int kg__chart_bandwidth(const kg__job *job, kg_dtype dt);
int kg__chart_ladder(const kg__job *job, kg_dtype dt);
int kg__chart_trend(const kg__job *job, kg_dtype dt);
int kg__chart_compare(const kg__job *job, kg_dtype dt);
int kg__chart_paired(const kg__job *job, kg_dtype dt);

#endif
