// Planted bug: reduce3 with its grid rounded down. n / (2*block) blocks cover
// only the full chunks, so for n not a multiple of 2*block the tail is never
// read (inputs below one chunk still get one block). Every access stays in
// bounds, so only the result shows it: the exact tier must come out wrong.
#include "mut_common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr size_t kPerBlock = 2 * kBlock;

template <typename In, typename A>
__global__ void __launch_bounds__(kBlock) dropped(const In *in, A *out, size_t n) {
  __shared__ A s[kBlock];
  unsigned t = threadIdx.x;
  size_t i = (size_t)blockIdx.x * kPerBlock + t;
  A v = i < n ? kg::to_acc<A>(in[i]) : A(0);
  if (i + kBlock < n) v += kg::to_acc<A>(in[i + kBlock]);
  s[t] = v;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

extern "C" int kg_run_mut_dropped_tail(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  // The bug: the grid is n / kPerBlock, rounded down. tree() sizes the grid from
  // the count it is given, so handing it the rounded-down count is the same thing.
  size_t covered = n >= kPerBlock ? n / kPerBlock * kPerBlock : n;
  return kg::dispatch(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kg::acc_t<T>;
    return kg::tree<A>((const T *)in, covered, (A *)out, (A *)scratch, kPerBlock,
                       [st](auto *src, A *dst, size_t count, size_t blocks) {
                         using In = std::remove_const_t<std::remove_pointer_t<decltype(src)>>;
                         dropped<In, A><<<(unsigned)blocks, kBlock, 0, st>>>(src, dst, count);
                       });
  });
}

KG_MUTANT_SAME_SHAPE(mut_dropped_tail, reduce3_first_add)
