#include "pattern.h"

#include <string.h>

#include "dtype.h"

typedef struct {
  const char *name;
  int ints;   /* part of the matrix for integer dtypes */
  int floats; /* ... for float dtypes */
  int exact;  /* results compared bit for bit */
} pattern_info;

static const pattern_info k_patterns[KG_NPATTERNS] = {
    [KG_PAT_EXACT] = {"exact", 1, 1, 1},     [KG_PAT_WRAP] = {"wrap", 1, 0, 1},
    [KG_PAT_UNIFORM] = {"uniform", 0, 1, 0}, [KG_PAT_CANCEL] = {"cancel", 0, 1, 0},
    [KG_PAT_NAN] = {"nan", 0, 1, 0},         [KG_PAT_INF] = {"inf", 0, 1, 0},
    [KG_PAT_INF_NAN] = {"inf_minus_inf", 0, 1, 0}, [KG_PAT_TINY] = {"tiny", 0, 1, 0},
    [KG_PAT_HUGE] = {"huge", 0, 1, 0},
};

const char *kg_pattern_name(kg_pattern p) { return (unsigned)p < KG_NPATTERNS ? k_patterns[p].name : "?"; }

int kg_pattern_parse(const char *name, kg_pattern *p) {
  for (int i = 0; i < KG_NPATTERNS; i++)
    if (strcmp(name, k_patterns[i].name) == 0) {
      *p = (kg_pattern)i;
      return 0;
    }
  return -1;
}

int kg_pattern_applies(kg_pattern p, kg_dtype dt) {
  if ((unsigned)p >= KG_NPATTERNS) return 0;
  return kg_dtype_get(dt)->is_float ? k_patterns[p].floats : k_patterns[p].ints;
}

int kg_pattern_is_exact(kg_pattern p, kg_dtype dt) { return kg_pattern_applies(p, dt) && k_patterns[p].exact; }

/* The generator is kernels/inputgen.h, shared with the GPU's kg_dev_fill. */
double kg_pattern_scale(kg_pattern p, kg_dtype dt) { return kg_gen_scale(p, dt); }

void kg_pattern_fill_range(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n, void *buf, size_t lo, size_t hi) {
  kg_gen g;
  kg_gen_init(&g, dt, p, seed, n);
  for (size_t j = lo; j < hi; j++) kg_gen_store(&g, j, buf);
}

void kg_pattern_fill(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n, void *buf) {
  kg_pattern_fill_range(dt, p, seed, n, buf, 0, n);
}

uint64_t kg_gen_fingerprint(const void *buf, size_t bytes) {
  const unsigned char *b = buf;
  uint64_t s = kg_gen_fp_length(bytes), w;
  size_t words = bytes / 8, i;
  for (i = 0; i < words; i++) {
    memcpy(&w, b + 8 * i, 8);
    s += kg_gen_fp_term(w, i);
  }
  if (bytes % 8) { /* the tail, zero-padded */
    w = 0;
    memcpy(&w, b + 8 * i, bytes % 8);
    s += kg_gen_fp_term(w, i);
  }
  return s;
}
