// reduce6 (Harris, seed 002): reduce5 with many elements per thread. Instead of
// one block per 2B elements, a grid capped at four waves of resident blocks
// strides over the input in pairs (i, i + B), each thread summing in a
// register, so there are few blocks and one small set of partials. The same
// kernel then runs once more as a single block over those partials (it also
// grid-strides, so any number of partials fits). Cost: the sequential
// per-thread sum lengthens the rounding chain by two links per pair, and the
// grid size now depends on the device.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;

// First-pass blocks: one per 2B elements, at most four waves of resident
// blocks (2048 threads per SM), at least one so that n == 0 writes a zero.
size_t grid_for(size_t n) {
  size_t cap = 4 * (size_t)kg::sm_count() * (2048 / kBlock);
  size_t g = kg::ceil_div(n, 2 * kBlock);
  return g < 1 ? 1 : (g < cap ? g : cap);
}

template <unsigned B, typename In, typename A>
__global__ void __launch_bounds__(B) reduce6(const In *in, A *out, size_t n) {
  static_assert(B >= 64 && B <= 1024 && (B & (B - 1)) == 0, "B: a power of two in [64, 1024]");
  __shared__ A s[B];
  unsigned t = threadIdx.x;
  size_t step = (size_t)2 * B * gridDim.x;
  A v = A(0);
  for (size_t i = (size_t)blockIdx.x * (2 * B) + t; i < n; i += step) {
    v += kg::to_acc<A>(in[i]);
    if (i + B < n) v += kg::to_acc<A>(in[i + B]);
  }
  s[t] = v;
  __syncthreads();
  if (B >= 1024) { if (t < 512) s[t] += s[t + 512]; __syncthreads(); }
  if (B >= 512) { if (t < 256) s[t] += s[t + 256]; __syncthreads(); }
  if (B >= 256) { if (t < 128) s[t] += s[t + 128]; __syncthreads(); }
  if (B >= 128) { if (t < 64) s[t] += s[t + 64]; __syncthreads(); }
  if (t < 32) {  // all of warp 0: every lane reaches each __syncwarp
    v = s[t];
#pragma unroll
    for (unsigned stride = 32; stride > 0; stride >>= 1) {
      v += s[t + stride];
      __syncwarp();
      s[t] = v;
      __syncwarp();
    }
    if (t == 0) out[blockIdx.x] = v;
  }
}

template <typename T>
int run(const T *in, size_t n, kg::acc_t<T> *out, kg::acc_t<T> *scratch, cudaStream_t st) {
  using A = kg::acc_t<T>;
  size_t g = grid_for(n);
  reduce6<kBlock, T, A><<<(unsigned)g, kBlock, 0, st>>>(in, g == 1 ? out : scratch, n);
  KG_TRY(cudaGetLastError());
  if (g > 1) {
    reduce6<kBlock, A, A><<<1, kBlock, 0, st>>>(scratch, out, g);
    KG_TRY(cudaGetLastError());
  }
  return 0;
}

}  // namespace

extern "C" int kg_run_reduce6_grid_stride(kg_dtype dt, void *in, size_t n, void *out, void *scratch,
                                          void *stream) {
  return kg::dispatch(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kg::acc_t<T>;
    return run<T>((const T *)in, n, (A *)out, (A *)scratch, (cudaStream_t)stream);
  });
}

extern "C" size_t kg_scratch_reduce6_grid_stride(kg_dtype dt, size_t n) {
  size_t g = grid_for(n);
  return g > 1 ? g * kg::acc_size(dt) : 0;
}

// Worst thread of a pass over m values with g blocks: ceil(m / (2Bg)) pairs,
// two adds each, then log2(B) tree steps; the second pass sees g values.
extern "C" double kg_depth_reduce6_grid_stride(size_t n) {
  size_t g = grid_for(n);
  double h = 2.0 * kg::ceil_div(n, 2 * kBlock * g) + kg::log2_floor(kBlock);
  if (g > 1) h += 2.0 * kg::ceil_div(g, 2 * kBlock) + kg::log2_floor(kBlock);
  return h;
}
