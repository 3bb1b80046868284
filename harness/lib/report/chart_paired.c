/* Chart 5, the paired gate: change head / base per cell with its interval
 * and the cell's minimum effect (plots/paired.gp). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_io.h"
#include "dtype.h"
#include "label.h"
#include "rmodel.h"
#include "severity.h"

/* Paired verdict colours: the gate's outcome at a glance (SLOWER fails a
 * merge). SAME is black here, not grey as in the comparison: a decided
 * "no change" is a result, an UNDECIDED cell is the absence of one.
 * UNCHANGED (proven, not timed) is a result too: its text row is black. */
static unsigned pverdict_rgb(kg_pverdict v) {
  kg_severity s = kg_rm_pverdict_severity(v);
  if (s == KG_SEV_REGRESSION || s == KG_SEV_GOOD) return kg_severity_get(s)->ink;
  return v == KG_PV_SAME || v == KG_PV_UNCHANGED ? 0x000000 : v == KG_PV_UNDECIDED ? 0x9e9e9e : 0x7f7f7f;
}

/* A cell with an interval to draw: decided or undecided from at least one
 * block. NEW, MISSING, UNKNOWN and UNCHANGED carry no numbers
 * (results-schema.md): an UNCHANGED cell is never a point at ratio 1. */
static int pair_drawn(const kg_pair_cell *c) {
  return c->stat.blocks > 0 && c->stat.verdict <= KG_PV_UNDECIDED && c->stat.lo > 0 && c->stat.lo <= c->stat.ratio &&
         c->stat.ratio <= c->stat.hi && isfinite(c->stat.hi);
}

/* Half-width of the x range around 0, in %: the widest interval or
 * minimum effect with a margin, at least 1 %, at most 100 % (beyond it a
 * bar is clipped at the edge and its label keeps the true numbers). */
static double pair_half(const kg_run *run, const size_t *idx, size_t k) {
  double half = 1;
  for (size_t j = 0; j < k; j++) {
    const kg_pair_cell *c = &run->pairs[idx[j]];
    if (!pair_drawn(c)) continue;
    half = fmax(half, fmax(fabs(c->stat.lo - 1), fabs(c->stat.hi - 1)) * 100 * 1.15);
    if (c->min_effect > 0 && isfinite(c->min_effect)) half = fmax(half, c->min_effect * 100 * 1.5);
  }
  return fmin(half, 100);
}


/* Cells of this dtype in ladder order, then by n, into idx (*k of them);
 * returns how many of them have an interval to draw. */
static size_t paired_cells(const kg_run *run, kg_dtype dt, size_t *idx, size_t *k) {
  size_t drawn = 0;
  *k = 0;
  for (size_t i = 0; i < run->npairs; i++)
    if (run->pairs[i].dtype == dt) idx[(*k)++] = i, drawn += pair_drawn(&run->pairs[i]);
  kg__ladder_sort(idx, *k, run->pairs, sizeof *run->pairs, offsetof(kg_pair_cell, variant), offsetof(kg_pair_cell, n));
  return drawn;
}

/* Row j of the paired chart: its y tic and its line in the .dat. */
static void paired_row(FILE *f, kg__tics *ytics, const kg_pair_cell *c, size_t j, double half, const char *commit) {
  const kg_pair_stat *st = &c->stat;
  int have = pair_drawn(c);
  char slabel[32], tic[128], label[96];
  kg_size_label(c->n, slabel, sizeof slabel);
  snprintf(tic, sizeof tic, "%s  %s", c->variant, slabel);
  kg__tic_add(ytics, tic, "", (double)j);
  double chg = have ? (st->ratio - 1) * 100 : NAN, lo = have ? (st->lo - 1) * 100 : NAN,
         hi = have ? (st->hi - 1) * 100 : NAN;
  double band = c->min_effect > 0 && isfinite(c->min_effect) ? fmin(c->min_effect * 100, half) : NAN;
  const char *vname = kg_pverdict_name(st->verdict);
  if (have) snprintf(label, sizeof label, "%s %+.2f %% [%+.2f, %+.2f]", vname, chg, lo, hi);
  else snprintf(label, sizeof label, "%s: %s", vname, kg_rm_pverdict_brief(st->verdict));
  fprintf(f, "%zu", j);
  kg__dat_num(f, chg);
  kg__dat_num(f, lo);
  kg__dat_num(f, hi);
  kg__dat_num(f, have ? fmin(fmax(chg, -half), half) : NAN);
  kg__dat_num(f, have ? fmin(fmax(lo, -half), half) : NAN);
  kg__dat_num(f, have ? fmin(fmax(hi, -half), half) : NAN);
  kg__dat_num(f, have ? band : NAN);
  fprintf(f, " %.2f %.2f 0x%06x", (double)j - 0.42, (double)j + 0.42, pverdict_rgb(st->verdict));
  /* Every row has a label at the right edge: the labels plot is never empty
   * (gnuplot 5.4 crashes on a labels plot with no point). */
  kg__dat_num(f, half);
  fprintf(f, " %s \"%s\"", vname, label);
  char eff[48] = "";
  if (c->min_effect > 0 && isfinite(c->min_effect))
    snprintf(eff, sizeof eff, ", minimum effect \u00b1%.2f %%", c->min_effect * 100);
  kg__dat_tip(f, "%s, n = %s: %s\nchange head / base %+.2f %%, interval [%+.2f, %+.2f] %%\n%d blocks%s\nhead commit %s",
              c->variant, slabel, vname, chg, lo, hi, st->blocks, eff, commit);
  fputc('\n', f);
}

static void paired_vars(FILE *g, const kg_run *run, const kg_dtype_info *di, const char *verdicts, size_t k,
                        double half) {
  char date[48];
  kg_date_label(run->meta.date, date, sizeof date);
  const kg_pair_meta *m = &run->pair;
  kg__gp_str(g, "title", "%s sum, paired gate: change head / base per cell (%s)", di->name, verdicts);
  kg__gp_str(g, "subtitle", "%s \u00b7 %s \u00b7 head commit %s \u00b7 base %s %s",
         run->meta.dev.name[0] ? run->meta.dev.name : "unknown GPU", date,
         run->meta.commit[0] ? run->meta.commit : "unknown", m->base_name[0] ? m->base_name : "(unnamed module)",
         m->base_version[0] ? m->base_version : "(no version)");
  kg__gp_str(g, "note", "bars: the %.4g %% interval over blocks \u00b7 shaded: \u00b1 the cell's minimum effect",
         m->confidence > 0 && m->confidence < 1 ? m->confidence * 100 : 99);
  kg__gp_num(g, "nrows", (double)k);
  kg__gp_num(g, "xmin", -half);
  kg__gp_num(g, "xmax", half);
  kg__gp_num(g, "width", 1300);
  kg__gp_num(g, "height", 190 + (double)k * 26);
  for (int v = 0; v < KG_NPVERDICTS; v++) {
    char key[24];
    snprintf(key, sizeof key, "color_%s", kg_pverdict_name((kg_pverdict)v));
    kg__gp_str(g, key, "#%06x", pverdict_rgb((kg_pverdict)v));
  }
}

/* The paired gate's cells (run->pairs): per dtype with at least one cell
 * that has numbers, a row per (variant, n) in ladder order; NEW, MISSING,
 * UNKNOWN and UNCHANGED cells are rows of text, no point. */
#define PAIRED_HEAD                                                                                  \
  "# kgate paired gate, %s: one row per cell (variant, n), change head / base - 1 in %%\n"               \
  "# columns: y change lo hi shown shown_lo shown_hi band band_ylo band_yhi color label_x verdict label tip\n" \
  "# (change lo hi: the true numbers; shown*: clipped to the x range; band: the minimum effect, %%;\n"   \
  "#  ? where a cell has none: NEW, MISSING, UNKNOWN and UNCHANGED rows are text only)\n"
static int paired_draw(const kg__job *job, kg_dtype dt, const size_t *idx, size_t k);
int kg__chart_paired(const kg__job *job, kg_dtype dt) {
  const kg_run *run = job->src->run;
  size_t *idx = malloc((run->npairs + 1) * sizeof *idx), k;
  if (!idx) return kg__oom(job);
  int rc = paired_cells(run, dt, idx, &k) ? paired_draw(job, dt, idx, k) : 0;
  /* (no cell with numbers: only NEW/MISSING/UNKNOWN/UNCHANGED, which the reports list; a chart would show no point) */
  free(idx);
  return rc;
}

/* The paired chart of the cells idx[0..k). */
static int paired_draw(const kg__job *job, kg_dtype dt, const size_t *idx, size_t k) {
  const kg_run *run = job->src->run;
  const kg_dtype_info *di = kg_dtype_get(dt);
  double half = pair_half(run, idx, k);
  kg__pair p;
  if (kg__pair_open(&p, job, di->name, PAIRED_HEAD, di->name)) return -1;
  FILE *f = p.dat.f, *g = p.vars.f;
  size_t count[KG_NPVERDICTS] = {0};
  kg__tics ytics = {g, "y", 0};
  for (size_t j = 0; j < k; j++) {
    paired_row(f, &ytics, &run->pairs[idx[j]], j, half, run->meta.commit[0] ? run->meta.commit : "unknown");
    count[run->pairs[idx[j]].stat.verdict]++;
  }
  kg__tics_end(&ytics);
  char verdicts[200];
  kg_rm_pverdict_counts(count, 1, verdicts, sizeof verdicts); /* the verdicts shown, in report order */
  paired_vars(g, run, di, verdicts, k, half);
  snprintf(p.chart->caption, sizeof p.chart->caption,
           "%s: change head / base per cell with its interval (%.100s)", di->name, verdicts);
  return kg__pair_commit(&p, job);
}

