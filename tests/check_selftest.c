/* Check suite for selftest, --sanitize and the mutants' place in the registry:
 * the compute-sanitizer report parser on recorded text, the worker argv, a
 * missing compute-sanitizer, the supervisor reading a sanitizer log (the fake
 * worker plays compute-sanitizer), and the selftest verdict table. No GPU. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"
#include "varreg.h"
#include "sanitize.h"
#include "waiver.h"
#include "kgate/module.h"
#include "sizes.h"
#include "selftest.h"
#include "supervisor.h"

#ifndef FAKE_WORKER
#error "FAKE_WORKER must name the fake worker program"
#endif

/* Recorded shapes of compute-sanitizer output (CUDA 12), one per tool. */
static const char k_memcheck[] =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at void (anonymous namespace)::oob<int, unsigned int>(const T1 *, T2 *, unsigned long)+0x1d0 "
    "in /src/kgate/kernels/mutants/mut_oob_read.cu:19\n"
    "=========     by thread (32,0,0) in block (0,0,0)\n"
    "=========     Address 0x7f3b5e000084 is out of bounds\n"
    "=========     and is 1 bytes after the nearest allocation at 0x7f3b5e000000 of size 132 bytes\n"
    "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
    "=========     Host Frame: [0x2ddd3f] in libcuda.so.1\n"
    "=========\n"
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at void (anonymous namespace)::oob<int, unsigned int>(const T1 *, T2 *, unsigned long)+0x1d0 "
    "in /src/kgate/kernels/mutants/mut_oob_read.cu:19\n"
    "=========\n"
    "========= ERROR SUMMARY: 2 errors\n";
static const char k_racecheck[] =
    "========= COMPUTE-SANITIZER\n"
    "========= Error: Race reported between Write access at void nosync<float, float>(const T1 *, T2 *, unsigned "
    "long)+0x2c0 in /src/kgate/kernels/mutants/mut_no_syncthreads.cu:18\n"
    "=========     and Read access at void nosync<float, float>(const T1 *, T2 *, unsigned long)+0x2a0 in "
    "/src/kgate/kernels/mutants/mut_no_syncthreads.cu:18 [1016 hazards]\n"
    "=========\n"
    "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
static const char k_synccheck[] =
    "========= COMPUTE-SANITIZER\n"
    "========= Barrier error detected. Divergent thread(s) in warp\n"
    "=========     at void early<int, unsigned int>(const T1 *, T2 *, unsigned long)+0x120 in "
    "/src/kgate/kernels/mutants/mut_early_return.cu:20\n"
    "=========     by thread (0,0,0) in block (0,0,0)\n"
    "=========\n"
    "========= ERROR SUMMARY: 1 error\n";
static const char k_clean[] = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n";
static const char k_race_clean[] =
    "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n";
static const char k_api[] =
    "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API "
    "call to cudaStreamSynchronize.\n"
    "=========     Saved host backtrace up to driver entry point at error\n"
    "=========     Host Frame: [0x4a1b2] in /src/kgate/build/kgate\n";

static const struct {
  const char *text;
  int dirty, errors, summary;
  const char *first;
} k_parse[] = {
    {k_memcheck, 1, 2, 2, "Invalid __global__ read of size 4 bytes at mut_oob_read.cu:19"},
    {k_racecheck, 1, 1, 1, "Race reported between Write access at mut_no_syncthreads.cu:18"},
    {k_synccheck, 1, 1, 1, "Barrier error detected. Divergent thread(s) in warp at mut_early_return.cu:20"},
    {k_clean, 0, 0, 0, ""},
    {k_race_clean, 0, 0, 0, ""},
    {k_api, 1, 1, -1,
     "Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API call to "
     "cudaStreamSynchronize."},
    {"", 0, 0, -1, ""},
    {"no sanitizer here\nat foo.cu:12\n", 0, 0, -1, ""},
};

START_TEST(test_san_parse_recorded) {
  kg_san_report r;
  kg_san_parse(k_parse[_i].text, strlen(k_parse[_i].text), &r);
  ck_assert_int_eq(kg_san_dirty(&r), k_parse[_i].dirty);
  ck_assert_int_eq(r.errors, k_parse[_i].errors);
  ck_assert_int_eq(r.summary_errors, k_parse[_i].summary);
  ck_assert_str_eq(r.first, k_parse[_i].first);
}
END_TEST

START_TEST(test_san_parse_truncated_line) {
  /* a report cut mid-line (the log read while it is written) still counts */
  kg_san_report r;
  kg_san_parse(k_memcheck, 60, &r);
  ck_assert_int_eq(r.errors, 1);
  ck_assert(kg_san_dirty(&r));
}
END_TEST

/* A module's sanitizer waivers: racecheck's report of cooperative groups'
 * tile barrier (as cuda-samples' multi_warp_cg_reduce gives it), waived by
 * tool, kernel and place; the same report elsewhere, by another tool or in
 * another kernel is not, and a summary counting more reports than were shown
 * cannot be known waived. */
static const char k_cg_race[] =
    "========= COMPUTE-SANITIZER\n"
    "========= Error: Race reported between Write access at void multi_warp_cg_reduce<int, (unsigned long)256, "
    "(unsigned long)128>(T1 *, T1 *, unsigned int)+0x5a0 in /usr/local/cuda/include/cooperative_groups/details/reduce.h:283\n"
    "=========     and Read access at void multi_warp_cg_reduce<int, (unsigned long)256, (unsigned long)128>(T1 *, T1 *, "
    "unsigned int)+0x6d0 in /usr/local/cuda/include/cooperative_groups/details/reduce.h:290 [24 hazards]\n"
    "=========\n"
    "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
static const char k_cg_race_more[] =
    "========= Error: Race reported between Write access at void multi_warp_cg_reduce<int, 256ul, 128ul>(int *, int *, "
    "unsigned int)+0x5a0 in /x/reduce.h:283\n"
    "========= RACECHECK SUMMARY: 1 hazard displayed (2 errors, 0 warnings)\n";
static const char k_table[] = KG_MODULE_SANITIZER_WAIVERS_TAG "\0racecheck\0multi_warp_cg_reduce\0reduce.h:283\0"
                              "racecheck does not model cooperative groups' atomic tile barrier\0";

static const struct {
  const char *text, *tool;
  int dirty, errors, waived;
} k_waived[] = {
    {k_cg_race, "racecheck", 0, 0, 1},
    {k_cg_race, "memcheck", 1, 1, 0},   /* another tool's waiver */
    {k_racecheck, "racecheck", 1, 1, 0}, /* another kernel, another place */
    {k_cg_race_more, "racecheck", 1, 0, 1}, /* a report not shown */
    {k_memcheck, "memcheck", 1, 2, 0},
};

START_TEST(test_san_parse_waived) {
  kg_san_waivers w;
  char err[300];
  ck_assert_msg(kg_san_waivers_parse(k_table, sizeof k_table, &w, err, sizeof err) == 0, "%s", err);
  kg_san_report r;
  kg_san_parse_waived(k_waived[_i].text, strlen(k_waived[_i].text), k_waived[_i].tool, &w, &r);
  ck_assert_int_eq(kg_san_dirty(&r), k_waived[_i].dirty);
  ck_assert_int_eq(r.errors, k_waived[_i].errors);
  ck_assert_int_eq(r.waived, k_waived[_i].waived);
  if (r.waived) ck_assert_str_eq(r.waived_reason, "racecheck does not model cooperative groups' atomic tile barrier");
  kg_san_waivers_free(&w);
}
END_TEST

/* kg_san_scan says what it waived, as the check's summary shows it. */
static const struct kg_san_waivers *the_table(const void *ctx, int variant) { return variant == 3 ? ctx : NULL; }

START_TEST(test_san_scan_waived) {
  kg_san_waivers w;
  char err[300], first[256];
  ck_assert_int_eq(kg_san_waivers_parse(k_table, sizeof k_table, &w, err, sizeof err), 0);
  kg_san_scope sc = {"racecheck", the_table, &w};
  ck_assert_int_eq(kg_san_scan(&sc, 3, k_cg_race, strlen(k_cg_race), first, sizeof first), 0);
  ck_assert_str_eq(first, "waived: racecheck does not model cooperative groups' atomic tile barrier (1 report)");
  /* the waivers are the variant's module's only */
  ck_assert_int_eq(kg_san_scan(&sc, 4, k_cg_race, strlen(k_cg_race), first, sizeof first), 1);
  ck_assert_str_eq(first, "Race reported between Write access at reduce.h:283");
  kg_san_waivers_free(&w);
}
END_TEST

/* A table a module cannot mean is refused, naming the waiver and the field. */
static const struct {
  const char *bytes;
  size_t len;
  const char *why;
} k_bad_san[] = {
#define T(s) s, sizeof s
    {T(KG_MODULE_SANITIZER_WAIVERS_TAG "\0leakcheck\0k\0a.cu:1\0r\0"), "waiver 1: tool 'leakcheck' is not memcheck"},
    {T(KG_MODULE_SANITIZER_WAIVERS_TAG "\0racecheck\0k-1\0a.cu:1\0r\0"), "waiver 1: kernel name 'k-1' is not"},
    {T(KG_MODULE_SANITIZER_WAIVERS_TAG "\0racecheck\0k\0a.cu\0r\0"), "waiver 1 (k): place 'a.cu' is not FILE:LINE"},
    {T(KG_MODULE_SANITIZER_WAIVERS_TAG "\0racecheck\0k\0dir/a.cu:3\0r\0"), "place 'dir/a.cu:3' is not FILE:LINE"},
    {T(KG_MODULE_SANITIZER_WAIVERS_TAG "\0racecheck\0k\0a.cu:0\0r\0"), "place 'a.cu:0' is not FILE:LINE"},
    {T(KG_MODULE_SANITIZER_WAIVERS_TAG "\0racecheck\0k\0a.cu:7\0\0"), "waiver 1 (k): reason is missing"},
    {T(KG_MODULE_SANITIZER_WAIVERS_TAG "\0racecheck\0k\0a.cu:7\0r\0racecheck\0k\0a.cu:7\0s\0"),
     "waiver 2: racecheck k at a.cu:7 is listed twice"},
    {T("kgate-sanitizer-waivers 9\0"), "starts 'kgate-sanitizer-waivers 9'"},
#undef T
};

START_TEST(test_san_waivers_refused) {
  kg_san_waivers w;
  char err[300];
  ck_assert_int_eq(kg_san_waivers_parse(k_bad_san[_i].bytes, k_bad_san[_i].len, &w, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "kgate_module_sanitizer_waivers: ") == err && strstr(err, k_bad_san[_i].why), "%s", err);
}
END_TEST

START_TEST(test_san_tools_parse) {
  unsigned mask;
  char err[160];
  ck_assert_int_eq(kg_san_parse_tools("memcheck,racecheck,synccheck,initcheck", &mask, err, sizeof err), 0);
  ck_assert_uint_eq(mask, 0xf);
  ck_assert_int_eq(kg_san_parse_tools("all", &mask, err, sizeof err), 0);
  ck_assert_uint_eq(mask, 0xf);
  ck_assert_int_eq(kg_san_parse_tools("racecheck", &mask, err, sizeof err), 0);
  ck_assert_uint_eq(mask, 1u << KG_SAN_RACECHECK);
  ck_assert_int_eq(kg_san_parse_tools("memcheck,leakcheck", &mask, err, sizeof err), -1);
  ck_assert_str_eq(err, "unknown sanitizer tool 'leakcheck' (memcheck, racecheck, synccheck, initcheck)");
  ck_assert_int_eq(kg_san_parse_tools("", &mask, err, sizeof err), -1);
}
END_TEST

START_TEST(test_san_argv_memcheck) {
  char *worker[] = {"/x/kgate", "worker", "--device", "1", NULL};
  char **v = kg_san_argv("/cuda/bin/compute-sanitizer", KG_SAN_MEMCHECK, "/tmp/log", worker);
  const char *want[] = {"/cuda/bin/compute-sanitizer", "--tool", "memcheck", "--error-exitcode", "86",
                        "--print-limit", "10", "--log-file", "/tmp/log", "--padding", KG_SAN_PADDING,
                        "/x/kgate", "worker", "--device", "1", NULL};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    if (!want[i]) ck_assert_ptr_null(v[i]);
    else ck_assert_str_eq(v[i], want[i]);
  }
  free(v);
}
END_TEST

START_TEST(test_san_argv_racecheck_no_padding) {
  char *worker[] = {"kgate", "worker", NULL};
  char **v = kg_san_argv("cs", KG_SAN_RACECHECK, "L", worker);
  ck_assert_str_eq(v[2], "racecheck");
  ck_assert_str_eq(v[9], "kgate");
  ck_assert_str_eq(v[10], "worker");
  ck_assert_ptr_null(v[11]);
  free(v);
}
END_TEST

START_TEST(test_san_find_missing) {
  char path[256], err[300];
  setenv("KGATE_COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer", 1);
  ck_assert_int_eq(kg_san_find(path, sizeof path, err, sizeof err), -1);
  ck_assert_str_eq(err, "KGATE_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer is not an executable program");
  setenv("KGATE_COMPUTE_SANITIZER", FAKE_WORKER, 1); /* any executable will do */
  ck_assert_int_eq(kg_san_find(path, sizeof path, err, sizeof err), 0);
  ck_assert_str_eq(path, FAKE_WORKER);
  unsetenv("KGATE_COMPUTE_SANITIZER");
}
END_TEST

START_TEST(test_san_default_sizes_have_tails) {
  size_t n;
  const size_t *s = kg_san_default_sizes(&n);
  ck_assert_uint_ge(n, 6);
  for (size_t i = 0; i < n; i++) {
    ck_assert_uint_ne(s[i] % 32, 0); /* every size leaves a partial warp */
    ck_assert_uint_lt(s[i], 1u << 20);
  }
}
END_TEST

/* The supervisor reads the log after each case; the fake worker writes it. */
START_TEST(test_supervise_sanitizer_log) {
  char log[] = "/tmp/kgate-check-san-XXXXXX";
  int fd = mkstemp(log);
  ck_assert_int_ge(fd, 0);
  setenv("FAKE_SAN_LOG", log, 1);
  char *argv[] = {FAKE_WORKER, NULL};
  kg_case cases[] = {{0, KG_I32, 5, KG_PAT_EXACT, 1, 0},
                     {0, KG_I32, 41, KG_PAT_EXACT, 1, 0},
                     {0, KG_I32, 7, KG_PAT_EXACT, 1, 0},
                     {0, KG_I32, 43, KG_PAT_EXACT, 1, 0}};
  kg_result r[4];
  kg_run_params p = {.seed = 1, .repeats = 1};
  kg_super_opts o = {.worker_argv = argv, .timeout_s = 10, .start_timeout_s = 10};
  kg_super_san san = {.log = log, .tool = "memcheck", .exit_code = KG_SAN_EXIT, .scan = kg_san_scan, .scan_ctx = NULL};
  kg_device_info dev;
  char err[200];
  ck_assert_int_eq(kg_supervise_san(cases, 4, &p, &o, &san, r, &dev, err, sizeof err), 0);
  unsetenv("FAKE_SAN_LOG");
  unlink(log);
  ck_assert_int_eq(r[0].status, KG_ST_PASS);
  ck_assert_int_eq(r[1].status, KG_ST_FAIL);
  ck_assert_str_eq(r[1].message, "sanitizer (memcheck): Invalid __global__ read of size 4 bytes at mut_oob_read.cu:19");
  ck_assert_int_eq(r[2].status, KG_ST_PASS);
  /* written only when the worker exits (status 86): charged to its last case */
  ck_assert_int_eq(r[3].status, KG_ST_FAIL);
  ck_assert_str_eq(r[3].message,
                   "sanitizer (memcheck): Barrier error detected. Divergent thread(s) in warp at mut_early_return.cu:20");
}
END_TEST

START_TEST(test_supervise_fresh_worker_per_case) {
  char *argv[] = {FAKE_WORKER, NULL};
  kg_case cases[] = {{0, KG_I32, 5, KG_PAT_EXACT, 1, 0}, {0, KG_I32, 7, KG_PAT_EXACT, 1, 0}};
  kg_result r[2];
  kg_run_params p = {.seed = 1, .repeats = 1};
  kg_super_opts o = {.worker_argv = argv, .timeout_s = 10, .start_timeout_s = 10};
  kg_super_san san = {.fresh_worker = 1};
  kg_device_info dev;
  char err[200];
  ck_assert_int_eq(kg_supervise_san(cases, 2, &p, &o, &san, r, &dev, err, sizeof err), 0);
  ck_assert_int_eq(r[0].status, KG_ST_PASS);
  ck_assert_int_eq(r[1].status, KG_ST_PASS);
  ck_assert_str_ne(r[0].got, r[1].got); /* got carries the worker's pid */
}
END_TEST

START_TEST(test_mutants_hidden_from_plan) {
  ck_assert_uint_ge(kg_nmutants, 12);
  ck_assert_uint_eq(kg_nvariants_all, kg_nvariants + kg_nmutants);
  for (size_t m = 0; m < kg_nmutants; m++) {
    const kg_mutant_info *mi = &kg_mutants[m];
    ck_assert_int_eq(kg_variant_find(mi->name), -1);
    ck_assert_int_eq(kg_variant_find_any(mi->name), mi->variant);
    ck_assert(kg_variant_is_mutant(mi->variant));
    ck_assert_int_ge(kg_variant_find(mi->base), 0);
    ck_assert_str_eq(kg_variants[mi->variant].seed, "mutant");
  }
  kg_plan_opts o = {0};
  kg_case *cases;
  size_t n;
  char err[200];
  ck_assert_int_eq(kg_plan_build(&o, &cases, &n, err, sizeof err), 0);
  for (size_t i = 0; i < n; i++) ck_assert(!kg_variant_is_mutant(cases[i].variant));
  free(cases);
  o.variants = "mut_hang";
  ck_assert_int_eq(kg_plan_build(&o, &cases, &n, err, sizeof err), -1);
}
END_TEST

static int mutant_index(const char *name) {
  for (size_t m = 0; m < kg_nmutants; m++)
    if (!strcmp(kg_mutants[m].name, name)) return (int)m;
  ck_abort_msg("no mutant %s", name);
  return -1;
}

START_TEST(test_st_cases_layout) {
  int m = mutant_index("mut_dropped_tail");
  kg_case *c;
  size_t n;
  ck_assert_int_eq(kg_st_cases(m, 0, &c, &n), 0);
  ck_assert_uint_eq(n % 2, 0);
  for (size_t k = 0; k < n; k++) {
    ck_assert_int_eq(c[k].variant, k < n / 2 ? kg_mutants[m].variant : kg_variant_find("reduce3_first_add"));
    ck_assert_uint_ne(c[k].n % 512, 0); /* every size has a tail past the full chunks */
    ck_assert(c[k].supported);
  }
  free(c);
  m = mutant_index("mut_index32");
  ck_assert_int_eq(kg_st_cases(m, 1, &c, &n), 0);
  ck_assert_uint_gt(c[0].n, (size_t)1 << 31);
  free(c);
}
END_TEST

static kg_result fail_with(kg_status st, kg_fail_kind kind, const char *msg) {
  kg_result r = {.status = st, .fail = kind};
  snprintf(r.message, sizeof r.message, "%s", msg);
  return r;
}

/* The class comes from the failure's kind, never its text: a message that
 * reads like another kind's changes nothing. */
START_TEST(test_st_observe_classes) {
  kg_result pass = {.status = KG_ST_PASS};
  ck_assert_uint_eq(kg_st_observe(&pass, -1), 0);
  kg_result r = fail_with(KG_ST_FAIL, KG_FK_WRONG_RESULT, "|error| 3 > bound 0 (exact)");
  ck_assert_uint_eq(kg_st_observe(&r, -1), 1u << KG_EXPECT_WRONG_RESULT);
  r = fail_with(KG_ST_FAIL, KG_FK_INPUT_MODIFIED, "wrote its input but is not declared in-place");
  r.input_modified = 1;
  ck_assert_uint_eq(kg_st_observe(&r, -1), 1u << KG_EXPECT_INPUT_MODIFIED);
  r = fail_with(KG_ST_FAIL, KG_FK_NONDETERMINISTIC, "results differ across 5 runs but the variant claims determinism");
  ck_assert_uint_eq(kg_st_observe(&r, -1), 1u << KG_EXPECT_NONDETERMINISTIC);
  r = fail_with(KG_ST_FAIL, KG_FK_SANITIZER, "sanitizer (racecheck): Race reported at x.cu:1");
  ck_assert_uint_eq(kg_st_observe(&r, KG_SAN_RACECHECK), 1u << KG_EXPECT_RACECHECK);
  r = fail_with(KG_ST_ERROR, KG_FK_TIMEOUT, "timeout after 20 s");
  ck_assert_uint_eq(kg_st_observe(&r, -1), 1u << KG_EXPECT_TIMEOUT);
  r = fail_with(KG_ST_ERROR, KG_FK_CRASH, "CUDA error at worker.c:1: cudaErrorIllegalAddress (700) / x");
  ck_assert_uint_eq(kg_st_observe(&r, -1), 1u << KG_EXPECT_CRASH);
  r = fail_with(KG_ST_ERROR, KG_FK_CRASH, "timeout in the variant's own message");
  ck_assert_uint_eq(kg_st_observe(&r, -1), 1u << KG_EXPECT_CRASH);
  r = fail_with(KG_ST_FAIL, KG_FK_WRONG_RESULT, "sanitizer (memcheck): a variant that prints this");
  ck_assert_uint_eq(kg_st_observe(&r, KG_SAN_MEMCHECK), 1u << KG_EXPECT_WRONG_RESULT);
}
END_TEST

START_TEST(test_st_judge_caught_missed_unclear) {
  int m = mutant_index("mut_no_write");
  kg_case *c;
  size_t n;
  ck_assert_int_eq(kg_st_cases(m, 0, &c, &n), 0);
  kg_result *r = calloc(n, sizeof *r);
  for (size_t k = 0; k < n; k++) r[k].status = KG_ST_PASS;
  kg_st_row row;
  kg_st_judge(m, c, r, n, &row);
  ck_assert_int_eq(row.outcome, KG_STO_MISSED);
  ck_assert_str_eq(row.observed, "clean");
  r[1] = fail_with(KG_ST_FAIL, KG_FK_WRONG_RESULT, "got poison");
  kg_st_judge(m, c, r, n, &row);
  ck_assert_int_eq(row.outcome, KG_STO_CAUGHT);
  ck_assert_str_eq(row.observed, "wrong_result (n=1000: got poison)");
  r[n - 1] = fail_with(KG_ST_FAIL, KG_FK_WRONG_RESULT, "base broke");
  kg_st_judge(m, c, r, n, &row);
  ck_assert_int_eq(row.outcome, KG_STO_UNCLEAR);
  /* the wrong check tripping is still a miss */
  m = mutant_index("mut_clobber_input");
  for (size_t k = 0; k < n; k++) r[k] = (kg_result){.status = KG_ST_PASS};
  r[0] = fail_with(KG_ST_FAIL, KG_FK_WRONG_RESULT, "|error| 1 > bound 0");
  kg_st_judge(m, c, r, n, &row);
  ck_assert_int_eq(row.outcome, KG_STO_MISSED);
  free(r);
  free(c);
}
END_TEST

/* The paired rows time each slowdown mutant and the A/A control against
 * reduce7_shuffle from kgate's own module, on f32: they must be declared so. */
START_TEST(test_st_paired_mutants_declared) {
  int slower = 0, same = 0, not_slower = 0;
  for (size_t m = 0; m < kg_nmutants; m++) {
    kg_expect e = kg_mutants[m].expect;
    if (e != KG_EXPECT_SLOWER && e != KG_EXPECT_SAME && e != KG_EXPECT_NOT_SLOWER) continue;
    ck_assert_str_eq(kg_mutants[m].base, "reduce7_shuffle");
    ck_assert(kg_variant_supports(kg_mutants[m].variant, KG_F32));
    slower += e == KG_EXPECT_SLOWER, same += e == KG_EXPECT_SAME, not_slower += e == KG_EXPECT_NOT_SLOWER;
  }
  ck_assert_int_eq(slower, 5); /* mut_slow1/2/5 and the two planted at m */
  ck_assert_int_eq(same, 1);
  ck_assert_int_eq(not_slower, 2); /* planted at m/2 */
  ck_assert_str_eq(kg_expect_name(KG_EXPECT_NOT_SLOWER), "not_slower");
  ck_assert_str_eq(kg_expect_name(KG_EXPECT_SAME), "same");
}
END_TEST

/* The game mutants: each wraps reduce7_shuffle on i32 and is timed at 2^22
 * (its check there first); caught only by the check it names: a refusal,
 * or outputs wrong when checked again after timing. */
START_TEST(test_st_game_mutants) {
  static const char *const refused[] = {"mut_game_persist", "mut_game_stream"};
  static const char *const after[] = {"mut_game_cache_ptr", "mut_game_cache_hash", "mut_game_less_after_n",
                                      "mut_game_size_sniff", "mut_game_clock"};
  for (size_t k = 0; k < 7; k++) {
    const char *name = k < 2 ? refused[k] : after[k - 2];
    int m = mutant_index(name);
    ck_assert_int_ge(m, 0);
    ck_assert_str_eq(kg_mutants[m].base, "reduce7_shuffle");
    ck_assert_int_eq(kg_mutants[m].expect, k < 2 ? KG_EXPECT_REFUSED : KG_EXPECT_WRONG_AFTER_TIMING);
    kg_case *c;
    size_t n;
    ck_assert_int_eq(kg_st_cases(m, 0, &c, &n), 0);
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
      ck_assert_uint_eq(c[i].n, (size_t)1 << 22);
      ck_assert_int_eq(c[i].dtype, KG_I32);
      ck_assert_int_eq(c[i].timed, 1);
    }
    ck_assert_int_eq(c[1].variant, kg_variant_find("reduce7_shuffle"));
    kg_result r[2] = {fail_with(KG_ST_FAIL, KG_FK_REFUSED, "refused: cudaStreamSetAttribute"), {.status = KG_ST_PASS}};
    kg_st_row row;
    kg_st_judge(m, c, r, n, &row);
    ck_assert_int_eq(row.outcome, k < 2 ? KG_STO_CAUGHT : KG_STO_MISSED);
    r[0] = fail_with(KG_ST_FAIL, KG_FK_WRONG_AFTER_TIMING, "sample 3: got 7, expected 9");
    kg_st_judge(m, c, r, n, &row);
    ck_assert_int_eq(row.outcome, k < 2 ? KG_STO_MISSED : KG_STO_CAUGHT);
    /* caught before timing is not the re-check at work */
    r[0] = fail_with(KG_ST_FAIL, KG_FK_WRONG_RESULT, "got 7, expected 9");
    kg_st_judge(m, c, r, n, &row);
    ck_assert_int_eq(row.outcome, KG_STO_MISSED);
    free(c);
  }
  ck_assert_str_eq(kg_expect_name(KG_EXPECT_REFUSED), "refused");
  ck_assert_str_eq(kg_expect_name(KG_EXPECT_WRONG_AFTER_TIMING), "wrong_after_timing");
}
END_TEST

START_TEST(test_st_exit_codes) {
  kg_st_row rows[3] = {{.outcome = KG_STO_CAUGHT}, {.outcome = KG_STO_SKIPPED}, {.outcome = KG_STO_CAUGHT}};
  ck_assert_int_eq(kg_st_exit_code(rows, 3), 0);
  rows[1].outcome = KG_STO_NOT_RUN;
  ck_assert_int_eq(kg_st_exit_code(rows, 3), 3);
  rows[2].outcome = KG_STO_MISSED;
  ck_assert_int_eq(kg_st_exit_code(rows, 3), 1);
}
END_TEST

/* No compute-sanitizer: the sanitizer rows are "not run", the others run
 * (on the fake worker, which passes everything: so they are missed). */
START_TEST(test_selftest_without_sanitizer) {
  char *argv[] = {FAKE_WORKER, NULL};
  kg_st_opts o = {.worker_argv = argv, .sanitizer = NULL, .only = "mut_oob_read,mut_no_syncthreads", .quiet = 1};
  kg_st_row rows[64];
  size_t n;
  char err[200];
  ck_assert_int_eq(kg_selftest(&o, rows, &n, err, sizeof err), 3);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(rows[0].outcome, KG_STO_NOT_RUN);
  ck_assert_str_eq(rows[0].observed, "not run (compute-sanitizer missing)");
  o.only = "mut_no_write,mut_racecheck_nope";
  ck_assert_int_eq(kg_selftest(&o, rows, &n, err, sizeof err), 2);
  ck_assert_str_eq(err, "unknown mutant 'mut_racecheck_nope' (try kgate list)");
  o.only = "mut_no_write";
  ck_assert_int_eq(kg_selftest(&o, rows, &n, err, sizeof err), 1); /* the fake worker catches nothing */
  ck_assert_int_eq(rows[0].outcome, KG_STO_MISSED);
  o.only = "mut_index32";
  ck_assert_int_eq(kg_selftest(&o, rows, &n, err, sizeof err), 0);
  ck_assert_int_eq(rows[0].outcome, KG_STO_SKIPPED);
  ck_assert_str_eq(rows[0].observed, "skipped: needs n > 2^31 (17 GiB of device memory) and --huge");
  o.mem_bytes = (uint64_t)16 << 30; /* a 16 GiB card: the row says why */
  ck_assert_int_eq(kg_selftest(&o, rows, &n, err, sizeof err), 0);
  ck_assert_str_eq(rows[0].observed,
                   "skipped: needs n > 2^31 (17 GiB of device memory), the card has 16.0 GiB (--huge forces it)");
  ck_assert(kg_st_huge_bytes() > (uint64_t)16 << 30 && kg_st_huge_bytes() < (uint64_t)20 << 30);
}
END_TEST

/* The fence mutants need no GPU: kgate lint over the module (here listings
 * of it) must find each one's kernel and nothing in the real variants'. */
START_TEST(test_selftest_lint_rows) {
  char *argv[] = {FAKE_WORKER, NULL};
  kg_st_opts o = {.worker_argv = argv, .only = "mut_fence_none", .quiet = 1,
                  .lint_module = KG_SOURCE_DIR "/tests/data/sass/mut_fence_none_sm90_O3.nvdisasm"};
  kg_st_row rows[64];
  size_t n;
  char err[200];
  ck_assert_int_eq(kg_selftest(&o, rows, &n, err, sizeof err), 0);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(rows[0].outcome, KG_STO_CAUGHT);
  ck_assert_str_eq(rows[0].observed, "9 findings (release+acquire) sm_90");
  o.only = "mut_fence_after"; /* its kernel is not in that listing */
  ck_assert_int_eq(kg_selftest(&o, rows, &n, err, sizeof err), 1);
  ck_assert_int_eq(rows[0].outcome, KG_STO_MISSED);
  o.lint_module = KG_SOURCE_DIR "/tests/data/sass/fences_sm90_O3.nvdisasm"; /* bug_* kernels: the base fails */
  ck_assert_int_eq(kg_selftest(&o, rows, &n, err, sizeof err), 1);
  ck_assert_int_eq(rows[0].outcome, KG_STO_UNCLEAR);
  o.lint_module = NULL;
  ck_assert_int_eq(kg_selftest(&o, rows, &n, err, sizeof err), 3);
  ck_assert_int_eq(rows[0].outcome, KG_STO_NOT_RUN);
  ck_assert_str_eq(rows[0].observed, "not run: no module to lint");
}
END_TEST

START_TEST(test_st_print_table) {
  kg_st_row rows[2] = {{.mutant = 0, .outcome = KG_STO_CAUGHT}, {.mutant = 1, .outcome = KG_STO_NOT_RUN}};
  snprintf(rows[0].observed, sizeof rows[0].observed, "wrong_result");
  snprintf(rows[1].observed, sizeof rows[1].observed, "not run (compute-sanitizer missing)");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  kg_st_print(f, rows, 2);
  fclose(f);
  ck_assert_ptr_nonnull(strstr(buf, "| mutant | planted bug | expected check | observed | caught? |"));
  ck_assert_ptr_nonnull(strstr(buf, "| mut_dropped_tail | "));
  ck_assert_ptr_nonnull(strstr(buf, "| sanitizer:memcheck | not run (compute-sanitizer missing) | not run |"));
  ck_assert_ptr_nonnull(strstr(buf, "selftest: 1 of 2 mutants caught, 0 missed, 0 unclear, 1 not run, 0 skipped"));
  free(buf);
}
END_TEST

Suite *make_selftest_suite(void) {
  Suite *s = suite_create("selftest");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_san_parse_recorded, 0, sizeof k_parse / sizeof k_parse[0]);
  tcase_add_test(core, test_san_parse_truncated_line);
  tcase_add_loop_test(core, test_san_parse_waived, 0, sizeof k_waived / sizeof k_waived[0]);
  tcase_add_test(core, test_san_scan_waived);
  tcase_add_loop_test(core, test_san_waivers_refused, 0, sizeof k_bad_san / sizeof k_bad_san[0]);
  tcase_add_test(core, test_san_tools_parse);
  tcase_add_test(core, test_san_argv_memcheck);
  tcase_add_test(core, test_san_argv_racecheck_no_padding);
  tcase_add_test(core, test_san_default_sizes_have_tails);
  tcase_add_test(core, test_mutants_hidden_from_plan);
  tcase_add_test(core, test_st_cases_layout);
  tcase_add_test(core, test_st_observe_classes);
  tcase_add_test(core, test_st_judge_caught_missed_unclear);
  tcase_add_test(core, test_st_paired_mutants_declared);
  tcase_add_test(core, test_st_game_mutants);
  tcase_add_test(core, test_st_exit_codes);
  tcase_add_test(core, test_selftest_lint_rows);
  tcase_add_test(core, test_st_print_table);
  suite_add_tcase(s, core);
  TCase *proc = tcase_create("Limits");
  tcase_set_timeout(proc, 60);
  tcase_add_test(proc, test_supervise_sanitizer_log);
  tcase_add_test(proc, test_supervise_fresh_worker_per_case);
  tcase_add_test(proc, test_selftest_without_sanitizer);
  suite_add_tcase(s, proc);
  TCase *err = tcase_create("Errors");
  tcase_add_test(err, test_san_find_missing);
  suite_add_tcase(s, err);
  return s;
}
