// Planted bug: reduce7_shuffle streaming 5 % more bytes (mut_slow.cuh).
#include "mut_slow.cuh"

KG_MUTANT_SLOW(mut_slow5, 50)
