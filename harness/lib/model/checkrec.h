/* A check's record: what a run checked, group by group, in a form a later
 * run can prove it would run again. A group is one (variant, dtype, n) of at
 * least KG_CARRY_MIN_N elements, with the patterns its cases cover; its
 * digest (SHA-256) covers what the variant queues for one call at that size
 * (the launches as the unchanged proof describes them, pointers into kgate's
 * buffers by offset), the machine code of the kernels it launches, and the
 * variant's declared facts (flags, scratch, depth). The key says what
 * checked it: kgate's own check code (KG_HARNESS_SHA256), the architecture,
 * the seed and the determinism repeats.
 *
 * A baseline keeps the record of the run it was made from ("check_record");
 * a run whose group has the same key and digest, and whose cases that
 * record's passing check covered, carries those cases over instead of
 * running them (docs/timing-and-verdicts.md, "Checks carried over"). */
#ifndef KG_CHECKREC_H
#define KG_CHECKREC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "jread.h"
#include "model.h"

/* Below 2^20 elements a case's check costs about what proving it would. */
#define KG_CARRY_MIN_N ((size_t)1 << 20)

typedef struct kg_crec_group {
  char variant[64];
  kg_dtype dtype;
  size_t n;
  unsigned patterns; /* bit p: the case of pattern p is in the group */
  char digest[65];   /* 64 lowercase hex digits */
  int carried;       /* in a run: its cases were carried over, not run */
} kg_crec_group;

typedef struct kg_crec {
  int on;            /* a record was made (or read) */
  char harness[65];  /* KG_HARNESS_SHA256 of the kgate that checked */
  int arch;          /* 90 for sm_90 */
  uint64_t seed;
  int repeats;
  char from[512];    /* in a run: the baseline its carried groups came from; "" none */
  size_t n, cap;
  kg_crec_group *g;  /* malloc'ed, sorted by (variant, dtype, n) */
} kg_crec;

/* Adds a group (a group of the same variant, dtype and n is replaced). 0, or -1 out of memory. */
int kg_crec_put(kg_crec *r, const kg_crec_group *g);
const kg_crec_group *kg_crec_find(const kg_crec *r, const char *variant, kg_dtype dtype, size_t n);
/* Whether two records were made by the same check: harness, arch, seed, repeats. */
int kg_crec_same_key(const kg_crec *a, const kg_crec *b);
/* Whether group g of a run may be carried over from rec: same key, the same
 * digest, and every pattern of g among those rec's group covered. 1, or 0
 * with why not in buf ("" when rec has no such group). */
int kg_crec_carries(const kg_crec *rec, const kg_crec *run, const kg_crec_group *g, char *buf, size_t len);
/* The JSON form ("check_record"): {"harness", "arch", "seed", "repeats",
 * "groups": [[variant, dtype, n, patterns, digest], ...]}, with "from" and a
 * sixth element, carried, when with_run. NULL out of memory. */
json_t *kg_crec_to_json(const kg_crec *r, int with_run);
/* Reads that form from o (a reader positioned on its parent: where names
 * it). Refuses a digest or harness that is not 64 lowercase hex digits, an
 * unknown dtype, a size below KG_CARRY_MIN_N, patterns outside the known
 * ones or none, and a group twice. */
void kg_crec_read(kg_jrd *r, json_t *o, kg_crec *out);
void kg_crec_free(kg_crec *r);

#endif
