/* check_kgate: every CUDA-free suite in one runner (Check's check_check_main.c). */
#include <check.h>
#include <stdlib.h>

Suite *make_sizes_suite(void);
Suite *make_dtype_suite(void);
Suite *make_pattern_suite(void);
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
Suite *make_lint_suite(void);

int main(void) {
  SRunner *sr = srunner_create(make_sizes_suite());
  srunner_add_suite(sr, make_dtype_suite());
  srunner_add_suite(sr, make_progress_suite());
  srunner_add_suite(sr, make_lint_suite());
  srunner_add_suite(sr, make_pattern_suite());
  srunner_add_suite(sr, make_reference_suite());
  srunner_add_suite(sr, make_registry_suite());
  srunner_add_suite(sr, make_plan_suite());
  srunner_add_suite(sr, make_model_suite());
  srunner_add_suite(sr, make_proto_suite());
  srunner_add_suite(sr, make_cli_suite());
  srunner_add_suite(sr, make_supervisor_suite());
  srunner_add_suite(sr, make_stats_suite());
  srunner_add_suite(sr, make_paired_suite());
  srunner_add_suite(sr, make_results_suite());
  srunner_add_suite(sr, make_baseline_suite());
  srunner_add_suite(sr, make_verdict_suite());
  srunner_add_suite(sr, make_export_suite());
  srunner_add_suite(sr, make_selftest_suite());
  srunner_add_suite(sr, make_report_suite());
  srunner_add_suite(sr, make_history_suite());
  srunner_add_suite(sr, make_plot_suite());
  srunner_add_suite(sr, make_html_suite());
  srunner_add_suite(sr, make_merge_suite());
  srunner_add_suite(sr, make_escape_suite());
  srunner_add_suite(sr, make_validate_suite());
  srunner_add_suite(sr, make_fileio_suite());
  srunner_add_suite(sr, make_module_suite());
  srunner_add_suite(sr, make_pairrun_suite());
  srunner_add_suite(sr, make_proc_suite());
  srunner_add_suite(sr, make_label_suite());
  srunner_add_suite(sr, make_nightly_suite());
  srunner_add_suite(sr, make_suggest_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
