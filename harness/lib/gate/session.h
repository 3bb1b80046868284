/* One gate run as one call: the plan, the check record (carry), the check
 * with the lint and the machine code read on threads beside it, the paired
 * gate, the comparison with the stored baseline, and the report document
 * (rmodel.h) with its verdict. The sanitizer run (check --sanitize) is a mode
 * of it that ends in the same document. No argv and no report printing: the
 * listener gets the check tables as they are made (a terminal prints them
 * before the long paired rounds), and diagnostics go to the log given. */
#ifndef KG_SESSION_H
#define KG_SESSION_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "gateset.h"
#include "model.h"
#include "results.h"
#include "rmodel.h"
#include "verdict.h"

/* What a session ends in. Where no document was made (doc.run NULL), code
 * says why (an input refused: 2; the environment: 3; a signal before any
 * worker started: 128 + it), said on the log. Else doc is the run's, with its
 * verdict and exit code, and the rest is what its printers read. */
typedef struct kg_session {
  int code;
  kg_rdoc doc;
  kg_run run;
  kg_comparison cmp;
  int have_cmp;
  int measured;        /* some case ran: the reports are written, the run's tables printed */
  int env;             /* the environment stopped the run (the log said why) */
  int pair_env;        /* the paired rounds could not run */
  int interrupted;     /* the signal that stopped the run (the document is marked incomplete), or 0 */
  char baseline[PATH_MAX]; /* the baseline compared with, as the reports name it */
  char why[512];           /* what stopped the run (the document's environment), or "" */
  char **san;          /* check --sanitize: the summary's lines, variant x tool ("  NAME  TOOL  clean") */
  size_t nsan;
} kg_session;

/* Runs check or run as go says; listener may be NULL. 0 with s->doc made,
 * else -1 with s->code. kg_session_free releases either way. SIGINT and
 * SIGTERM are trapped (recorded, not fatal) from the call on: the caller
 * writes the reports and then calls kg_super_trap(0). */
int kg_gate_session(const kg_gate_opts *go, const kg_gate_listener *listener, kg_session *s);
void kg_session_free(kg_session *s);

/* --plan: the cases of go (the selection, the size policy, --shard) in run,
 * with no GPU (a --kernels module's describe needs none). 0, or an exit code
 * after saying why on log. */
int kg_gate_plan(const kg_gate_opts *go, kg_run *run, FILE *log);

#endif
