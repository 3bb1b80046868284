// Planted bug: __threadfence_block (CTA scope) where the ticket needs a GPU-scope fence.
// The sum stays right on today's GPUs; `kgate lint` must find it (mut_fence.cuh).
#include "mut_fence.cuh"

KG_FENCE_MUTANT(mut_fence_block, kBlockFence)
