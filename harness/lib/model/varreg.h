/* The variant registry as the CUDA-free harness sees it: names and facts.
 *
 * It is the union of kgate's own table (expanded from kernels/variants.def),
 * the variants of the kernel modules loaded with --kernels (as the worker
 * describes them, modload.h), and names read from results files that no
 * loaded module defines (their facts come from the file, or are unknown).
 * Cases and results refer to a variant by its index here; the worker builds
 * the same union from the same modules, and the wire protocol names variants,
 * so indices never cross a process. */
#ifndef KG_VARREG_H
#define KG_VARREG_H

#include <stddef.h>

#include "kernels.h"
#include "kgate/module.h"
#include "pattern.h"

/* An op the registry does not know: a variant read from a file that does
 * not record it. Never a module's value (those are KG_OP_SUM/MIN/MAX). */
#define KG_OP_UNKNOWN 0xffu

typedef struct kg_variant_info {
  const char *name;
  const char *seed;
  const char *idea;
  unsigned flags;  /* KG_CLOBBERS, KG_FLOAT_ATOMICS */
  unsigned dtypes; /* KG_DT_BIT mask */
  unsigned op;     /* KG_OP_SUM, KG_OP_MIN, KG_OP_MAX (kgate/module.h), or KG_OP_UNKNOWN */
  unsigned nan;    /* KG_NAN_PROPAGATE or KG_NAN_IGNORE: a float min/max's NaN policy */
  int module; /* 0: kgate's own; k >= 1: the k-th --kernels module (kg_registry_module_path); -1: a name from a file */
  int known;       /* 0: a name from a file that records no facts: flags, dtypes and op are unknown */
} kg_variant_info;

/* kg_variants[0 .. kg_nvariants) are the real variants: kgate's own in ladder
 * order, then the modules' and the names read from files, in the order they
 * were added; kg_variants[kg_nvariants .. kg_nvariants_all) are the planted
 * bugs of kernels/mutants/mutants.def (seed "mutant"), which only selftest
 * runs. Adding a variant moves the mutants up by one (kg_mutants[].variant
 * follows): add before planning. */
extern const kg_variant_info *const kg_variants;
extern size_t kg_nvariants;
extern size_t kg_nvariants_all;
/* kgate's own variants: kg_variants[0 .. kg_nvariants_own). */
extern const size_t kg_nvariants_own;

/* The most variants the registry holds (own, modules' and files' together). */
#define KG_REGISTRY_MAX 4096

/* Index of the real variant called name, or -1 (mutants are not found). */
int kg_variant_find(const char *name);
/* Index of the variant or mutant called name, or -1: for the worker protocol. */
int kg_variant_find_any(const char *name);
/* Whether index v is a mutant. */
int kg_variant_is_mutant(int v);

/* Whether a variant name is well formed: [a-z0-9_], 1..63 characters. */
int kg_variant_name_ok(const char *name);

/* Registers a module loaded with --kernels by its path; returns its module
 * number (1, 2, ...), or -1 when there are too many. */
int kg_registry_add_module(const char *path);
/* The path of module k (0: "kgate" for kgate's own), or "?" */
const char *kg_registry_module_path(int module);

/* Adds a module's variant (v->module from kg_registry_add_module; name, seed
 * and idea are copied). A name already defined is a one-line error naming
 * both modules' paths. Returns its index, or -1 with err. */
int kg_registry_add(const kg_variant_info *v, char *err, size_t errlen);

/* The index of a real variant called name, adding it as a name from a file
 * when the registry lacks it: facts NULL leaves its facts unknown. -1 with
 * err for a malformed name or a full registry. */
int kg_variant_intern(const char *name, const kg_variant_info *facts, char *err, size_t errlen);

/* Back to kgate's own variants and mutants only (tests). */
void kg_registry_reset(void);

/* "sum", "min", "max" (or "unknown"); "propagate", "ignore". */
const char *kg_op_name(unsigned op);
const char *kg_nan_name(unsigned nan);
/* The op of a name, KG_OP_UNKNOWN for "unknown"; -1 for anything else. */
int kg_op_parse(const char *s, unsigned *op);
int kg_nan_parse(const char *s, unsigned *nan);

/* The check a mutant must trip (selftest). */
typedef enum kg_expect {
  KG_EXPECT_WRONG_RESULT,
  KG_EXPECT_INPUT_MODIFIED,
  KG_EXPECT_NONDETERMINISTIC,
  KG_EXPECT_CRASH,     /* a CUDA error ends the case */
  KG_EXPECT_TIMEOUT,   /* the watchdog ends the case */
  KG_EXPECT_MEMCHECK,  /* compute-sanitizer --tool memcheck */
  KG_EXPECT_RACECHECK, /* compute-sanitizer --tool racecheck */
  KG_EXPECT_SYNCCHECK, /* compute-sanitizer --tool synccheck */
  KG_EXPECT_SLOWER,    /* paired against its base variant: SLOWER */
  KG_EXPECT_HUGE,      /* any failure, at n > 2^31 (the huge tier) */
  KG_EXPECT_SAME,      /* no bug: paired against its base variant, SAME (the A/A control) */
  KG_EXPECT_LINT,      /* kgate lint finds a memory-ordering bug in its kernel's machine code */
  KG_EXPECT_NOT_SLOWER, /* a slowdown under the minimum effect (m / 2): paired, anything but SLOWER */
  KG_EXPECT_REFUSED,    /* timed: the device layer refuses a call that games the timer */
  KG_EXPECT_WRONG_AFTER_TIMING, /* timed: right when checked, wrong when checked again after timing */
  KG_NEXPECT
} kg_expect;

const char *kg_expect_name(kg_expect e); /* "wrong_result", "sanitizer:memcheck", ... */

typedef struct kg_mutant_info {
  const char *name;
  const char *base; /* the real variant it was derived from */
  kg_expect expect;
  const char *planted;
  int variant; /* its index in kg_variants (moves when a variant is added) */
} kg_mutant_info;

extern const kg_mutant_info *const kg_mutants;
extern const size_t kg_nmutants;
int kg_variant_supports(int v, kg_dtype dt);
/* Whether a case can run: the variant takes the dtype, and the pattern's data
 * survive its arithmetic (float atomics flush subnormals: see varreg.c). */
int kg_case_supported(int v, kg_dtype dt, kg_pattern p);
/* Whether the variant's float results may legitimately vary run to run
 * (float-atomic sums; a min or max is exact, so never). */
int kg_variant_nondeterministic(int v, kg_dtype dt);

#endif
