// One of two units (with split_unfenced.cu) that each define a static helper
// named publish_fence, linked into one cubin with -rdc=true (capture.sh): the
// lint must resolve each kernel's call within its own unit. This unit's
// helper is a device fence, so its kernel is correct.
#include "corpus.cuh"

static __device__ __noinline__ void publish_fence() { __threadfence(); }

CORPUS_LAST_BLOCK(ok_split_fenced, publish_fence(), atomicAdd(ticket, 1u), publish_fence(), plain_load)
