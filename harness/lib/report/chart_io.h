/* What the chart kinds (chart_<name>.c) share: the pair of files a chart
 * is (<name>.dat, <name>.vars), the values written into them, the variant
 * families' styles, and which cases a run timed, in ladder order. */
#ifndef KG_CHART_IO_H
#define KG_CHART_IO_H

#include <stddef.h>
#include <stdio.h>

#include "chart.h"
#include "chart_kinds.h"
#include "fileio.h"

/* "out of memory" in the job's err; returns -1. */
int kg__oom(const kg__job *j);

/* ---- the pair of files -------------------------------------------------- */

typedef struct kg__pair {
  kg_outfile dat, vars;
  kg_chart *chart;
} kg__pair;

/* Opens <dir>/<kind>-<dtype>.dat and .vars and claims a slot in out; the
 * .dat starts with the header fmt (a comment that says what the rows are). */
int kg__pair_open(kg__pair *p, const kg__job *j, const char *dtype, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Commits both files and counts the chart in; -1 with err (neither kept). */
int kg__pair_commit(kg__pair *p, const kg__job *j);
/* Removes both files: the chart is not written. */
void kg__pair_abort(kg__pair *p);

/* ---- values: the .vars (gnuplot assignments) and the .dat ------------------ */

/* key = 'text': a single-quoted gnuplot string (kg_esc_gp), formatted. */
void kg__gp_str(FILE *f, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* <key><k> = 's': one of a list, read by the scripts with value(sprintf('<key>%d', k)). */
void kg__gp_item(FILE *f, const char *key, size_t k, const char *s);
/* key = v, or NaN. */
void kg__gp_num(FILE *f, const char *key, double v);
/* " v", or " ?" (missing, as the scripts declare it) for a NaN or infinity. */
void kg__dat_num(FILE *f, double v);
/* A comment line in a .dat file: one line whatever the text holds. */
void kg__dat_comment(FILE *f, const char *s);

/* A point's tooltip, the last column of its .dat row: a double-quoted data
 * string, its lines apart by the two characters \n. The scripts draw it as
 * a hypertext label; plot.c's SVG pass (svg.h) makes it the point's
 * <title>. Text from files goes in as it is: a character that would need
 * escaping in gnuplot's data string, its SVG or the page (" \ ' < > &, the
 * data file's comment mark # and control characters) is written as '?'; a
 * line break, as a line break of the tooltip. */
void kg__dat_tip(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The tooltip of a run's timed case i (kg__dat_tip): its variant and size,
 * GB/s and % of peak, median and quartiles, and the run's commit. */
void kg__case_tip(FILE *f, const kg_run *run, size_t i);

/* Tick marks, added one by one by the scripts (plots/README.md):
 * <axis>tic_label<k>, <axis>tic_sub<k> (a second line, may be empty),
 * <axis>tic_pos<k>, and n<axis>tics. */
typedef struct kg__tics {
  FILE *f;
  const char *axis; /* "x" or "y" */
  size_t n;
} kg__tics;
void kg__tic_add(kg__tics *t, const char *label, const char *sub, double pos);
void kg__tics_end(const kg__tics *t);

/* ---- variant families: colours and point types ------------------------------ */

enum { KG__NFAMILIES = 7 }; /* chart_io.c's table, the "other" family last */
/* The family of a registry seed ("002"); an unknown seed is the "other" family. */
size_t kg__family_of(const char *seed);
const char *kg__family_label(size_t fam);
/* The family's darkest colour, 0xRRGGBB. */
unsigned kg__family_ink(size_t fam);
/* CUB and kgate's own single-pass kernel: the lines every reader compares with. */
int kg__is_reference(size_t fam);
/* colors = '...' and points = '...' of the variants sel[0..count) (registry
 * indices): by family, darker along the ladder. */
void kg__series_styles(FILE *g, const int *sel, size_t count);
/* GPU, date, commit and L2 mode: the second title line of a run's charts. */
void kg__run_subtitle(const kg_run_meta *m, char *buf, size_t len);

/* ---- which cases, in which order ---------------------------------------------- */

/* Case i was timed, with samples. */
int kg__timed(const kg_run *run, size_t i);
/* The timed case of (variant, dtype, n), or -1. */
long kg__timed_case(const kg_run *run, int v, kg_dtype dt, size_t n);
/* Distinct timed sizes of dt, ascending, malloc'ed (a sweep may time any
 * number: none is dropped) into *ns; returns the count. -1: out of memory. */
long kg__timed_sizes(const kg_run *run, kg_dtype dt, size_t **ns);
/* Ascending; insertion sort: a handful of sizes. */
void kg__sort_sizes(size_t *a, size_t k);
/* Registry position; names the registry does not know come after it. */
size_t kg__rank_of(const char *variant);
/* Sorts idx[0..k) (indexes into items, each size bytes, holding a variant
 * name and an n at the given offsets) into ladder order, then n; stable. */
void kg__ladder_sort(size_t *idx, size_t k, const void *items, size_t size, size_t variant_at, size_t n_at);
/* qsort order of variant names (const char *): registry order, unknown names after it by name. */
int kg__ladder_cmp(const void *pa, const void *pb);

#endif
