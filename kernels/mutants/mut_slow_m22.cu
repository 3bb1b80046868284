// Planted bug: reduce7_shuffle streaming 1.2 % more bytes, each block spinning 15 cycles (mut_slow.cuh):
// a slowdown of about +1% at 2^22, the paired gate's m there. Scaled from
// mut_slow1 (17 per mille: +1.07 % at 2^25) and mut_slow2 (24, 30: +2.10 % at 2^22)
// on an H200; selftest prints the true effect it measured.
#include "mut_slow.cuh"

KG_MUTANT_SLOW(mut_slow_m22, 12, 15)
