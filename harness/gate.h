/* The commands built on the library: check/run (the gate), compare, baseline update. */
#ifndef KG_GATE_H
#define KG_GATE_H

#include "cli.h"

/* check, and run (check + timing + baseline comparison + reports). Returns the exit code. */
int kg_gate_run(const kg_cli *cli);
/* compare OLD NEW: verdicts offline; 4 when a case is SLOWER. */
int kg_gate_compare(const kg_cli *cli);
/* selftest: every mutant through the check that must catch it. */
int kg_gate_selftest(const kg_cli *cli);
/* baseline update RESULTS: merge a fully correct run into DIR/<gpu-slug>.json. */
int kg_gate_baseline_update(const kg_cli *cli);

/* merge A B ... -o ALL: one results file from several (merge.h). */
int kg_gate_merge(const kg_cli *cli);

#endif
