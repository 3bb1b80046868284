// Planted bug: no fence between the partial's store and the last-block ticket, nor after it.
// The sum stays right on today's GPUs; `kgate lint` must find it (mut_fence.cuh).
#include "mut_fence.cuh"

KG_FENCE_MUTANT(mut_fence_none, kNoFence)
