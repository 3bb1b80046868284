// Planted bug: the release fence on one branch only (odd partials): the other path publishes unfenced.
// The sum stays right on today's GPUs; `kgate lint` must find it (mut_fence.cuh).
#include "mut_fence.cuh"

KG_FENCE_MUTANT(mut_fence_one_branch, kOneBranch)
