/* The paired gate's sequential decision (seqtest.h says what it tests).
 *
 * With n blocks x, mean xb and v = mean of (x - xb)^2 (the maximum
 * likelihood variance), the normal log-likelihood maximized over sigma at a
 * mean mu is -(n / 2) ln V(mu) + const, V(mu) = v + (xb - mu)^2. Under
 * "mean <= e0" the best mean is min(xb, e0), under "mean >= e1" max(xb, e1);
 * the ratio of the two maxima is (n / 2) ln(V0 / V1). It is a one-sided t
 * test's statistic in likelihood form: where xb >= e1 it is
 * (n / 2) ln(1 + t^2 / (n - 1)) with t the t statistic of xb against e0.
 * A mean far beyond e1 is thus strong evidence for "slower", which a test of
 * the points e0 against e1 would not give (both fit badly). */
#include "seqtest.h"

#include <math.h>
#include <stdlib.h>

kg_seq_rule kg_seq_rule_for(double min_effect) {
  return (kg_seq_rule){min_effect, min_effect * KG_SEQ_DELTA0_SHARE, KG_SEQ_ALPHA, KG_SEQ_BETA};
}

double kg_seq_upper(const kg_seq_rule *r) { return log((1 - r->beta) / r->alpha); }
double kg_seq_lower(const kg_seq_rule *r) { return log(r->beta / (1 - r->alpha)); }

int kg_seq_rule_ok(const kg_seq_rule *r) {
  return isfinite(r->min_effect) && r->delta0 > 0 && r->delta0 < r->min_effect && r->alpha > 0 && r->alpha < 0.5 &&
         r->beta > 0 && r->beta < 0.5;
}

static double clamp(double x) {
  return x > KG_SEQ_LLR_MAX ? KG_SEQ_LLR_MAX : x < -KG_SEQ_LLR_MAX ? -KG_SEQ_LLR_MAX : x;
}

/* (n / 2) ln(V0 / V1) for "mean <= lo" against "mean >= hi" (lo < hi). */
static double side(double xb, double v, double n, double lo, double hi) {
  double a = xb > lo ? xb - lo : 0, b = xb < hi ? hi - xb : 0;
  double v0 = v + a * a, v1 = v + b * b;
  /* identical blocks (v = 0) on one side's ground: that side fits exactly */
  if (v1 <= 0) return KG_SEQ_LLR_MAX;
  if (v0 <= 0) return -KG_SEQ_LLR_MAX;
  return clamp(n / 2 * log(v0 / v1));
}

/* The mean and the maximum-likelihood variance of the x[i] whose ok[i]
 * (every one for ok NULL), shifted by the first so that identical values
 * give v == 0 exactly; n the count. */
static void moments(const double *x, size_t stride, size_t nx, const int *ok, double *xb, double *v, size_t *n) {
  double x0 = NAN, sum = 0, ss = 0;
  size_t k = 0;
  for (size_t i = 0; i < nx; i++) {
    if (ok && !ok[i]) continue;
    double y = *(const double *)((const char *)x + i * stride);
    if (!k) x0 = y;
    sum += y - x0, k++;
  }
  *n = k, *xb = k ? x0 + sum / (double)k : NAN;
  for (size_t i = 0; i < nx; i++) {
    if (ok && !ok[i]) continue;
    double d = *(const double *)((const char *)x + i * stride) - *xb;
    ss += d * d;
  }
  *v = k ? ss / (double)k : NAN;
}

void kg_seq_llr(const double *x, size_t n, double e0, double e1, double *slower, double *faster) {
  double xb, v;
  size_t k;
  moments(x, sizeof *x, n, NULL, &xb, &v, &k);
  *slower = side(xb, v, (double)k, e0, e1);
  *faster = side(-xb, v, (double)k, e0, e1);
}

kg_pverdict kg_seq_verdict(double llr_slower, double llr_faster, const kg_seq_rule *r, int may_change) {
  double up = kg_seq_upper(r), lo = kg_seq_lower(r);
  if (may_change && llr_slower >= up) return KG_PV_SLOWER;
  if (may_change && llr_faster >= up) return KG_PV_FASTER;
  if (llr_slower <= lo && llr_faster <= lo) return KG_PV_SAME;
  return KG_PV_UNDECIDED;
}

static int time_ok(double us) { return isfinite(us) && us > 0; }

void kg_seq_decide(const kg_pblock *b, size_t nb, const kg_seq_rule *r, int may_change, kg_seq_stat *out) {
  *out = (kg_seq_stat){.verdict = KG_PV_UNDECIDED};
  if (!nb) return;
  int *ok = calloc(nb, sizeof *ok);
  if (!ok) return; /* out of memory: UNDECIDED with no blocks, never a verdict */
  /* paired.c's block_ok: a block that cannot be a measurement does not vote */
  for (size_t i = 0; i < nb; i++)
    ok[i] = isfinite(b[i].log_ratio) && b[i].pairs >= 1 && time_ok(b[i].head_us) && time_ok(b[i].base_us);
  double xb, v;
  size_t n;
  moments(&b[0].log_ratio, sizeof *b, nb, ok, &xb, &v, &n);
  free(ok);
  out->blocks = n > 0x7fffffff ? 0x7fffffff : (int)n;
  if (n < 2 || !kg_seq_rule_ok(r)) return;
  double e0 = log1p(r->delta0), e1 = log1p(r->min_effect);
  out->llr_slower = side(xb, v, (double)n, e0, e1);
  out->llr_faster = side(-xb, v, (double)n, e0, e1);
  out->verdict = kg_seq_verdict(out->llr_slower, out->llr_faster, r, may_change);
}
