// Planted bug: reduce7_shuffle streaming 1 % more bytes (mut_slow.cuh).
#include "mut_slow.cuh"

KG_MUTANT_SLOW(mut_slow1, 10)
