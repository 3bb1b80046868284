/* Chart 2, the ladder: % of theoretical peak per variant in ladder order,
 * a bar per size (plots/ladder.gp). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_io.h"
#include "dtype.h"
#include "label.h"
#include "varreg.h"

/* Size colours for the bars: light for the smaller, dark for the larger. */
static const char *const k_size_colors[] = {"#9ecae1", "#2171b5", "#08306b", "#6baed6"};

static int ladder_draw(const kg__job *job, kg_dtype dt, const int *sel, size_t count, const size_t *sizes,
                       size_t ns);
int kg__chart_ladder(const kg__job *job, kg_dtype dt) {
  const kg_run *run = job->src->run;
  size_t *all = NULL, sizes[2], count = 0;
  long nall = kg__timed_sizes(run, dt, &all);
  int *sel = nall >= 0 ? malloc((kg_nvariants + 1) * sizeof *sel) : NULL;
  if (!sel) {
    free(all);
    return kg__oom(job);
  }
  size_t ns = kg_chart_pick_sizes(all, (size_t)nall, sizes, 2);
  free(all);
  for (size_t v = 0; v < kg_nvariants; v++) {
    int any = 0;
    for (size_t k = 0; k < ns; k++) any |= kg__timed_case(run, (int)v, dt, sizes[k]) >= 0;
    if (any) sel[count++] = (int)v;
  }
  int rc = count && run->meta.dev.peak_gbps > 0 ? ladder_draw(job, dt, sel, count, sizes, ns) : 0;
  free(sel);
  return rc;
}

/* The .dat: a row per variant, its % of peak at each size, then a tooltip
 * per size. Returns the largest %. */
static double ladder_data(FILE *f, const kg_run *run, kg_dtype dt, const int *sel, size_t count, const size_t *sizes,
                          size_t ns) {
  for (size_t k = 0; k < ns; k++) fprintf(f, " pct_%zu", sizes[k]);
  for (size_t k = 0; k < ns; k++) fprintf(f, " tip_%zu", sizes[k]);
  fputc('\n', f);
  double xmax = 0;
  for (size_t s = 0; s < count; s++) {
    fprintf(f, "%zu %s", s, kg_variants[sel[s]].name);
    for (size_t k = 0; k < ns; k++) {
      long i = kg__timed_case(run, sel[s], dt, sizes[k]);
      double pct = i >= 0 ? kg_perf_of(run, (size_t)i).pct_peak : NAN;
      kg__dat_num(f, pct);
      if (pct > xmax) xmax = pct;
    }
    for (size_t k = 0; k < ns; k++) {
      long i = kg__timed_case(run, sel[s], dt, sizes[k]);
      char label[32];
      kg_size_label(sizes[k], label, sizeof label);
      if (i >= 0) kg__case_tip(f, run, (size_t)i);
      else kg__dat_tip(f, "%s, n = %s\nnot timed", kg_variants[sel[s]].name, label); /* no bar: never shown */
    }
    fputc('\n', f);
  }
  return xmax;
}

/* The ladder of the variants sel[0..count) at sizes[0..ns). */
static int ladder_draw(const kg__job *job, kg_dtype dt, const int *sel, size_t count, const size_t *sizes,
                       size_t ns) {
  const kg_run *run = job->src->run;
  const kg_dtype_info *di = kg_dtype_get(dt);
  kg__pair p;
  if (kg__pair_open(&p, job, di->name,
                "# kgate ladder, %s: %% of theoretical peak per variant in ladder order\n# columns: row variant",
                di->name))
    return -1;
  /* Between rows of different families: the ladder reads in groups. */
  fputs("separators = '", p.vars.f);
  for (size_t s = 1; s < count; s++)
    if (kg__family_of(kg_variants[sel[s]].seed) != kg__family_of(kg_variants[sel[s - 1]].seed))
      fprintf(p.vars.f, "%s%.1f", s > 1 ? " " : "", (double)s - 0.5);
  fputs("'\n", p.vars.f);
  FILE *g = p.vars.f;
  double xmax = ladder_data(p.dat.f, run, dt, sel, count, sizes, ns);
  const kg_device_info *d = &run->meta.dev;
  double roof = d->roofline_gbps > 0 ? 100 * d->roofline_gbps / d->peak_gbps : NAN;
  char sub[400], label[32], bytes[32];
  kg__run_subtitle(&run->meta, sub, sizeof sub);
  /* A module may add min and max variants: the title then says so (the
   * bars are bytes read per second whatever the op). */
  int only_sums = 1;
  for (size_t k = 0; k < count; k++)
    only_sums &= kg_variants[sel[k]].op != KG_OP_MIN && kg_variants[sel[k]].op != KG_OP_MAX;
  kg__gp_str(g, "title", "%s %s: %% of theoretical peak (%.0f GB/s), variants in ladder order", di->name,
         only_sums ? "sum" : "reductions (sum, min, max)", d->peak_gbps);
  kg__gp_str(g, "subtitle", "%s", sub);
  kg__gp_num(g, "nrows", (double)count);
  kg__gp_num(g, "nsizes", (double)ns);
  for (size_t k = 0; k < ns; k++) {
    char key[32];
    kg_size_label(sizes[k], label, sizeof label);
    kg_bytes_label((double)sizes[k] * (double)di->size, bytes, sizeof bytes);
    snprintf(key, sizeof key, "size%zu", k + 1);
    kg__gp_str(g, key, "n = %s (%s)", label, bytes);
    snprintf(key, sizeof key, "color%zu", k + 1);
    kg__gp_str(g, key, "%s", k_size_colors[ns == 1 ? 1 : k]);
  }
  kg__gp_num(g, "roofline_pct", roof);
  kg__gp_num(g, "width", 1200);
  /* Room right of the longest bar for its value. */
  kg__gp_num(g, "xmax", fmax(100, xmax) * 1.08);
  kg__gp_num(g, "height", 130 + (double)count * (ns > 1 ? 38 : 26));
  snprintf(p.chart->caption, sizeof p.chart->caption, "%s: %% of theoretical peak per variant, in ladder order",
           di->name);
  return kg__pair_commit(&p, job);
}
