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

/* Digamma: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the
 * asymptotic series (error below 1e-12 there). */
double kg_digamma(double x) {
  double r = 0;
  if (!(x > 0)) return NAN;
  for (; x < 10; x += 1) r -= 1 / x;
  double f = 1 / (x * x);
  return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

/* Trigamma: psi1(x) = psi1(x + 1) + 1/x^2 up to x >= 10, then its series. */
double kg_trigamma(double x) {
  double r = 0;
  if (!(x > 0)) return NAN;
  for (; x < 10; x += 1) r += 1 / (x * x);
  double f = 1 / (x * x);
  return r + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

/* Tetragamma, for Newton's step below: psi2(x) = psi2(x + 1) - 2/x^3. */
static double tetragamma(double x) {
  double r = 0;
  for (; x < 10; x += 1) r -= 2 / (x * x * x);
  double f = 1 / (x * x);
  return r - f - f / x - f * f * (0.5 - f * (1.0 / 6 - f * (1.0 / 6 - f * 3.0 / 10)));
}

/* Newton from 0.5 + 1/y (limma's trigammaInverse: psi1 is convex and
 * decreasing, so the steps increase x monotonically to the root). */
double kg_trigamma_inv(double y) {
  if (!(y > 0)) return NAN;
  if (y > 1e7) return 1 / sqrt(y);
  if (y < 1e-6) return 1 / y;
  double x = 0.5 + 1 / y;
  for (int i = 0; i < 50; i++) {
    double t = kg_trigamma(x), dif = t * (1 - t / y) / tetragamma(x);
    x += dif;
    if (-dif / x < 1e-10) break;
  }
  return x;
}

int kg_eb_prior(const double *s2, const double *nu, size_t n, double *s0sq, double *nu0) {
  double sum = 0, sum2 = 0, tri = 0;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (!(s2[i] > 0) || !(nu[i] > 0) || !isfinite(s2[i])) continue;
    double e = log(s2[i]) - kg_digamma(nu[i] / 2) + log(nu[i] / 2);
    sum += e, sum2 += e * e, tri += kg_trigamma(nu[i] / 2), m++;
  }
  if (m < 3) return -1;
  double mean = sum / (double)m, var = (sum2 - sum * mean) / (double)(m - 1) - tri / (double)m;
  if (var > 0) {
    *nu0 = 2 * kg_trigamma_inv(var);
    *s0sq = exp(mean + kg_digamma(*nu0 / 2) - log(*nu0 / 2));
  } else {
    *nu0 = INFINITY;
    *s0sq = exp(mean);
  }
  return 0;
}

double kg_eb_shrink(double s2, double nu, double s0sq, double nu0) {
  if (!isfinite(nu0)) return s0sq;
  if (!(nu > 0) || !isfinite(s2)) return s0sq;
  return (nu0 * s0sq + nu * s2) / (nu0 + nu);
}
