// cooperative_groups as the toolkit ships it, for the lint's corpus
// (capture.sh, corpus-expect.tsv): every kernel is correct, and the only
// synchronisation in them is the toolkit's own. Warp tiles (4..32) reduce and
// scan with shuffles; multi-warp tiles (64..512, over block_tile_memory) sync
// through an atomic barrier on a word of shared memory reached by a generic
// pointer (atom.or.acq_rel.cta, red.and.release.cta, ld.acquire.cta); the grid
// syncs through its own barrier word in global memory; a cluster (sm_90) through
// barrier.cluster. None of it is a last-block ticket: the lint must find nothing.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

template <class T>
__device__ T grid_load(const T *in, unsigned n) {
  T v = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  return v;
}

// A warp tile of N: reduce, then an inclusive and an exclusive scan.
template <class T, unsigned N>
__global__ void tile_reduce_scan(const T *in, T *out, T *scan, unsigned n) {
  auto tile = cg::tiled_partition<N>(cg::this_thread_block());
  T v = grid_load(in, n);
  T s = cg::reduce(tile, v, cg::plus<T>());
  scan[blockIdx.x * blockDim.x + threadIdx.x] = cg::inclusive_scan(tile, v) + cg::exclusive_scan(tile, v);
  if (tile.thread_rank() == 0) out[blockIdx.x * (blockDim.x / N) + tile.meta_group_rank()] = s;
}

// The same tile's votes, shuffles and its own sync.
template <unsigned N>
__global__ void tile_votes(const int *in, int *out, unsigned n) {
  auto tile = cg::tiled_partition<N>(cg::this_thread_block());
  int v = grid_load(in, n);
  unsigned b = tile.ballot(v > 0);
  int any = tile.any(v < 0), all = tile.all(v != 0);
  tile.sync();
  int up = tile.shfl_down(v, 1), x = tile.shfl_xor(v, N / 2);
  out[blockIdx.x * blockDim.x + threadIdx.x] = (int)b + any + all + up + x + (int)tile.match_any(v);
}

// A multi-warp tile of N threads in a block of B: the cuda-samples shape
// (reduce, one partial per tile through shared memory, the block syncs), and a
// scan over it.
template <class T, unsigned B, unsigned N>
__global__ void multi_warp_reduce(const T *in, T *out, unsigned n) {
  __shared__ cg::block_tile_memory<B> scratch;
  __shared__ T part[B / N];
  auto cta = cg::this_thread_block(scratch);
  auto tile = cg::tiled_partition<N>(cta);
  T v = cg::reduce(tile, grid_load(in, n), cg::plus<T>());
  if (tile.thread_rank() == 0) part[tile.meta_group_rank()] = v;
  cg::sync(cta);
  if (threadIdx.x == 0) {
    T s = 0;
    for (unsigned i = 0; i < tile.meta_group_size(); i++) s += part[i];
    out[blockIdx.x] = s;
  }
}

template <class T, unsigned B, unsigned N>
__global__ void multi_warp_scan(const T *in, T *out, unsigned n) {
  __shared__ cg::block_tile_memory<B> scratch;
  auto cta = cg::this_thread_block(scratch);
  auto tile = cg::tiled_partition<N>(cta);
  T v = grid_load(in, n);
  v = cg::inclusive_scan(tile, v);
  tile.sync();
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + cg::exclusive_scan(tile, v);
}

// Coalesced and labeled groups: the active threads of a branch.
__global__ void coalesced(const int *in, int *out, unsigned n) {
  int v = grid_load(in, n);
  if (v & 1) {
    auto g = cg::coalesced_threads();
    int s = cg::reduce(g, v, cg::plus<int>());
    if (g.thread_rank() == 0) out[blockIdx.x * 2] = s;
  }
  auto lab = cg::labeled_partition(cg::tiled_partition<32>(cg::this_thread_block()), v & 3);
  int s = cg::reduce(lab, v, cg::greater<int>());
  auto bin = cg::binary_partition(cg::tiled_partition<32>(cg::this_thread_block()), v > 0);
  s += cg::reduce(bin, v, cg::less<int>());
  out[blockIdx.x * 2 + 1 + threadIdx.x] = s;
}

// A block's tile of input staged in shared memory by memcpy_async.
template <class T>
__global__ void block_copy(const T *in, T *out, unsigned n) {
  extern __shared__ unsigned char raw[];
  T *s = reinterpret_cast<T *>(raw);
  auto cta = cg::this_thread_block();
  unsigned base = blockIdx.x * blockDim.x;
  cg::memcpy_async(cta, s, in + base, sizeof(T) * blockDim.x);
  cg::wait(cta);
  T v = cg::reduce(cg::tiled_partition<32>(cta), s[threadIdx.x], cg::plus<T>());
  if ((threadIdx.x & 31) == 0) out[(base + threadIdx.x) / 32] = v;
  (void)n;
}

// The tile's result added into global memory through an atomic_ref.
template <class T>
__global__ void reduce_update(const T *in, T *out, unsigned n) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  cuda::atomic_ref<T, cuda::thread_scope_device> total(*out);
  cg::reduce_update_async(tile, total, grid_load(in, n), cg::plus<T>());
}

// The whole grid: partials, grid.sync(), block 0 sums them (a cooperative launch).
template <class T>
__global__ void grid_sum(const T *in, T *partial, T *out, unsigned n) {
  auto grid = cg::this_grid();
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  T v = cg::reduce(tile, grid_load(in, n), cg::plus<T>());
  if (tile.thread_rank() == 0) partial[grid.thread_rank() / 32] = v;
  grid.sync();
  if (grid.thread_rank() == 0) {
    T s = 0;
    for (unsigned long long i = 0; i < grid.num_threads() / 32; i++) s += partial[i];
    *out = s;
  }
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// A cluster of two blocks: one block reads the other's shared memory after
// the cluster's barrier (distributed shared memory).
template <class T>
__global__ void __cluster_dims__(2, 1, 1) cluster_sum(const T *in, T *out, unsigned n) {
  __shared__ T part;
  auto cluster = cg::this_cluster();
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  T v = cg::reduce(tile, grid_load(in, n), cg::plus<T>());
  if (threadIdx.x == 0) part = 0;
  cluster.sync();
  if (tile.thread_rank() == 0) atomicAdd(&part, v);
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    T *other = cluster.map_shared_rank(&part, 1);
    out[blockIdx.x / 2] = part + *other;
  }
  cluster.sync();
}
#endif

#define TYPES(X) X(int) X(unsigned) X(float) X(double)
#define WARP_TILES(T)                                                          \
  template __global__ void tile_reduce_scan<T, 4>(const T *, T *, T *, unsigned);  \
  template __global__ void tile_reduce_scan<T, 8>(const T *, T *, T *, unsigned);  \
  template __global__ void tile_reduce_scan<T, 16>(const T *, T *, T *, unsigned); \
  template __global__ void tile_reduce_scan<T, 32>(const T *, T *, T *, unsigned);
#define MULTI(T, B, N)                                                              \
  template __global__ void multi_warp_reduce<T, B, N>(const T *, T *, unsigned); \
  template __global__ void multi_warp_scan<T, B, N>(const T *, T *, unsigned);
#define MULTI_TILES(T)                                                                         \
  MULTI(T, 128, 64) MULTI(T, 256, 64) MULTI(T, 256, 128) MULTI(T, 512, 64) MULTI(T, 512, 128)  \
  MULTI(T, 512, 256) MULTI(T, 1024, 128) MULTI(T, 1024, 256) MULTI(T, 1024, 512)
#define ONE_EACH(T)                                                          \
  template __global__ void block_copy<T>(const T *, T *, unsigned);         \
  template __global__ void reduce_update<T>(const T *, T *, unsigned);      \
  template __global__ void grid_sum<T>(const T *, T *, T *, unsigned);
TYPES(WARP_TILES)
TYPES(MULTI_TILES)
TYPES(ONE_EACH)
template __global__ void tile_votes<4>(const int *, int *, unsigned);
template __global__ void tile_votes<8>(const int *, int *, unsigned);
template __global__ void tile_votes<16>(const int *, int *, unsigned);
template __global__ void tile_votes<32>(const int *, int *, unsigned);
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
template __global__ void cluster_sum<int>(const int *, int *, unsigned);
template __global__ void cluster_sum<float>(const float *, float *, unsigned);
#endif
