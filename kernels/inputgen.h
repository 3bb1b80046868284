/* kgate's input generator, one copy for the CPU (harness/lib/model/pattern.c) and
 * the GPU (kernels/inputgen.cu): plain C11 static inline functions that nvcc
 * also compiles as __host__ __device__. Counter-based: element j's value is a
 * hash of (key, j), so any element is made on its own, in any order, by any
 * thread, and the data depend only on (dtype, pattern, seed, n).
 *
 * Bit-identity, CPU against GPU. Every step is integer arithmetic or one IEEE
 * operation rounded to nearest even on both sides:
 *  - hashes are 64-bit integer multiply/xor/shift, wrapping the same way;
 *  - integers below 2^53 convert to double exactly (cvt.rn.f64.u64);
 *  - every product of doubles has a power-of-two factor (2, 2^-53, the
 *    scales), so it is exact, or one correctly rounded multiply where the
 *    result is subnormal (tiny f64: doubles keep subnormals on the GPU);
 *  - sums like 2u - 1 and 0.5 + u are one rounded add. nvcc would contract
 *    2*u - 1 and 0.5 + u*2^-53 into FMAs; with exact products an FMA rounds
 *    the same, but inputgen.cu is built with --fmad=false so that a later
 *    edit with an inexact product cannot differ (gcc under kgate's
 *    -std=c11 does not contract). Explicit __dmul_rn/__dadd_rn would need a
 *    second spelling of every expression for the host;
 *  - double to float is one rounding to nearest (cvt.rn; -ftz=false keeps
 *    float subnormals, which f32, bf16 and f16 tiny inputs pass through);
 *  - the f16 subnormal path scales a float by 2^24 (exact, subnormal input
 *    included) and rounds with lrintf: the FPU's round-to-nearest-even on
 *    the host (the default rounding mode; kgate never changes it), CUDA's
 *    lrintf (cvt.rni) on the device;
 *  - ldexp, floor and ceil are exact, the one divide is correctly rounded,
 *    and they run once per input on the host (kg_gen_init);
 *  - bit casts go through memcpy (defined in C, C++ and device code);
 *  - NaN and Inf are stored as fixed bit patterns, never converted: a GPU
 *    conversion of a NaN returns the canonical NaN, not the host's. */
#ifndef KG_INPUTGEN_H
#define KG_INPUTGEN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kgate/module.h"

#ifdef __CUDACC__
#define KG_HD __host__ __device__
#else
#define KG_HD
#endif

/* The data of every (dtype, pattern, seed, n): a change to any of them is a
 * new version, so cached references keyed by it are never reused. */
#define KG_GEN_VERSION 1

typedef enum kg_pattern {
  KG_PAT_EXACT,   /* small mixed-sign integers: every order is exact, compare bits */
  KG_PAT_WRAP,    /* integers over the full range: the sum wraps, still exact */
  KG_PAT_UNIFORM, /* reals uniform in [-1, 1): error-bounded */
  KG_PAT_CANCEL,  /* large values cancelling in pairs plus small noise */
  KG_PAT_NAN,     /* one NaN at a random place: the sum is NaN */
  KG_PAT_INF,     /* one +Inf at a random place: the sum is +Inf */
  KG_PAT_INF_NAN, /* +Inf and -Inf at random places: the sum is NaN */
  KG_PAT_TINY,    /* uniform reals scaled into the dtype's subnormal range */
  KG_PAT_HUGE,    /* uniform reals scaled near the top of the range, no sum overflows */
  KG_NPATTERNS
} kg_pattern;

/* Everything per input, computed once (kg_gen_init) and passed by value to
 * every element: a GPU thread does no per-input work. */
typedef struct kg_gen {
  int dt, p;
  uint64_t key;
  size_t n;
  double exact_k;      /* exact tier, n within budget: values in [-k, k], k >= 1 */
  uint64_t exact_mod;  /* 2k + 1 */
  size_t exact_run;    /* exact tier past the budget: one +-1 per run of this many (0: within) */
  double scale;        /* tiny and huge: the magnitude bound; cancel: the pairs' */
  size_t at, other;    /* the special elements' places (n: none) */
} kg_gen;

static inline KG_HD uint64_t kg_gen_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static inline KG_HD uint64_t kg_gen_hash(uint64_t key, uint64_t j) { return kg_gen_mix(key + (j + 1) * 0x9e3779b97f4a7c15ull); }

/* Uniform in [0, 1) with 53 random bits: a 53-bit integer converts exactly. */
static inline KG_HD double kg_gen_unit(uint64_t h) { return (double)(h >> 11) * 0x1p-53; }

static inline KG_HD size_t kg_gen_elem_size(int dt) {
  return dt == KG_F16 || dt == KG_BF16 ? 2 : dt == KG_I64 || dt == KG_F64 ? 8 : 4;
}

/* Significand bits of the float accumulator (dtype.c's table says the same;
 * check_gen asserts it). */
static inline KG_HD int kg_gen_acc_mant_bits(int dt) { return dt == KG_F64 ? 53 : 24; }

/* tiny: every value below the dtype's smallest normal (2^-14 for f16, 2^-126
 * for f32/bf16, 2^-1022 for f64), where flush-to-zero or a fixed-point
 * combine that drops low bits shows. huge: values up to a scale that leaves
 * room for 2^33 of them (the huge tier) before the accumulator overflows;
 * f16 inputs top out at 65504, so 2^15 there. */
static inline KG_HD double kg_gen_scale(int p, int dt) {
  int f64 = dt == KG_F64, f16 = dt == KG_F16;
  if (p == KG_PAT_TINY) return ldexp(1.0, f64 ? -1030 : f16 ? -15 : -130);
  if (p == KG_PAT_HUGE) return ldexp(1.0, f64 ? 990 : f16 ? 15 : 94);
  return 1.0;
}

/* Largest magnitude for the cancelling pairs: big enough that the pairs
 * dominate sum|x|, small enough that no partial sum overflows. */
static inline KG_HD double kg_gen_cancel_scale(int dt) {
  return dt == KG_F16 ? 1024.0 : dt == KG_F32 || dt == KG_BF16 ? 0x1p20 : 0x1p40;
}

static inline KG_HD uint64_t kg_gen_key(int dt, int p, uint64_t seed, size_t n) {
  return kg_gen_mix(seed ^ kg_gen_mix(((uint64_t)dt << 56) ^ ((uint64_t)p << 48) ^ (uint64_t)n));
}

/* The exact tier for floats: integers whose sum|x| stays within
 * 2^(mant-1), so every partial sum in any order is an exact integer. Up to
 * that budget the values are in [-k, k], k = budget / n (at most 64, exact
 * even in bf16), never 0; past it the input is cut into runs of
 * m = ceil(n / budget) elements with one +-1 at a random place in each run,
 * so every stretch of the input, tails included, still carries data. */
static inline void kg_gen_init_exact(kg_gen *g) {
  double budget = ldexp(1.0, kg_gen_acc_mant_bits(g->dt) - 1);
  double k = floor(budget / (double)g->n); /* correctly rounded divide, then exact floor */
  if (k > 64) k = 64;
  g->exact_k = k;
  g->exact_mod = (uint64_t)(2 * k + 1);
  g->exact_run = (double)g->n <= budget ? 0 : (size_t)ceil((double)g->n / budget);
}

/* The special elements: one NaN or +Inf at a hashed place, and for inf_minus_inf
 * a -Inf at another. */
static inline void kg_gen_init_specials(kg_gen *g) {
  g->at = g->other = g->n;
  int p = g->p;
  if (g->n == 0 || (p != KG_PAT_NAN && p != KG_PAT_INF && p != KG_PAT_INF_NAN)) return;
  g->at = (size_t)(kg_gen_hash(g->key, g->n + 1) % g->n);
  if (p == KG_PAT_INF_NAN && g->n > 1)
    g->other = (g->at + 1 + (size_t)(kg_gen_hash(g->key, g->n + 2) % (g->n - 1))) % g->n;
}

/* Host only: the per-input constants, so the per-element work is hashing. */
static inline void kg_gen_init(kg_gen *g, int dt, int p, uint64_t seed, size_t n) {
  memset(g, 0, sizeof *g);
  g->dt = dt, g->p = p, g->n = n;
  g->key = kg_gen_key(dt, p, seed, n);
  g->scale = p == KG_PAT_CANCEL ? kg_gen_cancel_scale(dt) : kg_gen_scale(p, dt);
  kg_gen_init_exact(g);
  kg_gen_init_specials(g);
}

static inline KG_HD uint32_t kg_gen_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static inline KG_HD float kg_gen_f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* IEEE binary16, round to nearest even, from the float's bits. */
static inline KG_HD uint16_t kg_gen_f16_from_float(float f) {
  uint32_t x = kg_gen_f32_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) /* Inf or NaN (NaN keeps a quiet payload bit) */
    return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
  if (ax >= 0x477ff000u) /* rounds to beyond 65504: Inf */
    return (uint16_t)(sign | 0x7c00u);
  if (ax < 0x38800000u) { /* result is subnormal or zero: scale to units of 2^-24 (exact) */
    float a = kg_gen_f32_from_bits(ax) * 0x1p24f;
    return (uint16_t)(sign | (uint16_t)lrintf(a)); /* round to nearest even, host and device */
  }
  uint32_t mant = ax & 0x7fffffu;
  uint32_t exp = (ax >> 23) - 127 + 15;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++; /* carry may bump the exponent: correct */
  return (uint16_t)(sign | (uint16_t)h);
}

/* bfloat16, round to nearest even, NaN kept quiet. */
static inline KG_HD uint16_t kg_gen_bf16_from_float(float f) {
  uint32_t x = kg_gen_f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)((x + rounding) >> 16);
}

/* Stores v rounded to dt's float storage at element j. The generator passes
 * only finite values (a NaN would convert to the GPU's canonical NaN). */
static inline KG_HD void kg_gen_put_float(int dt, void *buf, size_t j, double v) {
  switch (dt) {
  case KG_F32: ((float *)buf)[j] = (float)v; break;
  case KG_F64: ((double *)buf)[j] = v; break;
  case KG_F16: ((uint16_t *)buf)[j] = kg_gen_f16_from_float((float)v); break;
  default: ((uint16_t *)buf)[j] = kg_gen_bf16_from_float((float)v); break;
  }
}

/* Stores a special by its bits: kind 0 NaN, 1 +Inf, 2 -Inf. The bits are what
 * the host's conversions of NAN, INFINITY and -INFINITY give, which the
 * shipped references' fingerprints pin (data/kgate-refs.txt). */
static inline KG_HD void kg_gen_put_special(int dt, void *buf, size_t j, int kind) {
  uint64_t neg = kind == 2;
  switch (dt) {
  case KG_F32: ((uint32_t *)buf)[j] = kind ? 0x7f800000u | (uint32_t)neg << 31 : 0x7fc00000u; break;
  case KG_F64: ((uint64_t *)buf)[j] = kind ? 0x7ff0000000000000ull | neg << 63 : 0x7ff8000000000000ull; break;
  case KG_F16: ((uint16_t *)buf)[j] = (uint16_t)(kind ? 0x7c00u | neg << 15 : 0x7e00u); break;
  default: ((uint16_t *)buf)[j] = (uint16_t)(kind ? 0x7f80u | neg << 15 : 0x7fc0u); break;
  }
}

static inline KG_HD double kg_gen_exact_float(const kg_gen *g, uint64_t h, size_t j) {
  double sign = (h >> 63) ? 1.0 : -1.0;
  if (!g->exact_run) {
    double v = (double)(h % g->exact_mod) - g->exact_k;
    return v != 0 ? v : sign;
  }
  size_t m = g->exact_run, run = j / m; /* one 64-bit division: slow on a GPU */
  return j - run * m == kg_gen_hash(g->key ^ 0x5bd1e995u, run) % m ? sign : 0.0;
}

/* Pairs (+b, -b) at places i and n-1-i for i = 0, 4, 8, ... below the middle;
 * everything else is noise in [-1, 1). */
static inline KG_HD double kg_gen_cancel(const kg_gen *g, size_t j) {
  size_t mirror = g->n - 1 - j;
  if (j < mirror && j % 4 == 0) return g->scale * (0.5 + kg_gen_unit(kg_gen_hash(g->key, j)));
  if (mirror < j && mirror % 4 == 0) return -g->scale * (0.5 + kg_gen_unit(kg_gen_hash(g->key, mirror)));
  return 2 * kg_gen_unit(kg_gen_hash(g->key ^ 0x27d4eb2fu, j)) - 1;
}

static inline KG_HD void kg_gen_store_int(const kg_gen *g, uint64_t h, size_t at, void *buf) {
  if (g->p == KG_PAT_WRAP) {
    if (g->dt == KG_I32) ((uint32_t *)buf)[at] = (uint32_t)(h >> 32);
    else ((uint64_t *)buf)[at] = h;
    return;
  }
  int64_t v = (int64_t)(h % 2001) - 1000; /* exact: [-1000, 1000], zeros replaced */
  if (g->dt == KG_I32) ((int32_t *)buf)[at] = (int32_t)(v ? v : 7);
  else ((int64_t *)buf)[at] = v ? v : 7;
}

/* Writes element j (< n) of the input into buf at place at: the whole
 * generator. The host reads single elements so (at 0 of a one-element
 * buffer): the re-check after timing knows what it overwrites (recheck.h). */
static inline KG_HD void kg_gen_store_at(const kg_gen *g, size_t j, void *buf, size_t at) {
  uint64_t h = kg_gen_hash(g->key, j);
  if (g->dt == KG_I32 || g->dt == KG_I64) {
    kg_gen_store_int(g, h, at, buf);
  } else if (j == g->at) {
    kg_gen_put_special(g->dt, buf, at, g->p != KG_PAT_NAN);
  } else if (j == g->other) {
    kg_gen_put_special(g->dt, buf, at, 2);
  } else {
    double v = g->p == KG_PAT_EXACT    ? kg_gen_exact_float(g, h, j)
               : g->p == KG_PAT_CANCEL ? kg_gen_cancel(g, j)
                                       : (2 * kg_gen_unit(h) - 1) * g->scale; /* uniform, tiny, huge, specials' base */
    kg_gen_put_float(g->dt, buf, at, v);
  }
}

/* Writes element j (< n) of the input into buf at its place. */
static inline KG_HD void kg_gen_store(const kg_gen *g, size_t j, void *buf) { kg_gen_store_at(g, j, buf, j); }

/* The fingerprint's term for 8-byte word i (kg_gen_fingerprint): a bijective
 * mix of the word and its place, so the sum over words is order-free. */
static inline KG_HD uint64_t kg_gen_fp_term(uint64_t word, uint64_t i) {
  return kg_gen_mix(word ^ (i * 0xd6e8feb86659fd93ull));
}

/* The fingerprint's term for the length: zero-padding the tail never hides. */
static inline KG_HD uint64_t kg_gen_fp_length(uint64_t bytes) { return kg_gen_mix(bytes ^ 0x243f6a8885a308d3ull); }

#endif
