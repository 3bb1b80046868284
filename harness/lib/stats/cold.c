/* The cold-L2 verdict (cold.h). */
#include "cold.h"

#include <math.h>
#include <stdio.h>

#include "stats.h"

int kg_cold_too_large(size_t bytes, long long l2_bytes) { return l2_bytes <= 0 || (double)bytes > l2_bytes / 2.0; }

/* The finite values of x[0..n) (at most KG_COLD_READS) into out; their count. */
static size_t kept_reads(const double *x, size_t n, double *out) {
  size_t k = 0;
  for (size_t i = 0; i < n && k < KG_COLD_READS; i++)
    if (isfinite(x[i]) && x[i] > 0) out[k++] = x[i];
  return k;
}

void kg_cold_judge(size_t bytes, long long l2_bytes, int hot, const double *flushed, size_t nf,
                   const double *unflushed, size_t nu, kg_guard *g) {
  g->cold_why[0] = '\0';
  g->flushed_us = g->unflushed_us = 0;
  if (hot) {
    g->cold = KG_COLD_HOT;
    return;
  }
  if (kg_cold_too_large(bytes, l2_bytes)) {
    g->cold = KG_COLD_TOO_LARGE;
    return;
  }
  g->cold = KG_COLD_NOT_VERIFIED;
  double f[KG_COLD_READS], u[KG_COLD_READS];
  size_t kf = kept_reads(flushed, nf, f), ku = kept_reads(unflushed, nu, u);
  if (kf < 3 || ku < 3) {
    snprintf(g->cold_why, sizeof g->cold_why, "%s", bytes < 16 ? "an input under 16 bytes: nothing to read"
                                                                : "too few reads (set aside: clock-lowering reasons)");
    return;
  }
  double fmin = f[0], umax = u[0];
  for (size_t i = 1; i < kf; i++) fmin = f[i] < fmin ? f[i] : fmin;
  for (size_t i = 1; i < ku; i++) umax = u[i] > umax ? u[i] : umax;
  g->flushed_us = kg_median(f, kf), g->unflushed_us = kg_median(u, ku);
  if (g->flushed_us > g->unflushed_us * (1 + KG_COLD_MIN_GAP) && fmin > umax) {
    g->cold = KG_COLD_VERIFIED;
    return;
  }
  snprintf(g->cold_why, sizeof g->cold_why, "flushed reads (%.3g us) no slower than unflushed (%.3g us)",
           g->flushed_us, g->unflushed_us);
}
