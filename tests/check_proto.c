/* proto: the JSON-lines protocol between supervisor and worker. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "varreg.h"

static const struct {
  const char *variant;
  kg_dtype dt;
  size_t n;
  kg_pattern p;
  uint64_t seed;
  int repeats;
  size_t index;
} k_cases[] = {
    {"cub_sum", KG_F16, 0, KG_PAT_NAN, 1, 3, 0},
    {"reduce0_divergent", KG_I64, (size_t)1 << 40, KG_PAT_WRAP, UINT64_MAX, 1, 123456789},
    {"neighbored", KG_F16, 33, KG_PAT_EXACT, 0, 100, 7}, /* unsupported: decoded as such */
    {"atomic_per_element", KG_BF16, 1000003, KG_PAT_INF_NAN, 0x8000000000000000ull, 2, 1},
};

START_TEST(test_proto_case_round_trip) {
  kg_case c = {kg_variant_find(k_cases[_i].variant), k_cases[_i].dt, k_cases[_i].n, k_cases[_i].p, 1, 0}, d;
  kg_run_params p = {k_cases[_i].seed, k_cases[_i].repeats, {0, 0, 0, 0}, {0}}, q;
  char *line = kg_proto_encode_case(k_cases[_i].index, &c, &p);
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_null(strchr(line, '\n'));
  size_t index = 0;
  char err[200] = "";
  ck_assert_msg(kg_proto_decode_case(line, &index, &d, &q, err, sizeof err) == 0, "%s: %s", line, err);
  ck_assert_uint_eq(index, k_cases[_i].index);
  ck_assert_int_eq(d.variant, c.variant);
  ck_assert_int_eq(d.dtype, c.dtype);
  ck_assert_uint_eq(d.n, c.n);
  ck_assert_int_eq(d.pattern, c.pattern);
  ck_assert_int_eq(d.supported, kg_variant_supports(c.variant, c.dtype));
  ck_assert_uint_eq(q.seed, p.seed);
  ck_assert_int_eq(q.repeats, p.repeats);
  free(line);
}
END_TEST

static kg_result sample_result(kg_status st) {
  kg_result r = {.status = st, .abs_err = 1.5, .bound = 0.25, .ratio = 6, .depth = 21.5, .repeats = 3, .nondeterministic = 1};
  strcpy(r.got, "-12");
  strcpy(r.expected, "0.10000000149011612");
  strcpy(r.message, "CUDA error at x.cu:1: \"cudaErrorIllegalAddress\" (700)\tand a tab");
  return r;
}

/* Loop index: the status; odd ones carry the restart flag. */
START_TEST(test_proto_result_round_trip) {
  kg_result r = sample_result((kg_status)_i), d;
  r.input_modified = _i == KG_ST_FAIL;
  char *line = kg_proto_encode_result(40 + (size_t)_i, &r, _i % 2);
  ck_assert_ptr_nonnull(line);
  size_t index = 0;
  int restart = -1;
  char err[200] = "";
  ck_assert_msg(kg_proto_decode_result(line, &index, &d, &restart, err, sizeof err) == 0, "%s: %s", line, err);
  ck_assert_uint_eq(index, 40 + (size_t)_i);
  ck_assert_int_eq(restart, _i % 2);
  ck_assert_int_eq(d.status, r.status);
  ck_assert_str_eq(d.got, r.got);
  ck_assert_str_eq(d.expected, r.expected);
  ck_assert_str_eq(d.message, r.message);
  ck_assert_double_eq(d.abs_err, 1.5);
  ck_assert_double_eq(d.bound, 0.25);
  ck_assert_double_eq(d.ratio, 6);
  ck_assert_double_eq(d.depth, 21.5);
  ck_assert_int_eq(d.repeats, 3);
  ck_assert_int_eq(d.nondeterministic, 1);
  ck_assert_int_eq(d.input_modified, _i == KG_ST_FAIL);
  free(line);
}
END_TEST

/* Every kind of failure travels by its name and comes back as itself. */
START_TEST(test_proto_fail_kind_round_trip) {
  kg_result r = sample_result(KG_ST_FAIL), d;
  r.fail = (kg_fail_kind)_i;
  char *line = kg_proto_encode_result(7, &r, 0), err[200] = "";
  ck_assert_ptr_nonnull(line);
  size_t index = 0;
  int restart = 0;
  ck_assert_msg(kg_proto_decode_result(line, &index, &d, &restart, err, sizeof err) == 0, "%s: %s", line, err);
  ck_assert_int_eq(d.fail, _i);
  free(line);
}
END_TEST

/* JSON has no Inf or NaN: they travel as null and come back as +Inf. */
START_TEST(test_proto_result_nonfinite) {
  kg_result r = sample_result(KG_ST_FAIL), d;
  r.abs_err = -INFINITY, r.bound = 0, r.ratio = NAN;
  char *line = kg_proto_encode_result(3, &r, 0);
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_nonnull(strstr(line, "null"));
  size_t index;
  int restart = -1;
  char err[200];
  ck_assert_int_eq(kg_proto_decode_result(line, &index, &d, &restart, err, sizeof err), 0);
  ck_assert(d.abs_err == INFINITY && d.ratio == INFINITY && d.bound == 0);
  ck_assert_int_eq(restart, 0);
  free(line);
}
END_TEST

/* A paired case carries its pair options, the round included (it picks the
 * blocks' quad orientation); a line without a round reads as round 0, and a
 * negative one is refused. */
START_TEST(test_proto_pair_round_trip) {
  kg_case c = {kg_variant_find_any("mut_none"), KG_F32, 1u << 22, KG_PAT_UNIFORM, 1, 0}, d;
  kg_run_params p = {1, 1, {0, 0.005, 10, 2}, {4, 32, 0.1, 3, 1, 1, kg_variant_find("reduce7_shuffle"), 0}}, q;
  char *line = kg_proto_encode_case(2, &c, &p);
  ck_assert_ptr_nonnull(line);
  size_t index;
  char err[200] = "";
  ck_assert_msg(kg_proto_decode_case(line, &index, &d, &q, err, sizeof err) == 0, "%s", err);
  ck_assert(q.pair.on && q.pair.module == 1 && q.pair.copies == 4 && q.pair.quads == 32 && q.pair.round == 3);
  ck_assert_int_eq(q.pair.base_variant, kg_variant_find("reduce7_shuffle"));
  free(line);
  static const char *const k_lines[] = {
      "{\"case\":0,\"variant\":\"cub_sum\",\"dtype\":\"f32\",\"n\":16,\"pattern\":\"uniform\",\"seed\":1,"
      "\"repeats\":1,\"time\":{\"hot\":false,\"max_noise\":0.005,\"min_samples\":10,\"max_seconds\":2},\"pair\":{\"module\":\"own\",\"variant\":\"cub_sum\",\"copies\":2,\"quads\":4,"
      "\"max_seconds\":0.1}}",
      "{\"case\":0,\"variant\":\"cub_sum\",\"dtype\":\"f32\",\"n\":16,\"pattern\":\"uniform\",\"seed\":1,"
      "\"repeats\":1,\"time\":{\"hot\":false,\"max_noise\":0.005,\"min_samples\":10,\"max_seconds\":2},\"pair\":{\"module\":\"own\",\"variant\":\"cub_sum\",\"copies\":2,\"quads\":4,"
      "\"max_seconds\":0.1,\"round\":-1}}"};
  ck_assert_msg(kg_proto_decode_case(k_lines[0], &index, &d, &q, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(q.pair.round, 0);
  ck_assert_int_eq(kg_proto_decode_case(k_lines[1], &index, &d, &q, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "round >= 0") != NULL, "%s", err);
}
END_TEST

/* A paired case wrong after timing says which side (loop index: head, base);
 * none says nothing. */
START_TEST(test_proto_pair_wrong_round_trip) {
  kg_result r = sample_result(KG_ST_FAIL), d;
  r.fail = KG_FK_WRONG_AFTER_TIMING, r.pair_wrong = _i ? KG_SIDE_BASE : KG_SIDE_HEAD;
  char *line = kg_proto_encode_result(5, &r, 0), err[200] = "";
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_nonnull(strstr(line, _i ? "\"wrong\":\"base\"" : "\"wrong\":\"head\""));
  size_t index = 0;
  int restart = 0;
  ck_assert_msg(kg_proto_decode_result(line, &index, &d, &restart, err, sizeof err) == 0, "%s: %s", line, err);
  ck_assert_int_eq(d.pair_wrong, r.pair_wrong);
  ck_assert_int_eq(d.fail, KG_FK_WRONG_AFTER_TIMING);
  free(line);
  r.pair_wrong = KG_SIDE_NONE;
  line = kg_proto_encode_result(5, &r, 0);
  ck_assert_ptr_null(strstr(line, "\"wrong\""));
  ck_assert_int_eq(kg_proto_decode_result(line, &index, &d, &restart, err, sizeof err), 0);
  ck_assert_int_eq(d.pair_wrong, KG_SIDE_NONE);
  free(line);
}
END_TEST

/* A probe's answer travels with the call's digest and the variables it
 * read (their name hashes); a digest or a read hash that is not lower-case
 * hex, or more hashes than KG_CODE_MAX_READ, is refused. */
START_TEST(test_proto_probe_read_round_trip) {
  size_t index;
  char *line, err[200] = "";
  kg_result r = {0}, back;
  r.status = KG_ST_PASS, r.probed = 1, r.launch_same = 1, r.nlaunches = 1, r.nkernels = 1;
  r.kernels[0] = 0x0123456789abcdefull;
  snprintf(r.launch_digest, sizeof r.launch_digest, "%064d", 7);
  r.read.n = 2, r.read.hash[0] = 0xfedcba9876543210ull, r.read.hash[1] = 42;
  line = kg_proto_encode_result(4, &r, 0);
  int restart = 0;
  ck_assert_msg(kg_proto_decode_result(line, &index, &back, &restart, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(back.launch_digest, r.launch_digest);
  ck_assert_int_eq(back.read.n, 2);
  ck_assert(back.read.hash[0] == r.read.hash[0] && back.read.hash[1] == 42);
  static const char *const k_bad_result[][2] = {{"0000000000000000000000000000000000000000000000000000000000000007", "07"},
                                                {"fedcba9876543210", "FEDCBA9876543210"}};
  for (size_t k = 0; k < sizeof k_bad_result / sizeof *k_bad_result; k++) {
    char bad[4096];
    const char *at = strstr(line, k_bad_result[k][0]);
    ck_assert_msg(at != NULL, "%s in %s", k_bad_result[k][0], line);
    snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - line), line, k_bad_result[k][1], at + strlen(k_bad_result[k][0]));
    ck_assert_msg(kg_proto_decode_result(bad, &index, &back, &restart, err, sizeof err) != 0, "accepted %s", bad);
  }
  free(line);
  /* as many as kgate reads travel; one more is refused */
  r.read.n = KG_CODE_MAX_READ;
  for (int i = 0; i < KG_CODE_MAX_READ; i++) r.read.hash[i] = (uint64_t)i + 1;
  line = kg_proto_encode_result(4, &r, 0);
  ck_assert_msg(kg_proto_decode_result(line, &index, &back, &restart, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(back.read.n, KG_CODE_MAX_READ);
  ck_assert(back.read.hash[KG_CODE_MAX_READ - 1] == KG_CODE_MAX_READ);
  const char *at = strstr(line, "\"read\":[");
  ck_assert_ptr_nonnull(at);
  size_t head = (size_t)(at - line) + strlen("\"read\":[");
  char *more = malloc(strlen(line) + 32);
  ck_assert_ptr_nonnull(more);
  sprintf(more, "%.*s\"00000000000000ff\",%s", (int)head, line, line + head);
  ck_assert_msg(kg_proto_decode_result(more, &index, &back, &restart, err, sizeof err) != 0, "accepted %s", more);
  free(more);
  free(line);
}
END_TEST

/* A probe travels as "probe":true in the pair options, and its answer (the
 * launches' sameness, their count, the kernels' name hashes) comes back
 * whole; a malformed kernel hash or a sameness outside -1..1 is refused. */
START_TEST(test_proto_probe_round_trip) {
  kg_case c = {kg_variant_find("cub_sum"), KG_I32, 1u << 22, KG_PAT_EXACT, 1, 0}, d;
  kg_run_params p = {1, 1, {0, 0.005, 10, 2}, {1, 1, 0.1, 0, 1, 1, -1, 1}}, q;
  char *line = kg_proto_encode_case(4, &c, &p), err[200] = "";
  size_t index;
  ck_assert_msg(kg_proto_decode_case(line, &index, &d, &q, err, sizeof err) == 0, "%s", err);
  ck_assert(q.pair.on && q.pair.probe);
  free(line);
  p.pair.probe = 0;
  line = kg_proto_encode_case(4, &c, &p);
  ck_assert_msg(kg_proto_decode_case(line, &index, &d, &q, err, sizeof err) == 0, "%s", err);
  ck_assert(q.pair.on && !q.pair.probe);
  free(line);
  kg_result r = {0}, back;
  r.status = KG_ST_FAIL, r.fail = KG_FK_NONDETERMINISTIC, r.probed = 1, r.launch_same = 1, r.nlaunches = 3, r.nkernels = 2;
  r.kernels[0] = 0x0123456789abcdefull, r.kernels[1] = 0xfedcba9876543210ull;
  line = kg_proto_encode_result(4, &r, 0);
  int restart = 0;
  ck_assert_msg(kg_proto_decode_result(line, &index, &back, &restart, err, sizeof err) == 0, "%s", err);
  ck_assert(back.probed && back.launch_same == 1 && back.nlaunches == 3 && back.nkernels == 2);
  ck_assert_int_eq(back.fail, KG_FK_NONDETERMINISTIC);
  ck_assert(back.kernels[0] == r.kernels[0] && back.kernels[1] == r.kernels[1]);
  /* the good line with one part of its probe spoiled */
  static const char *const k_bad[][2] = {{"\"same\":1", "\"same\":2"},
                                         {"0123456789abcdef", "xyz"},
                                         {"0123456789abcdef", "0123456789ABCDEF"},
                                         {"\"fail\":\"nondeterministic\"", "\"fail\":\"flaky\""}};
  for (size_t k = 0; k < sizeof k_bad / sizeof *k_bad; k++) {
    char bad[4096];
    const char *at = strstr(line, k_bad[k][0]);
    ck_assert_ptr_nonnull(at);
    snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - line), line, k_bad[k][1], at + strlen(k_bad[k][0]));
    ck_assert_int_eq(kg_proto_decode_result(bad, &index, &back, &restart, err, sizeof err), -1);
    ck_assert_msg(strstr(err, k < 3 ? "malformed probe" : "unknown failure kind") != NULL, "%s", err);
  }
  free(line);
}
END_TEST

/* A perf case carries its timing options; a timed result its timing. */
START_TEST(test_proto_timing_round_trip) {
  kg_case c = {kg_variant_find("cub_sum"), KG_F32, 1u << 22, KG_PAT_UNIFORM, 1, 1}, d;
  kg_run_params p = {7, 3, {1, 0.004, 12, 1.5}, {0}}, q;
  char *line = kg_proto_encode_case(5, &c, &p);
  size_t index;
  char err[200] = "";
  ck_assert_msg(kg_proto_decode_case(line, &index, &d, &q, err, sizeof err) == 0, "%s", err);
  ck_assert(d.timed && q.time.hot && q.time.min_samples == 12);
  ck_assert_double_eq(q.time.max_noise, 0.004);
  ck_assert_double_eq(q.time.max_seconds, 1.5);
  free(line);
  c.timed = 0;
  line = kg_proto_encode_case(5, &c, &p);
  ck_assert_ptr_null(strstr(line, "max_noise"));
  ck_assert_int_eq(kg_proto_decode_case(line, &index, &d, &q, err, sizeof err), 0);
  ck_assert_int_eq(d.timed, 0);
  free(line);

  kg_result r = sample_result(KG_ST_PASS), e;
  r.timing = (kg_timing){11, 40.5, 40.25, 41, 39.75, 0.003, 2.5, 1980, 1, 0};
  line = kg_proto_encode_result(5, &r, 0);
  int restart;
  ck_assert_msg(kg_proto_decode_result(line, &index, &e, &restart, err, sizeof err) == 0, "%s", err);
  ck_assert(e.timing.samples == 11 && e.timing.throttled == 1);
  ck_assert(e.timing.median_us == 40.5 && e.timing.q1_us == 40.25 && e.timing.q3_us == 41 && e.timing.min_us == 39.75);
  ck_assert(e.timing.noise == 0.003 && e.timing.graph_us == 2.5 && e.timing.sm_clock_mhz == 1980);
  free(line);
  r.timing.samples = 0;
  line = kg_proto_encode_result(5, &r, 0);
  ck_assert_ptr_null(strstr(line, "timing"));
  free(line);
}
END_TEST

START_TEST(test_proto_hello_round_trip) {
  kg_device_info a = {"NVIDIA H100 80GB HBM3", 9, 0, 132, 52428800, 85520809984LL, 12080, 12040, 2619000, 5120,
                      3352.3, 3010.5, 2, "GPU-0123abcd-4567-89ab-cdef-0123456789ab", "0000:1b:00.0",
                      {"13.0.88", "3.0.1", "0123456789abcdef", "580.65.06", "ubuntu24/20250105.1"}}, b;
  char *line = kg_proto_encode_hello(&a);
  ck_assert_ptr_nonnull(line);
  char err[200] = "";
  ck_assert_msg(kg_proto_decode_hello(line, &b, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(b.name, a.name);
  ck_assert(b.cc_major == 9 && b.cc_minor == 0 && b.sms == 132);
  ck_assert(b.l2_bytes == a.l2_bytes && b.mem_bytes == a.mem_bytes);
  ck_assert(b.driver_version == 12080 && b.runtime_version == 12040);
  ck_assert(b.mem_clock_khz == 2619000 && b.bus_width_bits == 5120);
  ck_assert_double_eq(b.peak_gbps, 3352.3);
  ck_assert_double_eq(b.roofline_gbps, 3010.5);
  ck_assert_str_eq(b.uuid, a.uuid);
  ck_assert_str_eq(b.pci, a.pci);
  /* the toolchain and machine travel with the hello */
  ck_assert_str_eq(b.toolchain.nvcc, "13.0.88");
  ck_assert_str_eq(b.toolchain.cccl, "3.0.1");
  ck_assert_str_eq(b.toolchain.flags, "0123456789abcdef");
  ck_assert_str_eq(b.toolchain.driver, "580.65.06");
  ck_assert_str_eq(b.toolchain.image, "ubuntu24/20250105.1");
  free(line);
  /* nothing known: no "toolchain" at all, read back as unknown */
  memset(&a.toolchain, 0, sizeof a.toolchain);
  line = kg_proto_encode_hello(&a);
  ck_assert_ptr_null(strstr(line, "toolchain"));
  ck_assert_msg(kg_proto_decode_hello(line, &b, err, sizeof err) == 0, "%s", err);
  ck_assert(!b.toolchain.nvcc[0] && !b.toolchain.image[0]);
  free(line);
}
END_TEST

/* A hello with a malformed card identity or toolchain is refused, one without any is read as "not known". */
START_TEST(test_proto_hello_card_identity) {
  static const struct {
    const char *extra;
    int rc;
  } k[] = {{"", 0},
           {",\"uuid\":\"GPU-0123abcd-4567-89ab-cdef-0123456789ab\",\"pci\":\"0000:1b:00.0\"", 0},
           {",\"uuid\":\"GPU-0123ABCD-4567-89ab-cdef-0123456789ab\"", -1},
           {",\"uuid\":\"GPU-0123abcd\"", -1},
           {",\"pci\":\"0000:1b:00.0;id\"", -1},
           {",\"pci\":\"1b:00.0\"", -1},
           /* the toolchain: each field optional, each that is there well formed */
           {",\"toolchain\":{\"nvcc\":\"13.0.88\",\"image\":\"ubuntu24/20250105.1\"}", 0},
           {",\"toolchain\":{\"nvcc\":\"13.0.88; rm -rf /\"}", -1},
           {",\"toolchain\":{\"flags\":\"XYZ\"}", -1},
           {",\"toolchain\":{\"image\":\"ubuntu\\u001b[2J\"}", -1},
           {",\"toolchain\":{\"driver\":5}", -1},
           {",\"toolchain\":[]", -1}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    char line[600], err[200] = "";
    snprintf(line, sizeof line,
             "{\"hello\":{\"name\":\"G\",\"cc_major\":9,\"cc_minor\":0,\"sms\":1,\"l2_bytes\":1,"
             "\"mem_bytes\":1,\"driver_version\":1,\"runtime_version\":1,\"mem_clock_khz\":1,"
             "\"bus_width_bits\":1,\"peak_gbps\":1.0,\"roofline_gbps\":1.0%s}}",
             k[i].extra);
    kg_device_info d;
    ck_assert_msg(kg_proto_decode_hello(line, &d, err, sizeof err) == k[i].rc, "%zu: %s", i, err);
    if (i == 0) ck_assert(d.uuid[0] == 0 && d.pci[0] == 0);
    if (k[i].rc) ck_assert_msg(strstr(err, "hello: ") != NULL, "%s", err);
    if (k[i].rc && strstr(k[i].extra, "toolchain")) ck_assert_msg(strstr(err, "toolchain") != NULL, "%s", err);
    ck_assert_ptr_null(strchr(err, '\x1b'));
  }
}
END_TEST

START_TEST(test_proto_fatal) {
  char *line = kg_proto_encode_fatal("no CUDA device: test");
  ck_assert_ptr_nonnull(line);
  kg_device_info d;
  char err[200] = "";
  ck_assert_int_eq(kg_proto_decode_hello(line, &d, err, sizeof err), 1);
  ck_assert_str_eq(err, "no CUDA device: test");
  free(line);
}
END_TEST

/* A string cut to its field's size keeps whole UTF-8 characters, so what was
 * decoded encodes again (the encoders refuse invalid UTF-8). Each text is one
 * character repeated past every field's size: a whole cut is the longest
 * multiple of the character's length that fits. */
static const struct {
  const char *unit;
  int count;
} k_utf8_cuts[] = {{"\xc3\xa9", 150}, {"\xe2\x82\xac", 100}, {"\xf0\x9f\x98\x80", 80}};

START_TEST(test_proto_decode_cuts_utf8_whole) {
  const char *u = k_utf8_cuts[_i].unit;
  size_t ulen = strlen(u);
  char text[1024] = "", line[4096], err[200];
  for (int k = 0; k < k_utf8_cuts[_i].count; k++) strcat(text, u);
#define WHOLE(field) ((sizeof(field) - 1) / ulen * ulen)
  kg_result r;
  size_t index;
  int restart;
  snprintf(line, sizeof line,
           "{\"case\":1,\"status\":\"fail\",\"got\":\"%s\",\"expected\":\"%s\",\"depth\":1,\"repeats\":1,"
           "\"nondeterministic\":false,\"input_modified\":false,\"message\":\"%s\"}",
           text, text, text);
  ck_assert_msg(kg_proto_decode_result(line, &index, &r, &restart, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(strlen(r.got), WHOLE(r.got));
  ck_assert_uint_eq(strlen(r.expected), WHOLE(r.expected));
  ck_assert_uint_eq(strlen(r.message), WHOLE(r.message));
  char *again = kg_proto_encode_result(index, &r, restart);
  ck_assert_ptr_nonnull(again);
  free(again);

  kg_device_info d;
  snprintf(line, sizeof line,
           "{\"hello\":{\"name\":\"%s\",\"cc_major\":9,\"cc_minor\":0,\"sms\":132,\"l2_bytes\":1,\"mem_bytes\":1,"
           "\"driver_version\":1,\"runtime_version\":1,\"mem_clock_khz\":1,\"bus_width_bits\":1,\"peak_gbps\":1,"
           "\"roofline_gbps\":1}}",
           text);
  ck_assert_msg(kg_proto_decode_hello(line, &d, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(strlen(d.name), WHOLE(d.name));
  ck_assert_ptr_nonnull(again = kg_proto_encode_hello(&d));
  free(again);

  snprintf(line, sizeof line, "{\"fatal\":\"%s\"}", text);
  ck_assert_int_eq(kg_proto_decode_hello(line, &d, err, sizeof err), 1);
  ck_assert_uint_eq(strlen(err), WHOLE(err));
  ck_assert_ptr_nonnull(again = kg_proto_encode_fatal(err));
  free(again);
#undef WHOLE
}
END_TEST

START_TEST(test_status_names) {
  const char *names[] = {"pending", "pass", "fail", "unsupported", "error"};
  for (int s = 0; s < KG_NSTATUS; s++) ck_assert_str_eq(kg_status_name((kg_status)s), names[s]);
  ck_assert_str_eq(kg_status_name(KG_NSTATUS), "?");
}
END_TEST

#define CASE_TAIL "\"dtype\":\"f32\",\"pattern\":\"exact\",\"seed\":1,\"repeats\":3"
static const struct {
  const char *line, *message;
} k_bad_cases[] = {
    {"", "malformed JSON"},
    {"not json", "malformed JSON"},
    {"[1,2]", "not an object"},
    {"{\"case\":0,\"variant\":\"cub_sum\",\"n\":5," CASE_TAIL "} trailing", "malformed JSON"},
    {"{\"case\":0,\"variant\":\"cub_sum\"," CASE_TAIL "}", "bad case line"},               /* n missing */
    {"{\"case\":0,\"variant\":\"cub_sum\",\"n\":\"5\"," CASE_TAIL "}", "bad case line"},   /* n a string */
    {"{\"case\":0,\"variant\":\"cub_sum\",\"n\":5.5," CASE_TAIL "}", "bad case line"},     /* n a real */
    {"{\"case\":0,\"variant\":\"cub_sum\",\"n\":5,\"x\":1," CASE_TAIL "}", "bad case line"}, /* unknown key */
    {"{\"case\":0,\"variant\":\"nope\",\"n\":5," CASE_TAIL "}", "unknown variant 'nope'"},
    {"{\"case\":0,\"variant\":\"cub_sum\",\"n\":-1," CASE_TAIL "}", "negative"},
    {"{\"case\":-2,\"variant\":\"cub_sum\",\"n\":5," CASE_TAIL "}", "negative"},
    {"{\"case\":0,\"variant\":\"cub_sum\",\"n\":5,\"dtype\":\"f8\",\"pattern\":\"exact\",\"seed\":1,\"repeats\":3}",
     "unknown dtype 'f8'"},
    {"{\"case\":0,\"variant\":\"cub_sum\",\"n\":5,\"dtype\":\"f32\",\"pattern\":\"ones\",\"seed\":1,\"repeats\":3}",
     "unknown pattern 'ones'"},
    {"{\"case\":0,\"variant\":\"cub_sum\",\"n\":5,\"dtype\":\"f32\",\"pattern\":\"exact\",\"seed\":1,\"repeats\":0}",
     "repeats"},
};

START_TEST(test_proto_decode_case_rejects) {
  size_t index;
  kg_case c;
  kg_run_params p;
  char err[200] = "";
  ck_assert_int_eq(kg_proto_decode_case(k_bad_cases[_i].line, &index, &c, &p, err, sizeof err), -1);
  ck_assert_msg(strstr(err, k_bad_cases[_i].message) != NULL, "'%s': message '%s' lacks \"%s\"", k_bad_cases[_i].line,
                err, k_bad_cases[_i].message);
}
END_TEST

#define RESULT_TAIL "\"got\":\"1\",\"expected\":\"1\",\"depth\":1,\"repeats\":1,\"nondeterministic\":false,\"input_modified\":false"
static const struct {
  const char *line, *message;
} k_bad_results[] = {
    {"Segmentation fault", "malformed JSON"},
    {"{\"case\":1,\"status\":\"pass\"}", "bad result line"},
    {"{\"case\":1," RESULT_TAIL ",\"message\":\"\"}", "bad result line"},                          /* status missing */
    {"{\"case\":1,\"status\":\"passed\"," RESULT_TAIL ",\"message\":\"\"}", "unknown status 'passed'"},
    {"{\"case\":-1,\"status\":\"pass\"," RESULT_TAIL ",\"message\":\"\"}", "negative"},
    {"{\"case\":\"1\",\"status\":\"pass\"," RESULT_TAIL ",\"message\":\"\"}", "bad result line"},
    {"{\"case\":1,\"status\":\"pass\"," RESULT_TAIL ",\"message\":7}", "bad result line"},
    {"{\"case\":1,\"status\":\"pass\"," RESULT_TAIL ",\"message\":\"\",\"restart\":\"yes\"}", "bad result line"},
    {"{\"case\":1,\"status\":\"fail\",\"fail\":\"wrong_after_timing\"," RESULT_TAIL
     ",\"message\":\"x\",\"wrong\":\"both\"}",
     "wrong is neither head nor base"},
    {"{\"case\":1,\"status\":\"pass\"," RESULT_TAIL ",\"message\":\"\",\"wrong\":\"head\"}",
     "wrong head, yet not failed wrong_after_timing"},
};

START_TEST(test_proto_decode_result_rejects) {
  size_t index;
  kg_result r;
  int restart;
  char err[200] = "";
  ck_assert_int_eq(kg_proto_decode_result(k_bad_results[_i].line, &index, &r, &restart, err, sizeof err), -1);
  ck_assert_msg(strstr(err, k_bad_results[_i].message) != NULL, "'%s': message '%s' lacks \"%s\"",
                k_bad_results[_i].line, err, k_bad_results[_i].message);
}
END_TEST

static const char *const k_bad_hellos[] = {
    "", "hello", "{}", "{\"fatal\":3}", "{\"hello\":{\"name\":\"x\"}}",
    "{\"case\":0,\"status\":\"pass\"}",
};

START_TEST(test_proto_decode_hello_rejects) {
  kg_device_info d;
  char err[200] = "";
  ck_assert_int_eq(kg_proto_decode_hello(k_bad_hellos[_i], &d, err, sizeof err), -1);
  ck_assert_uint_gt(strlen(err), 0);
}
END_TEST

#define N(a) (int)(sizeof a / sizeof a[0])

Suite *make_proto_suite(void) {
  Suite *s = suite_create("proto");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_proto_case_round_trip, 0, N(k_cases));
  tcase_add_loop_test(core, test_proto_result_round_trip, 0, KG_NSTATUS);
  tcase_add_loop_test(core, test_proto_fail_kind_round_trip, 0, KG_NFAIL_KINDS);
  tcase_add_test(core, test_proto_hello_round_trip);
  tcase_add_test(core, test_proto_hello_card_identity);
  tcase_add_test(core, test_proto_pair_round_trip);
  tcase_add_loop_test(core, test_proto_pair_wrong_round_trip, 0, 2);
  tcase_add_test(core, test_proto_probe_round_trip);
  tcase_add_test(core, test_proto_probe_read_round_trip);
  tcase_add_test(core, test_proto_timing_round_trip);
  tcase_add_test(core, test_proto_fatal);
  tcase_add_test(core, test_status_names);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_test(limits, test_proto_result_nonfinite);
  tcase_add_loop_test(limits, test_proto_decode_cuts_utf8_whole, 0, N(k_utf8_cuts));
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_proto_decode_case_rejects, 0, N(k_bad_cases));
  tcase_add_loop_test(errors, test_proto_decode_result_rejects, 0, N(k_bad_results));
  tcase_add_loop_test(errors, test_proto_decode_hello_rejects, 0, N(k_bad_hellos));
  suite_add_tcase(s, errors);
  return s;
}
