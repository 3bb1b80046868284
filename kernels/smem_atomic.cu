// Reduce with atomic (lab notes, seed 004): two_pass's block work, finished
// with atomics instead of a second launch. The result is zeroed with a
// memset (part of the run); a grid of at most 640 blocks (the article's)
// strides over the input, each thread summing in a register; each block
// reduces its threads with a shared-memory sequential-addressing tree, and
// thread 0 atomicAdds the block sum into the result. Cost: the block sums land in
// arrival order, so float results vary in the last bits from run to run, and
// each block's atomicAdd is one more link in the rounding chain.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr size_t kMaxGrid = 640;

// One block per B elements, at most 640 (the article's grid): few blocks keep
// the atomic chain short, and a fixed cap keeps the grid, hence the depth,
// independent of the device.
size_t grid_for(size_t n) {
  size_t g = kg::ceil_div(n, kBlock);
  return g < kMaxGrid ? g : kMaxGrid;
}

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) smem_atomic(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t step = (size_t)gridDim.x * kBlock;
  A v = A(0);
  for (size_t i = (size_t)blockIdx.x * kBlock + t; i < n; i += step) v += kg::to_acc<A>(in[i]);
  s[t] = v;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, s[0]);
}

}  // namespace

extern "C" int kg_run_smem_atomic(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  (void)scratch;
  cudaStream_t st = (cudaStream_t)stream;
  return kg::dispatch(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kg::acc_t<T>;
    KG_TRY(cudaMemsetAsync(out, 0, sizeof(A), st));
    if (n == 0) return 0;  // the zero is the sum
    smem_atomic<T, A><<<(unsigned)grid_for(n), kBlock, 0, st>>>((const T *)in, (A *)out, n);
    KG_TRY(cudaGetLastError());
    return 0;
  });
}

extern "C" size_t kg_scratch_smem_atomic(kg_dtype dt, size_t n) {
  (void)dt;
  (void)n;
  return 0;
}

// Worst thread: ceil(n / (B g)) elements, then log2(B) tree steps, then one
// atomic link per block.
extern "C" double kg_depth_smem_atomic(size_t n) {
  if (n == 0) return 1.0;
  size_t g = grid_for(n);
  return (double)kg::ceil_div(n, kBlock * g) + kg::log2_floor(kBlock) + (double)g;
}
