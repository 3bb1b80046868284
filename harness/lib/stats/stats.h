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

/* The digamma and trigamma functions (x > 0), and the inverse of trigamma
 * (y > 0): what the variance prior below needs. */
double kg_digamma(double x);
double kg_trigamma(double x);
double kg_trigamma_inv(double y);

/* Empirical Bayes for variances (Smyth 2004, limma's fitFDist): n sample
 * variances s2[i] on nu[i] degrees of freedom, taken as draws around a
 * scaled inverse chi-square prior (s0^2, nu0), fitted by moments of
 * log s2. *nu0 is +Inf when the spread of log s2 is no more than chance
 * (the variances are one). Entries with s2 <= 0 or nu <= 0 are skipped;
 * -1 when fewer than 3 remain. The posterior of one variance is then
 * (nu0 s0^2 + nu s2) / (nu0 + nu) (kg_eb_shrink). */
int kg_eb_prior(const double *s2, const double *nu, size_t n, double *s0sq, double *nu0);
double kg_eb_shrink(double s2, double nu, double s0sq, double nu0);

#endif
