// Naive atomic (lab notes, seed 004): no tree at all. The result is zeroed
// with a memset (part of the run, on the same stream), then a grid-stride
// kernel has every element atomicAdd itself into it. There is no shared
// memory, no barrier and no second pass. Cost: every addition is serialised
// on one address in L2, so the time grows with n at atomic throughput rather
// than memory bandwidth (the article measured 536x slower), and float sums
// come out in a different order, hence different last bits, on every run;
// the rounding chain is as long as the input.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) atomic_per_element(const In *in, A *out, size_t n) {
  size_t step = (size_t)gridDim.x * kBlock;
  for (size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x; i < n; i += step)
    atomicAdd(out, kg::to_acc<A>(in[i]));
}

}  // namespace

extern "C" int kg_run_atomic_per_element(kg_dtype dt, void *in, size_t n, void *out, void *scratch,
                                         void *stream) {
  (void)scratch;
  cudaStream_t st = (cudaStream_t)stream;
  return kg::dispatch(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kg::acc_t<T>;
    KG_TRY(cudaMemsetAsync(out, 0, sizeof(A), st));
    if (n == 0) return 0;  // the zero is the sum
    // One wave of resident blocks is plenty: the atomics, not the loads, set the pace.
    size_t cap = (size_t)kg::sm_count() * (2048 / kBlock);
    size_t blocks = kg::ceil_div(n, kBlock);
    if (blocks > cap) blocks = cap;
    atomic_per_element<T, A><<<(unsigned)blocks, kBlock, 0, st>>>((const T *)in, (A *)out, n);
    KG_TRY(cudaGetLastError());
    return 0;
  });
}

extern "C" size_t kg_scratch_atomic_per_element(kg_dtype dt, size_t n) {
  (void)dt;
  (void)n;
  return 0;
}

// Every element is one atomicAdd into the same address: n links.
extern "C" double kg_depth_atomic_per_element(size_t n) { return n ? (double)n : 1.0; }
