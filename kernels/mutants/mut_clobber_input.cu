// Planted bug: reduce2 that zeroes each input element once it has loaded it,
// as an in-place variant might, but without declaring KG_CLOBBERS. The sum is
// right; only the harness' comparison of the input against its pristine copy
// after the runs can see it.
#include "mut_common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) clobber(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kBlock + t;
  s[t] = i < n ? kg::to_acc<A>(in[i]) : A(0);
  if (i < n) {  // the bug: the "const" input is written
    unsigned char *p = (unsigned char *)(in + i);
    for (unsigned k = 0; k < sizeof(In); k++) p[k] = 0;
  }
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

KG_MUTANT_TREE_RUN(mut_clobber_input, clobber, kBlock, kBlock)
KG_MUTANT_SAME_SHAPE(mut_clobber_input, reduce2_sequential)
