/* Device-layer timing: CUDA events around a variant's launches, a read
 * flush of the L2 before each cold sample, adaptive sampling, CUDA-graph
 * per-call times for small inputs, the measured roofline, NVML clocks. */
#ifndef KG_TIMING_H
#define KG_TIMING_H

#include <stddef.h>

#include "model.h"

typedef struct kg_timer kg_timer;

/* Samples one kg_timer_measure takes at most (so many after calls). */
#define KG_TIMER_MAX_SAMPLES 4096

/* One launch sequence of the variant (returns 0 or a cudaError_t code). */
typedef int (*kg_step_fn)(void *ctx);

/* For the current device and stream; the flush buffer is 2 x l2_bytes
 * (at least 64 MiB). Returns NULL with err on a CUDA error. */
kg_timer *kg_timer_create(void *stream, long long l2_bytes, char *err, size_t errlen);
void kg_timer_destroy(kg_timer *t);

/* The achievable read bandwidth (GB/s): the best launch shape's median of nine
 * reads of a 4 GiB buffer (less on a small card), each after the L2 flush. */
int kg_timer_roofline(kg_timer *t, double *gbps);

/* One kind of sample: its untimed prepare (may be NULL), its timed run,
 * and what is queued after its end event, untimed too (may be NULL: the
 * re-check's copy of the sample's result). */
typedef struct kg_sample_step {
  kg_step_fn run, prepare;
  void *ctx;
  kg_step_fn after;
} kg_sample_step;

/* Times step: two warm-up runs (prepare and run), then batches of samples
 * (timer_sequence in timing.c: prepare, flush, run, after) until
 * kg_stats_enough or o->max_seconds; inputs under 1 MiB also get graph_us
 * (runs alone, captured). Returns 0 or a cudaError_t code (the context may
 * then be unusable). The last sample's after may still be in flight. */
int kg_timer_measure(kg_timer *t, const kg_sample_step *step, size_t input_bytes, const kg_time_opts *o,
                     kg_timing *out);

/* The evidence that the flush evicts (cold.h) for an input of bytes at buf
 * (16-byte aligned): KG_COLD_READS timed reads of its first bytes & ~15
 * after the flush, and as many straight after another read (NaN: set aside;
 * all NaN for an input under 16 bytes). 0 or a cudaError_t code. */
int kg_timer_cold_probe(kg_timer *t, const void *buf, size_t bytes, double *flushed, double *unflushed);

/* The paired sampler: after one warm-up run of each (with warm), up to
 * max_quads ABBA quads of head and base, two pairs each, in batches sized to
 * end within max_seconds (at least one quad; timing.c says why this order);
 * flip: BAAB quads instead, the base opening each batch.
 * A pair with a set-aside sample is dropped. head_us/base_us need room for
 * 2 * max_quads values (capped at 1024 quads). */
int kg_timer_pairs(kg_timer *t, const kg_sample_step *head, const kg_sample_step *base, size_t max_quads,
                   double max_seconds, int hot, int warm, int flip, double *head_us, double *base_us,
                   size_t *npairs, int *set_aside);

/* The SM clock (MHz) NVML read after the last batch; 0 without NVML. */
double kg_timer_sm_clock(const kg_timer *t);

#endif
