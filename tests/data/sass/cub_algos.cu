// CUB's device-wide algorithms that coordinate blocks through decoupled
// look-back, atomics or tile counters, for the lint's corpus (capture.sh,
// corpus-expect.tsv). Calling each host entry point is enough for its kernels
// to land in the cubin. Every kernel here is correct: the lint must find
// nothing ("none"). The one that matters most is the radix sort's onesweep
// kernel, whose dynamic tile id (an atomicAdd at kernel start) is no ticket.
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>

struct is_odd {
  __host__ __device__ bool operator()(int v) const { return v & 1; }
};

// Onesweep (look-back over digit counts, a tile counter), upsweep/downsweep.
void sort_keys(const unsigned *in, unsigned *out, int n, void *tmp, size_t &bytes) {
  cub::DeviceRadixSort::SortKeys(tmp, bytes, in, out, n);
}
void sort_keys_f(const float *in, float *out, int n, void *tmp, size_t &bytes) {
  cub::DeviceRadixSort::SortKeys(tmp, bytes, in, out, n);
}
// Decoupled look-back on tile prefixes.
void scan(const int *in, int *out, int n, void *tmp, size_t &bytes) {
  cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, n);
}
void scan_f(const float *in, float *out, int n, void *tmp, size_t &bytes) {
  cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, n);
}
// Look-back on selection counts.
void select_if(const int *in, int *out, int *count, int n, void *tmp, size_t &bytes) {
  cub::DeviceSelect::If(tmp, bytes, in, out, count, n, is_odd{});
}
// Look-back on run counts.
void rle(const int *in, int *unique, int *counts, int *runs, int n, void *tmp, size_t &bytes) {
  cub::DeviceRunLengthEncode::Encode(tmp, bytes, in, unique, counts, runs, n);
}
// Global atomicAdd into the bins.
void histogram(const float *in, int *hist, int n, void *tmp, size_t &bytes) {
  cub::DeviceHistogram::HistogramEven(tmp, bytes, in, hist, 257, 0.0f, 1.0f, n);
}
// One block per segment.
void segmented_sum(const int *in, int *out, int segments, const int *offsets, void *tmp, size_t &bytes) {
  cub::DeviceSegmentedReduce::Sum(tmp, bytes, in, out, segments, offsets, offsets + 1);
}
// Two passes, no ticket.
void reduce(const int *in, int *out, int n, void *tmp, size_t &bytes) {
  cub::DeviceReduce::Sum(tmp, bytes, in, out, n);
}
void reduce_f(const float *in, float *out, int n, void *tmp, size_t &bytes) {
  cub::DeviceReduce::Sum(tmp, bytes, in, out, n);
}
