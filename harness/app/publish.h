/* The commands that draw and publish: plot, history add, history plot,
 * report, and the charts `run --plots` and `compare --plots` draw. */
#ifndef KG_PUBLISH_H
#define KG_PUBLISH_H

#include "exitcode.h"
#include "results.h"
#include "verdict.h"

/* What the drawing commands take from the command line (cli.c fills it). */
typedef struct kg_publish_opts {
  const char *input;        /* RESULTS.json (plot, history add, report) or HISTORY.jsonl (history plot) */
  const char *output;       /* plot, history plot: -o DIR */
  const char *baseline;     /* --baseline FILE, NULL for none */
  const char *baseline_dir; /* history plot: the band's <dir>/<gpu-slug>.json without --baseline */
  const char *history;      /* report: --history FILE */
  const char *file;         /* history add: --file HISTORY.jsonl */
  const char *html;         /* report: --html DIR */
  double tolerance_pct;     /* 0: per size class */
  const char *control;      /* history add: --control CONTROL.json (the reference paired with itself) */
  const char *paired;       /* history add: --paired PAIRED.json (the night against the reference, when apart) */
  const char *ack;          /* report: --ack FILE, the findings acknowledged in the repository (NULL: none) */
  const char *bisect;       /* report: --bisect FILE, kgate bisect's result for a finding of --history (NULL: none) */
} kg_publish_opts;

/* plot RESULTS [-o DIR] [--baseline OLD]: charts 1 and 2 (and 4). */
int kg_publish_plot(const kg_publish_opts *po);
/* history add RESULTS --file HISTORY: one line appended. */
int kg_publish_history_add(const kg_publish_opts *po);
/* history plot HISTORY [-o DIR]: chart 3 and the step changes. */
int kg_publish_history_plot(const kg_publish_opts *po);
/* report RESULTS --html DIR: the files, the charts and index.html. Exits
 * as the run of RESULTS did (the report model's verdict, rmodel.h), but
 * with --history: a nightly page's verdict is `history check`'s. --bisect
 * FILE (with --history): a bisect's result, shown in the box of the finding
 * whose range and cells it is of; a file kgate's reader refuses is bad input
 * (exit 2, no page); one of no finding, or that is no answer, is left off
 * with a warning. */
int kg_publish_report(const kg_publish_opts *po);

/* The repository's URL for commit links ($KGATE_REPO_URL, or GitHub Actions'
 * server and repository), "" when unknown or not a plain http(s) URL (warned). */
void kg_publish_repo_url(char *repo, size_t len);

/* The charts of a run into dir (made if missing): bandwidth and ladder when
 * with_run, the comparison when cmp is not NULL. Prints what it drew, or
 * why not (a run that timed nothing has no chart: not an error). Returns
 * KG_EXIT_OK, KG_EXIT_USAGE (cannot write there) or KG_EXIT_ENV (no
 * gnuplot, no scripts, gnuplot failed). */
int kg_publish_charts(const char *dir, const kg_run *run, int with_run, const kg_comparison *cmp,
                      const char *base_label);

#endif
