/* Verdicts of a run against a baseline, noise-aware: SLOWER needs both a
 * median slowdown beyond the tolerance and separated intervals. */
#ifndef KG_VERDICT_H
#define KG_VERDICT_H

#include <stddef.h>

#include "baseline.h"
#include "history.h"
#include "outcome.h"

/* Default tolerance (fraction) for an input of this many bytes: 20 % below
 * 1 MiB (launch-bound), 15 % below 64 MiB, 3 % from 64 MiB (verdict.c says
 * how these were measured). override_pct > 0 replaces it (percent). */
double kg_tolerance(size_t bytes, double override_pct);
/* What a baseline made on another physical card of the same model adds to
 * kg_tolerance (fraction), measured from card-to-card A/A runs (verdict.c).
 * kg_compare adds it unless --tolerance overrides. */
double kg_card_spread(size_t bytes);

/* Verdict of one case; both timings must have samples > 0 for SAME/SLOWER/FASTER. */
kg_verdict kg_verdict_of(const kg_timing *base, const kg_timing *now, double tol);

typedef struct kg_cmp_row {
  char variant[64];
  kg_dtype dtype;
  size_t n;
  kg_verdict verdict;
  double base_us, now_us; /* medians (0 when absent) */
  double change;          /* now / base - 1 (0 when either is absent) */
  double tol;             /* the tolerance applied */
  int in_base;            /* the baseline holds this case (timed or not) */
} kg_cmp_row;

typedef struct kg_comparison {
  size_t n;
  kg_cmp_row *rows; /* regressions first (SLOWER, UNKNOWN, MISSING, FASTER, NEW, SAME), then variant, dtype, n */
  size_t count[KG_NVERDICTS];
  int cross_card;     /* the baseline comes from another card, or one not recorded (UUIDs unknown or unequal) */
  char warning[512];  /* driver or CUDA runtime differ, another card: shown in every report; empty otherwise */
  /* Left out by kg_comparison_common_sizes (not in rows or count): NEW cases at
   * sizes the baseline holds no case of; by dtype, at how many sizes, the
   * smallest and the largest. */
  size_t left_out, left_dtype[KG_NDTYPES], left_sizes, left_min, left_max;
} kg_comparison;

/* Compares now against base. -1 with err when the GPU models differ. */
int kg_compare(const kg_baseline *base, const kg_baseline *now, double tol_override_pct, kg_comparison *out,
               char *err, size_t errlen);
void kg_comparison_free(kg_comparison *c);
/* Like with like: leaves out the NEW rows at input sizes the baseline holds
 * no case of (a sweep of 2^12..2^28 against a baseline of the gate's 2^22 and
 * 2^25 would read 80 % NEW), and counts them in left_*. A NEW case at a size
 * the baseline holds (a new variant) stays; UNKNOWN and MISSING rows always
 * do. 0, or -1 out of memory (c unchanged). */
int kg_comparison_common_sizes(kg_comparison *c);

/* The orders compare --sort prints the rows in: verdict (the rows' own,
 * regressions first), change (largest |change| first; rows without both
 * times last), name (variant in registry order, dtype, n); ties by name. */
typedef enum kg_cmp_order { KG_CMP_BY_VERDICT, KG_CMP_BY_CHANGE, KG_CMP_BY_NAME, KG_NCMP_ORDERS } kg_cmp_order;
const char *kg_cmp_order_name(int order); /* "verdict", "change", "name" */
int kg_cmp_order_parse(const char *name);  /* the order, or -1 */
/* A copy of c to print: its rows in order, without the SAME ones when
 * only_changed (c->n - view->n left out); counts and warning are c's, for
 * every cell. Free it with kg_comparison_free. 0, or -1 out of memory. */
int kg_comparison_view(const kg_comparison *c, kg_cmp_order order, int only_changed, kg_comparison *view);

/* A step change: a case whose time moved between a run and the latest
 * earlier run that timed it, by the rule of the verdicts (beyond the
 * tolerance and with separated quartiles), so noise is not flagged. */
typedef struct kg_step {
  size_t run; /* index of the later run */
  size_t prev; /* index of the run it is compared with */
  char variant[64];
  kg_dtype dtype;
  size_t n;
  kg_verdict verdict; /* KG_V_SLOWER or KG_V_FASTER */
  double before_us, after_us, tol;
} kg_step;

/* Every step change, in run order then key order. *steps is malloc'ed
 * (NULL when none). 0, or -1 out of memory. Runs of another L2 mode than
 * the one before are compared only with runs of their own mode. */
int kg_history_steps(const kg_history *h, double tol_override_pct, kg_step **steps, size_t *nsteps);

#endif
