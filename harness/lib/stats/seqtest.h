/* The paired gate's sequential decision: an indifference-zone test per cell,
 * looked at after every round, that separates "does not matter" from "sure".
 *
 * Effects are on the log scale of the blocks (paired.h): e1 = ln(1 + m), m
 * the minimum effect, and e0 = ln(1 + delta0) with delta0 = m / 2, the
 * indifference zone's lower edge. Two one-sided tests run side by side:
 *   slower:  H0 mean <= e0   against  H1 mean >= e1
 *   faster:  H0 mean >= -e0  against  H1 mean <= -e1
 * each a generalized sequential probability ratio test (GSPRT, as fishtest
 * runs on paired games) on the blocks' log ratios with the normal model and
 * sigma unknown: under each hypothesis the mean and sigma take their maximum
 * likelihood values (the mean held to the hypothesis's side), so
 *   LLR = (n / 2) ln(V0 / V1),  V(mu) = mean of (x - mu)^2 over the n blocks,
 * V0 at the closest mean H0 allows and V1 at the closest H1 allows. Wald's
 * bounds with the stated error rates decide:
 *   SLOWER     LLR_slower >= ln((1 - beta) / alpha)
 *   FASTER     LLR_faster >= ln((1 - beta) / alpha)
 *   SAME       LLR_slower <= ln(beta / (1 - alpha)) and LLR_faster <= that too
 *   UNDECIDED  otherwise (more rounds, or the round cap reached)
 * alpha is the chance of a false SLOWER at a true effect of delta0 (and of a
 * false FASTER at -delta0), beta the chance of missing a true effect of m;
 * at a true effect of 0 (A/A) a false verdict is far rarer than alpha. The
 * bounds are Wald's; how the test with sigma estimated keeps them is
 * measured, not assumed: the replay (seqreplay.h) on recorded blocks and
 * tests/check_seqreplay.c, and on the GPU with slowdowns planted at m and
 * m/2 (docs/timing-and-verdicts.md). */
#ifndef KG_SEQTEST_H
#define KG_SEQTEST_H

#include <stddef.h>

#include "outcome.h"

/* The defaults, and why (docs/timing-and-verdicts.md measures them):
 * alpha 0.002: a false SLOWER at delta0 in at most 0.2 % of cells, under
 *   the aim of 0.5 % for m/2 with room for blocks of one worker that lean
 *   together (the replay with a tenth of their variance shared: 0.19 %); at
 *   a true 0 the replay sees about 1e-6 a cell, so a gate of 240 A/A cells
 *   sees a false verdict in well under 0.5 % of runs. 0.005 gave 2-3e-5
 *   a cell on the H100 nights and 0.33 % at m/2 with that lean.
 * beta 0.05: power 95 % at m, counting a cell left UNDECIDED at the round
 *   cap (12, --max-rounds) as a miss: the replay's power at m is 95-98 %. */
#define KG_SEQ_ALPHA 0.002
#define KG_SEQ_BETA 0.05
#define KG_SEQ_DELTA0_SHARE 0.5 /* delta0 = m times this */
/* SLOWER and FASTER need blocks from this many worker processes (rounds):
 * a round's copies share their worker's state, so one round's spread
 * understates the next worker's (an 8-copy round put 7 false verdicts in
 * 1,200 A/A cells, docs/timing-and-verdicts.md). SAME may come after one. */
#define KG_SEQ_CHANGE_ROUNDS 2

typedef struct kg_seq_rule {
  double min_effect; /* m, a fraction (0.005 = 0.5 %) */
  double delta0;     /* the indifference zone's lower edge, a fraction below m (m / 2 by default) */
  double alpha, beta;
} kg_seq_rule;

/* The default rule for a minimum effect m. */
kg_seq_rule kg_seq_rule_for(double min_effect);

/* Wald's bounds of a rule: upper ln((1 - beta) / alpha), lower ln(beta / (1 - alpha)). */
double kg_seq_upper(const kg_seq_rule *r);
double kg_seq_lower(const kg_seq_rule *r);

/* A rule that can decide: 0 < delta0 < m, 0 < alpha, beta < 0.5. */
int kg_seq_rule_ok(const kg_seq_rule *r);

/* The evidence of a cell (or of a pool of cells). */
typedef struct kg_seq_stat {
  int blocks;                     /* blocks used (finite, with pairs and times: paired.c's block_ok) */
  double llr_slower, llr_faster;  /* the two log-likelihood ratios, clamped to +-KG_SEQ_LLR_MAX */
  kg_pverdict verdict;            /* SAME / SLOWER / FASTER / UNDECIDED */
} kg_seq_stat;

#define KG_SEQ_LLR_MAX 1e6 /* identical blocks give an unbounded ratio: a file keeps it finite */

/* The decision on nb blocks (those a block of paired.c would not count are
 * skipped); may_change 0 allows SAME or UNDECIDED only (fewer rounds than
 * KG_SEQ_CHANGE_ROUNDS). Fewer than two blocks, or a rule that cannot
 * decide: UNDECIDED with both ratios 0. */
void kg_seq_decide(const kg_pblock *b, size_t nb, const kg_seq_rule *r, int may_change, kg_seq_stat *out);

/* The two ratios of n log ratios x[0..n) (n >= 2), e0 = ln(1 + delta0),
 * e1 = ln(1 + m); what kg_seq_decide computes, for the replay. */
void kg_seq_llr(const double *x, size_t n, double e0, double e1, double *slower, double *faster);

/* The verdict of two ratios under r (the bounds above). */
kg_pverdict kg_seq_verdict(double llr_slower, double llr_faster, const kg_seq_rule *r, int may_change);

#endif
