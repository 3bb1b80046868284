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

/* In C++, also kgate_dtypes_<name>: the line's dtypes mask, and the table
 * below, for KGATE_DEFINE_VARIANT (kgate/dispatch.cuh) to dispatch over. */
#ifdef __cplusplus
#define KGATE__PROTO extern "C"
#define KGATE__DTYPES(name, dtypes, op, nan)                                                                 \
  constexpr unsigned kgate_dtypes_##name = (dtypes);                                                         \
  static_assert((dtypes) != 0u && ((dtypes) & ~KG_DT_ALL) == 0u, "KGATE_VARIANT(" #name ", ...) in " KGATE_REGISTRY \
                ": dtypes must be KG_DT_ALL or KG_DT_BIT(d) | ... over KG_I32 KG_I64 KG_F32 KG_F64 KG_F16 KG_BF16"); \
  static_assert((op) == KG_OP_SUM || (op) == KG_OP_MIN || (op) == KG_OP_MAX,                                 \
                "KGATE_VARIANT(" #name ", ...) in " KGATE_REGISTRY ": op must be KG_OP_SUM, KG_OP_MIN or KG_OP_MAX"); \
  static_assert((nan) == KG_NAN_PROPAGATE || (nan) == KG_NAN_IGNORE,                                         \
                "KGATE_VARIANT(" #name ", ...) in " KGATE_REGISTRY ": nan must be KG_NAN_PROPAGATE, KG_NAN_IGNORE or 0");
#else
#define KGATE__PROTO
#define KGATE__DTYPES(name, dtypes, op, nan)
#endif
#define KGATE_VARIANT(name, seed, idea, flags, dtypes, op, nan)                                             \
  KGATE__PROTO int kg_run_##name(int dtype, void *in, size_t n, void *out, void *scratch, void *stream); \
  KGATE__PROTO size_t kg_scratch_##name(int dtype, size_t n);                                           \
  KGATE__PROTO double kg_depth_##name(size_t n);                                                        \
  KGATE__DTYPES(name, dtypes, op, nan)
#define KGATE_LINT_WAIVE(kernel, reason) /* a waiver declares no function */
#define KGATE_SANITIZER_WAIVE(tool, kernel, where, reason)
#include KGATE_REGISTRY
#undef KGATE_VARIANT
#undef KGATE__PROTO
#undef KGATE__DTYPES

#ifdef __cplusplus
/* The registry's names and dtypes, for KGATE_DEFINE_VARIANT to look its name
 * up in: a name that no .def line has (a typo on either side) is then a
 * static_assert naming the macro and the .def, not "identifier
 * kgate_dtypes_<name> is undefined". */
struct kgate__entry {
  const char *name;
  unsigned dtypes;
};
constexpr kgate__entry kgate__registry[] = {
#define KGATE_VARIANT(name, seed, idea, flags, dtypes, op, nan) {#name, (dtypes)},
#include KGATE_REGISTRY
#undef KGATE_VARIANT
    {nullptr, 0u}};
constexpr bool kgate__same(const char *a, const char *b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}
/* The index of name in the registry, or -1. */
constexpr int kgate__find(const char *name) {
  for (int i = 0; kgate__registry[i].name; ++i)
    if (kgate__same(kgate__registry[i].name, name)) return i;
  return -1;
}
#endif
#undef KGATE_LINT_WAIVE
#undef KGATE_SANITIZER_WAIVE

#endif
