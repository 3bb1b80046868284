/* The detector's calibration on recorded nights (history calibrate): whole
 * nights of a history with no change in them (A/A: tonight's build is the
 * reference) are resampled into long series (whole nights keep the
 * correlation between the cells of a night), steps are planted, and the
 * detector (detect.h) is run on each series, beside the detector as it was
 * before (kg_detect_legacy) and the old rule that compares consecutive runs'
 * absolute times. docs/nightly.md holds the tables for the committed
 * fixture (tests/data/nightly). */
#ifndef KG_REPLAY_H
#define KG_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "detect.h"
#include "history.h"

#define KG_REPLAY_STEPS 5
#define KG_REPLAY_SIZES 8
#define KG_REPLAY_POOLS 3

typedef struct kg_replay_opts {
  uint64_t seed;
  int series;   /* A/A series of `nights` nights for the false-alarm rate */
  int nights;   /* length of an A/A series (60: two months of nights) */
  int plants;   /* planted series per row */
  int within;   /* a plant counts as flagged when the alarm comes within this many nights (3) */
  double scale; /* each cell's distance from its median night times this: sqrt(recorded rounds / R) replays R rounds */
  int aim_only; /* only the false alarms and the steps at the aim */
  kg_detect_opts detect;
} kg_replay_opts;

/* A step planted into every cell of one size at one night: each cell's
 * chance to be flagged within `within` nights (P), over the plants. */
typedef struct kg_replay_row {
  size_t n;            /* the cells' element count */
  double step;         /* the planted slowdown, a fraction (0.005: 0.5 %) */
  int plants, cells;   /* series planted; cells of this size */
  double p;            /* flagged within `within` nights, over cells and plants */
  double cells_at_95;  /* the share of cells whose own P is >= 0.95 */
  double right_night;  /* of the flagged: the estimated first bad night is the step's */
  double delay_median; /* nights from the step to the alarm, the step night counted as 1 (flagged ones) */
  double legacy_p, legacy_cells_at_95; /* the detector before */
  double old_p;        /* the consecutive-run rule on absolute times, within `within` nights */
  int aim;             /* the step is the aim at this size (the design step) */
} kg_replay_row;

/* A step planted into every cell of one variant (each size at `share` of its aim). */
typedef struct kg_replay_pool_row {
  double share;
  int plants;
  double pooled_p, cells_p; /* the variant flagged within `within` nights: with the pooled detector, cells only */
} kg_replay_pool_row;

typedef struct kg_replay_result {
  size_t pool, cells, cards; /* nights resampled, cells per night, distinct cards among them */
  size_t variants;
  /* false alarms per `nights` nights: alarms of the cells' and the pooled detectors, the detector before,
   * the old rule */
  double fa_cells, fa_pooled, fa_legacy, fa_old;
  int fa_series_with_any; /* A/A series with at least one alarm */
  size_t nrows;
  kg_replay_row rows[KG_REPLAY_SIZES * KG_REPLAY_STEPS];
  kg_replay_pool_row pools[KG_REPLAY_POOLS];
  int swaps;              /* the aim planted on the night the runner changed card: series */
  double swap_p;          /* cells flagged as a regression within `within` nights */
  double swap_legacy_p;
  int blips, blip_alarms; /* one-night +5 % blips planted, and those that alarmed */
  int ramps, ramp_flagged; /* +0.1 % a night from a random night on: flagged within 10 nights */
  int noisy, noisy_alarms; /* a cell whose night-to-night spread doubles: alarms */
  int card_blocks, card_block_alarms; /* half the nights from one card, then another: alarms */
  /* Card offsets, per cell size (one-way random effects over the pool's
   * cards, each cell's nights in units of its own spread, pooled over the
   * cells of a size): the share of a night's variance that is the card's
   * (tau^2 / (tau^2 + within)), NaN when no card has two nights. */
  size_t ncard_sizes;
  size_t card_n[KG_REPLAY_SIZES];
  double card_share[KG_REPLAY_SIZES];
} kg_replay_result;

kg_replay_opts kg_replay_defaults(void);

/* Runs the calibration over the nights of pool (each with a paired section).
 * 0, or -1 with err (too few nights, out of memory). */
int kg_replay(const kg_history *pool, const kg_replay_opts *o, kg_replay_result *out, char *err, size_t errlen);

/* The result as Markdown: the tables docs/nightly.md shows. */
void kg_replay_markdown(FILE *f, const kg_replay_opts *o, const kg_replay_result *r);
/* One line per size: the aim's P and cells at 0.95, and the false alarms (the rounds table). */
void kg_replay_aim_markdown(FILE *f, int rounds, const kg_replay_opts *o, const kg_replay_result *r);

#endif
