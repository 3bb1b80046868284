/* The nightly's detector: each paired cell's series of ratios to the pinned
 * reference (history.h, kg_hist_paired), read by a clipped one-sided CUSUM on
 * the log ratio in both directions. Only regressions fail; improvements are
 * recorded. The false-alarm rate and the delay are measured by replaying
 * recorded nights (docs/nightly.md); the defaults come from there. */
#ifndef KG_DETECT_H
#define KG_DETECT_H

#include <stddef.h>

#include "history.h"

/* Two detectors watch the nights. Per cell, a CUSUM tuned to one step:
 * `design` times the PR gate's minimum effect for the cell's input size
 * (paired.h; 0.5: 0.25 % at 2^25, 0.5 % at 2^22), delta = that step in the
 * cell's sigmas (kept within [delta_min, delta_max]), k = delta / 2, scores
 * clipped to delta + 1, h from arl0 and at least clip - k + 0.5 (one night
 * never alarms alone). Per variant, a pooled CUSUM on the sum of its watched
 * cells' scores (each clipped to +-3) over the square root of their count,
 * tuned to pool_delta of its own sigmas with arl0_pooled: a regression of a
 * variant moves all its dtypes and sizes, and the sum gains sqrt(m) in
 * signal to noise. The false-alarm budget is split between the two. */
typedef struct kg_detect_opts {
  double arl0;        /* nights between false alarms per cell at no change (Siegmund; sets h) */
  double arl0_pooled; /* the same per variant, for the pooled detector */
  double design;      /* the step to catch, as a share of the gate's minimum effect */
  double delta_min, delta_max;
  double pool_delta;  /* the pooled detector's step, in its own sigmas */
  int warmup;         /* nights that set a series' level before it is watched (at most 64) */
  int pooled;         /* run the pooled per-variant detector */
  int legacy;         /* the detector as it was before (replay's comparison): a fixed warm-up level, sigma
                         floored by its size class's median and by the step / delta_max */
  double health_pct;  /* the reference's own time this much slower than its card's median: runner health */
} kg_detect_opts;

/* The calibrated defaults (docs/nightly.md). */
kg_detect_opts kg_detect_defaults(void);
/* The detector before sigma was shrunk and cells pooled (arl0 50,000, the
 * gate's minimum effect, delta 2-5, its sigma floors): the replay prints it
 * beside the defaults. */
kg_detect_opts kg_detect_legacy(void);

/* The CUSUM threshold h for an average run length arl0 at no change, by
 * Siegmund's approximation with k = delta / 2 (solved by bisection). */
double kg_cusum_threshold(double arl0, double delta);

/* A cell's tuning: k, the clip and h for a night-to-night sigma (log scale)
 * and the cell's input bytes. */
double kg_cusum_step(const kg_detect_opts *o, size_t bytes); /* the step to catch (log scale) */
void kg_cusum_tune(const kg_detect_opts *o, double sigma, size_t bytes, double *k, double *clip, double *h);

typedef enum kg_find_kind {
  KG_FIND_REGRESSION,  /* cells slower than their accepted level: fails (exit 4) while open */
  KG_FIND_ENVIRONMENT, /* the control or the reference's own time moved in its window: the machine, not a commit */
  KG_FIND_HEALTH,      /* the reference itself slower on its card than that card's history */
  KG_FIND_IMPROVEMENT, /* cells faster: recorded, never fails */
  KG_NFIND_KINDS
} kg_find_kind;

typedef struct kg_find_cell {
  char variant[64];
  kg_dtype dtype;
  size_t n;
  double before, after; /* the cell's accepted ratio level, and its median since the change */
} kg_find_cell;

typedef struct kg_finding {
  kg_find_kind kind;
  size_t first_bad; /* history run index of the estimated change night */
  size_t last_good; /* the run before it (== first_bad when there is none) */
  size_t alarm;     /* the run at which the detector crossed its threshold */
  int acknowledged; /* closed by an acknowledgement in the repository */
  size_t ncells;
  kg_find_cell *cells;
  char note[256]; /* health and environment: what moved, in words */
} kg_finding;

/* An acknowledgement: the level from night `from` on is accepted for these
 * cells (all cells when ncells == 0): a finding whose change night is `from`
 * (or lies between its last good night and its alarm) is closed, and the
 * cell is watched again from that night with a new level. Lives in the repository, one JSON file
 * (nightly/acknowledged.json, kg_acks_read). */
typedef struct kg_ack {
  char from[64]; /* the first bad night's kgate_commit (7-40 hex) or date */
  char reason[200];
  size_t ncells;
  kg_find_cell *cells; /* variant, dtype, n only */
} kg_ack;

typedef struct kg_acks {
  size_t n;
  kg_ack *acks;
} kg_acks;

int kg_acks_read(const char *path, kg_acks *a, char *err, size_t errlen); /* -1 with a one-line reason */
void kg_acks_free(kg_acks *a);

/* One cell's watched series, for charts: per history run, the ratio and its
 * interval (NaN where the run lacks the cell) and the CUSUM statistics. */
typedef struct kg_series {
  char variant[64];
  kg_dtype dtype;
  size_t n;
  /* the night-to-night sigma (log scale, shrunk toward its size class) and the accepted level (ratio) */
  double sigma, level;
  double k, h;         /* its CUSUM's allowance and threshold (kg_cusum_tune) */
  double *ratio, *lo, *hi, *up, *down; /* h->n each; up/down: the CUSUM sums (NaN: not watched) */
  double *z;                           /* the clipped score of each watched night */
} kg_series;

typedef struct kg_detection {
  size_t nfind;
  kg_finding *find; /* open regressions first, then the rest, newest first */
  size_t nseries;
  kg_series *series; /* every paired cell of the history, sorted by (variant, dtype, n) */
  size_t open_regressions;
  size_t cell_alarms, pooled_alarms; /* regression alarms (not the environment's) of each detector */
} kg_detection;

/* Runs the detector over the whole history. acks may be NULL. 0, or -1 out of memory. */
int kg_detect(const kg_history *h, const kg_acks *acks, const kg_detect_opts *o, kg_detection *out);
void kg_detection_free(kg_detection *d);

#endif
