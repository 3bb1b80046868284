// kgate_single_pass: kgate's own rung above CUB. One launch does everything:
// a persistent grid (blocks per SM from the occupancy API, times the SM
// count) streams the input with 16-byte loads, eight in flight per thread;
// each block folds its threads with warp shuffles; the last block to finish
// (told by an integer ticket, never a float atomic) produces the result.
//
// Why each choice, and what it bought (H200, cold L2, medians; ratio = CUB
// time / this time in the same process; predictions first):
// - One kernel instead of CUB's two (partials, then one block): predicted to
//   save one launch-and-dependency gap, ~1.5 us. Measured at 2^16, where
//   nothing else matters: 5.4 us against CUB's 6.8 us.
// - 16-byte `__ldcs` loads, all of a round issued before the first add:
//   enough bytes in flight to cover HBM latency. `__ldg` measured the same;
//   the L2::256B prefetch hint cost 5 % at 2^28 (it fetches lines twice over
//   with a grid-stride pattern), the L2::128B hint changed nothing.
// - Eight loads per thread with 4 blocks of 256 per SM, instead of four loads
//   with 8 blocks: the same bytes in flight from half the blocks, so half the
//   block launches and tickets. i32 2^22: 9.28 -> 9.06 us. Shapes 512x2 and
//   1024x1 measured within 1 %; 256x2 with 16 loads lost 25 % at 2^22.
// - The last round of the grid-stride loop is predicated, not a scalar
//   remainder loop: the remainder used to run up to three dependent HBM
//   round trips. f64 2^22 (1.94 rounds per thread): 13.82 -> 13.44 us.
// - The combine is the fixed cost that matters: leaving it out entirely
//   (partials written, no result) is 1.2 us faster at every size. Two forms:
//   * 32-bit integers: one 64-bit atomicAdd per block carries the block sum
//     in the high half and a count in the low half; the block that sees the
//     count reach gridDim-1 holds the whole sum. One round trip, exact
//     (wrapping) and order-free, so deterministic. i32 2^22: 9.06 -> 8.10 us
//     (1.23x -> 1.35x CUB), 2^25: 33.9 -> 33.0 us (1.10x -> 1.13x).
//   * other types (floats need a fixed order): partials published as tagged
//     64-bit words, a ticket with no fence, the last block loads every slot
//     at once and reloads any not yet visible. Measured parts of the older
//     fenced form at f32 2^22: the fence 0.42 us, the load round trip 0.5 us.
//     Dropping the fence: f32 2^22 9.22 -> 8.85 us (1.25x -> 1.28x), f64
//     13.0 -> 12.7 us. Having every block load the slots while its ticket
//     was in flight (so the last one would not wait a round trip) cost
//     1-4 us instead: 528 blocks reading lines others are still writing.
//   Tried and dropped (each no better, often worse): an epoch-tagged form
//   with a spinning combiner block, padding partials to whole 32-byte
//   sectors, prefetching them into L2, a one-warp combine, dynamic (atomic
//   counter) work distribution, and 1D bulk copies (TMA) into shared memory,
//   2-4 stages of 8-16 KiB: all within +-1 % of plain loads at 2^25 and 2^28.
// Floor: the marginal rate between 2^25 and 2^28 is about 94-95 % of the
// theoretical peak on this GPU; what is left above that is ~4 us of launch,
// first-byte latency and drain, which no kernel-side change above moved.
// That is what keeps f32 at 2^25 near 1.08x and f64 near 1.05x of CUB.
//
// Determinism: the element-to-thread map depends only on n and the grid, and
// the partials are combined in a fixed order (integers need no order), so
// floats come out bit-identical run to run on one GPU. The ticket words and
// slots live in device memory and reset themselves (the last block clears
// them), so runs need no scratch and no memset; two launches of this variant
// must not overlap on different streams. Unaligned inputs: a scalar head up
// to the first 16-byte boundary and a scalar tail after the last full vector,
// so any pointer and any n work.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kLoads = 8;       // 16-byte loads in flight per thread
constexpr unsigned kBlocksPerSM = 4; // 1024 threads x 128 bytes in flight per SM
constexpr unsigned kSlotsPerThread = 4;
constexpr unsigned kMaxGrid = kSlotsPerThread * kBlock;  // 1024 blocks: 256 SMs at 4 per SM

__device__ unsigned int g_ticket = 0;        // blocks finished in the current launch
__device__ unsigned long long g_packed = 0;  // 32-bit integers: sum << 32 | blocks finished
__device__ unsigned long long g_slots[kMaxGrid * 2];  // published partials; 0 = empty

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

// 32-bit integers: the block sum rides in the high half of one 64-bit
// atomicAdd and the count in the low half (a carry out of the count cannot
// happen, a carry out of the sum falls off the top: the wrap we want).
__device__ void combine_packed(uint32_t s, uint32_t *out) {
  if (threadIdx.x != 0) return;
  unsigned long long old = atomicAdd(&g_packed, (unsigned long long)s << 32 | 1u);
  if ((unsigned)old == gridDim.x - 1) {
    *out = (uint32_t)(old >> 32) + s;
    g_packed = 0;  // every block has added: the next launch starts from zero
  }
}

// Everything else (floats need a fixed order): each block publishes its
// partial as 64-bit words {1 : 32 bits of the value} in g_slots and takes a
// ticket with no fence; every block loads all slots while its ticket is in
// flight, so the last one already holds them when it learns it is last. A
// slot still 0 was published but is not visible yet (no fence orders it):
// the last block reloads it until it is. It then clears the slots for the
// next launch and adds the partials in index order.
__device__ __forceinline__ unsigned long long ld_slot(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_slot(unsigned long long *p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

template <typename A> __device__ void combine_ordered(A s, A *out) {
  constexpr unsigned kW = sizeof(A) / 4;  // slot words per partial
  __shared__ bool last;
  if (threadIdx.x == 0) {
    uint32_t bits[kW];
    memcpy(bits, &s, sizeof(A));
#pragma unroll
    for (unsigned w = 0; w < kW; w++) st_slot(&g_slots[blockIdx.x * kW + w], 1ull << 32 | bits[w]);
    last = atomicAdd(&g_ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  unsigned long long x[kSlotsPerThread][kW];
#pragma unroll
  for (unsigned u = 0; u < kSlotsPerThread; u++) {
    unsigned k = u * kBlock + threadIdx.x;
#pragma unroll
    for (unsigned w = 0; w < kW; w++) x[u][w] = k < gridDim.x ? ld_slot(&g_slots[k * kW + w]) : 1ull << 32;
  }
  A p = A(0);
#pragma unroll
  for (unsigned u = 0; u < kSlotsPerThread; u++) {
    unsigned k = u * kBlock + threadIdx.x;
    uint32_t bits[kW];
#pragma unroll
    for (unsigned w = 0; w < kW; w++) {
      while (!(x[u][w] >> 32)) x[u][w] = ld_slot(&g_slots[k * kW + w]);
      bits[w] = (uint32_t)x[u][w];
      if (k < gridDim.x) st_slot(&g_slots[k * kW + w], 0);
    }
    A v;
    memcpy(&v, bits, sizeof(A));
    p += k < gridDim.x ? v : A(0);
  }
  p = block_sum(p);
  if (threadIdx.x == 0) {
    *out = p;
    g_ticket = 0;  // every block has taken its ticket
  }
}

template <typename T, typename A>
__global__ void __launch_bounds__(kBlock, kBlocksPerSM) single_pass(const T *in, size_t n, A *out) {
  constexpr size_t kV = 16 / sizeof(T);
  size_t head = ((16 - ((uintptr_t)in & 15)) & 15) / sizeof(T);
  if (head > n) head = n;
  const uint4 *body = reinterpret_cast<const uint4 *>(in + head);
  size_t nvec = (n - head) / kV;
  size_t tail = head + nvec * kV;  // first element after the last full vector
  size_t tid = (size_t)blockIdx.x * kBlock + threadIdx.x, nthreads = (size_t)gridDim.x * kBlock;

  // Independent accumulators shorten the dependency chains; 8-byte ones get
  // two, so the registers stay under the 64 that four blocks per SM allow.
  constexpr unsigned kAcc = sizeof(A) == 8 ? 2 : 4;
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
  if (i < nvec) {  // the last, partial round: predicated, still all in flight at once
    uint4 v[kLoads];
#pragma unroll
    for (unsigned u = 0; u < kLoads; u++)
      v[u] = i + u * nthreads < nvec ? __ldcs(body + i + u * nthreads) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (unsigned u = 0; u < kLoads; u++) acc[u % kAcc] += sum16<T, A>(v[u]);
  }
  // Fewer than kV scalars before and after the vectors: one each for the first threads.
  if (tid < head) acc[1] += kg::to_acc<A>(in[tid]);
  if (tid < n - tail) acc[kAcc - 1] += kg::to_acc<A>(in[tail + tid]);
#pragma unroll
  for (unsigned w = kAcc / 2; w > 0; w /= 2)  // pairwise: at most log2(kAcc) links
#pragma unroll
    for (unsigned u = 0; u < w; u++) acc[u] += acc[u + w];
  A s = block_sum(acc[0]);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *out = s;
  } else if constexpr (std::is_same<A, uint32_t>::value) {
    combine_packed(s, out);
  } else {
    combine_ordered(s, out);
  }
}

// Resident blocks per SM for this instantiation (at most kBlocksPerSM), from
// the occupancy API once per dtype: the grid never outgrows one wave.
int blocks_per_sm(kg_dtype dt, int *bps) {
  static int cached[KG_NDTYPES];
  if (cached[dt] == 0) {
    int b = 0;
    int rc = kg::dispatch(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, single_pass<T, kg::acc_t<T>>, kBlock, 0);
    });
    if (rc) return rc;
    cached[dt] = b < 1 ? 1 : b < (int)kBlocksPerSM ? b : (int)kBlocksPerSM;
  }
  *bps = cached[dt];
  return 0;
}

size_t max_grid(int bps) {
  size_t cap = (size_t)kg::sm_count() * bps;
  return cap < kMaxGrid ? cap : kMaxGrid;
}

size_t grid_for(kg_dtype dt, size_t n, int bps) {
  size_t per_block = (size_t)kBlock * kLoads * (16 / kg::elem_size(dt));
  size_t want = kg::ceil_div(n, per_block), cap = max_grid(bps);
  return want < 1 ? 1 : want < cap ? want : cap;
}

}  // namespace

extern "C" int kg_run_kgate_single_pass(kg_dtype dt, void *in, size_t n, void *out, void *, void *stream) {
  int bps = 0;
  if (int rc = blocks_per_sm(dt, &bps)) return rc;
  size_t grid = grid_for(dt, n, bps);
  return kg::dispatch(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kg::acc_t<T>;
    single_pass<T, A><<<(unsigned)grid, kBlock, 0, (cudaStream_t)stream>>>((const T *)in, n, (A *)out);
    KG_TRY(cudaGetLastError());
    return 0;
  });
}

extern "C" size_t kg_scratch_kgate_single_pass(kg_dtype, size_t) { return 0; }

// Worst thread: it loads at most n / (kV * threads) + kLoads vectors, dealt
// evenly over kAcc accumulators (at most n / threads + 4 per accumulator),
// each vector a chain of kV - 1 <= 7 adds; then a head and a tail scalar, the
// pairwise fold, the block tree, the last block's pass over the partials and
// its tree. A grid below the cap only arises when every thread has at most
// one round, which the same + 12 covers.
extern "C" double kg_depth_kgate_single_pass(size_t n) {
  size_t grid = max_grid(kBlocksPerSM), threads = grid * kBlock;
  return (double)(kg::ceil_div(n, threads) + 12) + 2 + kg::log2_floor(kLoads) + 2 * kg::log2_floor(kBlock) +
         (double)kg::ceil_div(grid, kBlock);
}
