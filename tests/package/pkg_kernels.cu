// The package test's variants: deliberately simple, correct int32 reductions
// (integer atomics wrap exactly, so any order gives the reference's bits).
#include <climits>
#include <cuda_runtime.h>
#include <kgate/module.h>

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

extern "C" int kg_run_pkg_sum(int dtype, void *in, size_t n, void *out, void *, void *stream) {
  if (dtype != KG_I32) return KG_ERR_UNSUPPORTED;
  cudaStream_t s = (cudaStream_t)stream;
  set_i32<<<1, 1, 0, s>>>((int *)out, 0);
  if (n) sum_i32<<<256, 256, 0, s>>>((const int *)in, n, (int *)out);
  return (int)cudaGetLastError();
}
extern "C" size_t kg_scratch_pkg_sum(int, size_t) { return 0; }
extern "C" double kg_depth_pkg_sum(size_t n) { return (double)n; }

extern "C" int kg_run_pkg_max(int dtype, void *in, size_t n, void *out, void *, void *stream) {
  if (dtype != KG_I32) return KG_ERR_UNSUPPORTED;
  cudaStream_t s = (cudaStream_t)stream;
  set_i32<<<1, 1, 0, s>>>((int *)out, INT_MIN); // the identity of max: an empty input gives it
  if (n) max_i32<<<256, 256, 0, s>>>((const int *)in, n, (int *)out);
  return (int)cudaGetLastError();
}
extern "C" size_t kg_scratch_pkg_max(int, size_t) { return 0; }
extern "C" double kg_depth_pkg_max(size_t n) { return (double)n; }
