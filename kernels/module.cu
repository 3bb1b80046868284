// The module face of kgate's own kernels (kgate_module.h): the registry of
// variants.def, then the planted bugs of mutants.def (seed "mutant"), as one
// table that kgate's worker loads with dlopen. Only the two entry points are
// exported; the variants' own symbols stay inside the library, so two
// modules built from different commits load side by side.
#include "kernels.h"
#include "kgate_module.h"

namespace {

typedef int (*run_fn)(kg_dtype, void *, size_t, void *, void *, void *);
typedef size_t (*scratch_fn)(kg_dtype, size_t);

// The ABI passes the dtype as an int; the variants take the enum.
template <run_fn F> int run(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return F((kg_dtype)dt, in, n, out, scratch, stream);
}
template <scratch_fn F> size_t scratch(int dt, size_t n) { return F((kg_dtype)dt, n); }

const kg_module_variant k_variants[] = {
#define KG_VARIANT(name, seed, idea, flags, dtypes) \
  {#name, seed, idea, flags, dtypes, run<kg_run_##name>, scratch<kg_scratch_##name>, kg_depth_##name, KG_OP_SUM, 0},
#include "variants.def"
#undef KG_VARIANT
#define KG_MUTANT(name, base, flags, dtypes, expect, planted) \
  {#name, "mutant", planted, flags, dtypes, run<kg_run_##name>, scratch<kg_scratch_##name>, kg_depth_##name, KG_OP_SUM, 0},
#include "mutants/mutants.def"
#undef KG_MUTANT
};

#ifndef KG_MODULE_VERSION
#define KG_MODULE_VERSION "unknown"
#endif

const kg_module k_module = {KG_MODULE_ABI, sizeof(kg_module_variant), "kgate", KG_MODULE_VERSION,
                            sizeof k_variants / sizeof k_variants[0], k_variants};

}  // namespace

extern "C" __attribute__((visibility("default"))) unsigned kgate_module_abi(void) { return KG_MODULE_ABI; }
extern "C" __attribute__((visibility("default"))) const kg_module *kgate_module(void) { return &k_module; }
