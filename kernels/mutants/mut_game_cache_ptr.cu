// Planted bug: an output cache keyed by the input's pointer and size. The
// first call at each (pointer, size) computes the sum and remembers it; later
// calls write the remembered value with one tiny kernel and read nothing
// (FlashInfer's contest kit was beaten this way). Right while the input
// stays the same; kgate changes it between timed samples.
#include "mut_game.cuh"

namespace {
__global__ void mut_game_put(uint32_t *out, uint32_t v) { *out = v; }
}  // namespace

static int kg_game_mut_game_cache_ptr(void *in, size_t n, void *out, void *scratch, cudaStream_t st) {
  static kg_game::calls c;
  static uint32_t remembered = 0;
  if (c.next(in, n) == 1) {
    if (int e = kg_game::partial(KG_I32, in, n, out, scratch, st)) return e;
    KG_TRY(cudaMemcpyAsync(&remembered, out, sizeof remembered, cudaMemcpyDeviceToHost, st));
    KG_TRY(cudaStreamSynchronize(st));
    return 0;
  }
  mut_game_put<<<1, 1, 0, st>>>((uint32_t *)out, remembered);
  return (int)cudaGetLastError();
}

KG_GAME_FACE(mut_game_cache_ptr)
