/* check --sanitize, the session's sanitizer mode: the whole plan once per
 * tool under compute-sanitizer, each case's worst outcome over the tools in
 * the run, and the summary, one line per variant and tool: clean (and what
 * a module's waivers covered), or the first error. */
#ifndef KG_SANRUN_H
#define KG_SANRUN_H

#include <stddef.h>

#include "model.h"
#include "gateset.h"
#include "supervisor.h"

typedef struct kg_san_outcome {
  kg_device_info dev; /* the device of the last tool that ran */
  char env[512];      /* why the environment stopped a tool, or "" */
  int interrupted;    /* the signal that stopped it, or 0 */
  char **lines;       /* the summary, "  VARIANT  TOOL  CELL" (malloc'ed, each and all) */
  size_t nlines;
} kg_san_outcome;

/* Runs run's cases under each tool of go->sanitize (so: the check's worker
 * and progress), telling the listener after each tool. KG_EXIT_OK with out
 * filled (run->results each case's worst), else the exit code after saying
 * why on log: no compute-sanitizer (3), a module's malformed waivers (2). */
int kg_gate_sanitize(const kg_gate_opts *go, kg_run *run, const kg_super_opts *so, const kg_run_params *rp,
                     const kg_gate_listener *ls, kg_san_outcome *out, FILE *log);
void kg_san_outcome_free(kg_san_outcome *out);

/* One cell of the summary, for a variant's supported cases under one tool:
 * "clean" (all ran, none failed), "FAIL (k of r cases; first: ...)", "not
 * run" (none ran: the worker could not start, or the run stopped), and ",
 * incomplete (r of n run)" after either when only some ran. Returns 0 (out
 * untouched) when the variant has no supported case. */
int kg_gate_san_cell(const kg_case *cases, const kg_result *res, size_t n, int variant, char *out, size_t len);

#endif
