/* Terminal reports: the variant list and the check table. */
#ifndef KG_REPORT_H
#define KG_REPORT_H

#include <stdio.h>

#include "plan.h"
#include "model.h"
#include "results.h"
#include "rmodel.h"
#include "verdict.h"

/* `kgate list`: name, seed, flags, dtypes, idea. */
void kg_report_list(FILE *f);
/* check/run --plan: the cases' counts, variants, dtypes, sizes, patterns and
 * the estimated time (est); verbose: every case, one line each. */
void kg_report_plan(FILE *f, const kg_case *cases, size_t n, kg_plan_estimate est, int verbose);

/* The check table, one row per variant in registry order, then every failed
 * case with its numbers (every case with verbose), then the summary line. */
void kg_report_check(FILE *f, const kg_case *cases, const kg_result *results, size_t n, const kg_device_info *dev,
                     double wall_s, int verbose);

/* The terminal's layouts of the report model (rmodel.h), columns of fixed width. */

/* The timing table of a run: one row per timed case with time, GB/s, % of
 * peak and roofline, ratio to CUB and the verdict against the baseline, if any. */
void kg_report_perf(FILE *f, const kg_rdoc *doc);

/* The paired table of a run (run->pair.on): one row per cell, regressions
 * first, with head and base times, the ratio's change and its interval. */
void kg_report_pairs(FILE *f, const kg_rdoc *doc);
/* The lint's section (kg_rdoc.lint): each finding, each waiver in use
 * ("waived: reason"), each note, a line per module; nothing when none was linted. */
void kg_report_lint(FILE *f, const kg_rdoc *doc);
/* A line for each module the lint could not read (the verdict fails on it,
 * exit 3): its path and why; check, run and compare print it on stderr. */
void kg_report_lint_unread(FILE *f, const kg_rdoc *doc);

/* The nightly's findings (kg_rdoc_findings), a line each and a line per
 * cell; the nights that were not PASS (a line per run of one verdict); then
 * how many nights and cells were watched, how many findings are open and the
 * last night's verdict (kg_rdoc_nights: the page says the same). */
void kg_report_findings(FILE *f, const kg_rdoc *doc);

/* The run's verdict (rmodel.h), the one line every format and the exit
 * code agree with: "verdict: FAIL (exit 1): 1 lint finding (memory ordering); ...". */
void kg_report_verdict(FILE *f, const kg_rdoc *doc);

/* The verdict table of the document's comparison in its order (the SAME
 * rows left out when the compare section says so), its counts, then
 * compare's lines (kg_rm_compare). */
void kg_report_compare(FILE *f, const kg_rdoc *doc);

#endif
