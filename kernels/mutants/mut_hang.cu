// Planted bug: reduce2 whose threads wait on a shared flag that no thread
// ever sets (a lost hand-off): the kernel never ends. Only the supervisor's
// watchdog can fail the case; it kills the worker and a fresh one goes on.
#include "mut_common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) hang(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  __shared__ volatile int go;
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kBlock + t;
  if (t == 0) go = 0;
  s[t] = i < n ? kg::to_acc<A>(in[i]) : A(0);
  __syncthreads();
  while (!go) {  // the bug: the producer that sets go does not exist
  }
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

KG_MUTANT_TREE_RUN(mut_hang, hang, kBlock, kBlock)
KG_MUTANT_SAME_SHAPE(mut_hang, reduce2_sequential)
