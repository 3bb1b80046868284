// Planted bug: reduce2 with the element index in a signed 32-bit int, as the
// articles write it. Past 2^31 elements the index goes negative; converted to
// size_t for the bounds test it is huge, so those elements count as zero.
// Only an input of more than 2^31 elements shows it: the huge tier (8 GiB of
// i32 input, plus the harness' pristine copy).
#include "mut_common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) index32(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  int i = (int)(blockIdx.x * kBlock + t);  // the bug: wraps negative past 2^31
  s[t] = (size_t)i < n ? kg::to_acc<A>(in[(size_t)i]) : A(0);
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

KG_MUTANT_TREE_RUN(mut_index32, index32, kBlock, kBlock)
KG_MUTANT_SAME_SHAPE(mut_index32, reduce2_sequential)
