// Warp shuffle with atomic (lab notes, seed 004): smem_atomic with the block
// tree done in registers. After the grid-stride sum, each warp folds its 32
// values with __shfl_down_sync (full mask, all lanes taking part), lane 0 of
// each warp parks the warp sum in shared memory, warp 0 shuffles those B/32
// sums down to one and lane 0 atomicAdds it into the memset result. One
// __syncthreads instead of log2(B), and B/32 words of shared memory. Cost:
// as smem_atomic, float results vary in the last bits from run to run and
// each block's atomicAdd is a link in the rounding chain; the article found
// the load loop, not the tree, to be the bottleneck, so little is gained.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr size_t kMaxGrid = 640;
constexpr unsigned kWarps = kBlock / 32;
constexpr unsigned kFull = 0xffffffffu;

// As smem_atomic: one block per B elements, at most 640 whatever the device.
size_t grid_for(size_t n) {
  size_t g = kg::ceil_div(n, kBlock);
  return g < kMaxGrid ? g : kMaxGrid;
}

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) shuffle_atomic(const In *in, A *out, size_t n) {
  __shared__ A s[kWarps];
  unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  size_t step = (size_t)gridDim.x * kBlock;
  A v = A(0);
  for (size_t i = (size_t)blockIdx.x * kBlock + t; i < n; i += step) v += kg::to_acc<A>(in[i]);
#pragma unroll
  for (unsigned off = 16; off > 0; off >>= 1) v += __shfl_down_sync(kFull, v, off);
  if (lane == 0) s[warp] = v;
  __syncthreads();
  if (warp == 0) {
    // Only log2(B/32) steps: lane 0 then holds exactly the sum of s[0..kWarps).
    v = lane < kWarps ? s[lane] : A(0);
#pragma unroll
    for (unsigned off = kWarps / 2; off > 0; off >>= 1) v += __shfl_down_sync(kFull, v, off);
    if (lane == 0) atomicAdd(out, v);
  }
}

}  // namespace

extern "C" int kg_run_shuffle_atomic(kg_dtype dt, void *in, size_t n, void *out, void *scratch,
                                     void *stream) {
  (void)scratch;
  cudaStream_t st = (cudaStream_t)stream;
  return kg::dispatch(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kg::acc_t<T>;
    KG_TRY(cudaMemsetAsync(out, 0, sizeof(A), st));
    if (n == 0) return 0;  // the zero is the sum
    shuffle_atomic<T, A><<<(unsigned)grid_for(n), kBlock, 0, st>>>((const T *)in, (A *)out, n);
    KG_TRY(cudaGetLastError());
    return 0;
  });
}

extern "C" size_t kg_scratch_shuffle_atomic(kg_dtype dt, size_t n) {
  (void)dt;
  (void)n;
  return 0;
}

// Worst thread: ceil(n / (B g)) elements, then 5 + log2(B/32) = log2(B)
// shuffle steps, then one atomic link per block.
extern "C" double kg_depth_shuffle_atomic(size_t n) {
  if (n == 0) return 1.0;
  size_t g = grid_for(n);
  return (double)kg::ceil_div(n, kBlock * g) + kg::log2_floor(kBlock) + (double)g;
}
