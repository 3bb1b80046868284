/* kgate/registry.h: turns a registry file into a kernel module's exports,
 * kgate_module_abi(), kgate_module() and kgate_module_toolchain(), and the
 * lint's waivers, kgate_module_lint_waivers (kgate/module.h). Include it in exactly one source file of the module,
 * after naming the registry:
 *
 *   #define KGATE_REGISTRY "my_variants.def"   (required: a file to #include: an
 *                                               absolute path, or a name on the -I path,
 *                                               since it is included from kgate/)
 *   #define KGATE_MODULE_NAME "my_team"        (required: [a-z0-9_], 1..63)
 *   #define KGATE_MODULE_VERSION "1.2.0"       (optional: free text, a commit)
 *   #define KGATE_FLAGS_HASH "3f1c..."         (optional: 8..64 lowercase hex digits, a
 *                                               digest of the build's flags; kgate_add_kernels
 *                                               passes the SHA-256 of its CUDA flags,
 *                                               architectures and build type)
 *   #include <kgate/registry.h>
 *
 * The nvcc version comes from __CUDACC_VER_*__ and the CCCL version from
 * <cuda/std/version> (CUB's <cub/version.cuh> before CCCL): a file compiled
 * by nvcc names its toolchain; one compiled by another compiler says unknown.
 *
 * kgate_add_kernels (the CMake package) writes that file for you. The
 * registry file has one line per variant:
 *
 *   KGATE_VARIANT(name, seed, idea, flags, dtypes, op, nan)
 *     name    [a-z0-9_], 1..63 characters, unique: the key of results and baselines
 *     seed    "string": where it comes from (a team, an article)
 *     idea    "string": one line on what it does
 *     flags   0, KG_CLOBBERS, KG_FLOAT_ATOMICS (or both, with |)
 *     dtypes  a mask: KG_DT_ALL, or KG_DT_BIT(KG_F32) | KG_DT_BIT(KG_F64) ...
 *     op      KG_OP_SUM, KG_OP_MIN or KG_OP_MAX
 *     nan     KG_NAN_PROPAGATE or KG_NAN_IGNORE (float min/max; 0 otherwise)
 *
 * and, for a kernel whose design orders memory without the fences `kgate
 * lint` looks for, a waiver line (docs/lint.md#waivers):
 *
 *   KGATE_LINT_WAIVE("kernel", "reason")
 *     kernel  "string": a kernel of this module by its name in the source,
 *             without namespace, class or template arguments ([A-Za-z_]
 *             [A-Za-z0-9_]*, 1..127 characters); whole names only
 *     reason  "string": why it needs no fence, printable ASCII, 1..199 characters
 *
 * which the module exports as kgate_module_lint_waivers (kgate/module.h);
 * `kgate lint` shows each waived finding as "waived: reason". A report of
 * `kgate check --sanitize` the team has understood is waived by
 *
 *   KGATE_SANITIZER_WAIVE("tool", "kernel", "file:line", "reason")
 *     tool    "memcheck", "racecheck", "synccheck" or "initcheck"
 *     kernel  as above
 *     where   the place the report names: a file's last part and a line ("reduce.h:283")
 *     reason  as above
 *
 * exported as kgate_module_sanitizer_waivers (docs/ci-and-selftest.md).
 *
 * Each variant name's source defines, with C linkage (extern "C" in .cu files):
 *
 *   int kg_run_<name>(int dtype, void *in, size_t n, void *out, void *scratch, void *stream);
 *   size_t kg_scratch_<name>(int dtype, size_t n);
 *   double kg_depth_<name>(size_t n);
 *
 * Everything here is static except the entry points and the waiver table, so modules of two
 * commits load side by side. To build a table from functions of other
 * signatures (kgate's own kernels take a kg_dtype), define
 * KGATE_REGISTRY_NO_PROTOTYPES and KGATE_RUN_FN(name), KGATE_SCRATCH_FN(name),
 * KGATE_DEPTH_FN(name): the function each field points at. */
#ifndef KGATE_REGISTRY_H
#define KGATE_REGISTRY_H

#include <stddef.h>

#include "kgate/module.h"

#ifndef KGATE_REGISTRY
#error "define KGATE_REGISTRY as the registry file (\"variants.def\") before including kgate/registry.h"
#endif
#ifndef KGATE_MODULE_NAME
#error "define KGATE_MODULE_NAME (\"my_team\") before including kgate/registry.h"
#endif
#ifndef KGATE_MODULE_VERSION
#define KGATE_MODULE_VERSION "unknown"
#endif
#ifndef KGATE_RUN_FN
#define KGATE_RUN_FN(name) kg_run_##name
#endif
#ifndef KGATE_SCRATCH_FN
#define KGATE_SCRATCH_FN(name) kg_scratch_##name
#endif
#ifndef KGATE_DEPTH_FN
#define KGATE_DEPTH_FN(name) kg_depth_##name
#endif

#ifdef __cplusplus
#define KGATE__EXTERN_C extern "C"
#else
#define KGATE__EXTERN_C
#endif
/* The entry points stay visible under -fvisibility=hidden. */
#define KGATE__EXPORT KGATE__EXTERN_C __attribute__((visibility("default")))

#ifndef KGATE_REGISTRY_NO_PROTOTYPES
#include "kgate/prototypes.h"
#endif

static const kg_module_variant kgate__variants[] = {
#define KGATE_VARIANT(name, seed, idea, flags, dtypes, op, nan)                                               \
  {#name, seed, idea, flags, dtypes, KGATE_RUN_FN(name), KGATE_SCRATCH_FN(name), KGATE_DEPTH_FN(name), op, nan},
#define KGATE_LINT_WAIVE(kernel, reason)
#define KGATE_SANITIZER_WAIVE(tool, kernel, where, reason)
#include KGATE_REGISTRY
#undef KGATE_VARIANT
#undef KGATE_LINT_WAIVE
#undef KGATE_SANITIZER_WAIVE
};

/* The waivers, as kgate/module.h's kgate_module_lint_waivers: data the lint
 * reads from the file without loading the module. */
KGATE__EXPORT const char kgate_module_lint_waivers[] = KG_MODULE_LINT_WAIVERS_TAG "\0"
#define KGATE_VARIANT(name, seed, idea, flags, dtypes, op, nan)
#define KGATE_LINT_WAIVE(kernel, reason) kernel "\0" reason "\0"
#define KGATE_SANITIZER_WAIVE(tool, kernel, where, reason)
#include KGATE_REGISTRY
#undef KGATE_VARIANT
#undef KGATE_LINT_WAIVE
#undef KGATE_SANITIZER_WAIVE
    ;

/* The sanitizer waivers, as kgate_module_sanitizer_waivers: read the same way. */
KGATE__EXPORT const char kgate_module_sanitizer_waivers[] = KG_MODULE_SANITIZER_WAIVERS_TAG "\0"
#define KGATE_VARIANT(name, seed, idea, flags, dtypes, op, nan)
#define KGATE_LINT_WAIVE(kernel, reason)
#define KGATE_SANITIZER_WAIVE(tool, kernel, where, reason) tool "\0" kernel "\0" where "\0" reason "\0"
#include KGATE_REGISTRY
#undef KGATE_VARIANT
#undef KGATE_LINT_WAIVE
#undef KGATE_SANITIZER_WAIVE
    ;

static const kg_module kgate__module = {KG_MODULE_ABI, sizeof(kg_module_variant), KGATE_MODULE_NAME,
                                        KGATE_MODULE_VERSION, sizeof kgate__variants / sizeof kgate__variants[0],
                                        kgate__variants};

KGATE__EXPORT unsigned kgate_module_abi(void) { return KG_MODULE_ABI; }
KGATE__EXPORT const kg_module *kgate_module(void) { return &kgate__module; }

/* What compiled this file: the nightly records it, so a finding names what changed. */
#ifndef KGATE_FLAGS_HASH
#define KGATE_FLAGS_HASH ""
#endif
#if defined(__CUDACC__) && defined(__has_include)
#if __has_include(<cuda/std/version>)
#include <cuda/std/version>
#elif __has_include(<cub/version.cuh>)
#include <cub/version.cuh>
#endif
#endif
#if defined(CCCL_VERSION)
#define KGATE__CCCL CCCL_VERSION
#elif defined(CUB_VERSION) /* major * 100000 + minor * 100 + subminor, in CCCL's scale */
#define KGATE__CCCL ((CUB_VERSION / 100000) * 1000000 + (CUB_VERSION / 100 % 1000) * 1000 + CUB_VERSION % 100)
#else
#define KGATE__CCCL 0
#endif
#if defined(__CUDACC_VER_MAJOR__) && defined(__NVCC__)
static const kg_module_toolchain kgate__toolchain = {sizeof(kg_module_toolchain), __CUDACC_VER_MAJOR__,
                                                     __CUDACC_VER_MINOR__, __CUDACC_VER_BUILD__, KGATE__CCCL,
                                                     KGATE_FLAGS_HASH};
#else
static const kg_module_toolchain kgate__toolchain = {sizeof(kg_module_toolchain), 0, 0, 0, KGATE__CCCL,
                                                     KGATE_FLAGS_HASH};
#endif
KGATE__EXPORT const kg_module_toolchain *kgate_module_toolchain(void) { return &kgate__toolchain; }

#endif
