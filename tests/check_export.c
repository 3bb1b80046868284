/* export: CSV, JUnit XML and Markdown from a hand-built run and comparison. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "results.h"
#include "varreg.h"
#include "testutil.h"

#define MI ((size_t)1 << 20)
#define TIMING(med) {.samples = 20, .median_us = (med), .q1_us = (med) - 0.5, .q3_us = (med) + 0.5, .min_us = (med) - 1}

/* Eight cases: three timed f32 perf cases that pass (reduce0, reduce7, CUB),
 * one timed perf case that failed (two_pass: not timed), a wrong i32 sum whose
 * message holds a comma, a crash whose message needs XML escaping, an
 * unsupported f16 in-place case and an untimed pass. */
enum { NCASES = 8, C_R0 = 0, C_R7 = 1, C_CUB = 2, C_FAIL = 3, C_UNSUP = 4, C_CRASH = 5, C_SMALL = 6, C_TWO = 7 };
static kg_case g_cases[NCASES];
static kg_result g_results[NCASES];
static kg_run g_run;

static kg_cmp_row g_rows[5];
static kg_comparison g_cmp;
static char g_dir[64], g_path[128];

static int var(const char *name) { return kg_variant_find(name); }

static void make_cases(void) {
  g_cases[C_R0] = (kg_case){var("reduce0_divergent"), KG_F32, MI, KG_PAT_UNIFORM, 1, 1};
  g_cases[C_R7] = (kg_case){var("reduce7_shuffle"), KG_F32, MI, KG_PAT_UNIFORM, 1, 1};
  g_cases[C_CUB] = (kg_case){var("cub_sum"), KG_F32, MI, KG_PAT_UNIFORM, 1, 1};
  g_cases[C_FAIL] = (kg_case){var("reduce0_divergent"), KG_I32, 7, KG_PAT_EXACT, 1, 0};
  g_cases[C_UNSUP] = (kg_case){var("neighbored"), KG_F16, 7, KG_PAT_EXACT, 0, 0};
  g_cases[C_CRASH] = (kg_case){var("reduce7_shuffle"), KG_I32, 33, KG_PAT_EXACT, 1, 0};
  g_cases[C_SMALL] = (kg_case){var("reduce0_divergent"), KG_F32, 33, KG_PAT_UNIFORM, 1, 0};
  g_cases[C_TWO] = (kg_case){var("two_pass"), KG_F32, MI, KG_PAT_UNIFORM, 1, 1};
  memset(g_results, 0, sizeof g_results);
  for (int i = 0; i < NCASES; i++)
    g_results[i] = (kg_result){.status = KG_ST_PASS, .got = "1.5", .expected = "1.5", .bound = 1e-6, .ratio = 0.25};
  g_results[C_R0].timing = (kg_timing)TIMING(40);
  g_results[C_R7].timing = (kg_timing)TIMING(10);
  g_results[C_CUB].timing = (kg_timing)TIMING(8);
  g_results[C_FAIL] = (kg_result){.status = KG_ST_FAIL, .got = "5", .expected = "6", .abs_err = 1, .bound = 0,
                                  .ratio = INFINITY, .message = "sum is off, by one"};
  g_results[C_UNSUP] = (kg_result){.status = KG_ST_UNSUPPORTED};
  g_results[C_CRASH] = (kg_result){.status = KG_ST_ERROR, .message = "worker said <&>\"' and died"};
  g_results[C_TWO] = (kg_result){.status = KG_ST_FAIL, .got = "7", .expected = "9", .abs_err = 2, .bound = 0.5,
                                 .ratio = 4, .message = "error exceeds the bound"};
}

static void make_run(void) {
  make_cases();
  g_run = (kg_run){.n = NCASES, .cases = g_cases, .results = g_results};
  kg_run_meta *m = &g_run.meta;
  kgt_stamp(m, "abc123def456");
  m->dev = (kg_device_info){.name = "NVIDIA H100 80GB HBM3", .cc_major = 9, .sms = 132, .driver_version = 12080,
                            .runtime_version = 12080, .peak_gbps = 3352, .roofline_gbps = 3000};
  m->seed = 1;
  /* The comparison as kg_compare would sort it: SLOWER, UNKNOWN, MISSING, FASTER, SAME. */
  g_rows[0] = (kg_cmp_row){"reduce0_divergent", KG_F32, MI, KG_V_SLOWER, 36.9, 40, 40 / 36.9 - 1, 0.05, 1};
  g_rows[1] = (kg_cmp_row){"two_pass", KG_F32, MI, KG_V_UNKNOWN, 20, 0, 0, 0.05, 1};
  g_rows[2] = (kg_cmp_row){"reduce1_strided", KG_F32, MI, KG_V_MISSING, 30, 0, 0, 0.05, 1};
  g_rows[3] = (kg_cmp_row){"cub_sum", KG_F32, MI, KG_V_FASTER, 9, 8, 8 / 9.0 - 1, 0.05, 1};
  g_rows[4] = (kg_cmp_row){"reduce7_shuffle", KG_F32, MI, KG_V_SAME, 10.1, 10, 10 / 10.1 - 1, 0.05, 1};
  g_cmp = (kg_comparison){.n = 5, .rows = g_rows};
  g_cmp.count[KG_V_SLOWER] = g_cmp.count[KG_V_UNKNOWN] = g_cmp.count[KG_V_MISSING] = 1;
  g_cmp.count[KG_V_FASTER] = g_cmp.count[KG_V_SAME] = 1;
  kgt_mkscratch(g_dir, sizeof g_dir, "export");
  g_path[0] = '\0';
}

/* Issue 13: the paired gate's cells, one of each verdict and two SAME, in an
 * order no writer may trust (SAME first, SLOWER late): reports sort by verdict. */
enum { NPAIRS = 8 };
static kg_pair_cell g_pairs[NPAIRS];

static kg_pair_cell pcell_(const char *variant, kg_pverdict v, double ratio, double lo, double hi, double head,
                           double base, int blocks, int rounds) {
  kg_pair_cell c = {.dtype = KG_F32, .n = MI, .min_effect = 0.01, .rounds = rounds};
  snprintf(c.variant, sizeof c.variant, "%s", variant);
  c.stat = (kg_pair_stat){.blocks = blocks, .pairs = 8 * blocks, .ratio = ratio, .lo = lo, .hi = hi,
                          .head_us = head, .base_us = base, .verdict = v};
  return c;
}

static void make_pairs(void) {
  g_pairs[0] = pcell_("reduce2_sequential", KG_PV_SAME, 1.001, 0.997, 1.005, 20.02, 20, 16, 2);
  g_pairs[1] = pcell_("cub_sum", KG_PV_FASTER, 0.9, 0.88, 0.92, 8, 8.89, 16, 2);
  g_pairs[2] = pcell_("two_pass", KG_PV_UNKNOWN, 0, 0, 0, 0, 0, 0, 0);
  snprintf(g_pairs[2].message, sizeof g_pairs[2].message, "its check failed");
  g_pairs[3] = pcell_("reduce0_divergent", KG_PV_SLOWER, 1.084, 1.079, 1.089, 40, 36.9, 16, 2);
  g_pairs[4] = pcell_("reduce7_shuffle", KG_PV_UNDECIDED, 1.004, 0.995, 1.013, 10.04, 10, 48, 6);
  g_pairs[5] = pcell_("reduce1_strided", KG_PV_MISSING, 0, 0, 0, 0, 0, 0, 0);
  g_pairs[6] = pcell_("reduce9_new", KG_PV_NEW, 0, 0, 0, 0, 0, 0, 0);
  g_pairs[7] = pcell_("reduce3_first_add", KG_PV_SAME, 0.999, 0.996, 1.002, 12, 12.01, 16, 2);
  g_run.pairs = g_pairs, g_run.npairs = NPAIRS;
  g_run.pair = (kg_pair_meta){.on = 1, .base_path = "/ci/base/libkgate_kernels.so", .base_name = "kgate-kernels",
                              .base_version = "0.1.0-12-gabc1234", .confidence = 0.99, .copies = 2, .quads = 16,
                              .rounds = 2, .max_rounds = 6, .budget_s = 120, .wall_s = 42.5};
}

/* Cells proven unchanged: no numbers, their evidence in the message (with
 * characters every format must escape). */
static const char k_evidence[] = "same machine code (sm_90, SHA-256 3f2a9c01d4e5b6a7) and launches: 2 kernels, 3 launches";

static void make_unchanged(size_t i) {
  char variant[sizeof g_pairs[i].variant];
  snprintf(variant, sizeof variant, "%s", g_pairs[i].variant);
  g_pairs[i] = pcell_(variant, KG_PV_UNCHANGED, 1, 1, 1, 0, 0, 0, 0);
  snprintf(g_pairs[i].message, sizeof g_pairs[i].message, "%s", k_evidence);
}

static void remove_dir(void) {
  if (g_path[0]) unlink(g_path);
  rmdir(g_dir);
}

typedef kg_format_id exporter;

/* Exports into the test's folder and returns the file's text (malloc'ed). */
static char *export_text(exporter fn, const char *name, const kg_comparison *cmp) {
  char err[256] = "";
  snprintf(g_path, sizeof g_path, "%s/%s", g_dir, name);
  ck_assert_msg(kg_report_file(fn, g_path, &g_run, cmp, err, sizeof err) == 0, "%s", err);
  char *s = kgt_slurp(g_path);
  ck_assert_ptr_nonnull(s);
  return s;
}

/* ---- CSV ---------------------------------------------------------------- */

static const char k_header[] =
    "variant,seed,dtype,n,pattern,status,got,expected,abs_err,bound,err_ratio,nondeterministic,"
    "median_us,q1_us,q3_us,min_us,samples,noise,graph_us,gbps,pct_peak,pct_roofline,vs_cub,verdict,change,message,"
    "paired_verdict,paired_ratio,paired_lo,paired_hi,paired_min_effect";

/* Field k of a CSV line (RFC 4180 quoting), unquoted into out. Returns the number of fields. */
static int csv_field(const char *line, int k, char *out, size_t len) {
  int field = 0;
  size_t o = 0;
  int quoted = 0;
  for (const char *p = line; *p && (*p != '\n' || quoted); p++) {
    if (quoted && *p == '"' && p[1] == '"') p++;
    else if (*p == '"') {
      quoted = !quoted;
      continue;
    } else if (!quoted && *p == ',') {
      field++;
      continue;
    }
    if (field == k && o + 1 < len) out[o++] = *p;
  }
  out[o] = '\0';
  return field + 1;
}

/* The line of the CSV whose first fields start with prefix. */
static const char *csv_line(const char *text, const char *prefix) {
  for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
    if (strncmp(l, prefix, strlen(prefix)) == 0) return l;
  return NULL;
}

enum { COL_STATUS = 5, COL_ABS_ERR = 8, COL_MEDIAN = 12, COL_SAMPLES = 16, COL_GRAPH = 18, COL_GBPS = 19,
       COL_PCT_PEAK = 20, COL_VS_CUB = 22, COL_VERDICT = 23, COL_CHANGE = 24, COL_MESSAGE = 25, COL_PV = 26,
       COL_PRATIO = 27, COL_PLO = 28, COL_PHI = 29, COL_PMIN = 30, NCOLS = 31 };

START_TEST(test_csv_header_and_rows) {
  char *text = export_text(KG_FMT_CSV, "r.csv", &g_cmp);
  ck_assert_int_eq(strncmp(text, k_header, strlen(k_header)), 0);
  ck_assert_int_eq(text[strlen(k_header)], '\n');
  size_t lines = 0;
  char buf[256];
  for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
    lines++;
    ck_assert_int_eq(csv_field(l, 0, buf, sizeof buf), NCOLS);
  }
  ck_assert_uint_eq(lines, NCASES + 1);
  ck_assert_ptr_nonnull(csv_line(text, "reduce0_divergent,002,f32,1048576,uniform,pass,"));
  ck_assert_ptr_nonnull(csv_line(text, "neighbored,003,f16,7,exact,unsupported,"));
  free(text);
}
END_TEST

START_TEST(test_csv_timed_row) {
  char *text = export_text(KG_FMT_CSV, "r.csv", &g_cmp);
  const char *l = csv_line(text, "reduce0_divergent,002,f32,1048576,");
  char f[64];
  ck_assert_ptr_nonnull(l);
  csv_field(l, COL_MEDIAN, f, sizeof f);
  ck_assert_str_eq(f, "40");
  csv_field(l, COL_SAMPLES, f, sizeof f);
  ck_assert_str_eq(f, "20");
  csv_field(l, COL_GRAPH, f, sizeof f);
  ck_assert_str_eq(f, ""); /* absent, not 0 */
  csv_field(l, COL_GBPS, f, sizeof f);
  ck_assert_double_gt(strtod(f, NULL), 0);
  csv_field(l, COL_VS_CUB, f, sizeof f);
  ck_assert_double_eq_tol(strtod(f, NULL), 0.2, 1e-9); /* CUB's 8 us over this 40 us */
  csv_field(l, COL_VERDICT, f, sizeof f);
  ck_assert_str_eq(f, "SLOWER");
  csv_field(l, COL_CHANGE, f, sizeof f);
  ck_assert_double_eq_tol(strtod(f, NULL), 40 / 36.9 - 1, 1e-8);
  free(text);
}
END_TEST

START_TEST(test_csv_absent_values) {
  char *text = export_text(KG_FMT_CSV, "r.csv", &g_cmp);
  const char *crash = csv_line(text, "reduce7_shuffle,002,i32,33,exact,error,");
  const char *small = csv_line(text, "reduce0_divergent,002,f32,33,uniform,pass,");
  const char *untimed = csv_line(text, "two_pass,004,f32,1048576,uniform,fail,");
  char f[64];
  ck_assert(crash && small && untimed);
  csv_field(crash, COL_ABS_ERR, f, sizeof f);
  ck_assert_str_eq(f, ""); /* an error has no numbers */
  for (int col = COL_MEDIAN; col <= COL_CHANGE; col++) {
    csv_field(small, col, f, sizeof f);
    ck_assert_msg(f[0] == '\0', "column %d of an untimed case: '%s'", col, f);
  }
  csv_field(untimed, COL_VERDICT, f, sizeof f);
  ck_assert_str_eq(f, "UNKNOWN");
  csv_field(untimed, COL_MEDIAN, f, sizeof f);
  ck_assert_str_eq(f, "");
  free(text);
}
END_TEST

START_TEST(test_csv_quoting) {
  char *text = export_text(KG_FMT_CSV, "r.csv", &g_cmp);
  ck_assert_ptr_nonnull(strstr(text, ",\"sum is off, by one\",,,,,\n")); /* not paired: five empty fields */
  ck_assert_ptr_nonnull(strstr(text, ",\"worker said <&>\"\"' and died\",,,,,\n"));
  char f[64];
  csv_field(csv_line(text, "reduce7_shuffle,002,i32,33,"), COL_MESSAGE, f, sizeof f);
  ck_assert_str_eq(f, "worker said <&>\"' and died");
  free(text);
}
END_TEST

START_TEST(test_csv_no_comparison) {
  char *text = export_text(KG_FMT_CSV, "r.csv", NULL);
  char f[64];
  csv_field(csv_line(text, "reduce0_divergent,002,f32,1048576,"), COL_VERDICT, f, sizeof f);
  ck_assert_str_eq(f, "");
  csv_field(csv_line(text, "reduce0_divergent,002,f32,1048576,"), COL_PCT_PEAK, f, sizeof f);
  ck_assert_double_gt(strtod(f, NULL), 0); /* perf numbers do not need a baseline */
  free(text);
}
END_TEST

/* ---- JUnit -------------------------------------------------------------- */

/* The <testsuite> element of variant, counts parsed from its attributes. */
static int suite_counts(const char *xml, const char *variant, size_t c[4]) {
  char open[96];
  snprintf(open, sizeof open, "<testsuite name=\"%s\"", variant);
  const char *p = strstr(xml, open);
  return p && sscanf(p + strlen(open), " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\"", &c[0],
                     &c[1], &c[2], &c[3]) == 4;
}

/* The file at g_path is well-formed XML, where xmllint is installed (CI has it). */
static void assert_xml_well_formed(void) {
  if (system("command -v xmllint >/dev/null 2>&1") != 0) return;
  char cmd[256];
  snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", g_path);
  ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_junit_well_formed) {
  char *xml = export_text(KG_FMT_JUNIT, "r.xml", &g_cmp);
  free(xml);
  assert_xml_well_formed();
}
END_TEST

START_TEST(test_junit_counts) {
  char *xml = export_text(KG_FMT_JUNIT, "r.xml", &g_cmp);
  size_t c[4];
  /* reduce0: its two f32 checks pass, the perf case is SLOWER, the i32 sum is wrong. */
  ck_assert_msg(suite_counts(xml, "reduce0_divergent", c), "%s", xml);
  ck_assert(c[0] == 4 && c[1] == 2 && c[2] == 0 && c[3] == 0);
  ck_assert(suite_counts(xml, "reduce7_shuffle", c)); /* a pass, its SAME perf case, a crash */
  ck_assert(c[0] == 3 && c[1] == 0 && c[2] == 1 && c[3] == 0);
  ck_assert(suite_counts(xml, "cub_sum", c)); /* FASTER passes */
  ck_assert(c[0] == 2 && c[1] == 0 && c[2] == 0 && c[3] == 0);
  ck_assert(suite_counts(xml, "neighbored", c));
  ck_assert(c[0] == 1 && c[1] == 0 && c[2] == 0 && c[3] == 1);
  ck_assert(suite_counts(xml, "two_pass", c)); /* the failed check, and its perf case skipped */
  ck_assert(c[0] == 2 && c[1] == 1 && c[2] == 0 && c[3] == 1);
  ck_assert(!suite_counts(xml, "reduce1_strided", c)); /* no cases, no suite */
  ck_assert_ptr_nonnull(strstr(xml, "<testsuites name=\"kgate\" tests=\"12\" failures=\"3\" errors=\"1\" skipped=\"2\">"));
  free(xml);
}
END_TEST

START_TEST(test_junit_messages) {
  char *xml = export_text(KG_FMT_JUNIT, "r.xml", &g_cmp);
  ck_assert_msg(strstr(xml, "<testcase classname=\"kgate.reduce0_divergent\" name=\"i32 n=7 exact\">\n"
                            "      <failure message=\"got 5, expected 6, |err| 1, bound 0, err/bound inf: sum is off, "
                            "by one\"/>"),
                "%s", xml);
  ck_assert_msg(strstr(xml, "<testcase classname=\"kgate.reduce0_divergent\" name=\"perf f32 n=1048576\">\n"
                            "      <failure message=\"median 40.0 us vs baseline 36.9 us (+8.4 %, tolerance 5 %)\"/>"),
                "%s", xml);
  ck_assert_ptr_nonnull(strstr(xml, "<testcase classname=\"kgate.cub_sum\" name=\"perf f32 n=1048576\"/>"));
  ck_assert_ptr_nonnull(strstr(xml, "<testcase classname=\"kgate.reduce0_divergent\" name=\"f32 n=33 uniform\"/>"));
  ck_assert_ptr_nonnull(strstr(xml, "name=\"f16 n=7 exact\">\n      <skipped"));
  free(xml);
}
END_TEST

START_TEST(test_junit_escaping) {
  char *xml = export_text(KG_FMT_JUNIT, "r.xml", &g_cmp);
  ck_assert_msg(strstr(xml, "<error message=\"worker said &lt;&amp;&gt;&quot;&apos; and died\"/>"), "%s", xml);
  ck_assert_ptr_null(strstr(xml, "<&>"));
  free(xml);
}
END_TEST

START_TEST(test_junit_no_comparison) {
  char *xml = export_text(KG_FMT_JUNIT, "r.xml", NULL);
  size_t c[4];
  ck_assert(suite_counts(xml, "reduce0_divergent", c));
  ck_assert(c[0] == 4 && c[1] == 1); /* without a baseline no perf case can fail */
  free(xml);
}
END_TEST

/* ---- Markdown ----------------------------------------------------------- */

static const char k_ladder_header[] =
    "| variant | time (us) | GB/s | % of peak | step speedup | cumulative speedup | vs CUB | verdict |";

START_TEST(test_markdown_summary) {
  char *md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  ck_assert_msg(strstr(md, "NVIDIA H100 80GB HBM3 (CC 9.0, 132 SMs), peak 3352 GB/s, roofline 3000 GB/s"), "%s", md);
  ck_assert_ptr_nonnull(strstr(md, "2026-11-21T08:30:00Z"));
  ck_assert_ptr_nonnull(strstr(md, "abc123def456"));
  ck_assert_ptr_nonnull(strstr(md, "8 cases, 4 passed, 2 failed, 1 errors, 1 unsupported, 0 nondeterministic"));
  ck_assert_ptr_nonnull(strstr(md, "1 SLOWER, 1 UNKNOWN, 1 MISSING, 1 FASTER, 0 NEW, 1 SAME"));
  ck_assert_ptr_null(strstr(md, "Warning"));
  ck_assert_ptr_null(strstr(md, "Paired")); /* not a paired run */
  ck_assert_ptr_null(strstr(md, "**Time**")); /* no phase times recorded */
  free(md);
  g_run.meta.phases = (kg_phases){1, 1.46, 0.08, 15.1, 0, 36.6, 0.01};
  md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  ck_assert_msg(strstr(md, "- **Time**: start-up 1.5 s, inputs and references 0.1 s, check 15.1 s, paired rounds 36.6 s\n"),
                "%s", md);
  free(md);
  g_run.meta.phases = (kg_phases){1, 0.01, 0, 0.02, 0, 0, 0};
  md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  ck_assert_msg(strstr(md, "- **Time**: every phase under 0.1 s\n"), "%s", md);
  free(md);
  g_run.meta.phases.known = 0;
}
END_TEST

/* The lint of the run's modules in the Markdown, the JUnit and the results
 * JSON: a finding fails its module's testcase, a module not linted is
 * skipped with why, every waiver in use reads "waived: reason". */
START_TEST(test_lint_in_every_report) {
  kg_lint_item item = {"_Z9bad_fencePKiPi", 90, "release", "0x0110 STG.E [R2], R5 (k.cu:12)", "0x0200 ATOMG.E.INC (k.cu:14)",
                       "0x0100 -> 0x0200"};
  kg_lint_waived w = {"kgate_single_pass", "tagged slots <polled>", 2};
  kg_lint_module mods[2] = {{.path = "/x/libteam.so", .ran = 1, .kernels = 7, .tickets = 2, .items = &item, .nitems = 1,
                             .waived = &w, .nwaived = 1},
                            {.path = "/x/other.so", .ran = 0, .why = "no cuobjdump or nvdisasm here"}};
  g_run.lint = mods, g_run.nlint = 2;
  char *md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  ck_assert_msg(strstr(md, "## Memory ordering (kgate lint)\n\n- libteam.so: 7 kernels, 2 tickets, **1 finding**\n"), "%s", md);
  ck_assert_msg(strstr(md, "  - `_Z9bad_fencePKiPi` (sm_90), release: 0x0110 STG.E \\[R2\\], R5 (k.cu:12) → "), "%s", md);
  ck_assert_msg(strstr(md, "  - kgate\\_single\\_pass: waived: tagged slots &lt;polled&gt; (2 findings)\n"), "%s", md);
  ck_assert_msg(strstr(md, "- other.so: **not run**: no cuobjdump or nvdisasm here; the gate fails (exit 3; --lint off "
                           "runs without the lint)\n"),
                "%s", md);
  free(md);
  char *x = export_text(KG_FMT_JUNIT, "r.xml", &g_cmp);
  ck_assert_msg(strstr(x, "<testsuite name=\"lint\" tests=\"3\" failures=\"2\" errors=\"0\" skipped=\"1\">"), "%s", x);
  ck_assert_msg(strstr(x, "<skipped message=\"waived: tagged slots &lt;polled&gt;\""), "%s", x);
  ck_assert_msg(strstr(x, "<failure message=\"1 finding; the first: _Z9bad_fencePKiPi (sm_90): release:"), "%s", x);
  ck_assert_msg(strstr(x, "<failure message=\"not run: no cuobjdump or nvdisasm here; the gate fails (exit 3"), "%s", x);
  free(x);
  char err[256] = "";
  snprintf(g_path, sizeof g_path, "%s/r.json", g_dir);
  ck_assert_msg(kg_results_write(g_path, &g_run, err, sizeof err) == 0, "%s", err);
  char *j = kgt_slurp(g_path);
  ck_assert_msg(strstr(j, "\"lint\":[{\"module\":\"/x/libteam.so\",\"ran\":true,\"kernels\":7,\"tickets\":2,"), "%.400s", j);
  ck_assert_ptr_nonnull(strstr(j, "\"waived\":[{\"variant\":\"kgate_single_pass\",\"reason\":\"tagged slots <polled>\",\"findings\":2}]"));
  ck_assert_ptr_nonnull(strstr(j, "{\"module\":\"/x/other.so\",\"ran\":false,\"why\":\"no cuobjdump or nvdisasm here\"}"));
  free(j);
  g_run.lint = NULL, g_run.nlint = 0;
}
END_TEST

START_TEST(test_markdown_regressions_first) {
  char *md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  const char *ladder = strstr(md, k_ladder_header);
  const char *slower = strstr(md, "| reduce0\\_divergent | f32 | 1048576 | SLOWER | 36.9 | 40.0 | +8.4 % | 5 % |");
  ck_assert_msg(ladder && slower, "%s", md);
  ck_assert(slower < ladder);
  ck_assert(strstr(md, "## Regressions") < strstr(md, "## Failed cases"));
  ck_assert_ptr_nonnull(strstr(md, "| reduce1\\_strided | f32 | 1048576 | MISSING | 30.0 | - | | 5 % |"));
  ck_assert_ptr_null(strstr(md, "| cub\\_sum | f32 | 1048576 | FASTER")); /* not a regression */
  free(md);
}
END_TEST

START_TEST(test_markdown_ladder) {
  char *md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  const char *ladder = strstr(md, "## Ladder: f32, n = 1048576 (4 MiB)");
  ck_assert_msg(ladder != NULL, "%s", md);
  /* Harris' columns: the first rung has no speedups; reduce7 is 40/10 = 4x on
   * both; CUB is 10/8 = 1.25x over reduce7 and 5x over reduce0. */
  const char *r0 = strstr(ladder, "| reduce0\\_divergent | 40.0 |");
  const char *r7 = strstr(ladder, "| reduce7\\_shuffle | 10.0 |");
  const char *two = strstr(ladder, "| two\\_pass | not timed (fail) |");
  const char *cub = strstr(ladder, "| cub\\_sum | 8.00 |");
  ck_assert_msg(r0 && r7 && two && cub && r0 < r7 && r7 < two && two < cub, "%s", ladder);
  ck_assert_msg(strstr(r0, "| | | 0.200x | **SLOWER** |\n"), "%s", ladder);
  ck_assert_msg(strstr(r7, "| 4.00x | 4.00x | 0.800x | SAME |\n"), "%s", ladder);
  ck_assert_msg(strstr(cub, "| 1.25x | 5.00x | 1.00x | FASTER |\n"), "%s", ladder);
  ck_assert_msg(strstr(two, "| UNKNOWN |\n"), "%s", ladder);
  ck_assert_ptr_null(strstr(md, "## Ladder: i32")); /* no i32 perf case */
  free(md);
}
END_TEST

START_TEST(test_markdown_failed_cases) {
  char *md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  ck_assert_msg(strstr(md, "| reduce0\\_divergent i32 n=7 exact | fail | 5 | 6 | 1 | 0 | inf | sum is off, by one |"), "%s",
                md);
  ck_assert_msg(strstr(md, "| reduce7\\_shuffle i32 n=33 exact | error | | | | | | worker said &lt;&amp;&gt;\"' and died |"),
                "%s", md);
  ck_assert_ptr_null(strstr(md, "more\n"));
  free(md);
}
END_TEST

START_TEST(test_markdown_warning_and_no_baseline) {
  snprintf(g_cmp.warning, sizeof g_cmp.warning, "baseline taken with driver 12080 / CUDA runtime 12080, this run "
                                                "13000 / 13000: timings may shift");
  char *md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  ck_assert_ptr_nonnull(strstr(md, "this run 13000 / 13000: timings may shift"));
  free(md);
  md = export_text(KG_FMT_MD, "r.md", NULL);
  ck_assert_ptr_nonnull(strstr(md, "no baseline"));
  ck_assert_ptr_null(strstr(md, "## Regressions"));
  ck_assert_ptr_nonnull(strstr(md, k_ladder_header));
  free(md);
}
END_TEST

/* 60 failures: the Markdown lists 50 and counts the rest. */
START_TEST(test_markdown_many_failures) {
  enum { MANY = 60 };
  static kg_case cases[MANY];
  static kg_result results[MANY];
  for (int i = 0; i < MANY; i++) {
    cases[i] = (kg_case){var("reduce1_strided"), KG_I32, (size_t)i, KG_PAT_EXACT, 1, 0};
    results[i] = (kg_result){.status = KG_ST_FAIL, .got = "1", .expected = "2", .abs_err = 1};
  }
  g_run.n = MANY, g_run.cases = cases, g_run.results = results;
  char *md = export_text(KG_FMT_MD, "r.md", NULL);
  ck_assert_ptr_nonnull(strstr(md, "| reduce1\\_strided i32 n=49 exact | fail |"));
  ck_assert_ptr_null(strstr(md, "| reduce1\\_strided i32 n=50 exact |"));
  ck_assert_ptr_nonnull(strstr(md, "\n... and 10 more\n"));
  free(md);
}
END_TEST

/* Issue 12, item 2: strings from a results file in every report. The
 * Markdown summary lands in $GITHUB_STEP_SUMMARY: no HTML, link, image,
 * code span or new cell may come out of it; the CSV keeps one row per case
 * and no formula; the JUnit XML stays well-formed whatever bytes it gets. */
static const char k_xss[] = "<img src=x onerror=alert(1)>";

static void plant_hostile_text(void) {
  snprintf(g_run.meta.date, sizeof g_run.meta.date, "%s", k_xss);
  snprintf(g_run.meta.dev.name, sizeof g_run.meta.dev.name, "%s [x](javascript:alert(1)) `c` | *b*", k_xss);
  snprintf(g_run.meta.commit, sizeof g_run.meta.commit, "![i](http://x/t.png)");
  snprintf(g_run.meta.version, sizeof g_run.meta.version, "_0_|");
  snprintf(g_results[C_FAIL].message, sizeof g_results[C_FAIL].message, "%s\n| new | row |\r\x1b[2J\x01", k_xss);
  snprintf(g_results[C_FAIL].got, sizeof g_results[C_FAIL].got, "=cmd|' /C calc'!A0");
  snprintf(g_results[C_CRASH].message, sizeof g_results[C_CRASH].message, "@SUM(1)\x0b\x1b]0;t\x07");
  snprintf(g_rows[0].variant, sizeof g_rows[0].variant, "%s", "<b>v|x</b>");
  snprintf(g_cmp.warning, sizeof g_cmp.warning, "%s", k_xss);
}

START_TEST(test_export_hostile_text) {
  plant_hostile_text();
  char *md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  ck_assert_msg(!strchr(md, '<') && !strstr(md, "![") && !strchr(md, '\x1b'), "%s", md);
  for (const char *q = strstr(md, "]("); q; q = strstr(q + 1, "](")) /* no link: every ] escaped */
    ck_assert_msg(q[-1] == '\\', "a link in: %s", md);
  ck_assert_msg(strstr(md, "- **GPU**: &lt;img src=x onerror=alert(1)&gt; \\[x\\](javascript:alert(1)) \\`c\\` \\| "
                           "\\*b\\* (CC 9.0"),
                "%s", md);
  ck_assert_msg(strstr(md, "- **Run**: &lt;img src=x onerror=alert(1)&gt;, commit !\\[i\\](http:\xe2\x81\xa0//x/t.png), kgate "
                           "\\_0\\_\\|, seed"),
                "%s", md);
  ck_assert_msg(strstr(md, "| &lt;b&gt;v\\|x&lt;/b&gt; | f32 |"), "%s", md);
  ck_assert_msg(strstr(md, "> **Warning:** &lt;img src=x onerror=alert(1)&gt;\n"), "%s", md);
  /* The failed case stays one row of eight cells. */
  const char *row = strstr(md, "| reduce0\\_divergent i32 n=7 exact | fail |");
  ck_assert_ptr_nonnull(row);
  size_t cells = 0;
  for (const char *q = row; *q && *q != '\n'; q++) cells += *q == '|' && q[-1] != '\\';
  ck_assert_msg(cells == 9, "%zu cell borders in: %.*s", cells, (int)strcspn(row, "\n"), row);
  free(md);
  char *csv = export_text(KG_FMT_CSV, "r.csv", &g_cmp);
  size_t lines = 0;
  char f[256];
  for (const char *l = csv; *l; l = strchr(l, '\n') + 1) {
    lines++;
    ck_assert_int_eq(csv_field(l, 0, f, sizeof f), NCOLS);
  }
  ck_assert_uint_eq(lines, NCASES + 1);
  for (const unsigned char *q = (const unsigned char *)csv; *q; q++) ck_assert(*q == '\n' || *q >= 0x20);
  csv_field(csv_line(csv, "reduce0_divergent,002,i32,7,"), 6, f, sizeof f);
  ck_assert_str_eq(f, "'=cmd|' /C calc'!A0"); /* shown, not computed */
  csv_field(csv_line(csv, "reduce7_shuffle,002,i32,33,"), COL_MESSAGE, f, sizeof f);
  ck_assert_str_eq(f, "'@SUM(1)??]0;t?");
  free(csv);
  char *xml = export_text(KG_FMT_JUNIT, "r.xml", &g_cmp);
  ck_assert_msg(!strstr(xml, "<img") && !strchr(xml, '\x1b') && !strchr(xml, '\x0b'), "%s", xml);
  free(xml);
  assert_xml_well_formed();
}
END_TEST

/* ---- the paired gate (issue 13) ------------------------------------------- */

START_TEST(test_csv_paired_columns) {
  make_pairs();
  char *text = export_text(KG_FMT_CSV, "r.csv", &g_cmp);
  char f[64];
  size_t lines = 0;
  for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
    lines++;
    ck_assert_int_eq(csv_field(l, 0, f, sizeof f), NCOLS);
  }
  ck_assert_uint_eq(lines, NCASES + 1); /* one row per case still: MISSING and NEW cells add none */
  const char *slow = csv_line(text, "reduce0_divergent,002,f32,1048576,");
  static const struct {
    int col;
    const char *want;
  } k_slow[] = {{COL_PV, "SLOWER"}, {COL_PRATIO, "1.084"}, {COL_PLO, "1.079"}, {COL_PHI, "1.089"}, {COL_PMIN, "0.01"}};
  for (size_t k = 0; k < sizeof k_slow / sizeof k_slow[0]; k++) {
    csv_field(slow, k_slow[k].col, f, sizeof f);
    ck_assert_str_eq(f, k_slow[k].want);
  }
  csv_field(csv_line(text, "reduce7_shuffle,002,f32,1048576,"), COL_PV, f, sizeof f);
  ck_assert_str_eq(f, "UNDECIDED");
  const char *unknown = csv_line(text, "two_pass,004,f32,1048576,");
  csv_field(unknown, COL_PV, f, sizeof f);
  ck_assert_str_eq(f, "UNKNOWN");
  for (int col = COL_PRATIO; col <= COL_PMIN; col++) { /* no numbers behind UNKNOWN */
    csv_field(unknown, col, f, sizeof f);
    ck_assert_msg(f[0] == '\0', "column %d of an UNKNOWN cell: '%s'", col, f);
  }
  /* Untimed rows never get a paired value, even where a cell shares (variant, dtype). */
  const char *untimed[] = {"reduce0_divergent,002,f32,33,", "reduce0_divergent,002,i32,7,"};
  for (size_t k = 0; k < 2; k++)
    for (int col = COL_PV; col <= COL_PMIN; col++) {
      csv_field(csv_line(text, untimed[k]), col, f, sizeof f);
      ck_assert_msg(f[0] == '\0', "%s column %d: '%s'", untimed[k], col, f);
    }
  free(text);
}
END_TEST

START_TEST(test_junit_paired_suite) {
  make_pairs();
  char *xml = export_text(KG_FMT_JUNIT, "r.xml", &g_cmp);
  size_t c[4];
  /* SLOWER fails; UNKNOWN, UNDECIDED and MISSING are skipped; SAME, FASTER and NEW pass. */
  ck_assert_msg(suite_counts(xml, "paired", c), "%s", xml);
  ck_assert_msg(c[0] == NPAIRS && c[1] == 1 && c[2] == 0 && c[3] == 3, "%zu %zu %zu %zu", c[0], c[1], c[2], c[3]);
  /* The baseline's SLOWER only advises now: reduce0's perf case is skipped, not failed. */
  ck_assert(suite_counts(xml, "reduce0_divergent", c));
  ck_assert(c[0] == 4 && c[1] == 1 && c[2] == 0 && c[3] == 1);
  ck_assert_msg(strstr(xml, "<testsuites name=\"kgate\" tests=\"20\" failures=\"3\" errors=\"1\" skipped=\"6\">"), "%s",
                xml);
  ck_assert_msg(strstr(xml, "<testcase classname=\"kgate.paired.reduce0_divergent\" name=\"f32 n=1048576\">\n"
                            "      <failure message=\"SLOWER than the base: head/base 1.0840 (+8.40 %), 99 % interval "
                            "[1.0790, 1.0890] (+7.90 % .. +8.90 %), minimum effect 1 %: head 40.0 us, base 36.9 us, "
                            "16 blocks, 2 rounds\"/>"),
                "%s", xml);
  ck_assert_msg(strstr(xml, "<testcase classname=\"kgate.paired.reduce7_shuffle\" name=\"f32 n=1048576\">\n"
                            "      <skipped message=\"undecided: the interval reaches across the minimum effect: "
                            "head/base 1.0040 (+0.40 %), 99 % interval [0.9950, 1.0130]"),
                "%s", xml);
  ck_assert_ptr_nonnull(strstr(xml, "classname=\"kgate.paired.two_pass\" name=\"f32 n=1048576\">\n"
                                    "      <skipped message=\"unknown: its check failed\"/>"));
  ck_assert_ptr_nonnull(strstr(xml, "classname=\"kgate.paired.reduce1_strided\" name=\"f32 n=1048576\">\n"
                                    "      <skipped message=\"missing: the base module has this cell, head does not\"/>"));
  const char *pass[] = {"reduce9_new", "cub_sum", "reduce2_sequential", "reduce3_first_add"};
  for (size_t k = 0; k < 4; k++) {
    char want[128];
    snprintf(want, sizeof want, "<testcase classname=\"kgate.paired.%s\" name=\"f32 n=1048576\"/>", pass[k]);
    ck_assert_msg(strstr(xml, want), "%s not a pass in %s", pass[k], xml);
  }
  ck_assert_ptr_nonnull(strstr(xml, "name=\"perf f32 n=1048576\">\n      <skipped message=\"SLOWER than the stored "
                                    "baseline, advisory: the paired gate decides (median 40.0 us vs baseline 36.9 us"));
  free(xml);
  assert_xml_well_formed();
}
END_TEST

START_TEST(test_junit_paired_one_block_undecided) {
  make_pairs();
  g_pairs[4].stat.blocks = 1;
  char *xml = export_text(KG_FMT_JUNIT, "r.xml", NULL);
  ck_assert_msg(strstr(xml, "<skipped message=\"undecided: 1 block, an interval needs two or more\"/>"), "%s", xml);
  free(xml);
}
END_TEST

/* An UNCHANGED cell of a timed case: the verdict, and no numbers. */
START_TEST(test_csv_paired_unchanged) {
  make_pairs();
  make_unchanged(1); /* cub_sum f32 2^20 */
  char *text = export_text(KG_FMT_CSV, "r.csv", &g_cmp);
  char f[64];
  const char *cub = csv_line(text, "cub_sum,");
  ck_assert_ptr_nonnull(cub);
  csv_field(cub, COL_PV, f, sizeof f);
  ck_assert_str_eq(f, "UNCHANGED");
  for (int col = COL_PRATIO; col <= COL_PMIN; col++) { /* never a ratio of 1 */
    csv_field(cub, col, f, sizeof f);
    ck_assert_msg(f[0] == '\0', "column %d of an UNCHANGED cell: '%s'", col, f);
  }
  csv_field(cub, COL_MEDIAN, f, sizeof f); /* the case's own timing stays */
  ck_assert_str_eq(f, "8");
  free(text);
}
END_TEST

/* UNCHANGED passes, its evidence (escaped) as the testcase's output. */
START_TEST(test_junit_paired_unchanged) {
  make_pairs();
  make_unchanged(1);
  make_unchanged(6);
  snprintf(g_pairs[6].message, sizeof g_pairs[6].message, "%s <&>\"'\x01", k_evidence);
  char *xml = export_text(KG_FMT_JUNIT, "r.xml", &g_cmp);
  size_t c[4];
  ck_assert_msg(suite_counts(xml, "paired", c), "%s", xml);
  ck_assert_msg(c[0] == NPAIRS && c[1] == 1 && c[2] == 0 && c[3] == 3, "%zu %zu %zu %zu", c[0], c[1], c[2], c[3]);
  ck_assert_msg(strstr(xml, "<testcase classname=\"kgate.paired.cub_sum\" name=\"f32 n=1048576\">\n"
                            "      <system-out>unchanged, not timed: same machine code (sm_90, SHA-256 "
                            "3f2a9c01d4e5b6a7) and launches: 2 kernels, 3 launches</system-out>\n    </testcase>\n"),
                "%s", xml);
  ck_assert_msg(strstr(xml, "3 launches &lt;&amp;&gt;&quot;&apos;?</system-out>"), "%s", xml);
  ck_assert_ptr_null(strstr(xml, "<&>"));
  free(xml);
  assert_xml_well_formed();
}
END_TEST

/* The order of the verdict rows in the paired table. */
static const char *const k_pair_rows[] = {
    "| **SLOWER** | reduce0\\_divergent | f32 | 1048576 | 40.0 | 36.9 | +8.40 % | [+7.90 %, +8.90 %] | 1 % | 16 | 2 |  |\n",
    "| UNKNOWN | two\\_pass | f32 | 1048576 | | | | | | | 0 | unknown: its check failed |\n",
    "| UNDECIDED | reduce7\\_shuffle | f32 | 1048576 | 10.0 | 10.0 | +0.40 % | [-0.50 %, +1.30 %] | 1 % | 48 | 6 |  |\n",
    "| MISSING | reduce1\\_strided | f32 | 1048576 | | | | | | | 0 | missing: the base module has this cell, head does "
    "not |\n",
    "| FASTER | cub\\_sum | f32 | 1048576 | 8.00 | 8.89 | -10.00 % | [-12.00 %, -8.00 %] | 1 % | 16 | 2 |  |\n",
    "| NEW | reduce9\\_new | f32 | 1048576 | | | | | | | 0 | new: the base module has no such variant for this dtype |\n",
};

START_TEST(test_markdown_paired_first) {
  make_pairs();
  char *md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  const char *paired = strstr(md, "\n## Paired gate\n");
  const char *baseline = strstr(md, "\n## Against the stored baseline (advisory)\n");
  const char *ladder = strstr(md, "\n## Ladder: ");
  ck_assert_msg(paired && baseline && ladder && paired < baseline && baseline < ladder, "%s", md);
  ck_assert_ptr_null(strstr(md, "## Regressions")); /* the baseline no longer decides */
  ck_assert_ptr_nonnull(strstr(md, "- **Performance vs baseline** (advisory: the paired gate decides): 1 SLOWER"));
  ck_assert_msg(strstr(paired, "- **Base module**: /ci/base/libkgate\\_kernels.so (kgate-kernels 0.1.0-12-gabc1234), 2 "
                               "copies, 2-6 rounds, 42.5 s\n"
                               "- **Paired verdicts**: 1 SLOWER, 1 UNKNOWN, 1 UNDECIDED, 1 MISSING, 1 FASTER, 1 NEW, 2 "
                               "SAME\n"),
                "%s", paired);
  ck_assert_ptr_nonnull(strstr(paired, "the interval is its 99 % confidence interval over blocks"));
  const char *prev = paired;
  for (size_t k = 0; k < sizeof k_pair_rows / sizeof k_pair_rows[0]; k++) {
    const char *row = strstr(md, k_pair_rows[k]);
    ck_assert_msg(row && row > prev && row < baseline, "row %zu missing or out of order in %s", k, md);
    prev = row;
  }
  ck_assert_ptr_null(strstr(md, "| SAME | reduce")); /* SAME cells are counted, not listed */
  ck_assert_ptr_nonnull(strstr(paired, "\n2 more cells are SAME.\n"));
  free(md);
}
END_TEST

/* UNCHANGED cells are counted and summarised in one line, never a row each. */
START_TEST(test_markdown_paired_unchanged) {
  make_pairs();
  make_unchanged(1);
  make_unchanged(6);
  char *md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  ck_assert_msg(strstr(md, "- **Paired verdicts**: 1 SLOWER, 1 UNKNOWN, 1 UNDECIDED, 1 MISSING, 0 FASTER, 0 NEW, 2 "
                           "SAME, 2 UNCHANGED\n"),
                "%s", md);
  ck_assert_ptr_null(strstr(md, "| UNCHANGED |"));
  ck_assert_ptr_null(strstr(md, "SHA-256")); /* the evidence is in the results JSON */
  ck_assert_msg(strstr(md, "\n2 more cells are SAME.\n\n2 cells UNCHANGED: identical machine code and launches in "
                           "base and head, not timed (the evidence per cell is in the results JSON).\n"),
                "%s", md);
  free(md);
}
END_TEST

/* Nothing but SAME and UNCHANGED: no table, the two lines. */
START_TEST(test_markdown_paired_same_and_unchanged) {
  make_pairs();
  for (int i = 0; i < NPAIRS; i++) g_pairs[i].stat.verdict = KG_PV_SAME;
  make_unchanged(3);
  char *md = export_text(KG_FMT_MD, "r.md", NULL);
  ck_assert_msg(strstr(md, "\nNo paired cell changed beyond the minimum effect.\n\n7 cells are SAME.\n\n1 cell "
                           "UNCHANGED: identical machine code"),
                "%s", md);
  ck_assert_ptr_null(strstr(md, "| verdict | variant |"));
  ck_assert_ptr_null(strstr(md, "All 8"));
  free(md);
  for (int i = 0; i < NPAIRS; i++) make_unchanged((size_t)i);
  md = export_text(KG_FMT_MD, "r.md", NULL);
  ck_assert_msg(strstr(md, "0 NEW, 0 SAME, 8 UNCHANGED\n\nNo paired cell changed beyond the minimum effect.\n\n"
                           "8 cells UNCHANGED: "),
                "%s", md);
  ck_assert_ptr_null(strstr(md, "cells are SAME"));
  free(md);
}
END_TEST

START_TEST(test_markdown_paired_all_same) {
  make_pairs();
  for (int i = 0; i < NPAIRS; i++) g_pairs[i].stat.verdict = KG_PV_SAME;
  char *md = export_text(KG_FMT_MD, "r.md", NULL);
  ck_assert_msg(strstr(md, "\nAll 8 paired cells are SAME: no change beyond the minimum effect.\n"), "%s", md);
  ck_assert_ptr_null(strstr(md, "| verdict | variant |"));
  ck_assert_ptr_null(strstr(md, "no baseline to compare with")); /* the paired gate is the comparison */
  free(md);
  g_run.npairs = 0;
  md = export_text(KG_FMT_MD, "r.md", NULL);
  ck_assert_msg(strstr(md, "\nNo cell was paired"), "%s", md);
  ck_assert_ptr_null(strstr(md, "All 0"));
  free(md);
}
END_TEST

/* 150 UNDECIDED cells and one SLOWER last in the file: the SLOWER row comes
 * first, 100 rows are shown and the rest counted. */
START_TEST(test_markdown_paired_many) {
  enum { MANY = 151 };
  static kg_pair_cell cells[MANY];
  make_pairs();
  for (int i = 0; i < MANY - 1; i++) {
    cells[i] = g_pairs[4];
    cells[i].n = (size_t)i;
  }
  cells[MANY - 1] = g_pairs[3];
  g_run.pairs = cells, g_run.npairs = MANY;
  char *md = export_text(KG_FMT_MD, "r.md", NULL);
  const char *header = strstr(md, "| verdict | variant |");
  const char *slow = strstr(md, "| **SLOWER** | reduce0\\_divergent |");
  const char *und = strstr(md, "| UNDECIDED |");
  ck_assert_msg(header && slow && und && header < slow && slow < und, "%s", md);
  size_t rows = 0;
  for (const char *q = strstr(md, "| UNDECIDED |"); q; q = strstr(q + 1, "| UNDECIDED |")) rows++;
  ck_assert_uint_eq(rows, 99);
  ck_assert_ptr_nonnull(strstr(md, "\n... and 51 more (see the results JSON)\n"));
  free(md);
}
END_TEST

/* Strings from the results file's "paired" object: the base module's path,
 * name and version, a cell's variant and message. */
START_TEST(test_export_paired_hostile_text) {
  make_pairs();
  snprintf(g_run.pair.base_path, sizeof g_run.pair.base_path, "%s|[x](javascript:alert(1))\n| new | row |\x1b[2J", k_xss);
  snprintf(g_run.pair.base_name, sizeof g_run.pair.base_name, "`c` <b>");
  snprintf(g_run.pair.base_version, sizeof g_run.pair.base_version, "*b*\"'&");
  snprintf(g_pairs[3].variant, sizeof g_pairs[3].variant, "<b>v|x</b>\x1b]0;t\x07");
  snprintf(g_pairs[2].message, sizeof g_pairs[2].message, "%s\n| a | b |\r\x01", k_xss);
  char *md = export_text(KG_FMT_MD, "r.md", &g_cmp);
  ck_assert_msg(!strchr(md, '<') && !strstr(md, "![") && !strchr(md, '\x1b') && !strchr(md, '\x07'), "%s", md);
  for (const char *q = strstr(md, "]("); q; q = strstr(q + 1, "](")) ck_assert_msg(q[-1] == '\\', "a link in: %s", md);
  ck_assert_msg(strstr(md, "- **Base module**: &lt;img src=x onerror=alert(1)&gt;\\|\\[x\\](javascript:alert(1)) \\| "
                           "new \\| row \\|?\\[2J (\\`c\\` &lt;b&gt; \\*b\\*\"'&amp;), 2 copies"),
                "%s", md);
  static const char *const rows[] = {"| **SLOWER** | &lt;b&gt;v\\|x&lt;/b&gt;?\\]0;t? | f32 |", "| UNKNOWN | two\\_pass |"};
  for (size_t k = 0; k < 2; k++) { /* each stays one row of twelve cells */
    const char *row = strstr(md, rows[k]);
    ck_assert_msg(row != NULL, "%s in %s", rows[k], md);
    size_t borders = 0;
    for (const char *q = row; *q && *q != '\n'; q++) borders += *q == '|' && q[-1] != '\\';
    ck_assert_msg(borders == 13, "%zu cell borders in: %.*s", borders, (int)strcspn(row, "\n"), row);
  }
  free(md);
  char *xml = export_text(KG_FMT_JUNIT, "r.xml", &g_cmp);
  ck_assert_msg(!strstr(xml, "<img") && !strstr(xml, "<b>") && !strchr(xml, '\x1b') && !strchr(xml, '\x01'), "%s", xml);
  ck_assert_msg(strstr(xml, "classname=\"kgate.paired.&lt;b&gt;v|x&lt;/b&gt;?]0;t?\""), "%s", xml);
  free(xml);
  assert_xml_well_formed();
}
END_TEST

START_TEST(test_export_unwritable) {
  exporter fns[] = {KG_FMT_CSV, KG_FMT_JUNIT, KG_FMT_MD};
  for (int k = 0; k < 3; k++) {
    char err[256] = "";
    ck_assert_int_eq(kg_report_file(fns[k], "/nonexistent-kgate-dir/out", &g_run, &g_cmp, err, sizeof err), -1);
    ck_assert(err[0] != '\0');
  }
  ck_assert_int_eq(access("/nonexistent-kgate-dir/out", F_OK), -1);
}
END_TEST

Suite *make_export_suite(void) {
  Suite *s = suite_create("export");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, make_run, remove_dir);
  tcase_add_test(core, test_csv_header_and_rows);
  tcase_add_test(core, test_csv_timed_row);
  tcase_add_test(core, test_csv_absent_values);
  tcase_add_test(core, test_csv_quoting);
  tcase_add_test(core, test_csv_no_comparison);
  tcase_add_test(core, test_junit_well_formed);
  tcase_add_test(core, test_junit_counts);
  tcase_add_test(core, test_junit_messages);
  tcase_add_test(core, test_junit_escaping);
  tcase_add_test(core, test_junit_no_comparison);
  tcase_add_test(core, test_markdown_summary);
  tcase_add_test(core, test_lint_in_every_report);
  tcase_add_test(core, test_markdown_regressions_first);
  tcase_add_test(core, test_markdown_ladder);
  tcase_add_test(core, test_markdown_failed_cases);
  tcase_add_test(core, test_markdown_warning_and_no_baseline);
  tcase_add_test(core, test_csv_paired_columns);
  tcase_add_test(core, test_junit_paired_suite);
  tcase_add_test(core, test_markdown_paired_first);
  tcase_add_test(core, test_markdown_paired_all_same);
  tcase_add_test(core, test_csv_paired_unchanged);
  tcase_add_test(core, test_junit_paired_unchanged);
  tcase_add_test(core, test_markdown_paired_unchanged);
  tcase_add_test(core, test_markdown_paired_same_and_unchanged);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_checked_fixture(limits, make_run, remove_dir);
  tcase_add_test(limits, test_markdown_many_failures);
  tcase_add_test(limits, test_markdown_paired_many);
  tcase_add_test(limits, test_junit_paired_one_block_undecided);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, make_run, remove_dir);
  tcase_add_test(errors, test_export_unwritable);
  tcase_add_test(errors, test_export_hostile_text);
  tcase_add_test(errors, test_export_paired_hostile_text);
  suite_add_tcase(s, errors);
  return s;
}
