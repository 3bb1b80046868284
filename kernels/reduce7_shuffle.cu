// reduce7 (seed 002): reduce6 with warp shuffles instead of shared memory for
// the tree. After the same grid-stride pair sum, each warp folds its 32
// registers with __shfl_down_sync (full mask, all lanes taking part, so no
// lockstep is assumed), lane 0 of each warp parks the warp sum in shared
// memory, and warp 0 shuffles those B/32 sums down to one. Only one
// __syncthreads remains and shared memory shrinks to B/32 words. Cost: lanes
// whose results are discarded still shuffle and add, and the two launches of
// reduce6 stay.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kFull = 0xffffffffu;

// As reduce6: one block per 2B elements, at most four waves, at least one.
size_t grid_for(size_t n) {
  size_t cap = 4 * (size_t)kg::sm_count() * (2048 / kBlock);
  size_t g = kg::ceil_div(n, 2 * kBlock);
  return g < 1 ? 1 : (g < cap ? g : cap);
}

template <unsigned B, typename In, typename A>
__global__ void __launch_bounds__(B) reduce7(const In *in, A *out, size_t n) {
  static_assert(B >= 64 && B <= 1024 && (B & (B - 1)) == 0, "B: a power of two in [64, 1024]");
  constexpr unsigned kWarps = B / 32;
  __shared__ A s[kWarps];
  unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  size_t step = (size_t)2 * B * gridDim.x;
  A v = A(0);
  for (size_t i = (size_t)blockIdx.x * (2 * B) + t; i < n; i += step) {
    v += kg::to_acc<A>(in[i]);
    if (i + B < n) v += kg::to_acc<A>(in[i + B]);
  }
#pragma unroll
  for (unsigned off = 16; off > 0; off >>= 1) v += __shfl_down_sync(kFull, v, off);
  if (lane == 0) s[warp] = v;
  __syncthreads();
  if (warp == 0) {
    // Only log2(B/32) steps: lane 0 then holds exactly the sum of s[0..kWarps).
    v = lane < kWarps ? s[lane] : A(0);
#pragma unroll
    for (unsigned off = kWarps / 2; off > 0; off >>= 1) v += __shfl_down_sync(kFull, v, off);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

template <typename T>
int run(const T *in, size_t n, kg::acc_t<T> *out, kg::acc_t<T> *scratch, cudaStream_t st) {
  using A = kg::acc_t<T>;
  size_t g = grid_for(n);
  reduce7<kBlock, T, A><<<(unsigned)g, kBlock, 0, st>>>(in, g == 1 ? out : scratch, n);
  KG_TRY(cudaGetLastError());
  if (g > 1) {
    reduce7<kBlock, A, A><<<1, kBlock, 0, st>>>(scratch, out, g);
    KG_TRY(cudaGetLastError());
  }
  return 0;
}

}  // namespace

extern "C" int kg_run_reduce7_shuffle(kg_dtype dt, void *in, size_t n, void *out, void *scratch,
                                      void *stream) {
  return kg::dispatch(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kg::acc_t<T>;
    return run<T>((const T *)in, n, (A *)out, (A *)scratch, (cudaStream_t)stream);
  });
}

extern "C" size_t kg_scratch_reduce7_shuffle(kg_dtype dt, size_t n) {
  size_t g = grid_for(n);
  return g > 1 ? g * kg::acc_size(dt) : 0;
}

// As reduce6: the shuffle tree is 5 + log2(B/32) = log2(B) steps.
extern "C" double kg_depth_reduce7_shuffle(size_t n) {
  size_t g = grid_for(n);
  double h = 2.0 * kg::ceil_div(n, 2 * kBlock * g) + kg::log2_floor(kBlock);
  if (g > 1) h += 2.0 * kg::ceil_div(g, 2 * kBlock) + kg::log2_floor(kBlock);
  return h;
}
