// kgate_single_pass: kgate's own rung above CUB. One launch does everything:
// a persistent grid (a few blocks per SM, from the device's SM count) streams
// the input with 16-byte loads, four in flight per thread into four
// independent accumulators; each block folds its threads with warp shuffles
// and stores one partial; the last block to finish (an integer ticket, not a
// float atomic) adds the partials in index order and writes the result.
//
// Why each choice, and what it bought (H200, cold L2, medians from
// `kgate run`, ratio = CUB time / this time; predictions first):
// - One kernel instead of CUB's two (partials, then one block): predicted to
//   save one launch-and-dependency gap, about 1.5 us. Measured at 2^16, where
//   nothing else matters: 5.6 us against CUB's 7.2 us (1.29x for i32).
// - 16-byte `__ldcs` loads (evict-first: read once), four per thread before
//   the first add: enough bytes in flight to cover HBM latency. First cut, 4
//   blocks of 256 per SM: i32 1.08x at 2^22, 1.08x at 2^25, 1.01x at 2^28
//   (94.0 % of peak). `__ldg` instead of `__ldcs` changed nothing (1.09x,
//   1.08x, 1.01x), so the hint stays for politeness to other L2 users.
// - Eight blocks per SM (2048 threads, the most an SM holds), with
//   __launch_bounds__ capping registers at 32 so all eight fit: i32 2^22 went
//   to 1.17x. At 34 registers only seven fit and a tail wave cost i64 up to 5 %.
// - Two accumulators, not four, for 8-byte types: four spilled 8 bytes under
//   the 32-register cap. 1024x2 and 512x4 block shapes measured the same
//   within 2 % (1.16-1.19x at 2^22 for i32), so the smaller blocks stay.
// Where it stands (i32 / f32 / f64 / f16 / bf16): 2^22 1.17 / 1.18 / 1.08 /
// 1.24 / 1.25x; 2^25 1.08 / 1.07 / 1.03 / 1.17 / 1.17x; 2^28 1.01 / 1.00 /
// 1.00 / 1.27 / 1.28x at 92.6 / 92.6 / 93.4 / 90.4 / 90.5 % of peak. A
// measured read roofline is 94 % of peak on this GPU. At 2^22 about 5.5 us of
// the 9.6 us is fixed cost (cold-L2 latency, launch, the last-block combine:
// a graph of back-to-back launches at 2^16 runs 2.6 us per call).
//
// Determinism: the element-to-thread map depends only on n and the SM count,
// and the partials are combined in a fixed order, so floats come out
// bit-identical run to run on one GPU. The ticket counter lives in device
// memory and resets itself (atomicInc wraps), so runs need no memset; two
// launches of this variant must not overlap on different streams.
// Unaligned inputs: a scalar head up to the first 16-byte boundary and a
// scalar tail after the last full vector, so any pointer and any n work.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kLoads = 4;       // 16-byte loads in flight per thread
constexpr unsigned kBlocksPerSM = 8; // 2048 resident threads per SM: the most an SM holds

__device__ unsigned int g_ticket = 0;  // blocks finished in the current launch

template <typename T, typename A> __device__ __forceinline__ A sum16(uint4 v) {
  constexpr int kV = 16 / sizeof(T);
  T e[kV];
  memcpy(e, &v, 16);
  A s = kg::to_acc<A>(e[0]);
#pragma unroll
  for (int i = 1; i < kV; i++) s += kg::to_acc<A>(e[i]);
  return s;
}

template <typename A> __device__ __forceinline__ A warp_sum(A v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// Sum over the block, valid in thread 0. Safe to call more than once.
template <typename A> __device__ A block_sum(A v) {
  __shared__ A warps[kBlock / 32];
  unsigned lane = threadIdx.x % 32, wid = threadIdx.x / 32;
  v = warp_sum(v);
  __syncthreads();  // a previous call may still be reading warps[]
  if (lane == 0) warps[wid] = v;
  __syncthreads();
  v = threadIdx.x < kBlock / 32 ? warps[threadIdx.x] : A(0);
  return wid == 0 ? warp_sum(v) : v;
}

template <typename T, typename A>
__global__ void __launch_bounds__(kBlock, kBlocksPerSM) single_pass(const T *in, size_t n, A *partials, A *out) {
  constexpr size_t kV = 16 / sizeof(T);
  size_t head = ((16 - ((uintptr_t)in & 15)) & 15) / sizeof(T);
  if (head > n) head = n;
  const uint4 *body = reinterpret_cast<const uint4 *>(in + head);
  size_t nvec = (n - head) / kV;
  size_t tail = head + nvec * kV;  // first element after the last full vector
  size_t tid = (size_t)blockIdx.x * kBlock + threadIdx.x, nthreads = (size_t)gridDim.x * kBlock;

  // Independent accumulators shorten the dependency chains; 8-byte ones get
  // two, not four, so the kernel stays within 32 registers without spilling.
  constexpr unsigned kAcc = sizeof(A) == 8 ? 2 : kLoads;
  A acc[kAcc];
#pragma unroll
  for (unsigned u = 0; u < kAcc; u++) acc[u] = A(0);
  size_t i = tid;
  for (; i + (kLoads - 1) * nthreads < nvec; i += kLoads * nthreads) {
    uint4 v[kLoads];
#pragma unroll
    for (unsigned u = 0; u < kLoads; u++) v[u] = __ldcs(body + i + u * nthreads);
#pragma unroll
    for (unsigned u = 0; u < kLoads; u++) acc[u % kAcc] += sum16<T, A>(v[u]);
  }
  for (; i < nvec; i += nthreads) acc[0] += sum16<T, A>(__ldcs(body + i));
  // Fewer than kV scalars before and after the vectors: one each for the first threads.
  if (tid < head) acc[1] += kg::to_acc<A>(in[tid]);
  if (tid < n - tail) acc[kAcc - 1] += kg::to_acc<A>(in[tail + tid]);
#pragma unroll
  for (unsigned w = kAcc / 2; w > 0; w /= 2)  // pairwise: at most log2(kLoads) links
#pragma unroll
    for (unsigned u = 0; u < w; u++) acc[u] += acc[u + w];
  A s = block_sum(acc[0]);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *out = s;
    return;
  }
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s;
    __threadfence();  // the partial is visible before the ticket says so
    last = atomicInc(&g_ticket, gridDim.x - 1) == gridDim.x - 1;  // wraps to 0 for the next launch
  }
  __syncthreads();
  if (!last) return;
  A p = A(0);
  for (unsigned k = threadIdx.x; k < gridDim.x; k += kBlock) p += __ldcg(partials + k);  // L2, not a stale L1
  p = block_sum(p);
  if (threadIdx.x == 0) *out = p;
}

size_t grid_for(kg_dtype dt, size_t n) {
  size_t per_block = (size_t)kBlock * kLoads * (16 / (dt == KG_F16 || dt == KG_BF16 ? 2 : kg::acc_size(dt)));
  size_t want = kg::ceil_div(n, per_block);
  size_t cap = (size_t)kg::sm_count() * kBlocksPerSM;
  return want < 1 ? 1 : want < cap ? want : cap;
}

}  // namespace

extern "C" int kg_run_kgate_single_pass(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  size_t grid = grid_for(dt, n);
  return kg::dispatch(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kg::acc_t<T>;
    single_pass<T, A><<<(unsigned)grid, kBlock, 0, (cudaStream_t)stream>>>((const T *)in, n, (A *)scratch, (A *)out);
    KG_TRY(cudaGetLastError());
    return 0;
  });
}

extern "C" size_t kg_scratch_kgate_single_pass(kg_dtype dt, size_t n) {
  size_t grid = grid_for(dt, n);
  return grid > 1 ? grid * kg::acc_size(dt) : 0;
}

// Worst thread: every vector it loads lands in one accumulator (at most
// ceil(n / (kV * threads)) + 1 of them, kV adds each), a head and a tail
// scalar, the pairwise fold of the accumulators, the block tree, then the
// last block's sequential pass over the partials and its tree. kV <= 8 for
// every dtype, so 8 bounds it.
extern "C" double kg_depth_kgate_single_pass(size_t n) {
  size_t grid = (size_t)kg::sm_count() * kBlocksPerSM, threads = grid * kBlock;
  return (double)(kg::ceil_div(n, threads) + 8) + 2 + kg::log2_floor(kLoads) + 2 * kg::log2_floor(kBlock) +
         (double)kg::ceil_div(grid, kBlock);
}
