/* Per-GPU baselines: baselines/<gpu-slug>.json, keyed by (variant, dtype, n). */
#ifndef KG_BASELINE_H
#define KG_BASELINE_H

#include <stddef.h>

#include "results.h"

#define KG_BASELINE_SCHEMA 1

typedef struct kg_base_entry {
  char variant[64];
  kg_dtype dtype;
  size_t n;
  kg_timing t; /* t.samples == 0: in the plan but not timed (it failed): compares as UNKNOWN */
} kg_base_entry;

typedef struct kg_baseline {
  kg_device_info dev;
  char commit[64], date[32];
  size_t n;
  kg_base_entry *entries; /* malloc'ed, sorted by (variant, dtype, n) */
  kg_crec check;          /* the check record of the runs it was made from ("check_record"; off: none) */
} kg_baseline;

/* The baseline of a GPU model: DIR/<gpu-slug>.json. */
void kg_baseline_path(const char *dir, const char *gpu_name, char *out, size_t len);

/* Loads a baseline file, or the timed cases of a results file (either works
 * as the older side of `kgate compare`). 0 ok; 1 the file does not exist;
 * -1 unreadable, malformed, wrong kind or schema_version, a value that cannot
 * be true (fields.h, kg_timing_check) or an entry twice (err says which, naming the file,
 * the entry and the field). */
int kg_baseline_load(const char *path, kg_baseline *b, char *err, size_t errlen);
/* The perf cases of a run as baseline entries. 0, or -1 out of memory. */
int kg_baseline_from_run(const kg_run *run, kg_baseline *b);
/* Writes b atomically; entries that were not timed (samples 0) are left out. */
int kg_baseline_write(const char *path, const kg_baseline *b, char *err, size_t errlen);
/* `kgate baseline update`: refuses a run that kg_run_check refuses, one
 * with any failed, errored or nondeterministic-by-mistake case (status
 * fail), or a pending one (an interrupted run), a run that timed nothing, an
 * existing file that is malformed, invalid or a results file, or a baseline
 * of another GPU model;
 * otherwise merges: entries the run timed replace theirs, the rest stay;
 * so do the run's check record's groups (checkrec.h) when both records share
 * their key, else the run's record replaces the old one.
 * Read, merged and written atomically under the writers' lock (fileio.h).
 * 0, or -1 with err. */
int kg_baseline_update(const char *path, const kg_run *run, char *err, size_t errlen);
void kg_baseline_free(kg_baseline *b);

/* Same GPU model (the device name). */
int kg_same_gpu(const kg_device_info *a, const kg_device_info *b);

#endif
