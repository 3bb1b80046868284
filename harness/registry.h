/* The variant registry as the CUDA-free harness sees it: names and facts,
 * expanded from kernels/variants.def. The worker pairs it with the functions. */
#ifndef KG_REGISTRY_H
#define KG_REGISTRY_H

#include <stddef.h>

#include "kernels.h"
#include "pattern.h"

typedef struct kg_variant_info {
  const char *name;
  const char *seed;
  const char *idea;
  unsigned flags;  /* KG_CLOBBERS, KG_FLOAT_ATOMICS */
  unsigned dtypes; /* KG_DT_BIT mask */
} kg_variant_info;

/* kg_variants[0 .. kg_nvariants) are the real variants, in ladder order;
 * kg_variants[kg_nvariants .. kg_nvariants_all) are the planted bugs of
 * kernels/mutants/mutants.def (seed "mutant"), which only selftest runs. */
extern const kg_variant_info kg_variants[];
extern const size_t kg_nvariants;
extern const size_t kg_nvariants_all;

/* Index of the real variant called name, or -1 (mutants are not found). */
int kg_variant_find(const char *name);
/* Index of the variant or mutant called name, or -1: for the worker protocol. */
int kg_variant_find_any(const char *name);
/* Whether index v is a mutant. */
int kg_variant_is_mutant(int v);

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
  KG_NEXPECT
} kg_expect;

const char *kg_expect_name(kg_expect e); /* "wrong_result", "sanitizer:memcheck", ... */

typedef struct kg_mutant_info {
  const char *name;
  const char *base; /* the real variant it was derived from */
  kg_expect expect;
  const char *planted;
  int variant; /* its index in kg_variants */
} kg_mutant_info;

extern const kg_mutant_info kg_mutants[];
extern const size_t kg_nmutants;
int kg_variant_supports(int v, kg_dtype dt);
/* Whether a case can run: the variant takes the dtype, and the pattern's data
 * survive its arithmetic (float atomics flush subnormals: see registry.c). */
int kg_case_supported(int v, kg_dtype dt, kg_pattern p);
/* Whether the variant's float results may legitimately vary run to run. */
int kg_variant_nondeterministic(int v, kg_dtype dt);

#endif
