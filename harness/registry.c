#include "registry.h"

#include <string.h>

#include "dtype.h"

const kg_variant_info kg_variants[] = {
#define KG_VARIANT(name, seed, idea, flags, dtypes) {#name, seed, idea, flags, dtypes},
#include "variants.def"
#undef KG_VARIANT
};

const size_t kg_nvariants = sizeof kg_variants / sizeof kg_variants[0];

int kg_variant_find(const char *name) {
  for (size_t i = 0; i < kg_nvariants; i++)
    if (strcmp(kg_variants[i].name, name) == 0) return (int)i;
  return -1;
}

int kg_variant_supports(int v, kg_dtype dt) {
  return v >= 0 && (size_t)v < kg_nvariants && (unsigned)dt < KG_NDTYPES && (kg_variants[v].dtypes & KG_DT_BIT(dt));
}

int kg_variant_nondeterministic(int v, kg_dtype dt) {
  return (kg_variants[v].flags & KG_FLOAT_ATOMICS) && kg_dtype_get(dt)->is_float;
}
