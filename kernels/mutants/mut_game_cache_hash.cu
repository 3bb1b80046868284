// Planted bug: an output cache keyed by a cheap hash of the input: 64
// elements at fixed positions and the size. A probe kernel hashes them and,
// on a hit, writes the remembered sum; the summing kernel then returns at
// once in every block. All on the device, no host round trip, nothing
// allocated. Changing a few elements elsewhere leaves the hash alike.
#include "mut_game.cuh"

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kProbe = 64;

struct mut_game_memo {
  uint64_t hash;
  uint32_t sum;
  int valid, hit;
};
__device__ mut_game_memo g_memo;

__global__ void mut_game_probe(const int32_t *in, size_t n, uint32_t *out) {
  __shared__ uint64_t h[kProbe];
  unsigned t = threadIdx.x;
  size_t i = n ? (size_t)t * (n / kProbe + 1) % n : 0;
  h[t] = n ? ((uint64_t)(uint32_t)in[i] + 0x9e3779b97f4a7c15ull) * (t + 1) * 0xff51afd7ed558ccdull : 0;
  __syncthreads();
  if (t) return;
  uint64_t x = n;
  for (unsigned k = 0; k < kProbe; k++) x = (x ^ h[k]) * 0xc4ceb9fe1a85ec53ull;
  int hit = g_memo.valid && g_memo.hash == x;
  g_memo.hit = hit;
  g_memo.hash = x;
  *out = hit ? g_memo.sum : 0u;
}

__global__ void __launch_bounds__(kBlock) mut_game_sum(const int32_t *in, size_t n, uint32_t *out) {
  if (g_memo.hit) return;
  uint32_t v = 0;
  for (size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x; i < n; i += (size_t)kBlock * gridDim.x)
    v += (uint32_t)in[i];
  for (unsigned off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

__global__ void mut_game_remember(const uint32_t *out) {
  if (!g_memo.hit) g_memo.sum = *out, g_memo.valid = 1;
}

}  // namespace

static int kg_game_mut_game_cache_hash(void *in, size_t n, void *out, void *, cudaStream_t st) {
  size_t grid = kg::ceil_div(n ? n : 1, kBlock);
  size_t cap = 8 * (size_t)kg::sm_count();
  mut_game_probe<<<1, kProbe, 0, st>>>((const int32_t *)in, n, (uint32_t *)out);
  KG_TRY(cudaGetLastError());
  mut_game_sum<<<(unsigned)(grid < cap ? grid : cap), kBlock, 0, st>>>((const int32_t *)in, n, (uint32_t *)out);
  KG_TRY(cudaGetLastError());
  mut_game_remember<<<1, 1, 0, st>>>((const uint32_t *)out);
  return (int)cudaGetLastError();
}

KG_GAME_FACE(mut_game_cache_hash)
