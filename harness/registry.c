#include "registry.h"

#include <string.h>

#include "dtype.h"

const kg_variant_info kg_variants[] = {
#define KG_VARIANT(name, seed, idea, flags, dtypes) {#name, seed, idea, flags, dtypes},
#include "variants.def"
#undef KG_VARIANT
#define KG_MUTANT(name, base, flags, dtypes, expect, planted) {#name, "mutant", planted, flags, dtypes},
#include "mutants/mutants.def"
#undef KG_MUTANT
};

enum {
  k_nreal = 0
#define KG_VARIANT(name, seed, idea, flags, dtypes) +1
#include "variants.def"
#undef KG_VARIANT
};

const size_t kg_nvariants = k_nreal;
const size_t kg_nvariants_all = sizeof kg_variants / sizeof kg_variants[0];

enum {
#define KG_MUTANT(name, base, flags, dtypes, expect, planted) k_mut_##name,
#include "mutants/mutants.def"
#undef KG_MUTANT
};

const kg_mutant_info kg_mutants[] = {
#define KG_MUTANT(name, base, flags, dtypes, expect, planted) {#name, #base, expect, planted, k_nreal + k_mut_##name},
#include "mutants/mutants.def"
#undef KG_MUTANT
};

const size_t kg_nmutants = sizeof kg_mutants / sizeof kg_mutants[0];

static const char *const k_expect_names[KG_NEXPECT] = {
    [KG_EXPECT_WRONG_RESULT] = "wrong_result",         [KG_EXPECT_INPUT_MODIFIED] = "input_modified",
    [KG_EXPECT_NONDETERMINISTIC] = "nondeterministic", [KG_EXPECT_CRASH] = "crash",
    [KG_EXPECT_TIMEOUT] = "timeout",                   [KG_EXPECT_MEMCHECK] = "sanitizer:memcheck",
    [KG_EXPECT_RACECHECK] = "sanitizer:racecheck",     [KG_EXPECT_SYNCCHECK] = "sanitizer:synccheck",
    [KG_EXPECT_SLOWER] = "slower",                     [KG_EXPECT_HUGE] = "huge",
    [KG_EXPECT_SAME] = "same",
};

const char *kg_expect_name(kg_expect e) { return (unsigned)e < KG_NEXPECT ? k_expect_names[e] : "?"; }

static int find_in(const char *name, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (strcmp(kg_variants[i].name, name) == 0) return (int)i;
  return -1;
}

int kg_variant_find(const char *name) { return find_in(name, 0, kg_nvariants); }

int kg_variant_find_any(const char *name) { return find_in(name, 0, kg_nvariants_all); }

int kg_variant_is_mutant(int v) { return v >= 0 && (size_t)v >= kg_nvariants && (size_t)v < kg_nvariants_all; }

int kg_variant_supports(int v, kg_dtype dt) {
  return v >= 0 && (size_t)v < kg_nvariants_all && (unsigned)dt < KG_NDTYPES &&
         (kg_variants[v].dtypes & KG_DT_BIT(dt));
}

/* atom.add.f32 flushes subnormal operands and results to zero by definition
 * (PTX ISA), so sums of f32/bf16 `tiny` data, which stay below the smallest
 * f32 normal, come out 0 from any float-atomic combine: unsupported, not a
 * failure on every run. f16's tiny values are normal in f32, and f64 atomics
 * keep subnormals, so those cases run. */
int kg_case_supported(int v, kg_dtype dt, kg_pattern p) {
  if (!kg_variant_supports(v, dt)) return 0;
  const kg_dtype_info *d = kg_dtype_get(dt);
  int flushed = d->is_float && d->acc_size == 4 && kg_pattern_scale(p, dt) < 0x1p-126;
  return !(flushed && (kg_variants[v].flags & KG_FLOAT_ATOMICS));
}

int kg_variant_nondeterministic(int v, kg_dtype dt) {
  return (kg_variants[v].flags & KG_FLOAT_ATOMICS) && kg_dtype_get(dt)->is_float;
}
