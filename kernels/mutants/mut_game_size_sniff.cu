// Planted bug: knows kgate's sizes. At odd sizes (kgate's correctness sizes)
// it always does the full work; at powers of two from 2^20 up (the timed
// sizes) only on the first 3 calls, the check's repeats, and one eighth
// less from then on.
#include "mut_game.cuh"

static int kg_game_mut_game_size_sniff(void *in, size_t n, void *out, void *scratch, cudaStream_t st) {
  static kg_game::calls c;
  long k = c.next(in, n);
  int timed_size = n >= ((size_t)1 << 20) && (n & (n - 1)) == 0;
  size_t m = timed_size && k > 3 ? kg_game::less(n) : n;
  return kg_game::partial(KG_I32, in, m, out, scratch, st);
}

KG_GAME_FACE(mut_game_size_sniff)
