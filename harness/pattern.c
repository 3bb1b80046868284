#include "pattern.h"

#include <math.h>
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
    [KG_PAT_INF_NAN] = {"inf_minus_inf", 0, 1, 0},
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

uint64_t kg_rng_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static double unit(uint64_t *s) { return (double)(kg_rng_next(s) >> 11) * 0x1p-53; }

/* Exact tier for floats: integers in [-k, k] chosen so that sum|x| stays within
 * 2^(mant-1) whatever the order, so every partial sum is an exact integer.
 * When n alone exceeds that budget, most elements become 0 (each nonzero with
 * probability budget/n), and a hard cap keeps the guarantee. k <= 64 keeps
 * the values exact in bf16 (8 significand bits). */
static void fill_exact_float(kg_dtype dt, uint64_t *s, size_t n, void *buf) {
  double budget = ldexp(1.0, kg_dtype_get(dt)->acc_mant_bits - 1);
  double k = floor(budget / (double)(n ? n : 1));
  if (k > 64) k = 64;
  double p_nonzero = k >= 1 ? 1.0 : budget / (double)n;
  if (k < 1) k = 1;
  double used = 0;
  for (size_t i = 0; i < n; i++) {
    double v = 0;
    if (unit(s) < p_nonzero) {
      v = floor(unit(s) * (2 * k + 1)) - k;
      if (v == 0) v = (kg_rng_next(s) & 1) ? 1 : -1; /* zeros hide dropped elements */
    }
    if (used + fabs(v) > 2 * budget) v = 0;
    used += fabs(v);
    kg_dtype_store(dt, buf, i, v);
  }
}

static void fill_int(kg_dtype dt, kg_pattern p, uint64_t *s, size_t n, void *buf) {
  for (size_t i = 0; i < n; i++) {
    uint64_t r = kg_rng_next(s);
    if (p == KG_PAT_EXACT) {
      int64_t v = (int64_t)(r % 2001) - 1000; /* [-1000, 1000] */
      if (v == 0) v = 7;
      if (dt == KG_I32) ((int32_t *)buf)[i] = (int32_t)v;
      else ((int64_t *)buf)[i] = v;
    } else if (dt == KG_I32) {
      ((uint32_t *)buf)[i] = (uint32_t)(r >> 32);
    } else {
      ((uint64_t *)buf)[i] = r;
    }
  }
}

/* Largest finite magnitude for the cancelling pairs: big enough that the pairs
 * dominate sum|x|, small enough that no partial sum overflows. */
static double cancel_scale(kg_dtype dt) {
  switch (dt) {
  case KG_F16: return 1024.0;
  case KG_BF16: return 0x1p20;
  case KG_F32: return 0x1p20;
  default: return 0x1p40;
  }
}

void kg_pattern_fill(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n, void *buf) {
  /* Mix every key into the stream so neighbouring sizes get unrelated data. */
  uint64_t s = seed ^ (0x51ed2701u * (uint64_t)(dt + 1)) ^ ((uint64_t)(p + 1) << 40) ^ (n * 0x2545f4914f6cdd1dull);
  kg_rng_next(&s);
  if (!kg_dtype_get(dt)->is_float) {
    fill_int(dt, p, &s, n, buf);
    return;
  }
  switch (p) {
  case KG_PAT_EXACT: fill_exact_float(dt, &s, n, buf); return;
  case KG_PAT_CANCEL: {
    /* Pairs (+b, -b) at places i and n-1-i, every fourth element small noise. */
    double big = cancel_scale(dt);
    for (size_t i = 0; i < n; i++) kg_dtype_store(dt, buf, i, 2 * unit(&s) - 1);
    for (size_t i = 0; i < n / 2; i += 4) {
      double b = kg_dtype_store(dt, buf, i, big * (0.5 + unit(&s)));
      kg_dtype_store(dt, buf, n - 1 - i, -b);
    }
    return;
  }
  default: /* uniform, and the base of the specials */
    for (size_t i = 0; i < n; i++) kg_dtype_store(dt, buf, i, 2 * unit(&s) - 1);
    break;
  }
  if (n == 0) return;
  size_t at = (size_t)(kg_rng_next(&s) % n);
  if (p == KG_PAT_NAN) kg_dtype_store(dt, buf, at, NAN);
  if (p == KG_PAT_INF || p == KG_PAT_INF_NAN) kg_dtype_store(dt, buf, at, INFINITY);
  if (p == KG_PAT_INF_NAN && n > 1) {
    size_t other = (at + 1 + (size_t)(kg_rng_next(&s) % (n - 1))) % n;
    kg_dtype_store(dt, buf, other, -INFINITY);
  }
}
