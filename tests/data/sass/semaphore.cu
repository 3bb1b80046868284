// Two real last-block patterns before and after their memory-ordering fix,
// for the lint's corpus (capture.sh, corpus-expect.tsv).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// PyTorch's reduction over blocks along y (ATen's Reduce.cuh): every thread
// stages its value, fences, and a semaphore per column of blocks picks the
// last block, whose threads each sum their slot over the column.
// pytorch/pytorch#128455 added the fence on the last block's side: without
// it the staged values of other blocks may be read stale.
__device__ __forceinline__ bool mark_block_finished(int *semaphores) {
  __shared__ bool is_last_block_done_shared;
  __syncthreads();
  if (threadIdx.x == 0) {
    int prev_blocks_finished = atomicAdd(&semaphores[blockIdx.x], 1);
    is_last_block_done_shared = prev_blocks_finished == gridDim.y - 1;
  }
  __syncthreads();
  return is_last_block_done_shared;
}

template <bool FIXED>
__device__ __forceinline__ void semaphore_reduce(const float *in, float *staging, int *semaphores, float *out) {
  unsigned slot = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned stride = gridDim.x * blockDim.x;
  float value = in[blockIdx.y * stride + slot];
  staging[blockIdx.y * stride + slot] = value;
  __threadfence();  // release: every thread's staged value before the semaphore
  bool is_last_block_done = mark_block_finished(semaphores);
  if (is_last_block_done) {
    if (FIXED) __threadfence();  // complete the acquire pattern after the atomic
    value = 0;
    for (unsigned y = 0; y < gridDim.y; ++y) value += staging[y * stride + slot];
    out[slot] = value;
  }
}
// Before the fix: no acquire.
__global__ void bug_torch_semaphore(const float *in, float *staging, int *semaphores, float *out) {
  semaphore_reduce<false>(in, staging, semaphores, out);
}
// After it: both sides.
__global__ void ok_torch_semaphore(const float *in, float *staging, int *semaphores, float *out) {
  semaphore_reduce<true>(in, staging, semaphores, out);
}

// cuda-samples' threadFenceReduction (reduceSinglePass, its last-block part):
// thread 0 takes the ticket after a release fence and tells the block through
// shared memory; the last block's threads then read the partials with no
// acquire. The fixed one has thread 0 fence once it knows it is last: the
// barrier carries that acquire to every thread of the block.
__device__ unsigned int retirementCount = 0;

__device__ __forceinline__ float block_sum(float v, float *sdata) {
  sdata[threadIdx.x] = v;
  cg::sync(cg::this_thread_block());
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
    cg::sync(cg::this_thread_block());
  }
  return sdata[0];
}

template <bool FIXED>
__device__ __forceinline__ void fence_reduction(const float *g_idata, float *g_odata, unsigned n) {
  extern __shared__ float sdata[];
  __shared__ bool amLast;
  float mySum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) mySum += g_idata[i];
  mySum = block_sum(mySum, sdata);
  if (threadIdx.x == 0) g_odata[blockIdx.x] = mySum;
  if (gridDim.x > 1) {
    __threadfence();
    if (threadIdx.x == 0) {
      unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
      amLast = ticket == gridDim.x - 1;
      if (FIXED && amLast) __threadfence();
    }
    cg::sync(cg::this_thread_block());
    if (amLast) {
      mySum = 0;
      for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) mySum += g_odata[i];
      cg::sync(cg::this_thread_block());  // block_sum reuses sdata
      mySum = block_sum(mySum, sdata);
      if (threadIdx.x == 0) {
        g_odata[0] = mySum;
        retirementCount = 0;
      }
    }
  }
}
__global__ void bug_fence_reduction(const float *g_idata, float *g_odata, unsigned n) {
  fence_reduction<false>(g_idata, g_odata, n);
}
__global__ void ok_fence_reduction(const float *g_idata, float *g_odata, unsigned n) {
  fence_reduction<true>(g_idata, g_odata, n);
}
