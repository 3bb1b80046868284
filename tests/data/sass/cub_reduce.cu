// CUB's device-wide sum for the lint's coverage (capture.sh): the kernels
// of cub::DeviceReduce::Sum for int, float and double, as kgate's cub_sum
// variant uses them. Compiled to PTX once per architecture, then by ptxas at
// -O0..-O3.
#include <cub/device/device_reduce.cuh>

template <typename T> void sum(const T *in, T *out, int n, void *tmp, size_t bytes) {
  cub::DeviceReduce::Sum(tmp, bytes, in, out, n);
}
template void sum<int>(const int *, int *, int, void *, size_t);
template void sum<float>(const float *, float *, int, void *, size_t);
template void sum<double>(const double *, double *, int, void *, size_t);
