// team_warp_sum: a grid-stride sum. Each thread adds its elements in a loop
// over the whole input (64-bit indices), each warp folds its 32 sums with
// __shfl_down_sync, lane 0 of each warp parks the warp's sum in shared
// memory, and warp 0 folds those 8. One partial per block; a second launch of
// the same kernel, one block, folds the partials, so the result is made on
// the device in a fixed order (deterministic, no atomics). Integer sums wrap
// (two's complement), as kgate's reference does (kgate::add).
#include "team_common.cuh"

namespace {

using team::kBlock;
using team::kFull;

template <typename A> __device__ inline A warp_sum(A v) {
#pragma unroll
  for (unsigned off = 16; off > 0; off >>= 1) v = kgate::add(v, __shfl_down_sync(kFull, v, off));
  return v;
}

template <typename T, typename A> __global__ void __launch_bounds__(kBlock) sum_kernel(const T *in, A *out, size_t n) {
  __shared__ A warps[kBlock / 32];
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  A v = A(0);
  for (size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x; i < n; i += (size_t)kBlock * gridDim.x)
    v = kgate::add(v, kgate::to_acc<A>(in[i]));
  v = warp_sum(v);
  if (lane == 0) warps[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_sum(lane < kBlock / 32 ? warps[lane] : A(0));
    if (lane == 0) out[blockIdx.x] = v;
  }
}

template <typename T> int launch(const T *in, size_t n, void *out, void *scratch, cudaStream_t st) {
  using A = kgate::acc_t<T>;
  size_t g = team::grid_for(n);
  sum_kernel<T, A><<<(unsigned)g, kBlock, 0, st>>>(in, g == 1 ? (A *)out : (A *)scratch, n);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || g == 1) return (int)e;
  sum_kernel<A, A><<<1, kBlock, 0, st>>>((const A *)scratch, (A *)out, g);
  return (int)cudaGetLastError();
}

}  // namespace

KGATE_DEFINE_VARIANT(team_warp_sum, launch, team::scratch, team::depth)
