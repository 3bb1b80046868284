// The launch, scratch and depth of my_gridsum for KGATE_DEFINE_VARIANT,
// shared by the defname and defop cases.
#pragma once
#include <kgate/dispatch.cuh>

namespace {
template <class T>
__global__ void sum(const T *in, size_t n, T *out) {
  T s = 0;
  for (size_t i = 0; i < n; i++) s += in[i];
  *out = s;
}
template <class T>
int launch(const T *in, size_t n, void *out, void *, cudaStream_t stream) {
  sum<<<1, 1, 0, stream>>>(in, n, static_cast<T *>(out));
  return (int)cudaGetLastError();
}
size_t scratch(int, size_t) { return 0; }
double depth(size_t n) { return kgate::depth_any_order(n); }
}  // namespace
