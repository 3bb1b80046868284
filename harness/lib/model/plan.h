/* The plan: the cases of a run, variant x dtype x n x pattern. */
#ifndef KG_PLAN_H
#define KG_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "pattern.h"

typedef struct kg_case {
  int variant; /* index into kg_variants */
  kg_dtype dtype;
  size_t n;
  kg_pattern pattern;
  int supported; /* 0: reported "unsupported", never run (a pattern the variant cannot take) */
  int timed;     /* a perf case: timed once it passes */
} kg_case;

typedef struct kg_plan_opts {
  const char *variants; /* comma-separated names, NULL for all (or the modules' only: modules_only) */
  const char *dtypes;   /* comma-separated dtype names, NULL for all */
  const char *patterns; /* comma-separated pattern names, NULL for all that apply */
  const size_t *sizes;  /* NULL for the default edge list */
  size_t nsizes;
  const size_t *perf_sizes; /* sizes to time (added to the sizes); NULL: none */
  size_t nperf;
  int modules_only; /* no --variant: only the --kernels modules' variants, not kgate's own */
} kg_plan_opts;

/* The gate's size policy over what the command line chose: a sanitizer run
 * (sanitize) defaults to short sizes with tails and the exact pattern
 * (sanitizers are slow); a timing run defaults its perf sizes to 2^22 and
 * 2^25; huge (--tier huge) adds 2^31+1 (past 2^31 elements) and 2^32+3
 * (past 4 GiB) to the sizes. *owned is what the caller frees after the plan
 * is built. 0, or -1 when out of memory. */
int kg_plan_policy(kg_plan_opts *o, int sanitize, int timing, int huge, size_t **owned);

/* The pattern a perf case is timed on: random data, not a sparse or special one. */
kg_pattern kg_perf_pattern(kg_dtype dt);

/* Builds the cases ordered dtype, n, pattern, variant: consecutive cases share
 * one input, so a worker generates it and its reference once. A variant is
 * planned only at the dtypes it declares (kg_variant_supports). Unknown names
 * fail with a one-line message. *cases is malloc'ed. */
int kg_plan_build(const kg_plan_opts *o, kg_case **cases, size_t *ncases, char *err, size_t errlen);

/* Splits a comma-separated list and checks each name with lookup (returns the
 * index or -1); sets bit i of *mask for each. what names the kind in errors. */
int kg_plan_select(const char *list, int (*lookup)(const char *), const char *what, uint64_t *mask, char *err,
                   size_t errlen);

/* Input groups: runs of consecutive cases that share (dtype, n, pattern), so
 * one input. group[i] (may be NULL) gets case i's group index, counted from 0
 * in plan order; returns the number of groups. */
size_t kg_plan_groups(const kg_case *cases, size_t ncases, size_t *group);

/* A rough wall time for the cases on one GPU, for --plan. typical_s: 1.5 s
 * of worker start, 0.5 ms per checked case and 0.1 s per timed case (a
 * recorded H200 run: 15.1 s for the 27,798 checked cases of the default
 * matrix, most of it the slow variants at 2^22 and 2^25; inputs are made on
 * the GPU and their references shipped or cached: one not cached costs
 * about 5 ns an element more); cap_s: the same with every timed case
 * sampling for max_seconds (the sampling cap). Paired rounds come on top. */
typedef struct kg_plan_estimate {
  double typical_s, cap_s;
} kg_plan_estimate;
kg_plan_estimate kg_plan_estimate_time(const kg_case *cases, size_t ncases, double max_seconds);

/* Parses "i/N" (1 <= i <= N <= 4096). 0, or -1 when it is malformed. */
int kg_shard_parse(const char *text, unsigned *i, unsigned *n);

/* --shard i/N: keeps, in place and in order, the cases of the input groups
 * whose index g has g % N == i - 1 (whole groups, so a shard's consecutive
 * cases still share inputs). Returns the number of cases kept. */
size_t kg_plan_shard(kg_case *cases, size_t ncases, unsigned i, unsigned n);

#endif
