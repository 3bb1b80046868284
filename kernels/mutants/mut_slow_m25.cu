// Planted bug: reduce7_shuffle streaming 0.8 % more bytes (mut_slow.cuh):
// a slowdown of about +0.5% at 2^25, the paired gate's m there. Scaled from
// mut_slow1 (17 per mille: +1.07 % at 2^25) and mut_slow2 (24, 30: +2.10 % at 2^22)
// on an H200; selftest prints the true effect it measured.
#include "mut_slow.cuh"

KG_MUTANT_SLOW(mut_slow_m25, 8, 0)
