// unch_knob of the unchanged proof's team module (gpu_unchanged.cu): a
// __device__ tuning knob in a compilation unit of its own, which the host
// sets with cudaMemcpyToSymbol before the first call, outside it: 2 passes
// over the input in the head, 1 in the base, so the head is twice as slow.
// The kernel's machine code and the launch are the same in both builds;
// only the variable's bytes tell them apart, so the proof must read it or
// miss the regression. Its own unit, so the other
// variants' kernels have no variable to read.
#include <cuda_runtime.h>

#include "gpu_unchanged_fold.cuh"
#include "kgate/module.h"

namespace {

using unch::kThreads;
#ifdef UNCH_HEAD
constexpr int kPasses = 2;
#else
constexpr int kPasses = 1;
#endif

__device__ int g_passes = 1;

// Each pass sums the whole input again (volatile loads: no pass is left
// out): the result is the same, the time is not.
__global__ void fold_passes(const int *in, size_t n, int *out) {
  const volatile int *vin = in;
  int v = 0;
  for (int p = 0; p < g_passes; p++) {
    v = 0;
    for (size_t i = threadIdx.x; i < n; i += kThreads) v += vin[i];
  }
  v = unch::block_sum(v);
  if (threadIdx.x == 0) *out = v;
}

}  // namespace

// The scratch size is asked before every call, outside it: the first time,
// the knob is set (a team's one-time set-up).
size_t unch_knob_scratch(int, size_t) {
  static bool set;
  if (!set) set = cudaMemcpyToSymbol(g_passes, &kPasses, sizeof kPasses) == cudaSuccess;
  return 0;
}

int unch_knob(int dt, void *in, size_t n, void *out, void *, void *stream) {
  if (dt != KG_I32) return KG_ERR_UNSUPPORTED;
  fold_passes<<<1, kThreads, 0, (cudaStream_t)stream>>>((const int *)in, n, (int *)out);
  return (int)cudaGetLastError();
}
