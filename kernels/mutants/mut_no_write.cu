// Planted bug: reduce2 whose block sum is stored only when there is more than
// one block. The last level (one block) stores nothing, so the output keeps
// whatever was there: the harness' poison value, which the check rejects.
#include "mut_common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) nowrite(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kBlock + t;
  s[t] = i < n ? kg::to_acc<A>(in[i]) : A(0);
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0 && gridDim.x > 1) out[blockIdx.x] = s[0];  // the bug
}

}  // namespace

KG_MUTANT_TREE_RUN(mut_no_write, nowrite, kBlock, kBlock)
KG_MUTANT_SAME_SHAPE(mut_no_write, reduce2_sequential)
