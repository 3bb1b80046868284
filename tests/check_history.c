/* history: the line format, appending (append-only, atomic, refusals that
 * leave the file untouched), reading, step changes, and `kgate history`. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "settings.h"
#include "publish.h"
#include "escape.h"
#include "history.h"
#include "varreg.h"
#include "testutil.h"

#define PUB(cli) ((kg_publish_opts *)(cli).settings)

#define M25 ((size_t)1 << 25)

enum { NCASES = 4 };
static kg_case g_cases[NCASES];
static kg_result g_results[NCASES];
static kg_run g_run;
static char g_dir[64], g_path[128];

/* Three timed f32 cases at 2^25 (reduce0, reduce7, CUB) and an untimed check. */
static void make_run(const char *date, double r0_us) {
  int r0 = kg_variant_find("reduce0_divergent"), r7 = kg_variant_find("reduce7_shuffle"),
      cub = kg_variant_find("cub_sum");
  g_cases[0] = (kg_case){r0, KG_F32, M25, KG_PAT_UNIFORM, 1, 1};
  g_cases[1] = (kg_case){r7, KG_F32, M25, KG_PAT_UNIFORM, 1, 1};
  g_cases[2] = (kg_case){cub, KG_F32, M25, KG_PAT_UNIFORM, 1, 1};
  g_cases[3] = (kg_case){r0, KG_I32, 33, KG_PAT_EXACT, 1, 0};
  for (int i = 0; i < NCASES; i++) g_results[i] = (kg_result){.status = KG_ST_PASS, .got = "1", .expected = "1"};
  g_results[0].timing = kgt_timing(r0_us);
  g_results[1].timing = kgt_timing(44.123456789);
  g_results[2].timing = kgt_timing(36);
  g_run = (kg_run){.n = NCASES, .cases = g_cases, .results = g_results};
  kg_run_meta *m = &g_run.meta;
  kgt_stamp(m, "abc123def456");
  snprintf(m->date, sizeof m->date, "%s", date);
  m->dev = kgt_h200();
}

static void setup(void) {
  make_run("2026-11-21T08:30:00Z", 200);
  kgt_mkscratch(g_dir, sizeof g_dir, "history");
  snprintf(g_path, sizeof g_path, "%s/history.jsonl", g_dir);
}

static void teardown(void) {
  ck_assert_int_eq(kgt_rmtree(g_dir), 0);
}

static size_t count_lines(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static void add_ok(const char *date, double r0_us) {
  char err[512] = "";
  make_run(date, r0_us);
  ck_assert_msg(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err) == 0, "%s", err);
}

/* ---- Core ------------------------------------------------------------------ */

START_TEST(test_history_line_compact) {
  char *line = kg_history_line(&g_run, NULL, NULL);
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_null(strchr(line, '\n'));
  ck_assert_msg(strncmp(line, "{\"kind\":\"kgate-history\",\"schema_version\":1,\"date\":\"2026-11-21T08:30:00Z\"", 72) == 0,
                "%s", line);
  /* Only timed cases, six significant digits. */
  ck_assert_ptr_nonnull(strstr(line, "[\"reduce7_shuffle\",\"f32\",33554432,44.1235,"));
  ck_assert_ptr_nonnull(strstr(line, "[\"cub_sum\",\"f32\",33554432,36.0,35.82,36.18,12]"));
  ck_assert_ptr_null(strstr(line, "\"i32\""));
  ck_assert_ptr_nonnull(strstr(line, "\"checks\":{\"cases\":4,\"passed\":4,\"failed\":0,"));
  ck_assert_ptr_nonnull(strstr(line, "\"hot\":false"));
  free(line);
}
END_TEST

START_TEST(test_history_add_appends) {
  add_ok("2026-11-21T08:30:00Z", 200);
  char *one = kgt_slurp(g_path);
  ck_assert_uint_eq(count_lines(one), 1);
  add_ok("2026-11-22T08:30:00Z", 210);
  char *two = kgt_slurp(g_path);
  ck_assert_uint_eq(count_lines(two), 2);
  /* The first line is kept byte for byte. */
  ck_assert_int_eq(strncmp(one, two, strlen(one)), 0);
  ck_assert_ptr_nonnull(strstr(two + strlen(one), "\"date\":\"2026-11-22T08:30:00Z\""));
  /* No temporary file is left beside it. */
  char cmd[160];
  snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", g_dir);
  ck_assert_int_eq(system(cmd), 0);
  free(one);
  free(two);
}
END_TEST

START_TEST(test_history_add_twice_is_harmless) {
  char err[512] = "";
  add_ok("2026-11-21T08:30:00Z", 200);
  char *before = kgt_slurp(g_path);
  ck_assert_int_eq(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err), 1);
  char *after = kgt_slurp(g_path);
  ck_assert_str_eq(before, after);
  free(before);
  free(after);
}
END_TEST

START_TEST(test_history_read_back) {
  add_ok("2026-11-21T08:30:00Z", 200);
  add_ok("2026-11-22T08:30:00Z", 210);
  kg_history h;
  char err[512] = "";
  ck_assert_msg(kg_history_read(g_path, &h, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(h.n, 2);
  ck_assert_str_eq(h.runs[1].date, "2026-11-22T08:30:00Z");
  ck_assert_str_eq(h.runs[0].commit, "abc123def456");
  ck_assert_str_eq(h.runs[0].dev.name, "NVIDIA H200");
  ck_assert_double_eq_tol(h.runs[0].dev.peak_gbps, 4814.304, 1e-9);
  ck_assert_uint_eq(h.runs[0].checks.passed, 4);
  ck_assert_uint_eq(h.runs[0].n, 3);
  const kg_hist_entry *e = kg_hist_find(&h.runs[1], "reduce0_divergent", KG_F32, M25);
  ck_assert_ptr_nonnull(e);
  ck_assert_double_eq_tol(e->t.median_us, 210, 1e-9);
  ck_assert_double_eq_tol(e->t.q3_us, 211.05, 1e-9);
  ck_assert_int_eq(e->t.samples, 12);
  ck_assert_ptr_null(kg_hist_find(&h.runs[1], "reduce0_divergent", KG_I32, 33));
  kg_history_free(&h);
}
END_TEST

START_TEST(test_history_blank_lines_and_no_final_newline) {
  add_ok("2026-11-21T08:30:00Z", 200);
  char *text = kgt_slurp(g_path);
  size_t len = strlen(text);
  text[len - 1] = '\0'; /* drop the final newline */
  char *edited = malloc(len + 8);
  snprintf(edited, len + 8, "\n \n%s", text);
  kgt_spit(g_path, edited);
  add_ok("2026-11-22T08:30:00Z", 210); /* a newline goes in before the new line */
  kg_history h;
  char err[512] = "";
  ck_assert_msg(kg_history_read(g_path, &h, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(h.n, 2);
  kg_history_free(&h);
  char *after = kgt_slurp(g_path);
  ck_assert_int_eq(strncmp(after, edited, strlen(edited)), 0);
  free(text);
  free(edited);
  free(after);
}
END_TEST

/* ---- steps ------------------------------------------------------------------ */

START_TEST(test_history_steps) {
  /* reduce0: 200, 201 (noise), 230 (+14 %, quartiles apart), then a warm-L2
   * run at 100 (another mode: not a step), then 231 (same as 230). */
  add_ok("2026-11-21T08:30:00Z", 200);
  add_ok("2026-11-22T08:30:00Z", 201);
  add_ok("2026-11-23T08:30:00Z", 230);
  make_run("2026-11-24T08:30:00Z", 100);
  g_run.meta.time.hot = 1;
  char err[512] = "";
  ck_assert_int_eq(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err), 0);
  add_ok("2026-11-25T08:30:00Z", 231);
  kg_history h;
  ck_assert_msg(kg_history_read(g_path, &h, err, sizeof err) == 0, "%s", err);
  kg_step *steps;
  size_t n;
  ck_assert_int_eq(kg_history_steps(&h, 0, &steps, &n), 0);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(steps[0].variant, "reduce0_divergent");
  ck_assert_int_eq(steps[0].verdict, KG_V_SLOWER);
  ck_assert_uint_eq(steps[0].run, 2);
  ck_assert_uint_eq(steps[0].prev, 1);
  ck_assert_double_eq_tol(steps[0].before_us, 201, 1e-9);
  ck_assert_double_eq_tol(steps[0].after_us, 230, 1e-9);
  ck_assert_double_eq_tol(steps[0].tol, 0.03, 1e-12); /* 128 MiB of f32 */
  free(steps);
  /* A 20 % tolerance hides it; a faster step is flagged as FASTER. */
  ck_assert_int_eq(kg_history_steps(&h, 20, &steps, &n), 0);
  ck_assert_uint_eq(n, 0);
  free(steps);
  kg_history_free(&h);
  add_ok("2026-11-26T08:30:00Z", 180);
  ck_assert_int_eq(kg_history_read(g_path, &h, err, sizeof err), 0);
  ck_assert_int_eq(kg_history_steps(&h, 0, &steps, &n), 0);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(steps[1].verdict, KG_V_FASTER);
  ck_assert_uint_eq(steps[1].prev, 4);
  free(steps);
  kg_history_free(&h);
}
END_TEST

/* ---- Errors ------------------------------------------------------------------ */

static const char k_line_ok[] =
    "{\"kind\":\"kgate-history\",\"schema_version\":1,\"date\":\"2026-11-20T08:30:00Z\",\"kgate_commit\":\"c0ffee\","
    "\"kgate_version\":\"0.1.0\","
    "\"device\":{\"name\":\"NVIDIA H200\",\"cc_major\":9,\"cc_minor\":0,\"sms\":132,\"l2_bytes\":1,\"mem_bytes\":1,"
    "\"mem_clock_khz\":1,\"bus_width_bits\":1,\"peak_gbps\":1,\"roofline_gbps\":0,\"driver_version\":1,"
    "\"runtime_version\":1},\"hot\":false,\"checks\":{\"cases\":1,\"passed\":1,\"failed\":0,\"errors\":0,"
    "\"unsupported\":0,\"pending\":0},\"perf\":[[\"cub_sum\",\"f32\",1024,1.5,1.4,1.6,10]]}\n";

static const struct {
  const char *second_line; /* after one good line */
  const char *message;
} k_bad_history[] = {
    {"{\"kind\":\"kgate-history\",", "line 2: malformed JSON"},
    {"[1,2]\n", "line 2: not a JSON object"},
    {"{\"kind\":\"kgate-results\",\"schema_version\":1}\n", "line 2: not a kgate history line (kind 'kgate-results')"},
    {"{\"kind\":\"kgate-history\",\"schema_version\":2}\n", "line 2: schema_version 2 is not supported"},
    {"{\"kind\":\"kgate-history\",\"schema_version\":1,\"date\":\"2026-11-21T08:30:00Z\"}\n",
     "line 2: missing field 'kgate_commit'"},
};

START_TEST(test_history_read_rejects) {
  char text[4096], err[512] = "";
  snprintf(text, sizeof text, "%s%s", k_line_ok, k_bad_history[_i].second_line);
  kgt_spit(g_path, text);
  kg_history h;
  ck_assert_int_eq(kg_history_read(g_path, &h, err, sizeof err), -1);
  ck_assert_msg(strstr(err, k_bad_history[_i].message) != NULL, "'%s' lacks '%s'", err, k_bad_history[_i].message);
  ck_assert_msg(strncmp(err, g_path, strlen(g_path)) == 0, "%s", err);
  ck_assert_uint_eq(h.n, 0);
}
END_TEST

/* Entries that are not [variant, dtype, n, median, q1, q3, samples], and a line of another GPU. */
static const struct {
  const char *from, *to, *message;
} k_bad_entries[] = {
    {"[\"cub_sum\",\"f32\",1024,1.5,1.4,1.6,10]", "[\"cub_sum\",\"f32\",1024,1.5]", "line 1: perf[0]: expected"},
    {"[\"cub_sum\",\"f32\",1024,1.5,1.4,1.6,10]", "[\"cub_sum\",\"f99\",1024,1.5,1.4,1.6,10]", "unknown dtype 'f99'"},
    {"[\"cub_sum\",\"f32\",1024,1.5,1.4,1.6,10]", "[\"cub_sum\",\"f32\",-1,1.5,1.4,1.6,10]",
     "line 1: perf[0] (cub_sum f32 -1): n is -1: outside"},
    {"[\"cub_sum\",\"f32\",1024,1.5,1.4,1.6,10]", "[\"cub_sum\",\"f32\",1024,null,1.4,1.6,10]",
     "line 1: perf[0] (cub_sum f32 1024): median_us is null: not a finite time"},
    {"\"name\":\"NVIDIA H200\"", "\"name\":\"NVIDIA H100\"", "line 2: a run of NVIDIA H100 in a history of NVIDIA H200"},
};

START_TEST(test_history_read_rejects_entries) {
  char line[2048], text[4096], err[512] = "";
  snprintf(line, sizeof line, "%s", k_line_ok);
  char *at = strstr(line, k_bad_entries[_i].from);
  ck_assert_ptr_nonnull(at);
  char rest[2048];
  snprintf(rest, sizeof rest, "%s", at + strlen(k_bad_entries[_i].from));
  snprintf(at, sizeof line - (size_t)(at - line), "%s%s", k_bad_entries[_i].to, rest);
  /* The GPU case needs a good first line; the others fail on line 1. */
  if (_i == 4) snprintf(text, sizeof text, "%s%s", k_line_ok, line);
  else snprintf(text, sizeof text, "%s", line);
  kgt_spit(g_path, text);
  kg_history h;
  ck_assert_int_eq(kg_history_read(g_path, &h, err, sizeof err), -1);
  ck_assert_msg(strstr(err, k_bad_entries[_i].message) != NULL, "'%s' lacks '%s'", err, k_bad_entries[_i].message);
}
END_TEST

START_TEST(test_history_add_refuses_untouched) {
  char err[512] = "";
  /* A malformed history: refused, untouched. */
  char bad[4096];
  snprintf(bad, sizeof bad, "%s{oops\n", k_line_ok);
  kgt_spit(g_path, bad);
  ck_assert_int_eq(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "line 2: malformed JSON"), "%s", err);
  char *now = kgt_slurp(g_path);
  ck_assert_str_eq(now, bad);
  free(now);
  /* Another GPU model: refused, untouched. */
  kgt_spit(g_path, k_line_ok);
  snprintf(g_run.meta.dev.name, sizeof g_run.meta.dev.name, "NVIDIA H100 80GB HBM3");
  ck_assert_int_eq(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "holds runs of NVIDIA H200, this run is of NVIDIA H100 80GB HBM3"), "%s", err);
  now = kgt_slurp(g_path);
  ck_assert_str_eq(now, k_line_ok);
  free(now);
}
END_TEST

START_TEST(test_history_add_refuses_untimed_run) {
  char err[512] = "";
  for (int i = 0; i < NCASES; i++) g_results[i].timing.samples = 0;
  ck_assert_int_eq(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "timed no case"), "%s", err);
  ck_assert_int_eq(access(g_path, F_OK), -1);
}
END_TEST

START_TEST(test_history_add_unwritable) {
  char err[512] = "";
  ck_assert_int_eq(kg_history_add("/nonexistent-kgate-dir/h.jsonl", &g_run, NULL, NULL, err, sizeof err), -1);
  ck_assert(err[0] != '\0');
}
END_TEST

/* --- the writers' lock: appenders side by side */

/* Forks n children that each append a run of their own date to g_path at the
 * same moment (they wait on one pipe). A child that takes the lock after a
 * later night's appender is refused (a history holds its nights in order):
 * *added counts those that appended. 0 when every child appended or was
 * refused for that reason alone. */
static int add_side_by_side(int round, int n, size_t *added) {
  int go[2];
  ck_assert_int_eq(pipe(go), 0);
  pid_t kids[16];
  for (int k = 0; k < n; k++) {
    kids[k] = fork();
    ck_assert_int_ge(kids[k], 0);
    if (kids[k] == 0) {
      char c, err[512], date[32];
      close(go[1]);
      if (read(go[0], &c, 1) != 0) _exit(9); /* returns 0 when the parent closes it: all start */
      snprintf(date, sizeof date, "2026-%02d-%02dT%02d:00:00Z", 1 + round / 28 % 12, 1 + round % 28, k);
      make_run(date, 200 + k);
      int rc = kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err);
      _exit(rc == 0 ? 0 : rc < 0 && strstr(err, "is not after its last night's") ? 2 : 1);
    }
  }
  close(go[0]);
  close(go[1]);
  int bad = 0;
  *added = 0;
  for (int k = 0; k < n; k++) {
    int st;
    ck_assert_int_eq(waitpid(kids[k], &st, 0), kids[k]);
    bad |= !WIFEXITED(st) || (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 2);
    *added += WIFEXITED(st) && WEXITSTATUS(st) == 0;
  }
  return bad ? -1 : 0;
}

static size_t file_lines(void) {
  char *text = kgt_slurp(g_path);
  size_t n = text ? count_lines(text) : 0;
  free(text);
  return n;
}

/* N appenders at once into one history, R rounds (every other round from no
 * file, so the lock passes from the folder to the new file): no line lost
 * (every appender that succeeded is in the file), none fails but for coming
 * after a later night, the file reads back. KGATE_CONCURRENT_ROUNDS sets R. */
START_TEST(test_history_add_concurrent) {
  const char *env = getenv("KGATE_CONCURRENT_ROUNDS");
  int rounds = env ? atoi(env) : 40, writers = 4;
  size_t lost = 0, failed = 0, kept = 0, added;
  for (int r = 0; r < rounds; r++) {
    if (r % 2 == 0) unlink(g_path), kept = 0;
    size_t before = file_lines();
    failed += add_side_by_side(r, writers, &added) != 0;
    ck_assert_uint_ge(added, 1); /* the first to take the lock always appends */
    kept += added;
    size_t after = file_lines();
    lost += before + added - after;
  }
  fprintf(stderr, "history add side by side: %d rounds of %d appenders, %zu lines lost, %zu failed\n", rounds,
          writers, lost, failed);
  ck_assert_uint_eq(lost, 0);
  ck_assert_uint_eq(failed, 0);
  kg_history h;
  char err[512] = "";
  ck_assert_msg(kg_history_read(g_path, &h, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(h.n, kept);
  kg_history_free(&h);
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), 1); /* no temp or lock file */
}
END_TEST

/* A history reached through a symbolic link: the link stays, the file it
 * names grows, keeping its mode. */
START_TEST(test_history_add_through_symlink) {
  char real[160];
  snprintf(real, sizeof real, "%s/pages-history.jsonl", g_dir);
  ck_assert_int_eq(symlink("pages-history.jsonl", g_path), 0);
  add_ok("2026-11-21T08:30:00Z", 200);
  ck_assert_int_eq(chmod(real, 0640), 0);
  add_ok("2026-11-22T08:30:00Z", 210);
  struct stat st;
  ck_assert_int_eq(lstat(g_path, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_int_eq(stat(real, &st), 0);
  ck_assert_int_eq(st.st_mode & 07777, 0640);
  char *text = kgt_slurp(real);
  ck_assert_uint_eq(count_lines(text), 2);
  free(text);
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), 2);
}
END_TEST

/* A FIFO as the history: refused at once (it is read before the append), and
 * still a FIFO. */
START_TEST(test_history_add_refuses_fifo) {
  ck_assert_int_eq(mkfifo(g_path, 0600), 0);
  char err[512] = "", want[256];
  ck_assert_int_eq(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err), -1);
  snprintf(want, sizeof want, "cannot read %s: it is a FIFO, not a regular file", g_path);
  ck_assert_str_eq(err, want);
  struct stat st;
  ck_assert_int_eq(lstat(g_path, &st), 0);
  ck_assert(S_ISFIFO(st.st_mode));
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), 1);
}
END_TEST

/* ---- the commands ---------------------------------------------------------------- */

START_TEST(test_history_cli_add) {
  char results[160], bad[160];
  snprintf(results, sizeof results, "%s/r.json", g_dir);
  snprintf(bad, sizeof bad, "%s/bad.json", g_dir);
  char err[512];
  ck_assert_int_eq(kg_results_write(results, &g_run, err, sizeof err), 0);
  kgt_spit(bad, "{\"kind\":\"kgate-results\",\"schema_version\":1,");
  ck_assert_int_eq(kgt_run_cli((char *[]){"history", "add", bad, "--file", g_path, NULL}), KG_EXIT_USAGE);
  ck_assert_int_eq(access(g_path, F_OK), -1); /* a malformed input touches nothing */
  ck_assert_int_eq(kgt_run_cli((char *[]){"history", "add", results, "--file", g_path, NULL}), KG_EXIT_OK);
  ck_assert_int_eq(kgt_run_cli((char *[]){"history", "add", results, "--file", g_path, NULL}), KG_EXIT_OK);
  char *text = kgt_slurp(g_path);
  ck_assert_uint_eq(count_lines(text), 1);
  free(text);
  ck_assert_int_eq(kgt_run_cli((char *[]){"history", "plot", bad, "-o", g_dir, NULL}), KG_EXIT_USAGE);
  ck_assert_int_eq(kgt_run_cli((char *[]){"history", "plot", "/nonexistent/h.jsonl", NULL}), KG_EXIT_USAGE);
}
END_TEST

static const struct {
  char *args[12];
  kg_command cmd;
} k_parse_ok[] = {
    {{"history", "add", "r.json", "--file", "h.jsonl"}, KG_CMD_HISTORY_ADD},
    {{"history", "add", "--file=h.jsonl", "r.json"}, KG_CMD_HISTORY_ADD},
    {{"history", "plot", "h.jsonl"}, KG_CMD_HISTORY_PLOT},
    {{"history", "plot", "h.jsonl", "-o", "out", "--baseline", "b.json", "--tolerance", "5"}, KG_CMD_HISTORY_PLOT},
    {{"history", "plot", "h.jsonl", "--baseline-dir", "bl"}, KG_CMD_HISTORY_PLOT},
};

START_TEST(test_history_cli_parse) {
  kg_cli cli;
  char err[256] = "";
  ck_assert_msg(kgt_parse(k_parse_ok[_i].args, &cli, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(cli.cmd, k_parse_ok[_i].cmd);
  ck_assert_int_eq(cli.nargs, 1);
  if (cli.cmd == KG_CMD_HISTORY_ADD) ck_assert(!strcmp(PUB(cli)->file, "h.jsonl") && !strcmp(cli.args[0], "r.json"));
  else ck_assert_str_eq(cli.args[0], "h.jsonl");
  if (_i == 3) ck_assert(!strcmp(PUB(cli)->output, "out") && !strcmp(PUB(cli)->baseline, "b.json") && PUB(cli)->tolerance_pct == 5);
  if (_i == 2) ck_assert_str_eq(PUB(cli)->output, ".");
  kg_cli_free(&cli);
}
END_TEST

static const struct {
  char *args[8];
  const char *message;
} k_parse_bad[] = {
    {{"history"}, "expected 'kgate history add RESULTS.json --file HISTORY.jsonl' or 'kgate history plot HISTORY.jsonl"},
    {{"history", "show", "h.jsonl"}, "expected 'kgate history add"},
    {{"history", "add", "r.json"}, "history add needs --file HISTORY.jsonl"},
    {{"history", "add", "--file", "h.jsonl"}, "history add needs a results file"},
    {{"history", "plot"}, "history plot needs a history file"},
    {{"history", "add", "r.json", "--file", "h", "-o", "x"}, "'-o' is an option of plot, history plot, merge, not of history add (try kgate help history add)"},
    {{"history", "plot", "h.jsonl", "--file", "x"}, "'--file' is an option of history add, not of history plot"},
};

START_TEST(test_history_cli_rejects) {
  kgt_assert_rejected(k_parse_bad[_i].args, k_parse_bad[_i].message);
}
END_TEST

#define N(a) (int)(sizeof a / sizeof a[0])

/* ---- Errors: nights that cannot be a history (tests/data/refused) ---------- */

#define REFUSED KG_SOURCE_DIR "/tests/data/refused/"

/* Each fixture differs from history-ok.jsonl in one night; the reader
 * refuses it in one line naming the file, the line and the field. */
static const struct {
  const char *file, *want;
} k_refused_histories[] = {
    {"history-out-of-order.jsonl", "line 3: date 2026-11-25T21:23:16Z is before line 2's (2026-11-25T21:25:00Z): "
                                   "nights out of order"},
    {"history-one-date.jsonl", "line 3: date 2026-11-25T21:23:16Z is the date of line 2 too: two nights on one date"},
    {"history-duplicate.jsonl", "line 3: date 2026-11-25T21:23:16Z, commit 79c9a97eb8f4: the same night as line 2"},
    {"history-paired-rounds0.jsonl", "line 2: paired: rounds is 0"},
    /* As closed as the schema: a misspelt key is refused, naming it, never dropped. */
    {"history-unknown-key.jsonl", "line 2: unknown field 'pairde'"},
    {"history-unknown-checks-key.jsonl", "line 3: checks: unknown field 'casez'"},
};

START_TEST(test_history_read_refuses_fixture) {
  kg_history h;
  char err[512] = "";
  ck_assert_msg(kg_history_read(REFUSED "history-ok.jsonl", &h, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(h.n, 3);
  kg_history_free(&h);
  const char *file = k_refused_histories[_i].file;
  char path[512];
  snprintf(path, sizeof path, REFUSED "%s", file);
  ck_assert_int_eq(kg_history_read(path, &h, err, sizeof err), -1);
  ck_assert_msg(strstr(err, path) && strstr(err, k_refused_histories[_i].want) && !strchr(err, '\n'), "%s: %s", file,
                err);
  ck_assert_uint_eq(h.n, 0);
}
END_TEST

/* An append never makes a file the reader refuses: a night dated before
 * the last, or on its date with another commit, is refused and the file
 * left as it was; the same night again is still harmless (1). */
START_TEST(test_history_add_refuses_disorder) {
  char err[512] = "";
  add_ok("2026-11-22T08:30:00Z", 200);
  char *before = kgt_slurp(g_path);
  make_run("2026-11-21T08:30:00Z", 200);
  ck_assert_int_eq(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, g_path) && strstr(err, "2026-11-21T08:30:00Z is not after"), "%s", err);
  make_run("2026-11-22T08:30:00Z", 200);
  snprintf(g_run.meta.commit, sizeof g_run.meta.commit, "0123456789ab"); /* another night, the same date */
  ck_assert_int_eq(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "2026-11-22T08:30:00Z is not after"), "%s", err);
  char *after = kgt_slurp(g_path);
  ck_assert_str_eq(before, after);
  make_run("2026-11-22T08:30:00Z", 200);
  ck_assert_int_eq(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err), 1);
  free(before);
  free(after);
}
END_TEST

/* ---- the toolchain and machine of a night ------------------------------------ */

static const kg_toolchain k_tc = {"13.0.88", "3.0.1",
                                  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "580.65.06",
                                  "ubuntu24/20250105.1"};

/* A night's line carries its toolchain, and reads it back. */
START_TEST(test_history_toolchain_round_trip) {
  char err[512] = "";
  make_run("2026-11-21T08:30:00Z", 200);
  g_run.meta.dev.toolchain = k_tc;
  ck_assert_msg(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path);
  ck_assert_msg(strstr(text, "\"toolchain\":{\"nvcc\":\"13.0.88\",\"cccl\":\"3.0.1\",\"flags\":\"0123456789abcdef"),
                "%s", text);
  char *dev = strstr(text, "\"device\":{"); /* beside "device", not inside it (it holds no object) */
  ck_assert(dev && strstr(dev, "\"toolchain\"") > strchr(dev, '}'));
  free(text);
  add_ok("2026-11-22T08:30:00Z", 200); /* a night that knows nothing of it: no "toolchain" */
  kg_history h;
  ck_assert_msg(kg_history_read(g_path, &h, err, sizeof err) == 0, "%s", err);
  const kg_toolchain *t = &h.runs[0].dev.toolchain;
  ck_assert_str_eq(t->nvcc, "13.0.88");
  ck_assert_str_eq(t->cccl, "3.0.1");
  ck_assert_str_eq(t->flags, k_tc.flags);
  ck_assert_str_eq(t->driver, "580.65.06");
  ck_assert_str_eq(t->image, "ubuntu24/20250105.1");
  ck_assert(!kg_toolchain_known(&h.runs[1].dev.toolchain));
  kg_history_free(&h);
}
END_TEST

/* The recorded nights (tests/data/nightly), written before the toolchain was
 * kept, still read: their toolchain is unknown, and said so. */
static const char *const k_nightly_fixtures[] = {"h100-aa.jsonl", "h100-differs.jsonl", "h100-live.jsonl"};

START_TEST(test_history_toolchain_absent_reads) {
  char path[512], err[512] = "", said[512];
  snprintf(path, sizeof path, KG_SOURCE_DIR "/tests/data/nightly/%s", k_nightly_fixtures[_i]);
  kg_history h;
  ck_assert_msg(kg_history_read(path, &h, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_ge(h.n, 2);
  for (size_t i = 0; i < h.n; i++) ck_assert(!kg_toolchain_known(&h.runs[i].dev.toolchain));
  ck_assert_int_ge(kg_hist_what_changed(&h, 0, h.n - 1, said, sizeof said), 0);
  ck_assert_msg(strstr(said, "not recorded: nvcc, CCCL, flags, driver, runner image"), "%s", said);
  kg_history_free(&h);
}
END_TEST

/* A toolchain field no kgate writes: the read fails, naming the file, the line and the field. */
static const struct {
  const char *toolchain, *message;
} k_bad_toolchain[] = {
    {"{\"nvcc\":\"13.0.88;x\"}", "line 2: toolchain: nvcc is '13.0.88;x': not a version"},
    {"{\"cccl\":\"3..1\"}", "line 2: toolchain: cccl is '3..1': not a version"},
    {"{\"nvcc\":\"13.0.88+\"}", "line 2: toolchain: nvcc is '13.0.88+': not a version"},
    {"{\"flags\":\"0123ABCD\"}", "line 2: toolchain: flags is '0123ABCD': not a digest"},
    {"{\"flags\":\"0123\"}", "line 2: toolchain: flags is '0123': not a digest"},
    {"{\"driver\":580}", "line 2: toolchain: field 'driver' should be a string"},
    {"{\"image\":\"ubuntu\\u001b[2J\"}", "line 2: toolchain: image is 'ubuntu?[2J': not printable ASCII"},
    {"{\"image\":\" ubuntu\"}", "line 2: toolchain: image is ' ubuntu': starts or ends with a space"},
    {"{\"image\":\"\\u00dcbuntu\"}", "line 2: toolchain: image is '\xc3\x9c" "buntu': not printable ASCII"},
    {"[\"13.0.88\"]", "line 2: toolchain: not an object"},
};

START_TEST(test_history_toolchain_rejects) {
  char line[2048], text[4096], err[512] = "";
  snprintf(line, sizeof line, "%s", k_line_ok);
  char *end = strrchr(line, '}'); /* the line's last brace: add "toolchain" before it */
  snprintf(end, sizeof line - (size_t)(end - line), ",\"toolchain\":%s}\n", k_bad_toolchain[_i].toolchain);
  snprintf(text, sizeof text, "%s%s", k_line_ok, line);
  char *date = strstr(text + strlen(k_line_ok), "2026-11-20");
  memcpy(date, "2026-11-21", 10); /* the second night, after the first */
  kgt_spit(g_path, text);
  kg_history h;
  ck_assert_int_eq(kg_history_read(g_path, &h, err, sizeof err), -1);
  ck_assert_msg(strstr(err, k_bad_toolchain[_i].message) != NULL, "'%s' lacks '%s'", err, k_bad_toolchain[_i].message);
  ck_assert_msg(strncmp(err, g_path, strlen(g_path)) == 0 && !strchr(err, '\n') && !strchr(err, '\x1b'), "%s", err);
  ck_assert_uint_eq(h.n, 0);
}
END_TEST

/* A run whose toolchain no reader would take is not written (the file stays as it was). */
START_TEST(test_history_add_refuses_bad_toolchain) {
  char err[512] = "";
  add_ok("2026-11-21T08:30:00Z", 200);
  char *before = kgt_slurp(g_path);
  make_run("2026-11-22T08:30:00Z", 200);
  g_run.meta.dev.toolchain = k_tc;
  snprintf(g_run.meta.dev.toolchain.image, sizeof g_run.meta.dev.toolchain.image, "img\x1b]0;x\x07");
  ck_assert_int_eq(kg_history_add(g_path, &g_run, NULL, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "run.toolchain.image is 'img?]0;x?': not printable ASCII"), "%s", err);
  char *after = kgt_slurp(g_path);
  ck_assert_str_eq(before, after);
  free(before);
  free(after);
}
END_TEST

/* What changed between the last good and the first bad night, in words. */
enum { WC_NIGHTS = 4 };
static const struct {
  const char *what;
  size_t last_good, first_bad;
  int changed;
  const char *want;
} k_what_changed[] = {
    {"same", 0, 1, 0, "nothing of the toolchain or machine changed"},
    {"nvcc+driver", 0, 1, 2, "nvcc 13.0.88 \u2192 13.1.42, driver 580.65.06 \u2192 580.82.07 on the first bad night"},
    {"image mid-window", 0, 2, 1,
     "runner image ubuntu24/20250105.1 \u2192 ubuntu24/20250112.1 on the night of 2026-11-21 08:30 UTC"},
    {"two nights", 0, 2, 2,
     "CCCL 3.0.1 \u2192 3.1.0 on the night of 2026-11-21 08:30 UTC; flags 0123456789ab \u2192 fedcba987654 on the first bad "
     "night"},
    {"unknown before", 0, 1, 5, "nvcc unknown \u2192 13.0.88, CCCL unknown \u2192 3.0.1, flags unknown \u2192 0123456789ab, "
                                "driver unknown \u2192 580.65.06, runner image unknown \u2192 ubuntu24/20250105.1 on the first "
                                "bad night"},
    {"nothing known", 0, 1, 0, "nothing of the toolchain or machine changed; not recorded: nvcc, CCCL, flags, driver, "
                               "runner image"},
    {"card, runtime", 1, 3, 3,
     "driver's CUDA 13.0 \u2192 13.1, CUDA runtime 13.0 \u2192 13.1, card GPU-1111aaaa \u2192 GPU-2222bbbb on the first bad night"},
    {"paired card", 0, 1, 1, "card GPU-1111aaaa \u2192 GPU-3333cccc on the first bad night"},
    {"reverse", 1, 1, -1, ""},
    {"past the end", 0, WC_NIGHTS, -1, ""},
};

START_TEST(test_history_what_changed) {
  static kg_hist_run runs[WC_NIGHTS];
  memset(runs, 0, sizeof runs);
  for (size_t i = 0; i < WC_NIGHTS; i++) {
    snprintf(runs[i].date, sizeof runs[i].date, "2026-11-%02zuT08:30:00Z", 20 + i);
    runs[i].dev = kgt_h200();
    runs[i].dev.driver_version = runs[i].dev.runtime_version = 13000;
    snprintf(runs[i].dev.uuid, sizeof runs[i].dev.uuid, "GPU-1111aaaa-0000-0000-0000-000000000000");
    runs[i].dev.toolchain = k_tc;
  }
  kg_toolchain *t1 = &runs[1].dev.toolchain, *t2 = &runs[2].dev.toolchain;
  switch (_i) {
  case 1:
    snprintf(t1->nvcc, sizeof t1->nvcc, "13.1.42"), snprintf(t1->driver, sizeof t1->driver, "580.82.07");
    break;
  case 2:
    for (size_t i = 1; i < WC_NIGHTS; i++)
      snprintf(runs[i].dev.toolchain.image, sizeof runs[i].dev.toolchain.image, "ubuntu24/20250112.1");
    break;
  case 3:
    snprintf(t1->cccl, sizeof t1->cccl, "3.1.0"), snprintf(t2->cccl, sizeof t2->cccl, "3.1.0");
    snprintf(t2->flags, sizeof t2->flags, "fedcba9876543210");
    break;
  case 4: memset(&runs[0].dev.toolchain, 0, sizeof runs[0].dev.toolchain); break;
  case 5: memset(&runs[0].dev.toolchain, 0, sizeof *t1), memset(t1, 0, sizeof *t1); break;
  case 6:
    runs[3].dev.driver_version = runs[3].dev.runtime_version = 13010;
    snprintf(runs[3].dev.uuid, sizeof runs[3].dev.uuid, "GPU-2222bbbb-0000-0000-0000-000000000000");
    break;
  case 7: /* the paired night's own card record speaks for the night */
    runs[1].paired.has = 1;
    snprintf(runs[1].paired.card, sizeof runs[1].paired.card, "GPU-3333cccc-0000-0000-0000-000000000000");
    break;
  }
  kg_history h = {WC_NIGHTS, runs};
  char said[512];
  memset(said, 'x', sizeof said);
  int n = kg_hist_what_changed(&h, k_what_changed[_i].last_good, k_what_changed[_i].first_bad, said, sizeof said);
  ck_assert_msg(n == k_what_changed[_i].changed, "%s: %d changed: %s", k_what_changed[_i].what, n, said);
  ck_assert_str_eq(said, k_what_changed[_i].want);
  /* a short buffer is cut, never overrun, and always ended */
  char small[24];
  memset(small, 'x', sizeof small);
  ck_assert_int_eq(kg_hist_what_changed(&h, k_what_changed[_i].last_good, k_what_changed[_i].first_bad, small, 20), n);
  ck_assert_uint_le(strlen(small), 19);
  ck_assert_int_eq(small[20], 'x');
  for (size_t cut = 1; cut < sizeof small; cut++) { /* every cut ends on a whole character */
    kg_hist_what_changed(&h, k_what_changed[_i].last_good, k_what_changed[_i].first_bad, small, cut);
    ck_assert_msg(!kg_has_control(small), "cut at %zu: '%s'", cut, small);
  }
}
END_TEST

Suite *make_history_suite(void) {
  Suite *s = suite_create("history");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, setup, teardown);
  tcase_add_test(core, test_history_line_compact);
  tcase_add_test(core, test_history_add_appends);
  tcase_add_test(core, test_history_add_twice_is_harmless);
  tcase_add_test(core, test_history_read_back);
  tcase_add_test(core, test_history_blank_lines_and_no_final_newline);
  tcase_add_test(core, test_history_steps);
  tcase_add_test(core, test_history_cli_add);
  tcase_add_loop_test(core, test_history_cli_parse, 0, N(k_parse_ok));
  tcase_add_test(core, test_history_add_through_symlink);
  tcase_add_test(core, test_history_toolchain_round_trip);
  tcase_add_loop_test(core, test_history_toolchain_absent_reads, 0, N(k_nightly_fixtures));
  tcase_add_loop_test(core, test_history_what_changed, 0, N(k_what_changed));
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_checked_fixture(limits, setup, teardown);
  tcase_set_timeout(limits, 300);
  tcase_add_test(limits, test_history_add_concurrent);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, setup, teardown);
  tcase_add_loop_test(errors, test_history_read_rejects, 0, N(k_bad_history));
  tcase_add_loop_test(errors, test_history_read_rejects_entries, 0, N(k_bad_entries));
  tcase_add_test(errors, test_history_add_refuses_untouched);
  tcase_add_test(errors, test_history_add_refuses_untimed_run);
  tcase_add_test(errors, test_history_add_unwritable);
  tcase_add_test(errors, test_history_add_refuses_fifo);
  tcase_add_loop_test(errors, test_history_cli_rejects, 0, N(k_parse_bad));
  tcase_add_loop_test(errors, test_history_read_refuses_fixture, 0, N(k_refused_histories));
  tcase_add_test(errors, test_history_add_refuses_disorder);
  tcase_add_loop_test(errors, test_history_toolchain_rejects, 0, N(k_bad_toolchain));
  tcase_add_test(errors, test_history_add_refuses_bad_toolchain);
  suite_add_tcase(s, errors);
  return s;
}
