// Planted bug: the work depends on the clock: full for the first 2 ms after
// the process's first call (the check), one eighth less afterwards (the
// samples): drift that no call count reveals.
#include "mut_game.cuh"

static int kg_game_mut_game_clock(void *in, size_t n, void *out, void *scratch, cudaStream_t st) {
  size_t m = kg_game::since_first_call() < 0.002 ? n : kg_game::less(n);
  return kg_game::partial(KG_I32, in, m, out, scratch, st);
}

KG_GAME_FACE(mut_game_clock)
