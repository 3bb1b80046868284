/* The nightly against a pinned reference: the pin file and module hashes
 * (refpin.h), the history's paired section, the detector (detect.h), its
 * acknowledgements, and `kgate history check`. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "detect.h"
#include "dtype.h"
#include "exitcode.h"
#include "history.h"
#include "refpin.h"
#include "varreg.h"
#include "replay.h"
#include "testutil.h"

#define M22 ((size_t)1 << 22)
#define M25 ((size_t)1 << 25)

static char g_dir[64];

static void setup(void) { kgt_mkscratch(g_dir, sizeof g_dir, "nightly"); }
static void teardown(void) { ck_assert_int_eq(kgt_rmtree(g_dir), 0); }

static void path_in(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", g_dir, name); }

/* ---- pins -------------------------------------------------------------------------- */

START_TEST(test_sha256_known_value) {
  char p[128], hex[65], err[256];
  path_in(p, sizeof p, "abc");
  kgt_spit(p, "abc");
  ck_assert_int_eq(kg_sha256_file(p, hex, err, sizeof err), 0);
  /* FIPS 180-2, appendix B.1 */
  ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  path_in(p, sizeof p, "missing");
  ck_assert_int_eq(kg_sha256_file(p, hex, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "missing"));
}
END_TEST

static const char k_pin[] = "{\"module\":\"kgate\",\"sha256\":"
                            "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\","
                            "\"commit\":\"79c9a97eb8f4\",\"nvcc\":\"13.0.88\",\"architectures\":\"%s\","
                            "\"pinned\":\"2026-11-25\"}";

static int read_pins(const char *archs, kg_pins *p, char *err, size_t errlen) {
  char path[128], pin[512], doc[700];
  snprintf(pin, sizeof pin, k_pin, archs);
  snprintf(doc, sizeof doc, "{\"kind\":\"kgate-reference-pins\",\"schema_version\":1,\"pins\":[%s]}", pin);
  path_in(path, sizeof path, "pins.json");
  kgt_spit(path, doc);
  return kg_pins_read(path, p, err, errlen);
}

START_TEST(test_pins_match_and_refuse) {
  kg_pins p;
  char err[512];
  ck_assert_msg(read_pins("80-real;90-real", &p, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(p.n, 1);
  const char *abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  ck_assert_ptr_nonnull(kg_pin_match(&p, "kgate", abc, err, sizeof err));
  /* the wrong hash: refused, naming both */
  const char *other = "0000000000000000000000000000000000000000000000000000000000000000";
  ck_assert_ptr_null(kg_pin_match(&p, "kgate", other, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "not a pinned one"));
  ck_assert_ptr_nonnull(strstr(err, "ba7816bf8f01"));
  ck_assert_ptr_null(kg_pin_match(&p, "team", abc, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "no pinned reference for module 'team'"));
}
END_TEST

START_TEST(test_pins_architectures) {
  kg_pins p;
  char err[512];
  ck_assert_msg(read_pins("90", &p, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kg_pin_has_ptx(&p.pins[0]), 1); /* "90" embeds PTX: a newer driver would JIT it */
  ck_assert_msg(read_pins("80-real;90a-real", &p, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kg_pin_has_ptx(&p.pins[0]), 0);
  ck_assert_int_eq(read_pins("90-real;", &p, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "pins[0]"));
  ck_assert_ptr_nonnull(strstr(err, "architectures"));
  ck_assert_int_eq(read_pins("sm_90", &p, err, sizeof err), -1);
}
END_TEST

/* ---- a synthetic history ---------------------------------------------------------------- */

enum { NCELLS = 24, MAXNIGHTS = 40 };

static const char *const k_variants[4] = {"cub_sum", "reduce7_shuffle", "two_pass", "kgate_single_pass"};

/* Deterministic small noise: about +-0.05 % (2^25) or +-0.15 % (2^22). */
static double noise(unsigned night, unsigned cell, size_t n) {
  unsigned h = (night * 2654435761u) ^ (cell * 40503u + 17u);
  h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
  double u = (double)(h % 2001) / 1000.0 - 1.0; /* [-1, 1] */
  return (n == M25 ? 0.0005 : 0.0015) * u;
}

typedef struct synth {
  kg_history h;
  kg_hist_run runs[MAXNIGHTS];
  kg_hist_pcell cells[MAXNIGHTS][NCELLS];
  kg_hist_pcell control[MAXNIGHTS][1];
} synth;

static void cell_key(int i, kg_hist_pcell *c) {
  snprintf(c->variant, sizeof c->variant, "%s", k_variants[i % 4]);
  c->dtype = (kg_dtype)((i / 4) % 3 == 0 ? KG_I32 : (i / 4) % 3 == 1 ? KG_F32 : KG_F64);
  c->n = i < NCELLS / 2 ? M22 : M25;
}

/* nights nights of NCELLS cells at ratio 1 (plus noise), a control cell too. */
static void make_synth(synth *s, int nights) {
  memset(s, 0, sizeof *s);
  for (int t = 0; t < nights; t++) {
    kg_hist_run *r = &s->runs[t];
    snprintf(r->date, sizeof r->date, "2026-11-%02dT03:17:00Z", 1 + t % 28);
    snprintf(r->commit, sizeof r->commit, "%07x", 0xabc0000 + t);
    r->dev = kgt_h200();
    r->paired.has = 1, r->paired.confidence = 0.99, r->paired.rounds = 4;
    snprintf(r->paired.ref_sha256, sizeof r->paired.ref_sha256, "%064d", 1);
    for (int i = 0; i < NCELLS; i++) {
      kg_hist_pcell *c = &s->cells[t][i];
      cell_key(i, c);
      c->ratio = 1 + noise((unsigned)t, (unsigned)i, c->n);
      c->lo = c->ratio * 0.998, c->hi = c->ratio * 1.002, c->head_us = 40 * c->ratio, c->base_us = 40;
    }
    qsort(s->cells[t], NCELLS, sizeof s->cells[t][0], kg_hist_pcell_cmp);
    r->paired.cells = s->cells[t], r->paired.n = NCELLS;
    kg_hist_pcell *k = &s->control[t][0];
    cell_key(0, k);
    k->ratio = 1 + noise((unsigned)t, 99, k->n), k->lo = k->ratio * 0.998, k->hi = k->ratio * 1.002;
    k->head_us = k->base_us = 40;
    r->paired.control = s->control[t], r->paired.ncontrol = 1;
  }
  s->h.runs = s->runs, s->h.n = (size_t)nights;
}

static kg_hist_pcell *find_cell(synth *s, int t, const char *variant, kg_dtype dt, size_t n) {
  return (kg_hist_pcell *)kg_hist_pfind(s->cells[t], NCELLS, variant, dt, n);
}

static void step(synth *s, int from, int to, const char *variant, kg_dtype dt, size_t n, double f) {
  for (int t = from; t < to; t++) {
    kg_hist_pcell *c = find_cell(s, t, variant, dt, n);
    ck_assert_ptr_nonnull(c);
    c->ratio *= f, c->lo *= f, c->hi *= f, c->head_us *= f;
  }
}

static synth g_s;

static void detect_synth(kg_detection *d) {
  kg_detect_opts o = kg_detect_defaults();
  ck_assert_int_eq(kg_detect(&g_s.h, NULL, &o, d), 0);
}

START_TEST(test_detect_quiet_history_has_no_finding) {
  make_synth(&g_s, 30);
  kg_detection d;
  detect_synth(&d);
  ck_assert_uint_eq(d.nseries, NCELLS);
  ck_assert_uint_eq(d.open_regressions, 0);
  for (size_t i = 0; i < d.nfind; i++) ck_assert_int_ne(d.find[i].kind, KG_FIND_REGRESSION);
  kg_detection_free(&d);
}
END_TEST

START_TEST(test_detect_step_names_cell_and_night) {
  make_synth(&g_s, 20);
  step(&g_s, 10, 20, "two_pass", KG_F32, M25, 1.005); /* +0.5 % at 2^25 from night 10 */
  kg_detection d;
  detect_synth(&d);
  ck_assert_uint_eq(d.open_regressions, 1);
  const kg_finding *f = &d.find[0];
  ck_assert_int_eq(f->kind, KG_FIND_REGRESSION);
  ck_assert_uint_eq(f->ncells, 1);
  ck_assert_str_eq(f->cells[0].variant, "two_pass");
  ck_assert_uint_eq(f->cells[0].n, M25);
  ck_assert_uint_eq(f->first_bad, 10);
  ck_assert_uint_eq(f->last_good, 9);
  ck_assert_uint_le(f->alarm, 12); /* within 3 nights */
  ck_assert(f->cells[0].after / f->cells[0].before > 1.004);
  kg_detection_free(&d);
}
END_TEST

START_TEST(test_detect_one_night_blip_never_alarms) {
  make_synth(&g_s, 20);
  step(&g_s, 10, 11, "cub_sum", KG_I32, M22, 1.10); /* one wild night */
  kg_detection d;
  detect_synth(&d);
  ck_assert_uint_eq(d.open_regressions, 0);
  kg_detection_free(&d);
}
END_TEST

/* Nights whose rounds disagreed (their intervals ten times the cell's usual
 * width) say less: three of them 0.6 % off do not alarm, while the same
 * three nights measured as tightly as the others do. */
START_TEST(test_detect_wide_nights_weigh_less) {
  for (int wide = 0; wide < 2; wide++) {
    make_synth(&g_s, 20);
    step(&g_s, 10, 13, "two_pass", KG_F32, M25, 1.006);
    for (int t = 10; wide && t < 13; t++) {
      kg_hist_pcell *c = find_cell(&g_s, t, "two_pass", KG_F32, M25);
      c->lo = c->ratio * 0.98, c->hi = c->ratio * 1.02;
    }
    kg_detection d;
    detect_synth(&d);
    ck_assert_uint_eq(d.open_regressions, wide ? 0 : 1);
    kg_detection_free(&d);
  }
}
END_TEST

START_TEST(test_detect_improvement_recorded_not_failing) {
  make_synth(&g_s, 20);
  step(&g_s, 10, 20, "cub_sum", KG_I32, M25, 0.99);
  kg_detection d;
  detect_synth(&d);
  ck_assert_uint_eq(d.open_regressions, 0);
  ck_assert_uint_ge(d.nfind, 1);
  ck_assert_int_eq(d.find[0].kind, KG_FIND_IMPROVEMENT);
  kg_detection_free(&d);
}
END_TEST

/* Every cell slower from the same night, the control steady: a compiler or
 * a shared header, a regression (many cells moving is no evidence of the
 * machine); the same with the control moved is the environment. */
START_TEST(test_detect_every_cell_moving_is_regression) {
  make_synth(&g_s, 20);
  for (int i = 0; i < NCELLS; i++) {
    kg_hist_pcell k;
    cell_key(i, &k);
    step(&g_s, 10, 20, k.variant, k.dtype, k.n, 1.01);
  }
  kg_detection d;
  detect_synth(&d);
  ck_assert_uint_ge(d.open_regressions, 1);
  ck_assert_int_eq(d.find[0].kind, KG_FIND_REGRESSION);
  ck_assert_uint_eq(d.find[0].first_bad, 10);
  for (size_t i = 0; i < d.nfind; i++) ck_assert_int_ne(d.find[i].kind, KG_FIND_ENVIRONMENT);
  kg_detection_free(&d);
  for (int t = 10; t < 20; t++) g_s.control[t][0].ratio *= 1.01, g_s.control[t][0].hi *= 1.01, g_s.control[t][0].lo *= 1.01;
  detect_synth(&d);
  ck_assert_uint_eq(d.open_regressions, 0);
  ck_assert_int_eq(d.find[0].kind, KG_FIND_ENVIRONMENT);
  kg_detection_free(&d);
}
END_TEST

/* The control (the reference against itself) moving marks its night too. */
START_TEST(test_detect_control_move_is_environment) {
  make_synth(&g_s, 20);
  step(&g_s, 10, 20, "two_pass", KG_F32, M25, 1.01);
  for (int t = 10; t < 20; t++) g_s.control[t][0].ratio *= 1.01, g_s.control[t][0].hi *= 1.01, g_s.control[t][0].lo *= 1.01;
  kg_detection d;
  detect_synth(&d);
  ck_assert_uint_eq(d.open_regressions, 0);
  ck_assert_int_eq(d.find[0].kind, KG_FIND_ENVIRONMENT);
  kg_detection_free(&d);
}
END_TEST

/* A night that lacks some cells (a shard lost, a variant renamed) is read
 * and the other cells are watched as before. */
START_TEST(test_detect_night_with_missing_cells) {
  make_synth(&g_s, 20);
  step(&g_s, 10, 20, "two_pass", KG_F32, M25, 1.005);
  g_s.runs[12].paired.n = NCELLS / 2; /* night 12: half its cells */
  kg_detection d;
  detect_synth(&d);
  ck_assert_uint_eq(d.open_regressions, 1);
  ck_assert_str_eq(d.find[0].cells[0].variant, "two_pass");
  kg_detection_free(&d);
}
END_TEST

static void write_ack(const char *path, const char *from, const char *cell) {
  char doc[512];
  snprintf(doc, sizeof doc,
           "{\"kind\":\"kgate-acknowledged\",\"schema_version\":1,\"acknowledged\":[{\"from\":\"%s\","
           "\"reason\":\"the new combine, reviewed\",\"cells\":[\"%s\"]}]}",
           from, cell);
  kgt_spit(path, doc);
}

/* Acknowledged: closed, and the new level is the accepted one; a second step re-opens. */
START_TEST(test_detect_ack_closes_then_reopens) {
  char ack[128], err[512];
  path_in(ack, sizeof ack, "ack.json");
  make_synth(&g_s, 30);
  step(&g_s, 10, 30, "two_pass", KG_F32, M25, 1.005);
  write_ack(ack, g_s.runs[10].commit, "two_pass f32 33554432");
  kg_acks a;
  ck_assert_msg(kg_acks_read(ack, &a, err, sizeof err) == 0, "%s", err);
  kg_detect_opts o = kg_detect_defaults();
  kg_detection d;
  ck_assert_int_eq(kg_detect(&g_s.h, &a, &o, &d), 0);
  ck_assert_uint_eq(d.open_regressions, 0);
  ck_assert_uint_ge(d.nfind, 1);
  ck_assert_int_eq(d.find[0].kind, KG_FIND_REGRESSION);
  ck_assert_int_eq(d.find[0].acknowledged, 1);
  kg_detection_free(&d);
  /* the same cell slows again from night 20: open again */
  step(&g_s, 20, 30, "two_pass", KG_F32, M25, 1.005);
  ck_assert_int_eq(kg_detect(&g_s.h, &a, &o, &d), 0);
  ck_assert_uint_eq(d.open_regressions, 1);
  ck_assert_int_eq(d.find[0].acknowledged, 0);
  ck_assert_uint_eq(d.find[0].first_bad, 20);
  kg_detection_free(&d);
  kg_acks_free(&a);
}
END_TEST

START_TEST(test_acks_refuse_bad_cell) {
  char ack[128], err[512];
  kg_acks a;
  path_in(ack, sizeof ack, "ack.json");
  write_ack(ack, "abc1234", "two_pass f33 33554432");
  ck_assert_int_eq(kg_acks_read(ack, &a, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "acknowledged[0]"));
  write_ack(ack, "not a night!", "two_pass f32 33554432");
  ck_assert_int_eq(kg_acks_read(ack, &a, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "from"));
  /* As closed as the schema: an unknown key, or no reason, is refused with the key named. */
  kgt_spit(ack, "{\"kind\":\"kgate-acknowledged\",\"schema_version\":1,\"acknowledged\":[{\"from\":\"abc1234\","
                "\"reason\":\"x\",\"cells\":[],\"cell\":\"two_pass f32 33554432\"}]}");
  ck_assert_int_eq(kg_acks_read(ack, &a, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "acknowledged[0]: unknown field 'cell'") != NULL, "%s", err);
  kgt_spit(ack, "{\"kind\":\"kgate-acknowledged\",\"schema_version\":1,\"acknowledged\":[],\"acknowleged\":[]}");
  ck_assert_int_eq(kg_acks_read(ack, &a, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "unknown field 'acknowleged'") != NULL, "%s", err);
  kgt_spit(ack, "{\"kind\":\"kgate-acknowledged\",\"schema_version\":1,\"acknowledged\":[{\"from\":\"abc1234\","
                "\"reason\":\"\",\"cells\":[]}]}");
  ck_assert_int_eq(kg_acks_read(ack, &a, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "acknowledged[0]: reason is '': empty") != NULL, "%s", err);
  path_in(ack, sizeof ack, "none.json");
  ck_assert_int_eq(kg_acks_read(ack, &a, err, sizeof err), 0); /* no file: nothing acknowledged */
  ck_assert_uint_eq(a.n, 0);
}
END_TEST

/* A re-pin (another reference hash) starts the series again: the new
 * reference's level is not a step. */
START_TEST(test_detect_repin_is_not_a_step) {
  make_synth(&g_s, 30);
  for (int t = 15; t < 30; t++) snprintf(g_s.runs[t].paired.ref_sha256, sizeof g_s.runs[t].paired.ref_sha256, "%064d", 2);
  step(&g_s, 15, 30, "two_pass", KG_F32, M25, 1.02);
  kg_detection d;
  detect_synth(&d);
  ck_assert_uint_eq(d.open_regressions, 0);
  kg_detection_free(&d);
}
END_TEST

START_TEST(test_cusum_threshold_grows_with_arl) {
  double a = kg_cusum_threshold(1000, 3), b = kg_cusum_threshold(50000, 3);
  ck_assert(a > 0 && b > a);
  /* a single clipped night adds at most clip - k = 1.5: never an alarm alone */
  ck_assert(b > 1.5);
}
END_TEST

/* ---- history lines ------------------------------------------------------------------ */

START_TEST(test_history_old_lines_read) {
  kg_history h;
  char err[512];
  ck_assert_msg(kg_history_read(KG_SOURCE_DIR "/tests/data/h200-history.jsonl", &h, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_gt(h.n, 0);
  ck_assert_int_eq(h.runs[0].paired.has, 0);
  kg_detect_opts o = kg_detect_defaults();
  kg_detection d;
  ck_assert_int_eq(kg_detect(&h, NULL, &o, &d), 0);
  ck_assert_uint_eq(d.nseries, 0);
  kg_detection_free(&d);
  kg_history_free(&h);
}
END_TEST

/* A paired results file joins the history with its cells, and reads back. */
START_TEST(test_history_keeps_paired_cells) {
  char hist[128], err[512];
  path_in(hist, sizeof hist, "h.jsonl");
  kg_run run, control;
  ck_assert_msg(kg_results_read(KG_SOURCE_DIR "/tests/data/h200-paired.json", &run, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_results_read(KG_SOURCE_DIR "/tests/data/h200-paired.json", &control, err, sizeof err) == 0, "%s",
                err);
  ck_assert_msg(kg_history_add(hist, &run, NULL, &control, err, sizeof err) == 0, "%s", err);
  kg_history h;
  ck_assert_msg(kg_history_read(hist, &h, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(h.n, 1);
  const kg_hist_paired *p = &h.runs[0].paired;
  ck_assert_int_eq(p->has, 1);
  ck_assert_uint_gt(p->n, 0);
  ck_assert_uint_eq(p->ncontrol, p->n);
  ck_assert_str_eq(p->ref_name, run.pair.base_name);
  const kg_pair_cell *c = &run.pairs[0];
  const kg_hist_pcell *e = kg_hist_pfind(p->cells, p->n, c->variant, c->dtype, c->n);
  ck_assert_ptr_nonnull(e);
  ck_assert_double_eq_tol(e->ratio, c->stat.ratio, 1e-5);
  ck_assert_double_eq_tol(e->base_us, c->stat.base_us, 1e-3);
  kg_history_free(&h);
  kg_run_free(&run);
  kg_run_free(&control);
}
END_TEST

/* The night's sweep and its paired run in one line (--paired); a paired run
 * of another night is refused and nothing is written. */
START_TEST(test_history_add_paired_beside_sweep) {
  char hist[128], bad[128], err[512];
  path_in(hist, sizeof hist, "h.jsonl");
  char *args[] = {"history", "add", KG_SOURCE_DIR "/tests/data/h200-sweep.json", "--paired",
                  KG_SOURCE_DIR "/tests/data/h200-paired.json", "--file", hist, NULL};
  ck_assert_int_eq(kgt_run_cli(args), KG_EXIT_OK);
  kg_history h;
  ck_assert_msg(kg_history_read(hist, &h, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(h.n, 1);
  ck_assert_int_eq(h.runs[0].paired.has, 1);
  ck_assert_uint_gt(h.runs[0].n, h.runs[0].paired.n); /* the sweep's timings, the paired run's cells */
  kg_history_free(&h);
  /* another commit: refused */
  path_in(bad, sizeof bad, "other.json");
  char *doc = kgt_slurp(KG_SOURCE_DIR "/tests/data/h200-paired.json");
  char *at = strstr(doc, "90386bbe7606-dirty");
  ck_assert_ptr_nonnull(at);
  memcpy(at, "90386bbe7607", 12);
  kgt_spit(bad, doc);
  free(doc);
  char other[128];
  path_in(other, sizeof other, "h2.jsonl");
  char *refuse[] = {"history", "add", KG_SOURCE_DIR "/tests/data/h200-sweep.json", "--paired", bad, "--file", other, NULL};
  ck_assert_int_eq(kgt_run_cli(refuse), KG_EXIT_USAGE);
  ck_assert_int_eq(access(other, F_OK), -1);
}
END_TEST

/* A night keeps where it was made (the paired run's provenance, else the
 * run's): its sha is the commit the night built, which a finding's range
 * names (kg_hist_commit); a line without it names kgate_commit; a sha that
 * is no commit fails the read, naming the line and the field. */
START_TEST(test_history_keeps_provenance) {
  char hist[128], err[512];
  path_in(hist, sizeof hist, "h.jsonl");
  kg_run run, paired;
  ck_assert_msg(kg_results_read(KG_SOURCE_DIR "/tests/data/h200-sweep.json", &run, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_results_read(KG_SOURCE_DIR "/tests/data/h200-paired.json", &paired, err, sizeof err) == 0, "%s", err);
  snprintf(paired.meta.commit, sizeof paired.meta.commit, "%s", run.meta.commit);
  snprintf(run.meta.prov.sha, sizeof run.meta.prov.sha, "%040d", 1);
  snprintf(paired.meta.prov.sha, sizeof paired.meta.prov.sha, "0123456789abcdef0123456789abcdef01234567");
  snprintf(paired.meta.prov.repository, sizeof paired.meta.prov.repository, "team/kernels");
  ck_assert_msg(kg_history_add(hist, &run, &paired, NULL, err, sizeof err) == 0, "%s", err);
  kg_history h;
  ck_assert_msg(kg_history_read(hist, &h, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(h.runs[0].prov.sha, "0123456789abcdef0123456789abcdef01234567");
  ck_assert_str_eq(h.runs[0].prov.repository, "team/kernels");
  ck_assert_str_eq(kg_hist_commit(&h.runs[0]), "0123456789abcdef0123456789abcdef01234567");
  kg_history_free(&h);
  /* Without provenance: kgate's commit, and no key in the line. */
  memset(&paired.meta.prov, 0, sizeof paired.meta.prov);
  memset(&run.meta.prov, 0, sizeof run.meta.prov);
  char plain[128];
  path_in(plain, sizeof plain, "plain.jsonl");
  ck_assert_msg(kg_history_add(plain, &run, &paired, NULL, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(kg_history_read(plain, &h, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(kg_hist_commit(&h.runs[0]), run.meta.commit);
  kg_history_free(&h);
  char *line = kgt_slurp(plain);
  ck_assert_ptr_null(strstr(line, "\"provenance\""));
  free(line);
  /* A forged sha: the whole read fails. */
  kgt_edit(hist, "\"0123456789abcdef0123456789abcdef01234567\"", "\"HEAD~1; rm -rf /\"");
  ck_assert_int_eq(kg_history_read(hist, &h, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "h.jsonl: line 1") && strstr(err, "provenance") && strstr(err, "sha"), "%s", err);
  kg_run_free(&run);
  kg_run_free(&paired);
}
END_TEST

/* A forged paired cell (ratio outside its interval) fails the whole read. */
START_TEST(test_history_refuses_impossible_ratio) {
  char hist[128], err[512];
  path_in(hist, sizeof hist, "h.jsonl");
  char *line = kgt_slurp(KG_SOURCE_DIR "/tests/data/h200-history.jsonl");
  char *nl = strchr(line, '\n');
  ck_assert_ptr_nonnull(nl);
  *nl = '\0';
  ck_assert(nl > line && nl[-1] == '}');
  nl[-1] = '\0';
  char *doc = malloc(strlen(line) + 400);
  sprintf(doc,
          "%s,\"paired\":{\"reference\":{\"name\":\"kgate\",\"version\":\"v\",\"sha256\":\"\",\"commit\":\"\"},"
          "\"confidence\":0.99,\"rounds\":4,\"cells\":[[\"cub_sum\",\"f32\",33554432,1.5,0.9,1.1,40,40]]}}\n",
          line);
  kgt_spit(hist, doc);
  kg_history h;
  ck_assert_int_eq(kg_history_read(hist, &h, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "paired.cells[0]"));
  free(doc);
  free(line);
}
END_TEST

/* ---- the command ----------------------------------------------------------------------- */

/* The recorded nights of the fixture: quiet, so `history check` exits 0;
 * with a planted step in its last nights it exits 4. */
START_TEST(test_history_check_exit_codes) {
  char hist[128];
  path_in(hist, sizeof hist, "h.jsonl");
  FILE *f = fopen(hist, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  char *args[] = {"history", "check", hist, NULL};
  ck_assert_int_eq(kgt_run_cli(args), KG_EXIT_OK); /* an empty history: nothing to find */
  char *bad[] = {"history", "check", hist, "--ack", KG_SOURCE_DIR "/tests/data/h200-history.jsonl", NULL};
  ck_assert_int_eq(kgt_run_cli(bad), KG_EXIT_USAGE);
}
END_TEST

/* ---- the recorded nights, edited -------------------------------------------------- */

/* An edit of tests/data/nightly/h100-aa.jsonl (8 A/A nights on three cards:
 * 3, 2 and 3 nights, so nights 3 and 5 are each a card's first). */
typedef struct fixture_edit {
  int nights;          /* the first nights kept (0: all 8) */
  const char *only;    /* keep only this variant's cells: a team module of one variant (NULL: all) */
  const char *control; /* this variant's cells (A/A: the reference against itself) become the control */
  int from;            /* the nights from this one on are slowed */
  const char *slow;    /* a variant, or "variant dtype n" (NULL: every cell) */
  double cells, ctl;   /* the slowed cells' factor, and the control's */
  const char *nvcc;    /* the nvcc of the nights from `from` on (13.0.88 before), or NULL: no toolchain record */
} fixture_edit;

static int cell_is(json_t *c, const char *what) {
  if (!what) return 1;
  char key[128];
  snprintf(key, sizeof key, "%s %s %.0f", json_string_value(json_array_get(c, 0)),
           json_string_value(json_array_get(c, 1)), json_number_value(json_array_get(c, 2)));
  return !strcmp(what, json_string_value(json_array_get(c, 0))) || !strcmp(what, key);
}

static void cell_times(json_t *c, double f) {
  for (size_t k = 3; k <= 6; k++) json_array_set_new(c, k, json_real(json_number_value(json_array_get(c, k)) * f));
}

static void write_fixture(const char *out, const fixture_edit *e) {
  char *doc = kgt_slurp(KG_SOURCE_DIR "/tests/data/nightly/h100-aa.jsonl");
  ck_assert_ptr_nonnull(doc);
  FILE *f = fopen(out, "w");
  ck_assert_ptr_nonnull(f);
  int night = 0;
  for (char *line = strtok(doc, "\n"); line && (!e->nights || night < e->nights); line = strtok(NULL, "\n"), night++) {
    json_error_t je;
    json_t *run = json_loads(line, 0, &je), *paired = json_object_get(run, "paired");
    json_t *cells = json_object_get(paired, "cells"), *kept = json_array(), *control = json_array();
    ck_assert_ptr_nonnull(cells);
    for (size_t i = 0; i < json_array_size(cells); i++) {
      json_t *c = json_array_get(cells, i);
      if (e->control && cell_is(c, e->control)) {
        if (night >= e->from) cell_times(c, e->ctl);
        json_array_append(control, c);
      }
      if (e->only && !cell_is(c, e->only)) continue;
      if (night >= e->from && cell_is(c, e->slow)) cell_times(c, e->cells);
      json_array_append(kept, c);
    }
    json_object_set_new(paired, "cells", kept);
    if (e->nvcc)
      json_object_set_new(run, "toolchain", json_pack("{ss}", "nvcc", night >= e->from ? e->nvcc : "13.0.88"));
    if (e->control) json_object_set_new(paired, "control", control);
    else json_decref(control);
    char *text = json_dumps(run, JSON_COMPACT);
    fprintf(f, "%s\n", text);
    free(text);
    json_decref(run);
  }
  ck_assert_int_eq(fclose(f), 0);
  free(doc);
}

/* `history check` on the edited nights: its exit code, and the detection. */
static int check_fixture(const fixture_edit *e, kg_detection *d) {
  char hist[128], err[512];
  path_in(hist, sizeof hist, "edited.jsonl");
  write_fixture(hist, e);
  char *args[] = {"history", "check", hist, NULL};
  int code = kgt_run_cli(args);
  kg_history h;
  ck_assert_msg(kg_history_read(hist, &h, err, sizeof err) == 0, "%s", err);
  kg_detect_opts o = kg_detect_defaults();
  ck_assert_int_eq(kg_detect(&h, NULL, &o, d), 0);
  kg_history_free(&h);
  return code;
}

/* A team's module of one variant (reference pinned, control a copy of the
 * reference): four A/A nights, then three of a build 0.5 % slower (the
 * third on a card the runner had not used). All its cells move and the
 * control does not: a regression, exit 4. The same with the control moved
 * too is the environment. */
START_TEST(test_check_team_variant_regression) {
  fixture_edit e = {.nights = 7, .only = "reduce7_shuffle", .control = "cub_sum", .from = 4, .slow = NULL,
                    .cells = 1.005, .ctl = 1};
  kg_detection d;
  ck_assert_int_eq(check_fixture(&e, &d), KG_EXIT_PERF);
  ck_assert_uint_ge(d.nfind, 1);
  ck_assert_int_eq(d.find[0].kind, KG_FIND_REGRESSION);
  ck_assert_uint_eq(d.find[0].first_bad, 4);
  ck_assert_str_eq(d.find[0].cells[0].variant, "reduce7_shuffle");
  kg_detection_free(&d);
  e.ctl = 1.005; /* the machine moved: the control says so */
  ck_assert_int_eq(check_fixture(&e, &d), KG_EXIT_OK);
  ck_assert_uint_eq(d.open_regressions, 0);
  ck_assert_uint_ge(d.nfind, 1);
  ck_assert_int_eq(d.find[0].kind, KG_FIND_ENVIRONMENT);
  kg_detection_free(&d);
}
END_TEST

/* A compiler regression: +1 % on every cell of the last 3 nights. */
START_TEST(test_check_every_cell_regression) {
  fixture_edit e = {.from = 5, .cells = 1.01, .ctl = 1};
  kg_detection d;
  ck_assert_int_eq(check_fixture(&e, &d), KG_EXIT_PERF);
  ck_assert_int_eq(d.find[0].kind, KG_FIND_REGRESSION);
  ck_assert_uint_ge(d.find[0].ncells, 200);
  for (size_t i = 0; i < d.nfind; i++) ck_assert_int_ne(d.find[i].kind, KG_FIND_ENVIRONMENT);
  kg_detection_free(&d);
}
END_TEST

/* A compiler regression (every cell +1 % from the night a new nvcc came) is
 * a regression, and the finding names what changed in every printer. */
START_TEST(test_check_compiler_regression_named) {
  fixture_edit e = {.from = 5, .cells = 1.01, .ctl = 1, .nvcc = "13.1.42"};
  char hist[128], md[128];
  path_in(hist, sizeof hist, "compiler.jsonl");
  path_in(md, sizeof md, "compiler.md");
  write_fixture(hist, &e);
  char *args[] = {"history", "check", hist, "--summary", md, NULL};
  ck_assert_int_eq(kgt_run_cli(args), KG_EXIT_PERF);
  char *text = kgt_slurp(md);
  ck_assert_ptr_nonnull(text);
  /* the fixture's first bad night is also a new card: both are named */
  ck_assert_msg(strstr(text, "Toolchain and machine: nvcc 13.0.88 \u2192 13.1.42, card "), "%.300s", text);
  ck_assert_ptr_nonnull(strstr(text, "on the first bad night"));
  free(text);
}
END_TEST

/* +1 % on one cell over the last 3 nights, the first of them a card the
 * runner had not used: the new card is no excuse. */
START_TEST(test_check_new_card_regression) {
  static const char *const cells[] = {"reduce7_shuffle f32 33554432", "two_pass i64 4194304"};
  for (size_t i = 0; i < 2; i++) {
    fixture_edit e = {.from = 5, .slow = cells[i], .cells = 1.01, .ctl = 1};
    kg_detection d;
    ck_assert_int_eq(check_fixture(&e, &d), KG_EXIT_PERF);
    ck_assert_int_eq(d.find[0].kind, KG_FIND_REGRESSION);
    ck_assert_uint_eq(d.find[0].ncells, 1);
    ck_assert_uint_eq(d.find[0].first_bad, 5);
    char key[128];
    snprintf(key, sizeof key, "%s %s %zu", d.find[0].cells[0].variant, kg_dtype_get(d.find[0].cells[0].dtype)->name,
             d.find[0].cells[0].n);
    ck_assert_str_eq(key, cells[i]);
    kg_detection_free(&d);
  }
}
END_TEST

/* The replay of the nights recorded at 16 rounds: the aim (0.25 % at 2^25,
 * 0.5 % at 2^22) flagged within 3 nights in most plants, few false alarms.
 * A short run: the full one is docs/nightly.md's. */
START_TEST(test_replay_aim_at_16_rounds) {
  kg_history h;
  char err[512];
  ck_assert_msg(kg_history_read(KG_SOURCE_DIR "/tests/data/nightly/h100-aa16.jsonl", &h, err, sizeof err) == 0, "%s",
                err);
  kg_replay_opts o = kg_replay_defaults();
  o.series = 30, o.plants = 20, o.aim_only = 1;
  static kg_replay_result r;
  ck_assert_msg(kg_replay(&h, &o, &r, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(r.nrows, 2);
  for (size_t i = 0; i < r.nrows; i++) {
    const kg_replay_row *w = &r.rows[i];
    ck_assert_double_eq_tol(w->step, w->n == M25 ? 0.0025 : 0.005, 1e-9);
    ck_assert_msg(w->p >= 0.95, "n %zu: P %.3f", w->n, w->p);
  }
  ck_assert_msg(r.fa_cells + r.fa_pooled < 0.5, "false alarms per 60 nights: %.2f", r.fa_cells + r.fa_pooled);
  kg_history_free(&h);
}
END_TEST

/* Card offsets: nights on two cards, the second's 2^25 cells 1 % slower
 * on every one of its nights: the card holds nearly all of those cells'
 * spread, none of the 2^22 cells'. Without the offset, neither size's. */
START_TEST(test_replay_card_offsets) {
  for (int offset = 0; offset < 2; offset++) {
    make_synth(&g_s, 12);
    for (int t = 0; t < 12; t++) snprintf(g_s.runs[t].paired.card, sizeof g_s.runs[t].paired.card, "GPU-%c", "AB"[t / 6]);
    for (int i = 0; offset && i < NCELLS; i++) {
      kg_hist_pcell k;
      cell_key(i, &k);
      if (k.n == M25) step(&g_s, 6, 12, k.variant, k.dtype, k.n, 1.01);
    }
    kg_replay_opts o = kg_replay_defaults();
    o.series = 2, o.plants = 2, o.aim_only = 1;
    static kg_replay_result r;
    char err[256];
    ck_assert_msg(kg_replay(&g_s.h, &o, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(r.ncard_sizes, 2);
    for (size_t i = 0; i < r.ncard_sizes; i++) {
      int moved = offset && r.card_n[i] == M25;
      ck_assert_msg(moved ? r.card_share[i] > 0.9 : r.card_share[i] < 0.3, "offset %d, n %zu: card share %.3f", offset,
                    r.card_n[i], r.card_share[i]);
    }
  }
}
END_TEST

/* The recorded nights in their own order, three cards among them (and the
 * nights with a build that differs from the reference after them): the card
 * changes raise no regression; the differing build's cells do. */
START_TEST(test_fixture_in_order) {
  kg_history h;
  char err[512];
  ck_assert_msg(kg_history_read(KG_SOURCE_DIR "/tests/data/nightly/h100-aa.jsonl", &h, err, sizeof err) == 0, "%s",
                err);
  kg_detect_opts o = kg_detect_defaults();
  kg_detection d;
  ck_assert_int_eq(kg_detect(&h, NULL, &o, &d), 0);
  ck_assert_uint_eq(d.open_regressions, 0);
  kg_detection_free(&d);
  kg_history_free(&h);
}
END_TEST

/* A team's one-variant module live on an H100 (team-live.sh): four A/A
 * nights, then three of a build reading 0.5 % more bytes, 16 rounds a
 * night. No finding before the second slow night; a regression on it (exit
 * 4), named from the first slow night; with the control moved on the slow
 * nights, environment and exit 0. */
START_TEST(test_team_live_nights) {
  static const char *const files[] = {"h100-team-live.jsonl", "h100-team-live-moved.jsonl"};
  for (size_t fi = 0; fi < 2; fi++) {
    char src[512], part[128], err[512];
    snprintf(src, sizeof src, "%s/tests/data/nightly/%s", KG_SOURCE_DIR, files[fi]);
    char *doc = kgt_slurp(src);
    ck_assert_ptr_nonnull(doc);
    path_in(part, sizeof part, "team.jsonl");
    for (int nights = 5; nights <= 7; nights++) {
      char *end = doc;
      for (int k = 0; k < nights; k++) end = strchr(end, '\n') + 1;
      char keep = *end;
      *end = '\0';
      kgt_spit(part, doc);
      *end = keep;
      char *args[] = {"history", "check", part, NULL};
      int code = kgt_run_cli(args);
      kg_history h;
      ck_assert_msg(kg_history_read(part, &h, err, sizeof err) == 0, "%s", err);
      kg_detect_opts o = kg_detect_defaults();
      kg_detection d;
      ck_assert_int_eq(kg_detect(&h, NULL, &o, &d), 0);
      size_t reg = 0, env = 0;
      for (size_t i = 0; i < d.nfind; i++)
        reg += d.find[i].kind == KG_FIND_REGRESSION, env += d.find[i].kind == KG_FIND_ENVIRONMENT;
      if (nights == 5 || fi == 1) {
        ck_assert_int_eq(code, 0);
        ck_assert_uint_eq(reg, 0);
      } else {
        ck_assert_int_eq(code, KG_EXIT_PERF);
        ck_assert_uint_eq(reg, 1);
        ck_assert_uint_eq(d.find[0].first_bad, 4); /* the first slow night */
        ck_assert_str_eq(d.find[0].cells[0].variant, "team_warp_sum");
      }
      if (fi == 1 && nights > 5) ck_assert_uint_ge(env, 1);
      kg_detection_free(&d);
      kg_history_free(&h);
    }
    free(doc);
  }
}
END_TEST

/* The live nights (a fourth card): two of tonight's build, then two with
 * reduce7_shuffle streaming 0.6 % more bytes, after the recorded A/A nights.
 * Flagged on the second slow night, naming that variant and the commits
 * between the last good night's build and the first bad one's; nothing else. */
START_TEST(test_live_nights_flag_the_planted_slowdown) {
  char both[128], err[512];
  path_in(both, sizeof both, "h.jsonl");
  char *aa = kgt_slurp(KG_SOURCE_DIR "/tests/data/nightly/h100-aa.jsonl");
  char *live = kgt_slurp(KG_SOURCE_DIR "/tests/data/nightly/h100-live.jsonl");
  ck_assert(aa && live);
  size_t na = strlen(aa);
  for (int nights = 3; nights <= 4; nights++) {
    char *end = live; /* the first `nights` live lines */
    for (int k = 0; k < nights; k++) end = strchr(end, '\n') + 1;
    char *doc = malloc(na + (size_t)(end - live) + 1);
    memcpy(doc, aa, na);
    memcpy(doc + na, live, (size_t)(end - live));
    doc[na + (size_t)(end - live)] = '\0';
    kgt_spit(both, doc);
    free(doc);
    kg_history h;
    ck_assert_msg(kg_history_read(both, &h, err, sizeof err) == 0, "%s", err);
    kg_detect_opts o = kg_detect_defaults();
    kg_detection d;
    ck_assert_int_eq(kg_detect(&h, NULL, &o, &d), 0);
    size_t regressions = 0;
    for (size_t i = 0; i < d.nfind; i++) regressions += d.find[i].kind == KG_FIND_REGRESSION;
    if (nights == 3) {
      ck_assert_uint_eq(regressions, 0); /* one slow night is not yet a step */
    } else {
      ck_assert_uint_eq(regressions, 1);
      ck_assert_uint_eq(d.open_regressions, 1);
      const kg_finding *f = &d.find[0];
      ck_assert_uint_ge(f->ncells, 1);
      for (size_t k = 0; k < f->ncells; k++) {
        ck_assert_str_eq(f->cells[k].variant, "reduce7_shuffle");
        ck_assert_uint_eq(f->cells[k].n, M25);
      }
      ck_assert_uint_eq(f->first_bad, 10);
      ck_assert_str_eq(h.runs[f->last_good].commit, "fedc545a631f");
      ck_assert_str_eq(h.runs[f->first_bad].commit, "c6086ec42a69");
    }
    kg_detection_free(&d);
    kg_history_free(&h);
  }
  free(aa);
  free(live);
}
END_TEST

Suite *make_nightly_suite(void) {
  Suite *s = suite_create("nightly");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, setup, teardown);
  tcase_add_test(core, test_sha256_known_value);
  tcase_add_test(core, test_pins_match_and_refuse);
  tcase_add_test(core, test_detect_quiet_history_has_no_finding);
  tcase_add_test(core, test_detect_step_names_cell_and_night);
  tcase_add_test(core, test_detect_one_night_blip_never_alarms);
  tcase_add_test(core, test_detect_wide_nights_weigh_less);
  tcase_add_test(core, test_detect_improvement_recorded_not_failing);
  tcase_add_test(core, test_detect_every_cell_moving_is_regression);
  tcase_add_test(core, test_detect_control_move_is_environment);
  tcase_add_test(core, test_detect_night_with_missing_cells);
  tcase_add_test(core, test_detect_ack_closes_then_reopens);
  tcase_add_test(core, test_detect_repin_is_not_a_step);
  tcase_add_test(core, test_cusum_threshold_grows_with_arl);
  tcase_add_test(core, test_history_old_lines_read);
  tcase_add_test(core, test_history_keeps_paired_cells);
  tcase_add_test(core, test_history_keeps_provenance);
  tcase_add_test(core, test_history_check_exit_codes);
  tcase_add_test(core, test_history_add_paired_beside_sweep);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, setup, teardown);
  tcase_add_test(errors, test_pins_architectures);
  tcase_add_test(errors, test_acks_refuse_bad_cell);
  tcase_add_test(errors, test_history_refuses_impossible_ratio);
  suite_add_tcase(s, errors);
  TCase *cal = tcase_create("Calibration");
  tcase_set_timeout(cal, 120);
  tcase_add_test(cal, test_replay_aim_at_16_rounds);
  tcase_add_test(cal, test_replay_card_offsets);
  tcase_add_test(cal, test_check_team_variant_regression);
  tcase_add_test(cal, test_check_every_cell_regression);
  tcase_add_test(cal, test_check_compiler_regression_named);
  tcase_add_test(cal, test_check_new_card_regression);
  tcase_add_test(cal, test_fixture_in_order);
  tcase_add_test(cal, test_live_nights_flag_the_planted_slowdown);
  tcase_add_test(cal, test_team_live_nights);
  suite_add_tcase(s, cal);
  return s;
}
