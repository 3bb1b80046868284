/* check_kgate: every CUDA-free suite in one runner (Check's check_check_main.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Suite *make_sizes_suite(void);
Suite *make_dtype_suite(void);
Suite *make_pattern_suite(void);
Suite *make_gen_suite(void);
Suite *make_reference_suite(void);
Suite *make_registry_suite(void);
Suite *make_plan_suite(void);
Suite *make_model_suite(void);
Suite *make_proto_suite(void);
Suite *make_cli_suite(void);
Suite *make_supervisor_suite(void);
Suite *make_report_suite(void);
Suite *make_paired_suite(void);
Suite *make_stats_suite(void);
Suite *make_results_suite(void);
Suite *make_baseline_suite(void);
Suite *make_verdict_suite(void);
Suite *make_export_suite(void);
Suite *make_benchfmt_suite(void);
Suite *make_rmodel_suite(void);
Suite *make_verdicts_suite(void);
Suite *make_selftest_suite(void);
Suite *make_history_suite(void);
Suite *make_plot_suite(void);
Suite *make_html_suite(void);
Suite *make_merge_suite(void);
Suite *make_escape_suite(void);
Suite *make_validate_suite(void);
Suite *make_fileio_suite(void);
Suite *make_module_suite(void);
Suite *make_pairrun_suite(void);
Suite *make_proc_suite(void);
Suite *make_label_suite(void);
Suite *make_nightly_suite(void);
Suite *make_progress_suite(void);
Suite *make_suggest_suite(void);
Suite *make_refcache_suite(void);
Suite *make_lint_suite(void);
Suite *make_unchanged_suite(void);
Suite *make_bisect_suite(void);
Suite *make_carry_suite(void);
Suite *make_bisectfile_suite(void);
Suite *make_recheck_suite(void);

/* Every suite, in the order they run. */
static Suite *(*const k_suites[])(void) = {
    make_sizes_suite, make_dtype_suite, make_progress_suite, make_lint_suite, make_unchanged_suite,
    make_bisect_suite, make_carry_suite, make_bisectfile_suite, make_pattern_suite, make_gen_suite,
    make_reference_suite, make_refcache_suite, make_registry_suite, make_plan_suite, make_model_suite,
    make_proto_suite, make_cli_suite, make_supervisor_suite, make_stats_suite, make_paired_suite,
    make_results_suite, make_baseline_suite, make_verdict_suite, make_export_suite, make_benchfmt_suite,
    make_rmodel_suite, make_verdicts_suite, make_selftest_suite, make_report_suite, make_history_suite,
    make_plot_suite, make_html_suite, make_merge_suite, make_escape_suite, make_validate_suite,
    make_fileio_suite, make_module_suite, make_pairrun_suite, make_proc_suite, make_label_suite,
    make_nightly_suite, make_suggest_suite, make_recheck_suite,
};
#define NSUITES (sizeof k_suites / sizeof k_suites[0])

/* check_kgate: every suite. --count prints how many there are and --suite I
 * runs the I-th alone (0-based), so that a slow build (ASan) can run them
 * side by side, one process each (.ci/sanitizers). */
int main(int argc, char **argv) {
  size_t first = 0, last = NSUITES;
  if (argc == 2 && !strcmp(argv[1], "--count")) {
    printf("%zu\n", NSUITES);
    return EXIT_SUCCESS;
  }
  if (argc == 3 && !strcmp(argv[1], "--suite")) {
    char *end;
    unsigned long i = strtoul(argv[2], &end, 10);
    if (end == argv[2] || *end || argv[2][0] == '-' || i >= NSUITES) {
      fprintf(stderr, "check_kgate: --suite takes a number from 0 to %zu\n", NSUITES - 1);
      return 2;
    }
    first = i, last = i + 1;
  } else if (argc != 1) {
    fprintf(stderr, "usage: check_kgate [--count | --suite I]\n");
    return 2;
  }
  SRunner *sr = srunner_create(k_suites[first]());
  for (size_t i = first + 1; i < last; i++) srunner_add_suite(sr, k_suites[i]());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
