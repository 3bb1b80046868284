/* The variant registry as the CUDA-free harness sees it: names and facts,
 * expanded from kernels/variants.def. The worker pairs it with the functions. */
#ifndef KG_REGISTRY_H
#define KG_REGISTRY_H

#include <stddef.h>

#include "kernels.h"

typedef struct kg_variant_info {
  const char *name;
  const char *seed;
  const char *idea;
  unsigned flags;  /* KG_CLOBBERS, KG_FLOAT_ATOMICS */
  unsigned dtypes; /* KG_DT_BIT mask */
} kg_variant_info;

extern const kg_variant_info kg_variants[];
extern const size_t kg_nvariants;

/* Index of the variant called name, or -1. */
int kg_variant_find(const char *name);
int kg_variant_supports(int v, kg_dtype dt);
/* Whether the variant's float results may legitimately vary run to run. */
int kg_variant_nondeterministic(int v, kg_dtype dt);

#endif
