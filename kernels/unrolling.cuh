// The unrolling rungs of seed 001 (reduceUnrolling2/4/8, CUDA Freshman 3.5) as
// one template on U, the number of data blocks a thread block folds before its
// tree. The three rungs differ in U alone, so the code lives here once and
// unrolling2.cu, unrolling4.cu and unrolling8.cu only instantiate it and say
// what their step up the ladder buys and costs. unroll_warps8.cu reuses fold().
//
// Everything sits in an anonymous namespace, like every variant's kernel: each
// including .cu gets its own copy, instantiates only its own U, and no kernel
// symbol is shared between objects of the library.
#pragma once

#include "common.cuh"

namespace {
namespace unrolling {

constexpr unsigned kBlock = 256;
// One block reduces a slice of U data blocks.
template <unsigned U> constexpr size_t kPerBlock = (size_t)U * kBlock;

// Folds the U data blocks of B words at d onto the first one: thread t adds
// d[t + kB] (0 < k < U) into d[t], for the words below len. Each thread owns
// the words t, t + B, ..., so no two threads touch the same word; the loads
// are independent and all in flight before the first add.
template <unsigned U, unsigned B, typename A> __device__ __forceinline__ void fold(A *d, unsigned t, size_t len) {
  if (t < len) {
    A v = d[t];
#pragma unroll
    for (unsigned k = 1; k < U; k++)
      if (t + k * B < len) v += d[t + k * B];
    d[t] = v;
  }
}

template <unsigned U, typename A> __global__ void __launch_bounds__(kBlock) reduce(A *data, A *out, size_t n) {
  unsigned t = threadIdx.x;
  size_t base = (size_t)blockIdx.x * kPerBlock<U>;
  A *d = data + base;
  size_t len = n > base ? (n - base < kPerBlock<U> ? n - base : kPerBlock<U>) : 0;
  fold<U, kBlock>(d, t, len);
  __syncthreads();
  // Then the interleaved tree over what is left: min(len, B) words.
  size_t m = len < kBlock ? len : kBlock;
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride && t + stride < m) d[t] += d[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = len ? d[0] : A(0);
}

template <unsigned U> int run(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  return kg::dispatch_wide(dt, [&](auto tag) {
    using A = kg::acc_t<typename decltype(tag)::type>;
    return kg::tree<A>((A *)in, n, (A *)out, (A *)scratch, kPerBlock<U>,
                       [st](A *src, A *dst, size_t count, size_t blocks) {
                         reduce<U, A><<<(unsigned)blocks, kBlock, 0, st>>>(src, dst, count);
                       });
  });
}

template <unsigned U> size_t scratch(kg_dtype dt, size_t n) { return kg::tree_scratch(dt, n, kPerBlock<U>); }

// Each thread first chains up to U elements, then log2(B) tree steps.
template <unsigned U> double depth(size_t n) { return kg::tree_depth(n, kPerBlock<U>, U, kBlock); }

}  // namespace unrolling
}  // namespace
