// reduce2 (Harris, seed 002): sequential addressing. The stride starts at half
// the block and halves; thread t < s adds s[t + s] into s[t]. Consecutive
// threads touch consecutive words, so there are no bank conflicts, and the
// active threads stay packed in the first warps. Cost: half of the threads
// are idle from the very first step, having done nothing but one load.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) reduce2(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kBlock + t;
  s[t] = i < n ? kg::to_acc<A>(in[i]) : A(0);
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

KG_TREE_FACE(reduce2_sequential, reduce2, kBlock, 1, kBlock)
