// Planted bug: reduce2 where threads past n return before the block's
// __syncthreads. In the last, partial block the barrier is then reached by
// only part of the block (and of a warp when n is not a multiple of 32). On
// Volta and later exited threads simply leave the barrier, and synccheck did
// not flag it on an H200; what gives it away is that the tree reads the
// shared words the returned threads never wrote, so the exact tier's sum is
// wrong: that is the check selftest expects.
#include "mut_common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) early(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kBlock + t;
  if (i >= n && t != 0) return;  // the bug (thread 0 stays to write the block sum)
  s[t] = i < n ? kg::to_acc<A>(in[i]) : A(0);
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

KG_MUTANT_TREE_RUN(mut_early_return, early, kBlock, kBlock)
KG_MUTANT_SAME_SHAPE(mut_early_return, reduce2_sequential)
