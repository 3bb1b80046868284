// reduceNeighbored (Professional CUDA C 3.4, seed 003): the in-place starting
// point of that family. Each block reduces its slice of the input in global
// memory, adding neighbours at distance 1, 2, 4, ... with the test
// t % (2 * stride) == 0; block results go to scratch and are reduced again in
// place. Cost: every step reads and writes global memory, half the threads of
// each warp idle and diverge, and the input is destroyed.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename A> __global__ void __launch_bounds__(kBlock) neighbored(A *data, A *out, size_t n) {
  unsigned t = threadIdx.x;
  size_t base = (size_t)blockIdx.x * kBlock;
  A *d = data + base;
  size_t len = n > base ? (n - base < kBlock ? n - base : kBlock) : 0;
  for (unsigned stride = 1; stride < kBlock; stride *= 2) {
    if (t % (2 * stride) == 0 && t + stride < len) d[t] += d[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = len ? d[0] : A(0);
}

}  // namespace

extern "C" int kg_run_neighbored(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  return kg::dispatch_wide(dt, [&](auto tag) {
    using A = kg::acc_t<typename decltype(tag)::type>;
    return kg::tree<A>((A *)in, n, (A *)out, (A *)scratch, kBlock,
                       [st](A *src, A *dst, size_t count, size_t blocks) {
                         neighbored<A><<<(unsigned)blocks, kBlock, 0, st>>>(src, dst, count);
                       });
  });
}

extern "C" size_t kg_scratch_neighbored(kg_dtype dt, size_t n) { return kg::tree_scratch(dt, n, kBlock); }

extern "C" double kg_depth_neighbored(size_t n) { return kg::tree_depth(n, kBlock, 1, kBlock); }
