// reduceUnrollWarps8 (CUDA Freshman 3.5, seed 001): unrolling8 with the last
// warp unrolled. The in-place tree keeps __syncthreads only while more than
// 64 words are live; warp 0 then does the steps 32, 16, ..., 1 on its own.
// The article relied on lockstep warps and a volatile pointer; here each step
// reads its partner into a register, __syncwarp()s, writes back and
// __syncwarp()s again (__syncwarp also orders the global-memory accesses
// within the warp), and every access stays inside the block's valid length.
// Cost: the unrolled steps still go through global memory, and lanes past
// the live half of each step do (harmless) extra adds.
#include "unrolling.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kUnroll = 8;
constexpr size_t kPerBlock = (size_t)kUnroll * kBlock;

template <typename A> __global__ void __launch_bounds__(kBlock) unroll_warps8(A *data, A *out, size_t n) {
  unsigned t = threadIdx.x;
  size_t base = (size_t)blockIdx.x * kPerBlock;
  A *d = data + base;
  size_t len = n > base ? (n - base < kPerBlock ? n - base : kPerBlock) : 0;
  // Fold the slice's eight data blocks onto the first one, as unrolling8 does.
  unrolling::fold<kUnroll, kBlock>(d, t, len);
  __syncthreads();
  size_t m = len < kBlock ? len : kBlock;
  for (unsigned stride = kBlock / 2; stride > 32; stride >>= 1) {
    if (t < stride && t + stride < m) d[t] += d[t + stride];
    __syncthreads();
  }
  if (t < 32) {  // all of warp 0: every lane reaches each __syncwarp
    A v = t < m ? d[t] : A(0);
#pragma unroll
    for (unsigned stride = 32; stride > 0; stride >>= 1) {
      if (t + stride < m) v += d[t + stride];  // read the partner before it is overwritten
      __syncwarp();
      if (t < m) d[t] = v;  // publish before the next step reads it
      __syncwarp();
    }
    if (t == 0) out[blockIdx.x] = v;  // 0 for an empty slice
  }
}

}  // namespace

KG_INPLACE_TREE_FACE(unroll_warps8, unroll_warps8, kPerBlock, kUnroll, kBlock)
