/* Chart 4, the comparison with a baseline: time new / baseline per case,
 * a panel per size, a row per variant (plots/compare.gp). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_io.h"
#include "dtype.h"
#include "label.h"
#include "rmodel.h"
#include "severity.h"

/* Rows of this dtype in ladder order, then by n, into idx (room for every row); returns how many. */
static size_t compare_rows(const kg_comparison *cmp, kg_dtype dt, size_t *idx) {
  size_t k = 0;
  for (size_t r = 0; r < cmp->n; r++)
    if (cmp->rows[r].dtype == dt) idx[k++] = r;
  kg__ladder_sort(idx, k, cmp->rows, sizeof *cmp->rows, offsetof(kg_cmp_row, variant), offsetof(kg_cmp_row, n));
  return k;
}

static int cmp_has_ratio(const kg_cmp_row *r) { return r->base_us > 0 && r->now_us > 0; }

/* Half-width of the x range around 1: the largest deviation or tolerance
 * with room for the label beside the bar, capped at 1 so the axis never
 * goes below 0 (longer bars are clipped and keep their true value in the
 * label). */
static double compare_dev(const kg_comparison *cmp, const size_t *idx, size_t k) {
  double dev = 0.05;
  for (size_t j = 0; j < k; j++) {
    const kg_cmp_row *r = &cmp->rows[idx[j]];
    dev = fmax(dev, r->tol * 1.4);
    if (cmp_has_ratio(r)) dev = fmax(dev, fabs(r->now_us / r->base_us - 1) * 1.8);
  }
  return fmin(dev, 1.0);
}

/* A verdict's colour: its level's (SLOWER, FASTER: rmodel.h), greys for the rest. */
static unsigned verdict_rgb(kg_verdict v) {
  kg_severity s = kg_rm_verdict_severity(v);
  if (s < KG_NSEVERITIES) return kg_severity_get(s)->ink;
  return v == KG_V_SAME ? 0x9e9e9e : 0x7f7f7f;
}

/* One case's line of the comparison's .dat: its bar at row y. Only what a
 * reader looks for is labelled, beside its bar's end (side 1 right of it,
 * -1 left of it): the change of a SLOWER or FASTER case, and the verdict of
 * a case with no ratio (side 0, at 1). A SAME bar says its change itself:
 * at ten sizes, a label on every bar is a smear. */
static void compare_row(FILE *f, const kg_cmp_row *r, double y, double dev, const char *commit) {
  int have = cmp_has_ratio(r);
  double ratio = have ? r->now_us / r->base_us : NAN, shown = have ? fmin(fmax(ratio, 1 - dev), 1 + dev) : 1;
  char label[64] = "";
  int side = 0;
  if (!have) snprintf(label, sizeof label, "%s", kg_verdict_name(r->verdict));
  else if (r->verdict == KG_V_SLOWER || r->verdict == KG_V_FASTER)
    snprintf(label, sizeof label, "%s %+.1f %%", kg_verdict_name(r->verdict), (ratio - 1) * 100);
  if (have) side = ratio >= 1 ? 1 : -1;
  fprintf(f, "%.4f", y);
  kg__dat_num(f, ratio);
  kg__dat_num(f, have ? fmin(1, shown) : NAN);
  kg__dat_num(f, have ? fmax(1, shown) : NAN);
  fprintf(f, " %.4f %.4f", y - 0.36, y + 0.36);
  fprintf(f, " %.4f %.4f 0x%06x", 1 - r->tol, 1 + r->tol, verdict_rgb(r->verdict));
  /* Every row has a label, empty or not: a labels plot is never without
   * points (gnuplot 5.4 crashes on one with none). */
  kg__dat_num(f, have ? shown : 1);
  fprintf(f, " %d %s \"%s\"", side, kg_verdict_name(r->verdict), label);
  char n[32];
  kg_size_label(r->n, n, sizeof n);
  kg__dat_tip(f, "%s, n = %s: %s\nnew / baseline %.4f (%+.2f %%), tolerance \u00b1%.2f %%\nmedian %.4g \u00b5s, "
              "baseline %.4g \u00b5s\ncommit %s", r->variant, n, kg_verdict_name(r->verdict), ratio, (ratio - 1) * 100,
              r->tol * 100, r->now_us, r->base_us, commit);
  fputc('\n', f);
}

static void verdict_colors(FILE *g) {
  for (int v = 0; v < KG_NVERDICTS; v++) {
    char key[24];
    snprintf(key, sizeof key, "color_%s", kg_verdict_name((kg_verdict)v));
    kg__gp_str(g, key, "#%06x", verdict_rgb((kg_verdict)v));
  }
}

/* A comparison of one dtype, as small multiples: a panel per size that has
 * a case timed on both sides (the largest KG__COMPARE_PANELS of them), a row
 * per variant in every panel, one bar a row. */
typedef struct kg__cmpchart {
  const kg_comparison *cmp;
  const size_t *idx; /* the dtype's rows, ladder order then n */
  size_t k;
  size_t *sizes, ns;  /* the panels' sizes, ascending */
  size_t *left, nleft; /* sizes not drawn: no ratio, or beyond the panels */
  const char **names; /* the variants with a row in a panel, ladder order */
  size_t nnames;
  const char *commit; /* this run's, for the tooltips */
} kg__cmpchart;

enum { KG__COMPARE_PANELS = 12 }; /* 3 rows of 4 at 1500 px: a smaller panel is no longer read */

static int in_sizes(const size_t *v, size_t k, size_t n) {
  for (size_t i = 0; i < k; i++)
    if (v[i] == n) return 1;
  return 0;
}

/* Splits the dtype's sizes into panels and those left out; lists the variants. */
static void compare_layout(kg__cmpchart *c) {
  size_t nall = 0, *all = c->left; /* every size with a ratio first, then trimmed */
  for (size_t j = 0; j < c->k; j++) {
    const kg_cmp_row *r = &c->cmp->rows[c->idx[j]];
    if (cmp_has_ratio(r) && !in_sizes(all, nall, r->n)) all[nall++] = r->n;
  }
  kg__sort_sizes(all, nall);
  size_t drop = nall > KG__COMPARE_PANELS ? nall - KG__COMPARE_PANELS : 0;
  c->ns = nall - drop;
  memcpy(c->sizes, all + drop, c->ns * sizeof *c->sizes);
  c->nleft = 0;
  for (size_t j = 0; j < c->k; j++) {
    size_t n = c->cmp->rows[c->idx[j]].n;
    if (!in_sizes(c->sizes, c->ns, n) && !in_sizes(c->left, c->nleft, n)) c->left[c->nleft++] = n;
  }
  kg__sort_sizes(c->left, c->nleft);
  c->nnames = 0;
  for (size_t j = 0; j < c->k; j++) {
    const kg_cmp_row *r = &c->cmp->rows[c->idx[j]];
    if (in_sizes(c->sizes, c->ns, r->n) && (!c->nnames || strcmp(c->names[c->nnames - 1], r->variant)))
      c->names[c->nnames++] = r->variant;
  }
}

/* The row of a variant in every panel. */
static size_t name_row(const kg__cmpchart *c, const char *variant) {
  size_t i = 0;
  while (i < c->nnames && strcmp(c->names[i], variant)) i++;
  return i;
}

/* The .dat: a block per panel (two blank lines apart), a row per case;
 * counts the verdicts of every case of the dtype, drawn or not. */
static void compare_data(FILE *f, FILE *g, const kg__cmpchart *c, double dev, size_t *count) {
  for (size_t p = 0; p < c->ns; p++) {
    char label[32], bytes[32], title[96];
    kg_size_label(c->sizes[p], label, sizeof label);
    kg_bytes_label((double)c->sizes[p] * (double)kg_dtype_get(c->cmp->rows[c->idx[0]].dtype)->size, bytes,
                   sizeof bytes);
    snprintf(title, sizeof title, "n = %s (%s)", label, bytes);
    kg__gp_item(g, "panel_title", p + 1, title);
    fprintf(f, "# n = %zu\n", c->sizes[p]);
    for (size_t j = 0; j < c->k; j++) {
      const kg_cmp_row *r = &c->cmp->rows[c->idx[j]];
      if (r->n == c->sizes[p]) compare_row(f, r, (double)name_row(c, r->variant), dev, c->commit);
    }
    fputs("\n\n", f);
  }
  for (size_t j = 0; j < c->k; j++) count[c->cmp->rows[c->idx[j]].verdict]++;
  kg__tics ytics = {g, "y", 0};
  for (size_t i = 0; i < c->nnames; i++) kg__tic_add(&ytics, c->names[i], "", (double)i);
  kg__tics_end(&ytics);
}

/* The line under the title that says which sizes have no panel and why;
 * gone: the dtype's cases at sizes the baseline holds none of (kg_comparison_common_sizes). */
static void compare_left(FILE *g, const kg__cmpchart *c, size_t gone) {
  char list[160] = "";
  size_t used = 0, shown = 0, noratio = 0;
  for (size_t i = 0; i < c->nleft; i++) {
    char label[32];
    kg_size_label(c->left[i], label, sizeof label);
    int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", label);
    if (w < 0 || (size_t)w >= sizeof list - used - 8) break;
    used += (size_t)w, shown++;
  }
  for (size_t j = 0; j < c->k; j++) {
    const kg_cmp_row *r = &c->cmp->rows[c->idx[j]];
    noratio += in_sizes(c->left, c->nleft, r->n) && !cmp_has_ratio(r);
  }
  size_t capped = 0; /* cases with a ratio at a size past the panels */
  for (size_t j = 0; j < c->k; j++) {
    const kg_cmp_row *r = &c->cmp->rows[c->idx[j]];
    capped += in_sizes(c->left, c->nleft, r->n) && cmp_has_ratio(r);
  }
  char why[160];
  if (noratio && capped)
    snprintf(why, sizeof why, "%zu case%s timed on one side only; %zu beyond the %d panels a chart holds", noratio,
             noratio == 1 ? "" : "s", capped, KG__COMPARE_PANELS);
  else if (capped)
    snprintf(why, sizeof why, "%zu case%s beyond the %d panels a chart holds", capped, capped == 1 ? "" : "s",
             KG__COMPARE_PANELS);
  else snprintf(why, sizeof why, "%zu case%s timed on one side only", noratio, noratio == 1 ? "" : "s");
  char also[96] = "";
  if (gone)
    snprintf(also, sizeof also, "%s%zu case%s at sizes the baseline holds none of left out", c->nleft ? "; " : "", gone,
             gone == 1 ? "" : "s");
  if (!c->nleft) kg__gp_str(g, "left", "%s", also);
  else kg__gp_str(g, "left", "no panel for n = %s%s: %s (all in results.csv)%s", list, shown < c->nleft ? ", ..." : "",
                  why, also);
}

static void compare_vars(FILE *g, const kg_run *run, const kg_dtype_info *di, const char *verdicts,
                         const kg__cmpchart *c, double dev, const char *base_label) {
  char sub[400];
  kg__run_subtitle(&run->meta, sub, sizeof sub);
  size_t cols = c->ns < 4 ? c->ns : 4, rows = (c->ns + cols - 1) / cols;
  kg__gp_str(g, "title", "%s sum: time new / baseline per case (%s)", di->name, verdicts);
  kg__gp_str(g, "subtitle", "%s", sub);
  kg__gp_str(g, "note", "vs %s", base_label ? base_label : "the baseline");
  kg__gp_num(g, "npanels", (double)c->ns);
  kg__gp_num(g, "cols", (double)cols);
  kg__gp_num(g, "rows", (double)rows);
  kg__gp_num(g, "nrows", (double)c->nnames);
  kg__gp_num(g, "xmin", 1 - dev);
  kg__gp_num(g, "xmax", 1 + dev);
  kg__gp_num(g, "width", fmax(1100, 240 + 330 * (double)cols));
  kg__gp_num(g, "height", 190 + (double)rows * (60 + (double)c->nnames * 17));
}

/* The .dat headers (macros, so that the compiler checks them as formats). */
#define COMPARE_HEAD                                                                                 \
  "# kgate comparison, %s: a block per size (a panel), one row per case, time new / baseline\n"       \
  "# columns: y ratio bar_lo bar_hi bar_ylo bar_yhi tol_lo tol_hi color label_x side verdict label tip\n"    \
  "# (ratio ? when either side has no timing; side: the label right of the bar (1), left (-1), at 1 (0))\n"
int kg__chart_compare(const kg__job *job, kg_dtype dt) {
  const kg_run *run = job->src->run;
  const kg_comparison *cmp = job->src->cmp;
  const kg_dtype_info *di = kg_dtype_get(dt);
  size_t *idx = malloc((cmp->n + 1) * sizeof *idx), *sizes = malloc((cmp->n + 1) * sizeof *sizes),
         *left = malloc((cmp->n + 1) * sizeof *left);
  const char **names = malloc((cmp->n + 1) * sizeof *names);
  int rc = -1;
  if (!idx || !sizes || !left || !names) {
    kg__oom(job);
    goto out;
  }
  kg__cmpchart c = {cmp, idx, compare_rows(cmp, dt, idx), sizes, 0, left, 0, names, 0,
                    run->meta.commit[0] ? run->meta.commit : "unknown"};
  compare_layout(&c);
  rc = 0;
  if (!c.ns) goto out; /* no case of this dtype timed on both sides: the tables list them */
  double dev = compare_dev(cmp, idx, c.k);
  kg__pair p;
  if ((rc = kg__pair_open(&p, job, di->name, COMPARE_HEAD, di->name))) goto out;
  FILE *f = p.dat.f, *g = p.vars.f;
  size_t count[KG_NVERDICTS] = {0};
  compare_data(f, g, &c, dev, count);
  char verdicts[200];
  kg_rm_verdict_counts(count, 1, verdicts, sizeof verdicts); /* the verdicts shown, in report order */
  compare_vars(g, run, di, verdicts, &c, dev, job->src->base_label);
  size_t gone = cmp->left_dtype[dt];
  compare_left(g, &c, gone);
  verdict_colors(g);
  char also[64] = "";
  if (gone) snprintf(also, sizeof also, "; %zu at sizes the baseline lacks left out", gone);
  snprintf(p.chart->caption, sizeof p.chart->caption,
           "%.8s: time of this run over the baseline's per case (%.88s%.50s)", di->name, verdicts, also);
  rc = kg__pair_commit(&p, job);
out:
  free(idx), free(sizes), free(left), free(names);
  return rc;
}

