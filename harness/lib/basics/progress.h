/* The progress of a run on stderr. On a terminal: one live line, redrawn
 * with "\r". In a CI log (not a terminal), where "\r" lines pile up or show
 * nothing until the end: a line when a phase starts, at most one count line
 * per interval (cases done of total, failures, an ETA), and a line when a
 * phase ends. -q: nothing (out NULL). */
#ifndef KG_PROGRESS_H
#define KG_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

/* Ten seconds: a ten-minute sweep logs about 60 lines, and a stuck one shows within 10 s. */
#define KG_PROGRESS_INTERVAL_S 10.0

typedef struct kg_progress {
  FILE *out;           /* NULL: silent */
  int tty;             /* out is a terminal: the live line */
  double interval_s;   /* not a terminal: the least time between count lines */
  double (*now)(void); /* the clock (kg_now_s); tests pass their own */
  double t0;           /* when the run started */
  double phase_t0;     /* when the current phase started */
  double last;         /* when the last count line was printed; < phase_t0: none yet */
  char phase[48];      /* "check", "paired rounds", ... */
  size_t failed;       /* failed or errored cases in this phase */
  int counts;          /* not a terminal: the count and done lines (a phase sets 1; 0 where the
                        * phase logs itself, as the paired rounds do a line per round) */
  char held[224];      /* a held phase's line, until kg_progress_start; "" when none */
} kg_progress;

/* out NULL: silent; tty: whether out is a terminal; now NULL: kg_now_s. */
void kg_progress_init(kg_progress *p, FILE *out, int tty, double (*now)(void));
/* A phase starts; not a terminal: "kgate: PHASE: DETAIL" (DETAIL may be NULL). */
void kg_progress_phase(kg_progress *p, const char *phase, const char *detail);
/* The same, its line held until kg_progress_start (a later phase drops it):
 * a phase whose work begins once a worker says hello, so that a worker that
 * cannot start (no driver, no device) is said before the plan's line. */
void kg_progress_phase_held(kg_progress *p, const char *phase, const char *detail);
/* Says a held phase's line, and its clock starts now; nothing when none is held. */
void kg_progress_start(kg_progress *p);
/* Case done of total finished (label names it; failed: it failed or errored).
 * The last case of a phase ends it: on a terminal the live line is cleared;
 * in a log "kgate: PHASE: done, N cases, F failed, in S s". */
void kg_progress_case(kg_progress *p, size_t done, size_t total, const char *label, int failed);
/* Clears a live line that was left drawn (a run stopped by a signal). */
void kg_progress_clear(const kg_progress *p);

#endif
