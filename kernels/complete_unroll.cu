// reduceCompleteUnroll (CUDA Freshman 3.5, seed 001): complete_unroll_warps8
// with the block size as a template parameter. The `if (B >= ...)` tests are
// now compile-time constants, so the steps that cannot occur vanish from the
// code instead of being tested at run time; instantiated with B = 512. Each
// __syncthreads is inside a constant test, so either the whole block reaches
// it or none of it exists. The last warp is unrolled with __syncwarp as
// before. Cost: one instantiation per block size, fixed at compile time; the
// article measured no gain over the run-time tests.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 512;
constexpr unsigned kUnroll = 8;
constexpr size_t kPerBlock = (size_t)kUnroll * kBlock;

template <typename A, unsigned B = kBlock>
__global__ void __launch_bounds__(B) complete_unroll(A *data, A *out, size_t n) {
  static_assert(B >= 64 && B <= 1024 && (B & (B - 1)) == 0, "B: a power of two in [64, 1024]");
  constexpr size_t kSlice = (size_t)kUnroll * B;
  unsigned t = threadIdx.x;
  size_t base = (size_t)blockIdx.x * kSlice;
  A *d = data + base;
  size_t len = n > base ? (n - base < kSlice ? n - base : kSlice) : 0;
  // Fold the slice's eight data blocks onto the first one (disjoint words per thread).
  if (t < len) {
    A v = d[t];
#pragma unroll
    for (unsigned k = 1; k < kUnroll; k++)
      if (t + k * B < len) v += d[t + k * B];
    d[t] = v;
  }
  __syncthreads();
  size_t m = len < B ? len : B;
  if (B >= 1024) { if (t < 512 && t + 512 < m) d[t] += d[t + 512]; __syncthreads(); }
  if (B >= 512) { if (t < 256 && t + 256 < m) d[t] += d[t + 256]; __syncthreads(); }
  if (B >= 256) { if (t < 128 && t + 128 < m) d[t] += d[t + 128]; __syncthreads(); }
  if (B >= 128) { if (t < 64 && t + 64 < m) d[t] += d[t + 64]; __syncthreads(); }
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

KG_INPLACE_TREE_FACE(complete_unroll, complete_unroll, kPerBlock, kUnroll, kBlock)
