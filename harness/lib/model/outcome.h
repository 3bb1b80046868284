/* What a decision says, as data: the verdicts of a comparison against a
 * baseline and of the paired gate, their names and report order, and the
 * numbers a paired cell keeps. Results files, histories and every report
 * hold these; stats/ (verdict.c, paired.c) makes them. */
#ifndef KG_OUTCOME_H
#define KG_OUTCOME_H

typedef enum kg_verdict {
  KG_V_SAME,    /* within tolerance, or intervals overlap */
  KG_V_SLOWER,  /* median beyond +tolerance and now.q1 > base.q3 */
  KG_V_FASTER,  /* median beyond -tolerance and now.q3 < base.q1 */
  KG_V_NEW,     /* timed now, not in the baseline */
  KG_V_MISSING, /* in the baseline, not in this run */
  KG_V_UNKNOWN, /* the case failed its check, so it has no timing (whether or not in the baseline) */
  KG_NVERDICTS
} kg_verdict;

const char *kg_verdict_name(kg_verdict v); /* "SAME", "SLOWER", ... */
/* Report order: what may block a merge first (SLOWER 0, UNKNOWN, MISSING,
 * FASTER, NEW), SAME last (5). */
int kg_verdict_rank(kg_verdict v);

typedef enum kg_pverdict {
  KG_PV_SAME,      /* the interval lies wholly inside (-min effect, +min effect) */
  KG_PV_SLOWER,    /* the interval lies wholly above +min effect */
  KG_PV_FASTER,    /* the interval lies wholly below -min effect */
  KG_PV_UNDECIDED, /* anything else, or fewer than two blocks */
  KG_PV_NEW,       /* the variant (for this dtype) is only in head */
  KG_PV_MISSING,   /* only in base */
  KG_PV_UNKNOWN,   /* in both, but head failed its check or a timing errored */
  KG_PV_UNCHANGED, /* proven identical: the same machine code and launches in base and head, so not timed */
  KG_NPVERDICTS
} kg_pverdict;

const char *kg_pverdict_name(kg_pverdict v); /* "SAME", "SLOWER", ..., "UNCHANGED" */

/* Every verdict once, in report order: the ones that block or need a look
 * first (kg_pair_sort's order), SAME and UNCHANGED (no change) last. */
extern const kg_pverdict kg_pverdict_order[KG_NPVERDICTS];

/* A verdict's place in kg_pverdict_order (KG_NPVERDICTS past the table). */
int kg_pverdict_rank(kg_pverdict v);

/* What an UNCHANGED cell means, in the reports' words (its message holds the evidence). */
#define KG_PV_UNCHANGED_ABOUT "identical machine code and launches in base and head"

/* One block: an input copy in one worker process. */
typedef struct kg_pblock {
  double log_ratio; /* median over pairs of ln(head_us / base_us) */
  int pairs;        /* sample pairs behind it (>= 1) */
  double head_us, base_us; /* median sample times of the block, microseconds */
} kg_pblock;

/* The summary of a cell's blocks. Ratios are exp() of the log-scale numbers. */
typedef struct kg_pair_stat {
  int blocks, pairs;
  double ratio;        /* exp(mean of block log ratios): head / base, > 1 is slower */
  double lo, hi;       /* the interval on the ratio at rule.confidence (lo = hi = ratio for one block: UNDECIDED) */
  double head_us, base_us; /* medians of the block medians */
  kg_pverdict verdict; /* SAME / SLOWER / FASTER / UNDECIDED */
} kg_pair_stat;

#endif
