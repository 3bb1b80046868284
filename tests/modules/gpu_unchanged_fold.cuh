// The one-block sum both units of the unchanged proof's team module use
// (gpu_unchanged.cu, gpu_unchanged_knob.cu): each thread's partial in, the
// block's sum out to thread 0. Slow, simple, obviously right.
#pragma once

namespace unch {

constexpr int kThreads = 256;

__device__ __forceinline__ int block_sum(int v) {
  __shared__ int s[kThreads];
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  return s[0];
}

}  // namespace unch
