// What the corpus's last-block kernels share (atomics_idioms.cu, semaphore.cu,
// bug_shapes*.cu): a grid-stride partial, a block total and one shape of
// last-block reduction, so each kernel differs only where its ordering does.
#pragma once
#include <cuda/atomic>

__device__ __forceinline__ int grid_partial(const int *in, int n) {
  int v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  return v;
}

__device__ __forceinline__ int warp_total(int v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// The block's total, in thread 0.
__device__ __forceinline__ int block_total(int v) {
  __shared__ int warps[32];
  v = warp_total(v);
  __syncthreads();  // an earlier call may still be reading warps
  if ((threadIdx.x & 31) == 0) warps[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < (blockDim.x + 31) / 32 ? warps[threadIdx.x] : 0;
  return warp_total(v);
}

// Thread 0 publishes its block's partial, runs RELEASE, takes a ticket with
// TICKET (an expression of `ticket`); in the block that took the last one,
// every thread runs ACQUIRE and sums the partials through READ.
#define CORPUS_LAST_BLOCK(name, RELEASE, TICKET, ACQUIRE, READ)                             \
  __global__ void name(const int *in, int n, int *partial, unsigned *ticket, int *out) {  \
    __shared__ bool am_last;                                                              \
    int s = block_total(grid_partial(in, n));                                             \
    if (threadIdx.x == 0) {                                                               \
      partial[blockIdx.x] = s;                                                            \
      RELEASE;                                                                            \
      am_last = (TICKET) == gridDim.x - 1;                                                \
    }                                                                                     \
    __syncthreads();                                                                      \
    if (!am_last) return;                                                                 \
    ACQUIRE;                                                                              \
    int v = 0;                                                                            \
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) v += READ(partial + i); \
    v = block_total(v);                                                                   \
    if (threadIdx.x == 0) {                                                               \
      *out = v;                                                                           \
      *ticket = 0;                                                                        \
    }                                                                                     \
  }

__device__ __forceinline__ int plain_load(const int *p) { return *p; }
