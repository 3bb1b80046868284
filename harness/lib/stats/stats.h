/* Sample statistics for timing, and the adaptive stopping rule. */
#ifndef KG_STATS_H
#define KG_STATS_H

#include <stddef.h>

typedef struct kg_stats {
  double median, q1, q3, min; /* quartiles by linear interpolation between order statistics */
  size_t count;
  /* Relative standard error of the median: 1.2533 * (IQR / 1.349) / sqrt(count) / median,
   * i.e. the normal-theory standard error with sigma estimated robustly from the IQR.
   * It shrinks as samples accumulate, so "sample until noise <= target" terminates.
   * +Inf for one sample (or a median <= 0), 0 when q1 == q3 (see stats.c). */
  double noise;
} kg_stats;

/* Statistics of n samples (not modified; n == 0 gives all zeros). */
void kg_stats_compute(const double *samples, size_t n, kg_stats *s);

/* The median of n values (not modified; NaN for none). */
double kg_median(const double *v, size_t n);

/* The stopping rule: at least min_samples, and noise <= max_noise. */
int kg_stats_enough(const kg_stats *s, size_t min_samples, double max_noise);

#endif
