// libcu++'s synchronisation as the toolkit ships it, for the lint's corpus
// (capture.sh, corpus-expect.tsv): cuda::barrier at block scope (an mbarrier
// on sm_90, with memcpy_async) and at device scope, cuda::latch,
// cuda::binary_semaphore and counting_semaphore at device scope,
// cuda::pipeline, and cuda::atomic_ref at every scope and ordering. Every
// kernel is correct as written (the orderings are the ones each protocol
// needs): the lint must find nothing.
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/latch>
#include <cuda/pipeline>
#include <cuda/semaphore>
#include <cooperative_groups.h>
#include <new>

namespace cg = cooperative_groups;

__device__ int grid_load(const int *in, unsigned n) {
  int v = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  return v;
}

// A block-scope barrier in shared memory staging a tile with memcpy_async.
__global__ void barrier_block_copy(const int *in, int *out, unsigned n) {
  __shared__ int tile[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto cta = cg::this_thread_block();
  if (cta.thread_rank() == 0) init(&bar, cta.size());
  cta.sync();
  unsigned base = blockIdx.x * 256;
  cuda::memcpy_async(cta, tile, in + base, sizeof tile, bar);
  bar.arrive_and_wait();
  int v = tile[(threadIdx.x + 1) % 256];
  bar.arrive_and_wait();
  out[base + threadIdx.x] = v;
  (void)n;
}

// A block-scope barrier used as a split arrive/wait around shared data.
__global__ void barrier_block_split(const int *in, int *out, unsigned n) {
  __shared__ int part[1024];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  part[threadIdx.x] = grid_load(in, n);
  auto token = bar.arrive();
  bar.wait(std::move(token));
  out[blockIdx.x * blockDim.x + threadIdx.x] = part[(threadIdx.x + 1) % blockDim.x];
}

// A device-scope barrier in global memory (constructed by the host): every
// block publishes, all arrive and wait, then block 0 sums the partials.
__global__ void barrier_device(const int *in, int *partial, int *out, unsigned n,
                               cuda::barrier<cuda::thread_scope_device> *bar) {
  int v = grid_load(in, n);
  atomicAdd(&partial[blockIdx.x], v);
  __syncthreads();
  if (threadIdx.x == 0) bar->arrive_and_wait();
  __syncthreads();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int s = 0;
    for (unsigned i = 0; i < gridDim.x; i++) s += partial[i];
    *out = s;
  }
}

// A device-scope latch: each block counts down once; block 0 waits for all.
__global__ void latch_device(const int *in, int *partial, int *out, unsigned n,
                             cuda::latch<cuda::thread_scope_device> *done) {
  int v = grid_load(in, n);
  atomicAdd(&partial[blockIdx.x], v);
  __syncthreads();
  if (threadIdx.x == 0) done->count_down();
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) done->wait();
    __syncthreads();
    int s = 0;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) s += partial[i];
    atomicAdd(out, s);
  }
}

// A block-scope latch in shared memory.
__global__ void latch_block(const int *in, int *out, unsigned n) {
  __shared__ int part[1024];
  using latch = cuda::latch<cuda::thread_scope_block>;
  __shared__ alignas(latch) unsigned char raw[sizeof(latch)];
  latch &l = *reinterpret_cast<latch *>(raw);
  if (threadIdx.x == 0) new (raw) latch(blockDim.x);
  __syncthreads();
  part[threadIdx.x] = grid_load(in, n);
  l.arrive_and_wait();
  out[blockIdx.x * blockDim.x + threadIdx.x] = part[blockDim.x - 1 - threadIdx.x];
}

// A device-scope binary semaphore as a lock around a global running total.
__global__ void semaphore_binary(const int *in, int *total, int *seen, unsigned n,
                                 cuda::binary_semaphore<cuda::thread_scope_device> *lock) {
  int v = grid_load(in, n);
  if (threadIdx.x == 0) {
    lock->acquire();
    int t = *total + v;
    *total = t;
    seen[blockIdx.x] = t;
    lock->release();
  }
}

// A counting semaphore bounding how many blocks hold a slot at once.
__global__ void semaphore_counting(const int *in, int *slots, unsigned n,
                                   cuda::counting_semaphore<cuda::thread_scope_device, 4> *sem) {
  int v = grid_load(in, n);
  if (threadIdx.x == 0) {
    sem->acquire();
    atomicAdd(&slots[blockIdx.x % 4], v);
    sem->release();
  }
}

// A two-stage pipeline staging tiles through shared memory.
__global__ void pipeline_stages(const int *in, int *out, unsigned tiles) {
  __shared__ int buf[2][256];
  auto cta = cg::this_thread_block();
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe = cuda::make_pipeline(cta, &state);
  int acc = 0;
  for (unsigned t = 0; t < tiles; t++) {
    pipe.producer_acquire();
    cuda::memcpy_async(cta, buf[t & 1], in + (blockIdx.x * tiles + t) * 256, sizeof buf[0], pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    acc += buf[t & 1][threadIdx.x % 256];
    pipe.consumer_release();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// atomic_ref at scope S with ordering O, where each is allowed: fetch_add,
// exchange, a compare-exchange, a store and a load, their results written
// out (no branch on them). Shared memory at block scope, global otherwise.
template <cuda::thread_scope S, int O>
__global__ void ref_ops(int *g, int *out) {
  constexpr cuda::memory_order o = static_cast<cuda::memory_order>(O);
  constexpr cuda::memory_order st = o == cuda::memory_order_acquire || o == cuda::memory_order_acq_rel ||
                                            o == cuda::memory_order_consume
                                        ? cuda::memory_order_release
                                        : o;
  constexpr cuda::memory_order ld = o == cuda::memory_order_release || o == cuda::memory_order_acq_rel
                                        ? cuda::memory_order_acquire
                                        : o;
  __shared__ int s;
  int *p = S == cuda::thread_scope_block ? &s : g;
  if (threadIdx.x == 0) s = 0;
  __syncthreads();
  cuda::atomic_ref<int, S> r(*p);
  int a = r.fetch_add(1, o);
  int b = r.exchange(a, o);
  int e = b;
  r.compare_exchange_strong(e, a + b, o);
  r.store(e, st);
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + e + r.load(ld);
}

// A spin lock at scope S: acquire by compare-exchange, release by store.
// Block scope locks a word of shared memory around shared data; device and
// system scope a word of global memory around global data.
template <cuda::thread_scope S>
__global__ void ref_lock(int *lock, int *data, unsigned n) {
  __shared__ int slock, sdata;
  int *l = S == cuda::thread_scope_block ? &slock : lock;
  int *d = S == cuda::thread_scope_block ? &sdata : data;
  if (threadIdx.x == 0) slock = 0, sdata = 0;
  __syncthreads();
  cuda::atomic_ref<int, S> r(*l);
  if ((threadIdx.x & 31) == 0) {
    int e = 0;
    while (!r.compare_exchange_weak(e, 1, cuda::memory_order_acquire, cuda::memory_order_relaxed)) e = 0;
    *d += (int)n;
    r.store(0, cuda::memory_order_release);
  }
  __syncthreads();
  if (threadIdx.x == 0 && S == cuda::thread_scope_block) data[blockIdx.x] = sdata;
}

#define REF(S)                                                   \
  template __global__ void ref_ops<S, 0>(int *, int *);          \
  template __global__ void ref_ops<S, 1>(int *, int *);          \
  template __global__ void ref_ops<S, 2>(int *, int *);          \
  template __global__ void ref_ops<S, 3>(int *, int *);          \
  template __global__ void ref_ops<S, 4>(int *, int *);          \
  template __global__ void ref_ops<S, 5>(int *, int *);          \
  template __global__ void ref_lock<S>(int *, int *, unsigned);
REF(cuda::thread_scope_block)
REF(cuda::thread_scope_device)
REF(cuda::thread_scope_system)
