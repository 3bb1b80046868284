// reduceNeighboredLess (Professional CUDA C 3.4, seed 003): neighbored pairs as
// in neighbored, but the work is mapped to the first threads: at stride s,
// thread t handles index 2*s*t and adds d[index + s] into d[index]. The
// active threads are packed into the first warps, so the others retire whole
// and divergence is confined to one warp per step. Cost: the accesses are
// still strided in global memory, so each warp's loads and stores touch more
// memory segments as the stride grows, and the input is destroyed.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename A> __global__ void __launch_bounds__(kBlock) neighbored_less(A *data, A *out, size_t n) {
  unsigned t = threadIdx.x;
  size_t base = (size_t)blockIdx.x * kBlock;
  A *d = data + base;
  size_t len = n > base ? (n - base < kBlock ? n - base : kBlock) : 0;
  for (unsigned stride = 1; stride < kBlock; stride *= 2) {
    unsigned index = 2 * stride * t;
    if (index + stride < len) d[index] += d[index + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = len ? d[0] : A(0);
}

}  // namespace

KG_INPLACE_TREE_FACE(neighbored_less, neighbored_less, kBlock, 1, kBlock)
