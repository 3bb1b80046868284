/* The commands built on the library: check/run (the gate), compare, baseline update. */
#ifndef KG_GATE_H
#define KG_GATE_H

#include "cli.h"
#include "plan.h"
#include "model.h"

/* check, and run (check + timing + baseline comparison + reports). Returns the exit code;
 * after SIGINT/SIGTERM, 128 + the signal, with the results so far written, marked incomplete. */
int kg_gate_run(const kg_cli *cli);
/* list: kgate's own variants and those of the --kernels modules. */
int kg_gate_list(const kg_cli *cli);
/* compare OLD NEW: verdicts offline; 4 when a case is SLOWER. */
int kg_gate_compare(const kg_cli *cli);
/* selftest: every mutant through the check that must catch it. */
int kg_gate_selftest(const kg_cli *cli);
/* baseline update RESULTS: merge a fully correct run into DIR/<gpu-slug>.json. */
int kg_gate_baseline_update(const kg_cli *cli);

/* merge A B ... -o ALL: one results file from several (merge.h). */
int kg_gate_merge(const kg_cli *cli);

/* One cell of the check --sanitize summary, for a variant's supported cases
 * under one tool: "clean" (all ran, none failed), "FAIL (k of r cases; first:
 * ...)", "not run" (none ran: the worker could not start, or the run
 * stopped), and ", incomplete (r of n run)" after either when only some ran.
 * Returns 0 (out untouched) when the variant has no supported case. */
int kg_gate_san_cell(const kg_case *cases, const kg_result *res, size_t n, int variant, char *out, size_t len);

#endif
