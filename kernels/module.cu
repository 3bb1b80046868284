// The module face of kgate's own kernels (kgate/module.h), built the way a
// team builds its own: kgate/registry.h over a registry file (KGATE_REGISTRY:
// module.def, kgate's variants, for libkgate_kernels.so; selftest.def, the
// planted bugs, for libkgate_selftest.so) as one table that kgate's worker
// loads with dlopen. Only the entry points are exported; the variants' own
// symbols stay inside the library, so two modules built from different
// commits load side by side.
#include "kernels.h"

namespace {

typedef int (*run_fn)(kg_dtype, void *, size_t, void *, void *, void *);
typedef size_t (*scratch_fn)(kg_dtype, size_t);

// The ABI passes the dtype as an int; kgate's variants take the enum.
template <run_fn F> int run(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return F((kg_dtype)dt, in, n, out, scratch, stream);
}
template <scratch_fn F> size_t scratch(int dt, size_t n) { return F((kg_dtype)dt, n); }

}  // namespace

#ifndef KG_MODULE_VERSION
#define KG_MODULE_VERSION "unknown"
#endif

// kernels.h declares the functions with their kg_dtype signatures.
#define KGATE_REGISTRY_NO_PROTOTYPES
#define KGATE_RUN_FN(name) run<kg_run_##name>
#define KGATE_SCRATCH_FN(name) scratch<kg_scratch_##name>
#ifndef KGATE_REGISTRY
#define KGATE_REGISTRY "module.def"
#define KGATE_MODULE_NAME "kgate"
#endif
#define KGATE_MODULE_VERSION KG_MODULE_VERSION
#include "kgate/registry.h"
