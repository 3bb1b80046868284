// reduce0 (Harris, seed 002): the starting rung. Each block loads one element
// per thread into shared memory and halves the count with interleaved
// addressing: thread t adds its neighbour at distance s when t % (2s) == 0.
// Cost: the modulo is slow, and the active threads are scattered over every
// warp, so each warp stays divergent until the last steps.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) reduce0(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kBlock + t;
  s[t] = i < n ? kg::to_acc<A>(in[i]) : A(0);
  __syncthreads();
  for (unsigned stride = 1; stride < kBlock; stride *= 2) {
    if (t % (2 * stride) == 0) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

KG_TREE_FACE(reduce0_divergent, reduce0, kBlock, 1, kBlock)
