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

}  // namespace

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
