// Planted bug: the fence after the ticket instead of before it.
// The sum stays right on today's GPUs; `kgate lint` must find it (mut_fence.cuh).
#include "mut_fence.cuh"

KG_FENCE_MUTANT(mut_fence_after, kFenceAfter)
