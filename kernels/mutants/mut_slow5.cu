// Planted bug: reduce7_shuffle streaming 8.5 % more bytes and each block
// spinning 600 cycles (mut_slow.cuh):
// about 5 % slower at 2^22 (H100); selftest measures the true effect.
#include "mut_slow.cuh"

KG_MUTANT_SLOW(mut_slow5, 75, 220)
