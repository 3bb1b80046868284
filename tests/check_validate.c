/* validate: what a value read from a file must be (dates, commits, GPU and
 * variant names, timings), the issue-12 regressions end to end through the
 * commands (a null median that read as +Inf, a zero-median run that wedged
 * a history, an empty GPU slug), and every loader over several hundred
 * malformed inputs made from valid files: nothing impossible is accepted,
 * nothing crashes, and no rejected input changes a file. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline.h"
#include "escape.h"
#include "history.h"
#include "varreg.h"
#include "testutil.h"
#include "fields.h"
#include "validate.h"

#define M25 ((size_t)1 << 25)

/* ---- single values ------------------------------------------------------------ */

static const struct {
  const char *s;
  int ok;
} k_dates[] = {
    {"2026-11-21T08:30:00Z", 1},
    {"2024-02-29T23:59:59Z", 1},
    {"2016-12-31T23:59:60Z", 1}, /* a leap second */
    {"2000-02-29T00:00:00Z", 1},
    {"", 0},
    {"d", 0},
    {"`id>pwned`", 0},
    {"<img src=x onerror=alert(1)>", 0},
    {"2026-11-21 08:30:00Z", 0},
    {"2026-11-21T08:30:00", 0},
    {"2026-11-21T08:30:00+01:00", 0},
    {"2026-11-21T08:30:00.5Z", 0},
    {"2026-11-21T08:30:00Z\n", 0},
    {"2026-13-01T00:00:00Z", 0},
    {"2026-00-10T00:00:00Z", 0},
    {"2026-04-31T00:00:00Z", 0},
    {"2026-02-29T00:00:00Z", 0},
    {"2100-02-29T00:00:00Z", 0},
    {"2026-11-21T24:00:00Z", 0},
    {"2026-11-21T08:60:00Z", 0},
    {"2026-11-21T08:30:61Z", 0},
    {"+2026-11-21T08:30:0Z", 0},
};

START_TEST(test_validate_date) {
  const char *why = kg_why_bad_date(k_dates[_i].s);
  ck_assert_msg((why == NULL) == k_dates[_i].ok, "'%s': %s", k_dates[_i].s, why ? why : "accepted");
}
END_TEST

static const struct {
  const char *s;
  int ok;
} k_commits[] = {
    {"90386bbe7606-dirty", 1},
    {"v0.1.0-3-g90386bbe7606", 1},
    {"unknown", 1},
    {"release/1.0+build.5", 1},
    {"0.1.0", 1},
    {"", 0},
    {"`id`", 0},
    {"$(id)", 0},
    {"a b", 0},
    {"abc;def", 0},
    {"-abc", 0},
    {"abc\n", 0},
    {"abc'", 0},
    {"<b>", 0},
    {"0123456789012345678901234567890123456789012345678901234567890123", 0}, /* 64 bytes */
};

START_TEST(test_validate_commit) {
  const char *why = kg_why_bad_commit(k_commits[_i].s);
  ck_assert_msg((why == NULL) == k_commits[_i].ok, "'%s': %s", k_commits[_i].s, why ? why : "accepted");
}
END_TEST

static const struct {
  const char *s;
  int ok;
} k_gpus[] = {
    {"NVIDIA H200", 1},
    {"NVIDIA H100 80GB HBM3", 1},
    {"Tesla V100-SXM2-16GB", 1},
    {"NVIDIA <H200> & co `x`", 1}, /* odd but printable: escaped wherever it goes */
    {"", 0},
    {"---", 0},  /* baselines/.json */
    {" () ", 0}, /* likewise */
    {"GPU\x1b[2J", 0},
    {"GPU\ttab", 0},
    {"GPU\n", 0},
    {"GPU\xc2\x9b", 0}, /* C1 CSI */
};

START_TEST(test_validate_gpu_name) {
  const char *why = kg_why_bad_gpu_name(k_gpus[_i].s);
  ck_assert_msg((why == NULL) == k_gpus[_i].ok, "'%s': %s", k_gpus[_i].s, why ? why : "accepted");
}
END_TEST

START_TEST(test_validate_gpu_name_length) {
  char name[300];
  memset(name, 'a', sizeof name - 1);
  name[255] = '\0';
  ck_assert_ptr_null(kg_why_bad_gpu_name(name));
  name[255] = 'a', name[256] = '\0';
  ck_assert_ptr_nonnull(kg_why_bad_gpu_name(name));
}
END_TEST

static const struct {
  const char *s;
  int ok;
} k_variants[] = {
    {"reduce0_divergent", 1}, {"zz_old", 1}, {"kg.v2+x-1", 1}, {"", 0},          {"a b", 0},
    {"x'y", 0},               {"<img>", 0},  {"`id`", 0},      {"a\nb", 0},      {"_lead", 0},
};

START_TEST(test_validate_variant) {
  const char *why = kg_why_bad_variant(k_variants[_i].s);
  ck_assert_msg((why == NULL) == k_variants[_i].ok, "'%s': %s", k_variants[_i].s, why ? why : "accepted");
}
END_TEST

static const struct {
  kg_timing t;
  int has_min;
  const char *why; /* NULL: valid */
} k_timings[] = {
    {{.samples = 10, .median_us = 100, .q1_us = 99, .q3_us = 102, .min_us = 98}, 1, NULL},
    {{.samples = 1, .median_us = 7.25, .q1_us = 7.25, .q3_us = 7.25, .min_us = 7.25}, 1, NULL},
    {{.samples = 10, .median_us = 100, .q1_us = 99, .q3_us = 102, .min_us = 500}, 0, NULL}, /* min not part of it (a history entry) */
    {{.samples = 0, .median_us = 100, .q1_us = 99, .q3_us = 102, .min_us = 98}, 1, "samples is 0: a timing has at least 1"},
    {{.samples = -3, .median_us = 100, .q1_us = 99, .q3_us = 102, .min_us = 98}, 1, "samples is -3"},
    {{.samples = 10, .median_us = 0, .q1_us = 99, .q3_us = 102, .min_us = 98}, 1, "median_us is 0: a time must be above 0"},
    {{.samples = 10, .median_us = -5, .q1_us = -6, .q3_us = 102, .min_us = -7}, 1, "min_us is -7: a time must be above 0"},
    {{.samples = 10, .median_us = INFINITY, .q1_us = 99, .q3_us = 102, .min_us = 98}, 1, "median_us is inf: not a finite time"},
    {{.samples = 10, .median_us = NAN, .q1_us = 99, .q3_us = 102, .min_us = 98}, 1, "median_us is nan: not a finite time"},
    {{.samples = 10, .median_us = 1e308, .q1_us = 99, .q3_us = 1e308, .min_us = 98}, 1, "median_us is 1e+308: more than a day"},
    {{.samples = 10, .median_us = 100, .q1_us = 101, .q3_us = 102, .min_us = 98}, 1, "q1_us 101 is above median_us 100"},
    {{.samples = 10, .median_us = 100, .q1_us = 99, .q3_us = 98, .min_us = 97}, 1, "median_us 100 is above q3_us 98"},
    {{.samples = 10, .median_us = 100, .q1_us = 99, .q3_us = 102, .min_us = 99.5}, 1, "min_us 99.5 is above q1_us 99"},
};

START_TEST(test_validate_timing) {
  char why[200] = "";
  int rc = kg_timing_check(&k_timings[_i].t, k_timings[_i].has_min, why, sizeof why);
  if (!k_timings[_i].why) {
    ck_assert_msg(rc == 0, "refused: %s", why);
  } else {
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(why, k_timings[_i].why) != NULL, "'%s' lacks '%s'", why, k_timings[_i].why);
  }
}
END_TEST

/* ---- files and commands ---------------------------------------------------------- */

static char g_dir[64];
enum { NC = 4 };
static kg_case g_cases[NC];
static kg_result g_results[NC];
static kg_run g_run;

/* Three timed f32 cases at 2^25 and an untimed i32 check, on an H200. */
static void make_run(void) {
  static const char *const v[] = {"reduce0_divergent", "reduce7_shuffle", "cub_sum"};
  for (int i = 0; i < 3; i++) {
    g_cases[i] = (kg_case){kg_variant_find(v[i]), KG_F32, M25, KG_PAT_UNIFORM, 1, 1};
    g_results[i] = (kg_result){.status = KG_ST_PASS, .got = "1", .expected = "1", .bound = 1e-6};
    g_results[i].timing = kgt_timing(i == 2 ? 10 : 200 - 100 * i);
  }
  g_cases[3] = (kg_case){kg_variant_find("reduce0_divergent"), KG_I32, 33, KG_PAT_EXACT, 1, 0};
  g_results[3] = (kg_result){.status = KG_ST_PASS, .got = "5", .expected = "5"};
  g_run = (kg_run){.n = NC, .cases = g_cases, .results = g_results};
  kgt_stamp(&g_run.meta, "abc123def456");
  g_run.meta.dev = kgt_h200();
  g_run.meta.repeats = 3;
}

static void setup(void) {
  kgt_mkscratch(g_dir, sizeof g_dir, "validate");
  make_run();
}

static void teardown(void) { ck_assert_int_eq(kgt_rmtree(g_dir), 0); }

static void in_dir(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", g_dir, name); }

static void write_results(const char *path) {
  char err[512] = "";
  ck_assert_msg(kg_results_write(path, &g_run, err, sizeof err) == 0, "%s", err);
}

/* Replaces the first from in the file with to. */
static void edit(const char *path, const char *from, const char *to) {
  char *text = kgt_slurp(path), *at = strstr(text, from);
  ck_assert_msg(at != NULL, "'%s' not in %s", from, path);
  char *out = malloc(strlen(text) + strlen(to) + 1);
  memcpy(out, text, (size_t)(at - text));
  strcpy(out + (at - text), to);
  strcat(out, at + strlen(from));
  kgt_spit(path, out);
  free(text);
  free(out);
}

/* Issue 12, item 3: a baseline whose cub_sum f32 2^25 median is null read as
 * +Inf, so a 10x slowdown compared SAME or FASTER and `compare` exited 0.
 * Now the baseline is refused, exit 2, naming file, entry, case and field. */
START_TEST(test_validate_null_median_baseline) {
  char base[128], now[128], err[512] = "";
  in_dir(base, sizeof base, "base.json");
  in_dir(now, sizeof now, "now.json");
  kg_baseline b;
  ck_assert_int_eq(kg_baseline_from_run(&g_run, &b), 0);
  ck_assert_int_eq(kg_baseline_write(base, &b, err, sizeof err), 0);
  kg_baseline_free(&b);
  /* cub_sum is entries[2] in ladder order; its median 10 us becomes null. */
  edit(base, "\"variant\":\"cub_sum\",\"dtype\":\"f32\",\"n\":33554432,\"samples\":12,\"median_us\":10.0,",
       "\"variant\":\"cub_sum\",\"dtype\":\"f32\",\"n\":33554432,\"samples\":12,\"median_us\":null,");
  g_results[2].timing = kgt_timing(100); /* 10x slower */
  write_results(now);
  ck_assert_int_eq(kgt_run_cli((char *[]){"compare", base, now, NULL}), 2);
  ck_assert_int_eq(kg_baseline_load(base, &b, err, sizeof err), -1);
  char want[300];
  snprintf(want, sizeof want, "%s: entries[2] (cub_sum f32 33554432): median_us is null: not a finite time", base);
  ck_assert_str_eq(err, want);
}
END_TEST

/* The same with every quartile null, which compared FASTER (now.q3 < +Inf). */
START_TEST(test_validate_null_quartiles_baseline) {
  char base[128], now[128], err[512] = "";
  in_dir(base, sizeof base, "base.json");
  in_dir(now, sizeof now, "now.json");
  kg_baseline b;
  ck_assert_int_eq(kg_baseline_from_run(&g_run, &b), 0);
  ck_assert_int_eq(kg_baseline_write(base, &b, err, sizeof err), 0);
  kg_baseline_free(&b);
  edit(base, "\"median_us\":10.0,\"q1_us\":9.95,\"q3_us\":10.05,\"min_us\":9.9,",
       "\"median_us\":null,\"q1_us\":null,\"q3_us\":null,\"min_us\":null,");
  g_results[2].timing = kgt_timing(100);
  write_results(now);
  ck_assert_int_eq(kgt_run_cli((char *[]){"compare", base, now, NULL}), 2);
  ck_assert_int_eq(kg_baseline_load(base, &b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "entries[2] (cub_sum f32 33554432): median_us is null"), "%s", err);
}
END_TEST

/* Issue 12, item 3: a zero-median run written by `history add` made every
 * later add, plot and report exit 2. Now history add refuses to write it, in
 * memory and from a results file, and the history is byte for byte as it was. */
START_TEST(test_validate_history_add_zero_median) {
  char hist[128], bad[128], err[512] = "";
  in_dir(hist, sizeof hist, "h.jsonl");
  in_dir(bad, sizeof bad, "zero.json");
  ck_assert_msg(kg_history_add(hist, &g_run, NULL, NULL, err, sizeof err) == 0, "%s", err);
  char *before = kgt_slurp(hist);
  g_results[1].timing.median_us = 0;
  snprintf(g_run.meta.date, sizeof g_run.meta.date, "2026-11-22T08:30:00Z");
  ck_assert_int_eq(kg_history_add(hist, &g_run, NULL, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "cases[1] (reduce7_shuffle f32 33554432 uniform): timing: median_us is 0"), "%s", err);
  char *after = kgt_slurp(hist);
  ck_assert_str_eq(after, before);
  free(after);
  /* The same run as a results file: the loader refuses it, exit 2. */
  write_results(bad);
  ck_assert_int_eq(kgt_run_cli((char *[]){"history", "add", bad, "--file", hist, NULL}), 2);
  after = kgt_slurp(hist);
  ck_assert_str_eq(after, before);
  free(after);
  /* And the history still takes a good run. */
  g_results[1].timing = kgt_timing(100);
  ck_assert_msg(kg_history_add(hist, &g_run, NULL, NULL, err, sizeof err) == 0, "%s", err);
  free(before);
}
END_TEST

/* A history with one bad line (edited by hand, or written by an older kgate)
 * fails `history plot` and `report --history` with the line named, and
 * `history add` too, leaving the file alone (docs/charts-and-page.md, "History"). */
START_TEST(test_validate_history_bad_line) {
  char hist[128], res[128], out[128], err[512] = "";
  in_dir(hist, sizeof hist, "h.jsonl");
  in_dir(res, sizeof res, "r.json");
  in_dir(out, sizeof out, "out");
  ck_assert_int_eq(kg_history_add(hist, &g_run, NULL, NULL, err, sizeof err), 0);
  snprintf(g_run.meta.date, sizeof g_run.meta.date, "2026-11-22T08:30:00Z");
  ck_assert_int_eq(kg_history_add(hist, &g_run, NULL, NULL, err, sizeof err), 0);
  /* Line 2's cub_sum median: 10 -> -1. */
  char *text = kgt_slurp(hist), *second = strchr(text, '\n') + 1;
  const char *key = "[\"cub_sum\",\"f32\",33554432,10.0,";
  char *at = strstr(second, key);
  ck_assert_ptr_nonnull(at);
  memcpy(at + strlen(key) - 5, "-1.0", 4);
  kgt_spit(hist, text);
  kg_history h;
  ck_assert_int_eq(kg_history_read(hist, &h, err, sizeof err), -1);
  ck_assert_msg(strstr(err, ": line 2: perf[2] (cub_sum f32 33554432): median_us is -1: a time must be above 0"), "%s",
                err);
  ck_assert_msg(strncmp(err, hist, strlen(hist)) == 0, "%s", err);
  ck_assert_int_eq(kgt_run_cli((char *[]){"history", "plot", hist, "-o", out, NULL}), 2);
  write_results(res);
  ck_assert_int_eq(kgt_run_cli((char *[]){"report", res, "--html", out, "--history", hist, NULL}), 2);
  snprintf(g_run.meta.date, sizeof g_run.meta.date, "2026-11-23T08:30:00Z");
  ck_assert_int_eq(kg_history_add(hist, &g_run, NULL, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "line 2: perf[2] (cub_sum f32 33554432): median_us is -1"), "%s", err);
  char *now = kgt_slurp(hist);
  ck_assert_str_eq(now, text);
  free(now);
  free(text);
}
END_TEST

/* A GPU name with no letter or digit would write baselines/.json. */
START_TEST(test_validate_empty_slug) {
  char res[128], dir[128], err[512] = "";
  in_dir(res, sizeof res, "r.json");
  in_dir(dir, sizeof dir, "baselines");
  snprintf(g_run.meta.dev.name, sizeof g_run.meta.dev.name, "---");
  write_results(res);
  ck_assert_int_eq(kgt_run_cli((char *[]){"baseline", "update", res, "--baseline-dir", dir, NULL}), 2);
  char dot[160];
  snprintf(dot, sizeof dot, "%s/.json", dir);
  ck_assert_int_eq(access(dot, F_OK), -1);
  /* In memory too: kg_baseline_update refuses the run itself. */
  ck_assert_int_eq(kg_baseline_update(dot, &g_run, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "run.device.name is '---': has no letter or digit"), "%s", err);
  ck_assert_int_eq(access(dot, F_OK), -1);
  kg_run back;
  ck_assert_int_eq(kg_results_read(res, &back, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "run.device: name is '---': has no letter or digit"), "%s", err);
}
END_TEST

/* The injection date of issue 12 is refused by every loader that reads a date. */
START_TEST(test_validate_injection_date) {
  char res[128], hist[128], err[512] = "";
  in_dir(res, sizeof res, "r.json");
  in_dir(hist, sizeof hist, "h.jsonl");
  snprintf(g_run.meta.date, sizeof g_run.meta.date, "`id>pwned`");
  write_results(res);
  kg_run back;
  ck_assert_int_eq(kg_results_read(res, &back, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "run: date is '`id>pwned`': not an ISO 8601 UTC time"), "%s", err);
  ck_assert_int_eq(kgt_run_cli((char *[]){"history", "add", res, "--file", hist, NULL}), 2);
  ck_assert_int_eq(access(hist, F_OK), -1);
  ck_assert_int_eq(kg_history_add(hist, &g_run, NULL, NULL, err, sizeof err), -1);
  ck_assert_int_eq(access(hist, F_OK), -1);
}
END_TEST

/* A case twice inside one file: that file's error, with both places named. */
START_TEST(test_validate_duplicates) {
  char path[128], err[512] = "";
  in_dir(path, sizeof path, "dup");
  kg_baseline b;
  ck_assert_int_eq(kg_baseline_from_run(&g_run, &b), 0);
  ck_assert_int_eq(kg_baseline_write(path, &b, err, sizeof err), 0);
  kg_baseline_free(&b);
  /* The baseline: its first entry again at the end. */
  char *text = kgt_slurp(path), *first = strstr(text, "\n{\"variant\""), *end = strstr(text, "\n]}");
  ck_assert(first && end);
  size_t len = strcspn(first + 1, "\n");
  char *twice = malloc(strlen(text) + len + 4);
  sprintf(twice, "%.*s,\n%.*s%s", (int)(end - text), text, (int)len - 1, first + 1, end);
  kgt_spit(path, twice);
  ck_assert_int_eq(kg_baseline_load(path, &b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, ": entries[3] (reduce0_divergent f32 33554432): the same case as entries[0]"), "%s", err);
  free(twice);
  free(text);
  /* A history line: its first perf row again. */
  unlink(path);
  ck_assert_int_eq(kg_history_add(path, &g_run, NULL, NULL, err, sizeof err), 0);
  text = kgt_slurp(path);
  char *perf = strstr(text, "\"perf\":[") + strlen("\"perf\":[");
  len = strcspn(perf, "]") + 1;
  twice = malloc(strlen(text) + len + 4);
  sprintf(twice, "%.*s%.*s,%s", (int)(perf - text), text, (int)len, perf, perf);
  kgt_spit(path, twice);
  kg_history h;
  ck_assert_int_eq(kg_history_read(path, &h, err, sizeof err), -1);
  ck_assert_msg(strstr(err, ": line 1: perf[1] (reduce0_divergent f32 33554432): the same case as perf[0]"), "%s", err);
  free(twice);
  free(text);
}
END_TEST

/* ---- malformed inputs, several hundred per loader ------------------------------------ */

typedef enum { L_RESULTS, L_BASELINE, L_HISTORY, L_NLOADERS } loader;
static const char *const k_loader_name[] = {"results", "baseline", "history"};

typedef struct tally {
  size_t tried, refused, accepted, changed;
} tally;

/* What a loaded file may claim, checked on everything a loader accepts. */
static void assert_results_valid(const kg_run *r) {
  char why[300];
  ck_assert_msg(kg_run_check(r, why, sizeof why) == 0, "accepted an invalid run: %s", why);
  for (size_t i = 0; i < r->n; i++)
    for (size_t j = i + 1; j < r->n; j++) {
      const kg_case *a = &r->cases[i], *b = &r->cases[j];
      ck_assert_msg(!(a->variant == b->variant && a->dtype == b->dtype && a->n == b->n && a->pattern == b->pattern),
                    "accepted a duplicate case %zu/%zu", i, j);
    }
}

static void assert_baseline_valid(const kg_baseline *b) {
  char why[300];
  ck_assert_ptr_null(kg_why_bad_gpu_name(b->dev.name));
  ck_assert_ptr_null(kg_why_bad_date(b->date));
  ck_assert_ptr_null(kg_why_bad_commit(b->commit));
  for (size_t i = 0; i < b->n; i++) {
    ck_assert_ptr_null(kg_why_bad_variant(b->entries[i].variant));
    if (b->entries[i].t.samples) ck_assert_msg(kg_timing_check(&b->entries[i].t, 1, why, sizeof why) == 0, "%s", why);
    if (i) ck_assert_msg(strcmp(b->entries[i - 1].variant, b->entries[i].variant) || b->entries[i - 1].dtype !=
                             b->entries[i].dtype || b->entries[i - 1].n != b->entries[i].n,
                         "accepted a duplicate entry");
  }
}

static void assert_history_valid(const kg_history *h) {
  char why[300];
  for (size_t r = 0; r < h->n; r++) {
    const kg_hist_run *run = &h->runs[r];
    ck_assert_ptr_null(kg_why_bad_gpu_name(run->dev.name));
    ck_assert_ptr_null(kg_why_bad_date(run->date));
    ck_assert_ptr_null(kg_why_bad_commit(run->commit));
    for (size_t i = 0; i < run->n; i++) {
      ck_assert_ptr_null(kg_why_bad_variant(run->entries[i].variant));
      ck_assert_msg(kg_timing_check(&run->entries[i].t, 0, why, sizeof why) == 0, "%s", why);
    }
  }
}

/* The files the commands under test may write, and their contents now. */
typedef struct targets {
  char hist[128], base_dir[128], base[160], merged[128], other[128];
  char *hist_text, *base_text, *merged_text;
} targets;

static void targets_snapshot(targets *t) {
  t->hist_text = kgt_slurp(t->hist);
  t->base_text = kgt_slurp(t->base);
  t->merged_text = kgt_slurp(t->merged);
}

static int targets_changed(targets *t) {
  char *h = kgt_slurp(t->hist), *b = kgt_slurp(t->base), *m = kgt_slurp(t->merged);
  int changed = strcmp(h, t->hist_text) || strcmp(b, t->base_text) || strcmp(m, t->merged_text);
  free(h), free(b), free(m);
  free(t->hist_text), free(t->base_text), free(t->merged_text);
  return changed;
}

/* One input for one loader: load it; when refused, the message is one line
 * naming the file, the commands that read it exit 2 and no file changes;
 * when accepted, it claims nothing impossible. */
static void try_input(loader l, const char *text, targets *t, tally *k) {
  char path[128], err[1024] = "";
  in_dir(path, sizeof path, l == L_HISTORY ? "input.jsonl" : "input.json");
  kgt_spit(path, text);
  int rc;
  if (l == L_RESULTS) {
    kg_run r;
    rc = kg_results_read(path, &r, err, sizeof err);
    if (!rc) assert_results_valid(&r), kg_run_free(&r);
  } else if (l == L_BASELINE) {
    kg_baseline b;
    rc = kg_baseline_load(path, &b, err, sizeof err);
    if (!rc) assert_baseline_valid(&b), kg_baseline_free(&b);
  } else {
    kg_history h;
    rc = kg_history_read(path, &h, err, sizeof err);
    if (!rc) assert_history_valid(&h), kg_history_free(&h);
  }
  k->tried++;
  if (rc == 0) {
    k->accepted++;
    return;
  }
  k->refused++;
  ck_assert_msg(strncmp(err, path, strlen(path)) == 0 || strstr(err, path), "message does not name the file: %s", err);
  ck_assert_msg(!strchr(err, '\n') && !kg_has_control(err), "not one clean line: %s", err);
  targets_snapshot(t);
  if (l == L_RESULTS) {
    ck_assert_int_eq(kgt_run_cli((char *[]){"history", "add", path, "--file", t->hist, NULL}), 2);
    ck_assert_int_eq(kgt_run_cli((char *[]){"baseline", "update", path, "--baseline-dir", t->base_dir, NULL}), 2);
    ck_assert_int_eq(kgt_run_cli((char *[]){"merge", path, t->other, "-o", t->merged, NULL}), 2);
  } else if (l == L_BASELINE) {
    /* The refused file is the target of an update: it must stay as it is. */
    char *was = kgt_slurp(path);
    char target[160];
    snprintf(target, sizeof target, "%s/nvidia-h200.json", t->base_dir);
    kgt_spit(target, text);
    ck_assert_int_eq(kgt_run_cli((char *[]){"baseline", "update", t->other, "--baseline-dir", t->base_dir, NULL}), 2);
    char *now = kgt_slurp(target);
    k->changed += strcmp(now, text) != 0;
    kgt_spit(target, t->base_text);
    free(now), free(was);
    ck_assert_int_eq(kgt_run_cli((char *[]){"compare", path, t->other, NULL}), 2);
  } else {
    ck_assert_int_eq(kgt_run_cli((char *[]){"history", "add", t->other, "--file", path, NULL}), 2);
    char *now = kgt_slurp(path);
    k->changed += strcmp(now, text) != 0;
    free(now);
  }
  k->changed += targets_changed(t);
}

/* ---- the mutations -------------------------------------------------------------- */

static const char *const k_number_swaps[] = {"null", "\"x\"", "-1", "0", "1e308", "-1e308", "2.5", "true",
                                             "[]", "{}", "9223372036854775807", "1e-320"};
static const char *const k_string_swaps[] = {
    "\"\"", "\"`id>pwned`\"", "\"x\\u001b[2J\"", "\"<img src=x onerror=alert(1)>\"", "\"a\\nb\"",
    "\"'; system(\\\"touch pwned\\\"); '\"", "1", "null", "false"};
static const char *const k_other_swaps[] = {"null", "1", "\"true\"", "[]"};

typedef struct gen {
  loader l;
  const char *prefix; /* history: the good first line, newline included; else "" */
  json_t *root;
  targets *t;
  tally *k;
} gen;

static void emit(gen *g) {
  char *doc = json_dumps(g->root, JSON_COMPACT | JSON_ENCODE_ANY);
  ck_assert_ptr_nonnull(doc);
  char *text = malloc(strlen(g->prefix) + strlen(doc) + 2);
  sprintf(text, "%s%s\n", g->prefix, doc);
  try_input(g->l, text, g->t, g->k);
  free(text);
  free(doc);
}

static void swap_each(gen *g, json_t *parent, const char *key, size_t index, json_t *value) {
  const char *const *swaps = k_other_swaps;
  size_t n = sizeof k_other_swaps / sizeof *k_other_swaps;
  if (json_is_number(value)) swaps = k_number_swaps, n = sizeof k_number_swaps / sizeof *k_number_swaps;
  if (json_is_string(value)) swaps = k_string_swaps, n = sizeof k_string_swaps / sizeof *k_string_swaps;
  /* A long string too: past every field's buffer. */
  char longer[400];
  memset(longer, 'a', sizeof longer);
  longer[0] = longer[sizeof longer - 2] = '"', longer[sizeof longer - 1] = '\0';
  json_incref(value);
  for (size_t k = 0; k <= n; k++) {
    json_t *with = json_loads(k < n ? swaps[k] : longer, JSON_DECODE_ANY, NULL);
    ck_assert_ptr_nonnull(with);
    if (key) json_object_set_new(parent, key, with);
    else json_array_set_new(parent, index, with);
    emit(g);
  }
  if (key) {
    json_object_del(parent, key); /* the field missing */
    emit(g);
    json_object_set(parent, key, value);
  } else {
    json_array_set(parent, index, value);
  }
  json_decref(value);
}

static void walk(gen *g, json_t *node) {
  if (json_is_object(node)) {
    const char *key;
    json_t *v;
    void *tmp;
    /* The keys first: setting a value may move a key within the object. */
    size_t n = json_object_size(node), i = 0;
    const char **keys = malloc((n ? n : 1) * sizeof *keys);
    json_object_foreach_safe(node, tmp, key, v) keys[i++] = key;
    for (i = 0; i < n; i++) {
      char name[128];
      snprintf(name, sizeof name, "%s", keys[i]);
      json_t *value = json_object_get(node, name);
      if (json_is_object(value) || json_is_array(value)) walk(g, value);
      else swap_each(g, node, name, 0, value);
    }
    free(keys);
  } else if (json_is_array(node)) {
    for (size_t i = 0; i < json_array_size(node); i++) {
      json_t *value = json_array_get(node, i);
      if (json_is_object(value) || json_is_array(value)) walk(g, value);
      else swap_each(g, node, NULL, i, value);
    }
    /* A list of cases, entries or perf rows: its first element twice. */
    json_t *first = json_array_get(node, 0);
    if (json_is_object(first) || (json_is_array(first) && json_array_size(node) > 1)) {
      json_array_append_new(node, json_deep_copy(first));
      emit(g);
      json_array_remove(node, json_array_size(node) - 1);
    }
  }
}

/* Every prefix cut at a spread of offsets: half files, as a crash leaves them. */
static void truncations(loader l, const char *text, targets *t, tally *k) {
  size_t len = strlen(text);
  for (size_t c = 0; c < 60; c++) {
    size_t at = len * c / 60;
    char *cut = strndup(text, at);
    try_input(l, cut, t, k);
    free(cut);
  }
}

static void make_targets(targets *t) {
  char err[512] = "";
  in_dir(t->hist, sizeof t->hist, "target-history.jsonl");
  in_dir(t->base_dir, sizeof t->base_dir, "baselines");
  ck_assert_int_eq(mkdir(t->base_dir, 0777), 0);
  snprintf(t->base, sizeof t->base, "%s/nvidia-h200.json", t->base_dir);
  in_dir(t->merged, sizeof t->merged, "merged.json");
  in_dir(t->other, sizeof t->other, "other.json");
  /* other: a valid run of a case the seeds do not hold, a day later. */
  kg_run keep = g_run;
  g_run.n = 1;
  g_cases[0].n = 1000;
  snprintf(g_run.meta.date, sizeof g_run.meta.date, "2026-11-22T08:30:00Z");
  write_results(t->other);
  g_run = keep;
  make_run();
  ck_assert_msg(kg_history_add(t->hist, &g_run, NULL, NULL, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_baseline_update(t->base, &g_run, err, sizeof err) == 0, "%s", err);
  kgt_spit(t->merged, "a merge from before\n");
}

START_TEST(test_validate_malformed_inputs) {
  loader l = (loader)_i;
  targets t;
  tally k = {0};
  make_targets(&t);
  char seed[128], err[512] = "";
  in_dir(seed, sizeof seed, "seed");
  /* The seed: a valid file of this kind, from kgate's own writers. */
  if (l == L_RESULTS) {
    write_results(seed);
  } else if (l == L_BASELINE) {
    kg_baseline b;
    ck_assert_int_eq(kg_baseline_from_run(&g_run, &b), 0);
    ck_assert_int_eq(kg_baseline_write(seed, &b, err, sizeof err), 0);
    kg_baseline_free(&b);
  } else {
    snprintf(g_run.meta.date, sizeof g_run.meta.date, "2026-11-19T08:30:00Z");
    ck_assert_int_eq(kg_history_add(seed, &g_run, NULL, NULL, err, sizeof err), 0);
    snprintf(g_run.meta.date, sizeof g_run.meta.date, "2026-11-20T08:30:00Z");
    ck_assert_int_eq(kg_history_add(seed, &g_run, NULL, NULL, err, sizeof err), 0);
  }
  char *text = kgt_slurp(seed);
  try_input(l, text, &t, &k);
  ck_assert_msg(k.accepted == 1, "the seed itself was refused");
  truncations(l, text, &t, &k);
  /* Every scalar swapped for wrong types, null, 0, negatives, huge and tiny
   * numbers, injection strings and control characters; every field removed;
   * every list's first element doubled. History: the second line is mutated. */
  char *second = l == L_HISTORY ? strchr(text, '\n') + 1 : text;
  char *prefix = strndup(text, (size_t)(second - text));
  json_error_t je;
  json_t *root = json_loads(second, JSON_DISABLE_EOF_CHECK, &je);
  ck_assert_ptr_nonnull(root);
  gen g = {l, prefix, root, &t, &k};
  walk(&g, root);
  if (l == L_HISTORY) { /* and a line twice, and a blank line, which a reader skips */
    char *twice = malloc(2 * strlen(text) + 2);
    sprintf(twice, "%s\n%s", text, second);
    try_input(l, twice, &t, &k);
    free(twice);
  }
  fprintf(stderr, "validate: %s loader: %zu inputs, %zu refused, %zu accepted (all valid), 0 crashes, %zu files "
          "changed by refused input\n", k_loader_name[l], k.tried, k.refused, k.accepted, k.changed);
  ck_assert_uint_ge(k.tried, 300);
  ck_assert_uint_eq(k.changed, 0);
  json_decref(root);
  free(prefix);
  free(text);
}
END_TEST

Suite *make_validate_suite(void) {
  Suite *s = suite_create("validate");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_validate_date, 0, sizeof k_dates / sizeof k_dates[0]);
  tcase_add_loop_test(core, test_validate_commit, 0, sizeof k_commits / sizeof k_commits[0]);
  tcase_add_loop_test(core, test_validate_gpu_name, 0, sizeof k_gpus / sizeof k_gpus[0]);
  tcase_add_loop_test(core, test_validate_variant, 0, sizeof k_variants / sizeof k_variants[0]);
  tcase_add_loop_test(core, test_validate_timing, 0, sizeof k_timings / sizeof k_timings[0]);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_checked_fixture(limits, setup, teardown);
  tcase_add_test(limits, test_validate_gpu_name_length);
  tcase_add_loop_test(limits, test_validate_malformed_inputs, 0, L_NLOADERS);
  tcase_set_timeout(limits, 300);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, setup, teardown);
  tcase_add_test(errors, test_validate_null_median_baseline);
  tcase_add_test(errors, test_validate_null_quartiles_baseline);
  tcase_add_test(errors, test_validate_history_add_zero_median);
  tcase_add_test(errors, test_validate_history_bad_line);
  tcase_add_test(errors, test_validate_empty_slug);
  tcase_add_test(errors, test_validate_injection_date);
  tcase_add_test(errors, test_validate_duplicates);
  suite_add_tcase(s, errors);
  return s;
}
