/* kgate/prototypes.h: declares, with C linkage, the three functions of every
 * variant of a registry file (kgate/registry.h says what they are):
 *
 *   #define KGATE_REGISTRY "my_variants.def"
 *   #include <kgate/prototypes.h>
 *
 * kgate_add_kernels includes it at the top of every CUDA source of the module
 * (nvcc --pre-include), so a definition whose signature differs from the
 * ABI's is a compile error ("conflicting declaration of C function
 * 'int kg_run_<name>(...)'") rather than a module that crashes when kgate
 * calls it. A name that differs between the .def line and the functions is a
 * link error instead (the module links with --no-undefined). */
#ifndef KGATE_PROTOTYPES_H
#define KGATE_PROTOTYPES_H

#include <stddef.h>

#include "kgate/module.h"

#ifndef KGATE_REGISTRY
#error "define KGATE_REGISTRY as the registry file (\"variants.def\") before including kgate/prototypes.h"
#endif

/* In C++, also kgate_dtypes_<name>: the line's dtypes mask, for
 * KGATE_DEFINE_VARIANT (kgate/dispatch.cuh) to dispatch over. */
#ifdef __cplusplus
#define KGATE__PROTO extern "C"
#define KGATE__DTYPES(name, dtypes) constexpr unsigned kgate_dtypes_##name = (dtypes);
#else
#define KGATE__PROTO
#define KGATE__DTYPES(name, dtypes)
#endif
#define KGATE_VARIANT(name, seed, idea, flags, dtypes, op, nan)                                             \
  KGATE__PROTO int kg_run_##name(int dtype, void *in, size_t n, void *out, void *scratch, void *stream); \
  KGATE__PROTO size_t kg_scratch_##name(int dtype, size_t n);                                           \
  KGATE__PROTO double kg_depth_##name(size_t n);                                                        \
  KGATE__DTYPES(name, dtypes)
#define KGATE_LINT_WAIVE(kernel, reason) /* a waiver declares no function */
#include KGATE_REGISTRY
#undef KGATE_VARIANT
#undef KGATE_LINT_WAIVE
#undef KGATE__PROTO
#undef KGATE__DTYPES

#endif
