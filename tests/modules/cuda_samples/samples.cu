// cuda-samples' reduction kernels run as a kgate variant each: the sample's
// own kernels (its file is compiled in whole, as the sample builds it), each
// pass launched on kgate's stream with 256 threads and at most 64 blocks, as
// the sample's getNumBlocksAndThreads picks them, then again over the
// partials until one block gives the result.
#include SAMPLES_REDUCTION_CU

#include <kgate/dispatch.cuh>

extern "C" bool isPow2(unsigned int x) { return (x & (x - 1)) == 0; }

namespace {

constexpr unsigned kThreads = 256, kMaxBlocks = 64;

unsigned blocks_for(size_t n) {
  size_t b = (n + 2 * kThreads - 1) / (2 * kThreads);
  return b < 1 ? 1 : b > kMaxBlocks ? kMaxBlocks : (unsigned)b;
}

template <int K, typename T> int pass(const T *in, T *out, unsigned n, unsigned blocks, cudaStream_t st) {
  size_t smem = kThreads * sizeof(T);
  T *i = const_cast<T *>(in);
  if (K == 6 && isPow2(n)) reduce6<T, kThreads, true><<<blocks, kThreads, smem, st>>>(i, out, n);
  if (K == 6 && !isPow2(n)) reduce6<T, kThreads, false><<<blocks, kThreads, smem, st>>>(i, out, n);
  if (K == 7 && isPow2(n)) reduce7<T, kThreads, true><<<blocks, kThreads, smem, st>>>(in, out, n);
  if (K == 7 && !isPow2(n)) reduce7<T, kThreads, false><<<blocks, kThreads, smem, st>>>(in, out, n);
  if (K == 8) cg_reduce<T><<<blocks, kThreads, smem, st>>>(i, out, n);
  if (K == 9) multi_warp_cg_reduce<T, kThreads, kThreads / 2><<<blocks, kThreads, 2 * sizeof(T), st>>>(i, out, n);
  return (int)cudaGetLastError();
}

template <int K, typename T> int launch(const T *in, size_t n, void *out, void *scratch, cudaStream_t st) {
  if (n > 0xffffffffu) return KG_ERR_UNSUPPORTED; /* the sample's kernels count in unsigned int */
  T *part[2] = {static_cast<T *>(scratch), static_cast<T *>(scratch) + kMaxBlocks};
  unsigned b = blocks_for(n);
  int rc = pass<K>(in, b == 1 ? static_cast<T *>(out) : part[0], (unsigned)n, b, st);
  for (int k = 0; !rc && b > 1; k ^= 1) {
    unsigned m = b;
    b = blocks_for(m);
    rc = pass<K>(part[k], b == 1 ? static_cast<T *>(out) : part[k ^ 1], m, b, st);
  }
  return rc;
}

template <typename T> int launch6(const T *in, size_t n, void *out, void *s, cudaStream_t st) { return launch<6>(in, n, out, s, st); }
template <typename T> int launch7(const T *in, size_t n, void *out, void *s, cudaStream_t st) { return launch<7>(in, n, out, s, st); }
template <typename T> int launch8(const T *in, size_t n, void *out, void *s, cudaStream_t st) { return launch<8>(in, n, out, s, st); }
template <typename T> int launch9(const T *in, size_t n, void *out, void *s, cudaStream_t st) { return launch<9>(in, n, out, s, st); }

size_t scratch(int dtype, size_t) { return 2 * kMaxBlocks * kgate::acc_size(dtype); }
double depth(size_t n) { return kgate::depth_any_order(n); }

}  // namespace

KGATE_DEFINE_VARIANT(sample_reduce6, launch6, scratch, depth)
KGATE_DEFINE_VARIANT(sample_reduce7, launch7, scratch, depth)
KGATE_DEFINE_VARIANT(sample_cg_reduce, launch8, scratch, depth)
KGATE_DEFINE_VARIANT(sample_multi_warp_cg, launch9, scratch, depth)
