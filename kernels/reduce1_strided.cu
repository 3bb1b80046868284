// reduce1 (Harris, seed 002): interleaved addressing as in reduce0, but the
// modulo test is replaced by a strided index: at step s, thread t adds
// s[2*s*t + s] into s[2*s*t] while that index is inside the block. The active
// threads are now the first ones, so whole warps retire together instead of
// every warp diverging. Cost: the strided accesses hit the same shared-memory
// banks (a 2-way conflict at s = 1, worse as s grows), which serialises them.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) reduce1(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kBlock + t;
  s[t] = i < n ? kg::to_acc<A>(in[i]) : A(0);
  __syncthreads();
  for (unsigned stride = 1; stride < kBlock; stride *= 2) {
    unsigned index = 2 * stride * t;
    if (index < kBlock) s[index] += s[index + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

KG_TREE_FACE(reduce1_strided, reduce1, kBlock, 1, kBlock)
