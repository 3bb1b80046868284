// reduce4 (Harris, seed 002): reduce3 with the last warp unrolled. Once only
// 32 threads are active, the remaining six steps (32, 16, ..., 1) run inside
// warp 0 without __syncthreads. Harris relied on the warp executing in
// lockstep through a volatile pointer; since Volta threads of a warp may
// interleave, so each step reads into a register, __syncwarp()s, writes back
// and __syncwarp()s again. The running sum stays in a register. Cost: the
// __syncwarp pairs are cheaper than block barriers but not free, and lanes
// past the live half of each step do (harmless) extra adds.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr size_t kPerBlock = 2 * kBlock;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) reduce4(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kPerBlock + t;
  A v = i < n ? kg::to_acc<A>(in[i]) : A(0);
  if (i + kBlock < n) v += kg::to_acc<A>(in[i + kBlock]);
  s[t] = v;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 32; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) {  // all of warp 0: every lane reaches each __syncwarp
    v = s[t];
#pragma unroll
    for (unsigned stride = 32; stride > 0; stride >>= 1) {
      v += s[t + stride];  // read the partner before anyone overwrites it
      __syncwarp();
      s[t] = v;  // publish before the next step reads it
      __syncwarp();
    }
    if (t == 0) out[blockIdx.x] = v;
  }
}

}  // namespace

KG_TREE_FACE(reduce4_unroll_warp, reduce4, kPerBlock, 2, kBlock)
