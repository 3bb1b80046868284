// A team's module for the paired re-check on a GPU (tests/timing_guard_gpu.sh),
// built twice out of kgate's own game mutants, so that a pull request's
// head and its base are what `kgate run --kernels HEAD --base-kernels BASE`
// pairs. With GAME_HEAD (the head) game_cache_ptr and game_less_after_n are
// kernels/mutants/mut_game_cache_ptr.cu and mut_game_less_after_n.cu: right
// while kgate checks them, cheaper while it times them (a result cached by
// the input's pointer; one eighth of the input skipped after 8 calls).
// Without it (the base) both are reduce7_shuffle itself. Paired, the head's
// cases must fail wrong_after_timing, never come out FASTER; the other way
// round, the cells must say the base was wrong and fail no case. i32 sums,
// as the mutants.
#include "kernels.h"

namespace {

#ifdef GAME_HEAD
int cache_ptr(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return kg_run_mut_game_cache_ptr((kg_dtype)dt, in, n, out, scratch, stream);
}
int less_after_n(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return kg_run_mut_game_less_after_n((kg_dtype)dt, in, n, out, scratch, stream);
}
#else
int cache_ptr(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return kg_run_reduce7_shuffle((kg_dtype)dt, in, n, out, scratch, stream);
}
int less_after_n(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return cache_ptr(dt, in, n, out, scratch, stream);
}
#endif

// The mutants claim reduce7_shuffle's scratch and depth (mut_game.cuh): so do both builds.
size_t scratch(int dt, size_t n) { return kg_scratch_reduce7_shuffle((kg_dtype)dt, n); }
double depth(size_t n) { return kg_depth_reduce7_shuffle(n); }

const kg_module_variant k_variants[] = {
    {"game_cache_ptr", "team", "the sum cached by input pointer (head) or reduce7_shuffle (base)", 0,
     KG_DT_BIT(KG_I32), cache_ptr, scratch, depth, KG_OP_SUM, 0},
    {"game_less_after_n", "team", "an eighth of the input skipped after 8 calls (head) or reduce7_shuffle (base)", 0,
     KG_DT_BIT(KG_I32), less_after_n, scratch, depth, KG_OP_SUM, 0},
};

#ifdef GAME_HEAD
#define GAME_VERSION "head"
#else
#define GAME_VERSION "base"
#endif
const kg_module k_module = {KG_MODULE_ABI, sizeof(kg_module_variant), "gamemod", GAME_VERSION,
                            sizeof k_variants / sizeof k_variants[0], k_variants};

}  // namespace

extern "C" __attribute__((visibility("default"))) unsigned kgate_module_abi(void) { return KG_MODULE_ABI; }
extern "C" __attribute__((visibility("default"))) const kg_module *kgate_module(void) { return &k_module; }
