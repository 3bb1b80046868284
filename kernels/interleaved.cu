// reduceInterleaved (Professional CUDA C 3.4, seed 003): interleaved pairs. The
// stride starts at half the block and halves; thread t < stride adds
// d[t + stride] into d[t], counting only pairs inside the block's valid
// length. Active threads stay packed in the first warps as in
// neighbored_less, and now consecutive threads touch consecutive words, so
// every warp access is coalesced. Cost: still one global-memory read-modify-
// write and one __syncthreads per step, half the threads idle from the first
// step, and the input is destroyed.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename A> __global__ void __launch_bounds__(kBlock) interleaved(A *data, A *out, size_t n) {
  unsigned t = threadIdx.x;
  size_t base = (size_t)blockIdx.x * kBlock;
  A *d = data + base;
  size_t len = n > base ? (n - base < kBlock ? n - base : kBlock) : 0;
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride && t + stride < len) d[t] += d[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = len ? d[0] : A(0);
}

}  // namespace

KG_INPLACE_TREE_FACE(interleaved, interleaved, kBlock, 1, kBlock)
