/* kgate kernels: the plain C face of every reduction variant.
 * No CUDA header here: device pointers are void *, the stream is an opaque
 * cudaStream_t passed as void *. Return values are 0 or a cudaError_t code. */
#ifndef KG_KERNELS_H
#define KG_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* The dtype numbers, the flags and KG_DT_BIT/KG_DT_ALL are the module ABI's. */
#include "kgate/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* In-place variants sum in the storage type, so 16-bit inputs would not
 * accumulate in float: they support the four wide types only. */
#define KG_DT_WIDE (KG_DT_BIT(KG_I32) | KG_DT_BIT(KG_I64) | KG_DT_BIT(KG_F32) | KG_DT_BIT(KG_F64))

/* Each variant provides:
 *   run:     reduce n elements of `in` to one accumulator-typed value at `out`
 *            (int32 for i32, int64 for i64, double for f64, float otherwise),
 *            entirely on the device, asynchronously on `stream`;
 *   scratch: device scratch bytes run needs for (dtype, n);
 *   depth:   the longest chain of additions any element goes through, h(n),
 *            for the error bound c * h * u * sum|x|. */
#define KG_VARIANT(name, seed, idea, flags, dtypes, lint)                                     \
  int kg_run_##name(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream); \
  size_t kg_scratch_##name(kg_dtype dt, size_t n);                                         \
  double kg_depth_##name(size_t n);
#include "variants.def"
/* The planted bugs of `kgate selftest` (kernels/mutants/mutants.def) have the
 * same C face; they are not variants and no command but selftest runs them. */
#define KG_MUTANT(name, base, flags, dtypes, expect, planted) KG_VARIANT(name, 0, 0, 0, 0, 0)
#include "mutants/mutants.def"
#undef KG_MUTANT
#undef KG_VARIANT

/* Device utilities for the worker (kernels/devutil.cu). */
/* Queues a comparison of two device buffers without waiting: *d_flag
 * (device memory) ends up 1 when they differ, 0 when they hold the same bytes. */
int kg_dev_differ_async(const void *a, const void *b, size_t bytes, int *d_flag, void *stream);
/* Fills n elements of device buffer buf with the input kg_pattern_fill makes
 * on the CPU for (dt, pattern, seed, n), bit for bit (kernels/inputgen.cu;
 * pattern is a kg_pattern of kernels/inputgen.h). Asynchronous on stream;
 * cudaErrorInvalidValue for a dtype or pattern out of range. */
int kg_dev_fill(kg_dtype dt, int pattern, uint64_t seed, size_t n, void *buf, void *stream);
/* Writes kg_gen_fingerprint(buf, bytes) of device buffer buf (any alignment;
 * 16-byte aligned reads fastest) to the device word *d_out, so the caller
 * reads it back with its other results in one copy. Asynchronous on stream:
 * nothing waits inside. */
int kg_dev_fingerprint(const void *buf, size_t bytes, unsigned long long *d_out, void *stream);
/* Reads every 32-byte sector of buf (bytes a multiple of 16, buf 16-byte
 * aligned) with coalesced loads, writing nothing that matters: the L2 flush
 * before a cold sample, and the measured roofline. */
int kg_dev_read(const void *buf, size_t bytes, void *stream);
/* The same read with another launch shape: blocks of 256 per SM,
 * evict-first (streaming) loads or not, and every word of each 16-byte load
 * used (wide: ptxas keeps 16-byte loads) or two (it makes them two 4-byte
 * loads). The roofline takes the best shape. */
int kg_dev_read_shape(const void *buf, size_t bytes, int blocks_per_sm, int streaming, int wide, void *stream);
/* Queues a one-thread kernel that spins until the host sets flags[0]
 * (flags: two ints of mapped host memory, as a device pointer), or until
 * timeout_s has passed, then sets flags[1]. Timing queues a whole batch of
 * samples behind it, then releases it. */
int kg_dev_hold(volatile int *flags, double timeout_s, void *stream);

#ifdef __cplusplus
}
#endif

#endif
