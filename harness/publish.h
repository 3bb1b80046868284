/* The commands that draw and publish: plot, history add, history plot,
 * report, and the charts `run --plots` and `compare --plots` draw. */
#ifndef KG_PUBLISH_H
#define KG_PUBLISH_H

#include "cli.h"
#include "results.h"
#include "verdict.h"

/* plot RESULTS [-o DIR] [--baseline OLD]: charts 1 and 2 (and 4). */
int kg_publish_plot(const kg_cli *cli);
/* history add RESULTS --file HISTORY: one line appended. */
int kg_publish_history_add(const kg_cli *cli);
/* history plot HISTORY [-o DIR]: chart 3 and the step changes. */
int kg_publish_history_plot(const kg_cli *cli);
/* report RESULTS --html DIR: the files, the charts and index.html. */
int kg_publish_report(const kg_cli *cli);

/* The charts of a run into dir (made if missing): bandwidth and ladder when
 * with_run, the comparison when cmp is not NULL. Prints what it drew, or
 * why not (a run that timed nothing has no chart: not an error). Returns
 * KG_EXIT_OK, KG_EXIT_USAGE (cannot write there) or KG_EXIT_ENV (no
 * gnuplot, no scripts, gnuplot failed). */
int kg_publish_charts(const char *dir, const kg_run *run, int with_run, const kg_comparison *cmp,
                      const char *base_label);

#endif
