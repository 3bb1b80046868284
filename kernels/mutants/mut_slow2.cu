// Planted bug: reduce7_shuffle streaming 3.4 % more bytes and each block
// spinning 100 cycles (mut_slow.cuh):
// about 2 % slower at 2^22 (H100); selftest measures the true effect.
#include "mut_slow.cuh"

KG_MUTANT_SLOW(mut_slow2, 24, 30)
