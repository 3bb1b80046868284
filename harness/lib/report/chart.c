/* Chart data: everything a chart shows is decided here, in C, from the run;
 * the gnuplot scripts in plots/ only draw. Geometry that gnuplot makes
 * awkward (bar positions, axis ranges, tick lists, colours by variant
 * family) is computed here and written to <name>.vars, so each script stays
 * a page of plotting commands that a person can run by hand:
 *   gnuplot -e "vars='out/ladder-f32.vars'; fmt='png'; out='x.png'" plots/ladder.gp */
#include "chart.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "fileio.h"
#include "label.h"
#include "registry.h"
#include "rmodel.h"
#include "severity.h"

/* Line colours by variant family (the registry's seed): one hue per family,
 * lighter to darker along the ladder within it, so a family reads as a group
 * and its later, faster rungs stand out. CUB is black: the reference. */
static const struct {
  const char *seed, *label;
  unsigned light, dark;
} k_families[] = {
    {"002", "Harris ladder", 0x6baed6, 0x08306b},
    {"003", "in place, pairs", 0xfd8d3c, 0x8c2d04},
    {"001", "in place, unrolled", 0x74c476, 0x00441b},
    {"004", "atomics, two-pass", 0xb39ddb, 0x4a1486},
    {"cub", "CUB", 0x000000, 0x000000},
    {"kgate", "kgate", 0xe31a1c, 0xe31a1c},
    {NULL, "other", 0xa0a0a0, 0x404040}, /* any seed not above */
};

/* Point types that pngcairo and svg both draw distinctly, in the order the
 * members of one family get them. */
static const int k_points[] = {7, 5, 9, 11, 13, 6, 4, 8, 10, 12, 1, 2, 3};

/* The two perf sizes the design card asks for. */
static const size_t k_ladder_sizes[] = {(size_t)1 << 22, (size_t)1 << 25};

/* ---- small helpers -------------------------------------------------------- */

void kg_size_label(size_t n, char *buf, size_t len) {
  static const char *const sup[10] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
                                      "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
  if (n == 0 || (n & (n - 1))) {
    snprintf(buf, len, "%zu", n);
    return;
  }
  int e = 0;
  while (((size_t)1 << e) != n) e++;
  if (e < 10) snprintf(buf, len, "2%s", sup[e]);
  else snprintf(buf, len, "2%s%s", sup[e / 10], sup[e % 10]);
}



/* Text reaches gnuplot one way only: as a single-quoted string literal
 * assigned to a variable in the .vars file (kg_esc_gp), which the scripts
 * use as a value. gnuplot expands no backquote, macro or escape inside
 * single quotes, and no script builds a command out of text to evaluate it,
 * so a GPU name, date, commit or variant name from a file stays text. */
static void gp_str(FILE *f, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void gp_str(FILE *f, const char *key, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(f, "%s = ", key);
  kg_esc_gp(f, buf);
  fputc('\n', f);
}

/* One of a list of strings: <key><k> = '...' (k from 1), read by the
 * scripts with value(sprintf('<key>%d', k)). */
static void gp_item(FILE *f, const char *key, size_t k, const char *s) {
  fprintf(f, "%s%zu = ", key, k);
  kg_esc_gp(f, s);
  fputc('\n', f);
}

/* Tick marks, added one by one by the scripts (plots/README.md):
 * <axis>tic_label<k>, <axis>tic_sub<k> (a second line, may be empty),
 * <axis>tic_pos<k>, and n<axis>tics. */
typedef struct kg__tics {
  FILE *f;
  const char *axis; /* "x" or "y" */
  size_t n;
} kg__tics;

static void tic_add(kg__tics *t, const char *label, const char *sub, double pos) {
  char key[16];
  t->n++;
  snprintf(key, sizeof key, "%stic_label", t->axis);
  gp_item(t->f, key, t->n, label);
  snprintf(key, sizeof key, "%stic_sub", t->axis);
  gp_item(t->f, key, t->n, sub);
  fprintf(t->f, "%stic_pos%zu = %.10g\n", t->axis, t->n, pos);
}

static void tics_end(const kg__tics *t) { fprintf(t->f, "n%stics = %zu\n", t->axis, t->n); }

/* A comment line in a .dat file: one line whatever the text holds. */
static void dat_comment(FILE *f, const char *s) {
  char buf[128];
  fprintf(f, "# %s\n", kg_esc_term(s, buf, sizeof buf));
}

static void gp_num(FILE *f, const char *key, double v) {
  if (isfinite(v)) fprintf(f, "%s = %.10g\n", key, v);
  else fprintf(f, "%s = NaN\n", key);
}

/* A data value: '?' is what the scripts declare as missing. */
static void dat_num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, " %.6g", v);
  else fputs(" ?", f);
}

static void rgb_lerp(unsigned a, unsigned b, double t, char *buf, size_t len) {
  unsigned c = 0;
  for (int sh = 0; sh <= 16; sh += 8) {
    double x = ((a >> sh) & 0xff) * (1 - t) + ((b >> sh) & 0xff) * t;
    c |= (unsigned)lround(x) << sh;
  }
  snprintf(buf, len, "#%06x", c);
}

static size_t family_of(const char *seed) {
  size_t k = 0;
  while (k_families[k].seed && strcmp(k_families[k].seed, seed)) k++;
  return k;
}

/* CUB and kgate's own single-pass kernel: the lines every reader compares with. */
static int is_reference(size_t fam) {
  return k_families[fam].seed && (!strcmp(k_families[fam].seed, "cub") || !strcmp(k_families[fam].seed, "kgate"));
}

/* Colour and point type of series s among the selected variants
 * (sel[0..count), registry indices): by family, darker along the ladder. */
static void series_style(const int *sel, size_t count, size_t s, char *rgb, size_t len, int *pt) {
  size_t fam = family_of(kg_variants[sel[s]].seed), members = 0, rank = 0;
  for (size_t k = 0; k < count; k++)
    if (family_of(kg_variants[sel[k]].seed) == fam) rank += k < s, members++;
  rgb_lerp(k_families[fam].light, k_families[fam].dark, members > 1 ? (double)rank / (double)(members - 1) : 1, rgb,
           len);
  *pt = k_points[rank % (sizeof k_points / sizeof k_points[0])];
}

/* colors = '...' and points = '...': every series' style, in order. */
static void series_styles(FILE *g, const int *sel, size_t count) {
  char c[16];
  int pt;
  fputs("colors = '", g);
  for (size_t s = 0; s < count; s++) {
    series_style(sel, count, s, c, sizeof c, &pt);
    fprintf(g, "%s%s", s ? " " : "", c);
  }
  fputs("'\npoints = '", g);
  for (size_t s = 0; s < count; s++) {
    series_style(sel, count, s, c, sizeof c, &pt);
    fprintf(g, "%s%d", s ? " " : "", pt);
  }
  fputs("'\n", g);
}

/* GPU, date, commit and L2 mode: the second title line of a run's charts. */
static void run_subtitle(const kg_run_meta *m, char *buf, size_t len) {
  char date[48];
  kg_date_label(m->date, date, sizeof date);
  snprintf(buf, len, "%s \u00b7 %s \u00b7 commit %s \u00b7 %s L2", m->dev.name[0] ? m->dev.name : "unknown GPU", date,
           m->commit[0] ? m->commit : "unknown", m->time.hot ? "warm" : "cold");
}

/* ---- the pair of files a chart is ------------------------------------------ */

/* One kind's writing: what it draws from, and where its charts go. */
typedef struct kg__job {
  const char *dir;
  const kg_chart_src *src;
  kg_chart_kind kind;
  const char *name; /* the kind's */
  kg_charts *out;
  char *err;
  size_t errlen;
} kg__job;

typedef struct kg__pair {
  kg_outfile dat, vars;
  kg_chart *chart;
} kg__pair;

/* Opens <dir>/<kind>-<dtype>.dat and .vars and claims a slot in out; the
 * .dat starts with the header fmt (a comment that says what the rows are). */
static int pair_open(kg__pair *p, const kg__job *j, const char *dtype, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int pair_open(kg__pair *p, const kg__job *j, const char *dtype, const char *fmt, ...) {
  kg_charts *out = j->out;
  char *err = j->err;
  size_t errlen = j->errlen;
  if (out->n == KG_MAX_CHARTS) {
    snprintf(err, errlen, "too many charts (at most %d)", KG_MAX_CHARTS);
    return -1;
  }
  kg_chart *c = &out->c[out->n];
  memset(c, 0, sizeof *c);
  c->kind = j->kind;
  snprintf(c->name, sizeof c->name, "%s-%s", j->name, dtype);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.dat", j->dir, c->name);
  if (kg_out_open(&p->dat, path, err, errlen)) return -1;
  snprintf(path, sizeof path, "%s/%s.vars", j->dir, c->name);
  if (kg_out_open(&p->vars, path, err, errlen)) {
    kg_out_abort(&p->dat);
    return -1;
  }
  p->chart = c;
  fprintf(p->vars.f, "# kgate: settings for plots/%s.gp (kgate writes this file)\n", j->name);
  /* Relative: gnuplot runs in the output folder, which can move as a whole. */
  gp_str(p->vars.f, "data", "%s.dat", c->name);
  /* The page's severity scale (severity.h), for the scripts' markers: sev_regression = '#e07000', ... */
  for (int v = 0; v < KG_NSEVERITIES; v++) {
    char key[32];
    snprintf(key, sizeof key, "sev_%s", kg_severity_get((kg_severity)v)->name);
    gp_str(p->vars.f, key, "#%06x", kg_severity_get((kg_severity)v)->ink);
  }
  va_list ap;
  va_start(ap, fmt);
  vfprintf(p->dat.f, fmt, ap);
  va_end(ap);
  return 0;
}

static int pair_commit(kg__pair *p, const kg__job *j) {
  if (kg_out_commit(&p->dat, j->err, j->errlen)) {
    kg_out_abort(&p->vars);
    return -1;
  }
  if (kg_out_commit(&p->vars, j->err, j->errlen)) return -1;
  j->out->n++;
  return 0;
}

/* ---- which cases ---------------------------------------------------------- */

static int timed(const kg_run *run, size_t i) { return run->cases[i].timed && run->results[i].timing.samples > 0; }

/* The timed case of (variant, dtype, n), or -1. */
static long timed_case(const kg_run *run, int v, kg_dtype dt, size_t n) {
  for (size_t i = 0; i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    if (c->variant == v && c->dtype == dt && c->n == n && timed(run, i)) return (long)i;
  }
  return -1;
}

/* Adds n to the set of sizes set[0..*k) unless there; the caller made room for every candidate. */
static void size_add(size_t *set, size_t *k, size_t n) {
  size_t j = 0;
  while (j < *k && set[j] != n) j++;
  if (j == *k) set[(*k)++] = n;
}

/* Ascending; insertion sort: a handful of sizes. */
static void sort_sizes(size_t *a, size_t k) {
  for (size_t i = 1; i < k; i++)
    for (size_t b = i; b > 0 && a[b - 1] > a[b]; b--) {
      size_t t = a[b];
      a[b] = a[b - 1], a[b - 1] = t;
    }
}

/* Distinct timed sizes of dt, ascending, malloc'ed (a sweep may time any
 * number: none is dropped) into *ns; returns the count. -1: out of memory. */
static long timed_sizes(const kg_run *run, kg_dtype dt, size_t **ns) {
  size_t k = 0;
  if (!(*ns = malloc((run->n + 1) * sizeof **ns))) return -1;
  for (size_t i = 0; i < run->n; i++)
    if (run->cases[i].dtype == dt && timed(run, i)) size_add(*ns, &k, run->cases[i].n);
  sort_sizes(*ns, k);
  return (long)k;
}

size_t kg_chart_pick_sizes(const size_t *timed_n, size_t count, size_t *picked, size_t max) {
  size_t k = 0;
  for (size_t s = 0; s < sizeof k_ladder_sizes / sizeof k_ladder_sizes[0] && k < max; s++)
    for (size_t i = 0; i < count; i++)
      if (timed_n[i] == k_ladder_sizes[s]) {
        picked[k++] = timed_n[i];
        break;
      }
  if (k) return k;
  /* Neither: the largest ones, which are the bandwidth-bound ones, found
   * by selection (no copy, so no limit on count; repeats count once). */
  for (size_t below = (size_t)-1, first = 1; k < max; first = 0) {
    int found = 0;
    size_t best = 0;
    for (size_t i = 0; i < count; i++)
      if ((first || timed_n[i] < below) && (!found || timed_n[i] > best)) best = timed_n[i], found = 1;
    if (!found) break;
    picked[k++] = below = best;
  }
  for (size_t i = 0; i < k / 2; i++) { /* ascending */
    size_t t = picked[i];
    picked[i] = picked[k - 1 - i], picked[k - 1 - i] = t;
  }
  return k;
}

/* ---- 1: bandwidth against size --------------------------------------------- */

/* Ticks for a log2 axis from 2^lo to 2^hi: at most about 12 labels. */
static void log2_tics(FILE *f, int lo, int hi) {
  int step = (hi - lo + 11) / 12;
  if (step < 1) step = 1;
  kg__tics t = {f, "x", 0};
  for (int e = lo; e <= hi; e++) {
    if ((e - lo) % step) continue;
    char label[32];
    kg_size_label((size_t)1 << e, label, sizeof label);
    tic_add(&t, label, "", ldexp(1, e));
  }
  tics_end(&t);
}

/* Small multiples: a panel per family, CUB and kgate's own kernel (the
 * references) in every panel, so 23 lines never share one plot. Writes
 * panels (per series: its panel, 0 for a reference), npanels, rows, cols,
 * panel_title<k>, and pcolors: within a panel, distinct hues (a qualitative
 * palette by rank in the family), CUB black, kgate red. Returns npanels. */
static void bandwidth_panel_colors(FILE *g, const int *sel, size_t count);
static size_t bandwidth_panels(FILE *g, const int *sel, size_t count) {
  size_t fam_panel[sizeof k_families / sizeof k_families[0]] = {0}, npanels = 0;
  for (size_t s = 0; s < count; s++) {
    size_t fam = family_of(kg_variants[sel[s]].seed);
    if (is_reference(fam) || fam_panel[fam]) continue;
    fam_panel[fam] = ++npanels;
    gp_item(g, "panel_title", npanels, k_families[fam].label);
  }
  if (!npanels) gp_item(g, "panel_title", ++npanels, "CUB and kgate");
  fputs("panels = '", g);
  for (size_t s = 0; s < count; s++) {
    size_t fam = family_of(kg_variants[sel[s]].seed);
    fprintf(g, "%s%zu", s ? " " : "", is_reference(fam) ? 0 : fam_panel[fam]);
  }
  fputs("'\n", g);
  gp_num(g, "npanels", (double)npanels);
  gp_num(g, "cols", npanels > 1 ? 2 : 1);
  gp_num(g, "rows", (double)((npanels + 1) / 2));
  bandwidth_panel_colors(g, sel, count);
  return npanels;
}

static void bandwidth_panel_colors(FILE *g, const int *sel, size_t count) {
  static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                        "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
  fputs("pcolors = '", g);
  for (size_t s = 0; s < count; s++) {
    size_t fam = family_of(kg_variants[sel[s]].seed), rank = 0;
    for (size_t k = 0; k < s; k++) rank += family_of(kg_variants[sel[k]].seed) == fam;
    if (is_reference(fam)) fprintf(g, "%s#%06x", s ? " " : "", k_families[fam].dark);
    else fprintf(g, "%s%s", s ? " " : "", palette[rank % (sizeof palette / sizeof palette[0])]);
  }
  fputs("'\n", g);
}

static int bandwidth_draw(const kg__job *job, kg_dtype dt, const int *sel, size_t count, const size_t *sizes,
                          size_t nsizes);
static int bandwidth_one(const kg__job *job, kg_dtype dt) {
  const kg_run *run = job->src->run;
  int *sel = malloc((kg_nvariants + 1) * sizeof *sel);
  size_t *sizes = NULL, count = 0;
  long ns = sel ? timed_sizes(run, dt, &sizes) : -1;
  if (ns < 0) {
    free(sel), free(sizes);
    snprintf(job->err, job->errlen, "out of memory");
    return -1;
  }
  size_t nsizes = (size_t)ns;
  for (size_t v = 0; v < kg_nvariants; v++) {
    int any = 0;
    for (size_t i = 0; i < run->n && !any; i++)
      any = run->cases[i].variant == (int)v && run->cases[i].dtype == dt && timed(run, i);
    if (any) sel[count++] = (int)v;
  }
  int rc = bandwidth_draw(job, dt, sel, count, sizes, nsizes);
  free(sel), free(sizes);
  return rc;
}

/* The bandwidth chart of the variants sel[0..count) at sizes[0..nsizes). */
static int bandwidth_draw(const kg__job *job, kg_dtype dt, const int *sel, size_t count, const size_t *sizes,
                          size_t nsizes) {
  const kg_run *run = job->src->run;
  const kg_dtype_info *di = kg_dtype_get(dt);
  if (!count || !nsizes) return 0;
  kg__pair p;
  if (pair_open(&p, job, di->name,
                "# kgate bandwidth, %s: one block per variant in ladder order (two blank lines apart)\n"
                "# columns: n gbps pct_peak median_us\n",
                di->name))
    return -1;
  const kg_device_info *d = &run->meta.dev;
  FILE *f = p.dat.f, *g = p.vars.f;
  double ymax = d->peak_gbps > 0 ? d->peak_gbps : 0;
  for (size_t s = 0; s < count; s++) {
    fprintf(f, "# %s\n", kg_variants[sel[s]].name);
    for (size_t k = 0; k < nsizes; k++) {
      long i = timed_case(run, sel[s], dt, sizes[k]);
      if (i < 0) continue;
      kg_perf pf = kg_perf_of(run, (size_t)i);
      fprintf(f, "%zu", sizes[k]);
      dat_num(f, pf.gbps);
      dat_num(f, pf.pct_peak > 0 ? pf.pct_peak : NAN);
      dat_num(f, run->results[i].timing.median_us);
      fputc('\n', f);
      if (pf.gbps > ymax) ymax = pf.gbps;
    }
    fputs("\n\n", f);
  }
  /* The x range covers the sizes and the L2 mark, half a power of two beyond
   * (a tick exactly on the edge of the range is not always drawn). */
  double l2_n = d->l2_bytes > 0 ? (double)d->l2_bytes / (double)di->size : NAN;
  double lo = log2((double)sizes[0]), hi = log2((double)sizes[nsizes - 1]);
  if (isfinite(l2_n)) lo = fmin(lo, log2(l2_n)), hi = fmax(hi, log2(l2_n));
  lo -= 0.5, hi += 0.5;
  char sub[400], l2[32];
  run_subtitle(&run->meta, sub, sizeof sub);
  gp_str(g, "title", "%s sum: bandwidth against input size", di->name);
  gp_str(g, "subtitle", "%s", sub);
  gp_num(g, "nseries", (double)count);
  for (size_t s = 0; s < count; s++) gp_item(g, "name", s + 1, kg_variants[sel[s]].name);
  series_styles(g, sel, count);
  size_t npanels = bandwidth_panels(g, sel, count);
  size_t rows = (npanels + 1) / 2;
  gp_num(g, "width", 1500);
  gp_num(g, "height", 130 + 430 * (double)rows);
  gp_num(g, "peak", d->peak_gbps > 0 ? d->peak_gbps : NAN);
  gp_num(g, "roofline", d->roofline_gbps > 0 ? d->roofline_gbps : NAN);
  gp_num(g, "l2_n", l2_n);
  kg_bytes_label((double)d->l2_bytes, l2, sizeof l2);
  gp_str(g, "l2_label", "%s L2", l2);
  gp_num(g, "xmin", exp2(lo));
  gp_num(g, "xmax", exp2(hi));
  gp_num(g, "ymax", ymax * 1.12);
  log2_tics(g, (int)ceil(lo), (int)floor(hi));
  gp_str(g, "xlabel", "n (%s elements, %zu bytes each; log\u2082 scale)", di->name, di->size);
  snprintf(p.chart->caption, sizeof p.chart->caption, "%s: GB/s against n, a panel per family with CUB and kgate in "
           "each, the theoretical peak, the measured roofline and the L2 size", di->name);
  return pair_commit(&p, job);
}

/* ---- 2: the ladder ----------------------------------------------------------- */

/* Size colours for the bars: light for the smaller, dark for the larger. */
static const char *const k_size_colors[] = {"#9ecae1", "#2171b5", "#08306b", "#6baed6"};

static int ladder_draw(const kg__job *job, kg_dtype dt, const int *sel, size_t count, const size_t *sizes,
                       size_t ns);
static int ladder_one(const kg__job *job, kg_dtype dt) {
  const kg_run *run = job->src->run;
  size_t *all = NULL, sizes[2], count = 0;
  long nall = timed_sizes(run, dt, &all);
  int *sel = nall >= 0 ? malloc((kg_nvariants + 1) * sizeof *sel) : NULL;
  if (!sel) {
    free(all);
    snprintf(job->err, job->errlen, "out of memory");
    return -1;
  }
  size_t ns = kg_chart_pick_sizes(all, (size_t)nall, sizes, 2);
  free(all);
  for (size_t v = 0; v < kg_nvariants; v++) {
    int any = 0;
    for (size_t k = 0; k < ns; k++) any |= timed_case(run, (int)v, dt, sizes[k]) >= 0;
    if (any) sel[count++] = (int)v;
  }
  int rc = count && run->meta.dev.peak_gbps > 0 ? ladder_draw(job, dt, sel, count, sizes, ns) : 0;
  free(sel);
  return rc;
}

/* The ladder of the variants sel[0..count) at sizes[0..ns). */
static int ladder_draw(const kg__job *job, kg_dtype dt, const int *sel, size_t count, const size_t *sizes,
                       size_t ns) {
  const kg_run *run = job->src->run;
  const kg_dtype_info *di = kg_dtype_get(dt);
  kg__pair p;
  if (pair_open(&p, job, di->name,
                "# kgate ladder, %s: %% of theoretical peak per variant in ladder order\n# columns: row variant",
                di->name))
    return -1;
  /* Between rows of different families: the ladder reads in groups. */
  fputs("separators = '", p.vars.f);
  for (size_t s = 1; s < count; s++)
    if (family_of(kg_variants[sel[s]].seed) != family_of(kg_variants[sel[s - 1]].seed))
      fprintf(p.vars.f, "%s%.1f", s > 1 ? " " : "", (double)s - 0.5);
  fputs("'\n", p.vars.f);
  FILE *f = p.dat.f, *g = p.vars.f;
  for (size_t k = 0; k < ns; k++) fprintf(f, " pct_%zu", sizes[k]);
  fputc('\n', f);
  double xmax = 0;
  for (size_t s = 0; s < count; s++) {
    fprintf(f, "%zu %s", s, kg_variants[sel[s]].name);
    for (size_t k = 0; k < ns; k++) {
      long i = timed_case(run, sel[s], dt, sizes[k]);
      double pct = i >= 0 ? kg_perf_of(run, (size_t)i).pct_peak : NAN;
      dat_num(f, pct);
      if (pct > xmax) xmax = pct;
    }
    fputc('\n', f);
  }
  const kg_device_info *d = &run->meta.dev;
  double roof = d->roofline_gbps > 0 ? 100 * d->roofline_gbps / d->peak_gbps : NAN;
  char sub[400], label[32], bytes[32];
  run_subtitle(&run->meta, sub, sizeof sub);
  /* A module may add min and max variants: the title then says so (the
   * bars are bytes read per second whatever the op). */
  int only_sums = 1;
  for (size_t k = 0; k < count; k++) only_sums &= kg_variants[sel[k]].op != KG_OP_MIN && kg_variants[sel[k]].op != KG_OP_MAX;
  gp_str(g, "title", "%s %s: %% of theoretical peak (%.0f GB/s), variants in ladder order", di->name,
         only_sums ? "sum" : "reductions (sum, min, max)", d->peak_gbps);
  gp_str(g, "subtitle", "%s", sub);
  gp_num(g, "nrows", (double)count);
  gp_num(g, "nsizes", (double)ns);
  for (size_t k = 0; k < ns; k++) {
    char key[32];
    kg_size_label(sizes[k], label, sizeof label);
    kg_bytes_label((double)sizes[k] * (double)di->size, bytes, sizeof bytes);
    snprintf(key, sizeof key, "size%zu", k + 1);
    gp_str(g, key, "n = %s (%s)", label, bytes);
    snprintf(key, sizeof key, "color%zu", k + 1);
    gp_str(g, key, "%s", k_size_colors[ns == 1 ? 1 : k]);
  }
  gp_num(g, "roofline_pct", roof);
  gp_num(g, "width", 1200);
  /* Room right of the longest bar for its value. */
  gp_num(g, "xmax", fmax(100, xmax) * 1.08);
  gp_num(g, "height", 130 + (double)count * (ns > 1 ? 38 : 26));
  snprintf(p.chart->caption, sizeof p.chart->caption, "%s: %% of theoretical peak per variant, in ladder order", di->name);
  return pair_commit(&p, job);
}

/* ---- 4: comparison ------------------------------------------------------------ */

/* Registry position; names the registry does not know come after it. */
static size_t rank_of(const char *variant) {
  int v = kg_variant_find(variant);
  return v >= 0 ? (size_t)v : kg_nvariants;
}

/* Ladder order of (variant, n) rows: registry position, unknown names
 * after it by name, then n. */
static int ladder_before(const char *xv, size_t xn, const char *yv, size_t yn) {
  size_t rx = rank_of(xv), ry = rank_of(yv);
  int c = rx != ry ? (rx < ry ? -1 : 1) : strcmp(xv, yv);
  return c < 0 || (c == 0 && xn < yn);
}

/* Sorts idx[0..k) (indexes into items, each size bytes, holding a variant
 * name and an n at the given offsets) into ladder order; stable. */
static void ladder_sort(size_t *idx, size_t k, const void *items, size_t size, size_t variant_at, size_t n_at) {
  const char *base = items;
  for (size_t a = 1; a < k; a++)
    for (size_t b = a; b > 0; b--) {
      const char *x = base + idx[b - 1] * size, *y = base + idx[b] * size;
      if (!ladder_before(y + variant_at, *(const size_t *)(y + n_at), x + variant_at, *(const size_t *)(x + n_at)))
        break;
      size_t t = idx[b];
      idx[b] = idx[b - 1], idx[b - 1] = t;
    }
}

/* Rows of this dtype in ladder order, then by n, into idx (room for every row); returns how many. */
static size_t compare_rows(const kg_comparison *cmp, kg_dtype dt, size_t *idx) {
  size_t k = 0;
  for (size_t r = 0; r < cmp->n; r++)
    if (cmp->rows[r].dtype == dt) idx[k++] = r;
  ladder_sort(idx, k, cmp->rows, sizeof *cmp->rows, offsetof(kg_cmp_row, variant), offsetof(kg_cmp_row, n));
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
static void compare_row(FILE *f, const kg_cmp_row *r, double y, double dev) {
  int have = cmp_has_ratio(r);
  double ratio = have ? r->now_us / r->base_us : NAN, shown = have ? fmin(fmax(ratio, 1 - dev), 1 + dev) : 1;
  char label[64] = "";
  int side = 0;
  if (!have) snprintf(label, sizeof label, "%s", kg_verdict_name(r->verdict));
  else if (r->verdict == KG_V_SLOWER || r->verdict == KG_V_FASTER)
    snprintf(label, sizeof label, "%s %+.1f %%", kg_verdict_name(r->verdict), (ratio - 1) * 100);
  if (have) side = ratio >= 1 ? 1 : -1;
  fprintf(f, "%.4f", y);
  dat_num(f, ratio);
  dat_num(f, have ? fmin(1, shown) : NAN);
  dat_num(f, have ? fmax(1, shown) : NAN);
  fprintf(f, " %.4f %.4f", y - 0.36, y + 0.36);
  fprintf(f, " %.4f %.4f 0x%06x", 1 - r->tol, 1 + r->tol, verdict_rgb(r->verdict));
  /* Every row has a label, empty or not: a labels plot is never without
   * points (gnuplot 5.4 crashes on one with none). */
  dat_num(f, have ? shown : 1);
  fprintf(f, " %d %s \"%s\"\n", side, kg_verdict_name(r->verdict), label);
}

static void verdict_colors(FILE *g) {
  for (int v = 0; v < KG_NVERDICTS; v++) {
    char key[24];
    snprintf(key, sizeof key, "color_%s", kg_verdict_name((kg_verdict)v));
    gp_str(g, key, "#%06x", verdict_rgb((kg_verdict)v));
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
  sort_sizes(all, nall);
  size_t drop = nall > KG__COMPARE_PANELS ? nall - KG__COMPARE_PANELS : 0;
  c->ns = nall - drop;
  memcpy(c->sizes, all + drop, c->ns * sizeof *c->sizes);
  c->nleft = 0;
  for (size_t j = 0; j < c->k; j++) {
    size_t n = c->cmp->rows[c->idx[j]].n;
    if (!in_sizes(c->sizes, c->ns, n) && !in_sizes(c->left, c->nleft, n)) c->left[c->nleft++] = n;
  }
  sort_sizes(c->left, c->nleft);
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
    gp_item(g, "panel_title", p + 1, title);
    fprintf(f, "# n = %zu\n", c->sizes[p]);
    for (size_t j = 0; j < c->k; j++) {
      const kg_cmp_row *r = &c->cmp->rows[c->idx[j]];
      if (r->n == c->sizes[p]) compare_row(f, r, (double)name_row(c, r->variant), dev);
    }
    fputs("\n\n", f);
  }
  for (size_t j = 0; j < c->k; j++) count[c->cmp->rows[c->idx[j]].verdict]++;
  kg__tics ytics = {g, "y", 0};
  for (size_t i = 0; i < c->nnames; i++) tic_add(&ytics, c->names[i], "", (double)i);
  tics_end(&ytics);
}

/* The line under the title that says which sizes have no panel and why. */
static void compare_left(FILE *g, const kg__cmpchart *c) {
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
  else if (capped) snprintf(why, sizeof why, "%zu case%s beyond the %d panels a chart holds", capped, capped == 1 ? "" : "s",
                            KG__COMPARE_PANELS);
  else snprintf(why, sizeof why, "%zu case%s timed on one side only", noratio, noratio == 1 ? "" : "s");
  if (!c->nleft) gp_str(g, "left", "%s", "");
  else gp_str(g, "left", "no panel for n = %s%s: %s (all in results.csv)", list, shown < c->nleft ? ", ..." : "", why);
}

static void compare_vars(FILE *g, const kg_run *run, const kg_dtype_info *di, const char *verdicts,
                         const kg__cmpchart *c, double dev, const char *base_label) {
  char sub[400];
  run_subtitle(&run->meta, sub, sizeof sub);
  size_t cols = c->ns < 4 ? c->ns : 4, rows = (c->ns + cols - 1) / cols;
  gp_str(g, "title", "%s sum: time new / baseline per case (%s)", di->name, verdicts);
  gp_str(g, "subtitle", "%s", sub);
  gp_str(g, "note", "vs %s", base_label ? base_label : "the baseline");
  gp_num(g, "npanels", (double)c->ns);
  gp_num(g, "cols", (double)cols);
  gp_num(g, "rows", (double)rows);
  gp_num(g, "nrows", (double)c->nnames);
  gp_num(g, "xmin", 1 - dev);
  gp_num(g, "xmax", 1 + dev);
  gp_num(g, "width", fmax(1100, 240 + 330 * (double)cols));
  gp_num(g, "height", 190 + (double)rows * (60 + (double)c->nnames * 17));
}

/* The .dat headers (macros, so that the compiler checks them as formats). */
#define COMPARE_HEAD                                                                                 \
  "# kgate comparison, %s: a block per size (a panel), one row per case, time new / baseline\n"       \
  "# columns: y ratio bar_lo bar_hi bar_ylo bar_yhi tol_lo tol_hi color label_x side verdict label\n"    \
  "# (ratio ? when either side has no timing; side: the label right of the bar (1), left (-1), at 1 (0))\n"
static int compare_one(const kg__job *job, kg_dtype dt) {
  const kg_run *run = job->src->run;
  const kg_comparison *cmp = job->src->cmp;
  const kg_dtype_info *di = kg_dtype_get(dt);
  size_t *idx = malloc((cmp->n + 1) * sizeof *idx), *sizes = malloc((cmp->n + 1) * sizeof *sizes),
         *left = malloc((cmp->n + 1) * sizeof *left);
  const char **names = malloc((cmp->n + 1) * sizeof *names);
  int rc = -1;
  if (!idx || !sizes || !left || !names) {
    snprintf(job->err, job->errlen, "out of memory");
    goto out;
  }
  kg__cmpchart c = {cmp, idx, compare_rows(cmp, dt, idx), sizes, 0, left, 0, names, 0};
  compare_layout(&c);
  rc = 0;
  if (!c.ns) goto out; /* no case of this dtype timed on both sides: the tables list them */
  double dev = compare_dev(cmp, idx, c.k);
  kg__pair p;
  if ((rc = pair_open(&p, job, di->name, COMPARE_HEAD, di->name))) goto out;
  FILE *f = p.dat.f, *g = p.vars.f;
  size_t count[KG_NVERDICTS] = {0};
  compare_data(f, g, &c, dev, count);
  char verdicts[200];
  kg_rm_verdict_counts(count, 1, verdicts, sizeof verdicts); /* the verdicts shown, in report order */
  compare_vars(g, run, di, verdicts, &c, dev, job->src->base_label);
  compare_left(g, &c);
  verdict_colors(g);
  snprintf(p.chart->caption, sizeof p.chart->caption, "%s: time of this run over the baseline's per case (%.140s)",
           di->name, verdicts);
  rc = pair_commit(&p, job);
out:
  free(idx), free(sizes), free(left), free(names);
  return rc;
}

/* ---- 5: the paired gate ----------------------------------------------------------- */

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
  ladder_sort(idx, *k, run->pairs, sizeof *run->pairs, offsetof(kg_pair_cell, variant), offsetof(kg_pair_cell, n));
  return drawn;
}

/* Row j of the paired chart: its y tic and its line in the .dat. */
static void paired_row(FILE *f, kg__tics *ytics, const kg_pair_cell *c, size_t j, double half) {
  const kg_pair_stat *st = &c->stat;
  int have = pair_drawn(c);
  char slabel[32], tic[128], label[96];
  kg_size_label(c->n, slabel, sizeof slabel);
  snprintf(tic, sizeof tic, "%s  %s", c->variant, slabel);
  tic_add(ytics, tic, "", (double)j);
  double chg = have ? (st->ratio - 1) * 100 : NAN, lo = have ? (st->lo - 1) * 100 : NAN,
         hi = have ? (st->hi - 1) * 100 : NAN;
  double band = c->min_effect > 0 && isfinite(c->min_effect) ? fmin(c->min_effect * 100, half) : NAN;
  const char *vname = kg_pverdict_name(st->verdict);
  if (have) snprintf(label, sizeof label, "%s %+.2f %% [%+.2f, %+.2f]", vname, chg, lo, hi);
  else snprintf(label, sizeof label, "%s: %s", vname, kg_rm_pverdict_brief(st->verdict));
  fprintf(f, "%zu", j);
  dat_num(f, chg);
  dat_num(f, lo);
  dat_num(f, hi);
  dat_num(f, have ? fmin(fmax(chg, -half), half) : NAN);
  dat_num(f, have ? fmin(fmax(lo, -half), half) : NAN);
  dat_num(f, have ? fmin(fmax(hi, -half), half) : NAN);
  dat_num(f, have ? band : NAN);
  fprintf(f, " %.2f %.2f 0x%06x", (double)j - 0.42, (double)j + 0.42, pverdict_rgb(st->verdict));
  /* Every row has a label at the right edge: the labels plot is never empty
   * (gnuplot 5.4 crashes on a labels plot with no point). */
  dat_num(f, half);
  fprintf(f, " %s \"%s\"\n", vname, label);
}

static void paired_vars(FILE *g, const kg_run *run, const kg_dtype_info *di, const char *verdicts, size_t k,
                        double half) {
  char date[48];
  kg_date_label(run->meta.date, date, sizeof date);
  const kg_pair_meta *m = &run->pair;
  gp_str(g, "title", "%s sum, paired gate: change head / base per cell (%s)", di->name, verdicts);
  gp_str(g, "subtitle", "%s \u00b7 %s \u00b7 head commit %s \u00b7 base %s %s",
         run->meta.dev.name[0] ? run->meta.dev.name : "unknown GPU", date,
         run->meta.commit[0] ? run->meta.commit : "unknown", m->base_name[0] ? m->base_name : "(unnamed module)",
         m->base_version[0] ? m->base_version : "(no version)");
  gp_str(g, "note", "bars: the %.4g %% interval over blocks \u00b7 shaded: \u00b1 the cell's minimum effect",
         m->confidence > 0 && m->confidence < 1 ? m->confidence * 100 : 99);
  gp_num(g, "nrows", (double)k);
  gp_num(g, "xmin", -half);
  gp_num(g, "xmax", half);
  gp_num(g, "width", 1300);
  gp_num(g, "height", 190 + (double)k * 26);
  for (int v = 0; v < KG_NPVERDICTS; v++) {
    char key[24];
    snprintf(key, sizeof key, "color_%s", kg_pverdict_name((kg_pverdict)v));
    gp_str(g, key, "#%06x", pverdict_rgb((kg_pverdict)v));
  }
}

/* The paired gate's cells (run->pairs): per dtype with at least one cell
 * that has numbers, a row per (variant, n) in ladder order; NEW, MISSING,
 * UNKNOWN and UNCHANGED cells are rows of text, no point. */
#define PAIRED_HEAD                                                                                  \
  "# kgate paired gate, %s: one row per cell (variant, n), change head / base - 1 in %%\n"               \
  "# columns: y change lo hi shown shown_lo shown_hi band band_ylo band_yhi color label_x verdict label\n" \
  "# (change lo hi: the true numbers; shown*: clipped to the x range; band: the minimum effect, %%;\n"   \
  "#  ? where a cell has none: NEW, MISSING, UNKNOWN and UNCHANGED rows are text only)\n"
static int paired_draw(const kg__job *job, kg_dtype dt, const size_t *idx, size_t k);
static int paired_one(const kg__job *job, kg_dtype dt) {
  const kg_run *run = job->src->run;
  size_t *idx = malloc((run->npairs + 1) * sizeof *idx), k;
  if (!idx) {
    snprintf(job->err, job->errlen, "out of memory");
    return -1;
  }
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
  if (pair_open(&p, job, di->name, PAIRED_HEAD, di->name)) return -1;
  FILE *f = p.dat.f, *g = p.vars.f;
  size_t count[KG_NPVERDICTS] = {0};
  kg__tics ytics = {g, "y", 0};
  for (size_t j = 0; j < k; j++) {
    paired_row(f, &ytics, &run->pairs[idx[j]], j, half);
    count[run->pairs[idx[j]].stat.verdict]++;
  }
  tics_end(&ytics);
  char verdicts[200];
  kg_rm_pverdict_counts(count, 1, verdicts, sizeof verdicts); /* the verdicts shown, in report order */
  paired_vars(g, run, di, verdicts, k, half);
  snprintf(p.chart->caption, sizeof p.chart->caption,
           "%s: change head / base per cell with its interval (%.100s)", di->name, verdicts);
  return pair_commit(&p, job);
}

/* ---- 3: trend over the history --------------------------------------------------- */

/* % of peak of a time on the device of run r. */
static double pct_at(const kg_hist_run *r, kg_dtype dt, size_t n, double us) {
  if (!(us > 0) || !(r->dev.peak_gbps > 0)) return NAN;
  return 100 * (double)n * (double)kg_dtype_get(dt)->size / (us * 1e3) / r->dev.peak_gbps;
}

/* Tick labels for runs: the shortest of MM-DD, MM-DD HH:MM and MM-DD
 * HH:MM:SS that tells neighbouring runs apart. */
static void run_label(const kg_hist_run *r, int precision, char *buf, size_t len) {
  const char *d = r->date;
  if (strlen(d) < 19 || d[10] != 'T') snprintf(buf, len, "%.16s", d);
  else if (precision == 0) snprintf(buf, len, "%.5s", d + 5);
  else if (precision == 1) snprintf(buf, len, "%.5s %.5s", d + 5, d + 11);
  else snprintf(buf, len, "%.5s %.8s", d + 5, d + 11);
}

static const kg_base_entry *base_find(const kg_baseline *b, const char *variant, kg_dtype dt, size_t n) {
  for (size_t i = 0; b && i < b->n; i++)
    if (b->entries[i].dtype == dt && b->entries[i].n == n && !strcmp(b->entries[i].variant, variant) &&
        b->entries[i].t.samples > 0)
      return &b->entries[i];
  return NULL;
}

/* Registry (ladder) order of variant names, unknown names after it by name. */
static int ladder_cmp(const void *pa, const void *pb) {
  const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
  size_t ra = rank_of(a), rb = rank_of(b);
  return ra != rb ? (ra < rb ? -1 : 1) : strcmp(a, b);
}

typedef struct kg__trend {
  const kg_history *h;
  const size_t *runs; /* the runs drawn (one L2 mode), history indices */
  size_t nruns;
  const kg_baseline *base; /* may be NULL */
  double tol_pct;
  const kg_detection *det; /* the detector over the history, or NULL */
  const kg_night *nights;  /* each history night's verdict (rmodel.h, kg_night_verdicts) */
} kg__trend;

/* A night's verdict as a data column: its word, quoted ("RUNNER HEALTH" is two). */
static void dat_verdict(FILE *f, const kg__trend *t, size_t run) {
  fprintf(f, " \"%s\"", kg_night_verdict_name(t->nights[run].verdict));
}

/* Each night's verdict of h (det may be NULL), malloc'ed; NULL out of memory. */
static kg_night *night_verdicts(const kg_history *h, const kg_detection *det) {
  kg_night *v = malloc((h->n ? h->n : 1) * sizeof *v);
  if (v) kg_night_verdicts(h, det, v);
  return v;
}

/* Entries of every run drawn: room enough for any list built from them. */
static size_t trend_entries(const kg__trend *t) {
  size_t total = 0;
  for (size_t j = 0; j < t->nruns; j++) total += t->h->runs[t->runs[j]].n;
  return total;
}

/* The size a trend shows: 2^25 if any run timed it, else the largest timed.
 * 0 when no run timed dt, -1 out of memory. */
static int trend_size(const kg__trend *t, kg_dtype dt, size_t *n) {
  size_t *all = calloc(trend_entries(t) + 1, sizeof *all), nall = 0, picked[2];
  if (!all) return -1;
  for (size_t j = 0; j < t->nruns; j++) {
    const kg_hist_run *r = &t->h->runs[t->runs[j]];
    for (size_t i = 0; i < r->n; i++)
      if (r->entries[i].dtype == dt) all[nall++] = r->entries[i].n; /* repeats: kg_chart_pick_sizes counts them once */
  }
  size_t np = kg_chart_pick_sizes(all, nall, picked, 2);
  free(all);
  if (np) *n = picked[np - 1];
  return np != 0;
}

/* Variants: every name timed at n in some run (one pass: a year of nightly
 * runs is ~10^6 entries), in registry order, unknown names last. */
static size_t trend_names(const kg__trend *t, kg_dtype dt, size_t n, const char **names) {
  size_t count = 0;
  for (size_t j = 0; j < t->nruns; j++) {
    const kg_hist_run *r = &t->h->runs[t->runs[j]];
    for (size_t i = 0; i < r->n; i++) {
      const kg_hist_entry *e = &r->entries[i];
      if (e->dtype != dt || e->n != n) continue;
      size_t c = 0;
      while (c < count && strcmp(names[c], e->variant)) c++;
      if (c == count) names[count++] = e->variant;
    }
  }
  qsort(names, count, sizeof *names, ladder_cmp);
  return count;
}

/* Per-variant lists of numbers for the .vars file, built beside the data
 * and written once complete. */
enum { KG__NLISTS = 4 };
typedef struct kg__lists {
  FILE *f[KG__NLISTS];
  char *buf[KG__NLISTS];
  size_t len[KG__NLISTS];
} kg__lists;

static int lists_open(kg__lists *l) {
  int bad = 0;
  memset(l, 0, sizeof *l);
  for (int k = 0; k < KG__NLISTS; k++) bad |= !(l->f[k] = open_memstream(&l->buf[k], &l->len[k]));
  if (bad)
    for (int k = 0; k < KG__NLISTS; k++)
      if (l->f[k]) fclose(l->f[k]), free(l->buf[k]);
  return bad ? -1 : 0;
}

static void lists_write(FILE *g, kg__lists *l) {
  fputs("# per variant: the baseline's % of peak and its tolerance band (nan: none), y ranges (lo hi)\n", g);
  static const char *const keys[KG__NLISTS] = {"base_mid", "base_lo", "base_hi", "yranges"};
  for (int k = 0; k < KG__NLISTS; k++) {
    fclose(l->f[k]);
    fprintf(g, "%s = '%s'\n", keys[k], l->buf[k] ? l->buf[k] : ""); /* numbers only */
    free(l->buf[k]);
  }
}

/* A variant's block in the .dat: a row per run that timed it, with the
 * night's verdict (the report model's) and its marker: -1 on a night the
 * verdict is REGRESSION because of this cell (an open finding that holds
 * the night names it). Widens [*lo, *hi] to its numbers; returns the
 * markers. */
static size_t trend_block(FILE *f, const kg__trend *t, const char *name, kg_dtype dt, size_t n, double *lo,
                          double *hi) {
  size_t flagged = 0;
  dat_comment(f, name);
  for (size_t j = 0; j < t->nruns; j++) {
    const kg_hist_run *r = &t->h->runs[t->runs[j]];
    const kg_hist_entry *e = kg_hist_find(r, name, dt, n);
    if (!e) continue;
    double pm = pct_at(r, dt, n, e->t.median_us), pq3 = pct_at(r, dt, n, e->t.q3_us),
           pq1 = pct_at(r, dt, n, e->t.q1_us);
    int mark = t->nights[t->runs[j]].verdict == KG_NIGHT_REGRESSION &&
                       kg_night_regressed(t->h, t->det, t->runs[j], name, dt, n)
                   ? -1
                   : 0;
    flagged += mark != 0;
    fprintf(f, "%zu", j + 1);
    dat_num(f, pm);
    dat_num(f, pq3);
    dat_num(f, pq1);
    fprintf(f, " %d", mark);
    dat_verdict(f, t, t->runs[j]);
    fputc('\n', f);
    *lo = fmin(*lo, fmin(pm, pq3)), *hi = fmax(*hi, fmax(pm, pq1));
  }
  fputs("\n\n", f);
  return flagged;
}

/* Variant c's entries in the lists: the baseline's % of peak on the latest
 * run's device and its tolerance band (NaN: no baseline), and the y range
 * of its panel over [lo, hi] and the band. */
static void trend_lists(kg__lists *l, const kg__trend *t, size_t c, const char *name, kg_dtype dt, size_t n,
                        double lo, double hi) {
  const kg_dtype_info *di = kg_dtype_get(dt);
  const kg_base_entry *b = base_find(t->base, name, dt, n);
  double tol = kg_tolerance(n * di->size, t->tol_pct), mid = NAN, blo = NAN, bhi = NAN;
  if (b) {
    mid = pct_at(&t->h->runs[t->runs[t->nruns - 1]], dt, n, b->t.median_us);
    blo = mid / (1 + tol), bhi = mid / (1 - tol);
    lo = fmin(lo, blo), hi = fmax(hi, bhi);
  }
  /* A panel spans at least a tenth of its level, so noise is not magnified into a cliff. */
  double centre = (lo + hi) / 2, span = fmax(hi - lo, fmax(0.1 * centre, 1e-3));
  fprintf(l->f[0], "%s%.6g", c ? " " : "", mid);
  fprintf(l->f[1], "%s%.6g", c ? " " : "", blo);
  fprintf(l->f[2], "%s%.6g", c ? " " : "", bhi);
  fprintf(l->f[3], "%s%.6g %.6g", c ? " " : "", fmax(0, centre - span * 0.65), centre + span * 0.65);
}

/* Tick labels: as short as tells neighbouring runs apart, at most five a
 * panel, the date over the time so a label stays narrow. */
static void trend_xtics(FILE *g, const kg__trend *t) {
  const kg_history *h = t->h;
  int precision = 0;
  for (; precision < 2; precision++) {
    int clash = 0;
    for (size_t j = 1; j < t->nruns && !clash; j++) {
      char a[32], b2[32];
      run_label(&h->runs[t->runs[j - 1]], precision, a, sizeof a);
      run_label(&h->runs[t->runs[j]], precision, b2, sizeof b2);
      clash = !strcmp(a, b2);
    }
    if (!clash) break;
  }
  size_t every = (t->nruns + 4) / 5;
  kg__tics xtics = {g, "x", 0};
  for (size_t j = 0; j < t->nruns; j += every) {
    char a[32];
    run_label(&h->runs[t->runs[j]], precision, a, sizeof a);
    char *time = strchr(a, ' ');
    if (time) *time++ = '\0';
    tic_add(&xtics, a, time ? time : "", (double)(j + 1)); /* trend.gp puts the time under the date */
  }
  tics_end(&xtics);
}

/* The panel grid, the titles and the legend. */
static void trend_vars(FILE *g, const kg__trend *t, const kg_dtype_info *di, size_t n, size_t count, size_t flagged) {
  const kg_hist_run *last = &t->h->runs[t->runs[t->nruns - 1]];
  size_t cols = count < 4 ? count : 4, rows = (count + cols - 1) / cols;
  gp_num(g, "cols", (double)cols);
  gp_num(g, "rows", (double)rows);
  gp_num(g, "width", cols < 4 ? 420 * (double)cols + 80 : 1500);
  gp_num(g, "height", 190 + 250 * (double)rows);
  char label[32], bytes[32], first[48], lastd[48];
  kg_size_label(n, label, sizeof label);
  kg_bytes_label((double)n * (double)di->size, bytes, sizeof bytes);
  kg_date_label(t->h->runs[t->runs[0]].date, first, sizeof first);
  kg_date_label(last->date, lastd, sizeof lastd);
  gp_str(g, "title", "%s sum at n = %s (%s): %% of theoretical peak over %zu run%s", di->name, label, bytes, t->nruns,
         t->nruns == 1 ? "" : "s");
  if (t->det)
    gp_str(g, "subtitle", "%s \u00b7 %s to %s \u00b7 %s L2 \u00b7 %zu point%s of a REGRESSION night marked", last->dev.name,
           first, lastd, last->hot ? "warm" : "cold", flagged, flagged == 1 ? "" : "s");
  else
    gp_str(g, "subtitle", "%s \u00b7 %s to %s \u00b7 %s L2", last->dev.name, first, lastd, last->hot ? "warm" : "cold");
  gp_str(g, "legend", "line: median %% of peak (bars: quartiles) \u00b7 %s%s", t->base ? "band: baseline \u00b1 "
         "tolerance (dashed: its median); \u25ef outside the band" : "no baseline given: no band",
         t->det ? " \u00b7 \u25bc a night the nightly's detector calls REGRESSION, on the cells its finding names" : "");
}

static int trend_names_draw(const kg__job *job, const kg__trend *t, kg_dtype dt, size_t n, const char **names,
                            size_t count);
static int trend_draw(const kg__job *job, const kg__trend *t, kg_dtype dt) {
  size_t n;
  int have = trend_size(t, dt, &n);
  const char **names = have > 0 ? malloc((trend_entries(t) + 1) * sizeof *names) : NULL;
  if (have < 0 || (have && !names)) {
    snprintf(job->err, job->errlen, "out of memory");
    return -1;
  }
  size_t count = have ? trend_names(t, dt, n, names) : 0;
  int rc = count ? trend_names_draw(job, t, dt, n, names, count) : 0;
  free(names);
  return rc;
}

/* The trend of the variants names[0..count) at n. */
static int trend_names_draw(const kg__job *job, const kg__trend *t, kg_dtype dt, size_t n, const char **names,
                            size_t count) {
  const kg_dtype_info *di = kg_dtype_get(dt);
  kg__pair p;
  if (pair_open(&p, job, di->name,
                "# kgate trend, %s, n = %zu: one block per variant (two blank lines apart), one row per run\n"
                "# columns: run pct_peak pct_at_q3 pct_at_q1 mark verdict (the night's verdict; mark -1: REGRESSION in "
                "this cell)\n",
                di->name, n))
    return -1;
  FILE *f = p.dat.f, *g = p.vars.f;
  kg__lists l;
  if (lists_open(&l)) {
    kg_out_abort(&p.dat);
    kg_out_abort(&p.vars);
    snprintf(job->err, job->errlen, "out of memory");
    return -1;
  }
  size_t flagged = 0;
  for (size_t c = 0; c < count; c++) {
    double lo = INFINITY, hi = -INFINITY;
    flagged += trend_block(f, t, names[c], dt, n, &lo, &hi);
    gp_item(g, "name", c + 1, names[c]);
    trend_lists(&l, t, c, names[c], dt, n, lo, hi);
  }
  lists_write(g, &l);
  gp_num(g, "nseries", (double)count);
  gp_num(g, "nruns", (double)t->nruns);
  trend_xtics(g, t);
  trend_vars(g, t, di, n, count, flagged);
  snprintf(p.chart->caption, sizeof p.chart->caption, "%s: %% of peak at n = %zu per variant over %zu runs%s", di->name,
           n, t->nruns, t->base ? ", baseline band" : "");
  return pair_commit(&p, job);
}

static int trend_one(const kg__job *job, kg_dtype dt) {
  const kg_chart_src *s = job->src;
  const kg_history *h = s->history;
  /* One L2 mode per chart, the latest run's: cold and warm times differ by design. */
  size_t *runs = malloc(h->n * sizeof *runs), nruns = 0;
  if (!runs) {
    snprintf(job->err, job->errlen, "out of memory");
    return -1;
  }
  for (size_t j = 0; j < h->n; j++)
    if (h->runs[j].hot == h->runs[h->n - 1].hot) runs[nruns++] = j;
  kg_night *nights = night_verdicts(h, s->detect);
  if (!nights) {
    free(runs);
    snprintf(job->err, job->errlen, "out of memory");
    return -1;
  }
  kg__trend t = {h, runs, nruns, s->band, s->tol_pct, s->detect, nights};
  int rc = trend_draw(job, &t, dt);
  free(runs);
  free(nights);
  return rc;
}

/* ---- 6: the ratio to the pinned reference, per night ------------------------------------- */

/* The finding f holds (variant, dtype, n). */
static int finding_has(const kg_finding *f, const char *variant, kg_dtype dt, size_t n) {
  for (size_t i = 0; i < f->ncells; i++)
    if (f->cells[i].dtype == dt && f->cells[i].n == n && !strcmp(f->cells[i].variant, variant)) return 1;
  return 0;
}

static int series_in_findings(const kg_detection *d, const kg_series *s) {
  for (size_t i = 0; i < d->nfind; i++)
    if (finding_has(&d->find[i], s->variant, s->dtype, s->n)) return 1;
  return 0;
}

/* How near a series is to an alarm at its latest night: its larger CUSUM sum over the threshold. */
static double alarm_share(const kg_series *s, size_t nruns) {
  for (size_t j = nruns; j-- > 0;)
    if (isfinite(s->ratio[j])) {
      double m = fmax(isfinite(s->up[j]) ? s->up[j] : 0, isfinite(s->down[j]) ? s->down[j] : 0);
      return s->h > 0 ? m / s->h : m;
    }
  return -1;
}

/* The severity a finding is drawn in: an acknowledged one in the notice's grey. */
static kg_severity finding_severity(const kg_finding *f) {
  return f->acknowledged ? KG_SEV_NOTICE : kg_find_severity(f->kind);
}

typedef struct kg__pick {
  const kg_series *s;
  int found;    /* in a finding */
  double share; /* alarm_share */
} kg__pick;

/* Findings' cells first, then the nearest to an alarm, then ladder order. */
static int pick_cmp(const void *pa, const void *pb) {
  const kg__pick *a = pa, *b = pb;
  if (a->found != b->found) return b->found - a->found;
  if (a->share != b->share) return a->share > b->share ? -1 : 1;
  size_t ra = rank_of(a->s->variant), rb = rank_of(b->s->variant);
  return ra != rb ? (ra < rb ? -1 : 1) : a->s->n < b->s->n ? -1 : a->s->n > b->s->n;
}

/* Chart room: 2 rows of 4 panels stay readable at half a page's width. */
enum { KG__RATIO_PANELS = 8 };

/* The runs with a paired section (the chart's x), history indices; malloc'ed. */
static size_t *paired_runs(const kg_history *h, size_t *n) {
  size_t *r = malloc((h->n + 1) * sizeof *r);
  *n = 0;
  for (size_t j = 0; r && j < h->n; j++)
    if (h->runs[j].paired.has) r[(*n)++] = j;
  return r;
}

/* The .dat block of one panel: a row per paired night, (ratio - 1) in %,
 * and the night's verdict (the report model's). */
static void ratio_block(FILE *f, const kg__trend *t, const kg_series *s) {
  fprintf(f, "# %s %s %zu\n", s->variant, kg_dtype_get(s->dtype)->name, s->n);
  for (size_t j = 0; j < t->nruns; j++) {
    size_t r = t->runs[j];
    fprintf(f, "%zu", j + 1);
    dat_num(f, (s->ratio[r] - 1) * 100);
    dat_num(f, (s->lo[r] - 1) * 100);
    dat_num(f, (s->hi[r] - 1) * 100);
    dat_verdict(f, t, r);
    fputc('\n', f);
  }
  fputs("\n\n", f);
}

/* A panel's y range: its points, intervals and level, at least +-0.5 %. */
static void ratio_range(FILE *g, const kg__trend *t, const kg_series *s, size_t i) {
  double lo = (s->level - 1) * 100, hi = lo;
  for (size_t j = 0; j < t->nruns; j++) {
    size_t r = t->runs[j];
    if (isfinite(s->lo[r])) lo = fmin(lo, (s->lo[r] - 1) * 100);
    if (isfinite(s->hi[r])) hi = fmax(hi, (s->hi[r] - 1) * 100);
  }
  double mid = (lo + hi) / 2, half = fmax((hi - lo) / 2 * 1.15, 0.5);
  char key[24];
  snprintf(key, sizeof key, "ylo%zu", i);
  gp_num(g, key, mid - half);
  snprintf(key, sizeof key, "yhi%zu", i);
  gp_num(g, key, mid + half);
  snprintf(key, sizeof key, "level%zu", i);
  gp_num(g, key, isfinite(s->level) ? (s->level - 1) * 100 : NAN);
}

/* The change points of panel i: each finding's first bad night that names
 * its cell, as mark_panel<k>, mark_x<k>, mark_color<k>. */
static size_t ratio_marks(FILE *g, const kg__trend *t, const kg_detection *d, const kg_series *s, size_t i,
                          size_t nmarks) {
  for (size_t k = 0; k < d->nfind; k++) {
    const kg_finding *fd = &d->find[k];
    if (!finding_has(fd, s->variant, s->dtype, s->n)) continue;
    size_t x = 0;
    for (size_t j = 0; j < t->nruns; j++)
      if (t->runs[j] == fd->first_bad) x = j + 1;
    if (!x) continue;
    char key[24], rgb[16];
    nmarks++;
    snprintf(key, sizeof key, "mark_panel%zu", nmarks);
    gp_num(g, key, (double)i);
    snprintf(key, sizeof key, "mark_x%zu", nmarks);
    gp_num(g, key, (double)x - 0.5); /* between the last good night and the first bad */
    snprintf(rgb, sizeof rgb, "#%06x", kg_severity_get(finding_severity(fd))->ink);
    gp_item(g, "mark_color", nmarks, rgb);
  }
  return nmarks;
}

static void ratio_vars(FILE *g, const kg__trend *t, const kg_dtype_info *di, size_t shown, size_t found,
                       size_t total) {
  const kg_hist_run *last = &t->h->runs[t->runs[t->nruns - 1]];
  size_t cols = shown < 4 ? shown : 4, rows = (shown + cols - 1) / cols;
  char first[48], lastd[48];
  kg_date_label(t->h->runs[t->runs[0]].date, first, sizeof first);
  kg_date_label(last->date, lastd, sizeof lastd);
  gp_num(g, "npanels", (double)shown);
  gp_num(g, "cols", (double)cols);
  gp_num(g, "rows", (double)rows);
  gp_num(g, "nruns", (double)t->nruns);
  gp_num(g, "width", cols < 4 ? 420 * (double)cols + 80 : 1500);
  gp_num(g, "height", 200 + 260 * (double)rows);
  gp_str(g, "title", "%s sum: time against the pinned reference, per night (tonight / reference \u2212 1)", di->name);
  gp_str(g, "subtitle", "%s \u00b7 %s to %s \u00b7 reference %s %s", last->dev.name, first, lastd,
         last->paired.ref_name[0] ? last->paired.ref_name : "(unnamed)", last->paired.ref_version);
  if (shown < total)
    gp_str(g, "legend", "%zu of %zu cells: %zu in findings, then the nearest to an alarm (CUSUM over its threshold); "
           "%zu not shown \u00b7 bars: interval \u00b7 dashed: accepted level \u00b7 vertical: first bad night",
           shown, total, found < shown ? found : shown, total - shown);
  else
    gp_str(g, "legend", "all %zu cells \u00b7 bars: interval \u00b7 dashed: accepted level \u00b7 vertical: first bad "
           "night", total);
}

static int ratio_draw(const kg__job *job, const kg__trend *t, const kg_detection *d, kg_dtype dt) {
  const kg_dtype_info *di = kg_dtype_get(dt);
  kg__pick *pick = malloc((d->nseries + 1) * sizeof *pick);
  size_t total = 0, found = 0;
  if (!pick) {
    snprintf(job->err, job->errlen, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < d->nseries; i++) {
    const kg_series *s = &d->series[i];
    if (s->dtype != dt || alarm_share(s, t->h->n) < 0) continue; /* no night has the cell */
    pick[total] = (kg__pick){s, series_in_findings(d, s), alarm_share(s, t->h->n)};
    found += pick[total++].found;
  }
  qsort(pick, total, sizeof *pick, pick_cmp);
  size_t shown = total < KG__RATIO_PANELS ? total : KG__RATIO_PANELS;
  int rc = 0;
  kg__pair p;
  if (shown && !(rc = pair_open(&p, job, di->name,
                                "# kgate ratio to the pinned reference, %s: a block per cell (a panel), a row per "
                                "paired night\n# columns: night change lo hi (tonight / reference - 1, %%) verdict (the night's)\n",
                                di->name))) {
    size_t nmarks = 0;
    for (size_t i = 0; i < shown; i++) {
      const kg_series *s = pick[i].s;
      char name[128], label[32];
      kg_size_label(s->n, label, sizeof label);
      snprintf(name, sizeof name, "%s  %s", s->variant, label);
      gp_item(p.vars.f, "name", i + 1, name);
      ratio_block(p.dat.f, t, s);
      ratio_range(p.vars.f, t, s, i + 1);
      nmarks = ratio_marks(p.vars.f, t, d, s, i + 1, nmarks);
    }
    gp_num(p.vars.f, "nmarks", (double)nmarks);
    trend_xtics(p.vars.f, t);
    ratio_vars(p.vars.f, t, di, shown, found, total);
    snprintf(p.chart->caption, sizeof p.chart->caption,
             "%s: tonight / reference per night for %zu of %zu cells (those in findings first, then the nearest to an "
             "alarm), with intervals, the accepted level and the change points",
             di->name, shown, total);
    rc = pair_commit(&p, job);
  }
  free(pick);
  return rc;
}

static int ratio_one(const kg__job *job, kg_dtype dt) {
  const kg_chart_src *s = job->src;
  size_t nruns;
  size_t *runs = paired_runs(s->history, &nruns);
  if (!runs) {
    snprintf(job->err, job->errlen, "out of memory");
    return -1;
  }
  kg_night *nights = night_verdicts(s->history, s->detect);
  if (!nights) {
    free(runs);
    snprintf(job->err, job->errlen, "out of memory");
    return -1;
  }
  kg__trend t = {s->history, runs, nruns, NULL, 0, s->detect, nights};
  int rc = nruns ? ratio_draw(job, &t, s->detect, dt) : 0;
  free(runs);
  free(nights);
  return rc;
}

/* ---- the charts of a run: one table ------------------------------------------------ */

/* What a chart is drawn from. */
typedef enum kg__when {
  KG__WITH_RUN,     /* the run's own charts (plot, run --plots, report) */
  KG__WITH_PAIRED,  /* the same, when the run is paired */
  KG__WITH_CMP,     /* a comparison with a baseline */
  KG__WITH_HISTORY, /* a history (history plot, report --history) */
  KG__WITH_DETECT,  /* a history with paired nights, read by the detector */
} kg__when;

/* Every chart kgate draws, in the order the page lists them: a new chart is
 * a row here (its writer draws one dtype) and its script plots/<name>.gp. */
static const struct {
  kg_chart_kind_info info;
  kg__when when;
  int (*one)(const kg__job *job, kg_dtype dt);
} k_charts[] = {
    {{"ratio", "Against the pinned reference, per night"}, KG__WITH_DETECT, ratio_one},
    {{"bandwidth", "Bandwidth against input size"}, KG__WITH_RUN, bandwidth_one},
    {{"ladder", "The ladder: % of theoretical peak"}, KG__WITH_RUN, ladder_one},
    {{"trend", "Trend: % of peak over the history"}, KG__WITH_HISTORY, trend_one},
    {{"compare", "Comparison with the baseline"}, KG__WITH_CMP, compare_one},
    {{"paired", "Paired gate: change against the base build"}, KG__WITH_PAIRED, paired_one},
};
enum { KG__NKINDS = sizeof k_charts / sizeof k_charts[0] };

int kg_chart_nkinds(void) { return KG__NKINDS; }

const kg_chart_kind_info *kg_chart_kind_get(kg_chart_kind k) {
  return k >= 0 && k < KG__NKINDS ? &k_charts[k].info : NULL;
}

kg_chart_kind kg_chart_kind_find(const char *name) {
  for (int k = 0; k < KG__NKINDS; k++)
    if (!strcmp(k_charts[k].info.name, name)) return k;
  return -1;
}

static int applies(kg__when w, const kg_chart_src *s) {
  switch (w) {
  case KG__WITH_RUN: return s->run && s->with_run;
  case KG__WITH_PAIRED: return s->run && s->with_run && s->run->pair.on;
  case KG__WITH_CMP: return s->run && s->cmp;
  case KG__WITH_HISTORY: return s->history && s->history->n;
  case KG__WITH_DETECT: return s->history && s->history->n && s->detect && s->detect->nseries;
  }
  return 0;
}

int kg_chart_write(const char *dir, const kg_chart_src *src, const char *only, kg_charts *out, char *err,
                   size_t errlen) {
  for (int k = 0; k < KG__NKINDS; k++) {
    if ((only && strcmp(only, k_charts[k].info.name)) || !applies(k_charts[k].when, src)) continue;
    kg__job job = {dir, src, k, k_charts[k].info.name, out, err, errlen};
    for (int d = 0; d < KG_NDTYPES; d++)
      if (k_charts[k].one(&job, (kg_dtype)d)) return -1;
  }
  return 0;
}
