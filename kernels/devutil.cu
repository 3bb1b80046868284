// Device helpers for the worker: comparing buffers without copying them back.
#include "common.cuh"

namespace {

__global__ void differ(const unsigned char *a, const unsigned char *b, size_t bytes, int *flag) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += stride)
    if (a[i] != b[i]) {
      *flag = 1;
      return;
    }
}

// The same in 16-byte words (both buffers 16-byte aligned, as cudaMalloc's
// are), the tail bytewise: a byte per load reads a large input at a
// fraction of the bandwidth.
__global__ void differ16(const uint4 *a, const uint4 *b, size_t bytes, int *flag) {
  size_t stride = (size_t)gridDim.x * blockDim.x, i0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t words = bytes / 16;
  int d = 0;
  for (size_t i = i0; i < words; i += stride) {
    uint4 x = a[i], y = b[i];
    d |= (x.x != y.x) | (x.y != y.y) | (x.z != y.z) | (x.w != y.w);
  }
  const unsigned char *ta = (const unsigned char *)(a + words), *tb = (const unsigned char *)(b + words);
  if (i0 < bytes % 16) d |= ta[i0] != tb[i0];
  if (d) *flag = 1;
}

// Reads count 16-byte words. Each warp takes 4 KiB chunks, its eight loads per
// lane side by side and all issued before the first use, over a persistent
// grid of four 256-thread blocks per SM: the access shape of
// kgate_single_pass, which reads closer to the peak than a grid-stride loop
// (fewer DRAM pages and translations open per round). The xor only lands in
// memory if it hits an impossible value, so the loads cannot be dropped, yet
// nothing is written: no dirty lines follow into the next sample.
// Wide: every word of each load is used, so ptxas keeps 16-byte loads (with
// two words used it narrows them to two 4-byte loads: the same sectors from
// DRAM, other instructions; which reads faster differs by card and grid, so
// the roofline tries both).
template <bool Streaming, bool Wide>
__global__ void __launch_bounds__(256) read_all(const uint4 *p, size_t count, unsigned *sink) {
  constexpr unsigned kLoads = 8, kChunk = 32 * kLoads;
  unsigned lane = threadIdx.x & 31;
  size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  size_t nwarps = ((size_t)gridDim.x * blockDim.x) >> 5;
  size_t nchunks = count / kChunk;
  unsigned acc = 0;
  for (size_t c = warp; c < nchunks; c += nwarps) {
    const uint4 *q = p + c * kChunk + lane;
    uint4 v[kLoads];
#pragma unroll
    for (unsigned j = 0; j < kLoads; j++) v[j] = Streaming ? __ldcs(q + 32 * j) : q[32 * j];
#pragma unroll
    for (unsigned j = 0; j < kLoads; j++) acc ^= Wide ? v[j].x ^ v[j].y ^ v[j].z ^ v[j].w : v[j].x ^ v[j].w;
  }
  for (size_t i = nchunks * kChunk + warp * 32 + lane; i < count; i += nwarps * 32) acc ^= p[i].x ^ p[i].w;
  if (acc == 0x9e3779b9u && sink) *sink = acc;
}

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Holds the stream until the host sets flags[0] (host-mapped memory), so
// that everything queued behind it starts together: the host's launch
// latency never lands between a sample's events. Gives up after timeout_ns
// and sets flags[1], so a host that never releases cannot hang the GPU.
__global__ void hold(volatile int *flags, unsigned long long timeout_ns) {
  unsigned long long t0 = global_ns();
  while (!flags[0]) {
    if (global_ns() - t0 > timeout_ns) {
      flags[1] = 1;
      return;
    }
    __nanosleep(1000);
  }
}

}  // namespace

extern "C" int kg_dev_read(const void *buf, size_t bytes, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  read_all<false, false><<<4 * kg::sm_count(), 256, 0, st>>>((const uint4 *)buf, bytes / 16, nullptr);
  return (int)cudaGetLastError();
}

extern "C" int kg_dev_read_shape(const void *buf, size_t bytes, int blocks_per_sm, int streaming, int wide,
                                 void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  unsigned grid = (unsigned)(blocks_per_sm * kg::sm_count());
  const uint4 *p = (const uint4 *)buf;
  if (streaming && wide) read_all<true, true><<<grid, 256, 0, st>>>(p, bytes / 16, nullptr);
  else if (streaming) read_all<true, false><<<grid, 256, 0, st>>>(p, bytes / 16, nullptr);
  else if (wide) read_all<false, true><<<grid, 256, 0, st>>>(p, bytes / 16, nullptr);
  else read_all<false, false><<<grid, 256, 0, st>>>(p, bytes / 16, nullptr);
  return (int)cudaGetLastError();
}

extern "C" int kg_dev_hold(volatile int *flags, double timeout_s, void *stream) {
  hold<<<1, 1, 0, (cudaStream_t)stream>>>(flags, (unsigned long long)(timeout_s * 1e9));
  return (int)cudaGetLastError();
}

extern "C" int kg_dev_differ_async(const void *a, const void *b, size_t bytes, int *d_flag, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  KG_TRY(cudaMemsetAsync(d_flag, 0, sizeof(int), st));
  if (!bytes) return 0;
  if (((uintptr_t)a | (uintptr_t)b) % 16)
    differ<<<4 * kg::sm_count(), 256, 0, st>>>((const unsigned char *)a, (const unsigned char *)b, bytes, d_flag);
  else
    differ16<<<4 * kg::sm_count(), 256, 0, st>>>((const uint4 *)a, (const uint4 *)b, bytes, d_flag);
  return (int)cudaGetLastError();
}
