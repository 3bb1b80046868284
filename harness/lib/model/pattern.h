/* Seeded input patterns. Never all-ones: each pattern is built so that a
 * dropped, doubled or garbage element changes the reference result. */
#ifndef KG_PATTERN_H
#define KG_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "inputgen.h" /* kg_pattern and the generator itself, shared with the GPU */
#include "kernels.h"

const char *kg_pattern_name(kg_pattern p);
int kg_pattern_parse(const char *name, kg_pattern *p);
/* Whether the pattern is part of the matrix for this dtype. */
int kg_pattern_applies(kg_pattern p, kg_dtype dt);
/* Whether results of this pattern must equal the reference bit for bit. */
int kg_pattern_is_exact(kg_pattern p, kg_dtype dt);

/* The magnitude bound of the tiny and huge patterns for dt (1 for the rest). */
double kg_pattern_scale(kg_pattern p, kg_dtype dt);
/* Fills n elements of dt storage. The data depend only on (dt, p, seed, n)
 * (and KG_GEN_VERSION); kg_dev_fill makes the same bits on the GPU. */
void kg_pattern_fill(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n, void *buf);
/* Fills elements [lo, hi) of the same n-element input, for parallel fills. */
void kg_pattern_fill_range(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n, void *buf, size_t lo, size_t hi);

/* A 64-bit fingerprint of bytes bytes of buf: a sum mod 2^64 of one mixed
 * term per 8-byte word (the tail zero-padded) plus one for the length, so
 * the GPU computes the same value in any order (kg_dev_fingerprint). A
 * changed word always changes it (the mix is a bijection); a swapped, dropped
 * or shifted element changes it with probability about 1 - 2^-64. Words are
 * read in host byte order: the same on little-endian hosts and GPUs. */
uint64_t kg_gen_fingerprint(const void *buf, size_t bytes);

#endif
