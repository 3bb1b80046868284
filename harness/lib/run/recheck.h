/* The re-check after timing: outputs checked again with the input changed
 * between samples, so that a module that caches its result (by the input's
 * pointer, or by a hash of a sample of it), does less work after some calls,
 * sniffs kgate's sizes or watches the clock fails the case instead of
 * looking fast (docs/timing-and-verdicts.md, "What kgate does not let a
 * module do").
 *
 * The schedule, per sample i of a timed block: sample 0 reads the input as
 * the check left it; before an odd sample one element, at a place drawn from
 * a secret key, is overwritten with a value that moves the result; before the
 * next (even) sample it is given its old value back. So every sample's
 * expected result differs from the one before it, and a stale result fails.
 * The old value comes from the input's generator (inputgen.h), never from the
 * device; the expected result is the reference updated exactly on the CPU:
 *   integer sums: any new value, the sum mod 2^64 moved by new - old;
 *   float sums: +-M with M a power of two large enough that the old and the
 *     new expected sums lie farther apart than both error bounds together
 *     (kg_error_bound: the bound grows with M too), so no result can pass for
 *     both; where the dtype cannot hold such an M (the bound is too wide) the
 *     re-check is "weak": only results outside the bound fail;
 *   exact-tier floats: old -> -old (a 0 -> +-1), so sums stay exact;
 *   min and max: a power of two beyond the input's min or max (the type's
 *     limit for integers), which is then the expected result exactly. */
#ifndef KG_RECHECK_H
#define KG_RECHECK_H

#include <stddef.h>
#include <stdint.h>

#include "inputgen.h"
#include "model.h"
#include "reference.h"

typedef struct kg_recheck {
  kg_dtype dt;
  kg_pattern pattern;
  unsigned op, nan;
  size_t n;
  double depth;      /* the judged variant's h(n): its results' bound */
  double plan_depth; /* the edits': depth, or the larger of a paired case's two (kg_recheck_pair) */
  kg_ref ref;        /* the unchanged input's */
  kg_gen gen;   /* the input's generator: the values the edits overwrite */
  uint64_t key; /* where the edits go: secret to the module (the worker draws it) */
  kg_recheck_kind kind;
  char why[80]; /* KG_RECHECK_NONE and _WEAK: why */
} kg_recheck;

/* Plans the re-check of a case whose input is (dt, pattern, seed, n) with
 * reference ref, judged at depth (the variant's h(n)) for op and nan. kind
 * NONE (and why) when no edit can be judged: an empty input, an input with
 * a NaN or an infinity, or no value beyond the min or max fits the type. */
void kg_recheck_init(kg_recheck *r, kg_dtype dt, kg_pattern pattern, unsigned op, unsigned nan, uint64_t seed,
                     size_t n, double depth, const kg_ref *ref, uint64_t key);

/* A paired case's two sides read one input copy, head and base in turn,
 * and share one schedule of edits (an edit is given back before the next
 * sample, whichever side takes it). head is planned (kg_recheck_init) at
 * the head's depth; this plans its edits at the larger of that and
 * base_depth, so that every edit moves the expected result beyond both
 * sides' bounds (a kind that no longer fits becomes weak), and makes base
 * the same schedule judged at base_depth: kg_recheck_edit and
 * kg_recheck_ref then agree on both. */
void kg_recheck_pair(kg_recheck *head, kg_recheck *base, double base_depth);

/* The write before sample i (i >= 1): 1 with the element's place and its
 * new bytes (the element's size of them, at most 8), 0 for none. */
int kg_recheck_edit(const kg_recheck *r, size_t i, size_t *place, unsigned char value[8]);

/* After done samples: 1 with the write that gives the input back, 0 when it
 * is already as it was. */
int kg_recheck_restore(const kg_recheck *r, size_t done, size_t *place, unsigned char value[8]);

/* The reference of the input that sample i reads. */
void kg_recheck_ref(const kg_recheck *r, size_t i, kg_ref *out);

/* Judges sample i's result (acc: the accumulator's bytes read back): 1 when
 * it passes; else 0 with "sample 7 of 40: got 12, expected 15 (...)" in msg. */
int kg_recheck_judge(const kg_recheck *r, size_t i, size_t count, const void *acc, char *msg, size_t len);

#endif
