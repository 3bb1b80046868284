// Shared building blocks of the variants: dtype dispatch, accumulator types,
// the recursive "re-apply to the partials" driver, and depth formulas.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "kernels.h"

namespace kg {

// Integer sums accumulate as unsigned: wrap-around is defined there and the
// bits equal two's-complement wrap. 16-bit floats accumulate in float.
template <typename T> struct acc_of { using type = T; };
template <> struct acc_of<int32_t> { using type = uint32_t; };
template <> struct acc_of<int64_t> { using type = unsigned long long; };
template <> struct acc_of<__half> { using type = float; };
template <> struct acc_of<__nv_bfloat16> { using type = float; };
template <typename T> using acc_t = typename acc_of<T>::type;

template <typename A, typename T> __device__ __forceinline__ A to_acc(T v) { return static_cast<A>(v); }
template <> __device__ __forceinline__ float to_acc<float, __half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_acc<float, __nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

// Same bits, accumulator type: lets in-place variants treat an i32 buffer as uint32.
template <typename T> struct tag { using type = T; };

template <typename F> int dispatch_wide(kg_dtype dt, F &&f) {
  switch (dt) {
  case KG_I32: return f(tag<int32_t>{});
  case KG_I64: return f(tag<int64_t>{});
  case KG_F32: return f(tag<float>{});
  case KG_F64: return f(tag<double>{});
  default: return KG_ERR_UNSUPPORTED;
  }
}

template <typename F> int dispatch(kg_dtype dt, F &&f) {
  switch (dt) {
  case KG_F16: return f(tag<__half>{});
  case KG_BF16: return f(tag<__nv_bfloat16>{});
  default: return dispatch_wide(dt, f);
  }
}

// Accumulator size for a dtype, for scratch sizing on the host.
inline size_t acc_size(kg_dtype dt) { return (dt == KG_I64 || dt == KG_F64) ? 8 : 4; }

// Element size for a dtype, on the host.
inline size_t elem_size(kg_dtype dt) { return (dt == KG_F16 || dt == KG_BF16) ? 2 : acc_size(dt); }

inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

inline int log2_floor(size_t v) {
  int r = 0;
  while (v >>= 1) r++;
  return r;
}

inline int sm_count() {
  static int sms = 0;
  if (sms == 0) {
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      sms = 1;  // scratch, depth and run of one process all see this same value
  }
  return sms;
}

#define KG_TRY(expr)                         \
  do {                                       \
    cudaError_t kg_e_ = (expr);              \
    if (kg_e_ != cudaSuccess) return (int)kg_e_; \
  } while (0)

// Harris' recursive kernel invocation: `launch(src, dst, count, blocks)` runs one
// level that leaves one partial per block; it is re-applied to the partials
// until a single value lands in `out`. n == 0 still launches one block, which
// writes the additive identity. Partials ping-pong between two scratch halves.
template <typename A, typename In, typename Launch>
int tree(In *in, size_t n, A *out, A *scratch, size_t per_block, Launch launch) {
  size_t blocks = n ? ceil_div(n, per_block) : 1;
  if (blocks == 1) {
    launch(in, out, n, (size_t)1);
    KG_TRY(cudaGetLastError());
    return 0;
  }
  A *buf[2] = {scratch, scratch + blocks};
  launch(in, buf[0], n, blocks);
  KG_TRY(cudaGetLastError());
  size_t count = blocks;
  int cur = 0;
  while (count > 1) {
    size_t b = ceil_div(count, per_block);
    A *dst = b == 1 ? out : buf[cur ^ 1];
    launch(buf[cur], dst, count, b);
    KG_TRY(cudaGetLastError());
    count = b;
    cur ^= 1;
  }
  return 0;
}

// Scratch for tree(): the first level's partials plus the second level's.
inline size_t tree_scratch(kg_dtype dt, size_t n, size_t per_block) {
  size_t p1 = n ? ceil_div(n, per_block) : 1;
  if (p1 <= 1) return 0;
  return (p1 + ceil_div(p1, per_block)) * acc_size(dt);
}

// Depth of tree(): each level adds `chain` elements in sequence per thread,
// then a log2(threads) tree.
inline double tree_depth(size_t n, size_t per_block, size_t chain, size_t threads) {
  double h = 0;
  size_t count = n;
  do {
    h += (double)chain + log2_floor(threads);
    count = count ? ceil_div(count, per_block) : 1;
  } while (count > 1);
  return h;
}

}  // namespace kg

// The C face of a tree variant (kernels.h's three functions), written once.
// KG_TREE_RUN: every dtype, the input read-only, K<In, A> leaves one partial
// per block (the Harris ladder's shape, and the mutants'). KG_INPLACE_TREE_RUN:
// i32/i64/f32/f64 folded in place by K<A> (the Professional CUDA C family).
// KG_TREE_SHAPE: scratch and depth of kg::tree with `chain` adds per thread.
#define KG_TREE_RUN(name, K, per_block, threads)                                                     \
  extern "C" int kg_run_##name(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) { \
    cudaStream_t st = (cudaStream_t)stream;                                                          \
    return kg::dispatch(dt, [&](auto tag) {                                                          \
      using T = typename decltype(tag)::type;                                                        \
      using A = kg::acc_t<T>;                                                                        \
      return kg::tree<A>((const T *)in, n, (A *)out, (A *)scratch, per_block,                        \
                         [st](auto *src, A *dst, size_t count, size_t blocks) {                      \
                           using In = std::remove_const_t<std::remove_pointer_t<decltype(src)>>;     \
                           K<In, A><<<(unsigned)blocks, threads, 0, st>>>(src, dst, count);          \
                         });                                                                         \
    });                                                                                              \
  }

#define KG_INPLACE_TREE_RUN(name, K, per_block, threads)                                             \
  extern "C" int kg_run_##name(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) { \
    cudaStream_t st = (cudaStream_t)stream;                                                          \
    return kg::dispatch_wide(dt, [&](auto tag) {                                                     \
      using A = kg::acc_t<typename decltype(tag)::type>;                                             \
      return kg::tree<A>((A *)in, n, (A *)out, (A *)scratch, per_block,                              \
                         [st](A *src, A *dst, size_t count, size_t blocks) {                         \
                           K<A><<<(unsigned)blocks, threads, 0, st>>>(src, dst, count);              \
                         });                                                                         \
    });                                                                                              \
  }

#define KG_TREE_SHAPE(name, per_block, chain, threads)                                               \
  extern "C" size_t kg_scratch_##name(kg_dtype dt, size_t n) { return kg::tree_scratch(dt, n, per_block); } \
  extern "C" double kg_depth_##name(size_t n) { return kg::tree_depth(n, per_block, chain, threads); }

// A whole ladder face: run, scratch and depth.
#define KG_TREE_FACE(name, K, per_block, chain, threads)                                             \
  KG_TREE_RUN(name, K, per_block, threads)                                                           \
  KG_TREE_SHAPE(name, per_block, chain, threads)

#define KG_INPLACE_TREE_FACE(name, K, per_block, chain, threads)                                     \
  KG_INPLACE_TREE_RUN(name, K, per_block, threads)                                                   \
  KG_TREE_SHAPE(name, per_block, chain, threads)
