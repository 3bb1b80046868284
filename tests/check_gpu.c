/* check_gpu: the real default matrix through the real worker (`kgate worker`),
 * as `kgate check` runs it. Exits 77 (skipped) when no worker can start, e.g.
 * no GPU. This process never touches CUDA; ctest still runs it with CK_FORK=no.
 * KG_GPU_SIZES="1,33,2^22" narrows the size list for a quick run. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dtype.h"
#include "plan.h"
#include "report.h"
#include "sizes.h"
#include "supervisor.h"

#ifndef KGATE_EXE
#error "KGATE_EXE must name the kgate executable"
#endif

static kg_case *g_cases;
static kg_result *g_results;
static size_t g_ncases;

/* Loop index: the dtype. Every supported case ran and passed. */
START_TEST(test_gpu_dtype_passes) {
  kg_dtype dt = (kg_dtype)_i;
  size_t bad = 0, ran = 0;
  for (size_t i = 0; i < g_ncases; i++) {
    if (g_cases[i].dtype != dt || !g_cases[i].supported) continue;
    kg_status st = g_results[i].status;
    ran += st == KG_ST_PASS || st == KG_ST_FAIL || st == KG_ST_ERROR;
    if (st != KG_ST_PASS) {
      char label[160];
      kg_case_label(&g_cases[i], label, sizeof label);
      fprintf(stderr, "check_gpu: %s: %s %s\n", label, kg_status_name(st), g_results[i].message);
      bad++;
    }
  }
  ck_assert_msg(bad == 0, "%s: %zu of %zu cases did not pass", kg_dtype_get(dt)->name, bad, ran);
}
END_TEST

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void) {
  char err[256];
  kg_plan_opts po = {0};
  size_t *sizes = NULL;
  const char *env = getenv("KG_GPU_SIZES");
  if (env && *env) {
    if (kg_sizes_parse(env, &sizes, &po.nsizes, err, sizeof err)) {
      fprintf(stderr, "check_gpu: KG_GPU_SIZES: %s\n", err);
      return EXIT_FAILURE;
    }
    po.sizes = sizes;
  }
  if (kg_plan_build(&po, &g_cases, &g_ncases, err, sizeof err)) {
    fprintf(stderr, "check_gpu: %s\n", err);
    return EXIT_FAILURE;
  }
  g_results = calloc(g_ncases, sizeof *g_results);
  /* KGATE_EXE in the environment runs a kgate copied elsewhere (a GPU host). */
  const char *exe = getenv("KGATE_EXE");
  char *argv[] = {(char *)(exe && *exe ? exe : KGATE_EXE), "worker", "--device", "0", NULL};
  kg_super_opts so = {argv, 120.0, 120.0, NULL, NULL, 0, NULL, NULL};
  kg_run_params rp = {1, 3, {0, 0, 0, 0}, {0}};
  kg_device_info dev = {0};
  double t0 = now_s();
  int rc = g_results ? kg_supervise(g_cases, g_ncases, &rp, &so, g_results, &dev, err, sizeof err) : -1;
  double wall = now_s() - t0;
  kg_counts c = kg_count_results(g_results, g_results ? g_ncases : 0);
  if (rc && c.passed + c.failed + c.errored == 0) {
    printf("check_gpu: skipped: %s\n", !g_results ? "out of memory" : err[0] ? err : "no worker started (no reason given)");
    return 77;
  }
  kg_report_check(stdout, g_cases, g_results, g_ncases, &dev, wall, 0);
  printf("check_gpu: %zu cases run, %zu passed, %zu failed, %zu errors, %zu nondeterministic, %zu not run, %.1f s\n",
         c.passed + c.failed + c.errored, c.passed, c.failed, c.errored, c.nondeterministic, c.pending, wall);
  if (rc) printf("check_gpu: a worker could not restart: %s\n", err);
  fflush(stdout);

  Suite *s = suite_create("gpu");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_gpu_dtype_passes, 0, KG_NDTYPES);
  suite_add_tcase(s, core);
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  free(g_results);
  free(g_cases);
  free(sizes);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
