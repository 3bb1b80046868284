// Planted bug: keeps the input resident in L2 across samples. Each call sets
// the persisting-L2 limit to the card's maximum and an access-policy window
// over the input on kgate's stream (llm.c's carve-out: reads then hit L2, and
// a read flush cannot evict persisting lines). kgate refuses the call.
#include "mut_game.cuh"

static int kg_game_mut_game_persist(void *in, size_t n, void *out, void *scratch, cudaStream_t st) {
  int dev = 0, max_persist = 0, max_window = 0;
  KG_TRY(cudaGetDevice(&dev));
  KG_TRY(cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, dev));
  KG_TRY(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, dev));
  if (max_persist > 0 && max_window > 0) {
    KG_TRY(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)max_persist));
    cudaStreamAttrValue v = {};
    size_t bytes = n * sizeof(int32_t);
    v.accessPolicyWindow.base_ptr = in;
    v.accessPolicyWindow.num_bytes = bytes < (size_t)max_window ? bytes : (size_t)max_window;
    v.accessPolicyWindow.hitRatio = 1.0f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    KG_TRY(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &v));
  }
  return kg_game::partial(KG_I32, in, n, out, scratch, st);
}

KG_GAME_FACE(mut_game_persist)
