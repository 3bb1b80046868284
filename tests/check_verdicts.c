/* verdicts: one results file per outcome (from the committed H200 runs, a
 * small edit each), every format written by the command that writes it
 * (compare's files and its terminal line; report's page and the files
 * beside it), each format's verdict read back and held against the others
 * and the exit code. One verdict, decided once (rmodel.h): the formats can
 * only agree. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "export.h"
#include "varreg.h"
#include "report.h"
#include "results.h"
#include "rmodel.h"
#include "testutil.h"

typedef enum fixture {
  FX_PASS,           /* h200-run1 against itself */
  FX_FAILED,         /* one case failed */
  FX_LINT_FINDING,   /* the issue's example: one lint finding, every case passed */
  FX_LINT_NOT_RUN,   /* a module the lint could not read */
  FX_SLOWER,         /* h200-paired: two paired cells SLOWER */
  FX_MISSING,        /* 40 of the baseline's cells not in the run */
  FX_PAIRED_MISSING, /* h200-paired, its SLOWER cells SAME: a paired MISSING cell decides nothing */
  FX_INCOMPLETE,     /* stopped by SIGTERM, cases not reached pending */
} fixture;

static const struct {
  fixture fx;
  const char *word; /* compare's verdict */
  int code;         /* compare's exit */
  const char *report_word; /* report --baseline's: the run's rule (a baseline's MISSING never fails a run) */
  int report_code;
} k_fx[] = {
    {FX_PASS, "PASS", KG_EXIT_OK, "PASS", KG_EXIT_OK},
    {FX_FAILED, "FAIL", KG_EXIT_FAIL, "FAIL", KG_EXIT_FAIL},
    {FX_LINT_FINDING, "FAIL", KG_EXIT_FAIL, "FAIL", KG_EXIT_FAIL},
    {FX_LINT_NOT_RUN, "ENVIRONMENT", KG_EXIT_ENV, "ENVIRONMENT", KG_EXIT_ENV},
    {FX_SLOWER, "REGRESSION", KG_EXIT_PERF, "REGRESSION", KG_EXIT_PERF},
    {FX_MISSING, "FAIL", KG_EXIT_FAIL, "PASS", KG_EXIT_OK},
    {FX_PAIRED_MISSING, "PASS", KG_EXIT_OK, "PASS", KG_EXIT_OK},
    {FX_INCOMPLETE, "INCOMPLETE", KG_EXIT_SIGNAL + 15, "INCOMPLETE", KG_EXIT_SIGNAL + 15},
};

static void data_path(const char *name, char *buf, size_t len) {
  const char *slash = strrchr(__FILE__, '/');
  snprintf(buf, len, "%.*s/data/%s", slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".", name);
}

static void one_lint_module(kg_run *run, int finding) {
  ck_assert_ptr_nonnull(run->lint = calloc(1, sizeof *run->lint));
  run->nlint = 1;
  snprintf(run->lint[0].path, sizeof run->lint[0].path, "/x/team.so");
  if (!finding) {
    snprintf(run->lint[0].why, sizeof run->lint[0].why, "no disassembler here");
    return;
  }
  ck_assert_ptr_nonnull(run->lint[0].items = calloc(1, sizeof *run->lint[0].items));
  run->lint[0].ran = 1, run->lint[0].nitems = 1, run->lint[0].kernels = 3, run->lint[0].tickets = 1;
  run->lint[0].items[0] = (kg_lint_item){.kernel = "k", .arch = 90, .side = "release", .first = "0x0010 STG",
                                         .second = "0x0020 ATOMG", .path = "0x0010 -> 0x0020"};
}

/* The fixture's baseline (old, committed) and results (written into dir/new.json). */
static void make_fixture(fixture fx, const char *dir, char *old, size_t oldlen, char *new, size_t newlen) {
  char err[512];
  int paired = fx == FX_SLOWER || fx == FX_PAIRED_MISSING;
  data_path(paired ? "h200-paired.json" : "h200-run1.json", old, oldlen);
  snprintf(new, newlen, "%s/new.json", dir);
  kg_run run;
  ck_assert_msg(kg_results_read(old, &run, err, sizeof err) == 0, "%s", err);
  size_t n = run.n;
  switch (fx) {
  case FX_FAILED:
    run.results[3].status = KG_ST_FAIL, run.results[3].timing.samples = 0;
    snprintf(run.results[3].message, sizeof run.results[3].message, "wrong result");
    break;
  case FX_LINT_FINDING:
  case FX_LINT_NOT_RUN: one_lint_module(&run, fx == FX_LINT_FINDING); break;
  case FX_MISSING: run.n -= 40; break;
  case FX_PAIRED_MISSING:
    for (size_t k = 0; k < run.npairs; k++)
      if (run.pairs[k].stat.verdict == KG_PV_SLOWER)
        run.pairs[k].stat.verdict = KG_PV_SAME, run.pairs[k].stat.lo = 0.999, run.pairs[k].stat.ratio = 1,
        run.pairs[k].stat.hi = 1.001;
    break;
  case FX_INCOMPLETE:
    snprintf(run.meta.incomplete, sizeof run.meta.incomplete, "SIGTERM");
    for (size_t i = run.n - 10; i < run.n; i++) memset(&run.results[i], 0, sizeof run.results[i]); /* pending */
    break;
  default: break;
  }
  ck_assert_msg(kg_results_write(new, &run, err, sizeof err) == 0, "%s", err);
  run.n = n;
  kg_run_free(&run);
  kg_registry_reset();
}

/* ---- each format's verdict, read back ----------------------------------------- */

static char *slurp_in(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *text = kgt_slurp(path);
  ck_assert_msg(text != NULL, "no %s", path);
  return text;
}

/* The word between prefix and the first of stop in text ("" when prefix is absent). */
static void word_after(const char *text, const char *prefix, const char *stop, char *word, size_t len) {
  const char *p = strstr(text, prefix);
  word[0] = '\0';
  if (!p) return;
  p += strlen(prefix);
  size_t n = strcspn(p, stop);
  snprintf(word, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

/* Markdown: "# kgate report\n\n**WORD**: why". */
static void md_verdict(const char *md, char *word, size_t len) { word_after(md, "# kgate report\n\n**", "*", word, len); }

/* The comment: "### kgate: WORD (exit N)" as its first line. */
static int comment_verdict(const char *c, char *word, size_t len) {
  ck_assert_msg(!strncmp(c, "### kgate: ", 11), "the comment does not start with its headline: %.80s", c);
  word_after(c, "### kgate: ", " ", word, len);
  const char *x = strstr(c, " (exit ");
  ck_assert_ptr_nonnull(x);
  return atoi(x + 7);
}

/* JUnit: whether <testsuites> counts a failure or an error. */
static int junit_failed(const char *xml) {
  const char *t = strstr(xml, "<testsuites name=\"kgate\"");
  ck_assert_ptr_nonnull(t);
  return atoi(strstr(t, "failures=\"") + 10) + atoi(strstr(t, "errors=\"") + 8) > 0;
}

/* The page's headline: <p class="verdict ..." id="verdict">WORD: why</p>. */
static void html_verdict(const char *html, char *word, size_t len) { word_after(html, "id=\"verdict\">", ":", word, len); }

/* The terminal: "verdict: WORD (exit N): why". */
static int term_verdict(const char *out, char *word, size_t len) {
  word_after(out, "\nverdict: ", "(", word, len);
  size_t n = strlen(word);
  if (n && word[n - 1] == ' ') word[n - 1] = '\0';
  const char *x = strstr(out, "\nverdict: ");
  ck_assert_msg(x != NULL, "no verdict line: %s", out);
  return atoi(strstr(x, "(exit ") + 6);
}

/* The results JSON: {"verdict": {"verdict": WORD, "exit_code": N, "why": ...}}. */
static int json_verdict(const char *dir, const char *name, char *word, size_t len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  json_error_t e;
  json_t *doc = json_load_file(path, 0, &e), *v = json_object_get(doc, "verdict");
  ck_assert_msg(v != NULL, "%s: no verdict", path);
  snprintf(word, len, "%s", json_string_value(json_object_get(v, "verdict")));
  int code = (int)json_integer_value(json_object_get(v, "exit_code"));
  json_decref(doc);
  return code;
}

/* ---- the tests ------------------------------------------------------------------ */

/* compare OLD NEW: its Markdown, comment, JUnit and terminal line say one
 * verdict, the expected one, and it exits with it. */
START_TEST(test_verdicts_compare_agree) {
  char dir[64], old[512], new[512], md[600], xml[600], csv[600], comment[600], out[4096], w[32];
  kgt_mkscratch(dir, sizeof dir, "verdicts");
  make_fixture(k_fx[_i].fx, dir, old, sizeof old, new, sizeof new);
  snprintf(md, sizeof md, "%s/c.md", dir);
  snprintf(xml, sizeof xml, "%s/c.xml", dir);
  snprintf(csv, sizeof csv, "%s/c.csv", dir);
  snprintf(comment, sizeof comment, "%s/c.comment.md", dir);
  char *args[] = {"compare", old, new, "--markdown", md, "--junit", xml, "--csv", csv, "--comment", comment, NULL};
  int code = kgt_run_capture(args, out, sizeof out);
  const char *want = k_fx[_i].word;
  ck_assert_int_eq(code, k_fx[_i].code);
  ck_assert_int_eq(term_verdict(out, w, sizeof w), code);
  ck_assert_msg(!strcmp(w, want), "terminal says %s, not %s: %s", w, want, out);
  char *text = slurp_in(dir, "c.md");
  md_verdict(text, w, sizeof w);
  ck_assert_msg(!strcmp(w, want), "Markdown says %s, not %s", w, want);
  if (k_fx[_i].fx == FX_LINT_FINDING) /* the issue's example: the headline says why, the section is there */
    ck_assert(strstr(text, "**FAIL**: 1 lint finding (memory ordering)\n") && strstr(text, "## Memory ordering"));
  free(text);
  text = slurp_in(dir, "c.comment.md");
  ck_assert_int_eq(comment_verdict(text, w, sizeof w), code);
  ck_assert_msg(!strcmp(w, want), "the comment says %s, not %s", w, want);
  if (k_fx[_i].fx == FX_LINT_FINDING)
    ck_assert_msg(strstr(text, "\n1 lint finding (memory ordering)\n") && strstr(text, "## Memory ordering"), "%s", text);
  free(text);
  text = slurp_in(dir, "c.xml");
  ck_assert_msg(junit_failed(text) == (code != KG_EXIT_OK), "JUnit's failures disagree with exit %d: %.300s", code,
                text);
  free(text);
  kgt_rmtree(dir);
}
END_TEST

/* report NEW --html SITE --baseline OLD: the page's headline, the files
 * beside it (summary.md, comment.md, results.junit.xml, results.json) and
 * the exit code say one verdict, the run's. */
START_TEST(test_verdicts_report_agree) {
  char dir[64], old[512], new[512], site[600], w[32];
  kgt_mkscratch(dir, sizeof dir, "verdicts");
  make_fixture(k_fx[_i].fx, dir, old, sizeof old, new, sizeof new);
  snprintf(site, sizeof site, "%s/site", dir);
  int code = kgt_run_cli((char *[]){"report", new, "--html", site, "--baseline", old, NULL});
  const char *want = k_fx[_i].report_word;
  /* no gnuplot here: the page is whole but its images, and the gate's verdict beats that (exit 3 only on PASS) */
  ck_assert_msg(code == k_fx[_i].report_code || (k_fx[_i].report_code == KG_EXIT_OK && code == KG_EXIT_ENV),
                "report exits %d, not %d", code, k_fx[_i].report_code);
  char *text = slurp_in(site, "index.html");
  html_verdict(text, w, sizeof w);
  ck_assert_msg(!strcmp(w, want), "the page says %s, not %s", w, want);
  free(text);
  text = slurp_in(site, "summary.md");
  md_verdict(text, w, sizeof w);
  ck_assert_msg(!strcmp(w, want), "summary.md says %s, not %s", w, want);
  free(text);
  text = slurp_in(site, "comment.md");
  ck_assert_int_eq(comment_verdict(text, w, sizeof w), k_fx[_i].report_code);
  ck_assert_msg(!strcmp(w, want), "comment.md says %s, not %s", w, want);
  free(text);
  text = slurp_in(site, "results.junit.xml");
  ck_assert(junit_failed(text) == (k_fx[_i].report_code != KG_EXIT_OK));
  free(text);
  ck_assert_int_eq(json_verdict(site, "results.json", w, sizeof w), k_fx[_i].report_code);
  ck_assert_msg(!strcmp(w, want), "results.json says %s, not %s", w, want);
  kgt_rmtree(dir);
}
END_TEST

/* One order of the paired verdicts: Markdown, the comment, the page's list
 * and the terminal's table all count them as the model does (worst first). */
START_TEST(test_verdicts_one_order) {
  char path[512], err[512], *term = NULL, *md = NULL, *cm = NULL;
  size_t tlen, mlen, clen;
  data_path("h200-paired.json", path, sizeof path);
  kg_run run;
  ck_assert_msg(kg_results_read(path, &run, err, sizeof err) == 0, "%s", err);
  kg_rdoc doc;
  ck_assert_int_eq(kg_rdoc_build(&doc, &run, NULL), 0);
  const char *order = "2 SLOWER, 1 UNKNOWN, 2 UNDECIDED, 1 MISSING, 1 FASTER, 2 NEW, 28 SAME";
  ck_assert_str_eq(doc.paired.counts, order);
  FILE *f = open_memstream(&term, &tlen);
  kg_report_pairs(f, &doc);
  fclose(f);
  f = open_memstream(&md, &mlen);
  kg_print_markdown(f, &doc);
  fclose(f);
  f = open_memstream(&cm, &clen);
  kg_print_comment(f, &doc);
  fclose(f);
  char line[160];
  snprintf(line, sizeof line, "\npaired verdicts: %s\n", order);
  ck_assert_msg(strstr(term, line), "%s", term);
  snprintf(line, sizeof line, "- **Paired verdicts**: %s\n", order);
  ck_assert_msg(strstr(md, line), "%s", md);
  ck_assert_msg(strstr(cm, line), "%s", cm);
  free(term), free(md), free(cm);
  kg_rdoc_free(&doc);
  kg_run_free(&run);
  kg_registry_reset();
}
END_TEST

/* The comment: at most 60000 bytes, cut at a line's end with a note; text
 * from the file never a link, a mention, an image or HTML. */
START_TEST(test_verdicts_comment_cap_and_escaping) {
  char path[512], err[512], *cm = NULL;
  size_t clen;
  data_path("h200-run1.json", path, sizeof path);
  kg_run run;
  ck_assert_msg(kg_results_read(path, &run, err, sizeof err) == 0, "%s", err);
  for (size_t i = 0; i < run.n; i++) { /* every case failed, its message hostile: far over the cap */
    run.results[i].status = KG_ST_ERROR;
    snprintf(run.results[i].message, sizeof run.results[i].message,
             "@octocat see https://evil.example/x <img src=x> [a](http://e/) ![i](u) #12 www.evil.example %zu", i);
  }
  snprintf(run.meta.dev.name, sizeof run.meta.dev.name, "<script>@team</script>");
  kg_rdoc doc;
  ck_assert_int_eq(kg_rdoc_build(&doc, &run, NULL), 0);
  FILE *f = open_memstream(&cm, &clen);
  kg_print_comment(f, &doc);
  fclose(f);
  ck_assert_msg(clen <= 60000, "%zu bytes", clen);
  ck_assert_msg(!strchr(cm, '<') && !strstr(cm, "!["), "%.300s", cm);
  for (const char *q = strstr(cm, "]("); q; q = strstr(q + 1, "](")) /* no link: every ] escaped */
    ck_assert_msg(q[-1] == '\\', "a link in: %.300s", q - 100);
  ck_assert_msg(!strstr(cm, "://") && !strstr(cm, "@") && !strstr(cm, "#1") && !strstr(cm, "www."), "%.300s", cm);
  ck_assert_msg(!strncmp(cm, "### kgate: FAIL (exit 1)\n", 25), "%.100s", cm);
  ck_assert_msg(strstr(cm, "&#64;\xe2\x81\xa0" "octocat"), "%.2000s", cm);
  /* 240 failed rows would pass the cap; the model lists 50, and says how many more */
  ck_assert_msg(strstr(cm, "\n... and 190 more\n"), "%.300s", cm);
  free(cm);
  kg_rdoc_free(&doc);
  /* Over the cap (300 modules the lint could not read, a long reason each): cut at a line's end, with the note. */
  ck_assert_ptr_nonnull(run.lint = calloc(300, sizeof *run.lint));
  for (run.nlint = 0; run.nlint < 300; run.nlint++) {
    snprintf(run.lint[run.nlint].path, sizeof run.lint[run.nlint].path, "/m/team%03zu.so", run.nlint);
    memset(run.lint[run.nlint].why, 'x', sizeof run.lint[run.nlint].why - 1);
  }
  ck_assert_int_eq(kg_rdoc_build(&doc, &run, NULL), 0);
  cm = NULL;
  f = open_memstream(&cm, &clen);
  kg_print_comment(f, &doc);
  fclose(f);
  ck_assert_msg(clen <= 60000, "%zu bytes", clen);
  const char *note = "\n... (cut at GitHub's comment limit: the results JSON has everything)\n";
  ck_assert_msg(clen > strlen(note) && !strcmp(cm + clen - strlen(note), note), "%.300s", cm + clen - 200);
  ck_assert_msg(cm[clen - strlen(note) - 1] == '\n', "not cut at a line's end");
  free(cm);
  kg_rdoc_free(&doc);
  kg_run_free(&run);
  kg_registry_reset();
}
END_TEST

Suite *make_verdicts_suite(void) {
  Suite *s = suite_create("verdicts");
  TCase *tc = tcase_create("Core");
  tcase_set_timeout(tc, 120);
  int nfx = (int)(sizeof k_fx / sizeof k_fx[0]);
  tcase_add_loop_test(tc, test_verdicts_compare_agree, 0, nfx);
  tcase_add_loop_test(tc, test_verdicts_report_agree, 0, nfx);
  tcase_add_test(tc, test_verdicts_one_order);
  tcase_add_test(tc, test_verdicts_comment_cap_and_escaping);
  suite_add_tcase(s, tc);
  return s;
}
