// reduce3 (Harris, seed 002): first add during the global load. Each thread
// loads two elements a block apart (i and i + B) and stores their sum, so a
// block covers 2B elements and half as many blocks are launched; the
// sequential-addressing tree of reduce2 follows. No thread is idle before the
// tree any more. Cost: the chain through each element grows by one add per
// level, and the tree itself is unchanged, still one __syncthreads per step.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr size_t kPerBlock = 2 * kBlock;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) reduce3(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kPerBlock + t;
  A v = i < n ? kg::to_acc<A>(in[i]) : A(0);
  if (i + kBlock < n) v += kg::to_acc<A>(in[i + kBlock]);
  s[t] = v;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

KG_TREE_FACE(reduce3_first_add, reduce3, kPerBlock, 2, kBlock)
