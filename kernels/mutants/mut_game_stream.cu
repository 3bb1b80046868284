// Planted bug: the work runs on a stream of the module's own, so kgate's
// events around the call time almost nothing (KernelBench's timer "does not
// guard against adversarial cuda streams"). The stream blocks with the
// legacy default stream, and the first calls at each size wait for it, so
// the sum is right when kgate checks it. kgate refuses the launch.
#include "mut_game.cuh"

static int kg_game_mut_game_stream(void *in, size_t n, void *out, void *scratch, cudaStream_t) {
  static cudaStream_t side = nullptr;
  static kg_game::calls c;
  if (!side) KG_TRY(cudaStreamCreate(&side));
  if (int e = kg_game::partial(KG_I32, in, n, out, scratch, side)) return e;
  if (c.next(in, n) <= 4) KG_TRY(cudaStreamSynchronize(side));
  return 0;
}

KG_GAME_FACE(mut_game_stream)
