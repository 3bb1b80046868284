// Planted bug: reduce4 with the last warp unrolled as in Harris' 2007 slides,
// through a volatile pointer with no __syncwarp. It relied on the 32 lanes
// running in lockstep; since Volta they need not, so a lane may read its
// partner before the partner's add has landed. On current GPUs the sum is
// usually still right, which is why racecheck, not the result check, must
// catch it.
#include "mut_common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr size_t kPerBlock = 2 * kBlock;

template <typename A> __device__ void warp_reduce(volatile A *s, unsigned t) {
  s[t] += s[t + 32];
  s[t] += s[t + 16];
  s[t] += s[t + 8];
  s[t] += s[t + 4];
  s[t] += s[t + 2];
  s[t] += s[t + 1];
}

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) volatile_warp(const In *in, A *out, size_t n) {
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
  if (t < 32) warp_reduce<A>(s, t);  // the bug: lockstep assumed, no __syncwarp
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

KG_MUTANT_TREE_RUN(mut_volatile_warp, volatile_warp, kPerBlock, kBlock)
KG_MUTANT_SAME_SHAPE(mut_volatile_warp, reduce4_unroll_warp)
