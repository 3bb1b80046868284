// Inputs made on the GPU: kg_dev_fill writes the bits kg_pattern_fill writes
// on the CPU, and kg_dev_fingerprint computes kg_gen_fingerprint's value, so
// the worker can prove that a GPU-made input is the one its cached CPU
// reference was computed from. Both are one thread per element or word,
// grid-stride, and memory-bound: the generator (kernels/inputgen.h, one copy
// for CPU and GPU) is a few 64-bit multiplies per element.
// CMakeLists.txt builds this file with --fmad=false -ftz=false -prec-div=true
// -prec-sqrt=true: inputgen.h says why each step rounds the same as the host.
#include "common.cuh"
#include "inputgen.h"

namespace {

constexpr unsigned kBlock = 256;
// One wave of resident blocks on sm_80/sm_90 (2048 threads per SM); the
// grid-stride loops cover the rest. Not tuned on a card yet.
constexpr unsigned kBlocksPerSm = 8;

unsigned grid_for(size_t items) {
  size_t blocks = kg::ceil_div(items, kBlock), cap = (size_t)kBlocksPerSm * kg::sm_count();
  return (unsigned)(blocks < 1 ? 1 : blocks < cap ? blocks : cap);
}

// Every element decides alone what it is, the NaN and Inf places included
// (kg_gen_store compares j with them), so no second pass can race.
__global__ void __launch_bounds__(kBlock) fill(kg_gen g, void *buf) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < g.n; j += stride) kg_gen_store(&g, j, buf);
}

// Word i of buf as the host's memcpy reads it (little-endian), from any
// alignment; the bytes past `bytes` read as zero (the padded tail).
__device__ uint64_t word_at(const unsigned char *buf, size_t bytes, size_t i) {
  uint64_t w = 0;
  for (unsigned k = 0; k < 8 && 8 * i + k < bytes; k++) w |= (uint64_t)buf[8 * i + k] << (8 * k);
  return w;
}

__device__ uint64_t block_sum(uint64_t v) {
  __shared__ uint64_t part[kBlock / 32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  v = 0;
  if (threadIdx.x < 32) {
    v = threadIdx.x < kBlock / 32 ? part[threadIdx.x] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  }
  return v;  // the block's sum, in thread 0
}

// Adds kg_gen_fp_term over the 8-byte words of buf into *out (zeroed
// before): the sum is mod 2^64, so the order of the atomics does not matter.
// Aligned: 16-byte loads, four in flight per thread before their first use
// (a 2^25 f64 input is a pure read of 256 MiB); otherwise byte loads.
template <bool Aligned>
__global__ void __launch_bounds__(kBlock) fingerprint(const unsigned char *buf, size_t bytes, unsigned long long *out) {
  constexpr unsigned kLoads = 4;
  size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
  size_t words = bytes / 8, pairs = words / 2, q = tid;
  uint64_t s = 0;
  if constexpr (Aligned) {
    const ulonglong2 *p = (const ulonglong2 *)buf;
    for (; q + (kLoads - 1) * stride < pairs; q += kLoads * stride) {
      ulonglong2 v[kLoads];
#pragma unroll
      for (unsigned u = 0; u < kLoads; u++) v[u] = p[q + u * stride];
#pragma unroll
      for (unsigned u = 0; u < kLoads; u++) {
        size_t i = 2 * (q + u * stride);
        s += kg_gen_fp_term(v[u].x, i) + kg_gen_fp_term(v[u].y, i + 1);
      }
    }
    for (; q < pairs; q += stride) s += kg_gen_fp_term(p[q].x, 2 * q) + kg_gen_fp_term(p[q].y, 2 * q + 1);
    q = 2 * pairs + tid;  // the odd last word, if any, and the tail
  }
  for (; q < (bytes + 7) / 8; q += stride) s += kg_gen_fp_term(word_at(buf, bytes, q), q);
  if (tid == 0) s += kg_gen_fp_length(bytes);
  s = block_sum(s);
  if (threadIdx.x == 0) atomicAdd(out, (unsigned long long)s);
}

}  // namespace

extern "C" int kg_dev_fill(kg_dtype dt, int pattern, uint64_t seed, size_t n, void *buf, void *stream) {
  if ((unsigned)dt >= KG_NDTYPES || pattern < 0 || pattern >= KG_NPATTERNS) return (int)cudaErrorInvalidValue;
  if (n == 0) return 0;
  kg_gen g;
  kg_gen_init(&g, dt, pattern, seed, n);  // the per-input constants, once, on the host
  fill<<<grid_for(n), kBlock, 0, (cudaStream_t)stream>>>(g, buf);
  return (int)cudaGetLastError();
}

extern "C" int kg_dev_fingerprint(const void *buf, size_t bytes, unsigned long long *d_out, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  const unsigned char *b = (const unsigned char *)buf;
  KG_TRY(cudaMemsetAsync(d_out, 0, sizeof *d_out, st));
  if ((uintptr_t)buf % 16 == 0) fingerprint<true><<<grid_for(bytes / 16), kBlock, 0, st>>>(b, bytes, d_out);
  else fingerprint<false><<<grid_for(bytes / 8), kBlock, 0, st>>>(b, bytes, d_out);
  return (int)cudaGetLastError();
}
