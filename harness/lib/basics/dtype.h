/* Data types: the facts table and host conversions for 16-bit floats. */
#ifndef KG_DTYPE_H
#define KG_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"

typedef struct kg_dtype_info {
  const char *name;
  size_t size;          /* bytes per input element */
  size_t acc_size;      /* bytes of the accumulator and of the result */
  int is_float;
  int acc_mant_bits;    /* significand bits of the float accumulator (0 for ints) */
  double unit_roundoff; /* u of the accumulator: 2^-mant_bits (0 for ints) */
} kg_dtype_info;

const kg_dtype_info *kg_dtype_get(kg_dtype dt);
/* Returns 0 and sets *dt for a known name ("i32", "f16", ...), -1 otherwise. */
int kg_dtype_parse(const char *name, kg_dtype *dt);

/* IEEE binary16 and bfloat16 encodings, round to nearest even. */
uint16_t kg_f16_from_float(float f);
float kg_f16_to_float(uint16_t h);
uint16_t kg_bf16_from_float(float f);
float kg_bf16_to_float(uint16_t b);

/* Element i of a host buffer of dtype dt, as a double (exact for every dtype
 * but i64 beyond 2^53, which callers read with kg_dtype_load_int). */
double kg_dtype_load(kg_dtype dt, const void *buf, size_t i);
/* Elements [0, count) of buf as kg_dtype_load reads them, into out: for
 * loops over many elements (a call per element costs more than the load). */
void kg_dtype_load_many(kg_dtype dt, const void *buf, size_t count, double *out);
int64_t kg_dtype_load_int(kg_dtype dt, const void *buf, size_t i);
/* Stores v rounded to dt's storage format; returns the value actually stored. */
double kg_dtype_store(kg_dtype dt, void *buf, size_t i, double v);

#endif
