// kgate_single_pass: kgate's own rung above CUB. One launch does everything:
// a persistent grid (blocks per SM from the occupancy API, times the SM
// count) streams the input with 16-byte loads, eight in flight per thread;
// each block folds its threads with warp shuffles; the blocks then combine
// through integer atomics only (never a float atomic), and one block writes
// the result.
//
// Why each choice, and what each bought on an H200: docs/variants.md
// (kgate_single_pass, measured).
//
// Determinism: the element-to-thread map depends only on n and the grid;
// the exact combine is order-free and f64 partials are added in block order,
// so results are bit-identical run to run on one GPU. The combine words and
// slots live in device memory and reset themselves (the block that finishes
// clears them), so runs need no scratch and no memset; two launches of this
// variant must not overlap on different streams. Unaligned inputs: a scalar
// head up to the first 16-byte boundary and a scalar tail after the last
// full vector, so any pointer and any n work.
#include "common.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kLoads = 8;       // 16-byte loads in flight per thread
constexpr unsigned kBlocksPerSM = 4; // 1024 threads x 128 bytes in flight per SM
constexpr unsigned kSlotsPerThread = 4;
constexpr unsigned kMaxGrid = kSlotsPerThread * kBlock;  // 1024 blocks: 256 SMs at 4 per SM

// Exact combine words: a block count in the low kCountBits, a wrapping sum of
// signed integers above it. 1024 blocks need 11 bits; a 42-bit limb summed
// 1024 times still fits the 53 bits above. All in one 64-byte line.
constexpr unsigned kCountBits = 11;
constexpr unsigned long long kCountMask = (1ull << kCountBits) - 1;
constexpr unsigned kMaxWords = 8;
static_assert(kMaxGrid <= kCountMask, "the count must not carry into the sum");

__device__ unsigned int g_ticket = 0;  // f64: blocks finished in the current launch
__device__ unsigned long long g_slots[kMaxGrid * 2];  // f64: published partials; 0 = empty
__device__ __align__(64) unsigned long long g_words[kMaxWords];  // the rest: exact combine words

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

__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed(unsigned long long *p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// Exact combine, called by warp 0 of every block: lane k < K adds its word c
// (count 1 in the low bits, a signed integer above) to g_words[k]. Integer
// addition does not care about order, so the words' final values are the
// same whichever block arrives when. One round trip: the block that takes
// the last count of word 0 leads, and for every word it also took last it
// already holds the final value (old + its own). A word another block took
// last is reloaded until its count is full (rare: a block issues its K
// atomics together). The leader then clears the words for the next launch.
// Returns true in the leader's warp 0, each lane k < K holding word k.
template <unsigned K> __device__ bool add_words(unsigned long long c, unsigned long long *fin) {
  static_assert(K <= kMaxWords, "g_words holds kMaxWords words");
  unsigned lane = threadIdx.x % 32;
  unsigned long long *w = &g_words[lane < K ? lane : 0];
  unsigned long long old = lane < K ? atomicAdd(w, c) : 0;
  unsigned long long old0 = __shfl_sync(0xffffffffu, old, 0);
  if ((old0 & kCountMask) != gridDim.x - 1) return false;
  unsigned long long v = old + c;
  if (lane < K) {
    if ((old & kCountMask) != gridDim.x - 1)
      do v = ld_relaxed(w); while ((v & kCountMask) != gridDim.x);
    st_relaxed(w, 0);  // every block has added to this word
  }
  *fin = v;
  return true;
}

__device__ __forceinline__ unsigned long long word(long long v) {
  return (unsigned long long)v << kCountBits | 1u;
}
__device__ __forceinline__ long long field(unsigned long long w) { return (long long)w >> kCountBits; }

// 32- and 64-bit integers: one word per 32 bits of the sum. The low field is
// exact; the high one only matters mod 2^32, so wrapping above is harmless.
__device__ void combine_exact(uint32_t s, uint32_t *out) {
  unsigned long long fin;
  if (add_words<1>(word(s), &fin) && threadIdx.x == 0) *out = (uint32_t)field(fin);
}
__device__ void combine_exact(unsigned long long s, unsigned long long *out) {
  unsigned lane = threadIdx.x % 32;
  unsigned long long fin;
  if (!add_words<2>(word((long long)(lane ? s >> 32 : s & 0xffffffffu)), &fin)) return;
  unsigned long long hi = __shfl_sync(0xffffffffu, fin, 1);
  if (lane == 0) *out = (unsigned long long)field(fin) + ((unsigned long long)field(hi) << 32);
}

// float partials (f32, f16, bf16): a finite float is m * 2^(e - 149) with m
// below 2^24 and 0 <= e <= 253, i.e. an integer of at most 277 bits in units
// of 2^-149. Seven 42-bit limbs hold it exactly; m lands in at most two of
// them. An eighth word counts +inf, -inf and NaN partials (11 bits each).
// The leader propagates carries, adds the limbs top down in double (error far
// below one float ulp) and rounds once to float.
constexpr unsigned kLimbBits = 42, kLimbs = 7;

__device__ void combine_exact(float s, float *out) {
  unsigned lane = threadIdx.x % 32;
  uint32_t b = __float_as_uint(s);
  unsigned e = b >> 23 & 255, neg = b >> 31;
  uint32_t frac = b & 0x7fffffu;
  long long limb = 0, special = 0;
  if (e == 255) {
    special = frac ? 1ll << 22 : neg ? 1ll << 11 : 1;  // NaN, -inf, +inf
  } else {
    unsigned long long m = e ? frac | 1u << 23 : frac;
    unsigned shift = e ? e - 1 : 0, k0 = shift / kLimbBits, r = shift % kLimbBits;
    unsigned long long lo = m << r & ((1ull << kLimbBits) - 1), hi = m >> (kLimbBits - r);
    unsigned long long mine = lane == k0 ? lo : lane == k0 + 1 ? hi : 0;
    limb = neg ? -(long long)mine : (long long)mine;
  }
  unsigned long long fin;
  if (!add_words<kLimbs + 1>(word(lane < kLimbs ? limb : special), &fin)) return;
  long long f[kLimbs + 1];
#pragma unroll
  for (unsigned k = 0; k <= kLimbs; k++) f[k] = field(__shfl_sync(0xffffffffu, fin, k));
  if (lane != 0) return;
  long long pinf = f[kLimbs] & 2047, ninf = f[kLimbs] >> 11 & 2047, nan = f[kLimbs] >> 22 & 2047;
  if (nan || (pinf && ninf)) {
    *out = __int_as_float(0x7fc00000);
  } else if (pinf || ninf) {
    *out = pinf ? __int_as_float(0x7f800000) : __int_as_float(0xff800000);
  } else {
#pragma unroll
    for (unsigned k = 0; k + 1 < kLimbs; k++) {  // limbs 0..5 into [0, 2^42), the sign on top
      long long carry = f[k] >> kLimbBits;
      f[k] -= carry * (1ll << kLimbBits);
      f[k + 1] += carry;
    }
    double d = 0;
#pragma unroll
    for (int k = kLimbs - 1; k >= 0; k--) d += ldexp((double)f[k], (int)(kLimbBits * k) - 149);
    *out = (float)d;
  }
}

// f64 (an exact form would need 2098 bits): each block publishes its partial
// as 64-bit words {1 : 32 bits of the value} in g_slots and takes a ticket
// with no fence. A slot still 0 was published but is not visible yet (no
// fence orders it): the last block reloads it until it is. It then clears
// the slots for the next launch and adds the partials in index order.
__device__ void combine_ordered(double s, double *out) {
  constexpr unsigned kW = 2;  // slot words per partial
  __shared__ bool last;
  if (threadIdx.x == 0) {
    uint32_t bits[kW];
    memcpy(bits, &s, sizeof s);
#pragma unroll
    for (unsigned w = 0; w < kW; w++) st_relaxed(&g_slots[blockIdx.x * kW + w], 1ull << 32 | bits[w]);
    last = atomicAdd(&g_ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  unsigned long long x[kSlotsPerThread][kW];
#pragma unroll
  for (unsigned u = 0; u < kSlotsPerThread; u++) {
    unsigned k = u * kBlock + threadIdx.x;
#pragma unroll
    for (unsigned w = 0; w < kW; w++) x[u][w] = k < gridDim.x ? ld_relaxed(&g_slots[k * kW + w]) : 1ull << 32;
  }
  double p = 0;
#pragma unroll
  for (unsigned u = 0; u < kSlotsPerThread; u++) {
    unsigned k = u * kBlock + threadIdx.x;
    uint32_t bits[kW];
#pragma unroll
    for (unsigned w = 0; w < kW; w++) {
      while (!(x[u][w] >> 32)) x[u][w] = ld_relaxed(&g_slots[k * kW + w]);
      bits[w] = (uint32_t)x[u][w];
      if (k < gridDim.x) st_relaxed(&g_slots[k * kW + w], 0);
    }
    double v;
    memcpy(&v, bits, sizeof v);
    p += k < gridDim.x ? v : 0.0;
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
  // Each warp reads 4 KiB chunks (its kLoads loads side by side), chunk
  // w, w + warps, ...; the last chunk is predicated, still all in flight.
  constexpr size_t kChunk = 32 * kLoads;
  size_t lane = threadIdx.x % 32, step = nthreads / 32 * kChunk;
  size_t c = tid / 32 * kChunk;
  for (; c + kChunk <= nvec; c += step) {
    uint4 v[kLoads];
#pragma unroll
    for (unsigned u = 0; u < kLoads; u++) v[u] = __ldcs(body + c + u * 32 + lane);
#pragma unroll
    for (unsigned u = 0; u < kLoads; u++) acc[u % kAcc] += sum16<T, A>(v[u]);
  }
  if (c < nvec) {
    uint4 v[kLoads];
#pragma unroll
    for (unsigned u = 0; u < kLoads; u++)
      v[u] = c + u * 32 + lane < nvec ? __ldcs(body + c + u * 32 + lane) : make_uint4(0, 0, 0, 0);
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
  } else if constexpr (std::is_same<A, double>::value) {
    combine_ordered(s, out);
  } else if (threadIdx.x < 32) {
    combine_exact(__shfl_sync(0xffffffffu, s, 0), out);
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
// pairwise fold, the block tree, and for f64 the last block's pass over the
// partials and its tree (the exact combine adds a single rounding, less). A
// grid below the cap only arises when every warp has at most one chunk,
// which the same + 12 covers.
extern "C" double kg_depth_kgate_single_pass(size_t n) {
  size_t grid = max_grid(kBlocksPerSM), threads = grid * kBlock;
  return (double)(kg::ceil_div(n, threads) + 12) + 2 + kg::log2_floor(kLoads) + 2 * kg::log2_floor(kBlock) +
         (double)kg::ceil_div(grid, kBlock);
}
