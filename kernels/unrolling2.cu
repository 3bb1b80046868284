// reduceUnrolling2 (CUDA Freshman 3.5, seed 001): the interleaved in-place
// reduction of seed 003, but each block first folds two data blocks: thread t
// adds d[t + B] into d[t] of its slice of 2B elements, then the interleaved
// tree runs over the first B. Half as many blocks are launched, and each
// thread issues two independent loads before the tree, which hides more
// memory latency. Cost: the fold is one more global read-modify-write pass,
// each element's chain grows by one add, and the input is destroyed.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kUnroll = 2;
constexpr size_t kPerBlock = (size_t)kUnroll * kBlock;

template <typename A> __global__ void __launch_bounds__(kBlock) unrolling2(A *data, A *out, size_t n) {
  unsigned t = threadIdx.x;
  size_t base = (size_t)blockIdx.x * kPerBlock;
  A *d = data + base;
  size_t len = n > base ? (n - base < kPerBlock ? n - base : kPerBlock) : 0;
  // Fold the slice's two data blocks onto the first one; each thread owns
  // the words t, t + B, ..., so no two threads touch the same word.
  if (t < len) {
    A v = d[t];
#pragma unroll
    for (unsigned k = 1; k < kUnroll; k++)
      if (t + k * kBlock < len) v += d[t + k * kBlock];
    d[t] = v;
  }
  __syncthreads();
  // Then the interleaved tree over what is left: min(len, B) words.
  size_t m = len < kBlock ? len : kBlock;
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride && t + stride < m) d[t] += d[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = len ? d[0] : A(0);
}

}  // namespace

extern "C" int kg_run_unrolling2(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  return kg::dispatch_wide(dt, [&](auto tag) {
    using A = kg::acc_t<typename decltype(tag)::type>;
    return kg::tree<A>((A *)in, n, (A *)out, (A *)scratch, kPerBlock,
                       [st](A *src, A *dst, size_t count, size_t blocks) {
                         unrolling2<A><<<(unsigned)blocks, kBlock, 0, st>>>(src, dst, count);
                       });
  });
}

extern "C" size_t kg_scratch_unrolling2(kg_dtype dt, size_t n) { return kg::tree_scratch(dt, n, kPerBlock); }

// Each thread first chains up to 2 elements, then log2(B) tree steps.
extern "C" double kg_depth_unrolling2(size_t n) { return kg::tree_depth(n, kPerBlock, kUnroll, kBlock); }
