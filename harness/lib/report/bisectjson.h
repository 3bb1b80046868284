/* kgate bisect's result as a file (docs/schema/bisect.schema.json): written
 * by `kgate bisect --json`, and read back by the page (`kgate report
 * --bisect`), which takes it as data from elsewhere (a GPU runner's
 * artifact): every field is checked, every object closed, and values that
 * cannot be true (an exit code that is not the outcome's, a culprit outside
 * the range) are refused. One codec: the writer and the reader live here. */
#ifndef KG_BISECTJSON_H
#define KG_BISECTJSON_H

#include <stddef.h>

#include "bisectout.h"
#include "detect.h"
#include "history.h"

#define KG_BISECT_SCHEMA 1

/* Writes the JSON of b to path ("-": stdout). 0, or -1 with err. */
int kg_bisect_write_json(const char *path, const kg_bisect_report *b, char *err, size_t errlen);

/* An effect as the file gives it: percent, NAN where it holds null. */
typedef struct kg_bisect_doc_effect {
  int has; /* the file holds it */
  double pct, lo, hi;
  int runs, cells;
} kg_bisect_doc_effect;

/* What the reports need of a bisect's file. */
typedef struct kg_bisect_doc {
  kg_bisect_outcome outcome;
  char why[512];     /* the bisect's own line (data: UTF-8, no control character) */
  char changed[512]; /* outside: what the toolchain record says changed ("" none) */
  double estimate_pct; /* NAN: null */
  kg_bisect_cell *cells; /* dtype KG_NDTYPES, n 0: any (a bisect of --good/--bad without them) */
  size_t ncells;
  char (*commits)[41]; /* the range, oldest first: the last good commit .. the last bad one */
  size_t ncommits;
  long culprit, parent;         /* found: indices into commits (parent < culprit); else -1 */
  long cand_first, cand_last;   /* the commits the step may be at, a run of the range; -1: none */
  kg_bisect_doc_effect reproduce, verify;
} kg_bisect_doc;

/* Reads path (at most KG_JSON_MAX bytes). 0, or -1 with one line in err:
 * "FILE: where: what" (where is the object: "commits[3]", "verify", ...).
 * kg_bisect_doc_free either way. */
int kg_bisect_read(const char *path, kg_bisect_doc *d, char *err, size_t errlen);
void kg_bisect_doc_free(kg_bisect_doc *d);

/* Whether d is the bisect of finding f of h: f is a regression with a
 * range, d's range runs from the commit of f's last good night to that of
 * its first bad night (kg_hist_commit: 7-40 hex, a prefix of d's commits),
 * and every cell of d is one of f's cells. A bisect of another finding, of
 * another range or of cells the finding does not have is not this one's. */
int kg_bisect_doc_of(const kg_bisect_doc *d, const kg_history *h, const kg_finding *f);

/* Whether d's outcome is an answer about its range (found, outside the
 * module, not reproduced, undecided), not a bisect that could not run
 * (bad input, the environment). */
int kg_bisect_doc_answers(const kg_bisect_doc *d);

#endif
