// What the unchanged proof refuses (tests/check_unchanged.c, README.md):
// __device__ data the host may set, and a launch from the device.
#ifdef DEVICE_DATA
__device__ int g_bias;
#define BIAS g_bias
#elif defined(DEVICE_INIT)
__device__ int g_bias = 3;
#define BIAS g_bias
#elif defined(DEVICE_PADDED)
// two variables with padding between them, one of internal linkage
__device__ char g_flag;
static __device__ double g_scale;
#define BIAS (g_flag + (int)g_scale)
#else
#define BIAS BIAS_VALUE
#endif
#ifndef BIAS_VALUE
#define BIAS_VALUE 3
#endif
__global__ void k_child(int *out) { *out += BIAS; }
__global__ void k_parent(int *out) {
#ifdef DYNPAR
  k_child<<<1, 1>>>(out);
#else
  *out = 1;
#endif
}
