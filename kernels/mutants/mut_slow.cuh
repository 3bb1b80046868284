// Planted bug: a performance regression of a known size, for the paired gate's
// selftest. reduce7_shuffle's kernel, except that the first level also streams
// PerMille/1000 of the input's bytes more, from a region of its own scratch
// that nothing else reads, and each of its blocks holds its SM SpinCycles
// longer. The extra bytes cost time where the kernel streams (2^25: 1.2 %
// more bytes measured +1.0 % on an H100, 1.7 % more +1.07 % on an H200); at
// 2^22 the kernel is mostly latency and the bytes cost less (3.4 % more
// measured +1.6 % on an H100), so the spin, which delays every wave of
// blocks, makes up the rest. On an H200, 10 paired rounds with alternating
// quad orientation: (17, 0) +1.07 % at 2^25, (24, 30) +2.10 % and (75, 220)
// +4.63 % at 2^22.
// No extra launch: one alone would cost 2-3 us, 20 % at 2^22. The loads feed
// a value that is stored only when it equals an impossible constant, and then
// into scratch, never into the result. The true effect at each size is
// measured in the paired run itself (selftest prints the ratio it found).
#pragma once

#include "mut_common.cuh"

namespace kg_slow {

constexpr unsigned kBlock = 256;
constexpr unsigned kFull = 0xffffffffu;

inline size_t grid_for(size_t n) {
  size_t cap = 4 * (size_t)kg::sm_count() * (2048 / kBlock);
  size_t g = kg::ceil_div(n, 2 * kBlock);
  return g < 1 ? 1 : (g < cap ? g : cap);
}

// Extra 16-byte words to stream for n elements of `elem` bytes.
inline size_t extra_words(size_t n, size_t elem, unsigned per_mille) { return n * elem * per_mille / 1000 / 16; }

template <unsigned B, typename In, typename A>
__global__ void __launch_bounds__(B) level(const In *in, A *out, size_t n, const uint4 *extra, size_t nextra,
                                          unsigned *trash, unsigned spin) {
  __shared__ A s[B / 32];
  unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  size_t step = (size_t)2 * B * gridDim.x;
  A v = A(0);
  for (size_t i = (size_t)blockIdx.x * (2 * B) + t; i < n; i += step) {
    v += kg::to_acc<A>(in[i]);
    if (i + B < n) v += kg::to_acc<A>(in[i + B]);
  }
  unsigned x = 0;
  for (size_t i = (size_t)blockIdx.x * B + t; i < nextra; i += (size_t)B * gridDim.x) x ^= extra[i].x ^ extra[i].w;
  if (x == 0x9e3779b9u) *trash = x;
#pragma unroll
  for (unsigned off = 16; off > 0; off >>= 1) v += __shfl_down_sync(kFull, v, off);
  if (lane == 0) s[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < B / 32 ? s[lane] : A(0);
#pragma unroll
    for (unsigned off = B / 64; off > 0; off >>= 1) v += __shfl_down_sync(kFull, v, off);
    if (lane == 0) out[blockIdx.x] = v;
    if (lane == 0 && spin) {
      long long t0 = clock64();
      while (clock64() - t0 < (long long)spin) {
      }
    }
  }
}

// Scratch: the partials (16-byte aligned), a trash word, then the extra region.
inline size_t partials_bytes(kg_dtype dt, size_t n) { return (grid_for(n) * kg::acc_size(dt) + 31) & ~(size_t)15; }

template <unsigned PerMille, unsigned SpinCycles>
int run(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  size_t g = grid_for(n);
  char *base = (char *)scratch;
  unsigned *trash = (unsigned *)(base + partials_bytes(dt, n) - 16);
  const uint4 *extra = (const uint4 *)(base + partials_bytes(dt, n));
  size_t nextra = extra_words(n, kg::elem_size(dt), PerMille);
  return kg::dispatch(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kg::acc_t<T>;
    A *partials = (A *)scratch;
    level<kBlock, T, A><<<(unsigned)g, kBlock, 0, st>>>((const T *)in, g == 1 ? (A *)out : partials, n, extra,
                                                        nextra, trash, SpinCycles);
    KG_TRY(cudaGetLastError());
    if (g > 1) {
      level<kBlock, A, A><<<1, kBlock, 0, st>>>(partials, (A *)out, g, nullptr, 0, trash, 0);
      KG_TRY(cudaGetLastError());
    }
    return 0;
  });
}

template <unsigned PerMille> size_t scratch(kg_dtype dt, size_t n) {
  return partials_bytes(dt, n) + 16 * extra_words(n, kg::elem_size(dt), PerMille);
}

}  // namespace kg_slow

#define KG_MUTANT_SLOW(name, per_mille, spin_cycles)                                                  \
  extern "C" int kg_run_##name(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) { \
    return kg_slow::run<per_mille, spin_cycles>(dt, in, n, out, scratch, stream);                   \
  }                                                                                                   \
  extern "C" size_t kg_scratch_##name(kg_dtype dt, size_t n) { return kg_slow::scratch<per_mille>(dt, n); } \
  extern "C" double kg_depth_##name(size_t n) { return kg_depth_reduce7_shuffle(n); }
