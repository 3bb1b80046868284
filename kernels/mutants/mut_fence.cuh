// Shared by the fence mutants: two_pass's first pass fused with its second
// through a last-block ticket (the CUDA samples' threadFenceReduction). Each
// block stores its partial, takes a ticket, and the block that takes the
// last one sums the partials. Each mutant plants one memory-ordering bug
// that no run on today's GPUs shows reliably; `kgate lint` must find each
// in the machine code (docs/lint.md). i32 only: the sums stay exact.
#pragma once

#include <cuda/atomic>

#include "mut_common.cuh"

namespace kg_fence {

constexpr unsigned kBlock = 256;
constexpr size_t kMaxGrid = 640;  // two_pass's grid, so its scratch holds the partials

enum Bug { kNoFence, kBlockFence, kOneBranch, kFenceAfter, kRelaxed, kNoAcquire };

__device__ __forceinline__ int block_sum(int v) {
  __shared__ int s[kBlock];
  __syncthreads();  // an earlier call may still be reading s
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  return s[0];
}

// The release side: what runs between the partial's store and the ticket.
template <Bug B> __device__ __forceinline__ unsigned take_ticket(unsigned *ticket, int s) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> t(*ticket);
  switch (B) {
  case kNoFence: return atomicInc(ticket, gridDim.x);
  case kBlockFence: __threadfence_block(); return atomicInc(ticket, gridDim.x);
  case kOneBranch:
    if (s & 1) __threadfence();  // the even partials are published unfenced
    return atomicInc(ticket, gridDim.x);
  case kFenceAfter: {
    unsigned v = atomicInc(ticket, gridDim.x);
    __threadfence();  // too late: the ticket may be seen before the partial
    return v;
  }
  case kRelaxed: return t.fetch_add(1, cuda::memory_order_relaxed);
  case kNoAcquire: __threadfence(); return atomicInc(ticket, gridDim.x);
  }
  return 0;
}

template <Bug B> __device__ void fused(const int *in, size_t n, int *partial, int *out, unsigned *ticket) {
  __shared__ bool last;
  size_t step = (size_t)gridDim.x * kBlock;
  int v = 0;
  for (size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x; i < n; i += step) v += in[i];
  int s = block_sum(v);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s;
    last = take_ticket<B>(ticket, s) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  // The acquire side: only kBlockFence, kFenceAfter and kNoAcquire reach here
  // with nothing else wrong; kBlockFence keeps the wrong scope here too.
  if (B == kBlockFence) __threadfence_block();
  else if (B != kNoFence && B != kRelaxed && B != kNoAcquire) __threadfence();
  v = 0;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += kBlock) v += partial[i];
  v = block_sum(v);
  if (threadIdx.x == 0) {
    *out = v;
    *ticket = 0;  // every block has taken its ticket
  }
}

inline size_t grid_for(size_t n) {
  size_t g = (n + kBlock - 1) / kBlock;
  return g < 1 ? 1 : (g < kMaxGrid ? g : kMaxGrid);
}

}  // namespace kg_fence

// One mutant: its own kernel (named after it, so `kgate lint` can tell which
// mutant a finding is in), its own ticket, two_pass's scratch and depth.
#define KG_FENCE_MUTANT(name, bug)                                                                       \
  namespace {                                                                                            \
  __device__ unsigned name##_ticket = 0;                                                                 \
  }                                                                                                      \
  __global__ void __launch_bounds__(kg_fence::kBlock)                                                    \
      name##_kernel(const int *in, size_t n, int *partial, int *out) {                                   \
    kg_fence::fused<kg_fence::bug>(in, n, partial, out, &name##_ticket);                                 \
  }                                                                                                      \
  extern "C" int kg_run_##name(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) { \
    if (dt != KG_I32) return KG_ERR_UNSUPPORTED;                                                         \
    size_t g = kg_fence::grid_for(n);                                                                    \
    int *partial = g > 1 ? (int *)scratch : (int *)out;                                                  \
    name##_kernel<<<(unsigned)g, kg_fence::kBlock, 0, (cudaStream_t)stream>>>((const int *)in, n, partial, \
                                                                             (int *)out);               \
    KG_TRY(cudaGetLastError());                                                                          \
    return 0;                                                                                            \
  }                                                                                                      \
  KG_MUTANT_SAME_SHAPE(name, two_pass)
