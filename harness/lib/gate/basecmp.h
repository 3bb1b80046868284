/* The session's comparison with the stored baseline of the run's GPU:
 * only the cells this run could have timed, and none that a paired run
 * proved unchanged and left untimed. */
#ifndef KG_BASECMP_H
#define KG_BASECMP_H

#include <stdio.h>

#include "baseline.h"
#include "model.h"
#include "verdict.h"

/* Compares run with the baseline at path. 0 with *have set when a
 * comparison was made (a missing baseline: every timed cell is NEW, said on
 * log); -1 (said on log) when the baseline is there but unusable. */
int kg_gate_compare_baseline(const char *path, double tolerance_pct, const kg_run *run, kg_comparison *cmp, int *have,
                             FILE *log);

#endif
