// The package test's variants: deliberately simple, correct int32 reductions
// (integer atomics wrap exactly, so any order gives the reference's bits).
#include <climits>
#include <cuda_runtime.h>
#include <kgate/dispatch.cuh>
#include <kgate/module.h>
#include <type_traits>

namespace {
__global__ void set_i32(int *out, int v) { *out = v; }
__global__ void sum_i32(const int *in, size_t n, int *out) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    atomicAdd(out, in[i]);
}
__global__ void max_i32(const int *in, size_t n, int *out) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    atomicMax(out, in[i]);
}
}  // namespace

// pkg_sum through kgate/dispatch.cuh: KGATE_DEFINE_VARIANT instantiates the
// launcher only for the .def line's dtypes (int32 here), which the
// static_assert proves at compile time.
namespace {
template <typename T> int launch_sum(const T *in, size_t n, void *out, void *, cudaStream_t s) {
  static_assert(std::is_same_v<T, int32_t>, "pkg_sum's .def line lists int32 only");
  set_i32<<<1, 1, 0, s>>>((int *)out, 0);
  if (n) sum_i32<<<256, 256, 0, s>>>(in, n, (int *)out);
  return (int)cudaGetLastError();
}
size_t no_scratch(int, size_t) { return 0; }
}  // namespace
KGATE_DEFINE_VARIANT(pkg_sum, launch_sum, no_scratch, kgate::depth_any_order)

extern "C" int kg_run_pkg_max(int dtype, void *in, size_t n, void *out, void *, void *stream) {
  if (dtype != KG_I32) return KG_ERR_UNSUPPORTED;
  cudaStream_t s = (cudaStream_t)stream;
  set_i32<<<1, 1, 0, s>>>((int *)out, INT_MIN); // the identity of max: an empty input gives it
  if (n) max_i32<<<256, 256, 0, s>>>((const int *)in, n, (int *)out);
  return (int)cudaGetLastError();
}
extern "C" size_t kg_scratch_pkg_max(int, size_t) { return 0; }
extern "C" double kg_depth_pkg_max(size_t n) { return (double)n; }
