/* The sequential decision (seqtest.h) replayed on recorded cells: how often
 * it says SLOWER, FASTER, SAME or UNDECIDED at a true effect of 0 (A/A), of
 * delta0 (m / 2) and of m, and after how many rounds.
 *
 * A results file records each paired cell's blocks as their count and a
 * Student t interval (paired.c), not block by block. The interval's
 * half-width is t(confidence, blocks - 1) * s / sqrt(blocks), so each
 * measured cell gives back its block spread s: the spread the replay's
 * blocks get. A replayed cell is a recorded cell drawn at random (with
 * replacement); its rounds give `copies` blocks each, s times a unit-variance
 * deviate (normal, or Student t with `df` degrees of freedom for heavier
 * tails than the test assumes) plus the planted shift ln(1 + shift * m), m
 * the recorded cell's minimum effect; the test looks after every round
 * (SLOWER and FASTER from KG_SEQ_CHANGE_ROUNDS on) until it decides or the
 * round cap is reached (UNDECIDED). The recorded mean is not replayed: an
 * A/A cell's true effect is 0 and its recorded mean is its noise. */
#ifndef KG_SEQREPLAY_H
#define KG_SEQREPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "history.h"
#include "outcome.h"
#include "results.h"
#include "seqtest.h"

/* One recorded cell as the replay uses it. */
typedef struct kg_seq_cell {
  double sigma;      /* the blocks' spread, log scale */
  double min_effect; /* m, a fraction */
  size_t n;          /* elements (for the per-size rows) */
} kg_seq_cell;

/* The measured cells of run (blocks >= 2, a finite interval wider than a
 * point, a minimum effect > 0) into *cells (malloc'ed); aa_only: only those
 * whose verdict is SAME (base and head did not differ: the A/A cells). 0,
 * or -1 when none (err says why) or out of memory. */
int kg_seq_cells(const kg_run *run, int aa_only, kg_seq_cell **cells, size_t *ncells, char *err, size_t errlen);

/* The same from the nights of a history (history.h): every cell of every
 * night with a paired section, its spread from its interval over
 * rounds x copies blocks (a history line keeps the rounds, not the
 * copies: the nightly's are the default 4), its minimum effect the default
 * for its size (paired.h). A night is an A/A night when tonight's build is
 * the reference (tests/data/nightly/h100-aa16.jsonl). 0, or -1 (err). */
int kg_seq_cells_history(const kg_history *h, int copies, kg_seq_cell **cells, size_t *ncells, char *err,
                         size_t errlen);

typedef struct kg_seq_replay_opts {
  uint64_t seed;
  long trials;      /* replayed cells */
  double shift;     /* the planted effect in units of each cell's m: 0, 0.5 (delta0), 1 (m) */
  int copies;       /* blocks a round */
  int max_rounds;   /* the round cap */
  int df;           /* 0: normal deviates; else Student t with df > 2 degrees of freedom */
  /* the share of a block's variance its worker (round) gives all its
   * blocks alike, 0 <= share < 1: the copies of one worker share its state,
   * which the test does not model (0: independent blocks) */
  double round_share;
  double only_effect; /* > 0: replay only cells with this minimum effect (a size class) */
  /* 0: the sequential test with rule_for(m) and these error rates; 1: the
   * interval rule before it (paired.c at 0.99, stopping at the first round
   * its 99.5 % interval decides, rounds 2, at most max_rounds), to compare */
  int interval_rule;
  double alpha, beta;
} kg_seq_replay_opts;

typedef struct kg_seq_replay_result {
  long trials;
  long count[KG_NPVERDICTS]; /* by verdict */
  double mean_rounds;
  long first_round;          /* trials decided after one round */
} kg_seq_replay_result;

kg_seq_replay_opts kg_seq_replay_defaults(void);

/* Replays o->trials cells drawn from cells[0..ncells). 0, or -1 when no
 * cell qualifies or the options cannot be replayed. Deterministic in
 * o->seed. */
int kg_seq_replay(const kg_seq_cell *cells, size_t ncells, const kg_seq_replay_opts *o, kg_seq_replay_result *out);

#endif
