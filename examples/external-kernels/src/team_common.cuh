// What both of the team's variants share: the dtype dispatch, the accumulator
// type of each input type (as kgate/module.h says: int32, int64, double for
// f64, float for f32, f16 and bf16), and the launch shape. The grid has a
// fixed cap rather than a multiple of the SM count, so that kg_depth_*, which
// kgate calls without a device, knows exactly how many additions an element
// goes through.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <kgate/module.h>

namespace team {

constexpr unsigned kBlock = 256;     // threads per block: 8 warps
constexpr size_t kMaxGrid = 1024;    // blocks at most: about 2 waves of an H100
constexpr unsigned kFull = 0xffffffffu;

template <typename T> struct acc { using type = T; };
template <> struct acc<__half> { using type = float; };
template <> struct acc<__nv_bfloat16> { using type = float; };
template <typename T> using acc_t = typename acc<T>::type;

template <typename A, typename T> __device__ inline A to_acc(T x) { return static_cast<A>(x); }
template <> __device__ inline float to_acc<float, __half>(__half x) { return __half2float(x); }
template <> __device__ inline float to_acc<float, __nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }

inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

// One block per kBlock elements, at most kMaxGrid, at least one (n = 0 still
// writes the identity).
inline size_t grid_for(size_t n) {
  size_t g = ceil_div(n, kBlock);
  return g < 1 ? 1 : (g < kMaxGrid ? g : kMaxGrid);
}

inline size_t acc_size(int dtype) {
  switch (dtype) {
  case KG_I32: return sizeof(int32_t);
  case KG_I64: case KG_F64: return 8;
  default: return sizeof(float);
  }
}

// Calls f with a null pointer of the input type: f((const T *)0).
template <typename F> int dispatch(int dtype, F f) {
  switch (dtype) {
  case KG_I32: return f(static_cast<const int32_t *>(nullptr));
  case KG_I64: return f(static_cast<const int64_t *>(nullptr));
  case KG_F32: return f(static_cast<const float *>(nullptr));
  case KG_F64: return f(static_cast<const double *>(nullptr));
  case KG_F16: return f(static_cast<const __half *>(nullptr));
  case KG_BF16: return f(static_cast<const __nv_bfloat16 *>(nullptr));
  default: return KG_ERR_UNSUPPORTED;
  }
}

}  // namespace team
