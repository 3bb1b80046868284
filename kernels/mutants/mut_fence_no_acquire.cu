// Planted bug: the last block reads the partials with no fence after its ticket (PyTorch #128455).
// The sum stays right on today's GPUs; `kgate lint` must find it (mut_fence.cuh).
#include "mut_fence.cuh"

KG_FENCE_MUTANT(mut_fence_no_acquire, kNoAcquire)
