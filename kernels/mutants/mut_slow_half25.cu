// Planted bug: reduce7_shuffle streaming 0.4 % more bytes (mut_slow.cuh):
// a slowdown of about +0.25% at 2^25, the paired gate's m/2 there. Scaled from
// mut_slow1 (17 per mille: +1.07 % at 2^25) and mut_slow2 (24, 30: +2.10 % at 2^22)
// on an H200; selftest prints the true effect it measured.
#include "mut_slow.cuh"

KG_MUTANT_SLOW(mut_slow_half25, 4, 0)
