// reduceNeighbored (Professional CUDA C 3.4, seed 003): the in-place starting
// point of that family. Each block reduces its slice of the input in global
// memory, adding neighbours at distance 1, 2, 4, ... with the test
// t % (2 * stride) == 0; block results go to scratch and are reduced again in
// place. Cost: every step reads and writes global memory, half the threads of
// each warp idle and diverge, and the input is destroyed.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename A> __global__ void __launch_bounds__(kBlock) neighbored(A *data, A *out, size_t n) {
  unsigned t = threadIdx.x;
  size_t base = (size_t)blockIdx.x * kBlock;
  A *d = data + base;
  size_t len = n > base ? (n - base < kBlock ? n - base : kBlock) : 0;
  for (unsigned stride = 1; stride < kBlock; stride *= 2) {
    if (t % (2 * stride) == 0 && t + stride < len) d[t] += d[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = len ? d[0] : A(0);
}

}  // namespace

KG_INPLACE_TREE_FACE(neighbored, neighbored, kBlock, 1, kBlock)
