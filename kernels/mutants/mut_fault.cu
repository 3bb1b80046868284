// Planted bug: reduce2 storing its block sum through a pointer 2^40 elements
// past the output: an illegal address. The CUDA context is lost, the worker
// reports the error and a fresh one carries on with the next case.
#include "mut_common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) fault(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kBlock + t;
  s[t] = i < n ? kg::to_acc<A>(in[i]) : A(0);
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[((size_t)1 << 40) + blockIdx.x] = s[0];  // the bug: a wild store
}

}  // namespace

KG_MUTANT_TREE_RUN(mut_fault, fault, kBlock, kBlock)
KG_MUTANT_SAME_SHAPE(mut_fault, reduce2_sequential)
