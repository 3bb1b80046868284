/* kgate bisect's outputs: the terminal lines, the Markdown for the
 * nightly's step summary, and the JSON (bisectjson.h, which reads it back
 * too), all from one kg_bisect_report, so they cannot disagree. */
#ifndef KG_BISECTOUT_H
#define KG_BISECTOUT_H

#include <stdio.h>

#include "bisect.h"
#include "bisectops.h"

typedef struct kg_bisect_report {
  const kg_bisect_result *r;
  char *const *ids;          /* the range's commits (r->n), oldest first */
  const kg_bisect_cell *cells;
  size_t ncells;
  const char *fp_how;        /* how modules were fingerprinted ("sm_90 kernels by cuobjdump") */
  const char *link;          /* a URL prefix for commits (".../commit/"), or NULL */
  int made, cached;          /* builds run, modules from the build cache */
} kg_bisect_report;

/* The outcome in a line, then the culprit, effects, counts and time. */
void kg_bisect_print_term(FILE *f, const kg_bisect_report *b);
void kg_bisect_print_md(FILE *f, const kg_bisect_report *b);

#endif
