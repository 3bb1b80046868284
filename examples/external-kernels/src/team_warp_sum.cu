// team_warp_sum: a grid-stride sum. Each thread adds its elements in a loop
// over the whole input (64-bit indices), each warp folds its 32 sums with
// __shfl_down_sync, lane 0 of each warp parks the warp's sum in shared
// memory, and warp 0 folds those 8. One partial per block; a second launch of
// the same kernel, one block, folds the partials, so the result is made on
// the device in a fixed order (deterministic, no atomics). Integer sums wrap
// (two's complement), as kgate's reference does: the additions are made in
// the unsigned type so that the wrap is defined behaviour.
#include "team_common.cuh"

namespace {

using team::kBlock;
using team::kFull;

template <typename A> __device__ inline A add(A a, A b) { return a + b; }
template <> __device__ inline int32_t add<int32_t>(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
template <> __device__ inline int64_t add<int64_t>(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

template <typename A> __device__ inline A warp_sum(A v) {
#pragma unroll
  for (unsigned off = 16; off > 0; off >>= 1) v = add(v, __shfl_down_sync(kFull, v, off));
  return v;
}

template <typename T, typename A> __global__ void __launch_bounds__(kBlock) sum_kernel(const T *in, A *out, size_t n) {
  __shared__ A warps[kBlock / 32];
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  A v = A(0);
  for (size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x; i < n; i += (size_t)kBlock * gridDim.x)
    v = add(v, team::to_acc<A>(in[i]));
  v = warp_sum(v);
  if (lane == 0) warps[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_sum(lane < kBlock / 32 ? warps[lane] : A(0));
    if (lane == 0) out[blockIdx.x] = v;
  }
}

template <typename T> int run(const T *in, size_t n, void *out, void *scratch, cudaStream_t st) {
  using A = team::acc_t<T>;
  size_t g = team::grid_for(n);
  sum_kernel<T, A><<<(unsigned)g, kBlock, 0, st>>>(in, g == 1 ? (A *)out : (A *)scratch, n);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || g == 1) return (int)e;
  sum_kernel<A, A><<<1, kBlock, 0, st>>>((const A *)scratch, (A *)out, g);
  return (int)cudaGetLastError();
}

}  // namespace

extern "C" int kg_run_team_warp_sum(int dtype, void *in, size_t n, void *out, void *scratch, void *stream) {
  return team::dispatch(dtype, [&](auto tag) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    return run<T>((const T *)in, n, out, scratch, (cudaStream_t)stream);
  });
}

extern "C" size_t kg_scratch_team_warp_sum(int dtype, size_t n) {
  size_t g = team::grid_for(n);
  return g > 1 ? g * team::acc_size(dtype) : 0;
}

// The longest chain of additions: a thread's own elements (one addition each,
// from 0), then 5 shuffle steps and 3 over the warps (log2 of 256), and the
// same again over the partials in the second launch.
extern "C" double kg_depth_team_warp_sum(size_t n) {
  size_t g = team::grid_for(n);
  double h = (double)team::ceil_div(n, (size_t)kBlock * g) + 8;
  if (g > 1) h += (double)team::ceil_div(g, kBlock) + 8;
  return h;
}
