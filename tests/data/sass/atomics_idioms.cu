// The ticket of a last-block reduction in each form libcu++, inline PTX and
// cooperative groups offer, for the lint's corpus (capture.sh,
// corpus-expect.tsv). A correct one needs release before the ticket on the
// publishing side and acquire after it on the last block's side: a fence, or
// the ordering of the ticket's own atomic. bug_* names what is missing.
#include <cooperative_groups.h>
#include <cuda/atomic>

#include "corpus.cuh"

namespace cg = cooperative_groups;
using dev_ref = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;
using std_ref = cuda::std::atomic_ref<unsigned>;  // system scope

#define REF(ORDER) dev_ref(*ticket).fetch_add(1u, cuda::ORDER)
#define DEV_FENCE(ORDER) cuda::atomic_thread_fence(cuda::ORDER, cuda::thread_scope_device)

// cuda::atomic_ref<unsigned, thread_scope_device>::fetch_add at each ordering.
CORPUS_LAST_BLOCK(bug_ref_relaxed, , REF(memory_order_relaxed), , plain_load)  // both sides
CORPUS_LAST_BLOCK(bug_ref_release, , REF(memory_order_release), , plain_load)  // no acquire
CORPUS_LAST_BLOCK(bug_ref_acquire, , REF(memory_order_acquire), , plain_load)  // no release
CORPUS_LAST_BLOCK(ok_ref_acq_rel, , REF(memory_order_acq_rel), , plain_load)
CORPUS_LAST_BLOCK(ok_ref_seq_cst, , REF(memory_order_seq_cst), , plain_load)
// A relaxed ticket between fences.
CORPUS_LAST_BLOCK(ok_ref_fence_acq_rel, DEV_FENCE(memory_order_acq_rel), REF(memory_order_relaxed),
                  DEV_FENCE(memory_order_acq_rel), plain_load)
CORPUS_LAST_BLOCK(ok_ref_fence_seq_cst, DEV_FENCE(memory_order_seq_cst), REF(memory_order_relaxed),
                  DEV_FENCE(memory_order_seq_cst), plain_load)
// Block-scope fences order nothing against another block.
CORPUS_LAST_BLOCK(bug_ref_fence_block, cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_block),
                  REF(memory_order_relaxed),
                  cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_block), plain_load)

// cuda::std::atomic_ref: system scope, seq_cst unless told.
CORPUS_LAST_BLOCK(ok_std_ref_default, , std_ref(*ticket).fetch_add(1u), , plain_load)
CORPUS_LAST_BLOCK(ok_std_ref_acq_rel, , std_ref(*ticket).fetch_add(1u, cuda::std::memory_order_acq_rel), ,
                  plain_load)
CORPUS_LAST_BLOCK(bug_std_ref_relaxed, , std_ref(*ticket).fetch_add(1u, cuda::std::memory_order_relaxed), ,
                  plain_load)  // both sides

// Inline PTX.
__device__ __forceinline__ unsigned atom_acq_rel(unsigned *p) {
  unsigned t;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(t) : "l"(p) : "memory");
  return t;
}
__device__ __forceinline__ unsigned atom_relaxed(unsigned *p) {
  unsigned t;
  asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;" : "=r"(t) : "l"(p) : "memory");
  return t;
}
CORPUS_LAST_BLOCK(ok_ptx_acq_rel, , atom_acq_rel(ticket), , plain_load)
CORPUS_LAST_BLOCK(bug_ptx_relaxed, , atom_relaxed(ticket), , plain_load)  // both sides

// A grid-wide barrier instead of a ticket (cooperative launch): it orders
// every block's partial before block 0 reads them.
__global__ void ok_grid_sync(const int *in, int n, int *partial, int *out) {
  int s = block_total(grid_partial(in, n));
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
  cg::this_grid().sync();
  if (blockIdx.x != 0) return;
  int v = 0;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) v += partial[i];
  v = block_total(v);
  if (threadIdx.x == 0) *out = v;
}

// Dynamic tile ids, no tickets: each block (or each round of a persistent
// block) takes the next tile from a counter and reads only the input, which
// no block writes. The loads after the atomic need no acquire.
__global__ void ok_tile_counter(const int *in, int tile_size, unsigned *counter, int *out) {
  __shared__ unsigned tile;
  if (threadIdx.x == 0) tile = atomicAdd(counter, 1u);
  __syncthreads();
  int v = 0;
  for (int i = threadIdx.x; i < tile_size; i += blockDim.x) v += in[tile * tile_size + i];
  v = block_total(v);
  if (threadIdx.x == 0) out[tile] = v;
}
__global__ void ok_tile_loop(const int *in, int tile_size, unsigned tiles, unsigned *counter, int *out) {
  __shared__ unsigned tile;
  for (;;) {
    __syncthreads();  // every thread has read the last tile id
    if (threadIdx.x == 0) tile = atomicAdd(counter, 1u);
    __syncthreads();
    unsigned t = tile;
    if (t >= tiles) return;
    int v = 0;
    for (int i = threadIdx.x; i < tile_size; i += blockDim.x) v += in[t * tile_size + i];
    v = block_total(v);
    if (threadIdx.x == 0) out[t] = v;
  }
}
