/* A case's input and its reference, made with every core. */
#ifndef KG_INPUT_H
#define KG_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "pattern.h"
#include "reference.h"

/* Fills buf with n elements of the pattern and computes their reference.
 * Work is cut into fixed chunks whose partial references merge in chunk
 * order, so the result never depends on the number of threads (0 = one per
 * online CPU). */
void kg_input_make(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n, void *buf, kg_ref *ref, int threads);

#endif
