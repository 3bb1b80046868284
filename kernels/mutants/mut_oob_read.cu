// Planted bug: reduce2 where the thread whose index is exactly n also loads
// in[n], one element past the input, and parks it in a volatile shared word
// nobody reads. The sum stays right, so no result check can see it: only
// memcheck can, and only when the allocation ends at n elements and is padded
// (kgate --sanitize allocates exact-size buffers; compute-sanitizer --padding).
#include "mut_common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) oob(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  __shared__ volatile A junk;
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kBlock + t;
  s[t] = i < n ? kg::to_acc<A>(in[i]) : A(0);
  if (i == n) junk = kg::to_acc<A>(in[i]);  // the bug: <= where < was meant
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

KG_MUTANT_TREE_RUN(mut_oob_read, oob, kBlock, kBlock)
KG_MUTANT_SAME_SHAPE(mut_oob_read, reduce2_sequential)
