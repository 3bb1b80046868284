/* history check: the nightly's findings against the pinned reference
 * (lib/stats/detect.h), for the publish job: a line per finding on stdout, a
 * Markdown summary for the job's step summary, and the exit code. */
#ifndef KG_NIGHTLY_H
#define KG_NIGHTLY_H

typedef struct kg_nightly_opts {
  const char *history; /* HISTORY.jsonl */
  const char *ack;     /* --ack FILE (the acknowledged findings, in the repository), or NULL */
  const char *summary; /* --summary FILE: Markdown ("-" for stdout), or NULL */
} kg_nightly_opts;

/* KG_EXIT_PERF while a regression finding is open, KG_EXIT_OK otherwise,
 * KG_EXIT_USAGE for a history or acknowledgement file kgate refuses. */
int kg_nightly_check(const kg_nightly_opts *o);

/* history calibrate: the detector replayed on unchanged nights (lib/stats/replay.h),
 * its table as Markdown on stdout. KG_EXIT_USAGE for a history it refuses. */
int kg_nightly_calibrate(const char *nights, unsigned long long seed);

/* reference verify: KG_EXIT_OK when module's SHA-256 is one of the pins
 * (the pin printed), KG_EXIT_USAGE when not or when the pin file is refused. */
int kg_nightly_verify(const char *pins, const char *module);

#endif
