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

/* Counter-based generation: element j's value is a hash of (key, j), so any
 * range of the input can be filled on its own (in parallel) and the data
 * depend only on (dtype, pattern, seed, n). */
static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t hash(uint64_t key, uint64_t j) { return mix(key + (j + 1) * 0x9e3779b97f4a7c15ull); }

/* Uniform in [0, 1) with 53 random bits. */
static double unit(uint64_t h) { return (double)(h >> 11) * 0x1p-53; }

/* Exact tier for floats: integers whose sum|x| stays within 2^(mant-1), so
 * every partial sum in any order is an exact integer. Up to that budget the
 * values are in [-k, k], k = budget / n (at most 64, exact even in bf16), never
 * 0; past it the input is cut into runs of m = ceil(n / budget) elements with
 * one +-1 at a random place in each run, so every stretch of the input,
 * tails included, still carries data. */
static double exact_float(kg_dtype dt, uint64_t key, size_t n, size_t j) {
  double budget = ldexp(1.0, kg_dtype_get(dt)->acc_mant_bits - 1);
  uint64_t h = hash(key, j);
  double sign = (h >> 63) ? 1.0 : -1.0;
  if ((double)n <= budget) {
    double k = floor(budget / (double)n);
    if (k > 64) k = 64;
    double v = (double)(h % (uint64_t)(2 * k + 1)) - k;
    return v != 0 ? v : sign;
  }
  size_t m = (size_t)ceil((double)n / budget);
  return j % m == hash(key ^ 0x5bd1e995u, j / m) % m ? sign : 0.0;
}

/* Largest magnitude for the cancelling pairs: big enough that the pairs
 * dominate sum|x|, small enough that no partial sum overflows. */
static double cancel_scale(kg_dtype dt) {
  switch (dt) {
  case KG_F16: return 1024.0;
  case KG_F32:
  case KG_BF16: return 0x1p20;
  default: return 0x1p40;
  }
}

/* Pairs (+b, -b) at places i and n-1-i for i = 0, 4, 8, ... below the middle;
 * everything else is noise in [-1, 1). */
static double cancel(kg_dtype dt, uint64_t key, size_t n, size_t j) {
  size_t mirror = n - 1 - j;
  if (j < mirror && j % 4 == 0) return cancel_scale(dt) * (0.5 + unit(hash(key, j)));
  if (mirror < j && mirror % 4 == 0) return -cancel_scale(dt) * (0.5 + unit(hash(key, mirror)));
  return 2 * unit(hash(key ^ 0x27d4eb2fu, j)) - 1;
}

/* tiny: every value below the dtype's smallest normal (2^-14 for f16, 2^-126
 * for f32/bf16, 2^-1022 for f64), where flush-to-zero or a fixed-point
 * combine that drops low bits shows. huge: values up to a scale that leaves
 * room for 2^33 of them (the huge tier) before the accumulator overflows;
 * f16 inputs top out at 65504, so 2^15 there. */
double kg_pattern_scale(kg_pattern p, kg_dtype dt) {
  int f64 = dt == KG_F64, f16 = dt == KG_F16;
  if (p == KG_PAT_TINY) return ldexp(1.0, f64 ? -1030 : f16 ? -15 : -130);
  if (p == KG_PAT_HUGE) return ldexp(1.0, f64 ? 990 : f16 ? 15 : 94);
  return 1.0;
}

static uint64_t key_of(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n) {
  return mix(seed ^ mix(((uint64_t)dt << 56) ^ ((uint64_t)p << 48) ^ (uint64_t)n));
}

void kg_pattern_fill_range(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n, void *buf, size_t lo, size_t hi) {
  uint64_t key = key_of(dt, p, seed, n);
  for (size_t j = lo; j < hi; j++) {
    uint64_t h = hash(key, j);
    switch (p) {
    case KG_PAT_EXACT:
      if (dt == KG_I32 || dt == KG_I64) {
        int64_t v = (int64_t)(h % 2001) - 1000; /* [-1000, 1000], zeros replaced */
        if (dt == KG_I32) ((int32_t *)buf)[j] = (int32_t)(v ? v : 7);
        else ((int64_t *)buf)[j] = v ? v : 7;
      } else {
        kg_dtype_store(dt, buf, j, exact_float(dt, key, n, j));
      }
      break;
    case KG_PAT_WRAP:
      if (dt == KG_I32) ((uint32_t *)buf)[j] = (uint32_t)(h >> 32);
      else ((uint64_t *)buf)[j] = h;
      break;
    case KG_PAT_CANCEL: kg_dtype_store(dt, buf, j, cancel(dt, key, n, j)); break;
    case KG_PAT_TINY:
    case KG_PAT_HUGE: kg_dtype_store(dt, buf, j, (2 * unit(h) - 1) * kg_pattern_scale(p, dt)); break;
    default: kg_dtype_store(dt, buf, j, 2 * unit(h) - 1); break; /* uniform, and the specials' base */
    }
  }
  if (n == 0 || (p != KG_PAT_NAN && p != KG_PAT_INF && p != KG_PAT_INF_NAN)) return;
  size_t at = (size_t)(hash(key, n + 1) % n);
  if (at >= lo && at < hi) kg_dtype_store(dt, buf, at, p == KG_PAT_NAN ? NAN : INFINITY);
  if (p == KG_PAT_INF_NAN && n > 1) {
    size_t other = (at + 1 + (size_t)(hash(key, n + 2) % (n - 1))) % n;
    if (other >= lo && other < hi) kg_dtype_store(dt, buf, other, -INFINITY);
  }
}

void kg_pattern_fill(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n, void *buf) {
  kg_pattern_fill_range(dt, p, seed, n, buf, 0, n);
}

uint64_t kg_gen_fingerprint(const void *buf, size_t bytes) {
  const unsigned char *b = buf;
  uint64_t s = mix((uint64_t)bytes ^ 0x243f6a8885a308d3ull), w;
  size_t words = bytes / 8, i;
  for (i = 0; i < words; i++) {
    memcpy(&w, b + 8 * i, 8);
    s += mix(w ^ (i * 0xd6e8feb86659fd93ull));
  }
  if (bytes % 8) { /* the tail, zero-padded */
    w = 0;
    memcpy(&w, b + 8 * i, bytes % 8);
    s += mix(w ^ (i * 0xd6e8feb86659fd93ull));
  }
  return s;
}
