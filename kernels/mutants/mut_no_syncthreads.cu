// Planted bug: reduce2 without the __syncthreads between tree steps. A thread
// may read s[t + stride] before its owner (in another warp) has added into it.
// Whether the sum comes out wrong depends on scheduling, so the check that
// must catch it is racecheck, which sees the unordered shared-memory accesses.
#include "mut_common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) nosync(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kBlock + t;
  s[t] = i < n ? kg::to_acc<A>(in[i]) : A(0);
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];  // the bug: no barrier after this step
  }
  __syncthreads();
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

KG_MUTANT_TREE_RUN(mut_no_syncthreads, nosync, kBlock, kBlock)
KG_MUTANT_SAME_SHAPE(mut_no_syncthreads, reduce2_sequential)
