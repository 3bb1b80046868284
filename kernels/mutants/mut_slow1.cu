// Planted bug: reduce7_shuffle streaming 1.2 % more bytes (mut_slow.cuh):
// about 1 % slower at 2^25 (H100); selftest measures the true effect.
#include "mut_slow.cuh"

KG_MUTANT_SLOW(mut_slow1, 17, 0)
