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

// Four independent 16-byte loads in flight per thread per step. The xor only
// lands in memory if it hits an impossible value, so the loads cannot be
// dropped, yet nothing is written: no dirty lines follow into the next sample.
__global__ void read_all(const uint4 *p, size_t count, unsigned *sink) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * stride < count; i += 4 * stride) {
    uint4 a = p[i], b = p[i + stride], c = p[i + 2 * stride], d = p[i + 3 * stride];
    acc ^= a.x ^ a.w ^ b.y ^ b.z ^ c.x ^ c.w ^ d.y ^ d.z;
  }
  for (; i < count; i += stride) acc ^= p[i].x ^ p[i].w;
  if (acc == 0x9e3779b9u && sink) *sink = acc;
}

}  // namespace

extern "C" int kg_dev_read(const void *buf, size_t bytes, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  read_all<<<8 * kg::sm_count(), 256, 0, st>>>((const uint4 *)buf, bytes / 16, nullptr);
  return (int)cudaGetLastError();
}

extern "C" int kg_dev_equal(const void *a, const void *b, size_t bytes, int *equal, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  int *flag = nullptr;
  int host = 0;
  KG_TRY(cudaMallocAsync((void **)&flag, sizeof(int), st));
  cudaError_t e = cudaMemsetAsync(flag, 0, sizeof(int), st);
  if (e == cudaSuccess && bytes) {
    differ<<<4 * kg::sm_count(), 256, 0, st>>>((const unsigned char *)a, (const unsigned char *)b, bytes, flag);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&host, flag, sizeof(int), cudaMemcpyDeviceToHost, st);
  cudaError_t f = cudaFreeAsync(flag, st);
  if (e == cudaSuccess) e = f;
  if (e == cudaSuccess) e = cudaStreamSynchronize(st);
  *equal = !host;
  return (int)e;
}
