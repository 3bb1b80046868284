// team_block_max: the maximum, with the shape of team_warp_sum (grid-stride
// loop, warp-shuffle tree per block, one block over the partials). NaN policy:
// propagate (the registry says KG_NAN_PROPAGATE): a NaN anywhere in the input
// gives NaN, because the combine keeps a NaN from either side, whatever the
// order. n = 0 gives the identity of max: -inf for floats, the type's
// smallest value for integers. Built with TEAM_PLANT_MAX_BUG (CMake option of
// the same name), the loop drops the last element: a planted bug that
// `kgate check` must catch (n = 1 gives -inf instead of the element).
#include <cfloat>
#include <climits>

#include "team_common.cuh"

namespace {

using team::kBlock;
using team::kFull;

template <typename A> __device__ inline A lowest() { return -INFINITY; }
template <> __device__ inline int32_t lowest<int32_t>() { return INT32_MIN; }
template <> __device__ inline int64_t lowest<int64_t>() { return INT64_MIN; }
template <> __device__ inline double lowest<double>() { return -(double)INFINITY; }

// a != a only for NaN: a NaN on either side wins, so NaN propagates.
template <typename A> __device__ inline A combine(A a, A b) {
  if (a != a) return a;
  if (b != b) return b;
  return b > a ? b : a;
}

template <typename A> __device__ inline A warp_max(A v) {
#pragma unroll
  for (unsigned off = 16; off > 0; off >>= 1) v = combine(v, __shfl_down_sync(kFull, v, off));
  return v;
}

template <typename T, typename A> __global__ void __launch_bounds__(kBlock) max_kernel(const T *in, A *out, size_t n) {
  __shared__ A warps[kBlock / 32];
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  A v = lowest<A>();
  for (size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x; i < n; i += (size_t)kBlock * gridDim.x)
    v = combine(v, kgate::to_acc<A>(in[i]));
  v = warp_max(v);
  if (lane == 0) warps[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_max(lane < kBlock / 32 ? warps[lane] : lowest<A>());
    if (lane == 0) out[blockIdx.x] = v;
  }
}

template <typename T> int launch(const T *in, size_t n, void *out, void *scratch, cudaStream_t st) {
  using A = kgate::acc_t<T>;
  size_t g = team::grid_for(n);
  size_t read = n;
#ifdef TEAM_PLANT_MAX_BUG
  if (read > 0) read -= 1;  // the planted bug: the last element is never read
#endif
  max_kernel<T, A><<<(unsigned)g, kBlock, 0, st>>>(in, g == 1 ? (A *)out : (A *)scratch, read);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || g == 1) return (int)e;
  max_kernel<A, A><<<1, kBlock, 0, st>>>((const A *)scratch, (A *)out, g);
  return (int)cudaGetLastError();
}

}  // namespace

// A max is exact: kgate compares it bit for bit (no error bound), so the
// depth only describes the tree, as team_warp_sum's does.
KGATE_DEFINE_VARIANT(team_block_max, launch, team::scratch, team::depth)
