/* plot and chart: the data files of every chart, finding gnuplot and the
 * scripts, running gnuplot (a fake one on PATH, and the real one when it is
 * installed), and the plot / report / --plots commands without gnuplot. */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chart.h"
#include "fileio.h"
#include "cli.h"
#include "settings.h"
#include "publish.h"
#include "history.h"
#include "plot.h"
#include "varreg.h"
#include "svg.h"
#include "testutil.h"

#define PUB(cli) ((kg_publish_opts *)(cli).settings)

#define M22 ((size_t)1 << 22)
#define M25 ((size_t)1 << 25)

enum { MAXCASES = 32 };
static kg_case g_cases[MAXCASES];
static kg_result g_results[MAXCASES];
static kg_run g_run;
static char g_dir[64], g_tools[64], g_saved_path[8192];
static kg_charts g_charts;
static kg_pair_cell g_pairs[16];

static void add_case(const char *variant, kg_dtype dt, size_t n, int timed, double us) {
  size_t i = g_run.n++;
  g_cases[i] = (kg_case){kg_variant_find(variant), dt, n, KG_PAT_UNIFORM, 1, timed};
  g_results[i] = (kg_result){.status = KG_ST_PASS, .got = "1", .expected = "1"};
  if (timed && us > 0) g_results[i].timing = kgt_timing(us);
}

/* f32 timed at 1024, 2^22 and 2^25 (CUB not at 1024, reduce7 not at 2^22),
 * and an i32 case that is only checked: i32 gets no chart. */
static void make_run(void) {
  memset(&g_run, 0, sizeof g_run);
  g_run.cases = g_cases, g_run.results = g_results;
  add_case("reduce0_divergent", KG_F32, 1024, 1, 5);
  add_case("reduce0_divergent", KG_F32, M22, 1, 60);
  add_case("reduce0_divergent", KG_F32, M25, 1, 200);
  add_case("reduce7_shuffle", KG_F32, 1024, 1, 4);
  add_case("reduce7_shuffle", KG_F32, M25, 1, 44);
  add_case("cub_sum", KG_F32, M22, 1, 11);
  add_case("cub_sum", KG_F32, M25, 1, 36);
  add_case("reduce0_divergent", KG_I32, 33, 0, 0);
  kg_run_meta *m = &g_run.meta;
  kgt_stamp(m, "abc123def456");
  m->dev = kgt_h200();
}

/* A paired cell; blocks 0 for NEW, MISSING and UNKNOWN (no numbers). */
static void add_pair(const char *variant, kg_dtype dt, size_t n, kg_pverdict v, double ratio, double lo, double hi,
                     double min_effect) {
  ck_assert_uint_lt(g_run.npairs, sizeof g_pairs / sizeof g_pairs[0]);
  kg_pair_cell *c = &g_pairs[g_run.npairs++];
  *c = (kg_pair_cell){.dtype = dt, .n = n, .min_effect = min_effect, .rounds = 2};
  snprintf(c->variant, sizeof c->variant, "%s", variant);
  int have = v <= KG_PV_UNDECIDED;
  c->stat = (kg_pair_stat){.blocks = have ? 8 : 0, .pairs = have ? 64 : 0, .ratio = ratio, .lo = lo, .hi = hi,
                           .head_us = have ? 100 * ratio : 0, .base_us = have ? 100 : 0, .verdict = v};
}

/* The paired gate of make_run's run against a base module, in the order
 * pairrun keeps (regressions first, not the ladder): f32 has a cell of each
 * kind with numbers and a NEW one; i32 only a MISSING one (no chart). */
static void make_pairs(void) {
  g_run.pairs = g_pairs, g_run.npairs = 0;
  g_run.pair = (kg_pair_meta){.on = 1, .base_name = "kgate_kernels", .base_version = "0.1.0", .confidence = 0.99,
                              .copies = 4, .quads = 8, .rounds = 2, .max_rounds = 6};
  snprintf(g_run.pair.base_path, sizeof g_run.pair.base_path, "/base/libkgate_kernels.so");
  add_pair("reduce0_divergent", KG_F32, M25, KG_PV_SLOWER, 1.05, 1.03, 1.07, 0.005);
  add_pair("reduce7_shuffle", KG_F32, M25, KG_PV_UNDECIDED, 1.004, 0.99, 1.018, 0.005);
  add_pair("cub_sum", KG_F32, M25, KG_PV_FASTER, 0.9, 0.88, 0.92, 0.005);
  add_pair("cub_sum", KG_F32, M22, KG_PV_SAME, 1.001, 0.997, 1.005, 0.01);
  add_pair("two_pass", KG_F32, M25, KG_PV_NEW, 1, 1, 1, 0.005);
  add_pair("reduce7_shuffle", KG_I32, M25, KG_PV_MISSING, 1, 1, 1, 0.005);
}

static void setup(void) {
  make_run();
  memset(&g_charts, 0, sizeof g_charts);
  kgt_mkscratch(g_dir, sizeof g_dir, "plot");
  kgt_mkscratch(g_tools, sizeof g_tools, "plot_tools");
  const char *path = getenv("PATH");
  snprintf(g_saved_path, sizeof g_saved_path, "%s", path ? path : "/usr/bin:/bin");
  unsetenv("KGATE_PLOTS");
  unsetenv("KG_FAKE_FAIL");
}

static void teardown(void) {
  setenv("PATH", g_saved_path, 1);
  unsetenv("KGATE_PLOTS");
  ck_assert_int_eq(kgt_rmtree(g_dir), 0);
  ck_assert_int_eq(kgt_rmtree(g_tools), 0);
}

/* kgt_spit, and chmod 755 for the fake tools put on PATH. */
static void spit(const char *path, const char *text, int executable) {
  kgt_spit(path, text);
  if (executable) chmod(path, 0755);
}

/* The text of <g_dir>/<name>. */
static char *file_in(const char *name) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  char *s = kgt_slurp(path);
  ck_assert_msg(s != NULL, "%s missing", path);
  return s;
}

/* One kind of g_run's charts into dir, through the table. */
static int chart_run(const char *kind, const char *dir, char *err, size_t errlen) {
  kg_chart_src s = {.run = &g_run, .with_run = 1};
  return kg_chart_write(dir, &s, kind, &g_charts, err, errlen);
}

/* The charts of a comparison alone (compare --plots). */
static int chart_cmp(const kg_comparison *cmp, const char *label, char *err, size_t errlen) {
  kg_chart_src s = {.run = &g_run, .cmp = cmp, .base_label = label};
  return kg_chart_write(g_dir, &s, NULL, &g_charts, err, errlen);
}

/* The charts of a history alone (history plot). */
static int chart_trend(const kg_history *h, const kg_baseline *band, char *err, size_t errlen) {
  kg_chart_src s = {.history = h, .band = band};
  return kg_chart_write(g_dir, &s, NULL, &g_charts, err, errlen);
}

static int exists_in(const char *dir, const char *name) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return access(path, F_OK) == 0;
}

/* A team's module of 600 variants timed at 40 sizes: every chart of the run
 * draws every variant (no fixed-size table drops rows), the bandwidth chart
 * every size. */
/* A .dat file without its points' tooltips (each quoted field that holds
 * a \n), so that the columns before them read as written; the tooltips
 * have their own assertions. */
static char *dat_in(const char *name) {
  char *s = file_in(name), *o = s;
  for (char *p = s; *p;) {
    char *e = p[0] == ' ' && p[1] == '"' ? strchr(p + 2, '"') : NULL;
    if (e && memmem(p + 2, (size_t)(e - p - 2), "\\n", 2)) p = e + 1;
    else *o++ = *p++;
  }
  *o = '\0';
  return s;
}

START_TEST(test_chart_600_variants_40_sizes) {
  enum { NV = 600, NS = 40 };
  kg_run run = {0};
  run.cases = calloc(NV * NS, sizeof *run.cases), run.results = calloc(NV * NS, sizeof *run.results);
  ck_assert(run.cases && run.results);
  char err[512] = "", name[32];
  for (int v = 0; v < NV; v++) {
    snprintf(name, sizeof name, "team_v%03d", v);
    int idx = kg_variant_intern(name, NULL, err, sizeof err);
    ck_assert_msg(idx >= 0, "%s", err);
    for (int k = 0; k < NS; k++) {
      size_t i = run.n++;
      run.cases[i] = (kg_case){idx, KG_F32, (size_t)1024 << (k % 20) | (size_t)k, KG_PAT_UNIFORM, 1, 1};
      run.results[i] = (kg_result){.status = KG_ST_PASS, .got = "1", .expected = "1"};
      run.results[i].timing = kgt_timing(1 + v + k);
    }
  }
  kgt_stamp(&run.meta, "abc123def456");
  run.meta.dev = kgt_h200();
  kg_chart_src src = {.run = &run, .with_run = 1};
  ck_assert_msg(kg_chart_write(g_dir, &src, NULL, &g_charts, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_gt(g_charts.n, 0);
  for (size_t c = 0; c < g_charts.n; c++) {
    char data[64]; /* a chart's name is under 48 bytes */
    snprintf(data, sizeof data, "%.50s.dat", g_charts.c[c].name);
    char *dat = file_in(data);
    int missing = 0;
    for (int v = 0; v < NV; v++) {
      snprintf(name, sizeof name, "team_v%03d", v);
      missing += strstr(dat, name) == NULL;
    }
    ck_assert_msg(missing == 0, "%s: %d of %d variants missing", g_charts.c[c].name, missing, NV);
    if (!strncmp(g_charts.c[c].name, "bandwidth", 9)) /* every size too: the largest at 2^19 x 1024 + 39 */
      ck_assert_msg(strstr(dat, "536870951") != NULL, "%s: the largest size missing", g_charts.c[c].name);
    free(dat);
  }
  free(run.cases), free(run.results);
  kg_registry_reset();
}
END_TEST

/* ---- labels and sizes -------------------------------------------------------- */

static const struct {
  size_t n;
  const char *label;
} k_labels[] = {
    {1, "2\u2070"}, {2, "2\u00b9"}, {1024, "2\u00b9\u2070"}, {M22, "2\u00b2\u00b2"}, {M25, "2\u00b2\u2075"},
    {(size_t)1 << 34, "2\u00b3\u2074"}, {0, "0"}, {1000003, "1000003"}, {M22 + 1, "4194305"},
};

START_TEST(test_chart_size_label) {
  char buf[32];
  kg_size_label(k_labels[_i].n, buf, sizeof buf);
  ck_assert_str_eq(buf, k_labels[_i].label);
}
END_TEST

START_TEST(test_chart_pick_sizes) {
  size_t got[2];
  size_t sweep[] = {M25, 1024, M22, (size_t)1 << 28};
  ck_assert_uint_eq(kg_chart_pick_sizes(sweep, 4, got, 2), 2);
  ck_assert(got[0] == M22 && got[1] == M25);
  size_t only25[] = {M25, 1000};
  ck_assert_uint_eq(kg_chart_pick_sizes(only25, 2, got, 2), 1);
  ck_assert_uint_eq(got[0], M25);
  size_t other[] = {70000, 100, 5000};
  ck_assert_uint_eq(kg_chart_pick_sizes(other, 3, got, 2), 2);
  ck_assert(got[0] == 5000 && got[1] == 70000);
  ck_assert_uint_eq(kg_chart_pick_sizes(other, 0, got, 2), 0);
}
END_TEST

/* ---- chart data ---------------------------------------------------------------- */

START_TEST(test_chart_bandwidth) {
  char err[512] = "";
  ck_assert_msg(chart_run("bandwidth", g_dir, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(g_charts.n, 1); /* f32 only: i32 timed nothing */
  ck_assert_str_eq(g_charts.c[0].name, "bandwidth-f32");
  ck_assert_int_eq(g_charts.c[0].kind, kg_chart_kind_find("bandwidth"));
  char *vars = file_in("bandwidth-f32.vars"), *dat = dat_in("bandwidth-f32.dat");
  ck_assert_msg(strstr(vars, "data = 'bandwidth-f32.dat'\n"), "%s", vars);
  ck_assert_ptr_nonnull(strstr(vars, "nseries = 3\n"));
  ck_assert_ptr_nonnull(strstr(vars, "name1 = 'reduce0_divergent'\nname2 = 'reduce7_shuffle'\nname3 = 'cub_sum'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "peak = 4814.304\n"));
  ck_assert_ptr_nonnull(strstr(vars, "l2_n = 15728640\n")); /* 60 MiB of 4-byte elements */
  ck_assert_ptr_nonnull(strstr(vars, "l2_label = '60 MiB L2'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "NVIDIA H200 \u00b7 2026-11-21 08:30 UTC \u00b7 commit abc123def456 \u00b7 cold L2"));
  ck_assert_msg(strstr(vars, "xtic_label1 = '2\u00b9\u2070'\nxtic_sub1 = ''\nxtic_pos1 = 1024\n"), "%s", vars);
  /* Blocks in ladder order; 2^25 f32 in 200 us is 134217728 B / 200e3 ns = 671.089 GB/s. */
  const char *b0 = strstr(dat, "# reduce0_divergent\n"), *b7 = strstr(dat, "# reduce7_shuffle\n"),
             *bc = strstr(dat, "# cub_sum\n");
  ck_assert(b0 && b7 && bc && b0 < b7 && b7 < bc);
  ck_assert_msg(strstr(b0, "33554432 671.089 13.9395 200\n"), "%s", dat);
  ck_assert_ptr_nonnull(strstr(b7, "\n\n\n# cub_sum"));
  ck_assert_ptr_null(strstr(bc, "1024 ")); /* CUB was not timed at 1024 */
  free(vars);
  free(dat);
}
END_TEST

static int is_png(const char *path);

/* Issue 15: 23 lines in one chart were unreadable. A panel per family, CUB and
 * kgate (panel 0) in every panel, distinct hues within a panel. */
START_TEST(test_chart_bandwidth_panels) {
  static const char *const ladder[] = {"reduce0_divergent", "reduce1_strided", "reduce2_sequential",
                                       "reduce3_first_add", "reduce4_unroll_warp", "reduce5_complete_unroll",
                                       "reduce6_grid_stride", "reduce7_shuffle", "neighbored", "unrolling2",
                                       "cub_sum", "kgate_single_pass"};
  char err[512] = "";
  g_run.n = 0;
  for (size_t k = 0; k < sizeof ladder / sizeof ladder[0]; k++) {
    add_case(ladder[k], KG_F32, M22, 1, 100 - (double)k);
    add_case(ladder[k], KG_F32, M25, 1, 400 - (double)k);
  }
  ck_assert_msg(chart_run("bandwidth", g_dir, err, sizeof err) == 0, "%s", err);
  char *vars = file_in("bandwidth-f32.vars");
  ck_assert_msg(strstr(vars, "panels = '1 1 1 1 1 1 1 1 2 3 0 0'\n"), "%s", vars);
  ck_assert_ptr_nonnull(strstr(vars, "npanels = 3\ncols = 2\nrows = 2\n"));
  ck_assert_ptr_nonnull(strstr(vars, "panel_title1 = 'Harris ladder'\npanel_title2 = 'in place, pairs'\n"
                                     "panel_title3 = 'in place, unrolled'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "height = 990\n"));
  /* The eight Harris rungs get eight different colours; CUB black, kgate red. */
  const char *pc = strstr(vars, "pcolors = '");
  ck_assert_ptr_nonnull(pc);
  pc += strlen("pcolors = '");
  char col[12][8];
  for (int k = 0; k < 12; k++) {
    ck_assert_int_eq(sscanf(pc, "%7s", col[k]), 1);
    pc += 8;
  }
  for (int a = 0; a < 8; a++)
    for (int b = a + 1; b < 8; b++) ck_assert_msg(strcmp(col[a], col[b]), "rungs %d and %d share %s", a, b, col[a]);
  ck_assert_str_eq(col[10], "#000000");
  ck_assert_str_eq(col[11], "#e31a1c");
  free(vars);
  /* Only the references: one panel of them. */
  g_run.n = 0;
  g_charts.n = 0;
  add_case("cub_sum", KG_F32, M25, 1, 30);
  add_case("kgate_single_pass", KG_F32, M25, 1, 29);
  ck_assert_int_eq(chart_run("bandwidth", g_dir, err, sizeof err), 0);
  vars = file_in("bandwidth-f32.vars");
  ck_assert_msg(strstr(vars, "panels = '0 0'\n") && strstr(vars, "npanels = 1\ncols = 1\nrows = 1\n") &&
                    strstr(vars, "panel_title1 = 'CUB and kgate'\n"),
                "%s", vars);
  free(vars);
  char gp[PATH_MAX];
  if (kg_gnuplot_find(gp, sizeof gp) == 0) {
    ck_assert_msg(kg_plot_render(g_dir, &g_charts, err, sizeof err) == KG_PLOT_OK, "%s", err);
    char png[160];
    snprintf(png, sizeof png, "%s/bandwidth-f32.png", g_dir);
    ck_assert(is_png(png));
  }
}
END_TEST

START_TEST(test_chart_ladder) {
  char err[512] = "";
  ck_assert_msg(chart_run("ladder", g_dir, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(g_charts.n, 1);
  ck_assert_str_eq(g_charts.c[0].name, "ladder-f32");
  char *vars = file_in("ladder-f32.vars"), *dat = dat_in("ladder-f32.dat");
  ck_assert_ptr_nonnull(strstr(vars, "nrows = 3\n"));
  ck_assert_ptr_nonnull(strstr(vars, "nsizes = 2\n"));
  ck_assert_ptr_nonnull(strstr(vars, "size1 = 'n = 2\u00b2\u00b2 (16 MiB)'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "size2 = 'n = 2\u00b2\u2075 (128 MiB)'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "roofline_pct = 92.10"));
  /* Rows in ladder order; reduce7 was not timed at 2^22: '?'. The 1024 cases are not in the ladder. */
  ck_assert_msg(strstr(dat, "\n0 reduce0_divergent 5.80811 13.9395\n1 reduce7_shuffle ? 63.3612\n2 cub_sum 31.6806 77.4415\n"),
                "%s", dat);
  free(vars);
  free(dat);
}
END_TEST

/* The comparison chart: SLOWER red with its change, MISSING without a ratio, ladder order. */
START_TEST(test_chart_compare) {
  kg_cmp_row rows[] = {
      {"reduce0_divergent", KG_F32, M25, KG_V_SLOWER, 190, 200, 200 / 190.0 - 1, 0.03, 1},
      {"two_pass", KG_F32, M25, KG_V_MISSING, 50, 0, 0, 0.03, 1},
      {"reduce7_shuffle", KG_F32, M25, KG_V_FASTER, 50, 44, 44 / 50.0 - 1, 0.03, 1},
      {"cub_sum", KG_F32, M25, KG_V_SAME, 36.1, 36, 36 / 36.1 - 1, 0.03, 1},
      {"cub_sum", KG_F32, M22, KG_V_SAME, 11, 11, 0, 0.15, 1},
  };
  kg_comparison cmp = {.n = 5, .rows = rows};
  char err[512] = "";
  ck_assert_msg(chart_cmp(&cmp, "old.json (2026-11-20)", err, sizeof err) == 0, "%s",
                err);
  ck_assert_uint_eq(g_charts.n, 1);
  ck_assert_str_eq(g_charts.c[0].name, "compare-f32");
  char *vars = file_in("compare-f32.vars"), *dat = dat_in("compare-f32.dat");
  ck_assert_msg(strstr(vars, "(1 SLOWER, 1 MISSING, 1 FASTER, 2 SAME)"), "%s", vars);
  ck_assert_ptr_nonnull(strstr(vars, "note = 'vs old.json (2026-11-20)'\n"));
  /* Small multiples: a panel per size, a row per variant in each, nothing left out. */
  ck_assert_ptr_nonnull(strstr(vars, "npanels = 2\ncols = 2\nrows = 1\nnrows = 4\n"));
  ck_assert_ptr_nonnull(strstr(vars, "panel_title1 = 'n = 2\u00b2\u00b2 (16 MiB)'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "panel_title2 = 'n = 2\u00b2\u2075 (128 MiB)'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "left = ''\n"));
  ck_assert_msg(strstr(vars, "ytic_label1 = 'reduce0_divergent'\nytic_sub1 = ''\nytic_pos1 = 0\n"
                            "ytic_label2 = 'reduce7_shuffle'\nytic_sub2 = ''\nytic_pos2 = 1\n"
                            "ytic_label3 = 'two_pass'\nytic_sub3 = ''\nytic_pos3 = 2\n"
                            "ytic_label4 = 'cub_sum'\nytic_sub4 = ''\nytic_pos4 = 3\nnytics = 4\n"),
                "%s", vars);
  /* SLOWER in the severity scale's amber, not red: a regression is not a failure. */
  ck_assert_ptr_nonnull(strstr(vars, "color_SLOWER = '#e07000'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "sev_failure = '#c62828'\n"));
  ck_assert_msg(strstr(dat, "# n = 33554432\n0.0000 1.05263 1 1.05263 -0.3600 0.3600 0.9700 1.0300 0xe07000 1.05263 1 "
                            "SLOWER \"SLOWER +5.3 %\"\n"),
                "%s", dat); /* the label right of the bar's end */
  ck_assert_msg(strstr(dat, " 0x2e8b3a 0.88 -1 FASTER \"FASTER -12.0 %\"\n"), "%s", dat); /* left of it */
  ck_assert_msg(strstr(dat, "\n2.0000 ? ? ? "), "%s", dat); /* MISSING: no ratio, no bar */
  ck_assert_ptr_nonnull(strstr(dat, " 1 0 MISSING \"MISSING\"\n"));
  ck_assert_ptr_nonnull(strstr(dat, " SAME \"\"\n")); /* a SAME bar needs no label */
  /* The 2^22 panel is the first block, holding cub_sum alone on its row. */
  ck_assert_msg(strstr(dat, "# n = 4194304\n3.0000 1 1 1 "), "%s", dat);
  free(vars);
  free(dat);
}
END_TEST

/* More sizes than a chart has panels: the largest sizes get panels, and the
 * line under the title names every size left out and why; none is silent. */
/* The ratio to the reference: eight panels of ten cells, the finding's cell
 * first with its change point, the selection and what it left out said in
 * the legend; drawn by real gnuplot where it is installed. */
START_TEST(test_chart_ratio) {
  kg_history *h;
  kg_detection *d;
  kgt_nightly(&h, &d);
  char err[512] = "";
  kg_chart_src s = {.history = h, .detect = d};
  ck_assert_msg(kg_chart_write(g_dir, &s, NULL, &g_charts, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(g_charts.n, 1); /* the trend of % of peak has nothing: the nights timed no absolute case */
  ck_assert_str_eq(g_charts.c[0].name, "ratio-f32");
  char *vars = file_in("ratio-f32.vars"), *dat = dat_in("ratio-f32.dat");
  ck_assert_msg(strstr(vars, "npanels = 8\ncols = 4\nrows = 2\nnruns = 6\n"), "%s", vars);
  ck_assert_msg(strstr(vars, "legend = '8 of 10 cells: 2 in findings, then the nearest to an alarm (CUSUM over its "
                             "threshold); 2 not shown"),
                "%s", vars);
  ck_assert_msg(strstr(vars, "name1 = 'reduce0_divergent  2\u00b2\u2075'\n"), "%s", vars);
  ck_assert_msg(strstr(vars, "mark_panel1 = 1\nmark_x1 = 3.5\nmark_color1 = '#e07000'\n"), "%s", vars);
  ck_assert_msg(strstr(vars, "mark_color2 = '#757575'\n"), "%s", vars); /* the acknowledged improvement: muted */
  ck_assert_ptr_nonnull(strstr(vars, "nmarks = 2\n"));
  ck_assert_ptr_nonnull(strstr(vars, "level1 = 0\n"));
  /* Night 4 of the first cell: +2 % with its interval. */
  /* Each night with its verdict (the report model's): the environment's night, then the open regression's. */
  ck_assert_msg(strstr(dat, "# reduce0_divergent f32 33554432\n1 -0.05 -0.25 0.15 \"PASS\"\n2 0 -0.2 0.2 \"ENVIRONMENT\"\n"
                            "3 0.05 -0.15 0.25 \"PASS\"\n4 1.95 1.75 2.15 \"REGRESSION\"\n"),
                "%s", dat);
  free(vars);
  free(dat);
  char gp[4096];
  if (kg_gnuplot_find(gp, sizeof gp) == 0) {
    g_charts.n = 1;
    ck_assert_msg(kg_plot_render(g_dir, &g_charts, err, sizeof err) == KG_PLOT_OK, "%s", err);
    char png[128];
    snprintf(png, sizeof png, "%s/ratio-f32.png", g_dir);
    ck_assert(is_png(png));
  }
}
END_TEST

/* Style 20, no silent caps: more sizes and cells than the old fixed arrays
 * held (256 sizes, 1024 paired cells) are all drawn, and the ladder's sizes
 * are picked from all of them. */
static size_t dat_rows(const char *dat) {
  size_t rows = 0;
  for (const char *l = dat; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
    rows += *l >= '0' && *l <= '9';
  return rows;
}

START_TEST(test_chart_no_silent_caps) {
  enum { NSIZES = 300, NCELLS = 1100 };
  size_t sizes[NSIZES * 2], picked[2];
  for (size_t i = 0; i < NSIZES; i++) sizes[i] = sizes[NSIZES + i] = 1000 + (i * 7) % NSIZES; /* shuffled, twice */
  ck_assert_uint_eq(kg_chart_pick_sizes(sizes, NSIZES * 2, picked, 2), 2);
  ck_assert_uint_eq(picked[0], 1000 + NSIZES - 2);
  ck_assert_uint_eq(picked[1], 1000 + NSIZES - 1);
  kg_case *cases = calloc(NSIZES, sizeof *cases);
  kg_result *results = calloc(NSIZES, sizeof *results);
  kg_pair_cell *cells = calloc(NCELLS, sizeof *cells);
  ck_assert(cases && results && cells);
  for (size_t i = 0; i < NSIZES; i++) {
    cases[i] = (kg_case){kg_variant_find("cub_sum"), KG_F32, 1000 + i, KG_PAT_UNIFORM, 1, 1};
    results[i] = (kg_result){.status = KG_ST_PASS, .timing = kgt_timing(10 + (double)i)};
  }
  for (size_t i = 0; i < NCELLS; i++) {
    cells[i] = (kg_pair_cell){.dtype = KG_F32, .n = 1000 + i, .min_effect = 0.01, .rounds = 2};
    snprintf(cells[i].variant, sizeof cells[i].variant, "cub_sum");
    cells[i].stat = (kg_pair_stat){.blocks = 8, .pairs = 64, .ratio = 1.001, .lo = 1.0, .hi = 1.002,
                                   .head_us = 100.1, .base_us = 100, .verdict = KG_PV_SAME};
  }
  kg_run run = g_run;
  run.n = NSIZES, run.cases = cases, run.results = results;
  run.pair = (kg_pair_meta){.on = 1, .confidence = 0.99};
  run.npairs = NCELLS, run.pairs = cells;
  char err[512] = "";
  kg_chart_src src = {.run = &run, .with_run = 1};
  ck_assert_msg(kg_chart_write(g_dir, &src, NULL, &g_charts, err, sizeof err) == 0, "%s", err);
  char *bw = dat_in("bandwidth-f32.dat"), *pd = dat_in("paired-f32.dat"), *lv = file_in("ladder-f32.vars");
  ck_assert_uint_eq(dat_rows(bw), NSIZES);
  ck_assert_uint_eq(dat_rows(pd), NCELLS);
  ck_assert_msg(strstr(lv, "size1 = 'n = 1298 "), "%s", lv); /* the two largest of all 300 */
  free(bw), free(pd), free(lv);
  free(cases), free(results), free(cells);
}
END_TEST

START_TEST(test_chart_compare_many_sizes) {
  enum { NS = 15 };
  kg_cmp_row rows[NS];
  for (int i = 0; i < NS; i++) {
    size_t n = (size_t)1 << (10 + i);
    double base = 10.0 + i;
    rows[i] = (kg_cmp_row){"cub_sum", KG_F32, n, KG_V_SAME, base, base, 0, 0.03, 1};
  }
  rows[NS - 1] = (kg_cmp_row){"cub_sum", KG_F32, (size_t)1 << 9, KG_V_NEW, 0, 5, 0, 0.03, 0}; /* no ratio */
  kg_comparison cmp = {.n = NS, .rows = rows};
  char err[512] = "";
  ck_assert_msg(chart_cmp(&cmp, NULL, err, sizeof err) == 0, "%s", err);
  char *vars = file_in("compare-f32.vars"), *dat = dat_in("compare-f32.dat");
  ck_assert_msg(strstr(vars, "npanels = 12\ncols = 4\nrows = 3\n"), "%s", vars);
  ck_assert_msg(strstr(vars, "left = 'no panel for n = 2\u2079, 2\u00b9\u2070, 2\u00b9\u00b9: 1 case timed on one side "
                             "only; 2 beyond the 12 panels a chart holds (all in results.csv)'\n"),
                "%s", vars);
  ck_assert_ptr_nonnull(strstr(vars, "panel_title1 = 'n = 2\u00b9\u00b2 (16 KiB)'\n"));
  ck_assert_ptr_null(strstr(dat, "# n = 2048\n"));
  ck_assert_ptr_nonnull(strstr(dat, "# n = 8388608\n"));
  free(vars);
  free(dat);
}
END_TEST

/* A comparison whose sweep sizes the baseline lacks were left out
 * (kg_comparison_common_sizes): the caption and the line under the title say
 * how many of the dtype's, beside any size without a panel. */
START_TEST(test_chart_compare_left_out) {
  kg_cmp_row rows[] = {{"cub_sum", KG_F32, M25, KG_V_SAME, 36, 36.1, 0.003, 0.03, 1},
                       {"cub_sum", KG_F32, (size_t)1 << 9, KG_V_UNKNOWN, 0, 0, 0, 0.2, 0}};
  kg_comparison cmp = {.n = 2, .rows = rows, .left_out = 5, .left_sizes = 3};
  cmp.count[KG_V_SAME] = cmp.count[KG_V_UNKNOWN] = 1;
  cmp.left_dtype[KG_F32] = 4, cmp.left_dtype[KG_I32] = 1;
  char err[512] = "";
  ck_assert_msg(chart_cmp(&cmp, NULL, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(g_charts.n, 1);
  ck_assert_msg(strstr(g_charts.c[0].caption, "(1 UNKNOWN, 1 SAME; 4 at sizes the baseline lacks left out)"), "%s",
                g_charts.c[0].caption);
  char *vars = file_in("compare-f32.vars");
  ck_assert_msg(strstr(vars, "left = 'no panel for n = 2\u2079: 1 case timed on one side only (all in results.csv); "
                             "4 cases at sizes the baseline holds none of left out'\n"),
                "%s", vars);
  free(vars);
}
END_TEST

/* The paired chart: a row per (variant, n) in ladder order, the change in %
 * with its interval, the minimum effect as the band, colour by verdict; the
 * NEW cell a row of text; i32 (only a MISSING cell) no chart. */
START_TEST(test_chart_paired) {
  char err[512] = "";
  make_pairs();
  ck_assert_msg(chart_run("paired", g_dir, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(g_charts.n, 1);
  ck_assert_str_eq(g_charts.c[0].name, "paired-f32");
  ck_assert_int_eq(g_charts.c[0].kind, kg_chart_kind_find("paired"));
  ck_assert_msg(strstr(g_charts.c[0].caption, "(1 SLOWER, 1 UNDECIDED, 1 FASTER, 1 NEW, 1 SAME)"), "%s",
                g_charts.c[0].caption);
  char *vars = file_in("paired-f32.vars"), *dat = dat_in("paired-f32.dat");
  ck_assert_msg(strstr(vars, "title = 'f32 sum, paired gate: change head / base per cell "
                             "(1 SLOWER, 1 UNDECIDED, 1 FASTER, 1 NEW, 1 SAME)'\n"),
                "%s", vars);
  ck_assert_msg(strstr(vars, "subtitle = 'NVIDIA H200 \u00b7 2026-11-21 08:30 UTC \u00b7 head commit abc123def456 "
                             "\u00b7 base kgate_kernels 0.1.0'\n"),
                "%s", vars);
  ck_assert_msg(strstr(vars, "note = 'bars: the 99 % interval over blocks"), "%s", vars);
  ck_assert_msg(strstr(vars, "ytic_label1 = 'reduce0_divergent  2\u00b2\u2075'\nytic_sub1 = ''\nytic_pos1 = 0\n"
                             "ytic_label2 = 'reduce7_shuffle  2\u00b2\u2075'\nytic_sub2 = ''\nytic_pos2 = 1\n"
                             "ytic_label3 = 'two_pass  2\u00b2\u2075'\nytic_sub3 = ''\nytic_pos3 = 2\n"
                             "ytic_label4 = 'cub_sum  2\u00b2\u00b2'\nytic_sub4 = ''\nytic_pos4 = 3\n"
                             "ytic_label5 = 'cub_sum  2\u00b2\u2075'\nytic_sub5 = ''\nytic_pos5 = 4\nnytics = 5\n"),
                "%s", vars);
  /* The widest interval (-12 %) with 15 % margin sets the range. */
  ck_assert_msg(strstr(vars, "nrows = 5\nxmin = -13.8\nxmax = 13.8\n"), "%s", vars);
  ck_assert_ptr_nonnull(strstr(vars, "color_SLOWER = '#e07000'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "color_FASTER = '#2e8b3a'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "color_SAME = '#000000'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "color_UNDECIDED = '#9e9e9e'\n"));
  ck_assert_msg(strstr(dat, "\n0 5 3 7 5 3 7 0.5 -0.42 0.42 0xe07000 13.8 SLOWER \"SLOWER +5.00 % [+3.00, +7.00]\"\n"),
                "%s", dat);
  /* The SLOWER point's tooltip: its cell, verdict, change, interval, blocks, minimum effect and the head's commit. */
  char *raw = file_in("paired-f32.dat");
  ck_assert_msg(strstr(raw, " SLOWER \"SLOWER +5.00 % [+3.00, +7.00]\" \"reduce0_divergent, n = 2\u00b2\u2075: SLOWER\\n"
                            "change head / base +5.00 %, interval [+3.00, +7.00] %\\n"),
                "%s", raw);
  free(raw);
  ck_assert_msg(strstr(dat, "\n1 0.4 -1 1.8 0.4 -1 1.8 0.5 0.58 1.42 0x9e9e9e 13.8 UNDECIDED "
                            "\"UNDECIDED +0.40 % [-1.00, +1.80]\"\n"),
                "%s", dat);
  ck_assert_msg(strstr(dat, "\n2 ? ? ? ? ? ? ? 1.58 2.42 0x7f7f7f 13.8 NEW \"NEW: only in head\"\n"), "%s", dat);
  ck_assert_msg(strstr(dat, "\n3 0.1 -0.3 0.5 0.1 -0.3 0.5 1 2.58 3.42 0x000000 13.8 SAME "
                            "\"SAME +0.10 % [-0.30, +0.50]\"\n"),
                "%s", dat);
  ck_assert_msg(strstr(dat, "\n4 -10 -12 -8 -10 -12 -8 0.5 3.58 4.42 0x2e8b3a 13.8 FASTER "
                            "\"FASTER -10.00 % [-12.00, -8.00]\"\n"),
                "%s", dat);
  ck_assert_ptr_null(strstr(dat, "\n5 ")); /* five rows: the i32 cell is not in the f32 chart */
  free(vars);
  free(dat);
}
END_TEST

/* UNCHANGED cells are rows of text, never a point at ratio 1, even one that
 * claims blocks; a dtype with only UNCHANGED cells gets no chart. */
START_TEST(test_chart_paired_unchanged) {
  char err[512] = "";
  make_pairs();
  add_pair("reduce1_strided", KG_F32, M22, KG_PV_UNCHANGED, 1, 1, 1, 0.01);
  add_pair("reduce2_sequential", KG_F32, M22, KG_PV_UNCHANGED, 1, 1, 1, 0.01);
  g_pairs[g_run.npairs - 1].stat.blocks = 8;
  add_pair("cub_sum", KG_I64, M25, KG_PV_UNCHANGED, 1, 1, 1, 0.005);
  ck_assert_msg(chart_run("paired", g_dir, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(g_charts.n, 1); /* f32 only: i32 has a MISSING cell, i64 an UNCHANGED one */
  ck_assert_msg(strstr(g_charts.c[0].caption, "(1 SLOWER, 1 UNDECIDED, 1 FASTER, 1 NEW, 1 SAME, 2 UNCHANGED)"), "%s",
                g_charts.c[0].caption);
  char *vars = file_in("paired-f32.vars"), *dat = dat_in("paired-f32.dat");
  ck_assert_msg(strstr(vars, "nrows = 7\nxmin = -13.8\nxmax = 13.8\n"), "%s", vars); /* no interval of theirs */
  ck_assert_ptr_nonnull(strstr(vars, "color_UNCHANGED = '#000000'\n"));
  size_t rows = 0;
  for (const char *q = strstr(dat, " ? ? ? ? ? ? ? "); q; q = strstr(q + 1, " ? ? ? ? ? ? ? ")) rows++;
  ck_assert_uint_eq(rows, 3); /* NEW and the two UNCHANGED */
  const char *want = " 0x000000 13.8 UNCHANGED \"UNCHANGED: same machine code, not timed\"\n";
  const char *first = strstr(dat, want);
  ck_assert_msg(first && strstr(first + 1, want), "%s", dat);
  ck_assert_ptr_null(strstr(dat, " 0 0 0 0 0 0 ")); /* no change of 0 drawn for them */
  free(vars);
  free(dat);
}
END_TEST

/* Not paired: no chart, nothing written. Paired, but every cell without
 * numbers: no chart either (the reports list them). */
START_TEST(test_chart_paired_none) {
  char err[512] = "";
  make_pairs();
  g_run.pair.on = 0;
  ck_assert_int_eq(chart_run("paired", g_dir, err, sizeof err), 0);
  ck_assert_uint_eq(g_charts.n, 0);
  ck_assert(!exists_in(g_dir, "paired-f32.dat") && !exists_in(g_dir, "paired-f32.vars"));
  g_run.pair.on = 1;
  for (size_t i = 0; i < g_run.npairs; i++) g_pairs[i].stat.verdict = KG_PV_UNKNOWN, g_pairs[i].stat.blocks = 0;
  ck_assert_int_eq(chart_run("paired", g_dir, err, sizeof err), 0);
  ck_assert_uint_eq(g_charts.n, 0);
}
END_TEST

/* An interval past 100 % is clipped at the edge (true numbers in the
 * label); one block (lo = hi) is a bare point; a minimum effect that is no
 * number draws no band; an UNKNOWN cell is text. */
START_TEST(test_chart_paired_clipped) {
  char err[512] = "";
  make_pairs();
  g_run.npairs = 0;
  add_pair("reduce0_divergent", KG_F32, M25, KG_PV_UNDECIDED, 1.5, 1.2, 3.0, 0.005);
  add_pair("reduce7_shuffle", KG_F32, M25, KG_PV_UNDECIDED, 1.02, 1.02, 1.02, NAN);
  g_pairs[1].stat.blocks = 1;
  add_pair("cub_sum", KG_F32, M25, KG_PV_UNKNOWN, 0, 0, 0, 0.005);
  ck_assert_msg(chart_run("paired", g_dir, err, sizeof err) == 0, "%s", err);
  char *vars = file_in("paired-f32.vars"), *dat = dat_in("paired-f32.dat");
  ck_assert_msg(strstr(vars, "xmin = -100\nxmax = 100\n"), "%s", vars);
  ck_assert_msg(strstr(dat, "\n0 50 20 200 50 20 100 0.5 "), "%s", dat);
  ck_assert_msg(strstr(dat, " UNDECIDED \"UNDECIDED +50.00 % [+20.00, +200.00]\"\n"), "%s", dat);
  ck_assert_msg(strstr(dat, "\n1 2 2 2 2 2 2 ? 0.58 "), "%s", dat);
  ck_assert_msg(strstr(dat, "\n2 ? ? ? ? ? ? ? 1.58 2.42 0x7f7f7f 100 UNKNOWN \"UNKNOWN: no numbers\"\n"), "%s", dat);
  free(vars);
  free(dat);
}
END_TEST

/* The trend from a history of three runs, with a baseline. Run 3 of
 * reduce0 is 20 % slower than the night before, but no night-to-night step
 * is marked: a night's marker is its verdict (rmodel.h), and without the
 * nightly's detector every night of passing checks is PASS. */
START_TEST(test_chart_trend) {
  char path[128], err[512] = "";
  snprintf(path, sizeof path, "%s/h.jsonl", g_dir);
  const char *dates[] = {"2026-11-21T02:00:00Z", "2026-11-22T02:00:00Z", "2026-11-23T02:00:00Z"};
  double r0[] = {200, 201, 240};
  for (int k = 0; k < 3; k++) {
    snprintf(g_run.meta.date, sizeof g_run.meta.date, "%s", dates[k]);
    g_results[2].timing = kgt_timing(r0[k]);
    ck_assert_msg(kg_history_add(path, &g_run, NULL, NULL, err, sizeof err) == 0, "%s", err);
  }
  kg_history h;
  ck_assert_int_eq(kg_history_read(path, &h, err, sizeof err), 0);
  make_run(); /* the baseline: the first run's times */
  kg_baseline base;
  ck_assert_int_eq(kg_baseline_from_run(&g_run, &base), 0);
  ck_assert_msg(chart_trend(&h, &base, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(g_charts.n, 1);
  ck_assert_str_eq(g_charts.c[0].name, "trend-f32");
  char *vars = file_in("trend-f32.vars"), *dat = dat_in("trend-f32.dat");
  ck_assert_ptr_nonnull(strstr(vars, "name1 = 'reduce0_divergent'\nname2 = 'reduce7_shuffle'\nname3 = 'cub_sum'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "nruns = 3\n"));
  ck_assert_msg(strstr(vars, "xtic_label1 = '11-21'\nxtic_sub1 = ''\nxtic_pos1 = 1\n"
                             "xtic_label2 = '11-22'\nxtic_sub2 = ''\nxtic_pos2 = 2\n"
                             "xtic_label3 = '11-23'\nxtic_sub3 = ''\nxtic_pos3 = 3\nnxtics = 3\n"),
                "%s", vars);
  ck_assert_ptr_nonnull(strstr(vars, "base_mid = '13.9395 "));
  ck_assert_ptr_nonnull(strstr(vars, "at n = 2\u00b2\u2075 (128 MiB)"));
  ck_assert_ptr_null(strstr(vars, "marked"));
  ck_assert_ptr_null(strstr(vars, "\u25bc"));
  ck_assert_ptr_nonnull(strstr(vars, "\u25ef outside the band"));
  /* Every night PASS, none marked. */
  ck_assert_msg(strstr(dat, "# reduce0_divergent\n1 13.9395 13.8701 14.0095 0 \"PASS\"\n2 13.8701 13.8011 13.9398 0 "
                            "\"PASS\"\n3 "),
                "%s", dat);
  ck_assert_ptr_nonnull(strstr(dat, " 0 \"PASS\"\n\n\n# reduce7_shuffle"));
  ck_assert_ptr_null(strstr(dat, " -1 "));
  free(vars);
  free(dat);
  /* Without a baseline: no band, and the legend says so. */
  g_charts.n = 0;
  ck_assert_int_eq(chart_trend(&h, NULL, err, sizeof err), 0);
  vars = file_in("trend-f32.vars");
  ck_assert_ptr_nonnull(strstr(vars, "base_mid = 'nan nan nan'\n"));
  ck_assert_ptr_nonnull(strstr(vars, "no baseline given: no band"));
  ck_assert_ptr_null(strstr(vars, "outside the band")); /* issue 15: rings only where there is a band */
  free(vars);
  kg_baseline_free(&base);
  kg_history_free(&h);
}
END_TEST

/* Runs of one day get times on their ticks, runs of one minute seconds. */
START_TEST(test_chart_trend_tick_precision) {
  char path[128], err[512] = "";
  snprintf(path, sizeof path, "%s/h.jsonl", g_dir);
  const char *dates[] = {"2026-11-21T08:52:25Z", "2026-11-21T08:52:50Z", "2026-11-21T09:10:00Z"};
  for (int k = 0; k < 3; k++) {
    snprintf(g_run.meta.date, sizeof g_run.meta.date, "%s", dates[k]);
    ck_assert_int_eq(kg_history_add(path, &g_run, NULL, NULL, err, sizeof err), 0);
  }
  kg_history h;
  ck_assert_int_eq(kg_history_read(path, &h, err, sizeof err), 0);
  ck_assert_int_eq(chart_trend(&h, NULL, err, sizeof err), 0);
  char *vars = file_in("trend-f32.vars");
  ck_assert_msg(strstr(vars, "xtic_label1 = '11-21'\nxtic_sub1 = '08:52:25'\nxtic_pos1 = 1\n"
                             "xtic_label2 = '11-21'\nxtic_sub2 = '08:52:50'\nxtic_pos2 = 2\n"
                             "xtic_label3 = '11-21'\nxtic_sub3 = '09:10:00'\nxtic_pos3 = 3\n"),
                "%s", vars);
  free(vars);
  kg_history_free(&h);
}
END_TEST

/* The table of the charts of a run: each kind writes when its part of the
 * source is there, in table order, and only names one kind. */
START_TEST(test_chart_table) {
  char err[512] = "", hist[128];
  make_pairs();
  kg_cmp_row rows[] = {{"cub_sum", KG_F32, M25, KG_V_SAME, 36, 36.2, 0.005, 0.05, 1}};
  kg_comparison cmp = {.n = 1, .rows = rows};
  snprintf(hist, sizeof hist, "%s/h.jsonl", g_dir);
  ck_assert_int_eq(kg_history_add(hist, &g_run, NULL, NULL, err, sizeof err), 0);
  kg_history h;
  ck_assert_int_eq(kg_history_read(hist, &h, err, sizeof err), 0);
  const struct {
    kg_chart_src src;
    const char *only, *names;
  } cases[] = {
      {{.run = &g_run, .with_run = 1}, NULL, "bandwidth-f32 ladder-f32 paired-f32 "},
      {{.run = &g_run, .cmp = &cmp}, NULL, "compare-f32 "}, /* compare --plots: no run charts */
      {{.history = &h}, NULL, "trend-f32 "},
      {{.run = &g_run, .with_run = 1, .cmp = &cmp, .history = &h}, NULL,
       "bandwidth-f32 ladder-f32 trend-f32 compare-f32 paired-f32 "},
      {{.run = &g_run, .with_run = 1, .cmp = &cmp, .history = &h}, "ladder", "ladder-f32 "},
      {{.run = &g_run, .with_run = 1}, "compare", ""}, /* no comparison: none */
      {{.run = &g_run, .with_run = 1}, "no-such-chart", ""},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char names[256] = "";
    g_charts.n = 0;
    ck_assert_msg(kg_chart_write(g_dir, &cases[c].src, cases[c].only, &g_charts, err, sizeof err) == 0, "%s", err);
    for (size_t i = 0; i < g_charts.n; i++) {
      const char *kind = kg_chart_kind_get(g_charts.c[i].kind)->name;
      ck_assert(!strncmp(g_charts.c[i].name, kind, strlen(kind)));
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s ", g_charts.c[i].name);
    }
    ck_assert_msg(!strcmp(names, cases[c].names), "case %zu: %s", c, names);
  }
  ck_assert_int_eq(kg_chart_nkinds(), 6);
  for (int k = 0; k < kg_chart_nkinds(); k++) ck_assert_int_eq(kg_chart_kind_find(kg_chart_kind_get(k)->name), k);
  ck_assert_int_eq(kg_chart_kind_find("no-such-chart"), -1);
  ck_assert_ptr_null(kg_chart_kind_get(kg_chart_nkinds()));
  ck_assert_ptr_null(kg_chart_kind_get(-1));
  kg_history_free(&h);
}
END_TEST

START_TEST(test_chart_quoting) {
  char err[512] = "";
  snprintf(g_run.meta.dev.name, sizeof g_run.meta.dev.name, "Bob's \"GPU\"");
  ck_assert_int_eq(chart_run("bandwidth", g_dir, err, sizeof err), 0);
  char *vars = file_in("bandwidth-f32.vars");
  ck_assert_msg(strstr(vars, "subtitle = 'Bob''s \"GPU\" \u00b7 "), "%s", vars);
  free(vars);
}
END_TEST

START_TEST(test_chart_nothing_timed) {
  char err[512] = "";
  for (size_t i = 0; i < g_run.n; i++) g_results[i].timing.samples = 0;
  ck_assert_int_eq(chart_run("bandwidth", g_dir, err, sizeof err), 0);
  ck_assert_int_eq(chart_run("ladder", g_dir, err, sizeof err), 0);
  ck_assert_uint_eq(g_charts.n, 0);
}
END_TEST

START_TEST(test_chart_unwritable) {
  char err[512] = "";
  ck_assert_int_eq(chart_run("bandwidth", "/nonexistent-kgate-dir", err, sizeof err), -1);
  ck_assert(err[0] != '\0');
  ck_assert_uint_eq(g_charts.n, 0);
}
END_TEST

/* ---- finding gnuplot and the scripts -------------------------------------------- */

START_TEST(test_plot_no_gnuplot) {
  char err[512] = "", path[PATH_MAX];
  setenv("PATH", g_tools, 1); /* an empty folder */
  ck_assert_int_eq(kg_gnuplot_find(path, sizeof path), -1);
  ck_assert_int_eq(chart_run("bandwidth", g_dir, err, sizeof err), 0);
  ck_assert_int_eq(kg_plot_render(g_dir, &g_charts, err, sizeof err), KG_PLOT_NO_GNUPLOT);
  ck_assert_str_eq(err, KG_NO_GNUPLOT);
  ck_assert(exists_in(g_dir, "bandwidth-f32.dat") && !exists_in(g_dir, "bandwidth-f32.png"));
}
END_TEST

START_TEST(test_plot_scripts_lookup) {
  char dir[PATH_MAX], err[512] = "", gp[160];
  /* The build tree's plots/ (KG_SOURCE_DIR) when nothing says otherwise. */
  ck_assert_msg(kg_plot_scripts(dir, sizeof dir, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(strlen(dir) > 6 && !strcmp(dir + strlen(dir) - 6, "/plots"), "%s", dir);
  for (int k = 0; k < kg_chart_nkinds(); k++) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s.gp", dir, kg_chart_kind_get(k)->name);
    ck_assert_msg(access(path, R_OK) == 0, "%s", path);
  }
  /* $KGATE_PLOTS wins, and is the only place looked at once set. */
  setenv("KGATE_PLOTS", g_tools, 1);
  ck_assert_int_eq(kg_plot_scripts(dir, sizeof dir, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "KGATE_PLOTS=") && strstr(err, g_tools), "%s", err);
  snprintf(gp, sizeof gp, "%s/common.gp", g_tools);
  spit(gp, "# test\n", 0);
  ck_assert_int_eq(kg_plot_scripts(dir, sizeof dir, err, sizeof err), 0);
  char real[PATH_MAX];
  ck_assert_ptr_nonnull(realpath(g_tools, real));
  ck_assert_str_eq(dir, real);
}
END_TEST

START_TEST(test_plot_mkdirs) {
  char path[256], err[512] = "";
  snprintf(path, sizeof path, "%s/a/b/c", g_dir);
  ck_assert_int_eq(kg_mkdirs(path, err, sizeof err), 0);
  ck_assert_int_eq(kg_mkdirs(path, err, sizeof err), 0); /* again: fine */
  struct stat st;
  ck_assert(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
  snprintf(path, sizeof path, "%s/file", g_dir);
  spit(path, "x", 0);
  snprintf(path, sizeof path, "%s/file/sub", g_dir);
  ck_assert_int_eq(kg_mkdirs(path, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "cannot create"), "%s", err);
}
END_TEST

/* ---- running gnuplot: a fake one -------------------------------------------------- */

/* Writes "fake image" to each out='...' of its -e arguments (relative to its
 * working folder), logs its arguments and folder; KG_FAKE_FAIL makes it fail
 * the way gnuplot does. */
static const char k_fake_gnuplot[] =
    "#!/bin/sh\n"
    "echo \"cwd=$(pwd)\" >> \"$KG_FAKE_LOG\"\n"
    "for a in \"$@\"; do echo \"arg=$a\" >> \"$KG_FAKE_LOG\"; done\n"
    "if [ -n \"$KG_FAKE_FAIL\" ]; then\n"
    "  printf '%s\\n' 'gnuplot> plot nope' '         ^' '\"x.gp\" line 3: undefined variable: nope' '' >&2\n"
    "  exit 1\n"
    "fi\n"
    "while [ $# -gt 0 ]; do\n"
    "  if [ \"$1\" = -e ]; then\n"
    "    out=$(printf '%s' \"$2\" | sed -n \"s/.*out='\\([^']*\\)'.*/\\1/p\")\n"
    "    [ -n \"$out\" ] && echo 'fake image' > \"$out\"\n"
    "    shift\n"
    "  fi\n"
    "  shift\n"
    "done\n";

static char g_log[160];

static void fake_tools(void) {
  char path[200];
  snprintf(path, sizeof path, "%s/gnuplot", g_tools);
  spit(path, k_fake_gnuplot, 1);
  for (int k = 0; k < kg_chart_nkinds(); k++) {
    snprintf(path, sizeof path, "%s/%s.gp", g_tools, kg_chart_kind_get(k)->name);
    spit(path, "# fake\n", 0);
  }
  snprintf(path, sizeof path, "%s/common.gp", g_tools);
  spit(path, "# fake\n", 0);
  snprintf(g_log, sizeof g_log, "%s/log", g_tools);
  setenv("KG_FAKE_LOG", g_log, 1);
  char newpath[8400];
  snprintf(newpath, sizeof newpath, "%s:%s", g_tools, g_saved_path);
  setenv("PATH", newpath, 1);
  setenv("KGATE_PLOTS", g_tools, 1);
}

/* No file of g_dir holds ".tmp.". */
static int no_temp_files(void) {
  char cmd[200];
  snprintf(cmd, sizeof cmd, "! ls -A '%s' | grep -q '\\.tmp\\.'", g_dir);
  return system(cmd) == 0;
}

START_TEST(test_plot_render_fake) {
  char err[512] = "", real[PATH_MAX];
  fake_tools();
  ck_assert_int_eq(chart_run("bandwidth", g_dir, err, sizeof err), 0);
  ck_assert_int_eq(chart_run("ladder", g_dir, err, sizeof err), 0);
  ck_assert_msg(kg_plot_render(g_dir, &g_charts, err, sizeof err) == KG_PLOT_OK, "%s", err);
  const char *made[] = {"bandwidth-f32.png", "bandwidth-f32.svg", "ladder-f32.png", "ladder-f32.svg"};
  for (int k = 0; k < 4; k++) {
    char *s = file_in(made[k]);
    ck_assert_str_eq(s, "fake image\n");
    free(s);
  }
  ck_assert(no_temp_files());
  /* One gnuplot per chart, in the output folder, both formats, the settings by relative name. */
  char *log = kgt_slurp(g_log);
  ck_assert_ptr_nonnull(realpath(g_dir, real));
  char want[PATH_MAX + 16];
  snprintf(want, sizeof want, "cwd=%s\n", real);
  ck_assert_msg(strstr(log, want), "%s", log);
  snprintf(want, sizeof want, "arg=plots='%s'; vars='bandwidth-f32.vars'; fmt='png'; out='.bandwidth-f32.", g_tools);
  ck_assert_msg(strstr(log, want), "%s", log);
  ck_assert_ptr_nonnull(strstr(log, "; vars='ladder-f32.vars'; fmt='svg'; out='.ladder-f32."));
  snprintf(want, sizeof want, "arg=%s/bandwidth.gp\n", g_tools);
  ck_assert_ptr_nonnull(strstr(log, want));
  free(log);
}
END_TEST

/* gnuplot's SVG finished: the caption as the document's title (escaped),
 * the dark style with the page's color-scheme, a point's hypertext as its own <title> (its \\n a line
 * break, anything gnuplot escaped a '?'), and gnuplot's plot commands gone. */
START_TEST(test_svg_finish) {
  char err[512] = "", path[128];
  snprintf(path, sizeof path, "%s/x.svg", g_dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("<svg viewBox=\"0 0 10 20\">\n<title>Gnuplot</title>\n<g id=\"gnuplot_plot_1\" ><title>data index (i-1) using "
        "1:2</title>\n<g onmousemove=\"gnuplot_svg.showHypertext(evt,'cub_sum, n = 2\u00b2\u2075\\n1 &lt;b&gt; \\'x')\" "
        "onmouseout=\"gnuplot_svg.hideHypertext()\"><title> </title>\n<use/></g></g>\n</svg>\n",
        f);
  fclose(f);
  ck_assert_msg(kg_svg_finish(path, "f32: <b> & \"q\"", err, sizeof err) == 0, "%s", err);
  char *out = file_in("x.svg");
  /* the dark style, and the page's color-scheme: no light backdrop behind the chart in dark mode */
  ck_assert_msg(strstr(out, "<title>f32: &lt;b&gt; &amp; &quot;q&quot;</title>\n<style>svg { color-scheme: light dark; } "
                            "@media (prefers-color-scheme: dark)"),
                "%s", out);
  ck_assert_msg(strstr(out, "<g id=\"gnuplot_plot_1\" >\n<g class=\"tip\"><title>cub_sum, n = 2\u00b2\u2075&#10;1 "
                            "?lt;b?gt; ??x</title>\n<use/></g></g>"),
                "%s", out);
  ck_assert_ptr_null(strstr(out, "using"));
  ck_assert_ptr_null(strstr(out, "gnuplot_svg"));
  int w = 0, h = 0;
  ck_assert_int_eq(kg_svg_size(path, &w, &h), 0);
  ck_assert_int_eq(w, 10);
  ck_assert_int_eq(h, 20);
  free(out);
}
END_TEST

START_TEST(test_plot_render_failure) {
  char err[512] = "";
  fake_tools();
  setenv("KG_FAKE_FAIL", "1", 1);
  ck_assert_int_eq(chart_run("bandwidth", g_dir, err, sizeof err), 0);
  ck_assert_int_eq(kg_plot_render(g_dir, &g_charts, err, sizeof err), KG_PLOT_FAILED);
  unsetenv("KG_FAKE_FAIL");
  ck_assert_msg(strstr(err, "gnuplot failed on ") && strstr(err, "bandwidth-f32: \"x.gp\" line 3: undefined variable: nope"),
                "%s", err);
  ck_assert(!exists_in(g_dir, "bandwidth-f32.png") && !exists_in(g_dir, "bandwidth-f32.svg"));
  ck_assert(no_temp_files());
}
END_TEST

START_TEST(test_plot_render_missing_script) {
  char err[512] = "", path[200];
  fake_tools();
  snprintf(path, sizeof path, "%s/ladder.gp", g_tools);
  unlink(path);
  ck_assert_int_eq(chart_run("ladder", g_dir, err, sizeof err), 0);
  ck_assert_int_eq(kg_plot_render(g_dir, &g_charts, err, sizeof err), KG_PLOT_NO_SCRIPTS);
  ck_assert_msg(strstr(err, "ladder.gp"), "%s", err);
}
END_TEST

/* ---- running gnuplot: the real one, on data at the edges ----------------------------- */

static int is_png(const char *path) {
  unsigned char magic[8] = {0};
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t got = fread(magic, 1, 8, f);
  fclose(f);
  return got == 8 && !memcmp(magic, "\x89PNG\r\n\x1a\n", 8);
}

/* One timed case at a size that is no power of two, no roofline, no L2;
 * a comparison with a MISSING case only; a history of one run. The
 * scripts must draw all of it. Skipped without gnuplot (CI installs it). */
START_TEST(test_plot_real_gnuplot_edges) {
  char gp[PATH_MAX], err[1024] = "";
  if (kg_gnuplot_find(gp, sizeof gp)) {
    fprintf(stderr, "check_plot: no gnuplot on PATH, skipping test_plot_real_gnuplot_edges\n");
    return;
  }
  g_run.n = 0; /* make_run's meta, one case */
  add_case("two_pass", KG_BF16, 1000003, 1, 12.5);
  g_run.meta.dev.roofline_gbps = 0;
  g_run.meta.dev.l2_bytes = 0;
  /* A panel whose one row with a ratio sits beside a row of text only. */
  kg_cmp_row rows[] = {{"gone_variant", KG_BF16, 1000003, KG_V_MISSING, 10, 0, 0, 0.15, 1},
                       {"two_pass", KG_BF16, 1000003, KG_V_SAME, 12.5, 12.5, 0, 0.15, 1}};
  kg_comparison cmp = {.n = 2, .rows = rows};
  char hist[128];
  snprintf(hist, sizeof hist, "%s/h.jsonl", g_dir);
  ck_assert_int_eq(kg_history_add(hist, &g_run, NULL, NULL, err, sizeof err), 0);
  kg_history h;
  ck_assert_int_eq(kg_history_read(hist, &h, err, sizeof err), 0);
  ck_assert_int_eq(chart_run("bandwidth", g_dir, err, sizeof err), 0);
  ck_assert_int_eq(chart_run("ladder", g_dir, err, sizeof err), 0);
  ck_assert_int_eq(chart_cmp(&cmp, NULL, err, sizeof err), 0);
  ck_assert_int_eq(chart_trend(&h, NULL, err, sizeof err), 0);
  /* A paired cell from one block (lo = hi, no bar) beside a NEW one (text only). */
  make_pairs();
  g_run.npairs = 0;
  add_pair("two_pass", KG_BF16, 1000003, KG_PV_UNDECIDED, 1.003, 1.003, 1.003, 0.05);
  g_pairs[0].stat.blocks = 1;
  add_pair("cub_sum", KG_BF16, 1000003, KG_PV_NEW, 1, 1, 1, 0.05);
  ck_assert_int_eq(chart_run("paired", g_dir, err, sizeof err), 0);
  ck_assert_uint_eq(g_charts.n, 5);
  ck_assert_msg(kg_plot_render(g_dir, &g_charts, err, sizeof err) == KG_PLOT_OK, "%s", err);
  for (size_t i = 0; i < g_charts.n; i++) {
    char png[128], svg[128];
    snprintf(png, sizeof png, "%s/%s.png", g_dir, g_charts.c[i].name);
    snprintf(svg, sizeof svg, "%s/%s.svg", g_dir, g_charts.c[i].name);
    ck_assert_msg(is_png(png), "%s", png);
    char *s = kgt_slurp(svg);
    ck_assert_msg(s && strstr(s, "<svg"), "%s", svg);
    free(s);
  }
  kg_history_free(&h);
}
END_TEST

/* ---- issue 12: text from files never runs in gnuplot ---------------------------------- */

/* The strings of the report, planted where a file can put them: backquotes,
 * system(), both quotes, a line break, ';', an @macro and a line that would
 * be a command of its own. Each names its own marker file. */
static const char k_evil_date[] = "`touch pwned_date`";
static const char k_evil_gpu[] = "GPU `touch pwned_gpu` '; system(\"touch pwned_sys\"); ' \"`touch pwned_dq`\" @evil";
static const char k_evil_commit[] = "c0`touch pwned_commit`'\nsystem('touch pwned_nl') ;";
static const char k_evil_variant[] = "v`touch pwned_var`'\n\";system(\"touch pwned_v2\")";

static int any_pwned(const char *dir) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "ls '%s' | grep -q pwned", dir);
  return system(cmd) == 0;
}

/* Every line of a .vars file is a comment, name = number, or name = one
 * single-quoted string whose quotes inside are doubled: the only places text
 * can be are inert literals. */
static void assert_vars_inert(const char *name) {
  char *text = file_in(name);
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#') continue;
    size_t id = strspn(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
    ck_assert_msg(id > 0 && !strncmp(line + id, " = ", 3), "%s: not an assignment: %s", name, line);
    const char *v = line + id + 3;
    if (*v != '\'') {
      char *end;
      strtod(v, &end);
      ck_assert_msg(end != v && *end == '\0', "%s: neither a number nor a string: %s", name, line);
      continue;
    }
    size_t k = 1, n = strlen(v);
    for (; k < n; k++) {
      if (v[k] != '\'') continue;
      if (k + 1 < n && v[k + 1] == '\'') k++; /* a doubled quote */
      else break;
    }
    ck_assert_msg(k == n - 1, "%s: text outside the quotes: %s", name, line);
  }
  free(text);
}

START_TEST(test_chart_injection_inert) {
  char err[1024] = "";
  snprintf(g_run.meta.date, sizeof g_run.meta.date, "%s", k_evil_date);
  snprintf(g_run.meta.dev.name, sizeof g_run.meta.dev.name, "%s", k_evil_gpu);
  snprintf(g_run.meta.commit, sizeof g_run.meta.commit, "%s", k_evil_commit);
  /* A comparison with a variant only the (hostile) baseline has. */
  kg_cmp_row rows[] = {{"", KG_F32, M25, KG_V_MISSING, 50, 0, 0, 0.03, 1},
                       {"cub_sum", KG_F32, M25, KG_V_SAME, 36.1, 36, 36 / 36.1 - 1, 0.03, 1}};
  snprintf(rows[0].variant, sizeof rows[0].variant, "%s", k_evil_variant);
  kg_comparison cmp = {.n = 2, .rows = rows};
  /* A history of two runs, in memory as a loader would hand it over. */
  kg_hist_entry e[2][2];
  kg_hist_run runs[2];
  for (int r = 0; r < 2; r++) {
    e[r][0] = (kg_hist_entry){"cub_sum", KG_F32, M25, kgt_timing(36 + r)};
    e[r][1] = (kg_hist_entry){"", KG_F32, M25, kgt_timing(50 + r)};
    snprintf(e[r][1].variant, sizeof e[r][1].variant, "%s", k_evil_variant);
    runs[r] = (kg_hist_run){.dev = g_run.meta.dev, .n = 2, .entries = e[r]};
    snprintf(runs[r].date, sizeof runs[r].date, "%s", r ? "`touch pwned_d2`'\n" : k_evil_date);
    snprintf(runs[r].commit, sizeof runs[r].commit, "%s", k_evil_commit);
  }
  kg_history h = {2, runs};
  /* A paired run whose base module names itself with the hostile strings,
   * and a cell of the hostile variant (the results reader refuses it; the
   * chart must keep it inert all the same). */
  make_pairs();
  snprintf(g_run.pair.base_name, sizeof g_run.pair.base_name, "%s", k_evil_commit);
  snprintf(g_run.pair.base_version, sizeof g_run.pair.base_version, "%s", "0.1`touch pwned_bv`'\n@x");
  snprintf(g_pairs[1].variant, sizeof g_pairs[1].variant, "%s", k_evil_variant); /* unknown: ranked last */
  ck_assert_int_eq(chart_run("bandwidth", g_dir, err, sizeof err), 0);
  ck_assert_int_eq(chart_run("ladder", g_dir, err, sizeof err), 0);
  ck_assert_int_eq(chart_cmp(&cmp, k_evil_commit, err, sizeof err), 0);
  ck_assert_int_eq(chart_trend(&h, NULL, err, sizeof err), 0);
  ck_assert_int_eq(chart_run("paired", g_dir, err, sizeof err), 0);
  ck_assert_uint_eq(g_charts.n, 5);
  for (size_t i = 0; i < g_charts.n; i++) {
    char vars[80], dat[80];
    snprintf(vars, sizeof vars, "%s.vars", g_charts.c[i].name);
    snprintf(dat, sizeof dat, "%s.dat", g_charts.c[i].name);
    assert_vars_inert(vars);
    /* In the data, file text only ever stands in a comment line or in a
     * quoted field (a point's tooltip), with nothing in it that could end
     * it, start a comment or mean anything in SVG or HTML. */
    char *d = file_in(dat);
    for (char *line = strtok(d, "\n"); line; line = strtok(NULL, "\n")) {
      if (!strstr(line, "pwned") || line[0] == '#') continue;
      int quoted = 0;
      for (const unsigned char *c = (const unsigned char *)line; *c; c++) {
        if (*c == '"') quoted = !quoted;
        else if (!quoted) ck_assert_msg(strncmp((const char *)c, "pwned", 5), "%s: %s", dat, line);
        else /* \\n: a line break of the tooltip */
          ck_assert_msg(*c >= 0x20 && !strchr("'<>&#", *c) && (*c != '\\' || *++c == 'n'), "%s: %s", dat, line);
      }
      ck_assert_msg(!quoted, "%s: %s", dat, line);
    }
    free(d);
  }
  /* The strings are there, as text: quotes doubled, the line break gone. */
  char *bw = file_in("bandwidth-f32.vars"), *cmpv = file_in("compare-f32.vars"), *tr = file_in("trend-f32.vars");
  ck_assert_msg(strstr(bw, "GPU `touch pwned_gpu` ''; system(\"touch pwned_sys\"); '' \"`touch pwned_dq`\" @evil"),
                "%s", bw);
  ck_assert_msg(strstr(bw, "commit c0`touch pwned_commit`''?system(''touch pwned_nl'') ;"), "%s", bw);
  ck_assert_msg(strstr(bw, "`touch pwned_date`"), "%s", bw);
  ck_assert_msg(strstr(cmpv, "ytic_label2 = 'v`touch pwned_var`''?\";system(\"touch pwned_v2\")'\n"), "%s", cmpv);
  ck_assert_msg(strstr(tr, "= 'v`touch pwned_var`''?\";system(\"touch pwned_v2\")'\n"), "%s", tr);
  ck_assert_msg(strstr(tr, "xtic_label1 = '`touch'\nxtic_sub1 = 'pwned_dat'\n"), "%s", tr); /* cut as a date */
  char *pv = file_in("paired-f32.vars");
  ck_assert_msg(strstr(pv, "ytic_label5 = 'v`touch pwned_var`''?\";system(\"touch pwned_v2\")  2\u00b2\u2075'\n"), "%s",
                pv);
  ck_assert_msg(strstr(pv, "\u00b7 base c0`touch pwned_commit`''?system(''touch pwned_nl'') ; "
                           "0.1`touch pwned_bv`''?@x'\n"),
                "%s", pv);
  free(bw), free(cmpv), free(tr), free(pv);
  /* The scripts evaluate nothing: no eval, backquote, @macro or system(). */
  char scripts[PATH_MAX];
  ck_assert_int_eq(kg_plot_scripts(scripts, sizeof scripts, err, sizeof err), 0);
  static const char *const gp[] = {"common.gp", "bandwidth.gp", "ladder.gp", "trend.gp", "compare.gp", "paired.gp"};
  for (size_t k = 0; k < sizeof gp / sizeof gp[0]; k++) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", scripts, gp[k]);
    char *text = kgt_slurp(path);
    ck_assert_ptr_nonnull(text);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
      if (line[strspn(line, " ")] == '#') continue;
      ck_assert_msg(!strstr(line, "eval") && !strchr(line, '`') && !strchr(line, '@') && !strstr(line, "system"),
                    "%s: %s", gp[k], line);
    }
    free(text);
  }
  /* And gnuplot itself, when installed: every chart drawn, no marker file. */
  char exe[PATH_MAX];
  if (kg_gnuplot_find(exe, sizeof exe)) {
    fprintf(stderr, "check_plot: no gnuplot on PATH, test_chart_injection_inert did not run it\n");
    return;
  }
  ck_assert_msg(kg_plot_render(g_dir, &g_charts, err, sizeof err) == KG_PLOT_OK, "%s", err);
  ck_assert(exists_in(g_dir, "trend-f32.svg") && exists_in(g_dir, "compare-f32.png") &&
            exists_in(g_dir, "paired-f32.svg"));
  ck_assert_msg(!any_pwned(g_dir), "gnuplot ran text from the run");
  ck_assert(!any_pwned("."));
  char *svg = file_in("bandwidth-f32.svg");
  ck_assert_msg(strstr(svg, "`touch pwned_gpu`"), "the GPU name is not shown as text");
  free(svg);
}
END_TEST

/* ---- the commands ----------------------------------------------------------------- */

/* Without gnuplot: exit 3, and every output that does not need it is there. */
START_TEST(test_plot_cli_without_gnuplot) {
  char results[128], out[128], site[128], err[512];
  snprintf(results, sizeof results, "%s/r.json", g_dir);
  snprintf(out, sizeof out, "%s/charts", g_dir);
  snprintf(site, sizeof site, "%s/site", g_dir);
  ck_assert_int_eq(kg_results_write(results, &g_run, err, sizeof err), 0);
  setenv("PATH", g_tools, 1);
  ck_assert_int_eq(kgt_run_cli((char *[]){"plot", results, "-o", out, NULL}), KG_EXIT_ENV);
  ck_assert(exists_in(out, "bandwidth-f32.dat") && exists_in(out, "ladder-f32.vars"));
  ck_assert(!exists_in(out, "bandwidth-f32.png"));
  ck_assert_int_eq(kgt_run_cli((char *[]){"report", results, "--html", site, "--baseline", results, NULL}), KG_EXIT_ENV);
  const char *files[] = {"index.html", "results.json", "results.csv", "results.junit.xml", "summary.md"};
  for (int k = 0; k < 5; k++) ck_assert_msg(exists_in(site, files[k]), "%s", files[k]);
  char path[200];
  snprintf(path, sizeof path, "%s/index.html", site);
  char *html = kgt_slurp(path);
  ck_assert_ptr_null(strstr(html, "<img"));
  ck_assert_msg(strstr(html, "No charts: " KG_NO_GNUPLOT), "%s", html);
  ck_assert_ptr_nonnull(strstr(html, "<a href=\"results.csv\">"));
  free(html);
}
END_TEST

START_TEST(test_plot_cli_errors) {
  char results[128], err[512];
  snprintf(results, sizeof results, "%s/r.json", g_dir);
  ck_assert_int_eq(kgt_run_cli((char *[]){"plot", "/nonexistent/r.json", NULL}), KG_EXIT_USAGE);
  for (size_t i = 0; i < g_run.n; i++) g_results[i].timing.samples = 0;
  ck_assert_int_eq(kg_results_write(results, &g_run, err, sizeof err), 0);
  ck_assert_int_eq(kgt_run_cli((char *[]){"plot", results, "-o", g_dir, NULL}), KG_EXIT_USAGE); /* nothing timed */
  make_run();
  ck_assert_int_eq(kg_results_write(results, &g_run, err, sizeof err), 0);
  ck_assert_int_eq(kgt_run_cli((char *[]){"plot", results, "-o", "/proc/kgate-cannot", NULL}), KG_EXIT_USAGE);
  ck_assert_int_eq(kgt_run_cli((char *[]){"plot", results, "--baseline", "/nonexistent/b.json", NULL}), KG_EXIT_USAGE);
  ck_assert_int_eq(kgt_run_cli((char *[]){"report", results, "--html", g_dir, "--history", "/nonexistent", NULL}),
                   KG_EXIT_USAGE);
}
END_TEST

/* With a fake gnuplot: the commands succeed and draw what they should. */
START_TEST(test_plot_cli_with_fake_gnuplot) {
  char results[128], out[128], err[512];
  snprintf(results, sizeof results, "%s/r.json", g_dir);
  snprintf(out, sizeof out, "%s/charts", g_dir);
  ck_assert_int_eq(kg_results_write(results, &g_run, err, sizeof err), 0);
  fake_tools();
  ck_assert_int_eq(kgt_run_cli((char *[]){"plot", results, "-o", out, "--baseline", results, NULL}), KG_EXIT_OK);
  ck_assert(exists_in(out, "bandwidth-f32.png") && exists_in(out, "ladder-f32.svg") && exists_in(out, "compare-f32.png"));
  ck_assert_int_eq(kgt_run_cli((char *[]){"compare", results, results, "--plots", out, NULL}), KG_EXIT_OK);
  ck_assert(!exists_in(out, "paired-f32.png")); /* not paired: no paired chart */
  /* A paired results file: plot and report draw the paired chart from what they read back. */
  make_pairs();
  ck_assert_int_eq(kg_results_write(results, &g_run, err, sizeof err), 0);
  ck_assert_int_eq(kgt_run_cli((char *[]){"plot", results, "-o", out, NULL}), KG_EXIT_OK);
  ck_assert(exists_in(out, "paired-f32.png") && exists_in(out, "paired-f32.svg") && !exists_in(out, "paired-i32.png"));
  char site[160];
  snprintf(site, sizeof site, "%s/site", g_dir);
  /* report exits as the run did: its paired SLOWER cell is a regression */
  ck_assert_int_eq(kgt_run_cli((char *[]){"report", results, "--html", site, NULL}), KG_EXIT_PERF);
  ck_assert(exists_in(site, "paired-f32.png"));
}
END_TEST

/* run --plots is wired: the fake worker times nothing, so there is no chart, and that is no error. */
START_TEST(test_plot_cli_run_plots) {
  char out[128];
  snprintf(out, sizeof out, "%s/charts", g_dir);
  setenv("PATH", g_tools, 1); /* and no gnuplot would be needed */
  ck_assert_int_eq(kgt_run_cli((char *[]){"run", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--sizes",
                                      "1", "--perf-sizes", "2", "-q", "--plots", out, "--baseline-dir", g_dir, NULL}),
                   KG_EXIT_OK);
  ck_assert(access(out, F_OK) != 0);
}
END_TEST

static const struct {
  char *args[10];
  kg_command cmd;
} k_parse_ok[] = {
    {{"plot", "r.json"}, KG_CMD_PLOT},
    {{"plot", "r.json", "-o", "out", "--baseline", "b.json", "--tolerance", "5"}, KG_CMD_PLOT},
    {{"plot", "--output=out", "r.json"}, KG_CMD_PLOT},
    {{"report", "r.json", "--html", "site"}, KG_CMD_REPORT},
    {{"report", "r.json", "--html=site", "--baseline", "b.json", "--history", "h.jsonl"}, KG_CMD_REPORT},
    {{"run", "--plots", "charts"}, KG_CMD_RUN},
    {{"compare", "a.json", "b.json", "--plots", "charts"}, KG_CMD_COMPARE},
};

START_TEST(test_plot_cli_parse) {
  kg_cli cli;
  char err[256] = "";
  ck_assert_msg(kgt_parse(k_parse_ok[_i].args, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(cli.cmd, k_parse_ok[_i].cmd);
  if (_i == 0) ck_assert(!strcmp(PUB(cli)->output, ".") && !PUB(cli)->baseline);
  if (_i == 1) ck_assert(!strcmp(PUB(cli)->output, "out") && !strcmp(PUB(cli)->baseline, "b.json") && PUB(cli)->tolerance_pct == 5);
  if (_i == 2) ck_assert(!strcmp(PUB(cli)->output, "out") && !strcmp(cli.args[0], "r.json"));
  if (_i == 4) ck_assert(!strcmp(PUB(cli)->html, "site") && !strcmp(PUB(cli)->history, "h.jsonl"));
  if (_i >= 5) ck_assert_str_eq(_i == 5 ? ((kg_gate_opts *)cli.settings)->plots : ((kg_compare_opts *)cli.settings)->plots, "charts");
  kg_cli_free(&cli);
}
END_TEST

static const struct {
  char *args[8];
  const char *message;
} k_parse_bad[] = {
    {{"plot"}, "plot needs a results file"},
    {{"plot", "a.json", "b.json"}, "unrecognized argument 'b.json'"},
    {{"plot", "r.json", "-o"}, "option '-o' needs a value"},
    {{"plot", "r.json", "--html", "x"}, "'--html' is an option of report, not of plot"},
    {{"report", "r.json"}, "report needs --html DIR"},
    {{"report", "--html", "site"}, "report needs a results file"},
    {{"report", "r.json", "--html", "s", "-o", "x"}, "'-o' is an option of plot, history plot, merge, not of report"},
    {{"check", "--plots", "x"}, "'--plots' is an option of run, compare, not of check"},
    {{"list", "--baseline", "x"}, "'--baseline' is an option of plot, history plot, report, not of list"},
};

START_TEST(test_plot_cli_rejects) {
  kgt_assert_rejected(k_parse_bad[_i].args, k_parse_bad[_i].message);
}
END_TEST

#define N(a) (int)(sizeof a / sizeof a[0])

Suite *make_plot_suite(void) {
  Suite *s = suite_create("plot");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, setup, teardown);
  tcase_set_timeout(core, 30);
  tcase_add_loop_test(core, test_chart_size_label, 0, N(k_labels));
  tcase_add_test(core, test_chart_pick_sizes);
  tcase_add_test(core, test_chart_bandwidth);
  tcase_add_test(core, test_chart_bandwidth_panels);
  tcase_add_test(core, test_chart_ladder);
  tcase_add_test(core, test_chart_compare);
  tcase_add_test(core, test_chart_compare_many_sizes);
  tcase_add_test(core, test_chart_compare_left_out);
  tcase_add_test(core, test_chart_ratio);
  tcase_add_test(core, test_chart_no_silent_caps);
  tcase_add_test(core, test_chart_paired);
  tcase_add_test(core, test_chart_paired_unchanged);
  tcase_add_test(core, test_chart_600_variants_40_sizes);
  tcase_add_test(core, test_chart_trend);
  tcase_add_test(core, test_chart_trend_tick_precision);
  tcase_add_test(core, test_chart_table);
  tcase_add_test(core, test_plot_scripts_lookup);
  tcase_add_test(core, test_plot_render_fake);
  tcase_add_test(core, test_svg_finish);
  tcase_add_test(core, test_plot_real_gnuplot_edges);
  tcase_add_test(core, test_plot_cli_with_fake_gnuplot);
  tcase_add_test(core, test_plot_cli_run_plots);
  tcase_add_loop_test(core, test_plot_cli_parse, 0, N(k_parse_ok));
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_checked_fixture(limits, setup, teardown);
  tcase_add_test(limits, test_chart_quoting);
  tcase_add_test(limits, test_chart_injection_inert);
  tcase_set_timeout(limits, 60);
  tcase_add_test(limits, test_chart_nothing_timed);
  tcase_add_test(limits, test_chart_paired_none);
  tcase_add_test(limits, test_chart_paired_clipped);
  tcase_add_test(limits, test_plot_mkdirs);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, setup, teardown);
  tcase_set_timeout(errors, 30);
  tcase_add_test(errors, test_chart_unwritable);
  tcase_add_test(errors, test_plot_no_gnuplot);
  tcase_add_test(errors, test_plot_render_failure);
  tcase_add_test(errors, test_plot_render_missing_script);
  tcase_add_test(errors, test_plot_cli_without_gnuplot);
  tcase_add_test(errors, test_plot_cli_errors);
  tcase_add_loop_test(errors, test_plot_cli_rejects, 0, N(k_parse_bad));
  suite_add_tcase(s, errors);
  return s;
}
