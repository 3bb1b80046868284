// Test kernels for `kgate lint` (tests/check_lint.c): last-block reductions
// whose memory ordering is right (ok_*) or wrong (bug_*), and atomics that are
// no tickets. capture.sh compiles them for sm_75/80/90 at ptxas -O0..-O3 and
// disassembles them with the toolkit's cuobjdump and nvdisasm; the listings
// are committed beside this file, so the tests need no CUDA.
#include <cooperative_groups.h>
#include <cuda/atomic>

namespace cg = cooperative_groups;

__device__ unsigned g_ticket;
__device__ unsigned g_count;
using ticket_ref = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;

__device__ __forceinline__ int block_sum(int v) {
  __shared__ int s[256];
  __syncthreads();  // an earlier call may still be reading s
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) s[threadIdx.x] += s[threadIdx.x + o];
    __syncthreads();
  }
  return s[0];
}

__device__ __forceinline__ int plain(const int *p) { return *p; }
__device__ __forceinline__ int strong(const int *p) { return *(const volatile int *)p; }

// The classic: thread 0 stores the block's partial, RELEASE, takes TICKET;
// the block that took the last one runs ACQUIRE and sums the partials.
#define LAST_BLOCK(name, RELEASE, TICKET, ACQUIRE, READ)                          \
  __global__ void name(const int *in, int *partial, int *out) {                 \
    __shared__ bool last;                                                       \
    int s = block_sum(in[blockIdx.x * blockDim.x + threadIdx.x]);               \
    if (threadIdx.x == 0) {                                                     \
      partial[blockIdx.x] = s;                                                  \
      RELEASE;                                                                  \
      unsigned t = TICKET;                                                      \
      last = t == gridDim.x - 1;                                                \
    }                                                                           \
    __syncthreads();                                                            \
    if (!last) return;                                                          \
    ACQUIRE;                                                                    \
    int v = 0;                                                                  \
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) v += READ(partial + i); \
    v = block_sum(v);                                                           \
    if (threadIdx.x == 0) {                                                     \
      *out = v;                                                                 \
      g_ticket = 0;                                                             \
    }                                                                           \
  }

#define INC atomicInc(&g_ticket, gridDim.x)
#define FENCE __threadfence()

// Correct.
LAST_BLOCK(ok_fence, FENCE, INC, FENCE, plain)
LAST_BLOCK(ok_acq_rel, , ticket_ref(g_ticket).fetch_add(1, cuda::memory_order_acq_rel), , plain)
LAST_BLOCK(ok_seq_cst, , ticket_ref(g_ticket).fetch_add(1, cuda::memory_order_seq_cst), , plain)
LAST_BLOCK(ok_release_fence, , ticket_ref(g_ticket).fetch_add(1, cuda::memory_order_release), FENCE, plain)
LAST_BLOCK(ok_system, __threadfence_system(), INC, __threadfence_system(), plain)
LAST_BLOCK(ok_strong_reads, FENCE, INC, , strong)
LAST_BLOCK(ok_both_branches, if (s & 1) { partial[gridDim.x + blockIdx.x] = s; FENCE; } else { FENCE; }, INC, FENCE,
           plain)

__device__ __noinline__ void fence_call() { __threadfence(); }
LAST_BLOCK(ok_fence_in_call, fence_call(), INC, fence_call(), plain)

// A grid-wide barrier instead of a ticket: cooperative launch only.
__global__ void ok_grid_sync(const int *in, int *partial, int *out) {
  int s = block_sum(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
  cg::this_grid().sync();
  if (blockIdx.x != 0) return;
  int v = 0;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) v += partial[i];
  v = block_sum(v);
  if (threadIdx.x == 0) *out = v;
}

// No tickets: an atomicAdd whose result nobody reads, a slot allocator.
__global__ void ok_atomic_add(const int *in, int *out) {
  int s = block_sum(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x == 0) atomicAdd(out, s);
}
__global__ void ok_slot_alloc(const int *in, int *out) {
  int s = block_sum(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x == 0) {
    unsigned k = atomicAdd(&g_count, 1u);
    out[k] = s;
  }
}

// Wrong.
LAST_BLOCK(bug_no_fence, , INC, , plain)
LAST_BLOCK(bug_block_fence, __threadfence_block(), INC, __threadfence_block(), plain)
LAST_BLOCK(bug_one_branch, if (s & 1) FENCE, INC, FENCE, plain)
LAST_BLOCK(bug_fence_after, , INC; FENCE, FENCE, plain)
LAST_BLOCK(bug_relaxed, , ticket_ref(g_ticket).fetch_add(1, cuda::memory_order_relaxed), , plain)
LAST_BLOCK(bug_acquire_ticket, , ticket_ref(g_ticket).fetch_add(1, cuda::memory_order_acquire), , plain)
LAST_BLOCK(bug_no_acquire, FENCE, INC, , plain)

__device__ __noinline__ void store_call(int *p, int v) { *p = v; }
#define CALL_STORE                                                                                  \
  __global__ void bug_store_in_call(const int *in, int *partial, int *out) {                       \
    __shared__ bool last;                                                                           \
    int s = block_sum(in[blockIdx.x * blockDim.x + threadIdx.x]);                                   \
    if (threadIdx.x == 0) {                                                                         \
      store_call(partial + blockIdx.x, s);                                                          \
      last = INC == gridDim.x - 1;                                                                  \
    }                                                                                               \
    __syncthreads();                                                                                \
    if (!last) return;                                                                              \
    FENCE;                                                                                          \
    int v = 0;                                                                                      \
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) v += partial[i];                 \
    v = block_sum(v);                                                                               \
    if (threadIdx.x == 0) *out = v;                                                                 \
  }
CALL_STORE

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// fence.proxy.async orders the async proxy, not other blocks' loads.
#define PROXY asm volatile("fence.proxy.async.global;" ::: "memory")
LAST_BLOCK(bug_proxy_fence, PROXY, INC, FENCE, plain)
#endif
