/* kgate/module.h, the kernel module ABI: how a shared library of reduction
 * variants presents itself to kgate. Plain C, no CUDA header; installed as
 * <prefix>/include/kgate/module.h. kgate builds its own variants into such a
 * module (libkgate_kernels.so); a paired gate run also loads the merge base's
 * module and times the two side by side; a team builds its own with
 * kgate/registry.h and the CMake function kgate_add_kernels.
 *
 * A module exports two symbols with C linkage:
 *   unsigned kgate_module_abi(void);           returns KG_MODULE_ABI
 *   const kg_module *kgate_module(void);       the registry, valid while loaded
 * kgate calls kgate_module_abi first and reads nothing else from a module
 * whose answer differs from its own KG_MODULE_ABI, so any change to a field
 * below must bump the number. Fields may only be appended to
 * kg_module_variant: variant_size tells kgate which ones a module has, and a
 * record that ends before `op` is a sum (modules built before ops existed
 * keep loading). Names are [a-z0-9_], 1..63 characters, unique.
 *
 * A module may export a third symbol, optional (a module without it loads,
 * and its toolchain reads as unknown), so it needs no new ABI number:
 *   const kg_module_toolchain *kgate_module_toolchain(void);
 * what compiled the module: the nvcc and CCCL versions and a digest of the
 * build's flags, which kgate records with each run so that a nightly's
 * finding names what changed (docs/nightly.md). kgate/registry.h defines it;
 * kgate_add_kernels passes the flags' digest. Fields may only be appended
 * (size says which a module has); kgate refuses a module whose record is
 * shorter than its first version or holds a value no compiler gives.
 *
 * A module may export one more optional symbol, data rather than a function,
 * since `kgate lint` reads it from the file and never loads the module (no
 * CUDA runtime, no code of the module run):
 *   const char kgate_module_lint_waivers[];
 * the module's lint waivers (docs/lint.md#waivers): KG_MODULE_LINT_WAIVERS_TAG
 * and a NUL, then for each waiver the kernel's name and the reason, each
 * ending in a NUL, then one more NUL. A waiver applies to this module's
 * kernels only, and to a kernel whose name (its identifier in the source,
 * without namespace, class or template arguments; a C-linkage kernel's
 * symbol) equals the waiver's: never by part of a name. kgate/registry.h
 * builds it from the registry's KGATE_LINT_WAIVE lines. kgate refuses (exit
 * 2, naming the module and the waiver) a table of another tag, more than
 * KG_MODULE_LINT_WAIVERS_MAX waivers, a name that is not [A-Za-z_][A-Za-z0-9_]*
 * of 1..127 characters or is listed twice, or a reason that is empty, longer
 * than 199 characters or not printable ASCII. */
/* A second optional table, read from the file the same way:
 *   const char kgate_module_sanitizer_waivers[];
 * reports of `kgate check --sanitize` the team has understood
 * (docs/ci-and-selftest.md, "Sanitizer waivers"): KG_MODULE_SANITIZER_WAIVERS_TAG and a NUL, then for
 * each waiver four strings, each ending in a NUL: the tool (memcheck,
 * racecheck, synccheck or initcheck), the kernel's name (as a lint waiver
 * names it), the source location the report names ("reduce.h:283": a file's
 * last part, a colon, a line) and the reason; then one more NUL. A report of
 * that tool, in a kernel of that name of this module, at that place, is
 * shown as waived and fails nothing; any other report fails as before.
 * kgate/registry.h builds it from KGATE_SANITIZER_WAIVE lines. kgate refuses
 * (exit 2) a table of another tag, more than KG_MODULE_SANITIZER_WAIVERS_MAX
 * waivers, an unknown tool, a bad name or place, a waiver listed twice, or a
 * reason that is empty, longer than 199 characters or not printable ASCII. */
#ifndef KGATE_MODULE_H
#define KGATE_MODULE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KG_MODULE_ABI 1u

/* The element types, as the dtype argument of run and scratch and the bits of
 * a variant's dtypes mask. The numbers are part of the ABI. */
typedef enum kg_dtype {
  KG_I32 = 0,
  KG_I64 = 1,
  KG_F32 = 2,
  KG_F64 = 3,
  KG_F16 = 4,  /* IEEE half inputs, float accumulator */
  KG_BF16 = 5, /* bfloat16 inputs, float accumulator */
  KG_NDTYPES
} kg_dtype;

/* Supported dtype masks (a variant's dtypes). */
#define KG_DT_BIT(d) (1u << (d))
#define KG_DT_ALL 0x3fu

/* Variant flags. */
enum {
  KG_CLOBBERS = 1u,      /* reduces in place: the input is destroyed (kgate restores it untimed) */
  KG_FLOAT_ATOMICS = 2u  /* combines float partials with atomics: order, hence bits, vary */
};

/* Returned by run for a dtype the variant does not support. */
#define KG_ERR_UNSUPPORTED (-1)

/* One variant. dtype is a kg_dtype: 0 i32, 1 i64, 2 f32, 3 f64, 4 f16, 5 bf16. */
typedef struct kg_module_variant {
  const char *name; /* stable key: baselines, results and pairing use it */
  const char *seed; /* where it comes from: an article, "cub", "kgate", "mutant", a team's name */
  const char *idea; /* one line */
  unsigned flags;   /* KG_CLOBBERS | KG_FLOAT_ATOMICS */
  unsigned dtypes;  /* bit d set: supports dtype d */
  /* reduce n elements at in to one accumulator value at out, asynchronously on stream
   * (a cudaStream_t); 0 or a cudaError_t code, -1 for an unsupported dtype */
  int (*run)(int dtype, void *in, size_t n, void *out, void *scratch, void *stream);
  size_t (*scratch)(int dtype, size_t n); /* device scratch bytes run needs */
  double (*depth)(size_t n);              /* summation depth h(n) for the error bound */
  /* Appended fields (see variant_size above). */
  unsigned op;  /* KG_OP_SUM, KG_OP_MIN or KG_OP_MAX */
  unsigned nan; /* min/max of floats: KG_NAN_PROPAGATE or KG_NAN_IGNORE; 0 for sums and integers */
} kg_module_variant;

/* The reduction. A min or max writes the same accumulator type as a sum
 * (int32, int64, double for f64, float for f32/f16/bf16), which holds every
 * input value exactly. The result of an empty input (n = 0) is the identity:
 * 0 for a sum, the type's largest value for min (+inf for floats), its
 * smallest for max (-inf for floats). */
enum { KG_OP_SUM = 0u, KG_OP_MIN = 1u, KG_OP_MAX = 2u };
/* NaN policy of a float min/max: PROPAGATE returns NaN when any input is NaN;
 * IGNORE skips NaNs (NaN only when every input is NaN). */
enum { KG_NAN_PROPAGATE = 0u, KG_NAN_IGNORE = 1u };

typedef struct kg_module {
  unsigned abi;          /* KG_MODULE_ABI again, as a second check */
  unsigned variant_size; /* sizeof(kg_module_variant) */
  const char *name;      /* the module's name, e.g. "kgate" */
  const char *version;   /* free text: a commit, a version */
  size_t nvariants;
  const kg_module_variant *variants;
} kg_module;

typedef unsigned (*kg_module_abi_fn)(void);
typedef const kg_module *(*kg_module_fn)(void);

/* What compiled a module (kgate_module_toolchain above). */
typedef struct kg_module_toolchain {
  unsigned size;                                /* sizeof(kg_module_toolchain) */
  unsigned nvcc_major, nvcc_minor, nvcc_build; /* __CUDACC_VER_*__ (13, 0, 88); all 0: not compiled by nvcc */
  unsigned cccl;     /* CCCL_VERSION: major * 1000000 + minor * 1000 + patch (3000001 is 3.0.1); 0: unknown */
  const char *flags; /* lowercase hex, 8..64 digits: a digest of the flags it was built with; NULL or "": unknown */
} kg_module_toolchain;
typedef const kg_module_toolchain *(*kg_module_toolchain_fn)(void);

/* The first string of kgate_module_lint_waivers: its format, version 1. */
#define KG_MODULE_LINT_WAIVERS_TAG "kgate-lint-waivers 1"
#define KG_MODULE_LINT_WAIVERS_MAX 256
/* The first string of kgate_module_sanitizer_waivers: its format, version 1. */
#define KG_MODULE_SANITIZER_WAIVERS_TAG "kgate-sanitizer-waivers 1"
#define KG_MODULE_SANITIZER_WAIVERS_MAX 256

#ifdef __cplusplus
}
#endif

#endif
