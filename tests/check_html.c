/* html: the nightly page. Every image and link it holds exists, sections and
 * the contents line agree, text is escaped, the ladder tables read as in the
 * Markdown, and (where xmllint is installed) the page validates. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect.h"
#include "dtype.h"
#include "exitcode.h"
#include "html.h"
#include "label.h"
#include "varreg.h"
#include "report.h"
#include "rmodel.h"
#include "testutil.h"

#define M22 ((size_t)1 << 22)
#define M25 ((size_t)1 << 25)

enum { NCASES = 6 };
static kg_case g_cases[NCASES];
static kg_result g_results[NCASES];
static kg_run g_run;
static kg_cmp_row g_rows[2];
static kg_comparison g_cmp;
static kg_charts g_charts;
static char g_dir[64];

static void touch(const char *name, const char *text) {
  char path[160];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  kgt_spit(path, text);
}

static void setup(void) {
  int r0 = kg_variant_find("reduce0_divergent"), r7 = kg_variant_find("reduce7_shuffle"),
      cub = kg_variant_find("cub_sum");
  g_cases[0] = (kg_case){r0, KG_F32, M25, KG_PAT_UNIFORM, 1, 1};
  g_cases[1] = (kg_case){r7, KG_F32, M25, KG_PAT_UNIFORM, 1, 1};
  g_cases[2] = (kg_case){cub, KG_F32, M25, KG_PAT_UNIFORM, 1, 1};
  g_cases[3] = (kg_case){r0, KG_F32, M22, KG_PAT_UNIFORM, 1, 1};
  g_cases[4] = (kg_case){r7, KG_F32, M22, KG_PAT_UNIFORM, 1, 1}; /* failed: not timed */
  g_cases[5] = (kg_case){r0, KG_I32, 33, KG_PAT_EXACT, 1, 0};
  for (int i = 0; i < NCASES; i++) g_results[i] = (kg_result){.status = KG_ST_PASS, .got = "1", .expected = "1"};
  g_results[0].timing = kgt_timing(200);
  g_results[1].timing = kgt_timing(40);
  g_results[2].timing = kgt_timing(32);
  g_results[3].timing = kgt_timing(60);
  g_results[4] = (kg_result){.status = KG_ST_FAIL, .got = "3", .expected = "4", .ratio = 7.5,
                             .message = "error <&> exceeds the bound"};
  g_run = (kg_run){.n = NCASES, .cases = g_cases, .results = g_results};
  kg_run_meta *m = &g_run.meta;
  kgt_stamp(m, "abc123def456");
  m->dev = kgt_h200();
  snprintf(m->dev.name, sizeof m->dev.name, "NVIDIA <H200> & co");
  g_rows[0] = (kg_cmp_row){"reduce0_divergent", KG_F32, M25, KG_V_SLOWER, 180, 200, 200 / 180.0 - 1, 0.03, 1};
  g_rows[1] = (kg_cmp_row){"cub_sum", KG_F32, M25, KG_V_SAME, 32, 32, 0, 0.03, 1};
  g_cmp = (kg_comparison){.n = 2, .rows = g_rows};
  g_cmp.count[KG_V_SLOWER] = g_cmp.count[KG_V_SAME] = 1;
  kgt_mkscratch(g_dir, sizeof g_dir, "html");
  /* Three charts: one drawn in both formats, one PNG only, one not drawn. */
  memset(&g_charts, 0, sizeof g_charts);
  g_charts.n = 3;
  g_charts.c[0] = (kg_chart){kg_chart_kind_find("bandwidth"), "bandwidth-f32", "f32: GB/s & more"};
  g_charts.c[1] = (kg_chart){kg_chart_kind_find("ladder"), "ladder-f32", "f32 ladder"};
  g_charts.c[2] = (kg_chart){kg_chart_kind_find("compare"), "compare-f32", "f32 compare"};
  touch("bandwidth-f32.png", "png");
  touch("bandwidth-f32.svg", "<svg/>");
  touch("ladder-f32.png", "png");
  touch("results.json", "{}");
}

static void teardown(void) {
  ck_assert_int_eq(kgt_rmtree(g_dir), 0);
}

/* kgt_slurp of a file that must be there. */
static char *slurp(const char *path) {
  char *s = kgt_slurp(path);
  ck_assert_ptr_nonnull(s);
  return s;
}

static const kg_html_link k_links[] = {
    {"results.json", "the results"},
    {"results.csv", "not written in this test: left out"},
};

static char *write_page(const kg_html_page *p) {
  char err[512] = "", path[128];
  ck_assert_msg(kg_html_write(g_dir, p, err, sizeof err) == 0, "%s", err);
  snprintf(path, sizeof path, "%s/index.html", g_dir);
  return slurp(path);
}

static kg_html_page full_page(void) {
  return (kg_html_page){.run = &g_run, .cmp = &g_cmp, .baseline = "baselines/nvidia-h200.json", .charts = &g_charts,
                        .links = k_links, .nlinks = 2};
}

/* Every src="x" and href="x" names a file in g_dir, every href="#x" an id="x";
 * an http(s) link (a commit, a compare range) is left to kg_html_url_ok. */
static void check_references(const char *html) {
  static const char *const attrs[] = {" src=\"", " href=\""};
  for (int a = 0; a < 2; a++)
    for (const char *p = strstr(html, attrs[a]); p; p = strstr(p + 1, attrs[a])) {
      const char *v = p + strlen(attrs[a]), *end = strchr(v, '"');
      char ref[128], path[256];
      snprintf(ref, sizeof ref, "%.*s", (int)(end - v), v);
      if (!strncmp(ref, "https://", 8)) continue;
      if (ref[0] == '#') {
        char id[160];
        snprintf(id, sizeof id, "id=\"%s\"", ref + 1);
        ck_assert_msg(strstr(html, id), "no section for %s", ref);
        continue;
      }
      snprintf(path, sizeof path, "%s/%s", g_dir, ref);
      ck_assert_msg(access(path, F_OK) == 0, "%s references %s, which does not exist", "index.html", ref);
    }
}

START_TEST(test_html_structure) {
  kg_html_page p = full_page();
  char *html = write_page(&p);
  ck_assert_int_eq(strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">", 62), 0);
  /* a one-off report (no history): titled as one, its run not a night */
  ck_assert_ptr_nonnull(strstr(html, "<title>kgate report: NVIDIA &lt;H200&gt; &amp; co, 2026-11-21 08:30 UTC</title>"));
  ck_assert_ptr_nonnull(strstr(html, "<h1>kgate report: NVIDIA &lt;H200&gt; &amp; co</h1>"));
  ck_assert_ptr_nonnull(strstr(html, "<p class=\"meta\">run of 2026-11-21 08:30 UTC"));
  ck_assert_msg(!strstr(html, "nightly") && !strstr(html, "night of"), "%.1500s", html);
  ck_assert_ptr_nonnull(strstr(html, "commit abc123def456"));
  ck_assert_ptr_nonnull(strstr(html, "theoretical peak 4814 GB/s, measured roofline 4434 GB/s"));
  ck_assert_ptr_nonnull(strstr(html, "Performance against baselines/nvidia-h200.json: 1 SLOWER, 0 UNKNOWN"));
  ck_assert(strstr(html, "</body>\n</html>\n") && !strstr(html, "<script"));
  check_references(html);
  free(html);
}
END_TEST

/* The lint on the page: its section in the contents, a failing module with
 * its finding (escaped), a waiver as "waived: reason", a module not linted. */
START_TEST(test_html_lint) {
  kg_html_page p = full_page();
  kg_lint_item item = {"_Z3bad<i>", 90, "acquire", "0x0200 ATOMG.E.INC", "0x0300 LDG.E R4 (k.cu:9)", ""};
  kg_lint_waived w = {"kgate_single_pass", "tagged slots & polling", 2};
  kg_lint_module mods[2] = {{.path = "/b/libteam.so", .ran = 1, .kernels = 4, .tickets = 1, .items = &item,
                             .nitems = 1, .waived = &w, .nwaived = 1},
                            {.path = "/b/x.so", .ran = 0, .why = "no nvdisasm"}};
  kg_run run = *p.run;
  run.lint = mods, run.nlint = 2;
  p.run = &run;
  char *html = write_page(&p);
  ck_assert_ptr_nonnull(strstr(html, "<a href=\"#lint\">Memory ordering</a>"));
  ck_assert_msg(strstr(html, "<h2 id=\"lint\">Memory ordering (kgate lint)</h2>\n<ul>\n<li class=\"failure\">libteam.so: 4 kernels, 1 tickets, 1 finding"), "%s", html);
  ck_assert_ptr_nonnull(strstr(html, "<li class=\"failure\"><code>_Z3bad&lt;i&gt;</code> (sm_90), acquire: 0x0200 ATOMG.E.INC → 0x0300 LDG.E R4 (k.cu:9)</li>"));
  ck_assert_ptr_nonnull(strstr(html, "<li>kgate_single_pass: waived: tagged slots &amp; polling (2 findings)</li>"));
  /* a module not linted fails the run (rmodel.c, build_verdict): the page says so */
  ck_assert_ptr_nonnull(strstr(html, "<li class=\"failure\">x.so: not run: no nvdisasm; the gate fails (exit 3"));
  check_references(html);
  free(html);
}
END_TEST

START_TEST(test_html_charts_that_exist) {
  kg_html_page p = full_page();
  char *html = write_page(&p);
  /* Every chart one click away in a table, the caption its title; the first
   * screen shows the headline kind's drawn charts as images (here the ladder:
   * no paired history, no paired run, the comparison not drawn). */
  ck_assert_msg(strstr(html, "<div class=\"shot\"><div class=\"scroll\"><a href=\"ladder-f32.png\"><img "
                             "src=\"ladder-f32.png\" alt=\"f32 ladder\"></a></div><p class=\"caption\"><span "
                             "class=\"swipe\">Swipe sideways for every panel. </span>Full size: <a "
                             "href=\"ladder-f32.png\">png</a></p><p class=\"caption\">f32 ladder</p></div>"),
                "%s", html);
  ck_assert_ptr_null(strstr(html, "<img src=\"bandwidth"));
  ck_assert(strstr(html, "<img") < strstr(html, "<li>GPU:"));
  ck_assert_msg(strstr(html, "<tr><td class=\"l\">Bandwidth against input size</td><td class=\"c\"><a "
                             "href=\"bandwidth-f32.png\" title=\"f32: GB/s &amp; more\">f32</a> <a "
                             "href=\"bandwidth-f32.svg\">svg</a></td></tr>"),
                "%s", html);
  /* A PNG without its SVG: the PNG only. The chart never drawn: nothing. */
  ck_assert_ptr_nonnull(strstr(html, "<a href=\"ladder-f32.png\" title=\"f32 ladder\">f32</a></td>"));
  ck_assert_ptr_null(strstr(html, "ladder-f32.svg"));
  ck_assert_ptr_null(strstr(html, "compare-f32"));
  ck_assert(strstr(html, ">Bandwidth against input size</td>") < strstr(html, "<td class=\"l\">The ladder"));
  /* Only existing files are linked. */
  ck_assert_ptr_nonnull(strstr(html, "<li><a href=\"results.json\">results.json</a>: the results</li>"));
  ck_assert_ptr_null(strstr(html, "results.csv"));
  free(html);
}
END_TEST

/* A headline chart with its SVG: the SVG as an <object> (its points'
 * tooltips work there, not in an <img>), sized from its viewBox for the
 * phone's scrolling box, with links to both images. */
START_TEST(test_html_headline_svg) {
  touch("ladder-f32.svg", "<svg\n viewBox=\"0 0 1200 460\"\n>\n</svg>\n");
  kg_html_page p = full_page();
  char *html = write_page(&p);
  ck_assert_msg(strstr(html, "<div class=\"shot\"><div class=\"scroll\"><object type=\"image/svg+xml\" "
                             "style=\"--w:1200px;aspect-ratio:1200/460\" data=\"ladder-f32.svg\" title=\"f32 "
                             "ladder\"></object></div><p class=\"caption\"><span class=\"swipe\">Swipe sideways for "
                             "every panel. </span>Full size: <a href=\"ladder-f32.png\">png</a> &middot; <a "
                             "href=\"ladder-f32.svg\">svg</a> (hover a point for its numbers)</p>"),
                "%s", html);
  /* One column under 700 px, the chart at its own width; a dark scheme. */
  ck_assert_ptr_nonnull(strstr(html, "@media (max-width:700px){"));
  ck_assert_ptr_nonnull(strstr(html, ".scroll object{width:var(--w);max-width:none}"));
  ck_assert_ptr_nonnull(strstr(html, "@media (prefers-color-scheme:dark){body{color:#ddd;background:#15171a}"));
  free(html);
}
END_TEST

START_TEST(test_html_tables) {
  kg_html_page p = full_page();
  char *html = write_page(&p);
  /* The regression, the failed case (escaped), the ladders in ladder order with speedups. */
  ck_assert_msg(strstr(html, "<tr class=\"regression\"><td class=\"l\">reduce0_divergent</td><td class=\"l\">f32</td>"
                             "<td>33554432</td><td class=\"l\">SLOWER</td><td>180</td><td>200</td><td>+11.1 %</td>"),
                "%s", html);
  ck_assert_ptr_nonnull(strstr(html, "<td class=\"l\">error &lt;&amp;&gt; exceeds the bound</td>"));
  const char *l22 = strstr(html, "<h3>f32, n = 2\u00b2\u00b2 (16 MiB)</h3>"),
             *l25 = strstr(html, "<h3>f32, n = 2\u00b2\u2075 (128 MiB)</h3>");
  ck_assert(l22 && l25 && l22 < l25);
  ck_assert_ptr_nonnull(strstr(l22, "<td class=\"l\">reduce7_shuffle</td><td>not timed (fail)</td>"));
  const char *r0 = strstr(l25, "<td class=\"l\">reduce0_divergent</td>"), *r7 = strstr(l25, ">reduce7_shuffle</td>"),
             *cub = strstr(l25, ">cub_sum</td>");
  ck_assert(r0 && r7 && cub && r0 < r7 && r7 < cub);
  ck_assert_msg(strstr(r7, "<td>40.0</td><td>3355</td><td>69.7</td><td>5.00&times;</td><td>5.00&times;</td>"
                           "<td>0.800&times;</td><td class=\"l\"></td>"),
                "%s", r7);
  ck_assert_ptr_nonnull(strstr(l25, "<tr class=\"regression\"><td class=\"l\">reduce0_divergent</td>"));
  free(html);
}
END_TEST

START_TEST(test_html_history_and_note) {
  kg_hist_run runs[2] = {{.date = "2026-11-20T02:00:00Z", .commit = "aaa"},
                         {.date = "2026-11-21T02:00:00Z", .commit = "b<b>"}};
  kg_history h = {.n = 2, .runs = runs};
  runs[1].checks = (kg_counts){.cases = 4, .passed = 3, .failed = 1};
  kg_html_page p = full_page();
  p.history = &h, p.note = "No charts: gnuplot <missing>";
  char *html = write_page(&p);
  ck_assert_ptr_nonnull(strstr(html, "<p class=\"box notice\">No charts: gnuplot &lt;missing&gt;</p>"));
  /* The nights counted by their verdicts (the report model's); no night-to-night step section. */
  ck_assert_msg(strstr(html, "<li>History: 2 nights: 1 FAIL, 1 PASS</li>"), "%s", html);
  ck_assert_ptr_null(strstr(html, "#steps"));
  ck_assert_ptr_null(strstr(html, "Step change"));
  check_references(html);
  free(html);
}
END_TEST

/* Nothing drawn, nothing linked, no baseline: no dangling contents entry. */
START_TEST(test_html_bare) {
  char path[128];
  snprintf(path, sizeof path, "%s/results.json", g_dir);
  unlink(path);
  for (int i = 0; i < NCASES; i++) g_cases[i].timed = 0;
  kg_charts none = {0};
  kg_html_page p = {.run = &g_run, .charts = &none, .links = k_links, .nlinks = 2};
  char *html = write_page(&p);
  ck_assert_ptr_nonnull(strstr(html, "<li>Performance: no baseline to compare with</li>"));
  /* The contents line holds the failed cases only (the fixture's failed case). */
  ck_assert_ptr_nonnull(strstr(html, "<p class=\"toc\">Contents: <a href=\"#failed\">Failed cases</a></p>"));
  ck_assert_ptr_null(strstr(html, "<h2 id=\"charts\">"));
  ck_assert_ptr_null(strstr(html, "<h2 id=\"files\">"));
  ck_assert_ptr_null(strstr(html, "Step changes"));
  check_references(html);
  free(html);
}
END_TEST

/* The nightly's findings open the page, above the charts: the open
 * regression amber with its cells and its commit range as a compare link,
 * the environment notice blue-grey, the acknowledged improvement muted; the
 * ratio chart is an image with its change points linked under it, and the
 * routine another-card notice is grey below them. */
START_TEST(test_html_findings) {
  kg_history *h;
  kg_detection *d;
  kgt_nightly(&h, &d);
  g_results[4].status = KG_ST_PASS; /* no failed case: the verdict is about performance */
  g_charts.c[g_charts.n++] = (kg_chart){kg_chart_kind_find("ratio"), "ratio-f32", "f32: tonight / reference"};
  touch("ratio-f32.png", "png");
  snprintf(g_cmp.warning, sizeof g_cmp.warning, "another card");
  kg_html_page p = full_page();
  p.history = h, p.detect = d, p.repo_url = "https://github.com/o/r";
  char *html = write_page(&p);
  /* The night's verdict of the report model, in the nightly's words: not the stored baseline's SLOWER. */
  ck_assert_msg(strstr(html, "<p class=\"verdict regression\" id=\"verdict\">REGRESSION: 1 cell slower than the "
                             "reference&#39;s accepted level (1 open finding)</p>"),
                "%.2000s", html);
  const char *reg = strstr(html, "<p class=\"box regression\"><span class=\"tag\"><strong>REGRESSION</strong></span> 1 "
                                 "cell slower than the reference's accepted level from the night of 2026-11-23 02:00 "
                                 "UTC (flagged on 2026-11-24 02:00 UTC); commits <a href=\"https://github.com/o/r/"
                                 "compare/c0ffee3...c0ffee4\">c0ffee3...c0ffee4</a> (last good...first bad)<br>"
                                 "reduce0_divergent f32 2\u00b2\u2075 +2.00 %</p>");
  const char *env = strstr(html, "<p class=\"box environment\"><span class=\"tag\"><strong>ENVIRONMENT</strong>"
                                 "</span> from the night of 2026-11-21 02:00 UTC; commits ");
  const char *imp = strstr(html, "<p class=\"box good muted\"><span class=\"tag\"><strong>IMPROVEMENT</strong> "
                                 "(acknowledged)</span> 1 cell faster");
  const char *img = strstr(html, "<img src=\"ratio-f32.png\"");
  const char *card = strstr(html, "<p class=\"box notice\">another card</p>");
  ck_assert_msg(reg && env && imp && img && card, "%d%d%d%d%d %.3000s", !!reg, !!env, !!imp, !!img, !!card,
                strstr(html, "<div id=\"findings\">"));
  ck_assert(reg < env && env < imp && imp < img && img < card);
  ck_assert_ptr_nonnull(strstr(env, ": the control cell moved +1.2 % &lt;on&gt; another card</p>"));
  /* Under the chart: its change points with their ranges. */
  ck_assert_msg(strstr(html, "<br>Change points: <span class=\"regression\">REGRESSION</span> from 2026-11-23 02:00 UTC, "
                             "<a href=\"https://github.com/o/r/compare/c0ffee3...c0ffee4\">"),
                "%.2000s", strstr(html, "<p class=\"verdict"));
  /* The ratio chart heads the first screen, not the ladder. */
  ck_assert_ptr_null(strstr(html, "<img src=\"ladder"));
  ck_assert_ptr_nonnull(strstr(html, "<h2 id=\"headline\">Against the pinned reference, per night</h2>"));
  /* The scale: each level's colours once, in the style sheet. */
  ck_assert_ptr_nonnull(strstr(html, ".regression{background:#ffefd5;border:1px solid #f0a848}"));
  ck_assert_ptr_nonnull(strstr(html, ".notice{background:#f3f3f3;"));
  check_references(html);
  free(html);
  /* Without the baseline, the same. */
  p.cmp = NULL, p.baseline = NULL;
  html = write_page(&p);
  ck_assert_msg(strstr(html, "<p class=\"verdict regression\" id=\"verdict\">REGRESSION: 1 cell slower than the "
                             "reference&#39;s accepted level (1 open finding)</p>"),
                "%.2000s", strstr(html, "<p class=\"verdict"));
  free(html);
  /* Nothing found: one green line says so. */
  kg_detection none = {.nseries = 10};
  p.detect = &none;
  html = write_page(&p);
  ck_assert_msg(strstr(html, "<p class=\"box good\"><strong>No findings</strong> across 6 paired nights and 10 cells"),
                "%.2000s", strstr(html, "<p class=\"verdict"));
  ck_assert_msg(strstr(html, "<p class=\"verdict good\" id=\"verdict\">PASS: every watched cell within its accepted "
                             "level against the pinned reference</p>"),
                "%.2000s", strstr(html, "<p class=\"verdict"));
  free(html);
  /* The document the page prints holds the headline and history check's exit code. */
  p.detect = d;
  kg_rdoc doc;
  ck_assert_int_eq(kg_html_doc(&doc, &p), 0);
  ck_assert_str_eq(doc.findings.page.word, "REGRESSION");
  ck_assert_int_eq(doc.findings.exit_code, KG_EXIT_PERF);
  kg_rdoc_free(&doc);
  /* The run's own failed case comes first: FAIL on a nightly page too, with the run's count. */
  g_results[4].status = KG_ST_FAIL;
  html = write_page(&p);
  ck_assert_msg(strstr(html, "<p class=\"verdict failure\" id=\"verdict\">FAIL: 1 of 6 cases failed or errored</p>"),
                "%.2000s", strstr(html, "<p class=\"verdict"));
  free(html);
}
END_TEST

/* ---- kgate bisect's answer in a finding's box ----------------------------------------------- */

/* A bisect of kgt_nightly's regression: its range (nights c0ffee3 .. c0ffee4,
 * in full) and its cell, with two commits between; o's outcome: found
 * names commit 2 against commit 1, 2 % slower; undecided leaves commits 1..2. */
static char g_bcommits[4][41];
static kg_bisect_cell g_bcell;

static kg_bisect_doc bisect_doc(const kg_finding *reg, kg_bisect_outcome o) {
  snprintf(g_bcommits[0], sizeof g_bcommits[0], "c0ffee3%033d", 0);
  snprintf(g_bcommits[1], sizeof g_bcommits[1], "%s", "1111111111111111111111111111111111111111");
  snprintf(g_bcommits[2], sizeof g_bcommits[2], "%s", "2222222222222222222222222222222222222222");
  snprintf(g_bcommits[3], sizeof g_bcommits[3], "c0ffee4%033d", 0);
  g_bcell = (kg_bisect_cell){"", reg->cells[0].dtype, reg->cells[0].n};
  snprintf(g_bcell.variant, sizeof g_bcell.variant, "%s", reg->cells[0].variant);
  kg_bisect_doc d = {.outcome = o, .estimate_pct = 2.0, .cells = &g_bcell, .ncells = 1, .commits = g_bcommits,
                     .ncommits = 4, .culprit = -1, .parent = -1, .cand_first = -1, .cand_last = -1,
                     .reproduce = {1, 0.1, -0.2, 0.4, 1, 1}, .verify = {1, 2.0, 1.5, 2.5, 2, 1}};
  if (o == KG_BISECT_FOUND) d.culprit = 2, d.parent = 1;
  if (o == KG_BISECT_UNDECIDED) d.cand_first = 1, d.cand_last = 2;
  snprintf(d.why, sizeof d.why, "%s", o == KG_BISECT_FOUND ? "found: the culprit is slower than its parent by the step"
                                     : o == KG_BISECT_OUTSIDE ? "every commit of the range builds the same machine code: the cause is outside the module"
                                     : o == KG_BISECT_NOT_REPRODUCED ? "not reproduced: the environment or the toolchain"
                                     : o == KG_BISECT_UNDECIDED ? "undecided: the rounds ran out before the middle commit's side was clear"
                                                                : "paired run 1 exited 3 with no results");
  if (o == KG_BISECT_OUTSIDE) snprintf(d.changed, sizeof d.changed, "%s", "nvcc 13.0.88 \u2192 13.1.42 on the first bad night");
  return d;
}

/* The finding's box, from its tag to its end. */
static char *regression_box(const char *html) {
  const char *at = strstr(html, "<p class=\"box regression\">"), *end = at ? strstr(at, "</p>") : NULL;
  ck_assert_msg(at && end, "no regression box in %.2000s", html);
  return strndup(at, (size_t)(end - at + 4));
}

/* The box of the regression a bisect is of names and links the culprit,
 * with its effect against its parent; no other box speaks of it; without a
 * repository the commits are text; a bisect of another range, or one that
 * could not run, is not shown. */
START_TEST(test_html_finding_culprit) {
  kg_history *h;
  kg_detection *d;
  kgt_nightly(&h, &d);
  kg_bisect_doc b = bisect_doc(&d->find[0], KG_BISECT_FOUND);
  kg_html_page p = full_page();
  p.history = h, p.detect = d, p.repo_url = "https://github.com/o/r", p.bisect = &b;
  char *html = write_page(&p), *box = regression_box(html);
  ck_assert_msg(strstr(box, "(last good...first bad)<br><strong>Culprit</strong> (kgate bisect): <a href=\"https://github.com/o/r/"
                            "commit/2222222222222222222222222222222222222222\">222222222222</a>, +2.00 % [+1.50, +2.50] "
                            "against its parent <a href=\"https://github.com/o/r/commit/1111111111111111111111111111111111111111"
                            "\">111111111111</a><br>reduce0_divergent f32 2\u00b2\u2075 +2.00 %</p>"),
                "%s", box);
  ck_assert_ptr_eq(strstr(html, "Culprit"), strstr(html, box) + (strstr(box, "Culprit") - box));
  ck_assert_ptr_null(strstr(strstr(html, "Culprit") + 1, "Culprit"));
  check_references(html);
  free(box), free(html);
  /* No repository: the commits as text. */
  p.repo_url = NULL;
  html = write_page(&p);
  ck_assert_msg(strstr(html, "<strong>Culprit</strong> (kgate bisect): 222222222222, +2.00 % [+1.50, +2.50] against its "
                             "parent 111111111111<br>"),
                "%.3000s", strstr(html, "<div id=\"findings\">"));
  ck_assert_ptr_null(strstr(html, "/commit/2222"));
  free(html);
  /* Another range's bisect, one of another cell, or one that could not run: nothing of it. */
  p.repo_url = "https://github.com/o/r";
  memcpy(g_bcommits[3], "c0ffee5", 7);
  html = write_page(&p);
  ck_assert_ptr_null(strstr(html, "kgate bisect"));
  free(html);
  b = bisect_doc(&d->find[0], KG_BISECT_FOUND);
  g_bcell.n /= 2;
  html = write_page(&p);
  ck_assert_ptr_null(strstr(html, "kgate bisect"));
  free(html);
  b = bisect_doc(&d->find[0], KG_BISECT_ENV);
  html = write_page(&p);
  ck_assert_ptr_null(strstr(html, "kgate bisect"));
  free(html);
}
END_TEST

/* A bisect that found no culprit says what it found instead, in the box of
 * its finding, and names no culprit: outside the module with what changed;
 * not reproduced with the range's ends against the finding's step;
 * undecided with the commits the step may be at, linked. */
static const struct {
  kg_bisect_outcome o;
  const char *want;
} k_answers[] = {
    {KG_BISECT_OUTSIDE, "<br><strong>kgate bisect</strong>: every commit of the range builds the same machine code: the "
                        "cause is outside the module; what changed: nvcc 13.0.88 \u2192 13.1.42 on the first bad night<br>"},
    {KG_BISECT_NOT_REPRODUCED, "<br><strong>kgate bisect</strong>: not reproduced: the environment or the toolchain: "
                               "+0.10 % [-0.20, +0.40] between the range&#39;s ends, where the finding&#39;s step is +2.00 %<br>"},
    {KG_BISECT_UNDECIDED, "<br><strong>kgate bisect</strong>: undecided: the rounds ran out before the middle commit&#39;s "
                          "side was clear; the step is at one of 2 commits, <a href=\"https://github.com/o/r/commit/"
                          "1111111111111111111111111111111111111111\">111111111111</a> to <a href=\"https://github.com/o/r/"
                          "commit/2222222222222222222222222222222222222222\">222222222222</a><br>"},
};

START_TEST(test_html_finding_bisect_answers) {
  kg_history *h;
  kg_detection *d;
  kgt_nightly(&h, &d);
  kg_bisect_doc b = bisect_doc(&d->find[0], k_answers[_i].o);
  kg_html_page p = full_page();
  p.history = h, p.detect = d, p.repo_url = "https://github.com/o/r", p.bisect = &b;
  char *html = write_page(&p), *box = regression_box(html);
  ck_assert_msg(strstr(box, k_answers[_i].want), "want %s in %s", k_answers[_i].want, box);
  ck_assert_ptr_null(strstr(html, "Culprit"));
  free(box), free(html);
}
END_TEST

/* Text a bisect's file holds (its why, what changed) is text on the page: no tag, no entity survives. */
START_TEST(test_html_bisect_hostile_text) {
  kg_history *h;
  kg_detection *d;
  kgt_nightly(&h, &d);
  kg_bisect_doc b = bisect_doc(&d->find[0], KG_BISECT_OUTSIDE);
  snprintf(b.why, sizeof b.why, "<script>alert(\"x\")</script> & co");
  snprintf(b.changed, sizeof b.changed, "<img src=x onerror=alert(1)>&amp;");
  kg_html_page p = full_page();
  p.history = h, p.detect = d, p.repo_url = "https://github.com/o/r", p.bisect = &b;
  char *html = write_page(&p);
  ck_assert_msg(strstr(html, "<strong>kgate bisect</strong>: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co; "
                             "what changed: &lt;img src=x onerror=alert(1)&gt;&amp;amp;<br>"),
                "%.3000s", strstr(html, "<div id=\"findings\">"));
  ck_assert_ptr_null(strstr(html, "<script"));
  ck_assert_ptr_null(strstr(html, "<img src=x"));
  free(html);
}
END_TEST

START_TEST(test_html_validates) {
  if (system("command -v xmllint >/dev/null 2>&1") != 0) {
    fprintf(stderr, "check_html: no xmllint, skipping test_html_validates\n");
    return;
  }
  kg_history *h; /* with the findings panel and a ratio chart as an image */
  kg_detection *d;
  kgt_nightly(&h, &d);
  g_charts.c[g_charts.n++] = (kg_chart){kg_chart_kind_find("ratio"), "ratio-f32", "f32: tonight / reference"};
  touch("ratio-f32.png", "png");
  kg_bisect_doc b = bisect_doc(&d->find[0], KG_BISECT_FOUND); /* the culprit's links in the box */
  kg_html_page p = full_page();
  p.history = h, p.detect = d, p.note = "a note", p.repo_url = "https://github.com/o/r", p.bisect = &b;
  char *page = write_page(&p);
  ck_assert_ptr_nonnull(strstr(page, "<strong>Culprit</strong>"));
  free(page);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "xmllint --html --noout '%s/index.html' 2>'%s/lint' && test ! -s '%s/lint'", g_dir, g_dir,
           g_dir);
  if (system(cmd) != 0) {
    snprintf(cmd, sizeof cmd, "%s/lint", g_dir);
    char *lint = slurp(cmd);
    ck_abort_msg("xmllint: %s", lint);
  }
}
END_TEST

/* Issue 12, item 2: the page is built from files of other machines. Every
 * string a file can hold (date, GPU name, commit, version, variant names,
 * got/expected, messages, a history's commits and variants) goes in as
 * text: no tag, no attribute, no entity survives, and the page validates. */
static const char k_xss[] = "<img src=x onerror=alert(1)>";

START_TEST(test_html_hostile_text) {
  snprintf(g_run.meta.date, sizeof g_run.meta.date, "%s", k_xss);
  snprintf(g_run.meta.dev.name, sizeof g_run.meta.dev.name, "%s\"'&x\x1b", k_xss);
  snprintf(g_run.meta.commit, sizeof g_run.meta.commit, "%s", k_xss);
  snprintf(g_run.meta.version, sizeof g_run.meta.version, "<b>0.1");
  snprintf(g_results[4].got, sizeof g_results[4].got, "<script>");
  snprintf(g_results[4].message, sizeof g_results[4].message, "%s</td></tr></table>", k_xss);
  snprintf(g_rows[0].variant, sizeof g_rows[0].variant, "%s", k_xss);
  snprintf(g_cmp.warning, sizeof g_cmp.warning, "%s", k_xss);
  kg_hist_run runs[2] = {{.date = "2026-11-20T02:00:00Z", .commit = "aaa"}, {.commit = ""}};
  snprintf(runs[1].date, sizeof runs[1].date, "%s", k_xss);
  snprintf(runs[1].commit, sizeof runs[1].commit, "%s", k_xss);
  kg_history h = {.n = 2, .runs = runs};
  kg_html_page p = full_page();
  p.baseline = k_xss, p.note = k_xss, p.history = &h;
  p.repo_url = "https://github.com/o/r"; /* a hostile commit is never linked: text */
  char *html = write_page(&p);
  char apath[128];
  snprintf(apath, sizeof apath, "%s/archive.html", g_dir);
  char *archive = slurp(apath);
  ck_assert_msg(!strstr(archive, "<img src=x") && strstr(archive, "&lt;img src=x onerror=alert(1)&gt;") &&
                    !strstr(archive, "/commit/"),
                "%s", archive);
  free(archive);
  ck_assert_msg(!strstr(html, "<img src=x") && !strstr(html, "<script") && !strstr(html, "<b>"), "%s", html);
  ck_assert_ptr_null(strchr(html, '\x1b'));
  size_t shown = 0;
  for (const char *q = strstr(html, "&lt;img src=x onerror=alert(1)&gt;"); q; q = strstr(q + 1, "&lt;img src=x"))
    shown++;
  ck_assert_msg(shown >= 9, "the string is shown %zu times as text", shown); /* title, h1, run line, tables... */
  ck_assert_ptr_nonnull(strstr(html, "<title>kgate nightly: &lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;x?, "));
  ck_assert_ptr_nonnull(strstr(html, "night of &lt;img src=x onerror=alert(1)&gt; &middot; commit &lt;img"));
  check_references(html);
  free(html);
  if (system("command -v xmllint >/dev/null 2>&1") == 0) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "xmllint --html --noout '%s/index.html' 2>'%s/lint' && test ! -s '%s/lint'", g_dir,
             g_dir, g_dir);
    ck_assert_msg(system(cmd) == 0, "xmllint reports problems");
  }
}
END_TEST

/* ---- the paired gate (issue 13) ------------------------------------------- */

enum { NPAIRS = 7 };
static kg_pair_cell g_pairs[NPAIRS];

static kg_pair_cell pcell(const char *variant, kg_pverdict v, double ratio, double lo, double hi, int blocks) {
  kg_pair_cell c = {.dtype = KG_F32, .n = M25, .min_effect = 0.005, .rounds = blocks ? 2 : 0};
  snprintf(c.variant, sizeof c.variant, "%s", variant);
  c.stat = (kg_pair_stat){.blocks = blocks, .pairs = 8 * blocks, .ratio = ratio, .lo = lo, .hi = hi,
                          .head_us = blocks ? 200 * ratio : 0, .base_us = blocks ? 200 : 0, .verdict = v};
  return c;
}

/* One cell of each verdict, SAME first and SLOWER late: the page sorts. */
static void make_pairs(void) {
  g_pairs[0] = pcell("cub_sum", KG_PV_SAME, 1.001, 0.998, 1.004, 8);
  g_pairs[1] = pcell("reduce7_shuffle", KG_PV_FASTER, 0.95, 0.94, 0.96, 8);
  g_pairs[2] = pcell("reduce9_new", KG_PV_NEW, 0, 0, 0, 0);
  g_pairs[3] = pcell("reduce0_divergent", KG_PV_SLOWER, 1.1, 1.09, 1.11, 8);
  g_pairs[4] = pcell("reduce1_strided", KG_PV_MISSING, 0, 0, 0, 0);
  g_pairs[5] = pcell("two_pass", KG_PV_UNKNOWN, 0, 0, 0, 0);
  snprintf(g_pairs[5].message, sizeof g_pairs[5].message, "its check failed");
  g_pairs[6] = pcell("reduce2_sequential", KG_PV_UNDECIDED, 1.004, 0.999, 1.009, 16);
  g_run.pairs = g_pairs, g_run.npairs = NPAIRS;
  g_run.pair = (kg_pair_meta){.on = 1, .base_path = "/ci/base/libkgate_kernels.so", .base_name = "kgate-kernels",
                              .base_version = "0.1.0", .confidence = 0.99, .copies = 4, .quads = 16, .rounds = 2,
                              .max_rounds = 6, .wall_s = 30};
}

static const char *const k_pair_order[] = {
    "<tr class=\"regression\"><td class=\"l\">SLOWER</td><td class=\"l\">reduce0_divergent</td><td class=\"l\">f32</td>"
    "<td>33554432</td><td>220</td><td>200</td><td>+10.00 %</td><td class=\"l\">[+9.00 %, +11.00 %]</td><td>0.5 %</td><td>8</td>"
    "<td>2</td><td class=\"l\"></td></tr>",
    "<tr class=\"notice\"><td class=\"l\">UNKNOWN</td><td class=\"l\">two_pass</td><td class=\"l\">f32</td>"
    "<td>33554432</td><td></td><td></td><td></td><td class=\"l\"></td><td></td><td></td><td>0</td><td class=\"l\">unknown: "
    "its check failed</td></tr>",
    ">UNDECIDED</td><td class=\"l\">reduce2_sequential</td>",
    ">MISSING</td><td class=\"l\">reduce1_strided</td>",
    "<tr class=\"good\"><td class=\"l\">FASTER</td><td class=\"l\">reduce7_shuffle</td>",
    ">NEW</td><td class=\"l\">reduce9_new</td>",
    "<tr><td class=\"l\">SAME</td><td class=\"l\">cub_sum</td>",
};

START_TEST(test_html_paired_table) {
  make_pairs();
  kg_html_page p = full_page();
  char *html = write_page(&p);
  const char *sec = strstr(html, "<h2 id=\"paired\">Paired gate</h2>");
  const char *base = strstr(html, "<h2 id=\"regressions\">Against the stored baseline (advisory)</h2>");
  const char *charts = strstr(html, "<h2 id=\"charts\">");
  ck_assert_msg(sec && base && charts && sec < base && base < charts, "%s", html);
  ck_assert_ptr_null(strstr(html, ">Regressions</h2>"));
  ck_assert_ptr_nonnull(strstr(html, "<li>Paired gate against /ci/base/libkgate_kernels.so (kgate-kernels 0.1.0): 1 "
                                     "SLOWER, 1 UNKNOWN, 1 UNDECIDED, 1 MISSING, 1 FASTER, 1 NEW, 1 SAME</li>"));
  ck_assert_ptr_nonnull(strstr(html, "Performance against baselines/nvidia-h200.json (advisory: the paired gate "
                                     "decides): 1 SLOWER"));
  ck_assert_ptr_nonnull(strstr(sec, "99 % confidence interval over blocks"));
  const char *prev = sec;
  for (size_t k = 0; k < NPAIRS; k++) {
    const char *row = strstr(html, k_pair_order[k]);
    ck_assert_msg(row && row > prev && row < base, "row %zu missing or out of order: %s", k, sec);
    prev = row;
  }
  ck_assert_ptr_nonnull(strstr(html, "<a href=\"#paired\">Paired gate</a>"));
  check_references(html);
  free(html);
  g_run.pair.on = 0; /* not paired: no section, the baseline decides again */
  html = write_page(&p);
  ck_assert_ptr_null(strstr(html, "Paired gate"));
  ck_assert_ptr_nonnull(strstr(html, ">Regressions</h2>"));
  free(html);
}
END_TEST

/* An UNCHANGED cell: counted only when there is one, a row after SAME with
 * no numbers and its evidence (escaped) as the reason, in the report model's words. */
START_TEST(test_html_paired_unchanged) {
  make_pairs();
  kg_html_page p = full_page();
  char *html = write_page(&p);
  ck_assert_ptr_null(strstr(html, "UNCHANGED")); /* a run without one reads as before */
  free(html);
  g_pairs[2] = pcell("reduce9_new", KG_PV_UNCHANGED, 1, 1, 1, 0);
  snprintf(g_pairs[2].message, sizeof g_pairs[2].message, "same machine code (sm_90, SHA-256 3f2a9c01d4e5b6a7) and "
                                                           "launches: 2 kernels, 3 launches <&>");
  html = write_page(&p);
  ck_assert_msg(strstr(html, "1 FASTER, 0 NEW, 1 SAME, 1 UNCHANGED</li>"), "%s", html);
  const char *same = strstr(html, "<tr><td class=\"l\">SAME</td>");
  const char *row = strstr(html, "<tr><td class=\"l\">UNCHANGED</td><td class=\"l\">reduce9_new</td><td class=\"l\">f32"
                                 "</td><td>33554432</td><td></td><td></td><td></td><td class=\"l\"></td><td></td><td></td><td>0</td>"
                                 "<td class=\"l\">unchanged, not timed: same machine code (sm_90, SHA-256 3f2a9c01d4e5b6a7) and "
                                 "launches: 2 kernels, 3 launches &lt;&amp;&gt;</td></tr>");
  ck_assert_msg(same && row && same < row, "%s", html);
  ck_assert_ptr_null(strstr(html, "<&>"));
  free(html);
}
END_TEST

START_TEST(test_html_paired_empty) {
  make_pairs();
  g_run.npairs = 0;
  kg_html_page p = {.run = &g_run, .links = k_links, .nlinks = 0};
  char *html = write_page(&p);
  ck_assert_ptr_nonnull(strstr(html, "<p>No cell was paired"));
  ck_assert_ptr_null(strstr(html, "no baseline to compare with")); /* the paired gate is the comparison */
  free(html);
}
END_TEST

START_TEST(test_html_paired_hostile_text) {
  make_pairs();
  snprintf(g_run.pair.base_path, sizeof g_run.pair.base_path, "%s\"'&\x1b[2J", k_xss);
  snprintf(g_run.pair.base_name, sizeof g_run.pair.base_name, "<script>");
  snprintf(g_run.pair.base_version, sizeof g_run.pair.base_version, "<b>1");
  snprintf(g_pairs[3].variant, sizeof g_pairs[3].variant, "%s", k_xss);
  snprintf(g_pairs[5].message, sizeof g_pairs[5].message, "%s</td></tr></table>", k_xss);
  kg_html_page p = full_page();
  char *html = write_page(&p);
  ck_assert_msg(!strstr(html, "<img src=x") && !strstr(html, "<script") && !strstr(html, "<b>"), "%s", html);
  ck_assert_ptr_null(strchr(html, '\x1b'));
  ck_assert_ptr_nonnull(strstr(html, "<li>Paired gate against &lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;?[2J "
                                     "(&lt;script&gt; &lt;b&gt;1):"));
  ck_assert_ptr_nonnull(strstr(html, "<td class=\"l\">SLOWER</td><td class=\"l\">&lt;img src=x onerror=alert(1)&gt;</td>"));
  ck_assert_ptr_nonnull(strstr(html, "&lt;img src=x onerror=alert(1)&gt;&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</td></tr>"));
  free(html);
  if (system("command -v xmllint >/dev/null 2>&1") == 0) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "xmllint --html --noout '%s/index.html' 2>'%s/lint' && test ! -s '%s/lint'", g_dir,
             g_dir, g_dir);
    ck_assert_msg(system(cmd) == 0, "xmllint reports problems");
  }
}
END_TEST

START_TEST(test_html_unwritable) {
  kg_html_page p = full_page();
  char err[512] = "";
  ck_assert_int_eq(kg_html_write("/nonexistent-kgate-dir", &p, err, sizeof err), -1);
  ck_assert(err[0] != '\0');
}
END_TEST


/* ---- issue 15: the verdict first, links, versions, the archive ----------- */

/* The headline: FAIL beats REGRESSION beats PASS, and says against what. */
START_TEST(test_html_verdict_headline) {
  static const struct {
    int fail, slower, baseline, paired_slower;
    const char *want;
  } rows[] = {
      {1, 1, 1, 0, "<p class=\"verdict failure\" id=\"verdict\">FAIL: 1 of 6 cases failed or errored; 1 case slower "
                   "than baselines/nvidia-h200.json</p>"},
      {0, 1, 1, 0, "<p class=\"verdict regression\" id=\"verdict\">REGRESSION: 1 case slower than "
                   "baselines/nvidia-h200.json</p>"},
      {0, 0, 1, 0, "<p class=\"verdict good\" id=\"verdict\">PASS: 6 cases checked, none failed; none slower than "
                   "baselines/nvidia-h200.json</p>"},
      {0, 0, 0, 0, "<p class=\"verdict good\" id=\"verdict\">PASS: 6 cases checked, none failed (correctness only: "
                   "no baseline to compare with)</p>"},
      {0, 1, 1, 1, "<p class=\"verdict regression\" id=\"verdict\">REGRESSION: 1 cell slower than the base build "
                   "(paired)</p>"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    g_results[4].status = rows[i].fail ? KG_ST_FAIL : KG_ST_PASS;
    g_cmp.count[KG_V_SLOWER] = (size_t)rows[i].slower;
    g_run.pair.on = 0;
    if (rows[i].paired_slower) {
      static kg_pair_cell cell;
      cell = (kg_pair_cell){.dtype = KG_F32, .n = M25, .stat = {.verdict = KG_PV_SLOWER}};
      snprintf(cell.variant, sizeof cell.variant, "cub_sum");
      g_run.pairs = &cell, g_run.npairs = 1, g_run.pair.on = 1;
    }
    kg_html_page p = full_page();
    if (!rows[i].baseline) p.cmp = NULL, p.baseline = NULL;
    char *html = write_page(&p);
    ck_assert_msg(strstr(html, rows[i].want), "row %zu: %s", i, html);
    /* The verdict comes before every section. */
    ck_assert(strstr(html, "id=\"verdict\"") < strstr(html, "<h2"));
    free(html);
  }
}
END_TEST

START_TEST(test_html_cuda_version_label) {
  static const struct {
    int v;
    const char *want;
  } rows[] = {{13000, "13.0"}, {12080, "12.8"}, {11020, "11.2"}, {12010, "12.1"}, {0, "unknown"}, {-5, "unknown"}};
  char buf[16];
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    kg_cuda_version_label(rows[i].v, buf, sizeof buf);
    ck_assert_msg(!strcmp(buf, rows[i].want), "%d gave %s", rows[i].v, buf);
  }
  kg_html_page p = full_page();
  char *html = write_page(&p);
  ck_assert_msg(strstr(html, ", driver 13.0, CUDA runtime ") && !strstr(html, "driver 13000"), "%s", html);
  free(html);
}
END_TEST

START_TEST(test_html_url_ok) {
  static const struct {
    const char *url;
    int ok;
  } rows[] = {
      {"https://github.com/kgate-dev/kgate", 1},
      {"http://git.example.org:8080/team/kgate", 1},
      {"https://github.com/o/r\"onmouseover=x", 0},
      {"javascript:alert(1)", 0},
      {"https://github.com/o/r?x=1", 0},
      {"https://github.com/o/../../evil", 0},
      {"https://", 0},
      {"https:///path", 0},
      {"ftp://example.org/x", 0},
      {"https://exa mple.org", 0},
      {"", 0},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    ck_assert_msg(kg_html_url_ok(rows[i].url) == rows[i].ok, "%s", rows[i].url);
}
END_TEST

/* Commits link to the repository, and the range since the previous night to its compare view. */
START_TEST(test_html_commit_links) {
  kg_hist_run runs[3] = {{.date = "2026-11-19T02:00:00Z", .commit = "0123456789ab"},
                         {.date = "2026-11-20T02:00:00Z", .commit = "fedcba987654-dirty"},
                         {.date = "2026-11-21T08:30:00Z", .commit = "abc123def456"}};
  kg_history h = {.n = 3, .runs = runs};
  kg_html_page p = full_page();
  p.history = &h, p.repo_url = "https://github.com/o/r";
  char *html = write_page(&p);
  ck_assert_msg(strstr(html, "commit <a href=\"https://github.com/o/r/commit/abc123def456\">abc123def456</a> &middot; "
                             "since the night of 2026-11-20 02:00 UTC: <a href=\"https://github.com/o/r/compare/"
                             "fedcba987654...abc123def456\">fedcba987654...abc123def456</a>"),
                "%s", html);
  ck_assert_ptr_nonnull(strstr(html, "<a href=\"archive.html\">every night</a>"));
  check_references(html);
  free(html);
  /* No repository: the same words, no external link. */
  p.repo_url = NULL;
  html = write_page(&p);
  ck_assert_ptr_null(strstr(html, "https://"));
  ck_assert_ptr_nonnull(strstr(html, "since the night of 2026-11-20 02:00 UTC: fedcba987654-dirty...abc123def456"));
  free(html);
}
END_TEST

/* archive.html: every night, newest first, its verdict (the report model's)
 * and why, links that exist. A case 10 % slower than the night before is
 * no verdict: without the nightly's detector a night is FAIL or PASS. */
START_TEST(test_html_archive) {
  kg_hist_run runs[3] = {{.date = "2026-11-19T02:00:00Z", .commit = "0123456789ab", .version = "0.1.0"},
                         {.date = "2026-11-20T02:00:00Z", .commit = "1123456789ab", .version = "0.1.0"},
                         {.date = "2026-11-21T02:00:00Z", .commit = "2123456789ab", .version = "0.1.0"}};
  runs[0].checks = (kg_counts){.cases = 10, .passed = 10};
  runs[1].checks = (kg_counts){.cases = 10, .passed = 10};
  runs[2].checks = (kg_counts){.cases = 10, .passed = 9, .failed = 1};
  for (int i = 0; i < 3; i++) runs[i].dev = kgt_h200();
  kg_hist_entry e[3];
  for (int i = 0; i < 3; i++) {
    e[i] = (kg_hist_entry){.variant = "cub_sum", .dtype = KG_F32, .n = M25, .t = kgt_timing(i == 1 ? 33 : 30)};
    runs[i].entries = &e[i], runs[i].n = 1;
  }
  kg_history h = {.n = 3, .runs = runs};
  kg_html_page p = full_page();
  p.history = &h, p.repo_url = "https://github.com/o/r";
  free(write_page(&p));
  char path[128];
  snprintf(path, sizeof path, "%s/archive.html", g_dir);
  char *a = slurp(path);
  const char *n3 = strstr(a, ">2026-11-21 02:00 UTC<"), *n2 = strstr(a, ">2026-11-20 02:00 UTC<"),
             *n1 = strstr(a, ">2026-11-19 02:00 UTC<");
  ck_assert_msg(n3 && n2 && n1 && n3 < n2 && n2 < n1, "%s", a);
  ck_assert_msg(strstr(n3, "<td class=\"l\">FAIL</td><td class=\"l\">1 of 10 cases failed or errored</td><td>10</td>"
                          "<td>9</td><td>1</td>"),
                "%s", a);
  ck_assert_ptr_nonnull(strstr(n2, "<td class=\"l\">PASS</td><td class=\"l\">10 cases checked, none failed</td>"
                                   "<td>10</td><td>10</td><td>0</td><td>0</td><td>0</td><td class=\"l\">0.1.0</td>"));
  ck_assert_ptr_nonnull(strstr(n1, "<td class=\"l\">PASS</td>"));
  ck_assert_ptr_null(strstr(a, "SLOWER"));
  ck_assert_ptr_nonnull(strstr(a, "<a href=\"https://github.com/o/r/commit/1123456789ab\">1123456789ab</a>"));
  ck_assert_ptr_nonnull(strstr(a, "<td class=\"l\">13.0 / 13.0</td>"));
  /* history.jsonl is not in the folder: not linked. */
  ck_assert_ptr_null(strstr(a, "history.jsonl"));
  check_references(a);
  free(a);
}
END_TEST

/* The Checks line of a nightly page counts its night as the archive does:
 * the night's line of the history. When the page's results file holds other
 * cases, both are said, each named; when it is the night's own file, or the
 * run is no night of the history, the line is the file's alone. */
START_TEST(test_html_checks_as_archive) {
  kg_hist_run runs[2] = {{.date = "2026-11-20T02:00:00Z", .commit = "1123456789ab", .version = "0.1.0"},
                         {.date = "2026-11-21T08:30:00Z", .commit = "abc123def456", .version = "0.1.0"}};
  runs[0].checks = (kg_counts){.cases = 7, .passed = 7};
  runs[1].checks = (kg_counts){.cases = 6, .passed = 5, .failed = 1}; /* g_run's own counts */
  for (int i = 0; i < 2; i++) runs[i].dev = kgt_h200();
  kg_history h = {.n = 2, .runs = runs};
  kg_html_page p = full_page();
  p.history = &h;
  static const char plain[] =
      "<li>Checks: 6 cases, 5 passed, 1 failed, 0 errors, 0 unsupported, 0 nondeterministic</li>";
  char *html = write_page(&p);
  ck_assert_msg(strstr(html, plain) != NULL, "%.3000s", strstr(html, "<ul>"));
  free(html);
  /* the night's line counts another run's cases (its sweep; the page's file is its paired run) */
  runs[1].checks = (kg_counts){.cases = 1656, .passed = 1355, .failed = 1, .unsupported = 300};
  html = write_page(&p);
  ck_assert_msg(strstr(html, "<li>Checks: the night's 1656 cases, 1355 passed, 1 failed, 0 errors, 300 unsupported "
                             "(its line of the history, as <a href=\"archive.html\">every night</a> counts them); "
                             "this page's results file: 6 cases, 5 passed, 1 failed, 0 errors, 0 unsupported, "
                             "0 nondeterministic</li>"),
                "%.3000s", strstr(html, "<ul>"));
  free(html);
  char path[128];
  snprintf(path, sizeof path, "%s/archive.html", g_dir);
  char *a = slurp(path);
  ck_assert_msg(strstr(a, "<td>1656</td><td>1355</td><td>1</td><td>0</td><td>300</td>"), "%s", a);
  ck_assert_ptr_nonnull(strstr(a, "Cases: the night's cases from its line of the history"));
  free(a);
  /* a run that is no night of the history: no other night's counts stand in for it */
  snprintf(runs[1].date, sizeof runs[1].date, "2026-11-21T02:00:00Z");
  html = write_page(&p);
  ck_assert_msg(strstr(html, plain) != NULL, "%.3000s", strstr(html, "<ul>"));
  free(html);
}
END_TEST

/* The committed H200 sweep (2^12..2^28) against the stored baseline (2^22 and
 * 2^25 only): the page compares like with like. The sizes the baseline holds
 * none of are left out of the counts and the charts, and said; no case reads
 * NEW for want of a baseline size. */
START_TEST(test_html_sweep_like_with_like) {
  char site[128], path[200];
  snprintf(site, sizeof site, "%s/sweep", g_dir);
  char *env = strdup(getenv("PATH") ? getenv("PATH") : "");
  setenv("PATH", "/nonexistent", 1); /* no gnuplot: the page and the charts' data, quicker */
  char *report[] = {"report", KG_SOURCE_DIR "/tests/data/h200-sweep.json", "--html", site, "--baseline",
                    KG_SOURCE_DIR "/baselines/nvidia-h200.json", NULL};
  int code = kgt_run_cli(report);
  setenv("PATH", env, 1);
  free(env);
  ck_assert_msg(code == 0 || code == 3, "report: exit %d", code);
  snprintf(path, sizeof path, "%s/index.html", site);
  char *html = slurp(path);
  const char *perf = strstr(html, "<li>Performance against ");
  ck_assert_msg(perf && strstr(perf, ": 0 SLOWER, 0 UNKNOWN, 0 MISSING, 0 FASTER, 0 NEW, 240 SAME; 960 cases at 8 "
                                     "sizes "
                                     "from n = 2\u00b9\u00b2 to 2\u00b2\u2078 left out: the baseline holds no case of "
                                     "those sizes</li>") == strstr(perf, ": "),
                "%.600s", perf);
  free(html);
  snprintf(path, sizeof path, "%s/compare-f32.vars", site);
  char *vars = slurp(path);
  ck_assert_msg(strstr(vars, "left = '184 cases at sizes the baseline holds none of left out'"), "%s", vars);
  free(vars);
  snprintf(path, sizeof path, "%s/compare-f32.dat", site);
  char *dat = slurp(path);
  ck_assert_msg(!strstr(dat, " NEW \"") && !strstr(dat, "# n = 4096\n"), "%.2000s", dat);
  free(dat);
}
END_TEST

/* ---- one story per night: the recorded nights of tests/data/nightly ------------------------ */

/* The recorded H100 nights: eight A/A nights, then (live) the four live
 * nights, whose last two slow reduce7_shuffle by about 0.5 % at 2^25. */
static void nightly_history(const char *path, int live) {
  char *aa = slurp(KG_SOURCE_DIR "/tests/data/nightly/h100-aa.jsonl");
  char *lv = live ? slurp(KG_SOURCE_DIR "/tests/data/nightly/h100-live.jsonl") : NULL;
  char *both = malloc(strlen(aa) + (lv ? strlen(lv) : 0) + 1);
  ck_assert_ptr_nonnull(both);
  strcpy(both, aa);
  if (lv) strcat(both, lv);
  kgt_spit(path, both);
  free(both), free(aa), free(lv);
}

/* What each printer says of the nights: the page (index, archive and chart
 * data, as `kgate report --html` writes them), `history check --summary`'s
 * Markdown and its terminal lines. */
typedef struct nightly_out {
  char site[128], hist[128];
  char *index, *archive, *md, *term;
  kg_history h;
  kg_detection d;
} nightly_out;

static void nightly_render(nightly_out *o, int live) {
  char err[512], md[160];
  snprintf(o->hist, sizeof o->hist, "%s/h.jsonl", g_dir);
  snprintf(o->site, sizeof o->site, "%s/site", g_dir);
  snprintf(md, sizeof md, "%s/summary.md", g_dir);
  nightly_history(o->hist, live);
  /* No gnuplot: the page and the chart data without their images (exit 3), and quicker. */
  char *path = strdup(getenv("PATH") ? getenv("PATH") : "");
  setenv("PATH", "/nonexistent", 1);
  char *report[] = {"report", KG_SOURCE_DIR "/tests/data/nightly/h100-live-night4.json", "--html", o->site,
                    "--history", o->hist, NULL};
  int code = kgt_run_cli(report);
  setenv("PATH", path, 1);
  free(path);
  ck_assert_msg(code == 0 || code == 3, "report: exit %d", code);
  char *check[] = {"history", "check", o->hist, "--summary", md, NULL};
  ck_assert_int_eq(kgt_run_cli(check), live ? 4 : 0);
  char file[200];
  snprintf(file, sizeof file, "%s/index.html", o->site);
  o->index = slurp(file);
  snprintf(file, sizeof file, "%s/archive.html", o->site);
  o->archive = slurp(file);
  o->md = slurp(md);
  /* The terminal: history check's lines, as nightly.c prints them. */
  ck_assert_msg(kg_history_read(o->hist, &o->h, err, sizeof err) == 0, "%s", err);
  kg_detect_opts opts = kg_detect_defaults();
  ck_assert_int_eq(kg_detect(&o->h, NULL, &opts, &o->d), 0);
  kg_rdoc doc;
  ck_assert_int_eq(kg_rdoc_init(&doc), 0);
  ck_assert_int_eq(kg_rdoc_findings(&doc, &o->h, &o->d, NULL), 0);
  size_t len = 0;
  FILE *f = open_memstream(&o->term, &len);
  kg_report_findings(f, &doc);
  fclose(f);
  kg_rdoc_free(&doc);
}

static void nightly_free(nightly_out *o) {
  free(o->index), free(o->archive), free(o->md), free(o->term);
  kg_detection_free(&o->d);
  kg_history_free(&o->h);
}

/* The archive's row of a night: from its date to the end of the row. */
static char *archive_row(const char *archive, const char *label) {
  char key[80];
  snprintf(key, sizeof key, "<td class=\"l\">%s</td>", label);
  const char *at = strstr(archive, key), *end = at ? strstr(at, "</tr>") : NULL;
  ck_assert_msg(at && end, "no row for %s in %s", label, archive);
  return strndup(at, (size_t)(end - at));
}

/* The .dat row of chart x = j + 1 in the block of `block`: up to its newline. */
static char *dat_row(const char *site, const char *file, const char *block, size_t j) {
  char path[200], key[160];
  snprintf(path, sizeof path, "%s/%s", site, file);
  char *dat = slurp(path);
  snprintf(key, sizeof key, "# %s\n", block);
  const char *at = strstr(dat, key);
  ck_assert_msg(at != NULL, "no block %s in %s", block, path);
  snprintf(key, sizeof key, "\n%zu ", j + 1);
  at = strstr(at, key);
  ck_assert_ptr_nonnull(at);
  const char *end = strchr(at + 1, '\n');
  char *row = strndup(at + 1, (size_t)(end - at - 1));
  free(dat);
  return row;
}

/* The detector opens a regression on the live nights: the index's headline,
 * the archive's row of its first bad night, the charts' data for that night,
 * `history check`'s Markdown and its terminal lines all say REGRESSION, in
 * the nightly's words; no night-to-night SLOWER anywhere. */
START_TEST(test_html_nightly_regression_one_story) {
  nightly_out o;
  nightly_render(&o, 1);
  const kg_finding *reg = NULL;
  for (size_t i = 0; i < o.d.nfind && !reg; i++)
    if (o.d.find[i].kind == KG_FIND_REGRESSION && !o.d.find[i].acknowledged) reg = &o.d.find[i];
  ck_assert_msg(reg != NULL, "the detector opened no regression");
  size_t fb = reg->first_bad;
  char label[48], block[128];
  kg_date_label(o.h.runs[fb].date, label, sizeof label);
  /* The index: the night's verdict, the nightly's words, never the PR gate's. */
  ck_assert_msg(strstr(o.index, "id=\"verdict\">REGRESSION: ") &&
                    strstr(o.index, " slower than the reference&#39;s accepted level (1 open finding)</p>"),
                "%.3000s", strstr(o.index, "<h1>"));
  ck_assert_ptr_null(strstr(o.index, "the base build (paired)"));
  ck_assert_ptr_null(strstr(o.index, "step change"));
  /* The archive: the first bad night and every one after it REGRESSION, no SLOWER. */
  for (size_t i = 0; i < o.h.n; i++) {
    char l[48];
    kg_date_label(o.h.runs[i].date, l, sizeof l);
    char *row = archive_row(o.archive, l);
    if (i >= fb)
      ck_assert_msg(strstr(row, "<td class=\"l\">REGRESSION</td><td class=\"l\">") &&
                        strstr(row, " slower than the reference&#39;s accepted level</td>"),
                    "night %zu: %.500s", i, row);
    free(row);
  }
  ck_assert_ptr_null(strstr(o.archive, "SLOWER"));
  /* The page's night counted as the archive counts it (the recorded line: the night's sweep; the page's file:
   * its paired run, said as such). */
  char last[48], want[160];
  kg_date_label(o.h.runs[o.h.n - 1].date, last, sizeof last);
  char *lrow = archive_row(o.archive, last);
  size_t nc[5];
  const char *cells = strstr(lrow, "</td><td>");
  ck_assert(cells && sscanf(cells, "</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td>", &nc[0], &nc[1],
                            &nc[2], &nc[3], &nc[4]) == 5);
  snprintf(want, sizeof want, "<li>Checks: the night's %zu cases, %zu passed, %zu failed, %zu errors, %zu unsupported ",
           nc[0], nc[1], nc[2], nc[3], nc[4]);
  ck_assert_msg(strstr(o.index, want) && strstr(o.index, "this page's results file: 120 cases, "), "%s\n%.2000s", want,
                strstr(o.index, "<li>Checks"));
  free(lrow);
  /* The charts' data: that night of the finding's cell is REGRESSION, and the trend marks it. */
  const kg_find_cell *c = &reg->cells[0];
  const char *dt = kg_dtype_get(c->dtype)->name;
  char file[64];
  snprintf(block, sizeof block, "%s %s %zu", c->variant, dt, c->n);
  snprintf(file, sizeof file, "ratio-%s.dat", dt);
  char *row = dat_row(o.site, file, block, fb); /* every night of the fixture is paired */
  ck_assert_msg(strstr(row, " \"REGRESSION\"") != NULL, "%s", row);
  free(row);
  snprintf(file, sizeof file, "trend-%s.dat", dt);
  row = dat_row(o.site, file, c->variant, fb);
  ck_assert_msg(strstr(row, " -1 \"REGRESSION\"") != NULL, "%s", row);
  free(row);
  /* history check's Markdown and terminal: the last night's verdict, and the run of nights from the first bad one. */
  ck_assert_msg(strstr(o.md, "## kgate nightly: REGRESSION\n\n**REGRESSION**: "), "%.1000s", o.md);
  char key[160];
  snprintf(key, sizeof key, "| %s to ", label);
  const char *span = strstr(o.md, key);
  ck_assert_msg(span && strstr(span, " | **REGRESSION** | ") < strchr(span, '\n'), "%.1000s", o.md);
  snprintf(key, sizeof key, "kgate: %s to ", label);
  span = strstr(o.term, key);
  ck_assert_msg(span && strstr(span, ": REGRESSION: ") < strchr(span, '\n'), "%.1000s", o.term);
  ck_assert_msg(strstr(o.term, "; last night (") && strstr(strstr(o.term, "; last night ("), "): REGRESSION: "),
                "%.1000s", o.term);
  /* The site's summary.md is the night's, in the nightly's words, as history check --summary writes it. */
  char path[200];
  snprintf(path, sizeof path, "%s/summary.md", o.site);
  char *site_md = kgt_slurp(path);
  ck_assert_ptr_nonnull(site_md);
  ck_assert_str_eq(site_md, o.md);
  ck_assert_ptr_null(strstr(site_md, "base build"));
  free(site_md);
  nightly_free(&o);
}
END_TEST

/* The recorded A/A nights: nothing moved, so no night is SLOWER or a
 * REGRESSION on the page's first screen, the archive, the charts' data,
 * the Markdown or the terminal. */
START_TEST(test_html_nightly_aa_no_slower) {
  nightly_out o;
  nightly_render(&o, 0);
  ck_assert_uint_eq(o.d.open_regressions, 0);
  ck_assert_msg(strstr(o.index, "id=\"verdict\">PASS: every watched cell within its accepted level against the pinned "
                                "reference</p>"),
                "%.2000s", strstr(o.index, "<h1>"));
  /* A nightly's page: titled so, and its paired table in the night's words. */
  ck_assert(strstr(o.index, "<title>kgate nightly: ") && strstr(o.index, "<h1>kgate nightly: ") &&
            strstr(o.index, "<p class=\"meta\">night of "));
  ck_assert_msg(strstr(o.index, "<th>tonight (&micro;s)</th><th>reference (&micro;s)</th>") &&
                    strstr(o.index, "Change is tonight/reference - 1 (positive: tonight is slower)"),
                "%.3000s", strstr(o.index, "<h2 id=\"paired\">"));
  ck_assert_msg(!strstr(o.index, "<th>head") && !strstr(o.index, "<th>base") && !strstr(o.index, "head/base - 1"),
                "%.3000s", strstr(o.index, "<h2 id=\"paired\">"));
  /* The first screen (up to the details of tonight's cells against the reference). */
  const char *details = strstr(o.index, "<h2 id=\"paired\">");
  ck_assert_ptr_nonnull(details);
  char *first = strndup(o.index, (size_t)(details - o.index));
  ck_assert_msg(!strstr(first, "SLOWER") && !strstr(first, "REGRESSION"), "%.1000s", first);
  free(first);
  ck_assert_ptr_null(strstr(o.archive, "SLOWER"));
  ck_assert_ptr_null(strstr(o.archive, "<td class=\"l\">REGRESSION</td>"));
  /* each night's cases, every one counted once: passed + failed + errors + unsupported */
  ck_assert_ptr_nonnull(strstr(o.archive, "<th>cases</th><th>passed</th><th>failed</th><th>errors</th><th>unsupported</th>"));
  size_t rows = 0;
  for (const char *q = strstr(o.archive, "</td><td>"); q; q = strstr(q, "\n<tr>")) {
    size_t c[5];
    const char *cells = strstr(q, "</td><td>");
    if (!cells || sscanf(cells, "</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td>", &c[0], &c[1], &c[2],
                         &c[3], &c[4]) != 5)
      break;
    ck_assert_msg(c[0] == c[1] + c[2] + c[3] + c[4] && c[4] > 0, "%zu cases: %zu + %zu + %zu + %zu", c[0], c[1], c[2],
                  c[3], c[4]);
    rows++;
    q = cells + 1;
  }
  ck_assert_uint_gt(rows, 0);
  size_t pass = 0;
  for (const char *q = strstr(o.archive, "<td class=\"l\">PASS</td>"); q; q = strstr(q + 1, "<td class=\"l\">PASS</td>"))
    pass++;
  ck_assert_uint_eq(pass, o.h.n);
  static const char *const kinds[] = {"trend", "ratio"};
  for (size_t k = 0; k < 2; k++)
    for (int d = 0; d < KG_NDTYPES; d++) {
      char path[200];
      snprintf(path, sizeof path, "%s/%s-%s.dat", o.site, kinds[k], kg_dtype_get((kg_dtype)d)->name);
      char *dat = kgt_slurp(path);
      if (!dat) continue;
      ck_assert_msg(!strstr(dat, "\"REGRESSION\"") && !strstr(dat, " -1 \"") && !strstr(dat, " -1\n"), "%s", path);
      free(dat);
    }
  ck_assert_msg(strstr(o.md, "## kgate nightly: PASS\n"), "%.1000s", o.md);
  ck_assert_msg(!strstr(o.md, "SLOWER") && !strstr(o.md, "REGRESSION"), "%.1000s", o.md);
  ck_assert_msg(!strstr(o.term, "SLOWER") && !strstr(o.term, "REGRESSION"), "%.1000s", o.term);
  ck_assert_msg(strstr(o.term, "; last night (") && strstr(o.term, "): PASS: "), "%.1000s", o.term);
  nightly_free(&o);
}
END_TEST

/* ---- kgate report --bisect: the recorded live nights ------------------------------------------ */

/* A bisect's file for the live nights' regression (nights fedc545a631f ..
 * c6086ec42a69, reduce7_shuffle's six dtypes at 2^25): found, the commit
 * between them. extra: more top-level text ("" none); outcome and exit code as given. */
static const char k_live_mid[] = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

static void live_bisect(const char *path, const char *good, const char *outcome, int code, const char *extra) {
  char doc[4096], cells[1024] = "";
  static const char *const dts[] = {"i32", "i64", "f32", "f64", "f16", "bf16"};
  for (int k = 0; k < 6; k++)
    snprintf(cells + strlen(cells), sizeof cells - strlen(cells), "%s{\"variant\":\"reduce7_shuffle\",\"dtype\":\"%s\","
             "\"n\":33554432}", k ? "," : "", dts[k]);
  int found = !strcmp(outcome, "found");
  snprintf(doc, sizeof doc,
           "{\"kind\":\"kgate-bisect\",\"schema_version\":1,\"outcome\":\"%s\",\"exit_code\":%d,\"why\":\"%s\","
           "\"estimate_pct\":0.42,\"cells\":[%s],\"commits\":[{\"commit\":\"%s0000000000000000000000000000\","
           "\"build_failed\":false,\"fingerprint\":null},{\"commit\":\"%s\",\"build_failed\":false,\"fingerprint\":null},"
           "{\"commit\":\"c6086ec42a690000000000000000000000000000\",\"build_failed\":false,\"fingerprint\":null}],"
           "\"steps\":[],\"counts\":{\"commits\":3,\"modules\":3,\"builds_run\":3,\"from_cache\":0,\"identical\":0,"
           "\"build_failed\":0,\"distinct\":3},\"time_s\":{\"wall\":40,\"builds\":20,\"paired_runs\":20},"
           "\"verify\":{\"pct\":0.41,\"lo_pct\":0.3,\"hi_pct\":0.52,\"runs\":2,\"cells\":6}%s%s%s%s%s%s}\n",
           outcome, code, found ? "found: the culprit is slower than its parent by the step" : "paired run 1 exited 3",
           cells, good, k_live_mid, found ? ",\"culprit\":\"" : "", found ? k_live_mid : "",
           found ? "\",\"parent\":\"" : "", found ? good : "", found ? "0000000000000000000000000000\"" : "", extra);
  kgt_spit(path, doc);
}

/* `kgate report --history H --bisect FILE`: the page's box and the site's
 * summary.md name and link the culprit; a file kgate refuses is bad input
 * (exit 2, one line naming the file and the field, no page); a bisect of
 * another range, or one that is no answer, is left off with a warning and
 * the page is as without it; --bisect without --history is a usage error. */
START_TEST(test_html_report_bisect) {
  char hist[128], site[128], bis[128], out[4096], file[200], want[600];
  snprintf(hist, sizeof hist, "%s/h.jsonl", g_dir);
  snprintf(site, sizeof site, "%s/site", g_dir);
  snprintf(bis, sizeof bis, "%s/bisect.json", g_dir);
  nightly_history(hist, 1);
  setenv("KGATE_REPO_URL", "https://github.com/kgate-dev/kgate", 1);
  char *path = strdup(getenv("PATH") ? getenv("PATH") : "");
  setenv("PATH", "/nonexistent", 1); /* no gnuplot: the page without its images (exit 3), and quicker */
  char *args[] = {"report", KG_SOURCE_DIR "/tests/data/nightly/h100-live-night4.json", "--html", site, "--history", hist,
                  "--bisect", bis, NULL};
  live_bisect(bis, "fedc545a631f", "found", 0, "");
  int code = kgt_run_capture(args, out, sizeof out);
  ck_assert_msg(code == 0 || code == 3, "exit %d: %s", code, out);
  snprintf(file, sizeof file, "%s/index.html", site);
  char *html = slurp(file), *box = regression_box(html);
  ck_assert_msg(strstr(box, "<br><strong>Culprit</strong> (kgate bisect): <a href=\"https://github.com/kgate-dev/kgate/"
                            "commit/5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\">5a5a5a5a5a5a</a>, +0.41 % [+0.30, +0.52] "
                            "against its parent <a href=\"https://github.com/kgate-dev/kgate/commit/"
                            "fedc545a631f0000000000000000000000000000\">fedc545a631f</a><br>"),
                "%s", box);
  free(box), free(html);
  snprintf(file, sizeof file, "%s/summary.md", site);
  char *md = slurp(file);
  ck_assert_msg(strstr(md, "\n**Culprit** (kgate bisect): [`5a5a5a5a5a5a`](https://github.com/kgate-dev/kgate/commit/"
                           "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a), +0.41 % [+0.30, +0.52] against its parent "
                           "[`fedc545a631f`](https://github.com/kgate-dev/kgate/commit/fedc545a631f0000000000000000000000000000)\n"),
                "%s", md);
  free(md);
  /* Refused: bad input, one line naming the file and the field; no page made. */
  char refused[128];
  snprintf(refused, sizeof refused, "%s/refused", g_dir);
  args[3] = refused;
  live_bisect(bis, "fedc545a631f", "found", 0, ",\"x\":1");
  code = kgt_run_capture(args, out, sizeof out);
  args[3] = site;
  ck_assert_int_eq(code, 2);

  snprintf(want, sizeof want, "kgate: %s: unknown field 'x'\n", bis);
  ck_assert_str_eq(out, want);
  ck_assert_int_eq(access(refused, F_OK), -1);
  /* Another range: a warning, and the page without it. */
  live_bisect(bis, "0123456789ab", "found", 0, "");
  code = kgt_run_capture(args, out, sizeof out);
  ck_assert_msg(code == 0 || code == 3, "exit %d: %s", code, out);
  snprintf(want, sizeof want, "kgate: warning: %s: the bisect of 0123456789ab..c6086ec42a69 is of no finding of %s "
           "(not its range or cells): not shown\n", bis, hist);
  ck_assert_msg(strstr(out, want), "want %s in %s", want, out);
  snprintf(file, sizeof file, "%s/index.html", site);
  html = slurp(file);
  ck_assert_ptr_null(strstr(html, "kgate bisect"));
  free(html);
  /* No answer (the bisect could not run): a warning, not shown. */
  live_bisect(bis, "fedc545a631f", "environment", 3, "");
  code = kgt_run_capture(args, out, sizeof out);
  ck_assert_msg(code == 0 || code == 3, "exit %d: %s", code, out);
  ck_assert_msg(strstr(out, "is no answer (outcome environment): not shown"), "%s", out);
  html = slurp(file);
  ck_assert_ptr_null(strstr(html, "kgate bisect"));
  free(html);
  setenv("PATH", path, 1);
  free(path);
  /* Without --history: a usage error. */
  char *alone[] = {"report", KG_SOURCE_DIR "/tests/data/nightly/h100-live-night4.json", "--html", site, "--bisect", bis, NULL};
  ck_assert_int_eq(kgt_run_capture(alone, out, sizeof out), 2);
  ck_assert_str_eq(out, "kgate: report: --bisect needs --history (the findings a bisect is of)\n");
  unsetenv("KGATE_REPO_URL");
}
END_TEST

Suite *make_html_suite(void) {
  Suite *s = suite_create("html");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, setup, teardown);
  tcase_add_test(core, test_html_structure);
  tcase_add_test(core, test_html_lint);
  tcase_add_test(core, test_html_charts_that_exist);
  tcase_add_test(core, test_html_headline_svg);
  tcase_add_test(core, test_html_tables);
  tcase_add_test(core, test_html_history_and_note);
  tcase_add_test(core, test_html_validates);
  tcase_add_test(core, test_html_paired_table);
  tcase_add_test(core, test_html_paired_unchanged);
  tcase_add_test(core, test_html_verdict_headline);
  tcase_add_test(core, test_html_cuda_version_label);
  tcase_add_test(core, test_html_commit_links);
  tcase_add_test(core, test_html_archive);
  tcase_add_test(core, test_html_checks_as_archive);
  tcase_add_test(core, test_html_sweep_like_with_like);
  tcase_add_test(core, test_html_findings);
  tcase_add_test(core, test_html_finding_culprit);
  tcase_add_loop_test(core, test_html_finding_bisect_answers, 0, sizeof k_answers / sizeof *k_answers);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_checked_fixture(limits, setup, teardown);
  tcase_add_test(limits, test_html_bare);
  tcase_add_test(limits, test_html_paired_empty);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, setup, teardown);
  tcase_add_test(errors, test_html_unwritable);
  tcase_add_test(errors, test_html_hostile_text);
  tcase_add_test(errors, test_html_bisect_hostile_text);
  tcase_add_test(errors, test_html_paired_hostile_text);
  tcase_add_test(errors, test_html_url_ok);
  TCase *nightly = tcase_create("Nightly");
  tcase_add_checked_fixture(nightly, setup, teardown);
  tcase_set_timeout(nightly, 60);
  tcase_add_test(nightly, test_html_nightly_regression_one_story);
  tcase_add_test(nightly, test_html_nightly_aa_no_slower);
  tcase_add_test(nightly, test_html_report_bisect);
  suite_add_tcase(s, nightly);
  suite_add_tcase(s, errors);
  return s;
}
