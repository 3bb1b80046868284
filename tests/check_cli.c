/* cli: argument parsing and the exit codes of the commands. */
#include <check.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sanrun.h"
#include "settings.h"
#include "publish.h"
#include "refpin.h"
#include "varreg.h"
#include "results.h"
#include "testutil.h"

static void data_path(const char *name, char *buf, size_t len);

/* A parsed command's own settings. */
#define GATE(cli) ((kg_gate_opts *)(cli).settings)
#define CMP(cli) ((kg_compare_opts *)(cli).settings)

/* `kgate $CMD` with an empty $CMD: a usage error, not a help request that passes CI. */
START_TEST(test_cli_no_args_exits_2) {
  char *argv[] = {"kgate", NULL};
  kg_cli cli;
  char err[256] = "";
  ck_assert_int_eq(kg_cli_parse(1, argv, &cli, err, sizeof err), KG_EXIT_USAGE);
  ck_assert_str_eq(err, "no command given (usage: kgate <command> [options]; try --help)");
  kg_cli_free(&cli);
}
END_TEST

START_TEST(test_cli_check_defaults) {
  kg_cli cli;
  char err[256];
  ck_assert_int_eq(kgt_parse((char *[]){"check", NULL}, &cli, err, sizeof err), 0);
  ck_assert_int_eq(cli.cmd, KG_CMD_CHECK);
  ck_assert_uint_eq(GATE(cli)->seed, 1);
  ck_assert_int_eq(GATE(cli)->repeats, 3);
  ck_assert_double_eq(GATE(cli)->timeout_s, 60);
  ck_assert_int_eq(GATE(cli)->device, 0);
  ck_assert(!GATE(cli)->plan.variants && !GATE(cli)->plan.dtypes && !GATE(cli)->plan.patterns && !GATE(cli)->plan.sizes);
  ck_assert(!GATE(cli)->mods.worker);
  ck_assert(!GATE(cli)->quiet && !GATE(cli)->verbose && GATE(cli)->plan.nsizes == 0);
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
  if (cli.cmd == KG_CMD_WORKER) ck_assert_int_eq(((kg_worker_opts *)cli.settings)->device, 3);
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
  ck_assert_str_eq(GATE(cli)->plan.variants, "cub_sum,two_pass");
  ck_assert_str_eq(GATE(cli)->plan.dtypes, "f32,bf16");
  ck_assert_str_eq(GATE(cli)->plan.patterns, "nan");
  ck_assert_uint_eq(GATE(cli)->plan.nsizes, 3);
  const size_t *sizes = GATE(cli)->plan.sizes;
  ck_assert(sizes[0] == 1 && sizes[1] == (1u << 22) - 1 && sizes[2] == 1u << 25);
  ck_assert_uint_eq(GATE(cli)->seed, UINT64_MAX);
  ck_assert_int_eq(GATE(cli)->repeats, 100);
  ck_assert_double_eq(GATE(cli)->timeout_s, 0.5);
  ck_assert_int_eq(GATE(cli)->device, 7);
  ck_assert_str_eq(GATE(cli)->mods.worker, "/opt/kgate");
  ck_assert(GATE(cli)->verbose && GATE(cli)->quiet);
  kg_cli_free(&cli);
  ck_assert_ptr_null(cli.settings); /* the settings, their size lists with them */
}
END_TEST

START_TEST(test_cli_short_and_repeated) {
  kg_cli cli;
  char err[256];
  char *args[] = {"check", "-d", "2", "--sizes", "1,2,3", "--quiet", "--verbose", "--sizes=9", "--seed", "0", NULL};
  ck_assert_msg(kgt_parse(args, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(GATE(cli)->device, 2);
  ck_assert_uint_eq(GATE(cli)->plan.nsizes, 1); /* the last --sizes wins */
  ck_assert_uint_eq(GATE(cli)->plan.sizes[0], 9);
  ck_assert_uint_eq(GATE(cli)->seed, 0);
  ck_assert(GATE(cli)->quiet && GATE(cli)->verbose);
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
    {{"list", "--variant", "cub_sum"}, "'--variant' is an option of check, run, bisect, not of list (try kgate help list)"},
    {{"list", "-v"}, "'-v' is an option of check, run, not of list"},
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
    {{"check", "--hot"}, "'--hot' is an option of run, not of check"},
    {{"check", "--perf-sizes", "1"}, "'--perf-sizes' is an option of run, not of check (try kgate help check)"},
    {{"run", "--perf-sizes", "2^99"}, "bad size '2^99'"},
    {{"run", "--min-samples", "2"}, "bad value '2' for --min-samples"},
    {{"run", "--max-noise", "0"}, "bad value '0' for --max-noise"},
    {{"run", "extra"}, "unrecognized argument 'extra'"},
    {{"compare", "a.json"}, "compare needs two files"},
    {{"compare", "a", "b", "c"}, "unrecognized argument 'c'"},
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
    {{"compare", "a.json", "b.json", "--shard", "1/2"}, "'--shard' is an option of check, run, not of compare"},
    {{"merge", "a.json", "-o", "x.json"}, "merge needs two or more results files"},
    {{"merge", "a.json", "b.json"}, "merge needs -o ALL.json"},
    {{"chek"}, "unrecognized argument 'chek'; did you mean 'check'? (try --help)"},
    {{"histroy", "add"}, "did you mean 'history'?"},
    {{"check", "--vrebose"}, "unrecognized argument '--vrebose'; did you mean '--verbose'? (try --help)"},
    {{"run", "--perf-sizez=1"}, "did you mean '--perf-sizes'?"},
    {{"check", "--jsn", "r.json"}, "did you mean '--json'?"},
    {{"check", "--zzzzzz"}, "unrecognized argument '--zzzzzz' (try --help)"},
    {{"help", "chek"}, "unrecognized argument 'chek'; did you mean 'check'?"},
    {{"help", "frobnicate"}, "unrecognized argument 'frobnicate' (try --help)"},
    {{"check", "-vx"}, "unrecognized argument '-vx'"},
    {{"check", "-dv", "1"}, "unrecognized argument '-dv'"},
    {{"check", "-vo", "x"}, "'-o' is an option of plot, history plot, merge, not of check"},
    {{"check", "--", "-v"}, "unrecognized argument '-v'"},
    /* did you mean: sub-commands, a command's own options first, the values of a fixed vocabulary */
    {{"history", "chek", "h.jsonl"}, "unrecognized argument 'chek'; did you mean 'check'? (try kgate history --help)"},
    {{"history", "ad"}, "unrecognized argument 'ad'; did you mean 'add'? (try kgate history --help)"},
    {{"baseline", "updat", "r.json"}, "unrecognized argument 'updat'; did you mean 'update'? (try kgate baseline --help)"},
    {{"history", "frobnicate"}, "expected 'kgate history add RESULTS.json --file HISTORY.jsonl' or"},
    {{"list", "--kernles", "a.so"}, "unrecognized argument '--kernles'; did you mean '--kernels'? (try --help)"},
    {{"list", "--kernles=a.so"}, "unrecognized argument '--kernles=a.so'; did you mean '--kernels'?"},
    {{"compare", "a", "b", "--j", "x"}, "ambiguous option '--j': --json, --junit (try kgate help compare)"},
    {{"check", "--dev", "0"}, "ambiguous option '--dev': --device, --devices (try kgate help check)"},
    {{"lint", "--kernels", "a.so"}, "did you mean '--kernel'?"},
    {{"check", "--dtype", "F32"}, "unknown dtype 'F32'; did you mean 'f32'? (see --help)"},
    {{"run", "--dtype", "i32,BF16"}, "unknown dtype 'BF16'; did you mean 'bf16'? (see --help)"},
    {{"check", "--dtype", "f128"}, "unknown dtype 'f128' (see --help)"},
    {{"check", "--dtype", "i32,"}, "unknown dtype '' (see --help)"},
    {{"check", "--pattern", "exact,nann"}, "unknown pattern 'nann'; did you mean 'nan'? (see --help)"},
    {{"check", "--sanitize", "memchek"}, "unknown sanitizer tool 'memchek'; did you mean 'memcheck'? (memcheck,"},
    {{"compare", "a", "b", "--missing", "alow"}, "bad value 'alow' for --missing; did you mean 'allow'? (expected allow or fail)"},
    {{"compare", "a", "b", "--sort", "chnge"}, "unknown --sort key 'chnge'; did you mean 'change'? (see --help)"},
    {{"compare", "a", "b", "--sort", "name,change"}, "bad value 'name,change' for --sort"},
    {{"check", "--lint", "offf"}, "bad value 'offf' for --lint; did you mean 'off'? (expected on or off)"},
};

/* bisect is a GPU command (its paired runs are this kgate's run) unless
 * --kgate names the kgate that runs them; its repeatable lists refuse a path
 * twice, and its rows' ranges hold. */
START_TEST(test_cli_bisect_rows) {
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse((char *[]){"bisect", "--good", "a", "--bad", "b", NULL}, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(cli.cmd, KG_CMD_BISECT);
  ck_assert(kg_cli_needs_gpu(&cli));
  kg_cli_free(&cli);
  ck_assert_msg(kgt_parse((char *[]){"bisect", "--kgate", "k", "--source", "a", "--source", "b", "-qd", "3", NULL}, &cli,
                          err, sizeof err) == 0,
                "%s", err);
  ck_assert(!kg_cli_needs_gpu(&cli));
  kg_cli_free(&cli);
  kgt_assert_rejected((char *[]){"bisect", "--source", "a", "--source", "a", NULL}, "--source a given twice");
  kgt_assert_rejected((char *[]){"bisect", "--rounds", "1", NULL}, "bad value '1' for --rounds (see --help)");
  kgt_assert_rejected((char *[]){"bisect", "--effect", "0", NULL}, "bad value '0' for --effect (see --help)");
  /* a near option of its own first; another command's option only where none is near */
  kgt_assert_rejected((char *[]){"bisect", "--sizes", "1", NULL},
                      "unrecognized argument '--sizes'; did you mean '--size'? (try --help)");
  kgt_assert_rejected((char *[]){"bisect", "--perf-sizes", "1", NULL},
                      "'--perf-sizes' is an option of run, not of bisect (try kgate help bisect)");
  ck_assert_msg(kgt_parse((char *[]){"bisect", "--help", NULL}, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(cli.cmd, KG_CMD_HELP);
  kg_cli_free(&cli);
}
END_TEST

/* The defaults come from options.def's rows (kg_cli_parse sets them before it
 * reads argv): each one, and what the help says it is. An OPT_PCT default is
 * in percent, like its help, and kept as the fraction --max-noise 0.5 gives. */
START_TEST(test_cli_row_defaults) {
  kg_cli cli, given;
  char err[256];
  ck_assert_msg(kgt_parse((char *[]){"run", NULL}, &cli, err, sizeof err) == 0, "%s", err);
  const kg_gate_opts *g = GATE(cli);
  ck_assert(g->seed == 1 && g->repeats == 3 && g->timeout_s == 60 && g->device == 0);
  ck_assert(g->time.min_samples == 10 && g->time.max_seconds == 2 && !g->time.hot);
  ck_assert(g->paired.rounds == 2 && g->paired.max_rounds == 12 && g->paired.budget_s == 10);
  ck_assert(g->paired.pair.copies == 4 && g->paired.pair.max_seconds == 0.1 && g->paired.min_effect_pct == 0);
  ck_assert(g->paired.pair.quads == 32 && g->tolerance_pct == 0 && !g->mods.own && !g->sanitize);
  ck_assert(!strcmp(g->baseline_dir, "baselines") && !g->plots && g->timing);
  ck_assert_msg(kgt_parse((char *[]){"run", "--max-noise", "0.5", NULL}, &given, err, sizeof err) == 0, "%s", err);
  ck_assert_double_eq(g->time.max_noise, 0.005);
  ck_assert_double_eq(g->time.max_noise, GATE(given)->time.max_noise);
  kg_cli_free(&given);
  kg_cli_free(&cli);
}
END_TEST

/* A row's range and kind decide what a value may be. A refused number gets
 * the one "bad value" message with the name as typed; a choice names its
 * words. NULL: accepted, at the edge of its range. */
static const struct {
  char *args[7];
  const char *message;
} k_row_values[] = {
    {{"run", "--rounds", "1"}, "bad value '1' for --rounds (see --help)"}, /* OPT_INT: below lo */
    {{"run", "--rounds", "2"}, NULL},
    {{"run", "--max-rounds=64"}, NULL},
    {{"run", "--max-rounds=65"}, "bad value '65' for --max-rounds (see --help)"}, /* past hi */
    {{"selftest", "--copies", "8"}, NULL},
    {{"selftest", "--copies", "9"}, "bad value '9' for --copies (see --help)"}, /* hi: KG_PAIR_MAX_COPIES */
    {{"selftest", "--copies", "4x"}, "bad value '4x' for --copies (see --help)"}, /* a number and nothing after */
    {{"check", "-d", "1023"}, NULL},
    {{"check", "-d", "1024"}, "bad value '1024' for -d (see --help)"},
    {{"history", "calibrate", "h.jsonl", "--seed", "18446744073709551615"}, NULL}, /* OPT_U64: the whole range */
    {{"history", "calibrate", "h.jsonl", "--seed", "18446744073709551616"},
     "bad value '18446744073709551616' for --seed (see --help)"},
    {{"run", "--max-seconds", "3600"}, NULL}, /* OPT_POS: (0, max] */
    {{"run", "--max-seconds", "3600.5"}, "bad value '3600.5' for --max-seconds (see --help)"},
    {{"run", "--cell-seconds", "0"}, "bad value '0' for --cell-seconds (see --help)"},
    {{"run", "--max-noise", "100"}, NULL}, /* OPT_PCT: the range is in percent */
    {{"run", "--max-noise", "100.5"}, "bad value '100.5' for --max-noise (see --help)"},
    {{"compare", "a", "b", "--missing", "fail"}, NULL},
    {{"compare", "a", "b", "--missing", "maybe"}, "bad value 'maybe' for --missing (expected allow or fail)"},
    {{"run", "--tier=Huge"}, "bad value 'Huge' for --tier; did you mean 'huge'? (expected huge)"}, /* OPT_CHOICE: exact words, a near one named */
};

START_TEST(test_cli_row_values) {
  kg_cli cli;
  char err[256] = "";
  int code = kgt_parse(k_row_values[_i].args, &cli, err, sizeof err);
  if (k_row_values[_i].message) {
    ck_assert_int_eq(code, KG_EXIT_USAGE);
    ck_assert_str_eq(err, k_row_values[_i].message);
  } else {
    ck_assert_msg(code == 0, "%s", err);
  }
  kg_cli_free(&cli);
}
END_TEST

/* Values at their rows' edges land in their targets as given (an OPT_PCT's
 * divided by 100), and a choice's other word sets 0. */
START_TEST(test_cli_row_targets) {
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse((char *[]){"run", "--max-rounds", "64", "--copies", "8", "--max-seconds", "3600", "--max-noise",
                                     "100", "--cell-seconds=60", "--min-samples", "3", "--own-kernels", "o.so", NULL},
                          &cli, err, sizeof err) == 0, "%s", err);
  const kg_gate_opts *g = GATE(cli);
  ck_assert(g->paired.max_rounds == 64 && g->paired.pair.copies == 8 && g->time.min_samples == 3);
  ck_assert(g->time.max_seconds == 3600 && g->time.max_noise == 1 && g->paired.pair.max_seconds == 60);
  ck_assert_str_eq(g->mods.own, "o.so"); /* the worker's --own-kernels too (main.c) */
  kg_cli_free(&cli);
  ck_assert_msg(kgt_parse((char *[]){"compare", "a", "b", "--missing", "allow", "--missing", "fail", NULL}, &cli, err,
                          sizeof err) == 0, "%s", err);
  ck_assert_int_eq(CMP(cli)->allow_missing, 0);
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"compare", "a", "b", "--missing=allow", NULL}, &cli, err, sizeof err), 0);
  ck_assert_int_eq(CMP(cli)->allow_missing, 1);
  kg_cli_free(&cli);
}
END_TEST

/* --shard, --devices, --tier and merge as parsed. */
START_TEST(test_cli_multi_options) {
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse((char *[]){"run", "--shard", "2/3", "--devices", "0,2,5", "--tier", "huge", NULL}, &cli,
                          err, sizeof err) == 0, "%s", err);
  ck_assert(GATE(cli)->shard_i == 2 && GATE(cli)->shard_n == 3 && GATE(cli)->tier_huge && !GATE(cli)->devices_all);
  ck_assert_int_eq(GATE(cli)->ndevices, 3);
  ck_assert(GATE(cli)->devices[0] == 0 && GATE(cli)->devices[1] == 2 && GATE(cli)->devices[2] == 5);
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"check", "--devices=all", NULL}, &cli, err, sizeof err), 0);
  ck_assert(GATE(cli)->devices_all && GATE(cli)->ndevices == 0 && GATE(cli)->shard_n == 0 && !GATE(cli)->tier_huge);
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"merge", "a.json", "b.json", "c.json", "-o", "all.json", NULL}, &cli, err,
                             sizeof err), 0);
  ck_assert_int_eq(cli.cmd, KG_CMD_MERGE);
  ck_assert_int_eq(cli.nargs, 3);
  ck_assert_str_eq(cli.args[2], "c.json");
  ck_assert_str_eq(((kg_merge_opts *)cli.settings)->out, "all.json");
  kg_cli_free(&cli);
}
END_TEST

/* kg_cli_run hands each command its own options: the ones several commands
 * share (tolerance, baseline folder, reports, plots, modules, paired rounds)
 * must reach every command that takes them, and check must not time. */
START_TEST(test_cli_options_per_command) {
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse((char *[]){"run", "--tolerance", "7", "--baseline-dir", "b", "--plots", "p", "--json", "r.json",
                                     "--kernels", "a.so", "--base-kernels", "base.so", "--rounds", "3", NULL},
                          &cli, err, sizeof err) == 0, "%s", err);
  kg_gate_opts go = *GATE(cli);
  ck_assert(go.timing && go.tolerance_pct == 7 && !strcmp(go.baseline_dir, "b") && !strcmp(go.plots, "p"));
  ck_assert(!strcmp(go.reports[KG_FMT_JSON], "r.json") && !go.reports[KG_FMT_CSV]);
  ck_assert(go.mods.nkernels == 1 && !strcmp(go.mods.kernels[0], "a.so") && go.mods.nbase == 1);
  ck_assert(go.paired.rounds == 3 && go.paired.max_rounds == 12 && go.seed == 1);
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"check", NULL}, &cli, err, sizeof err), 0);
  go = *GATE(cli);
  ck_assert(!go.timing && !strcmp(go.baseline_dir, "baselines") && go.tolerance_pct == 0);
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"compare", "o.json", "n.json", "--tolerance", "4", "--plots", "p", "--csv", "c",
                                        NULL}, &cli, err, sizeof err), 0);
  kg_compare_opts co = *CMP(cli);
  ck_assert(!strcmp(cli.args[0], "o.json") && !strcmp(cli.args[1], "n.json") && co.tolerance_pct == 4);
  ck_assert(!strcmp(co.plots, "p") && !strcmp(co.reports[KG_FMT_CSV], "c") && !co.reports[KG_FMT_JSON]);
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"selftest", "--only", "m", "--huge", "-d", "2", "--timeout", "5", "-q",
                                        "--kernels", "a.so", "--rounds", "4", "--worker", "w", NULL}, &cli, err, sizeof err), 0);
  kg_selftest_opts so = *(kg_selftest_opts *)cli.settings;
  ck_assert(!strcmp(so.only, "m") && so.huge && so.device == 2 && so.timeout_s == 5 && so.quiet);
  ck_assert(so.mods.nkernels == 1 && !strcmp(so.mods.worker, "w") && so.paired.rounds == 4);
  kg_cli_free(&cli);
  /* a command's own default beats the shared row's: selftest 20 s, check 60 s; --timeout 60 is 60 */
  double timeouts[3];
  char *const forms[3][4] = {{"selftest", NULL}, {"selftest", "--timeout", "60", NULL}, {"check", NULL}};
  for (int k = 0; k < 3; k++) {
    ck_assert_int_eq(kgt_parse(forms[k], &cli, err, sizeof err), 0);
    timeouts[k] = k < 2 ? ((kg_selftest_opts *)cli.settings)->timeout_s : ((kg_gate_opts *)cli.settings)->timeout_s;
    kg_cli_free(&cli);
  }
  ck_assert(timeouts[0] == 20 && timeouts[1] == 60 && timeouts[2] == 60);
  ck_assert_int_eq(kgt_parse((char *[]){"history", "plot", "h.jsonl", "--tolerance", "5", "--baseline-dir", "d", NULL},
                             &cli, err, sizeof err), 0);
  kg_publish_opts po = *(kg_publish_opts *)cli.settings;
  ck_assert(!strcmp(cli.args[0], "h.jsonl") && po.tolerance_pct == 5 && !strcmp(po.baseline_dir, "d"));
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
  const kg_plan_opts *plan = &GATE(cli)->plan;
  ck_assert(plan->nperf == 2 && plan->perf_sizes[0] == 1u << 22 && plan->perf_sizes[1] == 1u << 20);
  ck_assert(GATE(cli)->time.hot && GATE(cli)->time.min_samples == 20);
  ck_assert_double_eq_tol(GATE(cli)->time.max_noise, 0.015, 1e-12);
  ck_assert_double_eq(GATE(cli)->time.max_seconds, 0.5);
  ck_assert_double_eq(GATE(cli)->tolerance_pct, 7);
  ck_assert_str_eq(GATE(cli)->baseline_dir, "/tmp/b");
  const char *const *r = GATE(cli)->reports;
  ck_assert(!strcmp(r[KG_FMT_JSON], "r.json") && !strcmp(r[KG_FMT_CSV], "-") && !strcmp(r[KG_FMT_JUNIT], "j.xml") &&
            !strcmp(r[KG_FMT_MD], "m.md"));
  kg_cli_free(&cli);
  char *cmp[] = {"kgate", "compare", "old.json", "new.json", "--tolerance=4", NULL};
  ck_assert_msg(kg_cli_parse(5, cmp, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert(cli.nargs == 2 && !strcmp(cli.args[0], "old.json") && !strcmp(cli.args[1], "new.json"));
  ck_assert(!CMP(cli)->plots && CMP(cli)->tolerance_pct == 4);
  kg_cli_free(&cli);
}
END_TEST

/* Bundled short flags and "--": -vq is -v -q; the last flag of a bundle may
 * take the next argument; after "--" every argument is positional. */
START_TEST(test_cli_bundles_and_end_of_options) {
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse((char *[]){"check", "-vq", NULL}, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert(GATE(cli)->verbose && GATE(cli)->quiet);
  kg_cli_free(&cli);
  ck_assert_msg(kgt_parse((char *[]){"check", "-qd", "5", NULL}, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert(GATE(cli)->quiet && !GATE(cli)->verbose && GATE(cli)->device == 5);
  kg_cli_free(&cli);
  ck_assert_msg(kgt_parse((char *[]){"compare", "--tolerance", "3", "--", "-old.json", "--new.json", NULL}, &cli, err,
                          sizeof err) == 0, "%s", err);
  ck_assert(cli.nargs == 2 && !strcmp(cli.args[0], "-old.json") && !strcmp(cli.args[1], "--new.json"));
  ck_assert_double_eq(CMP(cli)->tolerance_pct, 3);
  kg_cli_free(&cli);
}
END_TEST

/* What a command line prints on stdout (malloc'ed; stderr dropped, so the
 * log stays readable), asserting it exits 0. */
static char *stdout_of(char **args) {
  kg_cli cli;
  char err[256], *text = NULL;
  size_t len = 0;
  ck_assert_msg(kgt_parse(args, &cli, err, sizeof err) == 0, "%s", err);
  FILE *f = open_memstream(&text, &len), *saved = stdout, *null = fopen("/dev/null", "w"), *saved_err = stderr;
  ck_assert(f && null);
  stdout = f, stderr = null;
  int code = kg_cli_run(&cli);
  stdout = saved, stderr = saved_err;
  fclose(f);
  fclose(null);
  kg_cli_free(&cli);
  ck_assert_msg(code == KG_EXIT_OK, "exit %d: %s", code, text);
  return text;
}

/* The help a command line asks for: kgate help run and kgate run --help print
 * run's; kgate help history every history form's; kgate --help all. */
static char *help_text(char **args) {
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse(args, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(cli.cmd, KG_CMD_HELP);
  kg_cli_free(&cli);
  return stdout_of(args);
}

/* git's parse-options: a unique prefix of one of the command's long options
 * is that option, its value and messages under the whole name; --help's
 * prefix too; a short flag is never a prefix. */
START_TEST(test_cli_option_prefixes) {
  kg_cli cli;
  char err[256];
  ck_assert_int_eq(kgt_parse((char *[]){"compare", "o.json", "n.json", "--only", "--sort=ch", NULL}, &cli, err, sizeof err),
                   KG_EXIT_USAGE); /* --sort's value is not a prefix: only option names are */
  ck_assert_msg(strstr(err, "unknown --sort key 'ch'") != NULL, "%s", err);
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"compare", "o.json", "n.json", "--only", "--sort=change", "--tol", "4", NULL},
                             &cli, err, sizeof err), 0);
  kg_compare_opts co = *CMP(cli);
  ck_assert(co.only_changed && co.tolerance_pct == 4);
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"check", "--verb", "--pat=exact", NULL}, &cli, err, sizeof err), 0);
  ck_assert(GATE(cli)->verbose && !strcmp(GATE(cli)->plan.patterns, "exact"));
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"check", "--tim", NULL}, &cli, err, sizeof err), KG_EXIT_USAGE);
  ck_assert_str_eq(err, "option '--timeout' needs a value"); /* the whole name */
  kg_cli_free(&cli);
  ck_assert_int_eq(kgt_parse((char *[]){"merge", "a.json", "--he", NULL}, &cli, err, sizeof err), 0);
  ck_assert_int_eq(cli.cmd, KG_CMD_HELP);
  kg_cli_free(&cli);
}
END_TEST

/* git help --help: help's own help is the whole usage, exit 0. A leaf's
 * help says its own notes only: no other command's, in its options or its
 * exit codes; bisect's exit codes are its own. */
START_TEST(test_cli_help_leaf_notes) {
  kg_cli cli;
  char err[256];
  for (int k = 0; k < 2; k++) {
    ck_assert_int_eq(kgt_parse((char *[]){"help", k ? "-h" : "--help", NULL}, &cli, err, sizeof err), 0);
    kg_cli_free(&cli);
  }
  ck_assert_int_eq(kgt_run_cli((char *[]){"help", "--help", NULL}), KG_EXIT_OK);
  char *all = stdout_of((char *[]){"--help", NULL}), *own = stdout_of((char *[]){"help", "--help", NULL});
  ck_assert_str_eq(all, own);
  free(own);
  /* the whole help keeps every note */
  ck_assert(strstr(all, "(compare: the comparison chart)") && strstr(all, "merge: the merged file") &&
            strstr(all, "compare: a failed"));
  free(all);
  static const struct {
    const char *cmd[4], *has, *lacks[4];
  } k_leaf[] = {
      {{"help", "compare"}, "--plots DIR", {"(compare:", "lint:", "history plot", "bisect"}},
      {{"help", "compare"}, "draw the comparison chart into DIR", {"run's charts", NULL}},
      {{"help", "run"}, "draw the run's charts into DIR", {"(compare:", "lint:", "selftest 20", "history calibrate"}},
      {{"help", "merge"}, "the merged file", {"history plot", "where charts go", NULL}},
      {{"help", "plot"}, "where charts go (default .)", {"merge", "history plot", NULL}},
      {{"help", "history", "plot"}, "the band: a baseline", {"merge", "compare:", NULL}},
      {{"help", "selftest"}, "(default 20)", {"default 60", "compare", NULL}},
      {{"help", "check"}, "(default 60)", {"selftest", "run:", "compare:", "history calibrate"}},
      {{"help", "history", "calibrate"}, "the replays' seed (default 1)", {"input seed", "compare:", NULL}},
      {{"help", "bisect"}, "0 the culprit found", {"compare:", "performance regression only", NULL}},
      {{"help", "lint"}, "1 a finding", {"compare:", "no GPU", NULL}},
  };
  for (size_t i = 0; i < sizeof k_leaf / sizeof k_leaf[0]; i++) {
    char *text = stdout_of((char **)k_leaf[i].cmd);
    ck_assert_msg(strstr(text, k_leaf[i].has) != NULL, "kgate %s %s lacks '%s':\n%.3000s", k_leaf[i].cmd[1],
                  k_leaf[i].cmd[2] ? k_leaf[i].cmd[2] : "", k_leaf[i].has, text);
    for (int j = 0; j < 4 && k_leaf[i].lacks[j]; j++)
      ck_assert_msg(strstr(text, k_leaf[i].lacks[j]) == NULL, "kgate %s %s has '%s':\n%.3000s", k_leaf[i].cmd[1],
                    k_leaf[i].cmd[2] ? k_leaf[i].cmd[2] : "", k_leaf[i].lacks[j], text);
    free(text);
  }
}
END_TEST

START_TEST(test_cli_help_per_command) {
  char *a = help_text((char *[]){"run", "--help", NULL}), *b = help_text((char *[]){"help", "run", NULL});
  ck_assert_str_eq(a, b);
  ck_assert(strstr(a, "usage: kgate run [options]") && strstr(a, "--perf-sizes LIST") && strstr(a, "--json FILE"));
  ck_assert_msg(!strstr(a, "--only") && !strstr(a, "--html") && !strstr(a, "--roofline"), "run's help has others' options");
  free(a);
  free(b);
  a = help_text((char *[]){"check", "-h", NULL});
  ck_assert(strstr(a, "usage: kgate check [options]") && strstr(a, "--sanitize TOOLS") && !strstr(a, "--perf-sizes"));
  free(a);
  a = help_text((char *[]){"help", "history", NULL});
  ck_assert(strstr(a, "kgate history add") && strstr(a, "kgate history check") && strstr(a, "--summary FILE"));
  ck_assert(!strstr(a, "kgate run") && !strstr(a, "--variant"));
  /* a command group's --help: its sub-commands' usage, as kgate help GROUP prints it */
  b = help_text((char *[]){"history", "--help", NULL});
  ck_assert_str_eq(a, b);
  free(b);
  b = help_text((char *[]){"history", "-h", NULL});
  ck_assert_str_eq(a, b);
  free(b);
  free(a);
  a = help_text((char *[]){"baseline", "--help", NULL}), b = help_text((char *[]){"help", "baseline", NULL});
  ck_assert_str_eq(a, b);
  ck_assert(strstr(a, "usage: kgate baseline update RESULTS.json [options]") && strstr(a, "--baseline-dir DIR"));
  free(b);
  free(a);
  a = help_text((char *[]){"reference", "--help", NULL});
  ck_assert(strstr(a, "usage: kgate reference verify PINS.json MODULE.so [options]") && !strstr(a, "kgate history"));
  free(a);
  a = help_text((char *[]){"help", "history", "check", NULL});
  ck_assert(strstr(a, "kgate history check") && !strstr(a, "kgate history add"));
  free(a);
  a = help_text((char *[]){"compare", "x", "--help", NULL});
  ck_assert(strstr(a, "kgate compare OLD.json NEW.json") && strstr(a, "--missing allow|fail") && strstr(a, "every cell's verdict"));
  ck_assert_msg(!strstr(a, "--only LIST") && !strstr(a, "the results: every case"), "compare's help has others' options");
  free(a);
  a = help_text((char *[]){"help", "help", NULL}), b = help_text((char *[]){"help", NULL});
  ck_assert_str_eq(a, b); /* help has no options of its own: the whole usage */
  free(a);
  free(b);
  a = help_text((char *[]){"--help", NULL}); /* everything, each option with its commands */
  ck_assert(strstr(a, "--perf-sizes LIST") && strstr(a, "[run]") && strstr(a, "--only LIST") && strstr(a, "merge A.json"));
  ck_assert_msg(!strstr(a, "--roofline") && !strstr(a, "--describe"), "the worker's options are hidden");
  free(a);
}
END_TEST

/* --plan prints the plan and exits 0 without starting a worker: the worker
 * given does not exist, so any attempt to start it would exit 3. */
START_TEST(test_cli_plan_needs_no_worker) {
  char *text = stdout_of((char *[]){"check", "--plan", "--worker", "/nonexistent/kgate", "--variant", "cub_sum,two_pass",
                                    "--dtype", "i32", "--pattern", "exact", "--sizes", "1,2^20", "-v", NULL});
  ck_assert_msg(strstr(text, "plan: 4 cases (0 timed, 0 unsupported: reported, never run), 2 input groups\n"), "%s", text);
  ck_assert(strstr(text, "variants (2): two_pass cub_sum\n") && strstr(text, "sizes (2): 1 1048576\n"));
  ck_assert(strstr(text, "patterns: exact\n") && strstr(text, "  cub_sum i32 n=1048576 exact\n"));
  ck_assert(strstr(text, "estimated time on one GPU: about 2 s"));
  ck_assert_msg(!strstr(text, "not planned"), "%s", text);
  free(text);
  /* neighbored declares no f16 or bf16: those cases are not planned, and the plan says so */
  text = stdout_of((char *[]){"check", "--plan", "--worker", "/nonexistent/kgate", "--variant", "neighbored,cub_sum",
                              "--pattern", "exact", "--sizes", "1", NULL});
  ck_assert_msg(strstr(text, "plan: 10 cases (0 timed, 0 unsupported: reported, never run), 6 input groups\n"), "%s", text);
  ck_assert_msg(strstr(text, "dtypes: i32,i64,f32,f64,f16,bf16 (each variant only at the dtypes it declares)\n"
                             "not planned: f16,bf16 for 1 variant (not among its dtypes): neighbored\n"),
                "%s", text);
  free(text);
  ck_assert_int_eq(kgt_run_cli((char *[]){"run", "--plan", "--variant", "nope*", NULL}), KG_EXIT_USAGE);
}
END_TEST

/* --json names three things: check/run's results, list's variants and
 * compare's verdicts; each command gets its own, another says whose it is. */
START_TEST(test_cli_json_per_command) {
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse((char *[]){"list", "--json", "l.json", NULL}, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(cli.cmd, KG_CMD_LIST); /* list's own --json: test_cli_list_and_compare_json writes it */
  kg_cli_free(&cli);
  ck_assert_msg(kgt_parse((char *[]){"compare", "a", "b", "--json=-", NULL}, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert(!strcmp(CMP(cli)->json, "-") && !CMP(cli)->reports[KG_FMT_JSON]);
  kg_cli_free(&cli);
  ck_assert_msg(kgt_parse((char *[]){"run", "--json", "r.json", NULL}, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert(!strcmp(GATE(cli)->reports[KG_FMT_JSON], "r.json"));
  kg_cli_free(&cli);
  kgt_assert_rejected((char *[]){"history", "add", "r.json", "--file", "h", "--json", "x", NULL},
                      "'--json' is an option of list, check, run, compare, bisect, not of history add");
}
END_TEST

/* list --json: every real variant, with its name and facts; compare --json:
 * the counts and one cell per (variant, dtype, n) with its verdict. */
START_TEST(test_cli_list_and_compare_json) {
  char dir[64], path[128], old[1024], new[1024];
  kgt_mkscratch(dir, sizeof dir, "json");
  snprintf(path, sizeof path, "%s/list.json", dir);
  ck_assert_int_eq(kgt_run_cli((char *[]){"list", "--json", path, NULL}), KG_EXIT_OK);
  json_error_t je;
  json_t *doc = json_load_file(path, 0, &je);
  ck_assert_msg(doc, "%s", je.text);
  ck_assert_str_eq(json_string_value(json_object_get(doc, "kind")), "kgate-list");
  json_t *vs = json_object_get(doc, "variants");
  ck_assert_uint_eq(json_array_size(vs), kg_nvariants);
  json_t *last = json_array_get(vs, kg_nvariants - 1);
  ck_assert_str_eq(json_string_value(json_object_get(last, "name")), kg_variants[kg_nvariants - 1].name);
  ck_assert_str_eq(json_string_value(json_object_get(last, "op")), "sum");
  ck_assert_uint_eq(json_array_size(json_object_get(last, "dtypes")), 6);
  json_decref(doc);
  data_path("h200-run1.json", old, sizeof old);
  data_path("h200-run2.json", new, sizeof new);
  snprintf(path, sizeof path, "%s/cmp.json", dir);
  ck_assert_int_eq(kgt_run_cli((char *[]){"compare", old, new, "--json", path, NULL}), KG_EXIT_OK);
  doc = json_load_file(path, 0, &je);
  ck_assert_msg(doc, "%s", je.text);
  ck_assert_str_eq(json_string_value(json_object_get(doc, "kind")), "kgate-compare");
  json_t *cells = json_object_get(doc, "cells"), *counts = json_object_get(doc, "counts");
  ck_assert_uint_eq(json_array_size(cells), 240);
  ck_assert_int_eq(json_integer_value(json_object_get(counts, "SAME")), 240);
  json_t *c0 = json_array_get(cells, 0);
  ck_assert_str_eq(json_string_value(json_object_get(c0, "verdict")), "SAME");
  ck_assert(json_is_real(json_object_get(c0, "old_us")) && json_is_real(json_object_get(c0, "new_us")));
  ck_assert(json_is_true(json_object_get(doc, "missing_fail")));
  json_decref(doc);
  /* --json -: stdout is the JSON alone, the table goes to stderr */
  char *text = stdout_of((char *[]){"compare", old, new, "--json", "-", NULL});
  doc = json_loads(text, 0, &je);
  ck_assert_msg(doc, "stdout is not JSON alone: %s", je.text);
  ck_assert_uint_eq(json_array_size(json_object_get(doc, "cells")), 240);
  json_decref(doc);
  free(text);
  text = stdout_of((char *[]){"list", "--json", "-", NULL});
  doc = json_loads(text, 0, &je);
  ck_assert_msg(doc, "stdout is not JSON alone: %s", je.text);
  json_decref(doc);
  free(text);
  kg_registry_reset();
  kgt_rmtree(dir);
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
    {{"--help"}, KG_EXIT_OK},
    {{"help"}, KG_EXIT_OK},
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

/* The wait for a worker's hello follows --timeout: a worker that never says
 * hello costs --timeout, not a fixed two minutes (also the --devices all probe). */
static const struct {
  char *args[14];
} k_mute_starts[] = {
    {{"check", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--sizes", "1", "--timeout", "0.5"}},
    {{"check", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--sizes", "1", "--timeout", "0.5",
      "--devices", "all"}},
};

START_TEST(test_cli_hello_follows_timeout) {
  setenv("FAKE_MODE", "sleep", 1);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  kg_cli cli;
  char err[256];
  int code = kgt_parse(k_mute_starts[_i].args, &cli, err, sizeof err);
  if (code == 0) code = kgt_run_quiet(&cli);
  kg_cli_free(&cli);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  unsetenv("FAKE_MODE");
  ck_assert_int_eq(code, KG_EXIT_ENV);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  ck_assert_msg(secs < 5, "waited %.1f s for a hello with --timeout 0.5", secs);
}
END_TEST

/* A worker that cannot find a CUDA device (no driver, no card): check and
 * run say so first, and nothing after it of a run that never started: no
 * plan's progress line, no "reports" phase. */
static const struct {
  char *args[12];
} k_no_device[] = {
    {{"check", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--sizes", "1"}},
    {{"run", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--sizes", "1", "--perf-sizes", "1"}},
};

START_TEST(test_cli_no_device_said_first) {
  char out[8192];
  setenv("FAKE_MODE", "fatal", 1);
  int code = kgt_run_capture((char **)k_no_device[_i].args, out, sizeof out);
  unsetenv("FAKE_MODE");
  ck_assert_int_eq(code, KG_EXIT_ENV);
  ck_assert_msg(!strncmp(out, "kgate: no CUDA device: test\n", 28), "not said first:\n%s", out);
  ck_assert_msg(!strstr(out, "kgate: reports"), "a reports phase after a run that never started:\n%s", out);
  ck_assert_msg(!strstr(out, " on 1 device"), "the plan's line for a run that never started:\n%s", out);
  /* a worker that starts: the plan's line, then the cases */
  char *fine[] = {"check", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--sizes", "1", NULL};
  ck_assert_int_eq(kgt_run_capture(fine, out, sizeof out), KG_EXIT_OK);
  const char *plan = strstr(out, "kgate: check: 2 cases on 1 device\n"), *done = strstr(out, "kgate: check: done, 2 cases");
  ck_assert_msg(plan && done && plan < done, "%s", out);
}
END_TEST

/* SIGINT or SIGTERM on `kgate check` while a worker (and the grandchild it
 * forked) hangs: the reports are written with what ran, marked incomplete,
 * no process is left, and the exit code is 128 + the signal. */
static const struct {
  int sig, code;
  const char *name;
} k_interrupts[] = {{SIGINT, 130, "SIGINT"}, {SIGTERM, 143, "SIGTERM"}};

typedef struct interrupt_ctx {
  int sig;
  char dir[64];
} interrupt_ctx;

static void interrupt_body(void *ctx, char *msg, size_t len) {
  interrupt_ctx *x = ctx;
  char pids[128], json[128], csv[128], junit[128], md[128];
  snprintf(pids, sizeof pids, "%s/pids", x->dir);
  snprintf(json, sizeof json, "%s/r.json", x->dir);
  snprintf(csv, sizeof csv, "%s/r.csv", x->dir);
  snprintf(junit, sizeof junit, "%s/r.xml", x->dir);
  snprintf(md, sizeof md, "%s/r.md", x->dir);
  setenv("FAKE_PID_FILE", pids, 1);
  unsetenv("GITHUB_STEP_SUMMARY");
  pid_t killer = kgt_signal_when(pids, getpid(), x->sig);
  char *args[] = {"check", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--pattern", "exact",
                  "--sizes", "1,2,47,3", "--timeout", "30", "--json", json, "--csv", csv, "--junit", junit,
                  "--markdown", md, NULL};
  kg_cli cli;
  char err[256];
  int code = kgt_parse(args, &cli, err, sizeof err);
  if (code == 0) code = kgt_run_quiet(&cli);
  kg_cli_free(&cli);
  waitpid(killer, NULL, 0);
  pid_t worker, grandchild;
  if (kgt_read_pids(pids, &worker, &grandchild)) snprintf(msg, len, "no pid file from the fake worker");
  else if (!kgt_gone(worker, 2.0)) snprintf(msg, len, "the worker %ld still runs", (long)worker);
  else if (!kgt_gone(grandchild, 2.0)) snprintf(msg, len, "its grandchild %ld still runs", (long)grandchild);
  else snprintf(msg, len, "exit %d", code);
}

START_TEST(test_cli_interrupted_writes_results) {
  interrupt_ctx x = {.sig = k_interrupts[_i].sig};
  kgt_mkscratch(x.dir, sizeof x.dir, "interrupt");
  char msg[512], want[32], path[128];
  int status = kgt_subreaper_child(interrupt_body, &x, msg, sizeof msg);
  ck_assert_msg(WIFEXITED(status), "%s killed kgate", k_interrupts[_i].name);
  snprintf(want, sizeof want, "exit %d", k_interrupts[_i].code);
  ck_assert_str_eq(msg, want);
  snprintf(path, sizeof path, "%s/r.json", x.dir);
  kg_run run;
  char err[512];
  ck_assert_msg(kg_results_read(path, &run, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(run.meta.incomplete, k_interrupts[_i].name);
  ck_assert_uint_eq(run.n, 4);
  for (size_t i = 0; i < run.n; i++) { /* plan order: 1, 2, 3, 47 */
    kg_status want_st = run.cases[i].n == 1 || run.cases[i].n == 2 ? KG_ST_PASS : KG_ST_PENDING;
    ck_assert_msg(run.results[i].status == want_st, "n=%zu: %s", run.cases[i].n, kg_status_name(run.results[i].status));
  }
  kg_run_free(&run);
  char *text = kgt_slurp(path);
  ck_assert_ptr_nonnull(strstr(text, "\"incomplete\":true,\"signal\":"));
  free(text);
  const char *others[] = {"r.csv", "r.xml", "r.md"};
  for (int k = 0; k < 3; k++) {
    snprintf(path, sizeof path, "%s/%s", x.dir, others[k]);
    ck_assert_msg(access(path, F_OK) == 0, "%s was not written", others[k]);
  }
  kgt_rmtree(x.dir);
}
END_TEST

/* Stopped while the only worker is still starting: no device is known, so
 * nothing is written, and the worker and its grandchild are gone. */
static void early_interrupt_body(void *ctx, char *msg, size_t len) {
  const char *dir = ctx;
  char pids[128], json[128];
  snprintf(pids, sizeof pids, "%s/pids", dir);
  snprintf(json, sizeof json, "%s/r.json", dir);
  setenv("FAKE_PID_FILE", pids, 1);
  setenv("FAKE_MODE", "sleep", 1);
  pid_t killer = kgt_signal_when(pids, getpid(), SIGTERM);
  char *args[] = {"check", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--sizes", "1",
                  "--timeout", "30", "--json", json, NULL};
  kg_cli cli;
  char err[256];
  int code = kgt_parse(args, &cli, err, sizeof err);
  if (code == 0) code = kgt_run_quiet(&cli);
  kg_cli_free(&cli);
  waitpid(killer, NULL, 0);
  pid_t worker, grandchild;
  if (kgt_read_pids(pids, &worker, &grandchild)) snprintf(msg, len, "no pid file from the fake worker");
  else if (!kgt_gone(worker, 2.0) || !kgt_gone(grandchild, 2.0)) snprintf(msg, len, "a worker process still runs");
  else if (access(json, F_OK) == 0) snprintf(msg, len, "a results file with no device was written");
  else snprintf(msg, len, "exit %d", code);
}

START_TEST(test_cli_interrupted_before_start) {
  char dir[64], msg[512];
  kgt_mkscratch(dir, sizeof dir, "interrupt");
  int status = kgt_subreaper_child(early_interrupt_body, dir, msg, sizeof msg);
  kgt_rmtree(dir);
  ck_assert_msg(WIFEXITED(status), "SIGTERM killed kgate");
  ck_assert_str_eq(msg, "exit 143");
}
END_TEST

/* The --sanitize summary: cells that did not run say so, never "clean". */
static const struct {
  kg_status st[4]; /* the variant's four cases; KG_NSTATUS: the case is unsupported */
  const char *cell; /* NULL: no line */
} k_cells[] = {
    {{KG_ST_PASS, KG_ST_PASS, KG_ST_PASS, KG_ST_PASS}, "clean"},
    {{KG_ST_PENDING, KG_ST_PENDING, KG_ST_PENDING, KG_ST_PENDING}, "not run"},
    {{KG_ST_PASS, KG_ST_PASS, KG_ST_PENDING, KG_ST_PENDING}, "incomplete (2 of 4 run)"},
    {{KG_ST_PASS, KG_ST_FAIL, KG_ST_PASS, KG_ST_PASS}, "FAIL (1 of 4 cases; first: bad 1)"},
    {{KG_ST_ERROR, KG_ST_PASS, KG_ST_PENDING, KG_ST_PENDING}, "FAIL (1 of 2 cases; first: bad 0), incomplete (2 of 4 run)"},
    {{KG_ST_PASS, KG_ST_PASS, KG_ST_PASS, KG_NSTATUS}, "clean"},
    {{KG_ST_PENDING, KG_NSTATUS, KG_NSTATUS, KG_NSTATUS}, "not run"},
    {{KG_NSTATUS, KG_NSTATUS, KG_NSTATUS, KG_NSTATUS}, NULL},
};

START_TEST(test_gate_san_cell) {
  kg_case cases[6];
  kg_result res[6];
  memset(res, 0, sizeof res);
  for (int i = 0; i < 4; i++) {
    cases[i] = (kg_case){1, KG_I32, (size_t)i + 1, KG_PAT_EXACT, k_cells[_i].st[i] != KG_NSTATUS, 0};
    if (cases[i].supported) res[i].status = k_cells[_i].st[i];
    else res[i].status = KG_ST_UNSUPPORTED;
    snprintf(res[i].message, sizeof res[i].message, "bad %d", i);
  }
  /* another variant's cases, which must not count */
  cases[4] = (kg_case){2, KG_I32, 1, KG_PAT_EXACT, 1, 0}, res[4].status = KG_ST_FAIL;
  cases[5] = (kg_case){2, KG_I32, 2, KG_PAT_EXACT, 1, 0}, res[5].status = KG_ST_PENDING;
  char cell[320] = "untouched";
  int have = kg_gate_san_cell(cases, res, 6, 1, cell, sizeof cell);
  if (!k_cells[_i].cell) {
    ck_assert_int_eq(have, 0);
    ck_assert_str_eq(cell, "untouched");
  } else {
    ck_assert_int_eq(have, 1);
    ck_assert_str_eq(cell, k_cells[_i].cell);
  }
}
END_TEST


/* ---- kernel modules (--kernels) and names kgate has never seen ----------- */

static char *testmod(const char *kind, char *buf, size_t len) {
  snprintf(buf, len, "%s/libkg_testmod_%s.so", TEST_MODULES, kind);
  return buf;
}

/* kg_cli_run with stdout and stderr into out (the last len - 1 bytes). */
static int run_capture(char **args, char *out, size_t len) { return kgt_run_capture(args, out, len); }

START_TEST(test_cli_kernels_options) {
  kg_cli cli;
  char err[256];
  char *run[] = {"run", "--kernels", "a.so", "--kernels=b.so", "--base-kernels", "base/a.so", "--base-kernels",
                 "base/libkgate_kernels.so", NULL};
  ck_assert_msg(kgt_parse(run, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(GATE(cli)->mods.nkernels, 2);
  ck_assert_str_eq(GATE(cli)->mods.kernels[1], "b.so");
  ck_assert_int_eq(GATE(cli)->mods.nbase, 2);
  ck_assert_str_eq(GATE(cli)->mods.base_kernels[1], "base/libkgate_kernels.so");
  kg_cli_free(&cli);
  static char *const ok[][4] = {{"list", "--kernels", "a.so", NULL}, {"check", "--kernels", "a.so", NULL},
                                {"selftest", "--kernels", "a.so", NULL}, {"worker", "--kernels", "a.so", NULL},
                                {"worker", "--own-kernels", "a.so", NULL}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    ck_assert_msg(kgt_parse(ok[i], &cli, err, sizeof err) == 0, "%s: %s", ok[i][0], err);
    kg_cli_free(&cli);
  }
  kgt_assert_rejected((char *[]){"check", "--kernels", "a.so", "--kernels", "a.so", NULL}, "--kernels a.so given twice");
  kgt_assert_rejected((char *[]){"compare", "a", "b", "--kernels", "a.so", NULL}, "'--kernels' is an option of list, check, run, selftest, not of compare");
  kgt_assert_rejected((char *[]){"check", "--base-kernels", "a.so", NULL}, "'--base-kernels' is an option of run, not of check");
  kgt_assert_rejected((char *[]){"check", "--own-kernels", "a.so", NULL}, "'--own-kernels' is an option of run, not of check");
  char *many[40] = {"check"};
  char names[17][16];
  for (int k = 0; k < 17; k++) snprintf(names[k], sizeof names[k], "m%d.so", k), many[1 + 2 * k] = "--kernels", many[2 + 2 * k] = names[k];
  kg_cli big;
  char *argv[40] = {"kgate"};
  memcpy(argv + 1, many, 35 * sizeof *many);
  ck_assert_int_eq(kg_cli_parse(36, argv, &big, err, sizeof err), KG_EXIT_USAGE);
  ck_assert_str_eq(err, "more than 16 --kernels modules");
  kg_cli_free(&big);
}
END_TEST

/* A team's module through check, with the fake worker standing in for the
 * GPU (it loads modules with the real loader): its min and max variants are
 * planned beside cub_sum, and the results file names them with their op. */
START_TEST(test_cli_kernels_check) {
  char dir[64], json[128], mod[1024], out[4096];
  kgt_mkscratch(dir, sizeof dir, "kernels");
  snprintf(json, sizeof json, "%s/r.json", dir);
  /* --lint off: the test module has no machine code to lint (test_lint_not_run_fails_gate) */
  char *args[] = {"check", "--worker", FAKE_WORKER, "--kernels", testmod("minmax", mod, sizeof mod), "--variant",
                  "team_max,team_min,cub_sum", "--dtype", "f32,i32", "--sizes", "1,2", "-q", "--json", json,
                  "--lint", "off", NULL};
  ck_assert_int_eq(run_capture(args, out, sizeof out), KG_EXIT_OK);
  ck_assert_msg(strstr(out, "team_max (max)") != NULL, "%s", out);
  char *text = kgt_slurp(json);
  ck_assert_ptr_nonnull(strstr(text, "\"variant\":\"team_min\""));
  ck_assert_ptr_nonnull(strstr(text, "\"variant\":\"cub_sum\""));
  ck_assert_ptr_null(strstr(text, "\"variant\":\"team_sum\"")); /* --variant chose */
  ck_assert_msg(strstr(text, "\"team_max\":{\"seed\":\"team\",\"idea\":\"a team's max, NaNs ignored\",\"flags\":[],"
                             "\"dtypes\":[\"i32\",\"i64\",\"f32\",\"f64\",\"f16\",\"bf16\"],\"op\":\"max\",\"nan\":\"ignore\"") != NULL,
                "%.400s", text);
  free(text);
  kgt_rmtree(dir);
  kg_registry_reset();
}
END_TEST

/* A team's check is the team's: --kernels with no --variant plans the
 * module's variants only; --with-kgate adds kgate's own; an explicit
 * --variant picks any mix (the fake worker describes the module, no GPU). */
START_TEST(test_cli_kernels_plan_scoped) {
  char mod[1024], want[64];
  testmod("minmax", mod, sizeof mod);
  char *text = stdout_of((char *[]){"check", "--plan", "--worker", FAKE_WORKER, "--kernels", mod, "--dtype", "i32",
                                    "--pattern", "exact", "--sizes", "1", NULL});
  ck_assert_msg(strstr(text, "variants (3): team_sum team_min team_max\n") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "plan: 3 cases ") != NULL, "%s", text);
  ck_assert_msg(!strstr(text, "cub_sum"), "kgate's own variants planned without --with-kgate: %s", text);
  free(text);
  kg_registry_reset();
  text = stdout_of((char *[]){"run", "--plan", "--worker", FAKE_WORKER, "--kernels", mod, "--dtype", "i32",
                              "--pattern", "exact", "--sizes", "1", "--with-kgate", NULL});
  snprintf(want, sizeof want, "variants (%zu): ", kg_nvariants_own + 3);
  ck_assert_msg(strstr(text, want) && strstr(text, " cub_sum ") && strstr(text, " team_max\n"), "%s", text);
  free(text);
  kg_registry_reset();
  text = stdout_of((char *[]){"check", "--plan", "--worker", FAKE_WORKER, "--kernels", mod, "--dtype", "i32",
                              "--pattern", "exact", "--sizes", "1", "--variant", "team_min,cub_sum", NULL});
  ck_assert_msg(strstr(text, "variants (2): cub_sum team_min\n") != NULL, "%s", text);
  free(text);
  kg_registry_reset();
  /* without --kernels nothing changes: every one of kgate's own */
  text = stdout_of((char *[]){"check", "--plan", "--dtype", "i32", "--pattern", "exact", "--sizes", "1", NULL});
  snprintf(want, sizeof want, "variants (%zu): ", kg_nvariants_own);
  ck_assert_msg(strstr(text, want) != NULL, "%s", text);
  free(text);
}
END_TEST

/* Tables and help sized to their data: a module's seed of 20 characters
 * (one of them two bytes) widens list's seed column, and every later
 * column starts at one display column on every row; every option's help in
 * compare's help and the whole help starts at one column, past the longest
 * option (--github-benchmark FILE, --sort verdict|change|name). */
START_TEST(test_cli_columns_fit) {
  char mod[1024], out[16384], why[512];
  char *list[] = {"list", "--worker", FAKE_WORKER, "--kernels", testmod("text", mod, sizeof mod), NULL};
  ck_assert_int_eq(run_capture(list, out, sizeof out), KG_EXIT_OK);
  ck_assert_msg(strstr(out, "Harris 2007, \"\xc3\x9cnal\"") != NULL, "%s", out);
  static const char *headings[] = {"seed", "op ", "flags", "dtypes", "idea"};
  for (size_t k = 0; k < sizeof headings / sizeof headings[0]; k++)
    ck_assert_msg(kgt_column_aligned(out, "variant ", headings[k], kg_nvariants, why, sizeof why), "%s in:\n%s", why, out);
  kg_registry_reset();
  /* without the module, the seed column is as wide as kgate's longest seed, not a fixed 5 */
  char *own[] = {"list", NULL};
  ck_assert_int_eq(run_capture(own, out, sizeof out), KG_EXIT_OK);
  size_t wseed = strlen("seed");
  for (size_t v = 0; v < kg_nvariants; v++)
    if (strlen(kg_variants[v].seed) > wseed) wseed = strlen(kg_variants[v].seed);
  const char *op = strstr(out, "op ");
  ck_assert_msg(op && strncmp(op - 2 - wseed, " seed", 5) == 0, "%s", out);
  for (int all = 0; all < 2; all++) {
    char *text = stdout_of(all ? (char *[]){"--help", NULL} : (char *[]){"help", "compare", NULL});
    const char *h = strstr(text, "  -h, --help ");
    ck_assert_ptr_nonnull(h);
    size_t col = (size_t)(strstr(h, "this text") - h), lines = 0;
    for (const char *line = h; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] ? 1 : 0)) {
      if (strncmp(line, "  -", 3)) continue;
      size_t n = strcspn(line, "\n");
      ck_assert_msg(n > col && line[col - 1] == ' ' && line[col] != ' ', "help's option column is off at '%.*s'",
                    (int)n, line);
      lines++;
    }
    ck_assert_msg(lines > (all ? 60u : 12u), "%zu option lines", lines);
    ck_assert_msg(strstr(text, all ? "  --github-benchmark FILE " : "  --github-benchmark FILE "), "%s", text);
    free(text);
  }
}
END_TEST

/* list shows a module's variants after kgate's own, with their op. */
START_TEST(test_cli_list_kernels) {
  char mod[1024], old[1024], out[16384];
  char *args[] = {"list", "--worker", FAKE_WORKER, "--kernels", testmod("minmax", mod, sizeof mod), "--kernels",
                  testmod("old", old, sizeof old), NULL};
  ck_assert_int_eq(run_capture(args, out, sizeof out), KG_EXIT_OK);
  ck_assert_msg(strstr(out, "\nteam_max                team  max nan:ignore ") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "\nteam_min                team  min nan:propagate ") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "\nlegacy_sum              test  sum ") != NULL, "%s", out); /* the old record: a sum */
  ck_assert_ptr_nonnull(strstr(out, "\ncub_sum "));
  ck_assert(strstr(out, "\ncub_sum ") < strstr(out, "\nteam_sum "));
  kg_registry_reset();
}
END_TEST

/* What loading refuses, before anything runs: exit 2 and one line. */
static const struct {
  const char *cmd, *kernels[2], *base[2], *want;
} k_kernels_bad[] = {
    {"check", {"minmax", "minmax2"}, {NULL, NULL}, "variant team_sum is defined twice: in %s and in %s (rename one)"},
    {"check", {"cub", NULL}, {NULL, NULL}, "variant cub_sum is defined twice: in kgate's own variants and in %s"},
    {"list", {"minmax", "minmax2"}, {NULL, NULL}, "variant team_sum is defined twice: in %s and in %s"},
    {"run", {NULL, NULL}, {"minmax", "minmax2"}, "variant team_sum is defined twice: in base modules %s and %s"},
    {"check", {"short", NULL}, {NULL, NULL}, "kernel module %s: variant record of 48 bytes, this kgate reads 56 to 64"},
    {"check", {"abi", NULL}, {NULL, NULL}, "kernel module %s: built for kernel ABI 99"},
    {"selftest", {"minmax", "minmax2"}, {NULL, NULL}, "variant team_sum is defined twice"},
};

START_TEST(test_cli_kernels_refused) {
  char p[4][1024], want[4096], out[4096];
  char *args[20] = {(char *)k_kernels_bad[_i].cmd, "--worker", FAKE_WORKER};
  int a = 3;
  const char *paths[4];
  int np = 0;
  for (int i = 0; i < 2; i++)
    if (k_kernels_bad[_i].kernels[i]) {
      args[a++] = "--kernels", args[a++] = testmod(k_kernels_bad[_i].kernels[i], p[np], sizeof p[np]);
      paths[np] = p[np], np++;
    }
  for (int i = 0; i < 2; i++)
    if (k_kernels_bad[_i].base[i]) {
      args[a++] = "--base-kernels", args[a++] = testmod(k_kernels_bad[_i].base[i], p[np], sizeof p[np]);
      paths[np] = p[np], np++;
    }
  if (strcmp(k_kernels_bad[_i].cmd, "list") && strcmp(k_kernels_bad[_i].cmd, "selftest"))
    args[a++] = "--sizes", args[a++] = "1";
  args[a] = NULL;
  snprintf(want, sizeof want, k_kernels_bad[_i].want, paths[0], np > 1 ? paths[1] : "");
  ck_assert_int_eq(run_capture(args, out, sizeof out), KG_EXIT_USAGE);
  ck_assert_msg(strstr(out, want) != NULL, "'%s' lacks '%s'", out, want);
  ck_assert_ptr_null(strstr(out, "summary:")); /* nothing ran */
  kg_registry_reset();
}
END_TEST

/* A module whose seed, idea or version breaks the text rule (validate.h) is
 * refused before anything runs, in one line naming the file, the variant and
 * the field, exit 2: never dropped from the gate while it passes. */
static const struct {
  const char *cmd, *kind, *want;
} k_text_bad[] = {
    {"list", "badutf8", "variant first: seed 'caf?': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"check", "badutf8", "variant first: seed 'caf?': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"run", "esc", "variant first: idea '?[2J?[31mall clear': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"check", "longseed", "variant first: seed 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...': too long "
                          "(seed and version: at most 63 bytes, idea: 159)"},
    {"list", "badversion", "version 'v1?::error::forged': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"run", "badversion", "version 'v1?::error::forged': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
};

START_TEST(test_cli_module_text_refused) {
  char mod[1024], want[2048], out[4096];
  char *args[] = {(char *)k_text_bad[_i].cmd, "--worker", FAKE_WORKER, "--kernels",
                  testmod(k_text_bad[_i].kind, mod, sizeof mod), "--sizes", "1", NULL};
  if (!strcmp(k_text_bad[_i].cmd, "list")) args[5] = NULL;
  snprintf(want, sizeof want, "kgate: kernel module %s: %s\n", mod, k_text_bad[_i].want);
  ck_assert_int_eq(run_capture(args, out, sizeof out), KG_EXIT_USAGE);
  ck_assert_str_eq(out, want); /* the one line, and nothing else */
  kg_registry_reset();
}
END_TEST

/* Text a module may hold (spaces, quotes, commas, UTF-8, "::error::")
 * passes end to end: the check writes results that kgate reads back with the
 * text intact, the CSV quotes it per RFC 4180, and no line of the terminal
 * output or the CSV starts with what the runner would take for a workflow
 * command. */
START_TEST(test_cli_module_text_round_trip) {
  static const char seed[] = "Harris 2007, \"\xc3\x9cnal\"",
                    idea[] = "::error::a sum, with \"quotes\", commas and \xc3\x9cnal's name";
  char dir[64], json[128], csv[128], mod[1024], out[16384], err[512];
  kgt_mkscratch(dir, sizeof dir, "text");
  snprintf(json, sizeof json, "%s/r.json", dir);
  snprintf(csv, sizeof csv, "%s/r.csv", dir);
  char *check[] = {"check", "--worker", FAKE_WORKER, "--kernels", testmod("text", mod, sizeof mod), "--variant",
                   "first,cub_sum", "--dtype", "i32", "--sizes", "1,2", "-q", "--json", json, "--csv", csv,
                   "--lint", "off", NULL};
  ck_assert_int_eq(run_capture(check, out, sizeof out), KG_EXIT_OK);
  ck_assert_msg(strstr(out, "\nfirst   Harris 2007, \"\xc3\x9cnal\"       4       4") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "\n::") == NULL && strncmp(out, "::", 2), "%s", out);
  kg_registry_reset(); /* another kgate, without the module, reads the file */
  kg_run run;
  ck_assert_msg(kg_results_read(json, &run, err, sizeof err) == 0, "%s", err);
  int v = kg_variant_find("first");
  ck_assert_int_ge(v, 0);
  ck_assert_str_eq(kg_variants[v].seed, seed);
  ck_assert_str_eq(kg_variants[v].idea, idea);
  kg_run_free(&run);
  char *text = kgt_slurp(csv);
  ck_assert_ptr_nonnull(text);
  ck_assert_msg(strstr(text, "\nfirst,\"Harris 2007, \"\"\xc3\x9cnal\"\"\",i32,1,") != NULL, "%s", text);
  free(text);
  kg_registry_reset();
  char *list[] = {"list", "--worker", FAKE_WORKER, "--kernels", mod, NULL};
  ck_assert_int_eq(run_capture(list, out, sizeof out), KG_EXIT_OK);
  ck_assert_msg(strstr(out, "Harris 2007, \"\xc3\x9cnal\"") && strstr(out, idea), "%s", out);
  ck_assert_msg(strstr(out, "\n::") == NULL, "%s", out);
  kgt_rmtree(dir);
  kg_registry_reset();
}
END_TEST

/* Every results reader takes a variant name it has never seen (issue: `sed
 * s/kgate_single_pass/my_team_kernel/ h200-run2.json > x.json; kgate plot
 * x.json` exited 2): kept, compared, stored, charted and reported. */
enum { RD_COMPARE, RD_BASELINE, RD_HISTORY, RD_MERGE, RD_PLOT, RD_REPORT, RD_N };

static void data_path(const char *name, char *buf, size_t len) {
  const char *slash = strrchr(__FILE__, '/');
  snprintf(buf, len, "%.*s/data/%s", slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".", name);
}

/* x.json: h200-run2 with kgate_single_pass renamed; a.json and b.json: its
 * halves (for merge). */
static void unknown_files(const char *dir, char *x, size_t len) {
  char src[1024], a[256], b[256], err[512];
  data_path("h200-run2.json", src, sizeof src);
  char *text = kgt_slurp(src);
  ck_assert_ptr_nonnull(text);
  for (char *p; (p = strstr(text, "\"kgate_single_pass\""));) {
    memmove(p + 16, p + 19, strlen(p + 19) + 1); /* "my_team_kernel" is 3 bytes shorter */
    memcpy(p, "\"my_team_kernel\"", 16);
  }
  snprintf(x, len, "%s/x.json", dir);
  kgt_spit(x, text);
  free(text);
  kg_run run, half;
  ck_assert_msg(kg_results_read(x, &run, err, sizeof err) == 0, "%s", err);
  half = run;
  half.n = run.n / 2;
  snprintf(a, sizeof a, "%s/a.json", dir);
  ck_assert_msg(kg_results_write(a, &half, err, sizeof err) == 0, "%s", err);
  half.cases = run.cases + run.n / 2, half.results = run.results + run.n / 2, half.n = run.n - run.n / 2;
  snprintf(b, sizeof b, "%s/b.json", dir);
  ck_assert_msg(kg_results_write(b, &half, err, sizeof err) == 0, "%s", err);
  kg_run_free(&run);
  kg_registry_reset();
}

START_TEST(test_cli_readers_unknown_variant) {
  char dir[64], x[256], old[1024], a[256], b[256], out[256], what[256], cmd[512];
  kgt_mkscratch(dir, sizeof dir, "unknown");
  unknown_files(dir, x, sizeof x);
  data_path("h200-run1.json", old, sizeof old);
  snprintf(a, sizeof a, "%s/a.json", dir), snprintf(b, sizeof b, "%s/b.json", dir);
  int code = -1;
  switch (_i) {
  case RD_COMPARE:
    snprintf(out, sizeof out, "%s/c.csv", dir);
    /* kgate_single_pass is my_team_kernel in x: its old cells are missing there */
    code = kgt_run_cli((char *[]){"compare", old, x, "--csv", out, "--missing", "allow", NULL});
    snprintf(what, sizeof what, "%s", out);
    break;
  case RD_BASELINE:
    code = kgt_run_cli((char *[]){"baseline", "update", x, "--baseline-dir", dir, NULL});
    snprintf(what, sizeof what, "%s/nvidia-h200.json", dir);
    break;
  case RD_HISTORY:
    snprintf(what, sizeof what, "%s/h.jsonl", dir);
    code = kgt_run_cli((char *[]){"history", "add", x, "--file", what, NULL});
    break;
  case RD_MERGE:
    snprintf(what, sizeof what, "%s/m.json", dir);
    code = kgt_run_cli((char *[]){"merge", a, b, "-o", what, NULL});
    break;
  case RD_PLOT:
    snprintf(out, sizeof out, "%s/charts", dir);
    code = kgt_run_cli((char *[]){"plot", x, "-o", out, NULL});
    snprintf(what, sizeof what, "%s/charts", dir);
    break;
  case RD_REPORT:
    snprintf(out, sizeof out, "%s/site", dir);
    code = kgt_run_cli((char *[]){"report", x, "--html", out, "--baseline", old, NULL});
    snprintf(what, sizeof what, "%s/site/index.html", dir);
    break;
  }
  /* 3: no gnuplot here; the data files are written before that */
  ck_assert_msg(code == KG_EXIT_OK || code == KG_EXIT_PERF || code == KG_EXIT_ENV, "reader %d exited %d", _i, code);
  snprintf(cmd, sizeof cmd, "grep -rq my_team_kernel '%s'", what);
  ck_assert_msg(system(cmd) == 0, "reader %d: my_team_kernel is not in %s", _i, what);
  kgt_rmtree(dir);
  kg_registry_reset();
}
END_TEST

/* The rows of compare's table in out: the lines after its header up to "verdicts:". */
static int table_rows(const char *out, char rows[][128], int max) {
  const char *p = strstr(out, "verdict variant");
  int n = 0;
  ck_assert_ptr_nonnull(p);
  for (p = strchr(p, '\n') + 1; strncmp(p, "verdicts:", 9); p = strchr(p, '\n') + 1) {
    size_t len = strcspn(p, "\n");
    if (n < max) snprintf(rows[n], sizeof rows[n], "%.*s", (int)len, p);
    n++;
  }
  return n;
}

/* compare --only-changed leaves the SAME rows out of the table and counts
 * them; --sort orders the rows by verdict (default), |change| or name; the
 * JSON keeps every cell and the Markdown's table lists the regression. NEW
 * is h200-run1 with one timed cell 1.5x slower and another 0.4x (faster by
 * more). */
START_TEST(test_cli_compare_only_changed_and_sort) {
  char dir[64], old[1024], new[256], json[256], md[256], err[512], out[65536], rows[8][128];
  kgt_mkscratch(dir, sizeof dir, "cmpsort");
  data_path("h200-run1.json", old, sizeof old);
  snprintf(new, sizeof new, "%s/new.json", dir);
  snprintf(json, sizeof json, "%s/cmp.json", dir);
  snprintf(md, sizeof md, "%s/summary.md", dir);
  kg_run run;
  ck_assert_msg(kg_results_read(old, &run, err, sizeof err) == 0, "%s", err);
  const double scale[2] = {1.5, 0.4};
  char names[2][64];
  for (size_t i = 0, k = 0; i < run.n && k < 2; i++) {
    kg_timing *t = &run.results[i].timing;
    if (!run.cases[i].timed || !t->samples || run.cases[i].n != 1u << 25) continue; /* 3 % tolerance */
    t->min_us *= scale[k], t->q1_us *= scale[k], t->median_us *= scale[k], t->q3_us *= scale[k];
    snprintf(names[k++], sizeof names[0], "%s", kg_variants[run.cases[i].variant].name);
  }
  size_t total = 0;
  for (size_t i = 0; i < run.n; i++) total += run.cases[i].timed && run.results[i].timing.samples;
  ck_assert_msg(kg_results_write(new, &run, err, sizeof err) == 0, "%s", err);
  kg_run_free(&run);
  kg_registry_reset();

  char *plain[] = {"compare", old, new, NULL};
  ck_assert_int_eq(run_capture(plain, out, sizeof out), KG_EXIT_PERF);
  ck_assert_int_eq(table_rows(out, rows, 8), (int)total); /* every cell, regressions first */
  ck_assert_msg(!strncmp(rows[0], "SLOWER", 6) && !strncmp(rows[1], "FASTER", 6), "%s\n%s", rows[0], rows[1]);
  ck_assert(!strstr(out, "only changed"));

  char *changed[] = {"compare", old, new, "--only-changed", "--json", json, "--markdown", md, NULL};
  ck_assert_int_eq(run_capture(changed, out, sizeof out), KG_EXIT_PERF);
  ck_assert_int_eq(table_rows(out, rows, 8), 2);
  ck_assert_msg(!strncmp(rows[0], "SLOWER", 6) && strstr(rows[0], names[0]), "%s", rows[0]);
  ck_assert_msg(!strncmp(rows[1], "FASTER", 6) && strstr(rows[1], names[1]), "%s", rows[1]);
  char says[128];
  snprintf(says, sizeof says, "only changed: %zu SAME cells of %zu left out of the table (--json keeps every cell)\n",
           total - 2, total);
  ck_assert_msg(strstr(out, says), "'%s' lacks '%s'", out, says);
  ck_assert_msg(strstr(out, "verdicts: 1 SLOWER, 0 UNKNOWN, 0 MISSING, 1 FASTER, 0 NEW,"), "the counts are every cell's");
  json_t *doc = json_load_file(json, 0, NULL);
  ck_assert_ptr_nonnull(doc);
  ck_assert_uint_eq(json_array_size(json_object_get(doc, "cells")), total); /* the JSON keeps every cell */
  json_decref(doc);
  char *text = kgt_slurp(md);
  char *reg = strstr(text, "\n## Regressions\n"), *end = reg ? strstr(reg + 1, "\n## ") : NULL;
  ck_assert_msg(reg && end, "the Markdown has a table of the regressions");
  *end = '\0'; /* that table alone: no SAME row there */
  ck_assert_msg(strstr(reg, "| SLOWER |") && !strstr(reg, "| SAME |") && !strstr(reg, "| FASTER |"), "%.2000s", reg);
  free(text);

  char *by_change[] = {"compare", old, new, "--only-changed", "--sort", "change", NULL};
  ck_assert_int_eq(run_capture(by_change, out, sizeof out), KG_EXIT_PERF);
  ck_assert_int_eq(table_rows(out, rows, 8), 2); /* -60 % before +50 % */
  ck_assert_msg(!strncmp(rows[0], "FASTER", 6) && !strncmp(rows[1], "SLOWER", 6), "%s\n%s", rows[0], rows[1]);

  char *by_name[] = {"compare", old, new, "--sort=name", NULL}, first[128];
  ck_assert_int_eq(run_capture(by_name, out, sizeof out), KG_EXIT_PERF);
  ck_assert_int_eq(table_rows(out, rows, 8), (int)total);
  snprintf(first, sizeof first, "%s", rows[0]);
  ck_assert_msg(!strncmp(first, "SAME    reduce0_divergent       i32      4194304", 48), "%s", first);
  kgt_rmtree(dir);
  kg_registry_reset();
}
END_TEST

#define N(a) (int)(sizeof a / sizeof a[0])

/* compare's exit code says what NEW shows (README, exit codes): 1 for a
 * failed or errored case in NEW, a lint finding and for cells of OLD that
 * NEW lacks (unless --missing allow), 3 for a module NEW's run did not lint
 * (unless it said --lint off), 4 for a SLOWER only, 0 otherwise; the missing
 * count is always printed. NEW is h200-run1 changed as each row says. */
enum { NEW_SAME, NEW_FAILED, NEW_ERRORED, NEW_EMPTY, NEW_SHORT, NEW_SLOWER, NEW_SLOWER_SHORT,
       NEW_LINT_NOT_RUN, NEW_LINT_OFF, NEW_LINT_FINDING, NEW_LINT_NOT_RUN_SLOWER };
static const struct {
  int change;
  const char *missing; /* --missing's value, or NULL */
  int code;
  const char *says;
} k_compare_codes[] = {
    {NEW_SAME, NULL, KG_EXIT_OK, "\nmissing: 0 of the cells in "},
    {NEW_FAILED, NULL, KG_EXIT_FAIL, "/new.json has 1 failed and 0 errored cases\n"},
    {NEW_ERRORED, "allow", KG_EXIT_FAIL, "/new.json has 0 failed and 1 errored cases\n"},
    {NEW_EMPTY, NULL, KG_EXIT_FAIL, "\nmissing: 240 of the cells in "},
    {NEW_EMPTY, "fail", KG_EXIT_FAIL, "/new.json (a failure; --missing allow accepts them)\n"},
    {NEW_EMPTY, "allow", KG_EXIT_OK, "/new.json (--missing allow: not a failure)\n"},
    {NEW_SHORT, NULL, KG_EXIT_FAIL, "\nmissing: 40 of the cells in "},
    {NEW_SHORT, "allow", KG_EXIT_OK, "\nmissing: 40 of the cells in "},
    {NEW_SLOWER, NULL, KG_EXIT_PERF, "\nmissing: 0 of the cells in "},
    {NEW_SLOWER_SHORT, NULL, KG_EXIT_FAIL, "\nmissing: 40 of the cells in "},
    {NEW_SLOWER_SHORT, "allow", KG_EXIT_PERF, "\nmissing: 40 of the cells in "},
    {NEW_LINT_NOT_RUN, NULL, KG_EXIT_ENV,
     "kgate: lint: /x/team.so was not linted: no disassembler here (a failure, exit 3; --lint off runs without the "
     "lint)\n"},
    {NEW_LINT_OFF, NULL, KG_EXIT_OK, "\nmissing: 0 of the cells in "},
    {NEW_LINT_FINDING, NULL, KG_EXIT_FAIL, "\nverdict: FAIL (exit 1): 1 lint finding (memory ordering)\n"},
    {NEW_SLOWER_SHORT, NULL, KG_EXIT_FAIL, "\nverdict: FAIL (exit 1): 40 cells of "},
    {NEW_SLOWER, NULL, KG_EXIT_PERF, "\nverdict: REGRESSION (exit 4): 240 cases slower than "},
    {NEW_LINT_NOT_RUN_SLOWER, NULL, KG_EXIT_ENV, "kgate: lint: /x/team.so was not linted: "},
};

START_TEST(test_cli_missing_option) {
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse((char *[]){"compare", "a", "b", "--missing", "allow", NULL}, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(CMP(cli)->allow_missing, 1);
  kg_cli_free(&cli);
  ck_assert_msg(kgt_parse((char *[]){"compare", "a", "b", NULL}, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(CMP(cli)->allow_missing, 0);
  kg_cli_free(&cli);
  kgt_assert_rejected((char *[]){"compare", "a", "b", "--missing", "ok", NULL},
                      "bad value 'ok' for --missing (expected allow or fail)");
  kgt_assert_rejected((char *[]){"check", "--missing", "allow", NULL}, "'--missing' is an option of compare, not of check");
}
END_TEST

/* report --html renders beside DIR and renames the folder into place: a
 * write that fails (a full disk, here the file size limit) exits 2 with the
 * old page as it was and no temp folder left; a folder that is neither empty
 * nor a kgate page, or a file, is refused before anything is written; a link
 * to the folder stays a link. */
static int report_limited(char *results, char *site, rlim_t limit, const char *path) {
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit r = {limit, limit};
    signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG, as on a full disk */
    setrlimit(RLIMIT_FSIZE, &r);
    if (path) setenv("PATH", path, 1);
    _exit(kgt_run_cli((char *[]){"report", results, "--html", site, NULL}));
  }
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(test_cli_report_site_atomic) {
  char dir[64], results[1024], site[128], index[160], link[128], mine[128], path[192], out[8192];
  kgt_mkscratch(dir, sizeof dir, "site");
  data_path("h200-run1.json", results, sizeof results);
  snprintf(site, sizeof site, "%s/site", dir);
  snprintf(index, sizeof index, "%s/index.html", site);
  int code = kgt_run_cli((char *[]){"report", results, "--html", site, NULL});
  ck_assert_msg(code == KG_EXIT_OK || code == KG_EXIT_ENV, "report exited %d", code); /* 3: no gnuplot here */
  char *before = kgt_slurp(index);
  ck_assert_ptr_nonnull(before);
  ck_assert_int_eq(kgt_count_files(dir, "site"), 0);
  int files = kgt_count_files(site, NULL);
  /* the disk fills while the new page is written: the old one stays whole */
  ck_assert_int_eq(report_limited(results, site, 4096, NULL), KG_EXIT_USAGE);
  char *after = kgt_slurp(index);
  ck_assert_ptr_nonnull(after);
  ck_assert_str_eq(after, before);
  ck_assert_int_eq(kgt_count_files(site, NULL), files);
  ck_assert_int_eq(kgt_count_files(dir, "site"), 0); /* no site.tmp.* left */
  free(after);
  /* killed while it draws, after the result files of another run were
   * written: not one of them reached the old page */
  char bin[128], fake[160], json[160], other[1024];
  snprintf(bin, sizeof bin, "%s/bin", dir);
  snprintf(fake, sizeof fake, "%s/gnuplot", bin);
  ck_assert_int_eq(mkdir(bin, 0755), 0);
  kgt_spit(fake, "#!/bin/sh\nkill -9 $PPID\nsleep 5\n");
  ck_assert_int_eq(chmod(fake, 0755), 0);
  snprintf(json, sizeof json, "%s/results.json", site);
  char *json_before = kgt_slurp(json);
  data_path("h200-run2.json", other, sizeof other);
  ck_assert_int_eq(report_limited(other, site, RLIM_INFINITY, bin), -1); /* killed */
  char *json_after = kgt_slurp(json);
  ck_assert_str_eq(json_after, json_before);
  ck_assert_int_eq(kgt_count_files(dir, "site"), 2); /* bin, and the killed report's temp folder */
  free(json_before), free(json_after);
  kgt_rmtree(bin);
  /* the same again undisturbed: the page is replaced, the killed one's temp folder swept */
  code = report_limited(results, site, RLIM_INFINITY, NULL);
  ck_assert_msg(code == KG_EXIT_OK || code == KG_EXIT_ENV, "report exited %d", code);
  ck_assert_int_eq(kgt_count_files(dir, "site"), 0);
  /* through a link: the folder it names is replaced, the link stays */
  snprintf(link, sizeof link, "%s/link", dir);
  ck_assert_int_eq(symlink("site", link), 0);
  code = kgt_run_cli((char *[]){"report", results, "--html", link, NULL});
  ck_assert_msg(code == KG_EXIT_OK || code == KG_EXIT_ENV, "report exited %d", code);
  struct stat st;
  ck_assert(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
  ck_assert_int_eq(kgt_count_files(dir, "site"), 1); /* the link, and no temp folder */
  /* a folder of other files is never replaced, nor is a file */
  snprintf(mine, sizeof mine, "%s/mine", dir);
  snprintf(path, sizeof path, "%s/notes.txt", mine);
  ck_assert_int_eq(mkdir(mine, 0755), 0);
  kgt_spit(path, "mine\n");
  char *args[] = {"report", results, "--html", mine, NULL};
  ck_assert_int_eq(run_capture(args, out, sizeof out), KG_EXIT_USAGE);
  ck_assert_msg(strstr(out, " holds files and no kgate page (index.html): refusing to replace it"), "%s", out);
  char *kept = kgt_slurp(path);
  ck_assert_str_eq(kept, "mine\n");
  args[3] = path;
  ck_assert_int_eq(run_capture(args, out, sizeof out), KG_EXIT_USAGE);
  ck_assert_msg(strstr(out, "/notes.txt: not a folder"), "%s", out);
  free(kept), free(before);
  kgt_rmtree(dir);
  kg_registry_reset();
}
END_TEST

START_TEST(test_cli_compare_exit_codes) {
  char dir[64], old[1024], new[256], err[512], out[65536];
  kgt_mkscratch(dir, sizeof dir, "compare");
  data_path("h200-run1.json", old, sizeof old);
  snprintf(new, sizeof new, "%s/new.json", dir);
  kg_run run;
  ck_assert_msg(kg_results_read(old, &run, err, sizeof err) == 0, "%s", err);
  size_t n = run.n;
  switch (k_compare_codes[_i].change) {
  case NEW_FAILED:
  case NEW_ERRORED:
    run.results[3].status = k_compare_codes[_i].change == NEW_FAILED ? KG_ST_FAIL : KG_ST_ERROR;
    run.results[3].timing.samples = 0; /* a failed case is not timed */
    snprintf(run.results[3].message, sizeof run.results[3].message, "wrong result");
    break;
  case NEW_EMPTY: run.n = 0; break;
  case NEW_SHORT: run.n -= 40; break;
  case NEW_LINT_NOT_RUN:
  case NEW_LINT_OFF:
  case NEW_LINT_FINDING:
  case NEW_LINT_NOT_RUN_SLOWER: /* one module's lint, as the run recorded it */
    ck_assert_ptr_nonnull(run.lint = calloc(1, sizeof *run.lint));
    run.nlint = 1;
    snprintf(run.lint[0].path, sizeof run.lint[0].path, "/x/team.so");
    snprintf(run.lint[0].why, sizeof run.lint[0].why, "%s",
             k_compare_codes[_i].change == NEW_LINT_OFF ? "--lint off" : "no disassembler here");
    run.lint[0].off = k_compare_codes[_i].change == NEW_LINT_OFF;
    if (k_compare_codes[_i].change == NEW_LINT_FINDING) {
      ck_assert_ptr_nonnull(run.lint[0].items = calloc(1, sizeof *run.lint[0].items));
      run.lint[0].ran = 1, run.lint[0].nitems = 1;
      run.lint[0].items[0] = (kg_lint_item){.kernel = "k", .arch = 90, .side = "release", .first = "0x0010 STG",
                                            .second = "0x0020 ATOMG", .path = "0x0010 -> 0x0020"};
    }
    if (k_compare_codes[_i].change != NEW_LINT_NOT_RUN_SLOWER) break;
    /* fall through */
  case NEW_SLOWER_SHORT:
    if (k_compare_codes[_i].change == NEW_SLOWER_SHORT) run.n -= 40;
    /* fall through */
  case NEW_SLOWER:
    for (size_t i = 0; i < run.n; i++) {
      kg_timing *t = &run.results[i].timing;
      t->min_us *= 2, t->q1_us *= 2, t->median_us *= 2, t->q3_us *= 2;
    }
    break;
  }
  ck_assert_msg(kg_results_write(new, &run, err, sizeof err) == 0, "%s", err);
  run.n = n;
  kg_run_free(&run);
  kg_registry_reset();
  char *args[] = {"compare", old, new, "--missing", (char *)k_compare_codes[_i].missing, NULL};
  if (!k_compare_codes[_i].missing) args[3] = NULL;
  ck_assert_int_eq(run_capture(args, out, sizeof out), k_compare_codes[_i].code);
  ck_assert_msg(strstr(out, k_compare_codes[_i].says) != NULL, "'%s' lacks '%s'", out, k_compare_codes[_i].says);
  ck_assert_msg(strstr(out, "\nmissing: "), "the missing count is always printed: %s", out);
  /* the JUnit of the same compare agrees with its exit code: failures only when it fails */
  char junit[600], *args_j[] = {"compare", old, new, "--junit", junit, NULL};
  snprintf(junit, sizeof junit, "%s/compare.xml", dir);
  int code = k_compare_codes[_i].code;
  if (!k_compare_codes[_i].missing && code != KG_EXIT_ENV) {
    ck_assert_int_eq(run_capture(args_j, out, sizeof out), code);
    char *x = kgt_slurp(junit), *f = strstr(x, "failures=\"");
    ck_assert_msg(f && (strncmp(f, "failures=\"0\"", 12) == 0) == (code == KG_EXIT_OK), "exit %d, JUnit %.80s", code, f);
    free(x);
  }
  kgt_rmtree(dir);
  kg_registry_reset();
}
END_TEST

/* The output formats' table feeds the CLI: each format's option sets its
 * report path for check and run, for compare only where the table says so,
 * and every format has its own option and its own file in a report folder. */
START_TEST(test_cli_formats_from_table) {
  const kg_format *f = &kg_formats[_i];
  ck_assert(f->name && f->option && f->file && f->about && f->print);
  for (int k = 0; k < KG_NFORMATS; k++)
    if (k != _i) ck_assert(strcmp(f->option, kg_formats[k].option) && strcmp(f->file, kg_formats[k].file));
  kg_cli cli;
  char err[256];
  ck_assert_msg(kgt_parse((char *[]){"check", (char *)f->option, "out", NULL}, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(GATE(cli)->reports[_i], "out");
  for (int k = 0; k < KG_NFORMATS; k++)
    if (k != _i) ck_assert_ptr_null(GATE(cli)->reports[k]);
  kg_cli_free(&cli);
  /* compare takes a format's option when the row says so; its --json is its
   * own (the verdicts, test_cli_json_per_command), never the results format */
  int code = kgt_parse((char *[]){"compare", "a.json", "b.json", (char *)f->option, "out", NULL}, &cli, err, sizeof err);
  ck_assert_int_eq(code, f->compare || _i == KG_FMT_JSON ? 0 : KG_EXIT_USAGE);
  if (f->compare) ck_assert_str_eq(CMP(cli)->reports[_i], "out");
  else if (!code) ck_assert_ptr_null(CMP(cli)->reports[_i]);
  kg_cli_free(&cli);
}
END_TEST

/* The nightly's control for a team's module (the action's nightly mode):
 * --kernels CTL.so --base-kernels REF.so, where CTL.so is a byte-for-byte copy
 * of the pinned REF.so at another path. The copy's names are the base's
 * names, as head and base always are; kgate's own variants do not collide
 * with them, so no --own-kernels is needed; the pin check passes for the
 * base, and the results are a paired run against the pinned hash. */
static int copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  char buf[8192];
  size_t n;
  int rc = in && out ? 0 : -1;
  while (!rc && (n = fread(buf, 1, sizeof buf, in)) > 0) rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
  if (in) fclose(in);
  if (out && fclose(out)) rc = -1;
  return rc;
}

/* A scratch folder dir with the minmax test module twice: ref (dir/ref.so,
 * 128 bytes) and ctl (dir/ctl/ref.so, 160); mod (1024) gets its path. */
static void two_copies(char *dir, size_t len, const char *tag, char *ref, char *ctl, char *mod) {
  kgt_mkscratch(dir, len, tag);
  snprintf(ref, 128, "%s/ref.so", dir);
  snprintf(ctl, 160, "%s/ctl", dir);
  ck_assert_int_eq(mkdir(ctl, 0755), 0);
  snprintf(ctl, 160, "%s/ctl/ref.so", dir);
  testmod("minmax", mod, 1024);
  ck_assert_int_eq(copy_file(mod, ref), 0);
  ck_assert_int_eq(copy_file(mod, ctl), 0);
}

/* --carry-from DIR: a baseline there that cannot be read is refused in one
 * line naming the file (exit 2); no baseline there, or no check record to
 * compare with (the fake worker's module has no machine code to read),
 * carries nothing and every case runs. */
START_TEST(test_cli_carry_from) {
  char dir[64], path[160], out[8192];
  kgt_mkscratch(dir, sizeof dir, "carryfrom");
  char *args[] = {"run", "--worker", FAKE_WORKER, "--lint", "off", "--variant", "reduce0_divergent", "--dtype", "i32",
                  "--sizes", "2^20", "--perf-sizes", "2^20", "--carry-from", dir, NULL};
  int code = run_capture(args, out, sizeof out);
  ck_assert_msg(code == KG_EXIT_OK, "exit %d: %s", code, out);
  ck_assert_msg(strstr(out, "kgate: no baseline ") && strstr(out, "/fake-device.json: every case is run"), "%s", out);
  snprintf(path, sizeof path, "%s/fake-device.json", dir);
  kgt_spit(path, "{\"kind\":\"kgate-baseline\",\"schema_version\":1}\n");
  char *again[] = {"run", "--worker", FAKE_WORKER, "--lint", "off", "--variant", "reduce0_divergent", "--dtype", "i32",
                   "--sizes", "2^20", "--perf-sizes", "2^20", "--carry-from", dir, NULL};
  code = run_capture(again, out, sizeof out);
  ck_assert_msg(code == KG_EXIT_USAGE, "exit %d: %s", code, out);
  ck_assert_msg(strstr(out, "kgate: --carry-from: ") && strstr(out, "fake-device.json"), "%s", out);
  kgt_rmtree(dir);
}
END_TEST

/* Sequential stopping (seqtest.h): a cell the test decides SAME after its
 * first round gets no second round; one still undecided after it (4 %
 * apart: LLR -2.4 at 4 blocks, the bound -3.0, the minimum effect 5 %) gets
 * its second round and is SAME there (-4.9); a cell 10.5 % slower is SLOWER
 * only after its second round (SLOWER needs two workers' blocks), and the
 * run exits 4 with the evidence in the results. (A loop test: each in a
 * process of its own, as a module's variants join the registry once.) */
static const struct {
  const char *spread, *verdict, *rounds;
  int code;
} k_spreads[] = {{"tight", "\"verdict\":\"SAME\"", "\"rounds\":1,", KG_EXIT_OK},
                 {"wide", "\"verdict\":\"SAME\"", "\"rounds\":2,", KG_EXIT_OK},
                 {"slow", "\"verdict\":\"SLOWER\"", "\"rounds\":2,", KG_EXIT_PERF}};

START_TEST(test_cli_paired_stops_early) {
  char dir[64], ref[128], ctl[160], json[128], mod[1024], out[8192];
  two_copies(dir, sizeof dir, "early", ref, ctl, mod);
  snprintf(json, sizeof json, "%s/early.json", dir);
  char *args[] = {"run", "--worker", FAKE_WORKER, "--lint", "off", "--kernels", ctl, "--base-kernels", ref,
                  "--variant", "team_sum", "--dtype", "f32", "--sizes", "1", "--perf-sizes", "2", "--rounds", "2",
                  "--max-rounds", "3", "--json", json, NULL};
  setenv("FAKE_PAIR", k_spreads[_i].spread, 1);
  int code = run_capture(args, out, sizeof out);
  unsetenv("FAKE_PAIR");
  ck_assert_msg(code == k_spreads[_i].code, "%s: exit %d: %s", k_spreads[_i].spread, code, out);
  char *text = kgt_slurp(json), *cell = text ? strstr(text, "\"cells\":[") : NULL;
  ck_assert_msg(cell && strstr(cell, k_spreads[_i].verdict) && strstr(cell, k_spreads[_i].rounds), "%s: %.900s",
                k_spreads[_i].spread, cell ? cell : "(no cells)");
  ck_assert_msg(strstr(cell, "\"llr_slower\":") && strstr(cell, "\"llr_faster\":"), "no evidence: %.900s", cell);
  ck_assert_msg(strstr(text, "\"sequential\":{\"test\":\"gsprt\",\"alpha\":0.002,\"beta\":0.05,") != NULL,
                "no sequential settings: %.2000s", strstr(text, "\"paired\""));
  free(text);
  kgt_rmtree(dir);
}
END_TEST

/* The re-check after timing in the paired rounds, with the fake worker's
 * answers: a head wrong after timing fails its case (wrong_after_timing,
 * exit 1), a correctness failure and never a verdict (its cell UNKNOWN,
 * no more rounds), also when an earlier round passed; a wrong base says so
 * in its cell and leaves the head's case passed (exit 0). */
static const struct {
  const char *mode, *cell, *rounds;
  int code;
} k_wrongs[] = {{"wrong_head", "the head was wrong after timing: copy 2, after timing, sample 5", "\"rounds\":0,", 1},
                {"wrong_base", "the base was wrong after timing, not the head: copy 2", "\"rounds\":0,", 0},
                {"wrong_late", "the head was wrong after timing: copy 2", "\"rounds\":1,", 1}};

START_TEST(test_cli_paired_wrong_after_timing) {
  char dir[64], ref[128], ctl[160], json[128], mod[1024], out[8192];
  two_copies(dir, sizeof dir, "wrong", ref, ctl, mod);
  snprintf(json, sizeof json, "%s/wrong.json", dir);
  char *args[] = {"run", "--worker", FAKE_WORKER, "--lint", "off", "--kernels", ctl, "--base-kernels", ref,
                  "--variant", "team_sum", "--dtype", "f32", "--sizes", "1", "--perf-sizes", "2", "--rounds", "3",
                  "--json", json, NULL};
  setenv("FAKE_PAIR", k_wrongs[_i].mode, 1);
  int code = run_capture(args, out, sizeof out);
  unsetenv("FAKE_PAIR");
  ck_assert_msg(code == k_wrongs[_i].code, "%s: exit %d: %s", k_wrongs[_i].mode, code, out);
  char *text = kgt_slurp(json), *cell = text ? strstr(text, "\"cells\":[") : NULL;
  ck_assert_msg(cell && strstr(cell, "\"verdict\":\"UNKNOWN\"") && strstr(cell, k_wrongs[_i].cell) &&
                    strstr(cell, k_wrongs[_i].rounds), "%s: %.900s", k_wrongs[_i].mode, cell ? cell : "(no cells)");
  const char *failed = strstr(text, "\"fail\":\"wrong_after_timing\"");
  ck_assert_msg(k_wrongs[_i].code ? failed != NULL : failed == NULL, "%s: %.1500s", k_wrongs[_i].mode, text);
  if (failed) { /* the head's case: the worker's message, the guard's count, no timing */
    ck_assert_msg(strstr(text, "\"message\":\"paired, copy 2, after timing, sample 5 of 128") &&
                      strstr(text, "\"rechecked\":64"), "%.1500s", text);
    ck_assert_msg(strstr(text, "\"samples\":") == NULL || strstr(text, "\"samples\":0") != NULL, "%.1500s", text);
  }
  free(text);
  kgt_rmtree(dir);
}
END_TEST

START_TEST(test_cli_team_control_is_a_copy) {
  char dir[64], ref[128], ctl[160], pins[128], json[128], mod[1024], sha[65], err[256], out[8192];
  two_copies(dir, sizeof dir, "control", ref, ctl, mod);
  snprintf(pins, sizeof pins, "%s/pins.json", dir);
  snprintf(json, sizeof json, "%s/control.json", dir);
  ck_assert_int_eq(kg_sha256_file(ref, sha, err, sizeof err), 0);
  char doc[512];
  snprintf(doc, sizeof doc,
           "{\"kind\":\"kgate-reference-pins\",\"schema_version\":1,\"pins\":[{\"module\":\"teammod\",\"sha256\":\"%s\","
           "\"commit\":\"abcdef1\",\"nvcc\":\"12.8\",\"architectures\":\"90-real\",\"pinned\":\"2026-11-25\"}]}\n", sha);
  kgt_spit(pins, doc);
  char *args[] = {"run", "--worker", FAKE_WORKER, "--lint", "off", "--kernels", ctl, "--base-kernels", ref,
                  "--reference", pins,
                  "--variant", "team_sum,team_max", "--dtype", "f32", "--sizes", "1", "--perf-sizes", "2",
                  "--rounds", "2", "--json", json, NULL};
  int code = run_capture(args, out, sizeof out);
  ck_assert_msg(code == KG_EXIT_OK, "exit %d: %s", code, out);
  /* In a log: the phase's line, then pairrun's line per round, no count lines of their passes. */
  ck_assert_msg(strstr(out, "kgate: paired rounds: against teammod ") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "kgate: paired rounds: done") == NULL, "%s", out);
  char *text = kgt_slurp(json);
  ck_assert_msg(strstr(text, sha) != NULL, "the control does not record the pinned hash: %.600s", text);
  ck_assert_msg(strstr(text, "\"base_commit\":\"abcdef1\"") != NULL, "%.600s", text);
  /* the nightly keeps the interval of every round: no sequential decision */
  ck_assert_msg(strstr(text, "\"sequential\"") == NULL && strstr(text, "\"llr_slower\"") == NULL, "%.600s", text);
  free(text);
  kgt_rmtree(dir);
  kg_registry_reset();
}
END_TEST

/* Cells proven unchanged, end to end: the fake worker's probe names the
 * kernel its variants launch, a stand-in cuobjdump gives the head module
 * (ctl/) the unit plain.cubin and the base module plain5.cubin
 * (tests/data/cubin). k_parent is the same code in both: every cell is
 * UNCHANGED with its evidence and timed once; k_child differs: the cells are
 * paired, and the log says why; --time-unchanged probes nothing. */
START_TEST(test_cli_unchanged_cells) {
  char dir[64], ref[128], ctl[160], json[128], tool[128], mod[1024], out[16384], script[1024];
  two_copies(dir, sizeof dir, "unch", ref, ctl, mod);
  snprintf(json, sizeof json, "%s/run.json", dir);
  snprintf(tool, sizeof tool, "%s/cuobjdump", dir);
  snprintf(script, sizeof script,
           "#!/bin/sh\ncase \"$3\" in */ctl/*) u=plain ;; */ref.so) u=plain5 ;; *) exit 1 ;; esac\n"
           "cp %s/tests/data/cubin/$u.cubin mod.1.sm_90.cubin\n", KG_SOURCE_DIR);
  kgt_spit(tool, script);
  ck_assert_int_eq(chmod(tool, 0755), 0);
  setenv("KGATE_CUOBJDUMP", tool, 1);
  char *args[] = {"run", "--worker", FAKE_WORKER, "--lint", "off", "--kernels", ctl, "--base-kernels", ref, "--variant",
                  "team_sum,team_max",
                  "--dtype", "f32", "--sizes", "1", "--perf-sizes", "2", "--json", json, NULL, NULL};
  setenv("FAKE_PROBE_KERNEL", "_Z8k_parentPi", 1);
  int code = run_capture(args, out, sizeof out);
  kg_registry_reset(); /* the run added the module's variants */
  ck_assert_msg(code == KG_EXIT_OK, "exit %d: %s", code, out);
  ck_assert_msg(strstr(out, "kgate: 2 of 2 cells proven unchanged") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "not timed (--absolute-unchanged times them)") != NULL, "%s", out);
  char *text = kgt_slurp(json);
  ck_assert_msg(strstr(text, "\"verdict\":\"UNCHANGED\"") != NULL, "%.2000s", text);
  ck_assert_msg(strstr(text, "same machine code (sm_90, SHA-256 ") && strstr(text, "1 kernel, 2 launches"), "%.2000s", text);
  free(text);
  /* --absolute-unchanged: the same cells, UNCHANGED and timed once (the fake worker times nothing) */
  args[19] = "--absolute-unchanged";
  code = run_capture(args, out, sizeof out);
  kg_registry_reset();
  ck_assert_msg(code == KG_EXIT_OK, "exit %d: %s", code, out);
  ck_assert_msg(strstr(out, "kgate: 2 of 2 cells proven unchanged (the same machine code and launches): timed once") != NULL,
                "%s", out);
  text = kgt_slurp(json);
  ck_assert_msg(strstr(text, "\"verdict\":\"UNCHANGED\"") != NULL, "%.2000s", text);
  free(text);
  args[19] = NULL;
  setenv("FAKE_PROBE_KERNEL", "_Z7k_childPi", 1);
  code = run_capture(args, out, sizeof out);
  kg_registry_reset();
  ck_assert_msg(code == KG_EXIT_OK, "exit %d: %s", code, out);
  ck_assert_msg(strstr(out, "kgate: 0 of 2 cells proven unchanged") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "is paired: not proven unchanged (f32 2: machine code differs: _Z7k_childPi)") != NULL,
                "%s", out);
  text = kgt_slurp(json);
  ck_assert_msg(strstr(text, "UNCHANGED") == NULL, "%.2000s", text);
  free(text);
  args[19] = "--time-unchanged";
  setenv("FAKE_PROBE_KERNEL", "_Z8k_parentPi", 1);
  code = run_capture(args, out, sizeof out);
  ck_assert_msg(code == KG_EXIT_OK, "exit %d: %s", code, out);
  ck_assert_msg(strstr(out, "proven unchanged") == NULL, "%s", out);
  unsetenv("FAKE_PROBE_KERNEL");
  unsetenv("KGATE_CUOBJDUMP");
  kgt_rmtree(dir);
  kg_registry_reset();
}
END_TEST

/* Not a terminal (a CI log): the phase lines and the phase's done line with
 * its counts; -q: none of them. The line rate and the ETA: check_progress.c. */
START_TEST(test_cli_progress_in_a_log) {
  char out[8192];
  char *args[] = {"check", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--sizes", "1,13,2", NULL};
  ck_assert_int_eq(run_capture(args, out, sizeof out), KG_EXIT_FAIL);
  ck_assert_msg(strstr(out, "kgate: check: ") != NULL && strstr(out, " cases on 1 device\n"), "%s", out);
  ck_assert_msg(strstr(out, "kgate: check: done, ") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "cases, 0 failed") == NULL, "a failed case not counted: %s", out);
  ck_assert_msg(strstr(out, "kgate: reports\n") != NULL, "%s", out);
  ck_assert_ptr_null(strchr(out, '\r'));
  char *quiet[] = {"check", "--worker", FAKE_WORKER, "--variant", "cub_sum", "--dtype", "i32", "--sizes", "1,13,2", "-q", NULL};
  ck_assert_int_eq(run_capture(quiet, out, sizeof out), KG_EXIT_FAIL);
  ck_assert_msg(strstr(out, "kgate: check") == NULL && strstr(out, "kgate: reports") == NULL, "%s", out);
}
END_TEST

Suite *make_cli_suite(void) {
  Suite *s = suite_create("cli");
  TCase *core = tcase_create("Core");
  tcase_set_timeout(core, 30);
  tcase_add_test(core, test_cli_no_args_exits_2);
  tcase_add_test(core, test_cli_check_defaults);
  tcase_add_test(core, test_cli_row_defaults);
  tcase_add_test(core, test_cli_bisect_rows);
  tcase_add_loop_test(core, test_cli_row_values, 0, N(k_row_values));
  tcase_add_test(core, test_cli_row_targets);
  tcase_add_loop_test(core, test_cli_commands, 0, N(k_commands));
  tcase_add_loop_test(core, test_cli_options, 0, 2);
  tcase_add_test(core, test_cli_run_options);
  tcase_add_test(core, test_cli_options_per_command);
  tcase_add_loop_test(core, test_cli_formats_from_table, 0, KG_NFORMATS);
  tcase_add_test(core, test_cli_multi_options);
  tcase_add_test(core, test_cli_usage_text);
  tcase_add_test(core, test_cli_help_per_command);
  tcase_add_test(core, test_cli_plan_needs_no_worker);
  tcase_add_test(core, test_cli_json_per_command);
  tcase_add_test(core, test_cli_list_and_compare_json);
  tcase_add_test(core, test_cli_bundles_and_end_of_options);
  tcase_add_loop_test(core, test_cli_run_exit_codes, 0, N(k_runs));
  tcase_add_test(core, test_cli_kernels_options);
  tcase_add_test(core, test_cli_kernels_check);
  tcase_add_test(core, test_cli_kernels_plan_scoped);
  tcase_add_test(core, test_cli_columns_fit);
  tcase_add_test(core, test_cli_option_prefixes);
  tcase_add_test(core, test_cli_help_leaf_notes);
  tcase_add_test(core, test_cli_progress_in_a_log);
  tcase_add_test(core, test_cli_team_control_is_a_copy);
  tcase_add_loop_test(core, test_cli_paired_stops_early, 0, N(k_spreads));
  tcase_add_loop_test(core, test_cli_paired_wrong_after_timing, 0, N(k_wrongs));
  tcase_add_test(core, test_cli_carry_from);
  tcase_add_test(core, test_cli_unchanged_cells);
  tcase_add_test(core, test_cli_list_kernels);
  tcase_add_loop_test(core, test_cli_module_text_refused, 0, N(k_text_bad));
  tcase_add_test(core, test_cli_module_text_round_trip);
  tcase_add_test(core, test_cli_missing_option);
  tcase_add_test(core, test_cli_report_site_atomic);
  tcase_add_loop_test(core, test_cli_compare_exit_codes, 0, N(k_compare_codes));
  tcase_add_test(core, test_cli_compare_only_changed_and_sort);
  tcase_add_loop_test(core, test_cli_readers_unknown_variant, 0, RD_N);
  suite_add_tcase(s, core);
  tcase_add_loop_test(core, test_gate_san_cell, 0, N(k_cells));
  TCase *limits = tcase_create("Limits");
  tcase_set_timeout(limits, 30);
  tcase_add_test(limits, test_cli_short_and_repeated);
  tcase_add_loop_test(limits, test_cli_hello_follows_timeout, 0, N(k_mute_starts));
  tcase_add_loop_test(limits, test_cli_no_device_said_first, 0, N(k_no_device));
  tcase_add_loop_test(limits, test_cli_interrupted_writes_results, 0, N(k_interrupts));
  tcase_add_test(limits, test_cli_interrupted_before_start);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_cli_rejects, 0, N(k_bad));
  tcase_add_loop_test(errors, test_cli_kernels_refused, 0, N(k_kernels_bad));
  suite_add_tcase(s, errors);
  return s;
}
