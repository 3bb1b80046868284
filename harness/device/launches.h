/* What a variant queues for one call, as evidence that two builds queue the
 * same work: the call captured into a CUDA graph (never run), then every node
 * described in one canonical text. A kernel node is its function's name, its
 * grid, block, dynamic shared memory, launch attributes, its argument bytes
 * and the function's attributes (registers, static shared and local memory,
 * the limits and carve-out set on it); memset and copy nodes are their
 * parameters; the edges are listed by node index. Two calls on the same
 * buffers queue the same work exactly when their descriptions are equal.
 * The machine code behind the names is compared by the supervisor
 * (unchanged.h): kernels[] names the functions by kg_code_name_hash. */
#ifndef KG_LAUNCHES_H
#define KG_LAUNCHES_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "timing.h"

typedef struct kg_launches {
  char *desc; /* the canonical description (malloc'ed), one line per node, then the edges */
  size_t len, cap;
  int nlaunches;                        /* kernel nodes */
  int nkernels;                         /* distinct functions among them */
  uint64_t kernels[KG_PROBE_MAX_KERNELS]; /* their name hashes, in first-launch order */
  char why[160];                        /* when it could not be described */
} kg_launches;

/* Captures one call of run(ctx) on stream (a cudaStream_t) and describes it
 * into out. 0, or 1 when the call cannot be proven (it would not capture,
 * queued a node kgate does not describe, launched more distinct kernels than
 * KG_PROBE_MAX_KERNELS): out->why says which. A capture failure is cleared,
 * never left to poison the next call. Free with kg_launches_free. */
int kg_launches_capture(kg_step_fn run, void *ctx, void *stream, kg_launches *out);
void kg_launches_free(kg_launches *l);

/* The first line where a and b differ, cut to fit buf ("" when equal). */
void kg_launches_first_difference(const kg_launches *a, const kg_launches *b, char *buf, size_t len);

#endif
