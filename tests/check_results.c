/* results: the results JSON round trip, its rejections, derived numbers, and
 * the atomic writes under it (fileio). */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "varreg.h"
#include "results.h"
#include "testutil.h"

/* --- helpers: a scratch folder per test, whole-file reads and writes */

static char g_dir[64], g_path[128];

static void scratch_setup(void) {
  kgt_mkscratch(g_dir, sizeof g_dir, "results");
  snprintf(g_path, sizeof g_path, "%s/results.json", g_dir);
}

static void scratch_teardown(void) { kgt_rmtree(g_dir); }

/* --- a run with every status, non-finite numbers, timing present and absent */

enum { NCASES = 8 };
static kg_case g_cases[NCASES];
static kg_result g_results[NCASES];

static kg_case mk(const char *variant, kg_dtype dt, size_t n, kg_pattern p, int timed) {
  int v = kg_variant_find(variant);
  ck_assert_int_ge(v, 0);
  return (kg_case){v, dt, n, p, kg_variant_supports(v, dt), timed};
}

static kg_result res(kg_status st, const char *got, const char *expected, double abs_err, double bound) {
  kg_result r = {.status = st, .abs_err = abs_err, .bound = bound, .ratio = abs_err / bound, .depth = 23.5, .repeats = 3};
  snprintf(r.got, sizeof r.got, "%s", got);
  snprintf(r.expected, sizeof r.expected, "%s", expected);
  return r;
}

static kg_run sample_run(void) {
  g_cases[0] = mk("reduce0_divergent", KG_F32, 4194304, KG_PAT_UNIFORM, 1);
  g_results[0] = res(KG_ST_PASS, "12.5", "12.500001", 1e-6, 1e-3);
  g_results[0].timing = (kg_timing){10, 200, 190, 210, 185, 0.004, 0, 1755, 0, 0};
  g_cases[1] = mk("cub_sum", KG_F32, 4194304, KG_PAT_UNIFORM, 1);
  g_results[1] = res(KG_ST_PASS, "12.5", "12.500001", 0, 1e-3);
  g_results[1].timing = (kg_timing){12, 100, 99, 102, 98, 0.002, 0, 1980, 1, 0};
  g_cases[2] = mk("reduce1_strided", KG_I32, 33, KG_PAT_EXACT, 0);
  g_results[2] = res(KG_ST_FAIL, "5", "6", 1, 0); /* ratio 1/0 = +Inf */
  snprintf(g_results[2].message, sizeof g_results[2].message, "wrong result: \"got\" 5\tnot 6");
  g_cases[3] = mk("neighbored", KG_F16, 1000, KG_PAT_UNIFORM, 0);
  g_results[3] = res(KG_ST_UNSUPPORTED, "", "", 0, 0);
  g_results[3].ratio = 0;
  g_cases[4] = mk("atomic_per_element", KG_F64, 0, KG_PAT_NAN, 0);
  g_results[4] = res(KG_ST_ERROR, "", "nan", NAN, -INFINITY);
  snprintf(g_results[4].message, sizeof g_results[4].message, "timeout after 60 s");
  g_cases[5] = mk("two_pass", KG_BF16, 1000003, KG_PAT_CANCEL, 0);
  g_results[5] = res(KG_ST_PENDING, "", "", 0, 1);
  g_cases[6] = mk("reduce7_shuffle", KG_F32, 4194304, KG_PAT_UNIFORM, 1); /* timed, failed: no timing */
  g_results[6] = res(KG_ST_FAIL, "1", "2", 1, 0.5);
  g_results[6].nondeterministic = g_results[6].input_modified = 1;
  g_cases[7] = mk("smem_atomic", KG_F64, 65537, KG_PAT_UNIFORM, 1);
  g_results[7] = res(KG_ST_PASS, "3", "3", 0, 1e-12);
  g_results[7].timing = (kg_timing){1, 7.25, 7.25, 7.25, 7.25, INFINITY, 4.5, 0, 0, 0}; /* one sample: noise +Inf */
  kg_run run = {.n = NCASES, .cases = g_cases, .results = g_results};
  kg_run_meta *m = &run.meta;
  kgt_stamp(m, "abc123def456-dirty");
  m->dev = (kg_device_info){.name = "NVIDIA H200", .cc_major = 9, .sms = 132, .l2_bytes = 62914560,
                            .mem_bytes = 150119448576LL, .driver_version = 13000, .runtime_version = 13000,
                            .mem_clock_khz = 3201000, .bus_width_bits = 6144, .peak_gbps = 4917.1,
                            .roofline_gbps = 4200.5, .uuid = "GPU-5eee99ac-b721-2e97-460a-158d3cc7ab98",
                            .pci = "0000:00:06.0"};
  m->seed = 1234567890123ull;
  m->repeats = 3;
  m->time = (kg_time_opts){1, 0.005, 10, 2};
  m->tolerance = 2.5;
  m->wall_s = 12.3;
  return run;
}

static void assert_same_device(const kg_device_info *a, const kg_device_info *b) {
  ck_assert_str_eq(a->name, b->name);
  ck_assert(a->cc_major == b->cc_major && a->cc_minor == b->cc_minor && a->sms == b->sms);
  ck_assert(a->l2_bytes == b->l2_bytes && a->mem_bytes == b->mem_bytes);
  ck_assert(a->mem_clock_khz == b->mem_clock_khz && a->bus_width_bits == b->bus_width_bits);
  ck_assert(a->peak_gbps == b->peak_gbps && a->roofline_gbps == b->roofline_gbps);
  ck_assert(a->driver_version == b->driver_version && a->runtime_version == b->runtime_version);
  ck_assert_str_eq(a->uuid, b->uuid);
  ck_assert_str_eq(a->pci, b->pci);
}

/* A double after the trip through JSON: non-finite ones come back as +Inf. */
static double trip(double v) { return isfinite(v) ? v : INFINITY; }

START_TEST(test_results_round_trip) {
  kg_run a = sample_run(), b;
  char err[512] = "";
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(b.meta.date, a.meta.date);
  ck_assert_str_eq(b.meta.version, a.meta.version);
  ck_assert_str_eq(b.meta.commit, a.meta.commit);
  assert_same_device(&b.meta.dev, &a.meta.dev);
  ck_assert(b.meta.seed == a.meta.seed && b.meta.repeats == 3 && b.meta.time.hot == 1);
  ck_assert(b.meta.time.max_noise == 0.005 && b.meta.time.min_samples == 10 && b.meta.time.max_seconds == 2);
  ck_assert(b.meta.tolerance == 2.5 && b.meta.wall_s == 12.3);
  ck_assert_uint_eq(b.n, NCASES);
  for (size_t i = 0; i < NCASES; i++) {
    const kg_result *x = &a.results[i], *y = &b.results[i];
    const kg_case *c = &a.cases[i], *d = &b.cases[i];
    ck_assert(d->variant == c->variant && d->dtype == c->dtype && d->n == c->n && d->pattern == c->pattern);
    ck_assert(d->supported == c->supported && d->timed == c->timed);
    ck_assert_int_eq(y->status, x->status);
    ck_assert_str_eq(y->got, x->got);
    ck_assert_str_eq(y->expected, x->expected);
    ck_assert_str_eq(y->message, x->message);
    ck_assert(y->abs_err == trip(x->abs_err) && y->bound == trip(x->bound) && y->ratio == trip(x->ratio));
    ck_assert(y->depth == x->depth && y->repeats == x->repeats);
    ck_assert(y->nondeterministic == x->nondeterministic && y->input_modified == x->input_modified);
    const kg_timing *s = &x->timing, *t = &y->timing;
    ck_assert_int_eq(t->samples, s->samples);
    ck_assert(t->median_us == s->median_us && t->q1_us == s->q1_us && t->q3_us == s->q3_us && t->min_us == s->min_us);
    ck_assert(t->noise == s->noise && t->graph_us == s->graph_us && t->sm_clock_mhz == s->sm_clock_mhz);
    ck_assert_int_eq(t->throttled, s->throttled);
  }
  kg_run_free(&b);
  ck_assert_ptr_null(b.cases);
}
END_TEST

/* One case per line, derived numbers written, no timing object when untimed. */
START_TEST(test_results_file_shape) {
  kg_run a = sample_run();
  char err[512] = "";
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path);
  ck_assert_ptr_nonnull(text);
  ck_assert(strncmp(text, "{\"kind\":\"kgate-results\",\n\"schema_version\":2,\n\"run\":{", 50) == 0);
  int lines = 0, case_lines = 0;
  for (char *p = text; (p = strchr(p, '\n')); p++) lines++, case_lines += strncmp(p + 1, "{\"variant\":", 11) == 0;
  ck_assert_int_eq(case_lines, NCASES);
  ck_assert_int_eq(lines, NCASES + 5);
  ck_assert_ptr_nonnull(strstr(text, "\"timing\":null"));
  ck_assert_ptr_nonnull(strstr(text, "\"vs_cub\":0.5"));
  ck_assert_ptr_nonnull(strstr(text, "\"ratio\":null"));
  ck_assert(text[strlen(text) - 1] == '\n');
  free(text);
  ck_assert_int_eq(kgt_count_files(g_dir, "results.json"), 0);
}
END_TEST

START_TEST(test_results_perf_of) {
  kg_run a = sample_run();
  kg_perf p = kg_perf_of(&a, 0);
  double gbps = 4194304.0 * 4 / (200 * 1e3);
  ck_assert_double_eq_tol(p.gbps, gbps, 1e-9);
  ck_assert_double_eq_tol(p.pct_peak, 100 * gbps / 4917.1, 1e-9);
  ck_assert_double_eq_tol(p.pct_roofline, 100 * gbps / 4200.5, 1e-9);
  ck_assert_double_eq_tol(p.vs_cub, 0.5, 1e-12);
  ck_assert_double_eq_tol(kg_perf_of(&a, 1).vs_cub, 1, 1e-12);
  kg_perf none = kg_perf_of(&a, 6); /* timed but failed */
  ck_assert(none.gbps == 0 && none.pct_peak == 0 && none.vs_cub == 0);
  ck_assert(kg_perf_of(&a, 2).gbps == 0); /* never timed */
  kg_perf lone = kg_perf_of(&a, 7);       /* no cub_sum for f64 65537 */
  ck_assert_double_eq_tol(lone.gbps, 65537.0 * 8 / 7250, 1e-9);
  ck_assert(lone.vs_cub == 0);
  a.meta.dev.roofline_gbps = 0;
  ck_assert(kg_perf_of(&a, 0).pct_roofline == 0);
}
END_TEST

/* "-" is standard output, whole and parseable. */
START_TEST(test_results_stdout) {
  kg_run a = sample_run(), b;
  char err[512] = "";
  fflush(stdout);
  int saved = dup(1), fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert(saved >= 0 && fd >= 0);
  dup2(fd, 1);
  close(fd);
  int rc = kg_results_write("-", &a, err, sizeof err);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  ck_assert_msg(rc == 0, "%s", err);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(b.n, NCASES);
  kg_run_free(&b);
  ck_assert_int_eq(kgt_count_files(g_dir, "results.json"), 0);
}
END_TEST

/* --- Errors: each bad file is the good one with one edit. */

static const struct {
  const char *from, *to, *message;
} k_bad[] = {
    {"]}\n", "", "malformed JSON at line 13"}, /* the end of file, after 12 lines */
    {"\"kgate-results\"", "\"kgate-baseline\"", "not a kgate results file (kind 'kgate-baseline')"},
    {"\"schema_version\":2", "\"schema_version\":3", "schema_version 3 is not supported (this kgate reads 1 to 2)"},
    {"\"schema_version\":2", "\"schema_version\":\"2\"", "field 'schema_version' should be an integer"},
    {"\"status\":\"fail\",", "", "cases[2]: missing field 'status'"},
    /* An unknown name is data; a name that is not a name is refused. */
    {"\"variant\":\"reduce1_strided\"", "\"variant\":\"Reduce 99\"",
     "cases[2]: variant 'Reduce 99': variant name is not [a-z0-9_], 1..63 characters"},
    {"\"dtype\":\"i32\"", "\"dtype\":\"i8\"", "cases[2]: unknown dtype 'i8'"},
    /* the card's identity is optional, but never free text */
    {"\"uuid\":\"GPU-5eee99ac", "\"uuid\":\"`id`-5eee99ac", "not a GPU UUID like"},
    {"\"pci\":\"0000:00:06.0\"", "\"pci\":\"0000:00:06.0 \"", "not a PCI address like"},
    {"\"pattern\":\"exact\"", "\"pattern\":\"ones\"", "cases[2]: unknown pattern 'ones'"},
    {"\"status\":\"fail\"", "\"status\":\"failed\"", "cases[2]: unknown status 'failed'"},
    {"\"n\":33", "\"n\":\"33\"", "cases[2]: field 'n' should be an integer"},
    {"\"n\":33", "\"n\":-33", "cases[2]: n is -33: outside [0, 1099511627776]"},
    {"\"timing\":null", "\"timing\":3", "field 'timing' should be an object or null"},
    {"\"samples\":10,", "", "cases[0] (reduce0_divergent f32 4194304 uniform).timing: missing field 'samples'"},
    {"\"sms\":132,", "", "run.device: missing field 'sms'"},
    {"\"hot\":true", "\"hot\":1", "run.options: field 'hot' should be true or false"},
    {"\"cases\":", "\"casez\":", "missing field 'cases'"},
    {"\"wall_s\":", "\"wall_s\":\"x\",\"w\":", "run: field 'wall_s' should be a number or null"},
    {"{\"kind\"", "[{\"kind\"", "malformed JSON"},
    {"\"kind\":\"kgate-results\",", "\"kind\":\"kgate-results\",\"kind\":\"x\",", "duplicate"},
    {"\"wall_s\":", "\"incomplete\":1,\"wall_s\":", "run: field 'incomplete' should be true or false"},
    {"\"wall_s\":", "\"incomplete\":true,\"signal\":\"SIGKILL\",\"wall_s\":",
     "run: field 'signal' should be \"SIGINT\" or \"SIGTERM\" in an incomplete run"},
};

static char *replace_first(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  ck_assert_msg(at != NULL, "'%s' not in the file", from);
  size_t head = (size_t)(at - text);
  char *out = malloc(strlen(text) + strlen(to) + 1);
  memcpy(out, text, head);
  strcpy(out + head, to);
  strcat(out, at + strlen(from));
  return out;
}

/* --- the paired gate's object (schema 2): every field back as written */

enum { NPAIRS = 5 };
static kg_pair_cell g_pairs[NPAIRS];

static void add_pairs(kg_run *run) {
  static const kg_pair_cell cells[NPAIRS] = {
      {"reduce0_divergent", KG_F32, 4194304, {16, 128, 1.0625, 1.05, 1.075, 212.5, 200, KG_PV_SLOWER}, 0.01, 2, 3, "", 0, 0, 0},
      {"cub_sum", KG_F32, 4194304, {24, 192, 0.999, 0.9975, 1.0005, 99.9, 100, KG_PV_SAME}, 0.01, 3, 0, "", 0, 0, 0},
      {"team_new+x", KG_F64, 65537, {0, 0, 1, 1, 1, 0, 0, KG_PV_NEW}, 0.05, 0, 0, "", 0, 0, 0},
      {"reduce7_shuffle", KG_F32, 4194304, {0, 0, 1, 1, 1, 0, 0, KG_PV_UNKNOWN}, 0.01, 0, 0, "its check failed: \"x\"\t", 0, 0, 0},
      {"two_pass", KG_F32, 4194304, {0, 0, 1, 1, 1, 0, 0, KG_PV_UNCHANGED}, 0.01, 0, 0,
       "same machine code (sm_90, SHA-256 3f2a9c01d4e5b6a7) and launches: 2 kernels, 3 launches", 0, 0, 0},
  };
  memcpy(g_pairs, cells, sizeof cells);
  run->pairs = g_pairs, run->npairs = NPAIRS;
  run->pair = (kg_pair_meta){.on = 1, .base_path = "/ci/base dir/libkgate_kernels.so", .base_name = "kgate-kernels",
                             .base_version = "0.1.0-12-gabc1234", .confidence = 0.99, .min_effect_pct = 0,
                             .copies = 4, .quads = 16, .rounds = 2, .max_rounds = 6, .budget_s = 10, .wall_s = 31.25};
}

START_TEST(test_results_paired_round_trip) {
  kg_run a = sample_run(), b;
  add_pairs(&a);
  char err[512] = "";
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path); /* the verdict by its name, its evidence beside it */
  ck_assert_msg(strstr(text, "\"variant\":\"two_pass\",\"dtype\":\"f32\",\"n\":4194304,\"verdict\":\"UNCHANGED\""), "%s",
                text);
  ck_assert_ptr_nonnull(strstr(text, "\"message\":\"same machine code (sm_90, SHA-256 3f2a9c01d4e5b6a7) and launches"));
  free(text);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  const kg_pair_meta *x = &a.pair, *y = &b.pair;
  ck_assert_int_eq(y->on, 1);
  ck_assert_str_eq(y->base_path, x->base_path);
  ck_assert_str_eq(y->base_name, x->base_name);
  ck_assert_str_eq(y->base_version, x->base_version);
  ck_assert(y->confidence == x->confidence && y->min_effect_pct == x->min_effect_pct);
  ck_assert(y->copies == 4 && y->quads == 16 && y->rounds == 2 && y->max_rounds == 6);
  ck_assert(y->budget_s == x->budget_s && y->wall_s == x->wall_s);
  ck_assert_uint_eq(b.npairs, NPAIRS);
  for (size_t i = 0; i < NPAIRS; i++) {
    const kg_pair_cell *c = &a.pairs[i], *d = &b.pairs[i];
    ck_assert_str_eq(d->variant, c->variant);
    ck_assert(d->dtype == c->dtype && d->n == c->n);
    ck_assert_int_eq(d->stat.verdict, c->stat.verdict);
    ck_assert(d->stat.blocks == c->stat.blocks && d->stat.pairs == c->stat.pairs);
    ck_assert(d->stat.ratio == c->stat.ratio && d->stat.lo == c->stat.lo && d->stat.hi == c->stat.hi);
    ck_assert(d->stat.head_us == c->stat.head_us && d->stat.base_us == c->stat.base_us);
    ck_assert(d->min_effect == c->min_effect && d->rounds == c->rounds && d->set_aside == c->set_aside);
    ck_assert_str_eq(d->message, c->message);
  }
  kg_run_free(&b);
  ck_assert_ptr_null(b.pairs);
}
END_TEST

/* A file of schema 1 has no "paired": it is read, as a run that was not paired. */
START_TEST(test_results_schema1_read) {
  kg_run a = sample_run(), b;
  char err[512] = "";
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path), *old = replace_first(text, "\"schema_version\":2", "\"schema_version\":1");
  kgt_spit(g_path, old);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert(b.pair.on == 0 && b.npairs == 0 && b.n == NCASES);
  kg_run_free(&b);
  free(text);
  free(old);
}
END_TEST

/* A paired file with one value that cannot be true: refused, naming the cell and what is wrong. */
static const struct {
  const char *from, *to, *message;
} k_bad_paired[] = {
    {"\"verdict\":\"SLOWER\"", "\"verdict\":\"SLOW\"", "paired.cells[0]: unknown verdict 'SLOW'"},
    {"\"dtype\":\"f64\",\"n\":65537,\"verdict\"", "\"dtype\":\"f8\",\"n\":65537,\"verdict\"", "paired.cells[2]: unknown dtype 'f8'"},
    {"\"lo\":1.05", "\"lo\":1.07", "paired.cells[0]: ratio and interval must be finite with 0 < lo <= ratio <= hi"},
    {"\"head_us\":212.5", "\"head_us\":0", "paired.cells[0]: ratio and interval must be finite"},
    {"\"blocks\":24", "\"blocks\":-24", "paired.cells[1]: negative n, blocks, pairs, rounds or set_aside"},
    {"\"confidence\":0.99", "\"confidence\":1", "paired: confidence must lie in (0, 1)"},
    {"\"base_path\":", "\"base_pat\":", "paired: missing field 'base_path'"},
    {"\"team_new+x\"", "\"<b>new|x</b>\"", "paired.cells[2]: variant is '<b>new|x</b>': not a variant name"},
};

START_TEST(test_results_paired_rejects) {
  kg_run a = sample_run(), b;
  add_pairs(&a);
  char err[512] = "", bad[160];
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path), *edited = replace_first(text, k_bad_paired[_i].from, k_bad_paired[_i].to);
  snprintf(bad, sizeof bad, "%s/bad.json", g_dir);
  kgt_spit(bad, edited);
  ck_assert_int_eq(kg_results_read(bad, &b, err, sizeof err), -1);
  ck_assert_msg(strncmp(err, bad, strlen(bad)) == 0, "message '%s' does not start with the file", err);
  ck_assert_msg(strstr(err, k_bad_paired[_i].message) != NULL, "message '%s' lacks \"%s\"", err,
                k_bad_paired[_i].message);
  ck_assert_ptr_null(strchr(err, '\n'));
  free(text);
  free(edited);
}
END_TEST

/* The CI run and runner: written when known, read back, absent (an older
 * file, a run outside CI) reads as unknown; from the environment only what
 * is well formed. */
START_TEST(test_results_provenance_round_trip) {
  kg_run a = sample_run(), b;
  char err[512] = "";
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path);
  ck_assert_ptr_null(strstr(text, "provenance"));
  free(text);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert(!kg_provenance_known(&b.meta.prov));
  kg_run_free(&b);
  setenv("GITHUB_RUN_ID", "16000123456", 1), setenv("GITHUB_RUN_ATTEMPT", "2", 1);
  setenv("RUNNER_NAME", "gpu h200 #3 \xc3\x9cnal", 1), setenv("GITHUB_REPOSITORY", "acme/kgate.c", 1);
  setenv("GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567", 1);
  kg_provenance_from_env(&a.meta.prov);
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  text = kgt_slurp(g_path);
  ck_assert_msg(strstr(text, "\"provenance\":{\"run_id\":16000123456,\"run_attempt\":2,\"runner\":\"gpu h200 #3 "
                             "\xc3\x9cnal\",\"repository\":\"acme/kgate.c\",\"sha\":\"0123456789abcdef0123456789abcdef01234567\"}"),
                "%.700s", text);
  free(text);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert(b.meta.prov.run_id == 16000123456LL && b.meta.prov.run_attempt == 2);
  ck_assert_str_eq(b.meta.prov.runner, "gpu h200 #3 \xc3\x9cnal");
  ck_assert_str_eq(b.meta.prov.sha, "0123456789abcdef0123456789abcdef01234567");
  kg_run_free(&b);
  /* malformed variables are left out, never written where the reader would refuse them */
  setenv("GITHUB_RUN_ID", "12x", 1), setenv("GITHUB_RUN_ATTEMPT", "0", 1), setenv("RUNNER_NAME", "a\x1b[2Jb", 1);
  setenv("GITHUB_REPOSITORY", "acme", 1), setenv("GITHUB_SHA", "HEAD", 1);
  kg_provenance_from_env(&a.meta.prov);
  ck_assert(!kg_provenance_known(&a.meta.prov));
  unsetenv("GITHUB_RUN_ID"), unsetenv("GITHUB_RUN_ATTEMPT"), unsetenv("RUNNER_NAME");
  unsetenv("GITHUB_REPOSITORY"), unsetenv("GITHUB_SHA");
}
END_TEST

/* The phase times and each case's cost survive a round trip; a run
 * without them writes no "phases"; a phase time that cannot be true is refused. */
START_TEST(test_results_phases_round_trip) {
  kg_run a = sample_run(), b;
  char err[512] = "";
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path);
  ck_assert_ptr_null(strstr(text, "phases"));
  free(text);
  a.meta.phases = (kg_phases){1, 1.5, 0.25, 14.75, 0, 36.5, 0.125};
  a.results[0].input_us = 120.5, a.results[0].check_us = 33.25, a.results[0].time_us = 7;
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert(b.meta.phases.known);
  ck_assert(b.meta.phases.startup_s == 1.5 && b.meta.phases.inputs_s == 0.25 && b.meta.phases.check_s == 14.75);
  ck_assert(b.meta.phases.timing_s == 0 && b.meta.phases.paired_s == 36.5 && b.meta.phases.reports_s == 0.125);
  ck_assert(b.results[0].input_us == 120.5 && b.results[0].check_us == 33.25 && b.results[0].time_us == 7);
  kg_run_free(&b);
  kgt_edit(g_path, "\"paired_s\":36.5", "\"paired_s\":-1.0");
  ck_assert_int_eq(kg_results_read(g_path, &b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "run.phases") && strstr(err, "paired_s"), "%s", err);
}
END_TEST

/* The lint survives a round trip (the page reads it back); a side the lint
 * has not, or a control character in a kernel's name, is refused. */
START_TEST(test_results_lint_round_trip) {
  kg_run a = sample_run(), b;
  kg_lint_item item = {"_Z3badPi", 90, "release", "0x0110 STG.E [R2], R5 (k.cu:12)", "0x0200 ATOMG.E.INC", "0x0100 -> 0x0200"};
  kg_lint_waived w = {"kgate_single_pass", "tagged slots", 2};
  kg_lint_module mods[2] = {{.path = "/x/libteam.so", .ran = 1, .kernels = 7, .tickets = 2, .unknown_calls = 1,
                             .items = &item, .nitems = 1, .waived = &w, .nwaived = 1},
                            {.path = "/x/other.so", .ran = 0, .why = "no nvdisasm"}};
  a.lint = mods, a.nlint = 2;
  char err[512] = "";
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(b.nlint, 2);
  ck_assert_str_eq(b.lint[0].path, "/x/libteam.so");
  ck_assert(b.lint[0].ran && b.lint[0].kernels == 7 && b.lint[0].tickets == 2 && b.lint[0].unknown_calls == 1);
  ck_assert_uint_eq(b.lint[0].nitems, 1);
  ck_assert_str_eq(b.lint[0].items[0].kernel, "_Z3badPi");
  ck_assert_str_eq(b.lint[0].items[0].first, "0x0110 STG.E [R2], R5 (k.cu:12)");
  ck_assert_str_eq(b.lint[0].items[0].side, "release");
  ck_assert(b.lint[0].nwaived == 1 && b.lint[0].waived[0].findings == 2);
  ck_assert_str_eq(b.lint[0].waived[0].reason, "tagged slots");
  ck_assert(!b.lint[1].ran);
  ck_assert_str_eq(b.lint[1].why, "no nvdisasm");
  kg_run_free(&b);
  char *text = kgt_slurp(g_path), *at = strstr(text, "\"side\":\"release\"");
  ck_assert_ptr_nonnull(at);
  memcpy(at, "\"side\":\"bogus!!\"", 16);
  kgt_spit(g_path, text);
  ck_assert_int_eq(kg_results_read(g_path, &b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "lint[0].findings[0]") && strstr(err, "bogus"), "%s", err);
  memcpy(at, "\"side\":\"release\"", 16);
  at = strstr(text, "_Z3badPi");
  memcpy(at, "_Z\\u001b", 8); /* as long as _Z3badPi */
  kgt_spit(g_path, text);
  free(text);
  ck_assert_int_eq(kg_results_read(g_path, &b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "lint[0].findings[0]") && strstr(err, "kernel"), "%s", err);
}
END_TEST

/* A provenance that cannot be true is refused, naming the field. */
static const struct {
  const char *prov, *message;
} k_bad_prov[] = {
    {"{\"run_id\":0}", "run.provenance: run_id is 0: outside [1, "},
    {"{\"run_id\":\"12\"}", "run.provenance: field 'run_id' should be an integer"},
    {"{\"run_attempt\":-1}", "run.provenance: run_attempt is -1: outside [1, "},
    {"{\"runner\":\"a\\u001b[2Jb\"}", "run.provenance: runner is 'a?[2Jb': not UTF-8, or holds control characters"},
    {"{\"runner\":\"\"}", "run.provenance: runner is '': empty"},
    {"{\"repository\":\"a/b/c\"}", "run.provenance: repository is 'a/b/c': not owner/name"},
    {"{\"sha\":\"0123ABCD\"}", "run.provenance: sha is '0123ABCD': not a commit (40 or 64 lowercase hex digits)"},
    {"[]", "run.provenance: provenance is not an object"},
};

START_TEST(test_results_provenance_rejects) {
  kg_run a = sample_run(), b;
  char err[512] = "", bad[160], insert[256];
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path);
  snprintf(insert, sizeof insert, "\"provenance\":%s,\"device\":", k_bad_prov[_i].prov);
  char *edited = replace_first(text, "\"device\":", insert);
  snprintf(bad, sizeof bad, "%s/bad.json", g_dir);
  kgt_spit(bad, edited);
  ck_assert_int_eq(kg_results_read(bad, &b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, k_bad_prov[_i].message) != NULL, "message '%s' lacks \"%s\"", err, k_bad_prov[_i].message);
  free(text), free(edited);
}
END_TEST

/* What built the code under test and the machine: "run.toolchain" when
 * anything is known (never inside "device"), read back; absent (a module
 * that does not say, an older file) reads as unknown. */
START_TEST(test_results_toolchain_round_trip) {
  kg_run a = sample_run(), b;
  char err[512] = "";
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path);
  ck_assert_ptr_null(strstr(text, "toolchain"));
  free(text);
  a.meta.dev.toolchain = (kg_toolchain){"13.0.88", "3.0.1", "0123456789abcdef", "580.65.06", "ubuntu24/20250105.1"};
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  text = kgt_slurp(g_path);
  ck_assert_msg(strstr(text, "\"toolchain\":{\"nvcc\":\"13.0.88\",\"cccl\":\"3.0.1\",\"flags\":\"0123456789abcdef\","
                             "\"driver\":\"580.65.06\",\"image\":\"ubuntu24/20250105.1\"}"),
                "%.900s", text);
  char *dev = strstr(text, "\"device\":{");
  ck_assert_ptr_nonnull(dev);
  char *tc = strstr(dev, "\"toolchain\""), *dev_end = strchr(dev, '}'); /* "device" holds no object */
  ck_assert_msg(tc == NULL || tc > dev_end, "the toolchain is inside \"device\": %.300s", dev);
  free(text);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(b.meta.dev.toolchain.nvcc, "13.0.88");
  ck_assert_str_eq(b.meta.dev.toolchain.cccl, "3.0.1");
  ck_assert_str_eq(b.meta.dev.toolchain.flags, "0123456789abcdef");
  ck_assert_str_eq(b.meta.dev.toolchain.driver, "580.65.06");
  ck_assert_str_eq(b.meta.dev.toolchain.image, "ubuntu24/20250105.1");
  kg_run_free(&b);
  /* only some known: only those written */
  a.meta.dev.toolchain = (kg_toolchain){.image = "gpu-runner:2026.1 (cuda 13.0)"};
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(b.meta.dev.toolchain.image, "gpu-runner:2026.1 (cuda 13.0)");
  ck_assert(!b.meta.dev.toolchain.nvcc[0]);
  kg_run_free(&b);
}
END_TEST

/* The machine's part: the runner image from GitHub's ImageOS/ImageVersion,
 * else KGATE_RUNNER_IMAGE, each only when well formed; the kernel driver
 * from the driver's version file. */
START_TEST(test_results_toolchain_machine) {
  char drv[192];
  snprintf(drv, sizeof drv, "%s/version", g_dir);
  kgt_spit(drv, "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:18 UTC 2025\n"
                "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n");
  kg_toolchain t = {.nvcc = "13.0.88"};
  setenv("ImageOS", "ubuntu24", 1), setenv("ImageVersion", "20250105.1", 1), setenv("KGATE_RUNNER_IMAGE", "own", 1);
  kg_toolchain_machine(&t, drv);
  ck_assert_str_eq(t.image, "ubuntu24/20250105.1");
  ck_assert_str_eq(t.driver, "580.65.06");
  ck_assert_str_eq(t.nvcc, "13.0.88"); /* the modules' part is left as it was */
  unsetenv("ImageOS");
  kgt_spit(drv, "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  "
                "(dvs-builder@U16)\n");
  kg_toolchain_machine(&t, drv);
  ck_assert_str_eq(t.image, "own");
  ck_assert_str_eq(t.driver, "575.57.08");
  setenv("KGATE_RUNNER_IMAGE", "own\x1b[2J", 1); /* not printable: unknown, never written */
  kgt_spit(drv, "no driver here 1.2.3.4.5\n");
  kg_toolchain_machine(&t, drv);
  ck_assert_str_eq(t.image, "");
  ck_assert_str_eq(t.driver, "");
  unsetenv("KGATE_RUNNER_IMAGE"), unsetenv("ImageVersion");
  kg_toolchain_machine(&t, "/nonexistent/version");
  ck_assert(!t.image[0] && !t.driver[0]);
}
END_TEST

/* A toolchain that cannot be what kgate wrote is refused, naming the field. */
static const struct {
  const char *tc, *message;
} k_bad_tc[] = {
    {"{\"nvcc\":\"13.0.88\\u001b[2J\"}", "run.toolchain: nvcc is '13.0.88?[2J': not a version"},
    {"{\"cccl\":\"v3\"}", "run.toolchain: cccl is 'v3': not a version"},
    {"{\"flags\":\"0123456789abcdefg\"}", "run.toolchain: flags is '0123456789abcdefg': not a digest"},
    {"{\"driver\":\"580.65.06 beta\"}", "run.toolchain: driver is '580.65.06 beta': not a version"},
    {"{\"image\":\"a\\nb\"}", "run.toolchain: image is 'a?b': not printable ASCII"},
    {"{\"image\":7}", "run.toolchain: field 'image' should be a string"},
    {"\"13.0.88\"", "run.toolchain: not an object"},
};

START_TEST(test_results_toolchain_rejects) {
  kg_run a = sample_run(), b;
  char err[512] = "", bad[160], insert[256];
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path);
  snprintf(insert, sizeof insert, "\"toolchain\":%s,\"device\":", k_bad_tc[_i].tc);
  char *edited = replace_first(text, "\"device\":", insert);
  snprintf(bad, sizeof bad, "%s/bad.json", g_dir);
  kgt_spit(bad, edited);
  ck_assert_int_eq(kg_results_read(bad, &b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, k_bad_tc[_i].message) != NULL, "message '%s' lacks \"%s\"", err, k_bad_tc[_i].message);
  ck_assert_msg(strncmp(err, bad, strlen(bad)) == 0 && !strchr(err, '\n') && !strchr(err, '\x1b'), "%s", err);
  free(text), free(edited);
}
END_TEST

START_TEST(test_results_read_rejects) {
  kg_run a = sample_run(), b;
  char err[512] = "", bad[160];
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path), *edited = replace_first(text, k_bad[_i].from, k_bad[_i].to);
  snprintf(bad, sizeof bad, "%s/bad.json", g_dir);
  kgt_spit(bad, edited);
  ck_assert_int_eq(kg_results_read(bad, &b, err, sizeof err), -1);
  ck_assert_msg(strncmp(err, bad, strlen(bad)) == 0, "message '%s' does not start with the file", err);
  ck_assert_msg(strstr(err, k_bad[_i].message) != NULL, "message '%s' lacks \"%s\"", err, k_bad[_i].message);
  ck_assert_ptr_null(strchr(err, '\n'));
  ck_assert(b.n == 0 && b.cases == NULL && b.results == NULL);
  free(text);
  free(edited);
}
END_TEST

START_TEST(test_results_read_exact_messages) {
  kg_run b;
  char err[512], path[160], want[400];
  snprintf(path, sizeof path, "%s/v2.json", g_dir);
  kgt_spit(path, "{\"kind\":\"kgate-results\",\"schema_version\":3}");
  ck_assert_int_eq(kg_results_read(path, &b, err, sizeof err), -1);
  snprintf(want, sizeof want, "%s: schema_version 3 is not supported (this kgate reads 1 to 2)", path);
  ck_assert_str_eq(err, want);
  snprintf(path, sizeof path, "%s/missing.json", g_dir);
  ck_assert_int_eq(kg_results_read(path, &b, err, sizeof err), -1);
  snprintf(want, sizeof want, "cannot read %s: No such file or directory", path);
  ck_assert_str_eq(err, want);
  ck_assert_int_eq(kg_results_read(g_dir, &b, err, sizeof err), -1); /* a folder */
  ck_assert_msg(strstr(err, g_dir) != NULL, "%s", err);
  snprintf(path, sizeof path, "%s/empty.json", g_dir);
  kgt_spit(path, "");
  ck_assert_int_eq(kg_results_read(path, &b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "malformed JSON at line") != NULL, "%s", err);
}
END_TEST


/* --- Variants kgate has never seen, and the facts of module variants. */

/* A name no registry knows is kept, written back and counted like any
 * other; a run holding only such names writes no "variants". */
START_TEST(test_results_unknown_variant_kept) {
  kg_run a = sample_run(), b, c;
  char err[512] = "", again[160];
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path);
  char *edited = replace_first(text, "\"variant\":\"reduce0_divergent\"", "\"variant\":\"my_team_kernel\"");
  kgt_spit(g_path, edited);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  int v = b.cases[0].variant;
  ck_assert_str_eq(kg_variants[v].name, "my_team_kernel");
  ck_assert_int_eq(kg_variants[v].known, 0);
  ck_assert_double_eq(b.results[0].timing.median_us, 200);
  ck_assert(kg_perf_of(&b, 0).vs_cub > 0); /* CUB stays the reference row */
  snprintf(again, sizeof again, "%s/again.json", g_dir);
  ck_assert_msg(kg_results_write(again, &b, err, sizeof err) == 0, "%s", err);
  char *written = kgt_slurp(again);
  ck_assert_ptr_nonnull(strstr(written, "\"variant\":\"my_team_kernel\""));
  ck_assert_ptr_null(strstr(written, "\"variants\""));
  ck_assert_msg(kg_results_read(again, &c, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(c.cases[0].variant, v);
  kg_run_free(&b);
  kg_run_free(&c);
  free(text), free(edited), free(written);
  kg_registry_reset();
}
END_TEST

/* A module variant's facts (seed, idea, flags, dtypes, op, NaN policy) go
 * into "variants" and come back when another kgate, without the module,
 * reads the file. */
START_TEST(test_results_variant_facts_round_trip) {
  char err[512] = "";
  int mod = kg_registry_add_module("/team/build/libteam.so");
  kg_variant_info mx = {"team_max", "team", "a max, NaNs ignored", KG_FLOAT_ATOMICS, KG_DT_WIDE, KG_OP_MAX,
                        KG_NAN_IGNORE, mod, 1};
  ck_assert_int_ge(kg_registry_add(&mx, err, sizeof err), 0);
  kg_run a = sample_run(), b;
  g_cases[6] = mk("team_max", KG_F32, 4194304, KG_PAT_UNIFORM, 1);
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path);
  ck_assert_msg(strstr(text, "\"variants\":{\"team_max\":{\"seed\":\"team\",\"idea\":\"a max, NaNs ignored\","
                             "\"flags\":[\"float-atomics\"],\"dtypes\":[\"i32\",\"i64\",\"f32\",\"f64\"],"
                             "\"op\":\"max\",\"nan\":\"ignore\",\"module\":\"/team/build/libteam.so\"}}"),
                "%.600s", text);
  kg_registry_reset(); /* another kgate: the module is not loaded */
  ck_assert_int_eq(kg_variant_find("team_max"), -1);
  ck_assert_msg(kg_results_read(g_path, &b, err, sizeof err) == 0, "%s", err);
  const kg_variant_info *vi = &kg_variants[b.cases[6].variant];
  ck_assert_str_eq(vi->name, "team_max");
  ck_assert_str_eq(vi->seed, "team");
  ck_assert_str_eq(vi->idea, "a max, NaNs ignored");
  ck_assert(vi->known && vi->module == -1);
  ck_assert_uint_eq(vi->op, KG_OP_MAX);
  ck_assert_uint_eq(vi->nan, KG_NAN_IGNORE);
  ck_assert_uint_eq(vi->flags, KG_FLOAT_ATOMICS);
  ck_assert_uint_eq(vi->dtypes, KG_DT_WIDE);
  /* and out again, still with its facts */
  ck_assert_msg(kg_results_write(g_path, &b, err, sizeof err) == 0, "%s", err);
  char *again = kgt_slurp(g_path);
  ck_assert_ptr_nonnull(strstr(again, "\"team_max\":{\"seed\":\"team\",\"idea\":\"a max, NaNs ignored\","
                                      "\"flags\":[\"float-atomics\"],\"dtypes\":[\"i32\",\"i64\",\"f32\",\"f64\"],"
                                      "\"op\":\"max\",\"nan\":\"ignore\"}"));
  kg_run_free(&b);
  free(text), free(again);
  kg_registry_reset();
}
END_TEST

/* Facts that cannot be true are refused, naming the variant and the field. */
static const struct {
  const char *facts, *message;
} k_bad_facts[] = {
    {"{\"Team Max\":{\"seed\":\"t\",\"idea\":\"\",\"flags\":[],\"dtypes\":[],\"op\":\"max\"}}",
     "variants.Team Max: a variant name is [a-z0-9_], 1..63 characters"},
    {"{\"team_max\":{\"seed\":\"t\",\"idea\":\"\",\"flags\":[],\"dtypes\":[],\"op\":\"prod\"}}",
     "variants.team_max: op 'prod' is not sum, min, max or unknown"},
    {"{\"team_max\":{\"seed\":\"t\",\"idea\":\"\",\"flags\":[],\"dtypes\":[],\"op\":\"sum\",\"nan\":\"ignore\"}}",
     "variants.team_max: a sum has no NaN policy"},
    {"{\"team_max\":{\"seed\":\"t\",\"idea\":\"\",\"flags\":[],\"dtypes\":[],\"op\":\"max\",\"nan\":\"skip\"}}",
     "variants.team_max: nan is not \"propagate\" or \"ignore\""},
    {"{\"team_max\":{\"seed\":\"t\",\"idea\":\"\",\"flags\":[\"fast\"],\"dtypes\":[],\"op\":\"max\"}}",
     "variants.team_max: flags[0] is not \"in-place\" or \"float-atomics\""},
    {"{\"team_max\":{\"seed\":\"t\",\"idea\":\"\",\"flags\":[],\"dtypes\":[\"i8\"],\"op\":\"max\"}}",
     "variants.team_max: dtypes[0] is not a dtype name"},
    {"{\"team_max\":{\"seed\":\"t\",\"idea\":\"\\u001b[2J\",\"flags\":[],\"dtypes\":[],\"op\":\"max\"}}",
     "variants.team_max: idea is '?[2J': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"{\"team_max\":{\"seed\":\"a\\u0085b\",\"idea\":\"\",\"flags\":[],\"dtypes\":[],\"op\":\"max\"}}",
     "variants.team_max: seed is 'a?b': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"{\"team_max\":{\"seed\":\"t\",\"idea\":\"a\\nb\",\"flags\":[],\"dtypes\":[],\"op\":\"max\"}}",
     "variants.team_max: idea is 'a?b': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"{\"team_max\":{\"seed\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",\"idea\":\"\","
     "\"flags\":[],\"dtypes\":[],\"op\":\"max\"}}",
     "variants.team_max: seed is 64 bytes long: at most 63"},
    {"{\"team_max\":{\"idea\":\"\",\"flags\":[],\"dtypes\":[],\"op\":\"max\"}}", "variants.team_max: missing field 'seed'"},
    {"[1]", "variants: not an object"},
};

START_TEST(test_results_variant_facts_rejects) {
  kg_run a = sample_run(), b;
  char err[512] = "", bad[160], *insert = malloc(strlen(k_bad_facts[_i].facts) + 32);
  ck_assert_msg(kg_results_write(g_path, &a, err, sizeof err) == 0, "%s", err);
  sprintf(insert, "\"variants\":%s,\"cases\"", k_bad_facts[_i].facts);
  char *text = kgt_slurp(g_path), *edited = replace_first(text, "\"cases\"", insert);
  snprintf(bad, sizeof bad, "%s/bad.json", g_dir);
  kgt_spit(bad, edited);
  ck_assert_int_eq(kg_results_read(bad, &b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, k_bad_facts[_i].message) != NULL, "message '%s' lacks \"%s\"", err, k_bad_facts[_i].message);
  ck_assert_ptr_null(strchr(err, '\n'));
  free(text), free(edited), free(insert);
  kg_registry_reset();
}
END_TEST

/* --- Atomic: the target is whole, old or new, whatever happens to the writer. */

static const char k_old[] = "{\"old\":\"content\",\"kept\":[1,2,3]}\n";

START_TEST(test_fileio_killed_writer_keeps_old) {
  kgt_spit(g_path, k_old);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    kg_outfile o;
    char err[256];
    if (kg_out_open(&o, g_path, err, sizeof err)) _exit(3);
    fputs("{\"new\":\"half of it", o.f);
    fflush(o.f); /* the half really is in the temp file */
    raise(SIGKILL);
    _exit(4);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child status %d", status);
  char *now = kgt_slurp(g_path);
  ck_assert_str_eq(now, k_old);
  free(now);
  /* The half-written file is the stray temp beside it, not the target. */
  ck_assert_int_eq(kgt_count_files(g_dir, "results.json"), 1);
}
END_TEST

START_TEST(test_fileio_abort_leaves_nothing) {
  kgt_spit(g_path, k_old);
  kg_outfile o;
  char err[256] = "";
  ck_assert_msg(kg_out_open(&o, g_path, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kgt_count_files(g_dir, "results.json"), 1); /* the temp file */
  ck_assert(strncmp(o.tmp, g_path, strlen(g_path)) == 0 && strstr(o.tmp, ".tmp.") != NULL);
  fputs("garbage", o.f);
  kg_out_abort(&o);
  kg_out_abort(&o); /* twice is harmless */
  ck_assert_int_eq(kgt_count_files(g_dir, "results.json"), 0);
  char *now = kgt_slurp(g_path);
  ck_assert_str_eq(now, k_old);
  free(now);
}
END_TEST

START_TEST(test_fileio_commit_replaces) {
  kgt_spit(g_path, k_old);
  umask(022);
  kg_outfile o;
  char err[256] = "";
  ck_assert_msg(kg_out_open(&o, g_path, err, sizeof err) == 0, "%s", err);
  fputs("new\n", o.f);
  ck_assert_msg(kg_out_commit(&o, err, sizeof err) == 0, "%s", err);
  char *now = kgt_slurp(g_path);
  ck_assert_str_eq(now, "new\n");
  free(now);
  ck_assert_int_eq(kgt_count_files(g_dir, "results.json"), 0);
  struct stat st;
  ck_assert_int_eq(stat(g_path, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0644); /* not mkstemp's 0600 */
}
END_TEST

START_TEST(test_fileio_open_fails) {
  kg_outfile o;
  char err[256] = "";
  ck_assert_int_eq(kg_out_open(&o, "/nonexistent-kgate/dir/out.json", err, sizeof err), -1);
  ck_assert_str_eq(err, "cannot write /nonexistent-kgate/dir/out.json: No such file or directory");
  kg_run a = sample_run();
  ck_assert_int_eq(kg_results_write("/nonexistent-kgate/r.json", &a, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "/nonexistent-kgate/r.json") != NULL, "%s", err);
}
END_TEST

#define N(a) (int)(sizeof a / sizeof a[0])

/* ---- Errors: values that cannot be true (tests/data/refused) --------------- */

#define REFUSED KG_SOURCE_DIR "/tests/data/refused/"

/* Each fixture differs from results-ok.json in one field; the reader refuses
 * it in one line naming the file, the object and the field. */
static const struct {
  const char *file, *want;
} k_refused_results[] = {
    {"results-paired-rounds0.json", "paired: rounds is 0 and max_rounds 6: a paired run has 1 <= rounds"},
    {"results-cell-rounds0.json", "paired.cells[0]: rounds is 0 with 8 blocks"},
    {"results-unsupported-timed.json",
     "cases[0] (two_pass i32 33554432 wrap): supported is false, yet the case has a timing"},
    /* As closed as the schema: a misspelt key is refused, naming it, never dropped. */
    {"results-unknown-run-key.json", "run: unknown field 'incomplet'"},
    {"results-unknown-cell-key.json", "paired.cells[0]: unknown field 'note'"},
    /* A value quoted by a message is escaped: no line of the file's own in a log (::error::). */
    {"results-pair-dtype-control.json", "paired.cells[0]: unknown dtype 'i32?[31m?::error::forged'"},
    {"results-pair-verdict-control.json", "paired.cells[0]: unknown verdict 'SLOWER??::error::forged'"},
    /* A path is text the reports print: no control or bidirectional character. */
    {"results-lint-module-control.json", "lint[0]: module is 'a?[2J?b.so': not a path"},
};

START_TEST(test_results_read_refuses_fixture) {
  kg_run run = {0};
  char err[512] = "";
  ck_assert_msg(kg_results_read(REFUSED "results-ok.json", &run, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(run.n, 1);
  ck_assert_uint_eq(run.npairs, 1);
  kg_run_free(&run);
  const char *file = k_refused_results[_i].file;
  char path[512];
  snprintf(path, sizeof path, REFUSED "%s", file);
  ck_assert_int_eq(kg_results_read(path, &run, err, sizeof err), -1);
  ck_assert_msg(strstr(err, path) && strstr(err, k_refused_results[_i].want) && !strchr(err, '\n') &&
                    !strchr(err, '\r') && !strchr(err, '\x1b'),
                "%s: %s", file, err);
  kg_run_free(&run);
}
END_TEST

Suite *make_results_suite(void) {
  Suite *s = suite_create("results");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, scratch_setup, scratch_teardown);
  tcase_add_test(core, test_results_round_trip);
  tcase_add_test(core, test_results_file_shape);
  tcase_add_test(core, test_results_perf_of);
  tcase_add_test(core, test_results_stdout);
  tcase_add_test(core, test_results_paired_round_trip);
  tcase_add_test(core, test_results_schema1_read);
  tcase_add_test(core, test_results_unknown_variant_kept);
  tcase_add_test(core, test_results_variant_facts_round_trip);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, scratch_setup, scratch_teardown);
  tcase_add_loop_test(errors, test_results_read_rejects, 0, N(k_bad));
  tcase_add_test(errors, test_results_read_exact_messages);
  tcase_add_loop_test(errors, test_results_paired_rejects, 0, N(k_bad_paired));
  tcase_add_test(errors, test_fileio_open_fails);
  tcase_add_loop_test(errors, test_results_variant_facts_rejects, 0, N(k_bad_facts));
  tcase_add_test(errors, test_results_provenance_round_trip);
  tcase_add_test(errors, test_results_phases_round_trip);
  tcase_add_test(errors, test_results_lint_round_trip);
  tcase_add_loop_test(errors, test_results_provenance_rejects, 0, N(k_bad_prov));
  tcase_add_test(errors, test_results_toolchain_round_trip);
  tcase_add_test(errors, test_results_toolchain_machine);
  tcase_add_loop_test(errors, test_results_toolchain_rejects, 0, N(k_bad_tc));
  tcase_add_loop_test(errors, test_results_read_refuses_fixture, 0, N(k_refused_results));
  suite_add_tcase(s, errors);
  TCase *atomic = tcase_create("Atomic");
  tcase_add_checked_fixture(atomic, scratch_setup, scratch_teardown);
  tcase_add_test(atomic, test_fileio_killed_writer_keeps_old);
  tcase_add_test(atomic, test_fileio_abort_leaves_nothing);
  tcase_add_test(atomic, test_fileio_commit_replaces);
  suite_add_tcase(s, atomic);
  return s;
}
