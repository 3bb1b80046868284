// Messages between blocks and synchronisation inside one, for the lint's
// corpus (capture.sh, corpus-expect.tsv). A producer block writes data and
// raises a flag; a consumer block waits for the flag and reads the data: the
// flag's store needs a release (a GPU-scope fence before it) and the wait an
// acquire, or the consumer may read stale data. A last-block ticket taken at
// block scope on global memory orders nothing against the other blocks
// however it is fenced. A block's own lock in shared memory is no message.
#include <cuda/atomic>

#include "corpus.cuh"

using flag_ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

// Block 0 produces gridDim.x - 1 values; every other block waits for the flag
// and reads them all. Thread 0 raises the flag (RAISE) after the block's
// stores and a barrier, thread 0 of a consumer waits (WAIT), then a barrier
// passes the wait on to the block.
#define CORPUS_FLAG(name, RAISE, WAIT)                                              \
  __global__ void name(const int *in, int n, int *data, int *flag, int *out) {      \
    if (blockIdx.x == 0) {                                                          \
      for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) data[i] = in[i % n] + 1; \
      __syncthreads();                                                              \
      if (threadIdx.x == 0) { RAISE; }                                              \
      return;                                                                       \
    }                                                                               \
    if (threadIdx.x == 0) { WAIT; }                                                 \
    __syncthreads();                                                                \
    int v = 0;                                                                      \
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) v += data[i];    \
    v = block_total(v);                                                             \
    if (threadIdx.x == 0) out[blockIdx.x] = v;                                      \
  }

CORPUS_FLAG(ok_flag_release_acquire, flag_ref(*flag).store(1, cuda::memory_order_release),
            while (flag_ref(*flag).load(cuda::memory_order_acquire) == 0) {})
CORPUS_FLAG(ok_flag_fenced, (__threadfence(), flag_ref(*flag).store(1, cuda::memory_order_relaxed)),
            while (flag_ref(*flag).load(cuda::memory_order_relaxed) == 0) {} __threadfence())
CORPUS_FLAG(ok_flag_volatile_fenced, (__threadfence(), *(volatile int *)flag = 1),
            while (*(volatile int *)flag == 0) {} __threadfence())
CORPUS_FLAG(bug_flag_relaxed, flag_ref(*flag).store(1, cuda::memory_order_relaxed),
            while (flag_ref(*flag).load(cuda::memory_order_relaxed) == 0) {})
CORPUS_FLAG(bug_flag_volatile, *(volatile int *)flag = 1, while (*(volatile int *)flag == 0) {})
CORPUS_FLAG(bug_flag_no_acquire, flag_ref(*flag).store(1, cuda::memory_order_release),
            while (flag_ref(*flag).load(cuda::memory_order_relaxed) == 0) {})

// A last-block ticket at block scope on global memory, fenced on both sides:
// the increment itself is atomic only within the block.
CORPUS_LAST_BLOCK(bug_ticket_block_scope, __threadfence(), atomicInc_block(ticket, gridDim.x), __threadfence(),
                  plain_load)

// A block's own lock in shared memory (block scope), and a block-scope
// last-warp counter in shared memory: synchronisation inside one block.
__global__ void ok_block_lock(const int *in, int n, int *out) {
  __shared__ int lock, total;
  if (threadIdx.x == 0) lock = 0, total = 0;
  __syncthreads();
  int v = grid_partial(in, n);
  if ((threadIdx.x & 31) == 0) {
    while (atomicCAS_block(&lock, 0, 1) != 0) {}
    __threadfence_block();
    total += v;
    __threadfence_block();
    atomicExch_block(&lock, 0);
  }
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

__global__ void ok_block_last_warp(const int *in, int n, int *out) {
  __shared__ int warps[32];
  __shared__ unsigned arrived;
  if (threadIdx.x == 0) arrived = 0;
  __syncthreads();
  int v = warp_total(grid_partial(in, n));
  unsigned nw = (blockDim.x + 31) / 32;
  if ((threadIdx.x & 31) == 0) {
    warps[threadIdx.x / 32] = v;
    __threadfence_block();
    if (atomicAdd_block(&arrived, 1u) == nw - 1) {
      __threadfence_block();
      int s = 0;
      for (unsigned i = 0; i < nw; i++) s += ((volatile int *)warps)[i];
      out[blockIdx.x] = s;
    }
  }
}
