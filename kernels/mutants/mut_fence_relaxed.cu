// Planted bug: a relaxed device-scope fetch_add as the ticket, no fence on either side.
// The sum stays right on today's GPUs; `kgate lint` must find it (mut_fence.cuh).
#include "mut_fence.cuh"

KG_FENCE_MUTANT(mut_fence_relaxed, kRelaxed)
