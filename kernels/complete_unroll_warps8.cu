// reduceCompleteUnrollWarps8 (CUDA Freshman 3.5, seed 001): unroll_warps8 with
// the whole tree unrolled. Each step above the last warp is written out and
// guarded by a run-time test on blockDim.x (if (blockDim.x >= 1024 && t < 512)
// ...), so the loop and its counter are gone while the kernel still works for
// any power-of-two block of 64 to 1024 threads; it is launched with 512.
// Every __syncthreads sits outside the tests, so the whole block reaches it.
// The last warp is unrolled with __syncwarp as in unroll_warps8. Cost: the
// blockDim.x tests are evaluated at run time for steps that can never occur,
// and a 512-thread block adds one tree step to each element's chain.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 512;  // launch size; the kernel reads blockDim.x
constexpr unsigned kUnroll = 8;
constexpr size_t kPerBlock = (size_t)kUnroll * kBlock;

template <typename A>
__global__ void __launch_bounds__(1024) complete_unroll_warps8(A *data, A *out, size_t n) {
  unsigned t = threadIdx.x, b = blockDim.x;
  size_t slice = (size_t)kUnroll * b;
  size_t base = (size_t)blockIdx.x * slice;
  A *d = data + base;
  size_t len = n > base ? (n - base < slice ? n - base : slice) : 0;
  // Fold the slice's eight data blocks onto the first one (disjoint words per thread).
  if (t < len) {
    A v = d[t];
#pragma unroll
    for (unsigned k = 1; k < kUnroll; k++)
      if (t + k * b < len) v += d[t + k * b];
    d[t] = v;
  }
  __syncthreads();
  size_t m = len < b ? len : b;
  if (b >= 1024 && t < 512 && t + 512 < m) d[t] += d[t + 512];
  __syncthreads();
  if (b >= 512 && t < 256 && t + 256 < m) d[t] += d[t + 256];
  __syncthreads();
  if (b >= 256 && t < 128 && t + 128 < m) d[t] += d[t + 128];
  __syncthreads();
  if (b >= 128 && t < 64 && t + 64 < m) d[t] += d[t + 64];
  __syncthreads();
  if (t < 32) {  // all of warp 0: every lane reaches each __syncwarp
    A v = t < m ? d[t] : A(0);
#pragma unroll
    for (unsigned stride = 32; stride > 0; stride >>= 1) {
      if (t + stride < m) v += d[t + stride];
      __syncwarp();
      if (t < m) d[t] = v;
      __syncwarp();
    }
    if (t == 0) out[blockIdx.x] = v;  // 0 for an empty slice
  }
}

}  // namespace

KG_INPLACE_TREE_FACE(complete_unroll_warps8, complete_unroll_warps8, kPerBlock, kUnroll, kBlock)
