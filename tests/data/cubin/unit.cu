__constant__ int table[4] = {1, 2, 3, 4};
__device__ __noinline__ int twice(int x) { return 2 * x + VALUE_DEV; }
__global__ void k_sum(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, twice(in[i]));
}
__global__ void k_scale(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * SCALE;
}
__global__ void k_table(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + table[i & 3];
}
