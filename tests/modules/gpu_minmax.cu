// A team's kernel module for the device tests (tests/gpu_minmax.sh): a min
// that propagates NaNs and a max that ignores them, for all six dtypes, built
// out of kgate's kernel tree as a team would build theirs. One block of 512
// threads strides over the input and folds in shared memory: slow at 2^25
// (one SM reads everything), but simple enough to be obviously right.
// With PLANT_NAN_BUG the max still declares NaN ignore but propagates them:
// the bug the NaN-policy check must catch.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cmath>

#include "kgate/module.h"

namespace {

constexpr int kThreads = 512;

template <class T> struct acc_of { typedef T type; };
template <> struct acc_of<__half> { typedef float type; };
template <> struct acc_of<__nv_bfloat16> { typedef float type; };

__device__ float widen(__half x) { return __half2float(x); }
__device__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T> __device__ T widen(T x) { return x; }

template <class A> __device__ bool is_nan(A x) { return x != x; }

// min, NaN propagate: a NaN anywhere wins. The identity is the largest value.
template <class A> __device__ A min_prop(A a, A b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return b < a ? b : a;
}

// max, NaN ignore: NaN is the identity of the combine, so the result is NaN
// only when every input is; n = 0 is handled by the caller.
template <class A> __device__ A max_ign(A a, A b) {
#ifdef PLANT_NAN_BUG
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
#else
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
#endif
  return b > a ? b : a;
}

template <class A> __device__ A lowest();
template <> __device__ int lowest<int>() { return INT_MIN; }
template <> __device__ long long lowest<long long>() { return LLONG_MIN; }
template <> __device__ float lowest<float>() { return -INFINITY; }
template <> __device__ double lowest<double>() { return -INFINITY; }
template <class A> __device__ A highest();
template <> __device__ int highest<int>() { return INT_MAX; }
template <> __device__ long long highest<long long>() { return LLONG_MAX; }
template <> __device__ float highest<float>() { return INFINITY; }
template <> __device__ double highest<double>() { return INFINITY; }

// The max's starting value: NaN for floats (the ignore-combine's identity),
// the smallest value for integers.
template <class A> __device__ A max_start();
template <> __device__ int max_start<int>() { return INT_MIN; }
template <> __device__ long long max_start<long long>() { return LLONG_MIN; }
template <> __device__ float max_start<float>() { return nanf(""); }
template <> __device__ double max_start<double>() { return nan(""); }

template <class T, bool IsMax> __global__ void fold(const T *in, size_t n, typename acc_of<T>::type *out) {
  typedef typename acc_of<T>::type A;
  __shared__ A s[kThreads];
  A v = IsMax ? max_start<A>() : highest<A>();
  for (size_t i = threadIdx.x; i < n; i += kThreads) {
    A x = widen(in[i]);
    v = IsMax ? max_ign(v, x) : min_prop(v, x);
  }
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] = IsMax ? max_ign(s[threadIdx.x], s[threadIdx.x + w]) : min_prop(s[threadIdx.x], s[threadIdx.x + w]);
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = IsMax && n == 0 ? lowest<A>() : s[0];
}

template <class T, bool IsMax> int launch(void *in, size_t n, void *out, void *stream) {
  fold<T, IsMax><<<1, kThreads, 0, (cudaStream_t)stream>>>((const T *)in, n, (typename acc_of<T>::type *)out);
  return (int)cudaGetLastError();
}

template <bool IsMax> int run(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  (void)scratch;
  switch (dt) {
  case KG_I32: return launch<int, IsMax>(in, n, out, stream);
  case KG_I64: return launch<long long, IsMax>(in, n, out, stream);
  case KG_F32: return launch<float, IsMax>(in, n, out, stream);
  case KG_F64: return launch<double, IsMax>(in, n, out, stream);
  case KG_F16: return launch<__half, IsMax>(in, n, out, stream);
  case KG_BF16: return launch<__nv_bfloat16, IsMax>(in, n, out, stream);
  default: return KG_ERR_UNSUPPORTED;
  }
}

size_t no_scratch(int, size_t) { return 0; }
double depth(size_t) { return 1; }

const kg_module_variant k_variants[] = {
    {"team_min", "team", "one block, shared-memory fold, NaN propagates", 0, KG_DT_ALL, run<false>, no_scratch, depth,
     KG_OP_MIN, KG_NAN_PROPAGATE},
    {"team_max", "team", "one block, shared-memory fold, NaNs ignored", 0, KG_DT_ALL, run<true>, no_scratch, depth,
     KG_OP_MAX, KG_NAN_IGNORE},
};

const kg_module k_module = {KG_MODULE_ABI, sizeof(kg_module_variant), "teammod", "test",
                            sizeof k_variants / sizeof k_variants[0], k_variants};

}  // namespace

extern "C" __attribute__((visibility("default"))) unsigned kgate_module_abi(void) { return KG_MODULE_ABI; }
extern "C" __attribute__((visibility("default"))) const kg_module *kgate_module(void) { return &k_module; }
