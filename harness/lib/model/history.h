/* History: one compact JSON line per gate run, appended by nightly runs
 * (docs/charts-and-page.md, "History"). The file only grows: earlier lines are
 * never rewritten, and a reader sees the file before or after an append,
 * never half a line. One history holds one GPU model, as a baseline does. */
#ifndef KG_HISTORY_H
#define KG_HISTORY_H

#include <stddef.h>

#include "model.h"
#include "results.h"
#include "outcome.h"

#define KG_HISTORY_SCHEMA 1

typedef struct kg_hist_entry {
  char variant[64];
  kg_dtype dtype;
  size_t n;
  kg_timing t; /* samples, median, q1, q3 (the rest 0) */
} kg_hist_entry;

/* One cell of a night paired against the pinned reference. */
typedef struct kg_hist_pcell {
  char variant[64];
  kg_dtype dtype;
  size_t n;
  double ratio, lo, hi;    /* tonight / reference, and its interval at the run's confidence */
  double head_us, base_us; /* medians: tonight's build, the reference (runner health) */
} kg_hist_pcell;

/* A night's paired section (absent from older lines: has == 0). */
typedef struct kg_hist_paired {
  int has;
  char ref_name[64], ref_version[32], ref_sha256[72], ref_commit[48];
  char card[48]; /* the UUID of the card it ran on ("" in lines before it was kept: the run's device) */
  double confidence;
  int rounds;
  size_t n, ncontrol;
  kg_hist_pcell *cells;   /* sorted by (variant, dtype, n) */
  kg_hist_pcell *control; /* the reference against a second load of itself */
} kg_hist_paired;

typedef struct kg_hist_run {
  char date[32], commit[64], version[32];
  kg_device_info dev; /* dev.toolchain: the line's "toolchain" (absent in older lines: all unknown) */
  int hot;         /* timed with a warm L2 */
  kg_counts checks; /* the run's case counts (a failing run is kept too) */
  size_t n;
  kg_hist_entry *entries; /* sorted by (variant, dtype, n) */
  kg_hist_paired paired;
  kg_provenance prov; /* the line's "provenance" (the night's run.provenance; absent in older lines: not known) */
} kg_hist_run;

typedef struct kg_history {
  size_t n;
  kg_hist_run *runs; /* in file order: oldest first */
} kg_history;

/* The history line of a run (no newline), malloc'ed; NULL when out of memory.
 * The night against the reference is paired (NULL: run itself, when it was
 * paired): its measured cells, the reference's identity and the card;
 * control (may be NULL) is the reference paired with a second load of itself. */
char *kg_history_line(const kg_run *run, const kg_run *paired, const kg_run *control);

/* Appends run (and its night's control, or NULL: history_line) to path (created when absent), atomically and under the
 * writers' lock (fileio.h: one appender at a time, 30 s at most to wait): the
 * old lines are copied byte for byte beside the target as they are checked,
 * the new line added, and the copy renamed over it. Refuses (-1 with err, the
 * file untouched) a run that timed nothing or that kg_run_check refuses (a
 * line no reader would accept), an existing file with a malformed or invalid
 * line, or one of another GPU
 * model. Returns 1 and writes nothing when the history already holds this
 * run (same date, commit and GPU): appending twice is harmless. The line
 * keeps the night's provenance (the paired run's, else the run's). */
int kg_history_add(const char *path, const kg_run *run, const kg_run *paired, const kg_run *control, char *err,
                   size_t errlen);

/* Reads every line (blank lines are skipped), one at a time: a regular file
 * of at most KG_HISTORY_MAX bytes. A line that is malformed or holds a value
 * that cannot be true (fields.h, kg_timing_check) fails the whole read, never skipped: -1
 * with "file: line N: perf[k] (variant dtype n): field ...". */
int kg_history_read(const char *path, kg_history *h, char *err, size_t errlen);
void kg_history_free(kg_history *h);

/* The commit of the repository the night built: its provenance's sha (the
 * workflow's GITHUB_SHA: a team's own commit in its nightly, kgate's in
 * kgate's), else kgate_commit (lines before provenance was kept, and nights
 * run outside CI). A finding's range and `kgate bisect --history` read it. */
const char *kg_hist_commit(const kg_hist_run *r);

/* The card a run's paired night ran on: its own record, else the run's device. */
const char *kg_hist_card(const kg_hist_run *r);

/* The order of paired cells: by variant, dtype, n (qsort and bsearch). */
int kg_hist_pcell_cmp(const void *a, const void *b);

/* The paired cell of (variant, dtype, n) among n sorted cells, or NULL. */
const kg_hist_pcell *kg_hist_pfind(const kg_hist_pcell *cells, size_t n, const char *variant, kg_dtype dt, size_t sz);

/* The entry of (variant, dtype, n) in a run, or NULL. */
const kg_hist_entry *kg_hist_find(const kg_hist_run *r, const char *variant, kg_dtype dt, size_t n);

/* What of the toolchain and machine changed between night last_good and
 * night first_bad (indices into h->runs, last_good < first_bad < h->n): nvcc,
 * CCCL, the flags' digest, the kernel driver, the driver's and the runtime's
 * CUDA versions, the runner image and the card. Each field whose value
 * differs is named with both values ("unknown" for a night that did not
 * record it) and the night it first moved in the window:
 *   "nvcc 13.0.88 → 13.1.42, driver 580.65.06 → 580.82.07 on the first bad night"
 *   "runner image ubuntu24/20250105.1 -> ubuntu24/20250112.1 on the night of 2026-11-20 02:10 UTC"
 *   "nothing of the toolchain or machine changed"
 * with "; not recorded: nvcc, CCCL" after it for fields neither night knows.
 * Writes one line into buf (cut to len) and returns how many fields differ,
 * or -1 (buf "") for indices out of order or range. */
int kg_hist_what_changed(const kg_history *h, size_t last_good, size_t first_bad, char *buf, size_t len);


#endif
