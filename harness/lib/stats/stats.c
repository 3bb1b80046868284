/* Timing statistics and the adaptive stopping rule.
 *
 * Quartiles are type-7 quantiles (R's default, numpy's "linear"): with the
 * samples sorted as x[0..n-1], the p-quantile interpolates linearly at
 * h = (n - 1) p, so the median of an even count is the mean of the middle two.
 *
 * noise is the relative standard error of the median under a normal model:
 * SE(median) = sqrt(pi/2) sigma / sqrt(n) = 1.2533 sigma / sqrt(n), with sigma
 * estimated as IQR / 1.349 (the IQR of a unit normal), which ignores the rare
 * slow outlier that a preemption or a clock change leaves in a series.
 * Edge cases, chosen so that the stopping rule never fires on no evidence:
 *   n == 0            everything 0 (as stats.h promises);
 *   n == 1            noise = +Inf: one sample says nothing about spread;
 *   IQR == 0          noise = 0: the middle half is identical (timer steps);
 *   median <= 0       noise = +Inf (no relative error of a zero time).
 * If the copy cannot be allocated, only count is set and noise is +Inf. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double quantile(const double *x, size_t n, double p) {
  double h = (double)(n - 1) * p;
  size_t lo = (size_t)h;
  if (lo + 1 >= n) return x[n - 1];
  return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

void kg_stats_compute(const double *samples, size_t n, kg_stats *s) {
  memset(s, 0, sizeof *s);
  if (n == 0) return;
  s->count = n;
  double *x = malloc(n * sizeof *x);
  if (!x) {
    s->noise = INFINITY;
    return;
  }
  memcpy(x, samples, n * sizeof *x);
  qsort(x, n, sizeof *x, cmp_double);
  s->min = x[0];
  s->q1 = quantile(x, n, 0.25);
  s->median = quantile(x, n, 0.5);
  s->q3 = quantile(x, n, 0.75);
  free(x);
  double iqr = s->q3 - s->q1;
  if (n < 2) s->noise = INFINITY;
  else if (iqr <= 0) s->noise = 0;
  else if (s->median <= 0) s->noise = INFINITY;
  else s->noise = 1.2533 * (iqr / 1.349) / sqrt((double)n) / s->median;
}

int kg_stats_enough(const kg_stats *s, size_t min_samples, double max_noise) {
  return s->count > 0 && s->count >= min_samples && s->noise <= max_noise;
}

double kg_median(const double *v, size_t n) {
  kg_stats s;
  kg_stats_compute(v, n, &s);
  return n ? s.median : NAN;
}
