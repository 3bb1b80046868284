/* The paired gate's statistics: the change's kernel (head) against the base's,
 * timed side by side in one worker, decided from the ratio head/base.
 *
 * The unit of evidence is a block: one separately allocated input copy in one
 * worker process, in which head and base samples were taken interleaved
 * (ABBA) on the same buffers after the same L2 flush. A block's estimate is
 * the median of ln(head/base) over its sample pairs, so a preempted sample
 * does not move it. Blocks are the replicates because the variance of a
 * kernel's time lives between processes and allocations (placement), not
 * between samples of one process: pooling every pair as independent, as a
 * Mann-Whitney test over samples would, understates the uncertainty. The
 * cell's estimate is the mean of its block estimates with a Student t
 * interval over blocks (see paired.c for the arithmetic and its tests). */
#ifndef KG_PAIRED_H
#define KG_PAIRED_H

#include <stddef.h>

#include "outcome.h"

/* The decision settings. Effects are fractions: 0.01 is 1 %. */
typedef struct kg_pair_rule {
  double min_effect; /* smallest slowdown (or speed-up) worth a verdict; ratio beyond 1 +- this */
  double confidence; /* two-sided level of the interval, e.g. 0.99 */
} kg_pair_rule;

/* The default minimum effect for an input of this many bytes (paired.c says
 * how it was calibrated); override_pct > 0 replaces it (percent). */
double kg_pair_min_effect(size_t bytes, double override_pct);

/* Summarises nb blocks under rule. nb == 0 gives blocks = 0, ratio = lo = hi = 1, UNDECIDED. */
void kg_pair_decide(const kg_pblock *b, size_t nb, const kg_pair_rule *rule, kg_pair_stat *out);

/* The two-sided Student t quantile: t such that P(|T_df| <= t) = confidence,
 * for df >= 1 and 0 < confidence < 1 (accurate to 1e-6 relative). */
double kg_student_t(double confidence, int df);

/* A block's estimate from its samples: head[i] and base[i] are a pair (taken
 * back to back, in either order). Fills log_ratio, pairs, head_us, base_us.
 * Pairs with a non-finite or non-positive time are dropped; 0, or -1 when
 * none is left. */
int kg_pblock_from_pairs(const double *head, const double *base, size_t npairs, kg_pblock *out);

#endif
