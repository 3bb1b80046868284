// kgate/dispatch.cuh: what every variant of a team's module needs around its
// kernel: the input type of each dtype, the accumulator (output) type of each
// (kgate/module.h: int32, int64, double for f64, float for f32, f16 and bf16),
// the f16/bf16 conversion, a sum that wraps as kgate's reference does, and
// KGATE_DEFINE_VARIANT, which makes a variant's three C entry points from a
// launcher templated on the input type:
//
//   template <typename T> int launch(const T *in, size_t n, void *out, void *scratch, cudaStream_t s);
//   size_t scratch(int dtype, size_t n);   // device bytes launch needs
//   double depth(size_t n);                // kgate::depth_any_order(n) when unsure (docs/modules.md)
//   KGATE_DEFINE_VARIANT(my_sum, launch, scratch, depth)
//
// The launcher is instantiated only for the dtypes the variant's .def line
// lists (kgate_add_kernels' prototypes give them), and run answers
// KG_ERR_UNSUPPORTED for the others. CUDA sources only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kgate/module.h"

namespace kgate {

template <typename T> struct tag { using type = T; };

// The input type of each dtype, and the accumulator that holds the result.
template <typename T> struct acc { using type = T; };
template <> struct acc<__half> { using type = float; };
template <> struct acc<__nv_bfloat16> { using type = float; };
template <typename T> using acc_t = typename acc<T>::type;

// Bytes of the accumulator of a dtype, for scratch sizes on the host.
inline constexpr size_t acc_size(int dtype) { return (dtype == KG_I64 || dtype == KG_F64) ? 8 : 4; }

template <typename A, typename T> __device__ inline A to_acc(T x) { return static_cast<A>(x); }
template <> __device__ inline float to_acc<float, __half>(__half x) { return __half2float(x); }
template <> __device__ inline float to_acc<float, __nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }

// a + b; integers wrap (two's complement), as kgate's reference sums do,
// added as unsigned so that the wrap is defined behaviour.
template <typename A> __host__ __device__ inline A add(A a, A b) { return a + b; }
template <> __host__ __device__ inline int32_t add<int32_t>(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
template <> __host__ __device__ inline int64_t add<int64_t>(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// Calls f(tag<T>{}) for dtype's input type T when the mask DTYPES has it;
// KG_ERR_UNSUPPORTED otherwise. Types outside the mask are never instantiated,
// so a launcher need not compile for them.
template <unsigned DTYPES = KG_DT_ALL, typename F> int dispatch(int dtype, F &&f) {
  if (dtype < 0 || dtype >= KG_NDTYPES || !(DTYPES & KG_DT_BIT(dtype))) return KG_ERR_UNSUPPORTED;
  switch (dtype) {
  case KG_I32: if constexpr (DTYPES & KG_DT_BIT(KG_I32)) return f(tag<int32_t>{}); break;
  case KG_I64: if constexpr (DTYPES & KG_DT_BIT(KG_I64)) return f(tag<int64_t>{}); break;
  case KG_F32: if constexpr (DTYPES & KG_DT_BIT(KG_F32)) return f(tag<float>{}); break;
  case KG_F64: if constexpr (DTYPES & KG_DT_BIT(KG_F64)) return f(tag<double>{}); break;
  case KG_F16: if constexpr (DTYPES & KG_DT_BIT(KG_F16)) return f(tag<__half>{}); break;
  case KG_BF16: if constexpr (DTYPES & KG_DT_BIT(KG_BF16)) return f(tag<__nv_bfloat16>{}); break;
  }
  return KG_ERR_UNSUPPORTED;
}

// The safe depth when unsure: any order of summing n values passes each
// through at most n - 1 additions, so h(n) = n bounds every variant, atomics
// included. It is loose: 2 * h * u reaches 1 near n = 2^23 for a float
// accumulator, where the float cases then pass almost any value. Count the
// real chain (elements per thread, plus log2 of the threads of each tree
// level) to keep the check tight (docs/modules.md, "2. Write a variant").
inline constexpr double depth_any_order(size_t n) { return n > 1 ? static_cast<double>(n) : 1.0; }

}  // namespace kgate

// A variant's three entry points (kgate/registry.h) from LAUNCH, a function
// template over the input type, and the functions SCRATCH(int dtype, size_t n)
// and DEPTH(size_t n). The .def line's dtypes mask comes from the prototypes
// kgate_add_kernels includes (kgate/prototypes.h), looked up by name: a name
// no line of the .def has stops the build here, saying so.
#define KGATE_DEFINE_VARIANT(name, LAUNCH, SCRATCH, DEPTH)                                                  \
  static_assert(::kgate__find(#name) >= 0, "KGATE_DEFINE_VARIANT(" #name ", ...): the registry " KGATE_REGISTRY  \
                " has no line KGATE_VARIANT(" #name ", ...): a typo in the name, in that .def file or here");   \
  extern "C" int kg_run_##name(int dtype, void *in, size_t n, void *out, void *scratch, void *stream) {  \
    return ::kgate::dispatch<::kgate__find(#name) >= 0 ? ::kgate__registry[::kgate__find(#name)].dtypes : 0u>(  \
        dtype, [&](auto t) {                                                                            \
      using T = typename decltype(t)::type;                                                             \
      return LAUNCH<T>(static_cast<const T *>(in), n, out, scratch, static_cast<cudaStream_t>(stream)); \
    });                                                                                                 \
  }                                                                                                     \
  extern "C" size_t kg_scratch_##name(int dtype, size_t n) { return SCRATCH(dtype, n); }                 \
  extern "C" double kg_depth_##name(size_t n) { return DEPTH(n); }
