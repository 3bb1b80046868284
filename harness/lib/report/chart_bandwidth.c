/* Chart 1, bandwidth against size: GB/s against n per variant, a panel
 * per family with CUB and kgate's own kernel in each (plots/bandwidth.gp). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_io.h"
#include "dtype.h"
#include "label.h"
#include "varreg.h"

/* Ticks for a log2 axis from 2^lo to 2^hi: at most about 12 labels. */
static void log2_tics(FILE *f, int lo, int hi) {
  int step = (hi - lo + 11) / 12;
  if (step < 1) step = 1;
  kg__tics t = {f, "x", 0};
  for (int e = lo; e <= hi; e++) {
    if ((e - lo) % step) continue;
    char label[32];
    kg_size_label((size_t)1 << e, label, sizeof label);
    kg__tic_add(&t, label, "", ldexp(1, e));
  }
  kg__tics_end(&t);
}

/* Small multiples: a panel per family, CUB and kgate's own kernel (the
 * references) in every panel, so 23 lines never share one plot. Writes
 * panels (per series: its panel, 0 for a reference), npanels, rows, cols,
 * panel_title<k>, and pcolors: within a panel, distinct hues (a qualitative
 * palette by rank in the family), CUB black, kgate red. Returns npanels. */
static void bandwidth_panel_colors(FILE *g, const int *sel, size_t count);
static size_t bandwidth_panels(FILE *g, const int *sel, size_t count) {
  size_t fam_panel[KG__NFAMILIES] = {0}, npanels = 0;
  for (size_t s = 0; s < count; s++) {
    size_t fam = kg__family_of(kg_variants[sel[s]].seed);
    if (kg__is_reference(fam) || fam_panel[fam]) continue;
    fam_panel[fam] = ++npanels;
    kg__gp_item(g, "panel_title", npanels, kg__family_label(fam));
  }
  if (!npanels) kg__gp_item(g, "panel_title", ++npanels, "CUB and kgate");
  fputs("panels = '", g);
  for (size_t s = 0; s < count; s++) {
    size_t fam = kg__family_of(kg_variants[sel[s]].seed);
    fprintf(g, "%s%zu", s ? " " : "", kg__is_reference(fam) ? 0 : fam_panel[fam]);
  }
  fputs("'\n", g);
  kg__gp_num(g, "npanels", (double)npanels);
  kg__gp_num(g, "cols", npanels > 1 ? 2 : 1);
  kg__gp_num(g, "rows", (double)((npanels + 1) / 2));
  bandwidth_panel_colors(g, sel, count);
  return npanels;
}

static void bandwidth_panel_colors(FILE *g, const int *sel, size_t count) {
  static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                        "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
  fputs("pcolors = '", g);
  for (size_t s = 0; s < count; s++) {
    size_t fam = kg__family_of(kg_variants[sel[s]].seed), rank = 0;
    for (size_t k = 0; k < s; k++) rank += kg__family_of(kg_variants[sel[k]].seed) == fam;
    if (kg__is_reference(fam)) fprintf(g, "%s#%06x", s ? " " : "", kg__family_ink(fam));
    else fprintf(g, "%s%s", s ? " " : "", palette[rank % (sizeof palette / sizeof palette[0])]);
  }
  fputs("'\n", g);
}

static int bandwidth_draw(const kg__job *job, kg_dtype dt, const int *sel, size_t count, const size_t *sizes,
                          size_t nsizes);
int kg__chart_bandwidth(const kg__job *job, kg_dtype dt) {
  const kg_run *run = job->src->run;
  int *sel = malloc((kg_nvariants + 1) * sizeof *sel);
  size_t *sizes = NULL, count = 0;
  long ns = sel ? kg__timed_sizes(run, dt, &sizes) : -1;
  if (ns < 0) {
    free(sel), free(sizes);
    return kg__oom(job);
  }
  size_t nsizes = (size_t)ns;
  for (size_t v = 0; v < kg_nvariants; v++) {
    int any = 0;
    for (size_t i = 0; i < run->n && !any; i++)
      any = run->cases[i].variant == (int)v && run->cases[i].dtype == dt && kg__timed(run, i);
    if (any) sel[count++] = (int)v;
  }
  int rc = bandwidth_draw(job, dt, sel, count, sizes, nsizes);
  free(sel), free(sizes);
  return rc;
}

/* The .dat: a block per variant, a row per size it timed, with its
 * tooltip. Returns the largest GB/s, or the peak if larger. */
static double bandwidth_data(FILE *f, const kg_run *run, kg_dtype dt, const int *sel, size_t count,
                             const size_t *sizes, size_t nsizes) {
  double ymax = run->meta.dev.peak_gbps > 0 ? run->meta.dev.peak_gbps : 0;
  for (size_t s = 0; s < count; s++) {
    fprintf(f, "# %s\n", kg_variants[sel[s]].name);
    for (size_t k = 0; k < nsizes; k++) {
      long i = kg__timed_case(run, sel[s], dt, sizes[k]);
      if (i < 0) continue;
      kg_perf pf = kg_perf_of(run, (size_t)i);
      fprintf(f, "%zu", sizes[k]);
      kg__dat_num(f, pf.gbps);
      kg__dat_num(f, pf.pct_peak > 0 ? pf.pct_peak : NAN);
      kg__dat_num(f, run->results[i].timing.median_us);
      kg__case_tip(f, run, (size_t)i);
      fputc('\n', f);
      if (pf.gbps > ymax) ymax = pf.gbps;
    }
    fputs("\n\n", f);
  }
  return ymax;
}

/* The bandwidth chart of the variants sel[0..count) at sizes[0..nsizes). */
static int bandwidth_draw(const kg__job *job, kg_dtype dt, const int *sel, size_t count, const size_t *sizes,
                          size_t nsizes) {
  const kg_run *run = job->src->run;
  const kg_dtype_info *di = kg_dtype_get(dt);
  if (!count || !nsizes) return 0;
  kg__pair p;
  if (kg__pair_open(&p, job, di->name,
                "# kgate bandwidth, %s: one block per variant in ladder order (two blank lines apart)\n"
                "# columns: n gbps pct_peak median_us tip\n",
                di->name))
    return -1;
  const kg_device_info *d = &run->meta.dev;
  FILE *g = p.vars.f;
  double ymax = bandwidth_data(p.dat.f, run, dt, sel, count, sizes, nsizes);
  /* The x range covers the sizes and the L2 mark, half a power of two beyond
   * (a tick exactly on the edge of the range is not always drawn). */
  double l2_n = d->l2_bytes > 0 ? (double)d->l2_bytes / (double)di->size : NAN;
  double lo = log2((double)sizes[0]), hi = log2((double)sizes[nsizes - 1]);
  if (isfinite(l2_n)) lo = fmin(lo, log2(l2_n)), hi = fmax(hi, log2(l2_n));
  lo -= 0.5, hi += 0.5;
  char sub[400], l2[32];
  kg__run_subtitle(&run->meta, sub, sizeof sub);
  kg__gp_str(g, "title", "%s sum: bandwidth against input size", di->name);
  kg__gp_str(g, "subtitle", "%s", sub);
  kg__gp_num(g, "nseries", (double)count);
  for (size_t s = 0; s < count; s++) kg__gp_item(g, "name", s + 1, kg_variants[sel[s]].name);
  kg__series_styles(g, sel, count);
  size_t npanels = bandwidth_panels(g, sel, count);
  size_t rows = (npanels + 1) / 2;
  kg__gp_num(g, "width", 1500);
  kg__gp_num(g, "height", 130 + 430 * (double)rows);
  kg__gp_num(g, "peak", d->peak_gbps > 0 ? d->peak_gbps : NAN);
  kg__gp_num(g, "roofline", d->roofline_gbps > 0 ? d->roofline_gbps : NAN);
  kg__gp_num(g, "l2_n", l2_n);
  kg_bytes_label((double)d->l2_bytes, l2, sizeof l2);
  kg__gp_str(g, "l2_label", "%s L2", l2);
  kg__gp_num(g, "xmin", exp2(lo));
  kg__gp_num(g, "xmax", exp2(hi));
  kg__gp_num(g, "ymax", ymax * 1.12);
  log2_tics(g, (int)ceil(lo), (int)floor(hi));
  kg__gp_str(g, "xlabel", "n (%s elements, %zu bytes each; log\u2082 scale)", di->name, di->size);
  snprintf(p.chart->caption, sizeof p.chart->caption, "%s: GB/s against n, a panel per family with CUB and kgate in "
           "each, the theoretical peak, the measured roofline and the L2 size", di->name);
  return kg__pair_commit(&p, job);
}
