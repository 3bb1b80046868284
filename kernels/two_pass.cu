// Two-pass reduce_sum (lab notes, seed 004), done right. A fixed grid of at
// most 640 blocks strides over the input, each thread summing in a register
// (the article summed straight into shared memory and used an int index),
// each block reduces its threads with a sequential-addressing shared-memory
// tree and writes one partial; then one block of the same kernel reduces the
// partials into the result. Unlike the atomic rungs the order is fixed, so
// the bits are reproducible. Cost: a second launch, and with a grid fixed
// rather than sized from the device, long per-thread chains for large n.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr size_t kMaxGrid = 640;

// One block per B elements, at most 640 (the article's grid), at least one.
size_t grid_for(size_t n) {
  size_t g = kg::ceil_div(n, kBlock);
  return g < 1 ? 1 : (g < kMaxGrid ? g : kMaxGrid);
}

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) two_pass(const In *in, A *out, size_t n) {
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
  if (t == 0) out[blockIdx.x] = s[0];
}

template <typename T>
int run(const T *in, size_t n, kg::acc_t<T> *out, kg::acc_t<T> *scratch, cudaStream_t st) {
  using A = kg::acc_t<T>;
  size_t g = grid_for(n);
  two_pass<T, A><<<(unsigned)g, kBlock, 0, st>>>(in, g == 1 ? out : scratch, n);
  KG_TRY(cudaGetLastError());
  if (g > 1) {
    two_pass<A, A><<<1, kBlock, 0, st>>>(scratch, out, g);
    KG_TRY(cudaGetLastError());
  }
  return 0;
}

}  // namespace

extern "C" int kg_run_two_pass(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return kg::dispatch(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kg::acc_t<T>;
    return run<T>((const T *)in, n, (A *)out, (A *)scratch, (cudaStream_t)stream);
  });
}

extern "C" size_t kg_scratch_two_pass(kg_dtype dt, size_t n) {
  size_t g = grid_for(n);
  return g > 1 ? g * kg::acc_size(dt) : 0;
}

// Worst thread of a pass over m values with g blocks: ceil(m / (B g))
// elements, then log2(B) tree steps; the second pass sees g values.
extern "C" double kg_depth_two_pass(size_t n) {
  size_t g = grid_for(n);
  double h = (double)kg::ceil_div(n, kBlock * g) + kg::log2_floor(kBlock);
  if (g > 1) h += (double)kg::ceil_div(g, kBlock) + kg::log2_floor(kBlock);
  return h;
}
