/* kgate merge: one results file from several (shards, GPUs, machines). */
#ifndef KG_MERGE_H
#define KG_MERGE_H

#include <stddef.h>

#include "results.h"

/* Reads the results files and joins their cases into *out, sorted by dtype,
 * n, pattern, then registry order of the variant (the plan's order for
 * ascending sizes), so the argument order does not matter. The run metadata
 * comes from the first file, except wall_s (the largest: shards run side by
 * side) and shard (cleared). Refuses, with one line in err: a file that does
 * not read, a case present twice (variant, dtype, n, pattern), another
 * kgate_version or kgate_commit, another GPU model (device.name), another
 * seed, repeats or L2 mode, and another CI run (run.provenance.run_id, one
 * recorded and one not included): the message says which. The merged run's
 * provenance is the first file's, its runner every file's runner once. 0, or -1. */
int kg_merge_runs(const char *const *paths, size_t npaths, kg_run *out, char *err, size_t errlen);

#endif
