/* The detector's calibration on recorded nights (history calibrate): whole
 * nights of a history with no change in them (A/A: tonight's build is the
 * reference) are resampled into long series, steps are planted into one cell
 * at a random night, and the detector (detect.h) is run on each series. The
 * result is the false-alarm rate across all cells and, per size and step,
 * how often and how fast the step is flagged, beside the old rule that
 * compares consecutive runs' absolute times. docs/nightly.md holds the table
 * for the committed fixture (tests/data/nightly). */
#ifndef KG_REPLAY_H
#define KG_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "detect.h"
#include "history.h"

#define KG_REPLAY_STEPS 5
#define KG_REPLAY_SIZES 8

typedef struct kg_replay_opts {
  uint64_t seed;
  int series;      /* A/A series of `nights` nights for the false-alarm rate */
  int nights;      /* length of an A/A series (60: two months of nights) */
  int plants;      /* planted steps per size and step */
  int within;      /* a plant counts as flagged when the alarm comes within this many nights (3) */
  kg_detect_opts detect;
} kg_replay_opts;

typedef struct kg_replay_row {
  size_t n;            /* the cells' element count */
  double step;         /* the planted slowdown, a fraction (0.005: 0.5 %) */
  int plants;
  int flagged;         /* alarmed within `within` nights of the step */
  int flagged_ever;    /* alarmed by the end of the series */
  int right_night;     /* of the flagged: the estimated first bad night is the step's */
  double delay_median; /* nights from the step to the alarm, the step night counted as 1 (flagged ones) */
  int old_flagged;     /* the consecutive-run rule on absolute times, within `within` nights */
} kg_replay_row;

typedef struct kg_replay_result {
  size_t pool, cells, cards; /* nights resampled, cells per night, distinct cards among them */
  /* false alarms: regression alarms (cells) per `nights` nights across all cells */
  double fa_per_series, old_fa_per_series;
  int fa_series_with_any; /* A/A series with at least one alarm */
  int blips, blip_alarms; /* one-night +5 % blips planted, and those that alarmed */
  int ramps, ramp_flagged; /* +0.1 % a night from a random night on: flagged within 10 nights */
  int noisy, noisy_alarms; /* a cell whose night-to-night spread doubles: alarms */
  int card_blocks, card_block_alarms; /* half the nights from one card, then another: alarms */
  size_t nrows;
  kg_replay_row rows[KG_REPLAY_SIZES * KG_REPLAY_STEPS];
} kg_replay_result;

kg_replay_opts kg_replay_defaults(void);

/* Runs the calibration over the nights of pool (each with a paired section).
 * 0, or -1 with err (too few nights, out of memory). */
int kg_replay(const kg_history *pool, const kg_replay_opts *o, kg_replay_result *out, char *err, size_t errlen);

/* The result as Markdown: the table docs/nightly.md shows. */
void kg_replay_markdown(FILE *f, const kg_replay_opts *o, const kg_replay_result *r);

#endif
