// The anchor: cub::DeviceReduce::Sum from the toolkit's CCCL, a tuned
// two-kernel reduction (vectorised loads, many items per thread, a grid sized
// from the device, then one block over the partials). Every rung is measured
// against it. i32/i64 are read as unsigned so the sum wraps exactly; 16-bit
// inputs go through a converting iterator so the sum runs in float.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "common.cuh"

namespace {

template <typename T, typename A> struct ToAcc {
  __device__ A operator()(T v) const { return kg::to_acc<A>(v); }
};

// Calls cub with the input as the accumulator type (same bits) where that
// is a plain load, and through a converting iterator for 16-bit floats.
template <typename T, typename F> auto with_input(const void *in, F &&f) {
  using A = kg::acc_t<T>;
  if constexpr (sizeof(T) == sizeof(A))
    return f((const A *)in);
  else
    return f(thrust::make_transform_iterator((const T *)in, ToAcc<T, A>{}));
}

template <typename T> size_t temp_bytes(size_t n) {
  using A = kg::acc_t<T>;
  size_t bytes = 0;
  with_input<T>(nullptr, [&](auto it) {
    return cub::DeviceReduce::Sum(nullptr, bytes, it, (A *)nullptr, (int64_t)n);
  });
  return bytes;
}

}  // namespace

extern "C" int kg_run_cub_sum(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return kg::dispatch(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kg::acc_t<T>;
    size_t bytes = temp_bytes<T>(n);
    return with_input<T>(in, [&](auto it) {
      KG_TRY(cub::DeviceReduce::Sum(scratch, bytes, it, (A *)out, (int64_t)n, (cudaStream_t)stream));
      return 0;
    });
  });
}

extern "C" size_t kg_scratch_cub_sum(kg_dtype dt, size_t n) {
  size_t bytes = 0;
  kg::dispatch(dt, [&](auto tag) {
    bytes = temp_bytes<typename decltype(tag)::type>(n);
    return 0;
  });
  return bytes;
}

// CUB's internal schedule is not part of its interface, so the depth assumes
// only what any of its configurations satisfies: at least 256 threads share
// the sequential part, followed by block and grid trees of bounded depth.
extern "C" double kg_depth_cub_sum(size_t n) { return (double)kg::ceil_div(n, 256) + 64; }
