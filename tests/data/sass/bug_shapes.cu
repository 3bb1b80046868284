// Last-block kernels in the shapes `kgate lint` once misread (issue 34), each
// as real code, for the lint's corpus (capture.sh, corpus-expect.tsv); the
// same-named helpers of two units are split_fenced.cu and split_unfenced.cu.
// Shapes no source gives and that need hand-written listings: a fence that
// can never run (`@!PT MEMBAR`: ptxas deletes such code, so
// bug_conditional_release has a real predicate instead).
#include <cuda/atomic>

#include "corpus.cuh"

#define FENCE __threadfence()

// The ticket taken inside a call.
__device__ __noinline__ unsigned take_ticket(unsigned *t) { return atomicAdd(t, 1u); }
__device__ __noinline__ unsigned take_ticket_fenced(unsigned *t) {
  FENCE;  // release
  unsigned r = atomicAdd(t, 1u);
  FENCE;  // acquire for thread 0, which the barrier passes to the block
  return r;
}
CORPUS_LAST_BLOCK(bug_ticket_in_call, , take_ticket(ticket), , plain_load)  // both sides
CORPUS_LAST_BLOCK(ok_ticket_in_call, , take_ticket_fenced(ticket), , plain_load)

// A release fence that runs only when a flag the compiler cannot know is set.
__constant__ int g_mode;
CORPUS_LAST_BLOCK(bug_conditional_release, if (g_mode == 0x5eed) FENCE, atomicAdd(ticket, 1u), FENCE, plain_load)

// Partials read by strong loads of CTA scope (LDG.E.STRONG.SM): strong only
// within the block, no acquire against the others.
__device__ __forceinline__ int ld_relaxed_cta(const int *p) {
  int v;
  asm volatile("ld.relaxed.cta.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ int ref_block_load(const int *p) {
  return cuda::atomic_ref<int, cuda::thread_scope_block>(*const_cast<int *>(p)).load(cuda::memory_order_relaxed);
}
// Loads that are acquires at device scope: right without a fence.
__device__ __forceinline__ int ref_acquire_load(const int *p) {
  return cuda::atomic_ref<int, cuda::thread_scope_device>(*const_cast<int *>(p)).load(cuda::memory_order_acquire);
}
CORPUS_LAST_BLOCK(bug_cta_strong_ptx, FENCE, atomicAdd(ticket, 1u), , ld_relaxed_cta)  // no acquire
CORPUS_LAST_BLOCK(bug_cta_strong_ref, FENCE, atomicAdd(ticket, 1u), , ref_block_load)  // no acquire
CORPUS_LAST_BLOCK(ok_acquire_loads, FENCE, atomicAdd(ticket, 1u), , ref_acquire_load)

// The block learns it is last through __syncthreads_or (BAR.RED and B2R).
template <bool FENCED>
__device__ __forceinline__ void or_last(const int *in, int n, int *partial, unsigned *ticket, int *out) {
  int s = block_total(grid_partial(in, n));
  bool mine = false;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s;
    if (FENCED) FENCE;
    mine = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  if (!__syncthreads_or(mine)) return;
  if (FENCED) FENCE;
  int v = 0;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) v += partial[i];
  v = block_total(v);
  if (threadIdx.x == 0) *out = v;
}
__global__ void ok_syncthreads_or(const int *in, int n, int *partial, unsigned *ticket, int *out) {
  or_last<true>(in, n, partial, ticket, out);
}
__global__ void bug_syncthreads_or(const int *in, int n, int *partial, unsigned *ticket, int *out) {
  or_last<false>(in, n, partial, ticket, out);  // both sides
}

// The last-block predicate held across a loop with more live conditions than
// predicate registers, so that ptxas may save it with P2R and restore it with
// R2P. Whether it does shows only in the listing (README.md, "The corpus").
template <bool FENCED>
__device__ __forceinline__ void pressed(const int *in, int n, int rounds, int *partial, unsigned *ticket, int *out) {
  int s = block_total(grid_partial(in, n));
  bool mine = false;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s;
    FENCE;
    mine = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  bool last = __syncthreads_or(mine);
  bool c[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) c[k] = in[k * blockDim.x + threadIdx.x] > k;
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int k = 0; k < 16; ++k)
      if (c[k]) acc += in[(r * 16 + k) * blockDim.x + threadIdx.x] ^ r;
  }
  if (last) {
    if (FENCED) FENCE;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) acc += partial[i];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
__global__ void ok_predicate_pressure(const int *in, int n, int rounds, int *partial, unsigned *ticket, int *out) {
  pressed<true>(in, n, rounds, partial, ticket, out);
}
__global__ void bug_predicate_pressure(const int *in, int n, int rounds, int *partial, unsigned *ticket, int *out) {
  pressed<false>(in, n, rounds, partial, ticket, out);  // no acquire
}
