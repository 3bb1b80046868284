// The other unit of split_fenced.cu: its publish_fence is only a block fence,
// which orders nothing against other blocks, so its kernel misses both sides.
#include "corpus.cuh"

static __device__ __noinline__ void publish_fence() { __threadfence_block(); }

CORPUS_LAST_BLOCK(bug_split_unfenced, publish_fence(), atomicAdd(ticket, 1u), publish_fence(), plain_load)
