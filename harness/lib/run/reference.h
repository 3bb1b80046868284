/* CPU references and the error bound that decides each verdict. */
#ifndef KG_REFERENCE_H
#define KG_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "kgate/module.h"
#include "pattern.h"

typedef struct kg_ref {
  uint64_t isum;      /* integer dtypes: the sum mod 2^64 (i32 reads the low 32 bits) */
  long double sum;    /* float dtypes: compensated long-double sum */
  long double sum_err; /* what sum leaves out (for merging partial references) */
  long double sum_abs;
  int has_nan, has_pinf, has_ninf;
  /* For a min or max: over every element (integers), over the non-NaN ones
   * (floats, converted exactly to double); nvals counts those elements. */
  int64_t imin, imax;
  double fmin, fmax;
  size_t nvals;
} kg_ref;

/* The reference of n elements of dtype dt. */
void kg_reference(kg_dtype dt, const void *buf, size_t n, kg_ref *ref);
/* Adds the reference of another stretch of the input (parallel references). */
void kg_reference_merge(kg_dtype dt, kg_ref *total, const kg_ref *part);

/* A result read back from the device, as the accumulator type holds it. */
typedef struct kg_value {
  uint64_t bits; /* integer dtypes: the raw bits, sign-extended for i32 */
  double f;      /* float dtypes */
} kg_value;

/* Decodes an accumulator-typed result (4 or 8 bytes). */
kg_value kg_value_from_acc(kg_dtype dt, const void *acc);
/* Writes a value in the report's notation ("-12", "0.1000000015", "nan"). */
void kg_value_format(kg_dtype dt, kg_value v, char *buf, size_t len);
void kg_ref_format(kg_dtype dt, const kg_ref *ref, char *buf, size_t len);

typedef struct kg_judgement {
  int pass;
  double abs_err; /* |got - expected| (0 when both are the same special) */
  double bound;   /* allowed error; 0 for exact comparisons */
  double ratio;   /* abs_err / bound; 0 when both are 0, +inf when only the error isn't */
  const char *why; /* short reason when it fails */
} kg_judgement;

/* Error bound for a float sum of depth h: c * h * u * sum|x|, c = 2 (Higham, ch. 4). */
double kg_error_bound(kg_dtype dt, double depth, long double sum_abs);

/* Verdict for one result: exact patterns and integers compare bits, specials
 * demand NaN / Inf, other float patterns must land within the bound. */
void kg_judge(kg_dtype dt, kg_pattern p, const kg_ref *ref, kg_value got, double depth, kg_judgement *j);

/* What a min or max (op KG_OP_MIN/MAX) must return, with NaN policy nan
 * (KG_NAN_PROPAGATE: NaN when any input is; KG_NAN_IGNORE: the min/max of
 * the others, NaN only when every input is). An empty input gives the
 * identity: the type's largest value for min (+inf for floats), its
 * smallest for max (-inf). */
kg_value kg_ref_minmax(unsigned op, unsigned nan, kg_dtype dt, const kg_ref *ref);

/* kg_judge for any op: a sum as kg_judge; a min or max is exact on every
 * pattern: the bits must match, except that any NaN equals any NaN and -0
 * equals +0 (a min of -0 and +0 may return either: they are equal values,
 * and no pattern tells them apart). The reason names the NaN policy when
 * that is what the variant broke. */
void kg_judge_op(unsigned op, unsigned nan, kg_dtype dt, kg_pattern p, const kg_ref *ref, kg_value got, double depth,
                 kg_judgement *j);
/* kg_ref_format for any op: the expected value. */
void kg_ref_format_op(unsigned op, unsigned nan, kg_dtype dt, const kg_ref *ref, char *buf, size_t len);

#endif
