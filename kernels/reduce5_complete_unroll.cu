// reduce5 (Harris, seed 002): reduce4 with the whole tree unrolled. The block
// size is a template parameter, so each `if (B >= ...)` below is decided at
// compile time: the loop, its counter and the tests for steps that cannot
// occur disappear, and every remaining __syncthreads is reached by the whole
// block. The last warp is unrolled with __syncwarp as in reduce4. Cost: one
// kernel instantiation per block size, and the block size can no longer be
// chosen at launch.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr size_t kPerBlock = 2 * kBlock;

template <typename In, typename A, unsigned B = kBlock>
__global__ void __launch_bounds__(B) reduce5(const In *in, A *out, size_t n) {
  static_assert(B >= 64 && B <= 1024 && (B & (B - 1)) == 0, "B: a power of two in [64, 1024]");
  __shared__ A s[B];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * (2 * B) + t;
  A v = i < n ? kg::to_acc<A>(in[i]) : A(0);
  if (i + B < n) v += kg::to_acc<A>(in[i + B]);
  s[t] = v;
  __syncthreads();
  if (B >= 1024) { if (t < 512) s[t] += s[t + 512]; __syncthreads(); }
  if (B >= 512) { if (t < 256) s[t] += s[t + 256]; __syncthreads(); }
  if (B >= 256) { if (t < 128) s[t] += s[t + 128]; __syncthreads(); }
  if (B >= 128) { if (t < 64) s[t] += s[t + 64]; __syncthreads(); }
  if (t < 32) {  // all of warp 0: every lane reaches each __syncwarp
    v = s[t];
#pragma unroll
    for (unsigned stride = 32; stride > 0; stride >>= 1) {
      v += s[t + stride];
      __syncwarp();
      s[t] = v;
      __syncwarp();
    }
    if (t == 0) out[blockIdx.x] = v;
  }
}

}  // namespace

KG_TREE_FACE(reduce5_complete_unroll, reduce5, kPerBlock, 2, kBlock)
