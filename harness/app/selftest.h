/* kgate selftest: proves the gate on planted bugs. Each mutant of
 * kernels/mutants/mutants.def runs through the check it must trip (under
 * compute-sanitizer for the sanitizer ones, timed against its base variant
 * for the slowdown), next to its base variant as a control that must stay
 * clean. CUDA-free: the runs go through the supervisor. */
#ifndef KG_SELFTEST_H
#define KG_SELFTEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"
#include "model.h"
#include "pairrun.h"
#include "varreg.h"

/* A planted bug's outcome (KG_STO_: apart from a case's status, model.h's KG_ST_). */
typedef enum kg_st_outcome {
  KG_STO_CAUGHT,  /* the expected check tripped, the base stayed clean */
  KG_STO_MISSED,  /* the expected check did not trip: a blind spot */
  KG_STO_UNCLEAR, /* the base variant failed too: proves nothing */
  KG_STO_NOT_RUN, /* environment: compute-sanitizer missing (exit 3) */
  KG_STO_SKIPPED  /* by choice: the huge tier without --huge */
} kg_st_outcome;

typedef struct kg_st_row {
  int mutant; /* index into kg_mutants */
  kg_st_outcome outcome;
  char observed[200]; /* what the checks said, e.g. "wrong_result (got 12, expected 15)" */
} kg_st_row;

typedef struct kg_st_opts {
  char *const *worker_argv; /* kgate worker --device N */
  const char *sanitizer;    /* compute-sanitizer's path; NULL when missing */
  const char *only;         /* comma-separated mutant names, NULL for all */
  int huge;                 /* run the mutant that needs n > 2^31 (--huge, or the card has the memory) */
  uint64_t mem_bytes;       /* the card's memory (0: unknown), for the huge row's word when skipped */
  double timeout_s;         /* watchdog per case (the hang mutant waits this long); default 20 */
  int quiet;
  /* the paired rows (slowdowns and the A/A control), as `run --base-kernels` takes them */
  kg_pair_settings paired;
  /* the fence mutants (KG_EXPECT_LINT): kgate lint over this module (or a
   * listing of it); NULL: those rows are not run */
  const char *lint_module;
} kg_st_opts;

/* The cases that exercise mutant m (mutant cases first, then the base's
 * control cases, same dtypes, sizes and patterns). *cases is malloc'ed. */
int kg_st_cases(int m, int huge, kg_case **cases, size_t *ncases);
/* The device memory the huge-tier mutant needs (input, pristine copy, margin). */
uint64_t kg_st_huge_bytes(void);

/* Bit mask over kg_expect of what one result shows; tool is the sanitizer
 * the run used (KG_EXPECT_MEMCHECK..SYNCCHECK), or -1. */
unsigned kg_st_observe(const kg_result *r, int tool);

/* Judges mutant m from its results (mutant cases then base cases, as
 * kg_st_cases laid them out). For KG_EXPECT_SLOWER the first mutant and base
 * cases are compared with kg_verdict_of. Fills row. */
void kg_st_judge(int m, const kg_case *cases, const kg_result *results, size_t ncases, kg_st_row *row);

/* Runs every selected mutant; rows has room for kg_nmutants. Returns the exit
 * code: 0 every run mutant caught, 1 one missed or unclear, 2 an unknown name
 * in only, 3 environment (no GPU, or compute-sanitizer missing for a
 * sanitizer row). err holds the one-line reason for 2 and a failed start. */
int kg_selftest(const kg_st_opts *o, kg_st_row *rows, size_t *nrows, char *err, size_t errlen);

/* The table: mutant | planted bug | expected check | observed | caught?
 * and a summary line. Markdown-compatible. */
void kg_st_print(FILE *f, const kg_st_row *rows, size_t nrows);
/* The exit code kg_selftest returns for these rows. */
int kg_st_exit_code(const kg_st_row *rows, size_t nrows);

#endif
