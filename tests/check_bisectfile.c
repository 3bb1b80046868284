/* bisectjson: kgate bisect's file written and read back; a file from
 * elsewhere refused in one line that names the file and the field (an
 * unknown key anywhere, an exit code that is not the outcome's, a culprit
 * outside the range, ...); and which finding a bisect is of: its range and
 * its cells, never another's. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectjson.h"
#include "testutil.h"

#define M25 ((size_t)1 << 25)

static char g_dir[64];

static void setup(void) { kgt_mkscratch(g_dir, sizeof g_dir, "bisectfile"); }
static void teardown(void) { ck_assert_int_eq(kgt_rmtree(g_dir), 0); }

/* The range of kgt_nightly's regression (nights c0ffee3 .. c0ffee4) in full,
 * with two commits between them. */
static const char *const k_ids[] = {"c0ffee3000000000000000000000000000000000", "1111111111111111111111111111111111111111",
                                    "2222222222222222222222222222222222222222", "c0ffee4000000000000000000000000000000000"};

/* A bisect of that range over kgt_nightly's regressed cell (reduce0_divergent
 * f32 2^25): commit 2 found, 2 % slower than commit 1, its parent. */
static void write_found(const char *path, const char *variant) {
  kg_bisect_cell cell = {"", KG_F32, M25};
  snprintf(cell.variant, sizeof cell.variant, "%s", variant);
  kg_bisect_step st = {.good = 0, .mid = 1, .bad = 3, .left = {0, -0.001, 0.001, 1, 1},
                       .right = {log(1.02), log(1.015), log(1.025), 1, 1}, .verdict = 0};
  kg_bisect_result r = {.outcome = KG_BISECT_FOUND, .n = 4, .estimate = log(1.02),
                        .reproduce = {log(1.02), log(1.01), log(1.03), 1, 1},
                        .verify = {log(1.02), log(1.015), log(1.025), 2, 1},
                        .ngroups = 2, .built = 4, .identical = 2, .culprit = 2, .parent = 1, .first_cand = 2,
                        .last_cand = 2, .steps = &st, .nsteps = 1, .wall_s = 30, .build_s = 10, .measure_s = 20,
                        .why = "found: the culprit is slower than its parent by the step"};
  char *ids[4];
  memcpy(ids, k_ids, sizeof ids);
  kg_bisect_report rep = {&r, ids, &cell, 1, "sm_90 kernels by cuobjdump", NULL, 2, 2};
  char err[512];
  ck_assert_msg(kg_bisect_write_json(path, &rep, err, sizeof err) == 0, "%s", err);
}

static void path_in(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", g_dir, name); }

/* What kgate bisect writes reads back as it was meant. */
START_TEST(test_bisectfile_round_trip) {
  char path[128], err[512];
  path_in(path, sizeof path, "b.json");
  write_found(path, "reduce0_divergent");
  kg_bisect_doc d;
  ck_assert_msg(kg_bisect_read(path, &d, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(d.outcome, KG_BISECT_FOUND);
  ck_assert_uint_eq(d.ncommits, 4);
  ck_assert_str_eq(d.commits[0], k_ids[0]);
  ck_assert_str_eq(d.commits[3], k_ids[3]);
  ck_assert_int_eq(d.culprit, 2);
  ck_assert_int_eq(d.parent, 1);
  ck_assert_int_eq(d.cand_first, 2);
  ck_assert_int_eq(d.cand_last, 2);
  ck_assert_int_eq(d.verify.has, 1);
  ck_assert_double_eq_tol(d.verify.pct, 2.0, 1e-9);
  ck_assert_double_eq_tol(d.verify.lo, 1.5, 1e-9);
  ck_assert_int_eq(d.verify.runs, 2);
  ck_assert_double_eq_tol(d.estimate_pct, 2.0, 1e-9);
  ck_assert_uint_eq(d.ncells, 1);
  ck_assert_str_eq(d.cells[0].variant, "reduce0_divergent");
  ck_assert_int_eq(d.cells[0].dtype, KG_F32);
  ck_assert_uint_eq(d.cells[0].n, M25);
  ck_assert_str_eq(d.why, "found: the culprit is slower than its parent by the step");
  kg_bisect_doc_free(&d);
}
END_TEST

/* The committed sample (an undecided bisect of 32 commits) reads: the step at one of commits 1..19. */
START_TEST(test_bisectfile_sample) {
  char err[512];
  kg_bisect_doc d;
  ck_assert_msg(kg_bisect_read(KG_SOURCE_DIR "/tests/data/bisect/sample-undecided.json", &d, err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(d.outcome, KG_BISECT_UNDECIDED);
  ck_assert_uint_eq(d.ncommits, 32);
  ck_assert_int_eq(d.culprit, -1);
  ck_assert_int_eq(d.cand_first, 1);
  ck_assert_int_eq(d.cand_last, 19);
  ck_assert_int_eq(d.reproduce.has, 1);
  ck_assert_int_eq(d.verify.has, 0);
  ck_assert_int_eq(d.cells[0].dtype, KG_I32);
  ck_assert_int_eq(kg_bisect_doc_answers(&d), 1);
  kg_bisect_doc_free(&d);
}
END_TEST

/* One broken field each: (up to two) replacements in the file kgate wrote, and what the error must say. */
static const struct {
  const char *from[2], *to[2], *want;
} k_broken[] = {
    {{"\"why\":"}, {"\"whyy\":1,\"why\":"}, ": unknown field 'whyy'"},
    {{"\"build_failed\":false"}, {"\"build_failed\":false,\"note\":1"}, ": commits[0]: unknown field 'note'"},
    {{"\"runs\":2"}, {"\"runs\":2,\"p\":1"}, ": verify: unknown field 'p'"},
    {{"\"wall\":"}, {"\"wal\":"}, ": time_s: unknown field 'wal'"},
    {{"\"kgate-bisect\""}, {"\"kgate-history\""}, "not a kgate bisect result (kind 'kgate-history')"},
    {{"\"outcome\":\"found\""}, {"\"outcome\":\"guilty\""}, ": outcome is not one of found, outside"},
    {{"\"exit_code\":0"}, {"\"exit_code\":4"}, ": exit_code 4 is not outcome found's (0)"},
    {{"\"outcome\":\"found\"", "\"exit_code\":0"}, {"\"outcome\":\"undecided\"", "\"exit_code\":1"},
     ": a culprit, but the outcome is not found"},
    {{"\"culprit\":\"2222"}, {"\"culprit\":\"3333"}, ": culprit 3333222222222222222222222222222222222222 is not a "
                                                      "commit of the range (commits)"},
    {{"\"parent\":\"1111111111111111111111111111111111111111\""}, {"\"parent\":\"c0ffee4000000000000000000000000000000000\""},
     ": parent is not before culprit in the range"},
    {{"\"commit\":\"c0ffee3"}, {"\"commit\":\"C0FFEE3"}, ": commits[0]: commit is 'C0FFEE3"},
    {{"\"commit\":\"c0ffee3000000000000000000000000000000000\""}, {"\"commit\":\"--upload-pack=x\""},
     ": commits[0]: commit is '--upload-pack=x': not a commit (40 lowercase hex digits)"},
    {{"\"why\":\"found"}, {"\"why\":\"\\u001b[31mfound"}, ": why is '"},
    {{"\"counts\":{\"commits\":4"}, {"\"counts\":{\"commits\":5"}, ": counts: commits is 5: the file lists 4 commits"},
    {{",\"n\":33554432"}, {""}, ": cells[0]: missing field 'n'"},
    {{"\"dtype\":\"f32\""}, {"\"dtype\":\"f128\""}, ": cells[0]: dtype is not a dtype kgate knows, or null"},
    {{"\"variant\":\"reduce0_divergent\""}, {"\"variant\":\"<img src=x>\""}, ": cells[0]: variant is '<img src=x>'"},
    {{"\"candidates\":["}, {"\"candidates\":[\"c0ffee4000000000000000000000000000000000\","},
     ": candidates: [1] is not the next commit of the range"},
    {{"\"reproduce\":{\"pct\":2.0,\"lo_pct\":1.0"}, {"\"reproduce\":{\"pct\":2.0,\"lo_pct\":9.0"},
     ": reproduce: lo_pct 9 is above hi_pct 3"},
    {{"\"cells\":1}"}, {"\"cells\":-1}"}, ": steps[0].left: cells is -1: outside [0, 100000000]"},
    {{"\"mid\":\"1111"}, {"\"mid\":\"c0ff"}, ": steps[0]: mid c0ff111111111111111111111111111111111111 is not a commit"},
    {{"\"mid\":\"1111111111111111111111111111111111111111\""}, {"\"mid\":\"2222222222222222222222222222222222222222\",\"x\":0"},
     ": steps[0]: unknown field 'x'"},
    {{"\"mid\":\"1111111111111111111111111111111111111111\""}, {"\"mid\":\"c0ffee3000000000000000000000000000000000\""},
     ": steps[0]: mid is not between good and bad in the range"},
    {{"\"schema_version\":1"}, {"\"schema_version\":2"}, ": schema_version 2 is not supported (this kgate reads 1)"},
    {{"{"}, {"["}, "malformed JSON"},
};

START_TEST(test_bisectfile_refuses) {
  char path[128], err[512] = "";
  path_in(path, sizeof path, "b.json");
  write_found(path, "reduce0_divergent");
  for (int k = 0; k < 2 && k_broken[_i].from[k]; k++) kgt_edit(path, k_broken[_i].from[k], k_broken[_i].to[k]);
  kg_bisect_doc d;
  ck_assert_int_eq(kg_bisect_read(path, &d, err, sizeof err), -1);
  ck_assert_msg(!strncmp(err, path, strlen(path)) && strstr(err, k_broken[_i].want) && !strchr(err, '\n'),
                "want '%s' in one line naming %s; got '%s'", k_broken[_i].want, path, err);
  ck_assert_ptr_null(d.commits);
  ck_assert_ptr_null(d.cells);
}
END_TEST

START_TEST(test_bisectfile_missing) {
  char path[128], err[512];
  path_in(path, sizeof path, "none.json");
  kg_bisect_doc d;
  ck_assert_int_eq(kg_bisect_read(path, &d, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "none.json: no such file"), "%s", err);
}
END_TEST

/* Whose bisect it is: kgt_nightly's regression (last good night c0ffee3,
 * first bad c0ffee4, reduce0_divergent f32 2^25) is the one of this range
 * and cell; not its environment notice or improvement, not another range,
 * not a cell the finding lacks; a night's provenance names its commit. */
START_TEST(test_bisectfile_of_finding) {
  char path[128], err[512];
  kg_history *h;
  kg_detection *det;
  kgt_nightly(&h, &det);
  const kg_finding *reg = &det->find[0], *env = &det->find[1], *imp = &det->find[2];
  path_in(path, sizeof path, "b.json");
  write_found(path, reg->cells[0].variant);
  kg_bisect_doc d;
  ck_assert_msg(kg_bisect_read(path, &d, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, reg), 1);
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, env), 0);
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, imp), 0);
  ck_assert_int_eq(kg_bisect_doc_of(&d, NULL, reg), 0);
  /* The range's other end: not this finding's. */
  memcpy(d.commits[3], "c0ffee5", 7);
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, reg), 0);
  memcpy(d.commits[3], "c0ffee4", 7);
  memcpy(d.commits[0], "c0ffee2", 7);
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, reg), 0);
  memcpy(d.commits[0], "c0ffee3", 7);
  /* The nights' provenance names the commit instead of kgate_commit. */
  snprintf(h->runs[reg->last_good].prov.sha, sizeof h->runs[0].prov.sha, "%s", "abcdef0123abcdef0123abcdef0123abcdef0123");
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, reg), 0);
  memcpy(d.commits[0], "abcdef0123abcdef0123abcdef0123abcdef0123", 40);
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, reg), 1);
  /* A night whose commit is no hex prefix (a dirty tree) names no commit. */
  snprintf(h->runs[reg->last_good].prov.sha, sizeof h->runs[0].prov.sha, "%s", "abcdef0-dirty");
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, reg), 0);
  h->runs[reg->last_good].prov.sha[0] = '\0';
  memcpy(d.commits[0], "c0ffee3000", 10);
  /* Cells: one the finding lacks, or another size of its cell. */
  d.cells[0].n = M25 / 2;
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, reg), 0);
  d.cells[0].n = M25;
  d.cells[0].dtype = KG_NDTYPES; /* any dtype: a bisect of --good/--bad without --dtype */
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, reg), 0);
  d.cells[0].dtype = KG_F32;
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, reg), 1);
  kg_bisect_doc_free(&d);
  write_found(path, "reduce1_strided");
  ck_assert_msg(kg_bisect_read(path, &d, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kg_bisect_doc_of(&d, h, reg), 0);
  kg_bisect_doc_free(&d);
}
END_TEST

/* An answer: found, outside, not reproduced, undecided; not bad input or the environment. */
START_TEST(test_bisectfile_answers) {
  static const int want[] = {[KG_BISECT_FOUND] = 1, [KG_BISECT_OUTSIDE] = 1, [KG_BISECT_NOT_REPRODUCED] = 1,
                             [KG_BISECT_UNDECIDED] = 1, [KG_BISECT_BAD_INPUT] = 0, [KG_BISECT_ENV] = 0};
  kg_bisect_doc d = {.outcome = (kg_bisect_outcome)_i};
  ck_assert_int_eq(kg_bisect_doc_answers(&d), want[_i]);
}
END_TEST

Suite *make_bisectfile_suite(void) {
  Suite *s = suite_create("bisectfile");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, setup, teardown);
  tcase_add_test(core, test_bisectfile_round_trip);
  tcase_add_test(core, test_bisectfile_sample);
  tcase_add_test(core, test_bisectfile_of_finding);
  tcase_add_loop_test(core, test_bisectfile_answers, KG_BISECT_FOUND, KG_BISECT_ENV + 1);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, setup, teardown);
  tcase_add_loop_test(errors, test_bisectfile_refuses, 0, sizeof k_broken / sizeof *k_broken);
  tcase_add_test(errors, test_bisectfile_missing);
  suite_add_tcase(s, errors);
  return s;
}
