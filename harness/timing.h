/* Device-layer timing: CUDA events around a variant's launches, a read
 * flush of the L2 before each cold sample, adaptive sampling, CUDA-graph
 * per-call times for small inputs, the measured roofline, NVML clocks. */
#ifndef KG_TIMING_H
#define KG_TIMING_H

#include <stddef.h>

#include "proto.h"

typedef struct kg_timer kg_timer;

/* One launch sequence of the variant (returns 0 or a cudaError_t code). */
typedef int (*kg_step_fn)(void *ctx);

/* For the current device and stream; the flush buffer is 2 x l2_bytes
 * (at least 64 MiB). Returns NULL with err on a CUDA error. */
kg_timer *kg_timer_create(void *stream, long long l2_bytes, char *err, size_t errlen);
void kg_timer_destroy(kg_timer *t);

/* The achievable read bandwidth: median of several reads of a 1 GiB buffer (GB/s). */
int kg_timer_roofline(kg_timer *t, double *gbps);

/* Times run: warm-up, then samples (each after prepare, then an L2 flush
 * unless o->hot, both untimed) until kg_stats_enough or o->max_seconds;
 * inputs under 1 MiB also get graph_us. prepare may be NULL. Returns 0 or a
 * cudaError_t code (the context may then be unusable). */
int kg_timer_measure(kg_timer *t, kg_step_fn run, kg_step_fn prepare, void *ctx, size_t input_bytes,
                     const kg_time_opts *o, kg_timing *out);

#endif
