// A team's module for the unchanged proof on a GPU (tests/unchanged_gpu.sh),
// built twice: with UNCH_HEAD (the head) and without (the base). Every
// variant runs the same kernel code in both builds, so only what the host
// does at the call tells them apart, which the proof must see or refuse:
// unch_plain      the same launch: UNCHANGED
// unch_carveout   a shared-memory carve-out passed with the launch (25% in the
//                 head, 75% in the base): the launches differ
// unch_query      asks whether its stream is capturing: not proven
// unch_stateful   a host counter in the launch's arguments (another value each
//                 call): the two captures differ, not proven
// unch_knob       a __device__ variable the host sets to another value
//                 (gpu_unchanged_knob.cu): the variables read differ
// unch_cachecfg   its kernel's cache configuration (cudaFuncSetCacheConfig:
//                 prefer shared in the head, L1 in the base): the launches differ
// unch_csp        its kernel's cluster scheduling policy preference
//                 (cudaFuncSetAttribute: spread in the head): the launches differ
// i32 sums of one block of 256 threads: slow, simple, obviously right.
#include <cuda_runtime.h>

#include "gpu_unchanged_fold.cuh"
#include "kgate/module.h"

size_t unch_knob_scratch(int, size_t);
int unch_knob(int dt, void *in, size_t n, void *out, void *scratch, void *stream);

namespace {

using unch::kThreads;

__global__ void fold(const int *in, size_t n, int *out, int tag) {
  int v = 0;
  for (size_t i = threadIdx.x; i < n; i += kThreads) v += in[i];
  v = unch::block_sum(v);
  if (threadIdx.x == 0) *out = v + tag * 0;
}

int plain(int dt, void *in, size_t n, void *out, void *, void *stream) {
  if (dt != KG_I32) return KG_ERR_UNSUPPORTED;
  fold<<<1, kThreads, 0, (cudaStream_t)stream>>>((const int *)in, n, (int *)out, 0);
  return (int)cudaGetLastError();
}

int carveout(int dt, void *in, size_t n, void *out, void *, void *stream) {
  if (dt != KG_I32) return KG_ERR_UNSUPPORTED;
  cudaLaunchAttribute a[1];
  a[0].id = cudaLaunchAttributePreferredSharedMemoryCarveout;
#ifdef UNCH_HEAD
  a[0].val.sharedMemCarveout = 25;
#else
  a[0].val.sharedMemCarveout = 75;
#endif
  cudaLaunchConfig_t c = {};
  c.gridDim = dim3(1), c.blockDim = dim3(kThreads), c.stream = (cudaStream_t)stream, c.attrs = a, c.numAttrs = 1;
  return (int)cudaLaunchKernelEx(&c, fold, (const int *)in, n, (int *)out, 0);
}

int query(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing((cudaStream_t)stream, &st);
  return e != cudaSuccess ? (int)e : plain(dt, in, n, out, scratch, stream);
}

int stateful(int dt, void *in, size_t n, void *out, void *, void *stream) {
  static int calls;
  if (dt != KG_I32) return KG_ERR_UNSUPPORTED;
  fold<<<1, kThreads, 0, (cudaStream_t)stream>>>((const int *)in, n, (int *)out, calls++);
  return (int)cudaGetLastError();
}

// A kernel of its own for each setting below, so that it never reaches another variant's.
template <int K>
__global__ void fold_own(const int *in, size_t n, int *out) {
  int v = 0;
  for (size_t i = threadIdx.x; i < n; i += kThreads) v += in[i];
  v = unch::block_sum(v);
  if (threadIdx.x == 0) *out = v;
}

int cachecfg(int dt, void *in, size_t n, void *out, void *, void *stream) {
  if (dt != KG_I32) return KG_ERR_UNSUPPORTED;
#ifdef UNCH_HEAD
  cudaError_t e = cudaFuncSetCacheConfig(fold_own<1>, cudaFuncCachePreferShared);
#else
  cudaError_t e = cudaFuncSetCacheConfig(fold_own<1>, cudaFuncCachePreferL1);
#endif
  if (e != cudaSuccess) return (int)e;
  fold_own<1><<<1, kThreads, 0, (cudaStream_t)stream>>>((const int *)in, n, (int *)out);
  return (int)cudaGetLastError();
}

int csp(int dt, void *in, size_t n, void *out, void *, void *stream) {
  if (dt != KG_I32) return KG_ERR_UNSUPPORTED;
#ifdef UNCH_HEAD
  cudaError_t e = cudaFuncSetAttribute(fold_own<2>, cudaFuncAttributeClusterSchedulingPolicyPreference,
                                       cudaClusterSchedulingPolicySpread);
#else
  cudaError_t e = cudaFuncSetAttribute(fold_own<2>, cudaFuncAttributeClusterSchedulingPolicyPreference,
                                       cudaClusterSchedulingPolicyDefault);
#endif
  if (e != cudaSuccess) return (int)e;
  fold_own<2><<<1, kThreads, 0, (cudaStream_t)stream>>>((const int *)in, n, (int *)out);
  return (int)cudaGetLastError();
}

size_t no_scratch(int, size_t) { return 0; }
double depth(size_t n) { return (double)n; }

const kg_module_variant k_variants[] = {
    {"unch_plain", "team", "one block, the same launch in both builds", 0, KG_DT_BIT(KG_I32), plain, no_scratch, depth,
     KG_OP_SUM, 0},
    {"unch_carveout", "team", "one block, a carve-out passed with the launch", 0, KG_DT_BIT(KG_I32), carveout,
     no_scratch, depth, KG_OP_SUM, 0},
    {"unch_query", "team", "one block, asks whether its stream is capturing", 0, KG_DT_BIT(KG_I32), query, no_scratch,
     depth, KG_OP_SUM, 0},
    {"unch_stateful", "team", "one block, a host counter in its arguments", 0, KG_DT_BIT(KG_I32), stateful, no_scratch,
     depth, KG_OP_SUM, 0},
    {"unch_knob", "team", "one block, passes set by the host in a __device__ variable", 0, KG_DT_BIT(KG_I32), unch_knob,
     unch_knob_scratch, depth, KG_OP_SUM, 0},
    {"unch_cachecfg", "team", "one block, its kernel's cache configuration set by the host", 0, KG_DT_BIT(KG_I32),
     cachecfg, no_scratch, depth, KG_OP_SUM, 0},
    {"unch_csp", "team", "one block, its kernel's cluster scheduling policy set by the host", 0, KG_DT_BIT(KG_I32), csp,
     no_scratch, depth, KG_OP_SUM, 0},
};

const kg_module k_module = {KG_MODULE_ABI, sizeof(kg_module_variant), "unchmod", "test",
                            sizeof k_variants / sizeof k_variants[0], k_variants};

}  // namespace

extern "C" __attribute__((visibility("default"))) unsigned kgate_module_abi(void) { return KG_MODULE_ABI; }
extern "C" __attribute__((visibility("default"))) const kg_module *kgate_module(void) { return &k_module; }
