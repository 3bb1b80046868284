// CUB's and thrust's algorithms not in cub_algos.cu, for the lint's corpus
// (capture.sh, corpus-expect.tsv): merge sort (a partition pass, then merges
// that read other blocks' output of the previous pass), segmented sort,
// adjacent difference, unique-by-key and partition (decoupled look-back on
// counts), scan-by-key (look-back on key-value pairs), DeviceFor and
// DeviceTransform, and thrust's sort, reduce_by_key and copy_if. Calling each
// host entry point is enough for its kernels to land in the cubin. Every
// kernel is correct: the lint must find nothing.
#include <cub/device/device_adjacent_difference.cuh>
#include <cub/device/device_for.cuh>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/device_transform.cuh>
#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

struct less_int {
  __host__ __device__ bool operator()(int a, int b) const { return a < b; }
};
struct is_neg {
  __host__ __device__ bool operator()(int v) const { return v < 0; }
};
struct twice {
  __host__ __device__ int operator()(int v) const { return 2 * v; }
};
struct add_one {
  __device__ void operator()(int &v) const { v += 1; }
};

void merge_sort(int *keys, int *vals, int n, void *tmp, size_t &bytes) {
  cub::DeviceMergeSort::SortPairs(tmp, bytes, keys, vals, n, less_int{});
}
void merge_sort_keys(float *keys, int n, void *tmp, size_t &bytes) {
  cub::DeviceMergeSort::StableSortKeys(tmp, bytes, keys, n, cuda::std::less<float>{});
}
void segmented_sort(const int *in, int *out, int n, int segs, const int *off, void *tmp, size_t &bytes) {
  cub::DeviceSegmentedSort::SortKeys(tmp, bytes, in, out, n, segs, off, off + 1);
}
void adjacent_difference(const int *in, int *out, int n, void *tmp, size_t &bytes) {
  cub::DeviceAdjacentDifference::SubtractLeftCopy(tmp, bytes, in, out, n);
}
void unique_by_key(const int *keys, const float *vals, int *ko, float *vo, int *count, int n, void *tmp,
                   size_t &bytes) {
  cub::DeviceSelect::UniqueByKey(tmp, bytes, keys, vals, ko, vo, count, n);
}
void partition(const int *in, int *out, int *count, int n, void *tmp, size_t &bytes) {
  cub::DevicePartition::If(tmp, bytes, in, out, count, n, is_neg{});
}
void scan_by_key(const int *keys, const int *vals, int *out, int n, void *tmp, size_t &bytes) {
  cub::DeviceScan::InclusiveSumByKey(tmp, bytes, keys, vals, out, n);
}
void exclusive_scan_by_key(const int *keys, const double *vals, double *out, int n, void *tmp, size_t &bytes) {
  cub::DeviceScan::ExclusiveSumByKey(tmp, bytes, keys, vals, out, n);
}
void for_each(int *v, int n) { cub::DeviceFor::ForEachN(v, n, add_one{}); }
void transform(const int *in, int *out, int n) {
  cub::DeviceTransform::Transform(in, out, n, twice{});
}
void thrust_algos(int *k, int *v, int *ko, int *vo, int n) {
  thrust::device_ptr<int> K(k), V(v), KO(ko), VO(vo);
  thrust::sort_by_key(thrust::device, K, K + n, V);
  thrust::reduce_by_key(thrust::device, K, K + n, V, KO, VO);
  thrust::copy_if(thrust::device, V, V + n, VO, is_neg{});
}
