/* cli: argument parsing and the exit codes of the commands. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "testutil.h"

START_TEST(test_cli_no_args_is_help) {
  char *argv[] = {"kgate", NULL};
  kg_cli cli;
  char err[256] = "";
  ck_assert_int_eq(kg_cli_parse(1, argv, &cli, err, sizeof err), 0);
  ck_assert_int_eq(cli.cmd, KG_CMD_HELP);
  kg_cli_free(&cli);
}
END_TEST

START_TEST(test_cli_check_defaults) {
  kg_cli cli;
  char err[256];
  ck_assert_int_eq(kgt_parse((char *[]){"check", NULL}, &cli, err, sizeof err), 0);
  ck_assert_int_eq(cli.cmd, KG_CMD_CHECK);
  ck_assert_uint_eq(cli.seed, 1);
  ck_assert_int_eq(cli.repeats, 3);
  ck_assert_double_eq(cli.timeout_s, 60);
  ck_assert_int_eq(cli.device, 0);
  ck_assert(!cli.variants && !cli.dtypes && !cli.patterns && !cli.sizes && !cli.worker);
  ck_assert(!cli.quiet && !cli.verbose && cli.nsizes == 0);
  kg_cli_free(&cli);
}
END_TEST

static const struct {
  char *args[4];
  kg_command cmd;
} k_commands[] = {
    {{"list"}, KG_CMD_LIST},          {{"--list"}, KG_CMD_LIST},     {{"--version"}, KG_CMD_VERSION},
    {{"help"}, KG_CMD_HELP},          {{"-h"}, KG_CMD_HELP},         {{"--help"}, KG_CMD_HELP},
    {{"check", "-h"}, KG_CMD_HELP},   {{"check", "-q", "--help"}, KG_CMD_HELP},
    {{"check"}, KG_CMD_CHECK},        {{"worker", "-d", "3"}, KG_CMD_WORKER},
    {{"run"}, KG_CMD_RUN},            {{"compare", "a.json", "b.json"}, KG_CMD_COMPARE},
    {{"baseline", "update", "r.json"}, KG_CMD_BASELINE},
};

START_TEST(test_cli_commands) {
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse(k_commands[_i].args, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(cli.cmd, k_commands[_i].cmd);
  if (cli.cmd == KG_CMD_WORKER) ck_assert_int_eq(cli.device, 3);
  kg_cli_free(&cli);
}
END_TEST

/* Every option with a value; loop index 0: "--opt value", 1: "--opt=value". */
START_TEST(test_cli_options) {
  static const char *const opts[][2] = {
      {"--variant", "cub_sum,two_pass"}, {"--dtype", "f32,bf16"}, {"--pattern", "nan"},
      {"--sizes", "1,2^22-1,32M"},       {"--seed", "18446744073709551615"},
      {"--repeat", "100"},               {"--timeout", "0.5"},      {"--device", "7"},
      {"--worker", "/opt/kgate"},
  };
  char *args[KGT_MAXARGS + 1] = {"check"}, joined[9][64];
  int k = 1;
  for (int i = 0; i < 9; i++) {
    if (_i) {
      snprintf(joined[i], sizeof joined[i], "%s=%s", opts[i][0], opts[i][1]);
      args[k++] = joined[i];
    } else {
      args[k++] = (char *)opts[i][0], args[k++] = (char *)opts[i][1];
    }
  }
  args[k++] = "-v", args[k++] = "-q", args[k] = NULL;
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse(args, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(cli.cmd, KG_CMD_CHECK);
  ck_assert_str_eq(cli.variants, "cub_sum,two_pass");
  ck_assert_str_eq(cli.dtypes, "f32,bf16");
  ck_assert_str_eq(cli.patterns, "nan");
  ck_assert_uint_eq(cli.nsizes, 3);
  ck_assert(cli.sizes[0] == 1 && cli.sizes[1] == (1u << 22) - 1 && cli.sizes[2] == 1u << 25);
  ck_assert_uint_eq(cli.seed, UINT64_MAX);
  ck_assert_int_eq(cli.repeats, 100);
  ck_assert_double_eq(cli.timeout_s, 0.5);
  ck_assert_int_eq(cli.device, 7);
  ck_assert_str_eq(cli.worker, "/opt/kgate");
  ck_assert(cli.verbose && cli.quiet);
  kg_cli_free(&cli);
  ck_assert_ptr_null(cli.sizes);
}
END_TEST

START_TEST(test_cli_short_and_repeated) {
  kg_cli cli;
  char err[256];
  char *args[] = {"check", "-d", "2", "--sizes", "1,2,3", "--quiet", "--verbose", "--sizes=9", "--seed", "0", NULL};
  ck_assert_msg(kgt_parse(args, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(cli.device, 2);
  ck_assert_uint_eq(cli.nsizes, 1); /* the last --sizes wins */
  ck_assert_uint_eq(cli.sizes[0], 9);
  ck_assert_uint_eq(cli.seed, 0);
  ck_assert(cli.quiet && cli.verbose);
  kg_cli_free(&cli);
}
END_TEST

static const struct {
  char *args[6];
  const char *message;
} k_bad[] = {
    {{"frobnicate"}, "unrecognized argument 'frobnicate' (try --help)"},
    {{"check", "x"}, "unrecognized argument 'x' (try --help)"},
    {{"check", "--bogus"}, "unrecognized argument '--bogus' (try --help)"},
    {{"check", "--bogus=1"}, "unrecognized argument '--bogus=1' (try --help)"},
    {{"check", "-d=1"}, "unrecognized argument '-d=1'"},
    {{"list", "--variant", "cub_sum"}, "unrecognized argument '--variant'"},
    {{"list", "-v"}, "unrecognized argument '-v'"},
    {{"worker", "--sizes", "1"}, "unrecognized argument '--sizes'"},
    {{"check", "--variant"}, "option '--variant' needs a value"},
    {{"check", "--seed="}, "option '--seed' needs a value"},
    {{"check", "-d"}, "option '-d' needs a value"},
    {{"check", "--verbose=1"}, "option '--verbose' takes no value"},
    {{"check", "--seed", "-1"}, "bad value '-1' for --seed"},
    {{"check", "--seed", "12x"}, "bad value '12x' for --seed"},
    {{"check", "--seed", "18446744073709551616"}, "bad value '18446744073709551616' for --seed"},
    {{"check", "--repeat", "0"}, "bad value '0' for --repeat"},
    {{"check", "--repeat=101"}, "bad value '101' for --repeat"},
    {{"check", "--repeat", "two"}, "bad value 'two' for --repeat"},
    {{"check", "--timeout", "0"}, "bad value '0' for --timeout"},
    {{"check", "--timeout", "-5"}, "bad value '-5' for --timeout"},
    {{"check", "--timeout", "nan"}, "bad value 'nan' for --timeout"},
    {{"check", "--timeout", "inf"}, "bad value 'inf' for --timeout"},
    {{"check", "--timeout", "5s"}, "bad value '5s' for --timeout"},
    {{"check", "--device", "1024"}, "bad value '1024' for --device"},
    {{"check", "-d", "-1"}, "bad value '-1' for -d"},
    {{"check", "--sizes", "abc"}, "bad size 'abc'"},
    {{"check", "--sizes=1,,2"}, "bad size ''"},
    {{"check", "--hot"}, "unrecognized argument '--hot'"},
    {{"check", "--perf-sizes", "1"}, "unrecognized argument '--perf-sizes'"},
    {{"run", "--perf-sizes", "2^99"}, "bad size '2^99'"},
    {{"run", "--min-samples", "2"}, "bad value '2' for --min-samples"},
    {{"run", "--max-noise", "0"}, "bad value '0' for --max-noise"},
    {{"run", "extra"}, "unrecognized argument 'extra'"},
    {{"compare", "a.json"}, "compare needs two files"},
    {{"compare", "a", "b", "c"}, "unrecognized argument 'c'"},
    {{"compare", "a", "b", "--json", "x"}, "unrecognized argument '--json'"},
    {{"baseline"}, "expected 'kgate baseline update RESULTS.json'"},
    {{"baseline", "refresh", "r.json"}, "expected 'kgate baseline update RESULTS.json'"},
    {{"baseline", "update"}, "baseline needs a results file"},
    {{"worker", "--roofline=1"}, "option '--roofline' takes no value"},
    {{"check", "--shard", "0/2"}, "bad value '0/2' for --shard (expected i/N with 1 <= i <= N)"},
    {{"run", "--shard", "3/2"}, "bad value '3/2' for --shard (expected i/N with 1 <= i <= N)"},
    {{"check", "--shard", "x"}, "bad value 'x' for --shard (expected i/N with 1 <= i <= N)"},
    {{"check", "--devices", "0,0"}, "bad value '0,0' for --devices"},
    {{"check", "--devices", "0,,1"}, "bad value '0,,1' for --devices"},
    {{"check", "--devices", "some"}, "bad value 'some' for --devices"},
    {{"check", "--tier", "big"}, "bad value 'big' for --tier (expected huge)"},
    {{"compare", "a.json", "b.json", "--shard", "1/2"}, "unrecognized argument '--shard'"},
    {{"merge", "a.json", "-o", "x.json"}, "merge needs two or more results files"},
    {{"merge", "a.json", "b.json"}, "merge needs -o ALL.json"},
};

/* --shard, --devices, --tier and merge as parsed. */
START_TEST(test_cli_multi_options) {
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse((char *[]){"run", "--shard", "2/3", "--devices", "0,2,5", "--tier", "huge", NULL}, &cli,
                          err, sizeof err) == 0, "%s", err);
  ck_assert(cli.shard_i == 2 && cli.shard_n == 3 && cli.tier_huge && !cli.devices_all);
  ck_assert_int_eq(cli.ndevices, 3);
  ck_assert(cli.devices[0] == 0 && cli.devices[1] == 2 && cli.devices[2] == 5);
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"check", "--devices=all", NULL}, &cli, err, sizeof err), 0);
  ck_assert(cli.devices_all && cli.ndevices == 0 && cli.shard_n == 0 && !cli.tier_huge);
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"merge", "a.json", "b.json", "c.json", "-o", "all.json", NULL}, &cli, err,
                             sizeof err), 0);
  ck_assert_int_eq(cli.cmd, KG_CMD_MERGE);
  ck_assert_int_eq(cli.nargs, 3);
  ck_assert_str_eq(cli.args[2], "c.json");
  ck_assert_str_eq(cli.merge_out, "all.json");
  kg_cli_free(&cli);
}
END_TEST

START_TEST(test_cli_rejects) {
  kg_cli cli;
  char err[256];
  ck_assert_int_eq(kgt_parse(k_bad[_i].args, &cli, err, sizeof err), KG_EXIT_USAGE);
  ck_assert_msg(strstr(err, k_bad[_i].message) != NULL, "message '%s' lacks \"%s\"", err, k_bad[_i].message);
  kg_cli_free(&cli);
}
END_TEST

/* The gate's own options, and what each command refuses. */
START_TEST(test_cli_run_options) {
  kg_cli cli;
  char err[256];
  char *args[] = {"kgate", "run", "--perf-sizes", "2^22,1M", "--hot", "--max-noise", "1.5", "--min-samples", "20",
                  "--max-seconds", "0.5", "--tolerance", "7", "--baseline-dir", "/tmp/b", "--json", "r.json",
                  "--csv", "-", "--junit", "j.xml", "--markdown", "m.md", NULL};
  ck_assert_msg(kg_cli_parse(23, args, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(cli.cmd, KG_CMD_RUN);
  ck_assert(cli.nperf == 2 && cli.perf_sizes[0] == 1u << 22 && cli.perf_sizes[1] == 1u << 20);
  ck_assert(cli.time.hot && cli.time.min_samples == 20);
  ck_assert_double_eq_tol(cli.time.max_noise, 0.015, 1e-12);
  ck_assert_double_eq(cli.time.max_seconds, 0.5);
  ck_assert_double_eq(cli.tolerance_pct, 7);
  ck_assert_str_eq(cli.baseline_dir, "/tmp/b");
  ck_assert(!strcmp(cli.json, "r.json") && !strcmp(cli.csv, "-") && !strcmp(cli.junit, "j.xml") && !strcmp(cli.markdown, "m.md"));
  kg_cli_free(&cli);
  char *cmp[] = {"kgate", "compare", "old.json", "new.json", "--tolerance=4", NULL};
  ck_assert_msg(kg_cli_parse(5, cmp, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert(cli.nargs == 2 && !strcmp(cli.args[0], "old.json") && !strcmp(cli.args[1], "new.json"));
  ck_assert_str_eq(cli.baseline_dir, "baselines"); /* the default */
  kg_cli_free(&cli);
}
END_TEST

START_TEST(test_cli_usage_text) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  kg_cli_usage(f);
  fclose(f);
  const char *must[] = {"usage: kgate", "--variant", "--sizes", "--repeat", "--device", "exit codes"};
  for (int i = 0; i < 6; i++) ck_assert_msg(strstr(text, must[i]), "usage lacks %s", must[i]);
  free(text);
}
END_TEST

/* kg_cli_run's exit codes, with the fake worker standing in for the GPU. */
static const struct {
  char *args[14];
  int code;
} k_runs[] = {
    {{"list"}, KG_EXIT_OK},
    {{"--version"}, KG_EXIT_OK},
    {{"check", "--variant", "nope"}, KG_EXIT_USAGE},
    {{"check", "--dtype", "i32", "--pattern", "nan"}, KG_EXIT_USAGE},
    {{"check", "--worker", "/nonexistent/kgate", "--variant", "cub_sum", "--dtype", "i32", "--sizes", "1"}, KG_EXIT_ENV},
    {{"check", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--sizes", "1,2,0", "-q"}, KG_EXIT_OK},
    {{"check", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--sizes", "1,13,2", "-q"}, KG_EXIT_FAIL},
    {{"check", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i64", "--sizes", "1,17", "--timeout", "0.2"}, KG_EXIT_FAIL},
};

START_TEST(test_cli_run_exit_codes) {
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse(k_runs[_i].args, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kgt_run_quiet(&cli), k_runs[_i].code);
  kg_cli_free(&cli);
}
END_TEST

#define N(a) (int)(sizeof a / sizeof a[0])

Suite *make_cli_suite(void) {
  Suite *s = suite_create("cli");
  TCase *core = tcase_create("Core");
  tcase_set_timeout(core, 30);
  tcase_add_test(core, test_cli_no_args_is_help);
  tcase_add_test(core, test_cli_check_defaults);
  tcase_add_loop_test(core, test_cli_commands, 0, N(k_commands));
  tcase_add_loop_test(core, test_cli_options, 0, 2);
  tcase_add_test(core, test_cli_run_options);
  tcase_add_test(core, test_cli_multi_options);
  tcase_add_test(core, test_cli_usage_text);
  tcase_add_loop_test(core, test_cli_run_exit_codes, 0, N(k_runs));
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_test(limits, test_cli_short_and_repeated);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_cli_rejects, 0, N(k_bad));
  suite_add_tcase(s, errors);
  return s;
}
