/* escape: each destination's escaping, on ordinary text, on the injection
 * strings of issue 12 (backquotes, system(), quotes, newlines, ';', HTML),
 * and on control characters and bytes that are not UTF-8. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

typedef void (*escaper)(FILE *, const char *);

/* What an escaper writes for s, malloc'ed. */
static char *esc_text(escaper e, const char *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_ptr_nonnull(f);
  e(f, s);
  fclose(f);
  return buf;
}

static const struct {
  escaper e;
  const char *name, *in, *out;
} k_cases[] = {
    {kg_esc_html, "html", "NVIDIA H200", "NVIDIA H200"},
    {kg_esc_html, "html", "<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"},
    {kg_esc_html, "html", "a&b \"c\" 'd'", "a&amp;b &quot;c&quot; &#39;d&#39;"},
    {kg_esc_html, "html", "esc\x1b[31mred\nline", "esc?[31mred?line"},
    {kg_esc_html, "html", "caf\xc3\xa9 2\xc2\xb2", "caf\xc3\xa9 2\xc2\xb2"}, /* UTF-8 stays */
    {kg_esc_html, "html", "c1\xc2\x9b" "31m bad\xff\xfe", "c1?31m bad??"}, /* C1 CSI and broken bytes */
    /* Bidirectional controls (Trojan Source): U+202E, U+2066, U+200F, U+061C; U+2060 and U+2010 stay */
    {kg_esc_html, "html", "abc\xe2\x80\xae" "fdp.exe", "abc?fdp.exe"},
    {kg_esc_md, "md", "x\xe2\x81\xa6y\xe2\x80\x8fz\xd8\x9c.", "x?y?z?."},
    {kg_esc_xml, "xml", "a\xe2\x81\xa9" "b\xe2\x81\xa0" "c\xe2\x80\x90", "a?b\xe2\x81\xa0" "c\xe2\x80\x90"},
    {kg_esc_xml, "xml", "<&>\"'", "&lt;&amp;&gt;&quot;&apos;"},
    {kg_esc_xml, "xml", "a\nb\tc\rd\x01" "e\x7f", "a&#10;b&#9;c&#13;d?e?"},
    {kg_esc_xml, "xml", "]]><x/>", "]]&gt;&lt;x/&gt;"},
    {kg_esc_md, "md", "NVIDIA H200", "NVIDIA H200"},
    {kg_esc_md, "md", "<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"},
    {kg_esc_md, "md", "[click](javascript:x) ![i](u)", "\\[click\\](javascript:x) !\\[i\\](u)"},
    {kg_esc_md, "md", "a|b `c` *d* _e_ ~f~ \\g &h", "a\\|b \\`c\\` \\*d\\* \\_e\\_ \\~f\\~ \\\\g &amp;h"},
    {kg_esc_md, "md", "two\nlines\r\n| x |", "two lines  \\| x \\|"},
    {kg_esc_md, "md", "bell\x07", "bell?"},
    /* GitHub's autolinks, mentions and references: each trigger broken by a WORD JOINER */
    {kg_esc_md, "md", "see https://evil.example/x", "see https:\xe2\x81\xa0//evil.example/x"},
    {kg_esc_md, "md", "www.evil.example", "www\xe2\x81\xa0.evil.example"},
    {kg_esc_md, "md", "@octocat a@b.example", "&#64;\xe2\x81\xa0" "octocat a&#64;\xe2\x81\xa0" "b.example"},
    {kg_esc_md, "md", "#12 o/r#3 GH-4 gh-x", "#\xe2\x81\xa0" "12 o/r#\xe2\x81\xa0" "3 GH-\xe2\x81\xa0" "4 gh-x"},
    {kg_esc_csv, "csv", "plain", "plain"},
    {kg_esc_csv, "csv", "a,b", "\"a,b\""},
    {kg_esc_csv, "csv", "say \"hi\"", "\"say \"\"hi\"\"\""},
    {kg_esc_csv, "csv", "two\nlines", "two lines"},
    {kg_esc_csv, "csv", "ctl\x01\x1b", "ctl??"},
    {kg_esc_csv, "csv", "-1.5", "-1.5"}, /* a number stays a number */
    {kg_esc_csv, "csv", "=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""},
    {kg_esc_csv, "csv", "@SUM(A1)", "\"'@SUM(A1)\""},
    {kg_esc_gp, "gp", "NVIDIA H200", "'NVIDIA H200'"},
    {kg_esc_gp, "gp", "`id>pwned`", "'`id>pwned`'"}, /* inert inside single quotes */
    {kg_esc_gp, "gp", "x'.system(\"id\").'", "'x''.system(\"id\").'''"},
    {kg_esc_gp, "gp", "a\nset output '/etc/x'; b", "'a?set output ''/etc/x''; b'"},
    {kg_esc_gp, "gp", "@macro \\n \\", "'@macro \\n \\'"},
    {kg_esc_gp, "gp", "]]> and >", "']]? and >'"},
};

START_TEST(test_escape_table) {
  char *got = esc_text(k_cases[_i].e, k_cases[_i].in);
  ck_assert_msg(strcmp(got, k_cases[_i].out) == 0, "%s(%s): got [%s], want [%s]", k_cases[_i].name, k_cases[_i].in, got,
                k_cases[_i].out);
  free(got);
}
END_TEST

/* The injection strings: in every destination, no raw control character, no
 * line break, and nothing that opens markup or code. */
static const char *const k_hostile[] = {
    "`id>pwned`",
    "$(touch pwned)",
    "'; system(\"touch pwned\"); '",
    "\"; system('touch pwned'); \"",
    "x\nset output 'pwned'\n",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "[x](javascript:alert(1))",
    "a|b\r\n|c",
    "\x1b]0;title\x07\x1b[2J",
    "@pwn \\ ` ' \" ; # & < >",
};

static void assert_no_control(const char *what, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    ck_assert_msg(*p >= 0x20 && *p != 0x7f, "%s: control byte 0x%02x in [%s]", what, *p, s);
}

START_TEST(test_escape_hostile) {
  const char *in = k_hostile[_i];
  char *html = esc_text(kg_esc_html, in), *xml = esc_text(kg_esc_xml, in), *md = esc_text(kg_esc_md, in),
       *csv = esc_text(kg_esc_csv, in), *gp = esc_text(kg_esc_gp, in);
  const char *all[] = {html, xml, md, csv, gp};
  for (int k = 0; k < 5; k++) assert_no_control("escaped", all[k]);
  ck_assert_msg(!strpbrk(html, "<>\"'"), "html: %s", html);
  ck_assert_msg(!strpbrk(xml, "<>\"'"), "xml: %s", xml);
  ck_assert_msg(!strchr(md, '<') && !strchr(md, '>'), "md: %s", md);
  for (const char *p = md; *p; p++) /* every [ ] | ` is escaped */
    if (strchr("[]|`", *p)) ck_assert_msg(p > md && p[-1] == '\\', "md: unescaped %c in %s", *p, md);
  /* gnuplot: one single-quoted literal, every inner quote doubled. */
  size_t n = strlen(gp);
  ck_assert(n >= 2 && gp[0] == '\'' && gp[n - 1] == '\'');
  for (size_t i = 1; i + 1 < n; i++)
    if (gp[i] == '\'') ck_assert_msg(gp[++i] == '\'', "gp: lone quote in %s", gp);
  char term[64];
  assert_no_control("term", kg_esc_term(in, term, sizeof term));
  for (int k = 0; k < 5; k++) free((char *)all[k]);
}
END_TEST

START_TEST(test_escape_term_cuts) {
  char buf[8];
  ck_assert_str_eq(kg_esc_term("short", buf, sizeof buf), "short");
  ck_assert_str_eq(kg_esc_term("1234567", buf, sizeof buf), "1234567");
  ck_assert_str_eq(kg_esc_term("12345678", buf, sizeof buf), "1234...");
  /* A cut never splits a character: 'é' is two bytes. */
  ck_assert_str_eq(kg_esc_term("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", buf, sizeof buf), "\xc3\xa9\xc3\xa9...");
  ck_assert_str_eq(kg_esc_term("\x1b[2J", buf, sizeof buf), "?[2J");
  ck_assert_str_eq(kg_esc_term("a\xe2\x80\xae" "b", buf, sizeof buf), "a?b"); /* RIGHT-TO-LEFT OVERRIDE */
  char one[1];
  ck_assert_str_eq(kg_esc_term("x", one, sizeof one), "");
}
END_TEST

START_TEST(test_escape_has_control) {
  ck_assert_int_eq(kg_has_control("NVIDIA H100 80GB HBM3"), 0);
  ck_assert_int_eq(kg_has_control("caf\xc3\xa9"), 0);
  ck_assert_int_eq(kg_has_control("a\tb"), 1);
  ck_assert_int_eq(kg_has_control("a\x1b"), 1);
  ck_assert_int_eq(kg_has_control("a\x7f"), 1);
  ck_assert_int_eq(kg_has_control("a\xc2\x9b"), 1);     /* C1 CSI */
  ck_assert_int_eq(kg_has_control("a\xc0\xaf"), 1);     /* overlong '/' */
  ck_assert_int_eq(kg_has_control("a\xed\xa0\x80"), 1); /* a surrogate */
  ck_assert_int_eq(kg_has_control("a\xe2\x82"), 1);     /* cut short */
  ck_assert_int_eq(kg_has_control("a\xe2\x80\xae"), 1); /* RIGHT-TO-LEFT OVERRIDE */
  ck_assert_int_eq(kg_has_control("a\xe2\x81\xa0"), 0); /* WORD JOINER: the Markdown escaper's own */
}
END_TEST

Suite *make_escape_suite(void) {
  Suite *s = suite_create("escape");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_escape_table, 0, sizeof k_cases / sizeof k_cases[0]);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_test(limits, test_escape_term_cuts);
  tcase_add_test(limits, test_escape_has_control);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_escape_hostile, 0, sizeof k_hostile / sizeof k_hostile[0]);
  suite_add_tcase(s, errors);
  return s;
}
