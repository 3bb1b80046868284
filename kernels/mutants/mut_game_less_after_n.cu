// Planted bug: full work for the first 8 calls at each (input, size), the
// check's runs; one eighth of the input skipped from then on, the timed
// samples.
#include "mut_game.cuh"

static int kg_game_mut_game_less_after_n(void *in, size_t n, void *out, void *scratch, cudaStream_t st) {
  static kg_game::calls c;
  size_t m = c.next(in, n) <= 8 ? n : kg_game::less(n);
  return kg_game::partial(KG_I32, in, m, out, scratch, st);
}

KG_GAME_FACE(mut_game_less_after_n)
