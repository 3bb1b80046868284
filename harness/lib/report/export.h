/* Reports for CI systems and people: CSV, JUnit XML, Markdown. Each is
 * written atomically; "-" is stdout; cmp may be NULL (no baseline). */
#ifndef KG_EXPORT_H
#define KG_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "results.h"
#include "verdict.h"

/* One row per case with named columns (gnuplot reads them by name):
 * variant,seed,dtype,n,pattern,status,got,expected,abs_err,bound,err_ratio,nondeterministic,
 * median_us,q1_us,q3_us,min_us,samples,noise,graph_us,gbps,pct_peak,pct_roofline,vs_cub,verdict,change,message,
 * paired_verdict,paired_ratio,paired_lo,paired_hi,paired_min_effect (a timed case's paired cell, when run->pair.on)
 * Absent values are empty fields; message is quoted when it holds a comma, quote or line break. */
int kg_export_csv(const char *path, const kg_run *run, const kg_comparison *cmp, char *err, size_t errlen);
/* A testsuite per variant, a testcase per check (case) and per perf verdict;
 * failures carry the numbers in their message. A paired run adds the
 * testsuite "paired" (SLOWER fails; UNDECIDED, UNKNOWN, MISSING skipped;
 * UNCHANGED passes with its evidence in <system-out>) and
 * a baseline SLOWER is skipped as advisory. */
int kg_export_junit(const char *path, const kg_run *run, const kg_comparison *cmp, char *err, size_t errlen);
/* Summary (GPU, peak, roofline, counts, verdict counts, warning), the paired
 * gate's section when paired (its cells that are not SAME or UNCHANGED, SLOWER first;
 * those two a line each), regressions
 * first, then a Harris-style ladder per dtype at each perf size: variant, time,
 * GB/s, % of peak, step speedup, cumulative speedup, vs CUB. */
int kg_export_markdown(const char *path, const kg_run *run, const kg_comparison *cmp, char *err, size_t errlen);

/* The failed and errored cases of a run, in order, as a page or summary
 * lists them: head is written before the first, row for each of the first
 * max. Returns how many were shown; *more gets how many were not. */
size_t kg_export_failed(FILE *f, const kg_run *run, size_t max, const char *head,
                        void (*row)(FILE *f, const kg_case *c, const kg_result *r), size_t *more);

/* A paired run's verdict counts, " 1 SLOWER, 0 UNKNOWN, ..., 2 SAME", in
 * report order (kg_pverdict_order); UNCHANGED only when a cell is, so a run
 * without one reads as it always did. */
void kg_export_pair_counts(FILE *f, const size_t count[KG_NPVERDICTS]);

/* A paired run's base module, "PATH (NAME VERSION)", each part through put
 * (the format's escaping), as the summary and the page name it. */
void kg_export_base(FILE *f, const kg_pair_meta *m, void (*put)(FILE *f, const char *s));

/* `kgate compare --json`: the counts and the verdict of every cell
 * (docs/schema/compare.schema.json); old and new are the files compared,
 * missing_fail whether missing cells fail. "-" is stdout. 0, or -1 with err. */
int kg_comparison_write(const char *path, const kg_comparison *cmp, const char *old_path, const char *new_path,
                        int missing_fail, char *err, size_t errlen);

/* The output formats, one list: the CLI's --json/--csv/--junit/--markdown,
 * the reports check/run/compare write, and the files of `report --html`
 * all read it. A new format is a writer, a row in kg_formats and a name
 * here (the help prints the row). */
typedef enum kg_format_id { KG_FMT_JSON, KG_FMT_CSV, KG_FMT_JUNIT, KG_FMT_MD, KG_NFORMATS } kg_format_id;
typedef int (*kg_format_writer)(const char *path, const kg_run *run, const kg_comparison *cmp, char *err,
                                size_t errlen);
typedef struct kg_format {
  const char *name;   /* "csv" */
  const char *option; /* "--csv": check and run take it */
  int compare;        /* compare takes the option too (it has no results of its own to write as JSON) */
  const char *file;   /* the file's name in a report folder: "results.csv" */
  const char *about;  /* what the file is, for the report page */
  kg_format_writer write;
} kg_format;
extern const kg_format kg_formats[KG_NFORMATS];

#endif
