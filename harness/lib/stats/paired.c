/* The paired gate's statistics (paired.h says what a block is and why).
 *
 * A block's estimate is the type-7 median (as in stats.c: for an even count
 * the mean of the middle two) of ln(head / base) over its pairs; a pair with
 * a time that is not finite and positive cannot be a measurement and is
 * dropped. The cell's estimate is m, the mean of the block estimates, with
 * the half-width h = t(confidence, nb - 1) * s / sqrt(nb), s the sample
 * standard deviation (n - 1) of the block estimates. With e = ln(1 + min
 * effect), the interval (m - h, m + h) decides:
 *   SLOWER     m - h > e             (wholly above the minimum effect)
 *   FASTER     m + h < -e            (wholly below its mirror)
 *   SAME       -e < m - h, m + h < e (wholly inside)
 *   UNDECIDED  anything else, and fewer than two blocks (no spread to judge).
 * Under normal block estimates, a true effect at or below the minimum is
 * called SLOWER with probability at most (1 - confidence) / 2, and likewise
 * FASTER and SAME on their sides: the error rate is the interval's, per cell.
 *
 * Student's t: P(|T_df| > t) = I_x(df/2, 1/2) with x = df / (df + t^2), the
 * regularized incomplete beta function, evaluated by its continued fraction
 * (Abramowitz & Stegun 26.5.8) with the modified Lentz method, and inverted
 * by bisection on t; the tests compare it with 40-digit values. */
#include "paired.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "stats.h"

/* The default minimum effects per input size, against the A/A spread
 * measured on an H100 (base = a copy of the same module, 240 cells of the
 * default gate, 2 rounds of 4 copies): cell estimates spread 0.35 % (sd) at
 * 2^22 (16-64 MiB inputs; largest |change| 0.97 %) and 0.10 % at 2^25
 * (largest 0.33 %), so 1 % and 0.5 % sit three to five spreads out; in 10
 * such runs (2400 cells) none was SLOWER or FASTER. Under 1 MiB nothing was
 * measured: 5 % follows the launch-bound spread of verdict.c's tolerances. */
static const struct {
  size_t below; /* bytes: the first row whose limit exceeds the input's size */
  double effect;
} k_min_effect[] = {
    {(size_t)1 << 20, 0.05},  /* < 1 MiB (the size classes of verdict.c) */
    {(size_t)64 << 20, 0.01}, /* < 64 MiB */
    {SIZE_MAX, 0.005},        /* the rest; its limit is never compared */
};

double kg_pair_min_effect(size_t bytes, double override_pct) {
  if (!isfinite(override_pct)) return NAN; /* refused: kg_pair_decide gives UNDECIDED */
  if (override_pct > 0) return override_pct / 100;
  size_t i = 0;
  while (i + 1 < sizeof k_min_effect / sizeof k_min_effect[0] && bytes >= k_min_effect[i].below) i++;
  return k_min_effect[i].effect;
}

/* The continued fraction of I_x(a, b) without its prefactor: 1 / g with
 * g = 1 + d1 / (1 + d2 / (1 + ...)), d(2k+1) = -(a+k)(a+b+k) x / ((a+2k)(a+2k+1)),
 * d(2k) = k(b-k) x / ((a+2k-1)(a+2k)). It converges fast for x < (a+1)/(a+b+2);
 * beta_reg uses I_x(a, b) = 1 - I_(1-x)(b, a) beyond. Modified Lentz: g is the
 * product of the ratios c d of successive convergents; tiny stands in for a
 * zero divisor. */
static double beta_cf(double a, double b, double x) {
  const double tiny = 1e-300;
  double g = 1, c = 1, d = 0;
  for (int j = 1; j < 20000; j++) {
    int k = j / 2;
    double dj = j % 2 ? -(a + k) * (a + b + k) * x / ((a + 2 * k) * (a + 2 * k + 1))
                      : k * (b - k) * x / ((a + 2 * k - 1) * (a + 2 * k));
    d = 1 + dj * d;
    c = 1 + dj / c;
    if (fabs(d) < tiny) d = tiny;
    if (fabs(c) < tiny) c = tiny;
    d = 1 / d;
    g *= c * d;
    if (fabs(c * d - 1) < 1e-15) break;
  }
  return 1 / g;
}

/* I_x(a, b), with y = 1 - x passed in so that x near 1 keeps its precision. */
static double beta_reg(double a, double b, double x, double y) {
  if (x <= 0) return 0;
  if (y <= 0) return 1;
  double front = exp(a * log(x) + b * log(y) - (lgamma(a) + lgamma(b) - lgamma(a + b)));
  if (x < (a + 1) / (a + b + 2)) return front * beta_cf(a, b, x) / a;
  return 1 - front * beta_cf(b, a, y) / b;
}

/* P(|T_df| > t) for t >= 0. */
static double t_tail(double t, double df) {
  double t2 = t * t;
  return beta_reg(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
}

double kg_student_t(double confidence, int df) {
  if (df < 1 || !(confidence > 0 && confidence < 1)) return NAN;
  double alpha = 1 - confidence, lo = 0, hi = 1;
  while (t_tail(hi, df) > alpha) { /* the tail falls with t: bracket the root */
    lo = hi;
    hi *= 2;
    if (!isfinite(hi)) return NAN;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; i++) {
    double mid = lo + (hi - lo) / 2;
    if (t_tail(mid, df) > alpha) lo = mid;
    else hi = mid;
  }
  return lo + (hi - lo) / 2;
}

static int time_ok(double us) { return isfinite(us) && us > 0; }

int kg_pblock_from_pairs(const double *head, const double *base, size_t npairs, kg_pblock *out) {
  /* An empty block carries NaN so that kg_pair_decide ignores it if it is kept. */
  *out = (kg_pblock){.log_ratio = NAN, .pairs = 0, .head_us = NAN, .base_us = NAN};
  size_t kept = 0;
  for (size_t i = 0; i < npairs; i++) kept += time_ok(head[i]) && time_ok(base[i]);
  if (kept == 0 || kept > (size_t)INT_MAX) return -1;
  double *buf = malloc(3 * kept * sizeof *buf);
  if (!buf) return -1;
  double *lr = buf, *h = buf + kept, *b = buf + 2 * kept;
  for (size_t i = 0, k = 0; i < npairs; i++) {
    if (!time_ok(head[i]) || !time_ok(base[i])) continue;
    lr[k] = log(head[i]) - log(base[i]); /* not log(h/b): the quotient of extremes can overflow */
    h[k] = head[i];
    b[k++] = base[i];
  }
  out->log_ratio = kg_median(lr, kept);
  out->head_us = kg_median(h, kept);
  out->base_us = kg_median(b, kept);
  out->pairs = (int)kept;
  free(buf);
  return 0;
}

/* A block that cannot be a measurement is absent: its numbers must not vote. */
static int block_ok(const kg_pblock *b) {
  return isfinite(b->log_ratio) && b->pairs >= 1 && time_ok(b->head_us) && time_ok(b->base_us);
}

void kg_pair_decide(const kg_pblock *b, size_t nb, const kg_pair_rule *rule, kg_pair_stat *out) {
  *out = (kg_pair_stat){.ratio = 1, .lo = 1, .hi = 1, .verdict = KG_PV_UNDECIDED};
  size_t n = 0, first = 0;
  for (size_t i = nb; i-- > 0;)
    if (block_ok(&b[i])) n++, first = i;
  if (n == 0) return;
  /* Shifted by the first block so that identical blocks give s == 0 exactly. */
  double x0 = b[first].log_ratio, sum = 0, ss = 0;
  long pairs = 0;
  for (size_t i = first; i < nb; i++)
    if (block_ok(&b[i])) sum += b[i].log_ratio - x0, pairs += b[i].pairs;
  double m = x0 + sum / (double)n;
  for (size_t i = first; i < nb; i++)
    if (block_ok(&b[i])) ss += (b[i].log_ratio - m) * (b[i].log_ratio - m);
  out->blocks = n > (size_t)INT_MAX ? INT_MAX : (int)n;
  out->pairs = pairs > INT_MAX ? INT_MAX : (int)pairs;
  out->ratio = out->lo = out->hi = exp(m);

  double *buf = malloc(2 * n * sizeof *buf);
  if (buf) {
    for (size_t i = first, k = 0; i < nb; i++)
      if (block_ok(&b[i])) buf[k] = b[i].head_us, buf[n + k++] = b[i].base_us;
    out->head_us = kg_median(buf, n);
    out->base_us = kg_median(buf + n, n);
    free(buf);
  } else {
    out->head_us = out->base_us = NAN; /* unknown, never invented */
  }

  int rule_ok = isfinite(rule->min_effect) && rule->min_effect >= 0 && rule->confidence > 0 && rule->confidence < 1;
  if (n < 2 || !rule_ok) return;
  double h = kg_student_t(rule->confidence, (int)(n - 1 > (size_t)INT_MAX ? (size_t)INT_MAX : n - 1)) *
             sqrt(ss / (double)(n - 1)) / sqrt((double)n);
  double e = log1p(rule->min_effect);
  out->lo = exp(m - h);
  out->hi = exp(m + h);
  if (m - h > e) out->verdict = KG_PV_SLOWER;
  else if (m + h < -e) out->verdict = KG_PV_FASTER;
  else if (m - h > -e && m + h < e) out->verdict = KG_PV_SAME;
}
