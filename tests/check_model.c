/* model: the run model's objects and their one JSON codec in two forms. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fileio.h"
#include "jread.h"
#include "model.h"

#define N(a) (int)(sizeof a / sizeof a[0])

static kg_device_info h200(void) {
  kg_device_info d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "NVIDIA H200");
  d.cc_major = 9, d.sms = 132, d.l2_bytes = 60LL << 20, d.mem_bytes = 140LL << 30;
  d.driver_version = 13000, d.runtime_version = 13000, d.mem_clock_khz = 3201000, d.bus_width_bits = 6144;
  d.peak_gbps = 4915.2, d.roofline_gbps = 4100.5, d.count = 2;
  snprintf(d.uuid, sizeof d.uuid, "GPU-12345678-1234-1234-1234-123456789abc");
  snprintf(d.pci, sizeof d.pci, "0000:1b:00.0");
  return d;
}

/* The keys of o in order, comma-separated. */
static void keys_of(json_t *o, char *buf, size_t len) {
  const char *k;
  json_t *v;
  size_t used = 0;
  buf[0] = '\0';
  json_object_foreach(o, k, v) used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", k);
}

/* Loop index: the form. Every field comes back; "count" only travels on the wire. */
START_TEST(test_model_device_round_trip) {
  kg_form form = (kg_form)_i;
  kg_device_info d = h200(), e;
  json_t *o = kg_device_to_json(&d, form);
  ck_assert_ptr_nonnull(o);
  char err[200] = "";
  ck_assert_msg(kg_device_from_json(o, &e, form, err, sizeof err) == 0, "%s", err);
  if (form == KG_FORM_FILE) d.count = 0;
  ck_assert_int_eq(memcmp(&d, &e, sizeof d), 0);
  json_decref(o);
}
END_TEST

/* The two forms keep their own order of fields: the hello names the versions earlier. */
START_TEST(test_model_device_field_order) {
  static const char *const want[2] = {
      "name,cc_major,cc_minor,sms,l2_bytes,mem_bytes,mem_clock_khz,bus_width_bits,peak_gbps,roofline_gbps,"
      "driver_version,runtime_version,uuid,pci",
      "name,cc_major,cc_minor,sms,l2_bytes,mem_bytes,driver_version,runtime_version,mem_clock_khz,bus_width_bits,"
      "peak_gbps,roofline_gbps,count,uuid,pci"};
  kg_device_info d = h200();
  char keys[400];
  for (int f = 0; f < 2; f++) {
    json_t *o = kg_device_to_json(&d, (kg_form)f);
    keys_of(o, keys, sizeof keys);
    ck_assert_str_eq(keys, want[f]);
    json_decref(o);
  }
}
END_TEST

/* Loop index: the form. The wire carries set_aside, the file does not. */
START_TEST(test_model_timing_round_trip) {
  kg_form form = (kg_form)_i;
  kg_timing t = {12, 10.5, 10, 11, 9.5, 0.004, 0.25, 1980, 1, 3}, u;
  memset(&u, 0, sizeof u);
  json_t *o = kg_timing_to_json(&t, form);
  ck_assert_ptr_nonnull(o);
  char err[200] = "";
  ck_assert_msg(kg_timing_from_json(o, &u, form, err, sizeof err) == 0, "%s", err);
  ck_assert(u.samples == t.samples && u.median_us == t.median_us && u.q1_us == t.q1_us && u.q3_us == t.q3_us);
  ck_assert(u.min_us == t.min_us && u.noise == t.noise && u.graph_us == t.graph_us && u.sm_clock_mhz == t.sm_clock_mhz);
  ck_assert_int_eq(u.throttled, t.throttled);
  ck_assert_int_eq(u.set_aside, form == KG_FORM_WIRE ? t.set_aside : 0);
  json_decref(o);
}
END_TEST

static int int_cmp(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

/* The first equal pair in sorted order, named by position, earlier first. */
static const struct {
  int v[5];
  size_t n;
  int found;
  size_t first, again;
} k_dups[] = {
    {{0}, 0, 0, 0, 0},           {{1, 2, 3}, 3, 0, 0, 0},       {{3, 1, 3}, 3, 1, 0, 2},
    {{5, 5, 1, 1}, 4, 1, 2, 3},  {{2, 7, 2, 7}, 4, 1, 0, 2},    {{9, 4, 4, 4}, 4, 1, 1, 2},
};

START_TEST(test_model_find_duplicate) {
  char err[100] = "";
  kg_jrd r = {.err = err, .errlen = sizeof err};
  size_t first = 99, again = 99;
  int found = kg_find_duplicate(&r, k_dups[_i].v, k_dups[_i].n, sizeof(int), int_cmp, &first, &again);
  ck_assert_int_eq(found, k_dups[_i].found);
  ck_assert_int_eq(r.failed, 0);
  if (found) {
    ck_assert_uint_eq(first, k_dups[_i].first);
    ck_assert_uint_eq(again, k_dups[_i].again);
  }
}
END_TEST

START_TEST(test_model_status_parse) {
  kg_status s;
  for (int i = 0; i < KG_NSTATUS; i++) {
    ck_assert_int_eq(kg_status_parse(kg_status_name((kg_status)i), &s), 0);
    ck_assert_int_eq(s, i);
  }
  ck_assert_int_eq(kg_status_parse("passed", &s), -1);
  ck_assert_int_eq(kg_status_parse("?", &s), -1);
  ck_assert_int_eq(kg_status_parse(NULL, &s), -1);
}
END_TEST

/* Every kind but none has a name that reads back as itself; the timer's two by their names. */
START_TEST(test_model_fail_kind_parse) {
  kg_fail_kind k;
  for (int i = 1; i < KG_NFAIL_KINDS; i++) {
    ck_assert_int_eq(kg_fail_kind_parse(kg_fail_kind_name((kg_fail_kind)i), &k), 0);
    ck_assert_int_eq(k, i);
  }
  ck_assert_str_eq(kg_fail_kind_name(KG_FK_REFUSED), "refused");
  ck_assert_str_eq(kg_fail_kind_name(KG_FK_WRONG_AFTER_TIMING), "wrong_after_timing");
  ck_assert_str_eq(kg_fail_kind_name(KG_NFAIL_KINDS), "?");
  ck_assert_int_eq(kg_fail_kind_parse("", &k), -1);
  ck_assert_int_eq(kg_fail_kind_parse("Refused", &k), -1);
}
END_TEST

/* JSON has no NaN: the file writes null (read back as NAN), the wire cannot carry it. */
START_TEST(test_model_nonfinite_forms) {
  kg_device_info d = h200(), e;
  d.roofline_gbps = NAN;
  ck_assert_ptr_null(kg_device_to_json(&d, KG_FORM_WIRE));
  json_t *o = kg_device_to_json(&d, KG_FORM_FILE);
  ck_assert(json_is_null(json_object_get(o, "roofline_gbps")));
  char err[200] = "";
  ck_assert_msg(kg_device_from_json(o, &e, KG_FORM_FILE, err, sizeof err) == 0, "%s", err);
  ck_assert(isnan(e.roofline_gbps));
  json_decref(o);
  kg_timing t = {3, 1, 1, 1, 1, 0, 0, INFINITY, 0, 0};
  ck_assert_ptr_null(kg_timing_to_json(&t, KG_FORM_WIRE));
}
END_TEST

/* A JSON text one of the model's decoders must refuse: the return code
 * and a part of the message it must give. */
typedef struct bad_json {
  kg_form form;
  const char *json, *message;
  int rc;
} bad_json;

/* Each decoder, over an object of its own. */
static int decode_device(json_t *o, kg_form form, char *err, size_t errlen) {
  kg_device_info d;
  return kg_device_from_json(o, &d, form, err, errlen);
}
static int decode_timing(json_t *o, kg_form form, char *err, size_t errlen) {
  kg_timing t;
  memset(&t, 0, sizeof t);
  return kg_timing_from_json(o, &t, form, err, errlen);
}
static int decode_result(json_t *o, kg_form form, char *err, size_t errlen) {
  kg_result r;
  return kg_result_from_json(o, &r, form, err, errlen);
}

static void expect_refused(const bad_json *b, int (*decode)(json_t *, kg_form, char *, size_t)) {
  json_t *o = json_loads(b->json, JSON_DECODE_ANY, NULL);
  ck_assert_ptr_nonnull(o);
  char err[200] = "";
  ck_assert_int_eq(decode(o, b->form, err, sizeof err), b->rc);
  ck_assert_msg(strstr(err, b->message) != NULL, "'%s' lacks '%s'", err, b->message);
  json_decref(o);
}

/* The file is strict (bounds, the GPU name), the wire checks types and words its errors as jansson does. */
static const bad_json k_bad_devices[] = {
    {KG_FORM_FILE, "{\"name\":\"G\",\"cc_major\":9}", "missing field 'cc_minor'", -1},
    {KG_FORM_FILE, "{\"name\":\"G\",\"cc_major\":100}", "cc_major", -1},
    {KG_FORM_FILE, "{\"name\":\"G\\u001b[2J\"}", "name", -1},
    {KG_FORM_WIRE, "3", "Expected object, got integer", -1},
    {KG_FORM_WIRE, "{}", "Object item not found: name", -1},
    {KG_FORM_WIRE, "{\"name\":3}", "Expected string, got integer", -1},
    {KG_FORM_WIRE, "{\"name\":\"G\",\"cc_major\":1.5}", "Expected integer, got real", -1},
    {KG_FORM_WIRE,
     "{\"name\":\"G\",\"cc_major\":1,\"cc_minor\":1,\"sms\":1,\"l2_bytes\":1,\"mem_bytes\":1,\"driver_version\":1,"
     "\"runtime_version\":1,\"mem_clock_khz\":1,\"bus_width_bits\":1,\"peak_gbps\":null,\"roofline_gbps\":1}",
     "Expected real or integer, got null", -1},
    {KG_FORM_WIRE,
     "{\"name\":\"G\",\"cc_major\":1,\"cc_minor\":1,\"sms\":1,\"l2_bytes\":1,\"mem_bytes\":1,\"driver_version\":1,"
     "\"runtime_version\":1,\"mem_clock_khz\":1,\"bus_width_bits\":1,\"peak_gbps\":1,\"roofline_gbps\":1,\"uuid\":\"GPU-x\"}",
     "uuid: ", -2},
};

START_TEST(test_model_device_rejects) { expect_refused(&k_bad_devices[_i], decode_device); }
END_TEST

#define TIMING_OK "\"samples\":3,\"median_us\":2,\"q1_us\":1,\"q3_us\":3,\"min_us\":1,\"noise\":0,\"graph_us\":0,\"sm_clock_mhz\":0"
static const bad_json k_bad_timings[] = {
    {KG_FORM_FILE, "{" TIMING_OK "}", "missing field 'throttled'", -1},
    {KG_FORM_FILE, "{\"samples\":0}", "samples", -1},
    {KG_FORM_FILE, "{" TIMING_OK ",\"throttled\":false,\"q1_us\":5}", "q1", -1},
    {KG_FORM_WIRE, "null", "Expected object, got null", -1},
    {KG_FORM_WIRE, "{" TIMING_OK ",\"throttled\":1}", "Expected true or false, got integer", -1},
    {KG_FORM_WIRE, "{\"samples\":\"3\"}", "Expected integer, got string", -1},
};

START_TEST(test_model_timing_rejects) { expect_refused(&k_bad_timings[_i], decode_timing); }
END_TEST

static kg_result judged(void) {
  kg_result r;
  memset(&r, 0, sizeof r);
  r.status = KG_ST_PASS, r.abs_err = 1.5e-7, r.bound = 2e-6, r.ratio = 0.075, r.depth = 22.5, r.repeats = 3;
  r.nondeterministic = 1, r.input_modified = 1, r.device = 3;
  snprintf(r.got, sizeof r.got, "12.5");
  snprintf(r.expected, sizeof r.expected, "12.500001");
  snprintf(r.message, sizeof r.message, "a \"quoted\"\tmessage");
  r.timing = (kg_timing){12, 10.5, 10, 11, 9.5, 0.004, 0.25, 1980, 1, 0};
  return r;
}

/* r written in the form and read back into e; the JSON, for a look at it. */
static json_t *result_back(const kg_result *r, kg_form form, kg_result *e) {
  json_t *o = kg_result_to_json(r, form);
  ck_assert_ptr_nonnull(o);
  char err[200] = "";
  ck_assert_msg(kg_result_from_json(o, e, form, err, sizeof err) == 0, "%s", err);
  return o;
}

/* Loop index: the form. Every field of the result comes back, the timing and device too. */
START_TEST(test_model_result_round_trip) {
  kg_form form = (kg_form)_i;
  kg_result r = judged(), e;
  json_decref(result_back(&r, form, &e));
  ck_assert_int_eq(memcmp(&r, &e, sizeof r), 0);
  /* untimed, device 0: the file writes "timing":null and "device":0, the wire neither */
  r.timing.samples = 0, r.device = 0;
  json_t *o = result_back(&r, form, &e);
  ck_assert_int_eq(json_object_get(o, "timing") != NULL, form == KG_FORM_FILE);
  ck_assert_int_eq(json_object_get(o, "device") != NULL, form == KG_FORM_FILE);
  ck_assert(e.timing.samples == 0 && e.device == 0 && e.status == KG_ST_PASS);
  ck_assert_ptr_null(json_object_get(o, "fail"));
  json_decref(o);
  /* a failure's kind comes back in both forms */
  r.status = KG_ST_FAIL, r.fail = KG_FK_WRONG_AFTER_TIMING;
  o = result_back(&r, form, &e);
  ck_assert_str_eq(json_string_value(json_object_get(o, "fail")), "wrong_after_timing");
  ck_assert_int_eq(e.fail, KG_FK_WRONG_AFTER_TIMING);
  json_decref(o);
}
END_TEST

/* The results file's order of a case's result fields (docs/results-schema.md):
 * a field a check adds comes after "message"; the wire sends the device first. */
START_TEST(test_model_result_field_order) {
  static const char head[] = "status,got,expected,abs_err,bound,ratio,depth,repeats,nondeterministic,input_modified,message,";
  static const char *const tail[2] = {",timing,device", ",device,timing"};
  kg_result r = judged();
  char keys[600];
  for (int f = 0; f < 2; f++) {
    json_t *o = kg_result_to_json(&r, (kg_form)f);
    keys_of(o, keys, sizeof keys);
    size_t len = strlen(keys), tl = strlen(tail[f]);
    ck_assert_msg(strncmp(keys, head, strlen(head)) == 0, "%s", keys);
    ck_assert_msg(len > tl && strcmp(keys + len - tl, tail[f]) == 0, "%s", keys);
    json_decref(o);
  }
}
END_TEST

/* Loop index: the form. A non-finite error, bound or ratio is null in both
 * forms and reads back as +Inf; a non-finite depth only the file can write. */
START_TEST(test_model_result_nonfinite) {
  kg_form form = (kg_form)_i;
  kg_result r = judged(), e;
  r.abs_err = NAN, r.bound = 0, r.ratio = -INFINITY;
  json_t *o = kg_result_to_json(&r, form);
  ck_assert_ptr_nonnull(o);
  ck_assert(json_is_null(json_object_get(o, "abs_err")) && json_is_null(json_object_get(o, "ratio")));
  char err[200] = "";
  ck_assert_msg(kg_result_from_json(o, &e, form, err, sizeof err) == 0, "%s", err);
  ck_assert(e.abs_err == INFINITY && e.ratio == INFINITY && e.bound == 0);
  json_decref(o);
  r.depth = INFINITY;
  o = kg_result_to_json(&r, form);
  ck_assert_int_eq(o != NULL, form == KG_FORM_FILE);
  json_decref(o);
}
END_TEST

/* The file is strict and words its errors as fileio does; the wire checks
 * types, words them as jansson does, and reads a missing abs_err as +Inf. */
#define RESULT_OK "\"got\":\"1\",\"expected\":\"1\",\"abs_err\":0,\"bound\":1,\"ratio\":0,\"depth\":1,\"repeats\":1,\"nondeterministic\":false,\"input_modified\":false"
static const bad_json k_bad_results[] = {
    {KG_FORM_FILE, "{\"got\":\"1\"}", "missing field 'status'", -1},
    {KG_FORM_FILE, "{\"status\":\"passed\"}", "unknown status 'passed'", -1},
    {KG_FORM_FILE, "{\"status\":\"pass\",\"expected\":\"1\"}", "missing field 'got'", -1},
    {KG_FORM_FILE, "{\"status\":\"pass\"," RESULT_OK ",\"message\":7}", "field 'message' should be a string", -1},
    {KG_FORM_FILE, "{\"status\":\"pass\"," RESULT_OK ",\"message\":\"\",\"timing\":{}}", "timing: missing field 'samples'", -1},
    {KG_FORM_FILE, "{\"status\":\"pass\"," RESULT_OK ",\"message\":\"\",\"timing\":null,\"device\":-1}", "device is -1", -1},
    {KG_FORM_FILE, "{\"status\":\"fail\"," RESULT_OK ",\"message\":\"x\",\"fail\":\"flaky\",\"timing\":null}",
     "unknown fail 'flaky'", -1},
    {KG_FORM_FILE, "{\"status\":\"fail\"," RESULT_OK ",\"message\":\"x\",\"fail\":7,\"timing\":null}",
     "field 'fail' should be a string", -1},
    {KG_FORM_FILE, "{\"status\":\"pass\"," RESULT_OK ",\"message\":\"\",\"fail\":\"refused\",\"timing\":null}",
     "fail 'refused' on a case with status pass", -1},
    {KG_FORM_WIRE, "{\"status\":\"fail\"," RESULT_OK ",\"message\":\"x\",\"fail\":\"flaky\"}", "unknown failure kind", -1},
    {KG_FORM_WIRE, "[]", "Expected object, got array", -1},
    {KG_FORM_WIRE, "{\"got\":\"1\"}", "Object item not found: status", -1},
    {KG_FORM_WIRE, "{\"status\":\"pass\",\"got\":1}", "Expected string, got integer", -1},
    {KG_FORM_WIRE, "{\"status\":\"pass\"," RESULT_OK "}", "Object item not found: message", -1},
    {KG_FORM_WIRE, "{\"status\":\"pass\"," RESULT_OK ",\"message\":\"\",\"device\":\"0\"}", "Expected integer, got string", -1},
    {KG_FORM_WIRE, "{\"status\":\"pass\"," RESULT_OK ",\"message\":\"\",\"timing\":null}", "Expected object, got null", -1},
    {KG_FORM_WIRE, "{\"status\":\"passed\"," RESULT_OK ",\"message\":\"\"}", "unknown status 'passed'", -1},
};

START_TEST(test_model_result_rejects) { expect_refused(&k_bad_results[_i], decode_result); }
END_TEST

START_TEST(test_model_result_wire_missing_reals) {
  json_t *o = json_loads("{\"status\":\"fail\",\"got\":\"1\",\"expected\":\"2\",\"depth\":1,\"repeats\":1,"
                         "\"nondeterministic\":false,\"input_modified\":false,\"message\":\"\"}", 0, NULL);
  kg_result r;
  char err[200] = "";
  ck_assert_msg(kg_result_from_json(o, &r, KG_FORM_WIRE, err, sizeof err) == 0, "%s", err);
  ck_assert(r.abs_err == INFINITY && r.bound == INFINITY && r.ratio == INFINITY && r.status == KG_ST_FAIL);
  ck_assert_int_eq(kg_result_from_json(o, &r, KG_FORM_FILE, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "missing field 'abs_err'") != NULL, "%s", err);
  json_decref(o);
}
END_TEST

Suite *make_model_suite(void) {
  Suite *s = suite_create("model");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_model_device_round_trip, 0, 2);
  tcase_add_test(core, test_model_device_field_order);
  tcase_add_loop_test(core, test_model_timing_round_trip, 0, 2);
  tcase_add_loop_test(core, test_model_find_duplicate, 0, N(k_dups));
  tcase_add_test(core, test_model_status_parse);
  tcase_add_test(core, test_model_fail_kind_parse);
  tcase_add_loop_test(core, test_model_result_round_trip, 0, 2);
  tcase_add_test(core, test_model_result_field_order);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_test(limits, test_model_nonfinite_forms);
  tcase_add_loop_test(limits, test_model_result_nonfinite, 0, 2);
  tcase_add_test(limits, test_model_result_wire_missing_reals);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_model_device_rejects, 0, N(k_bad_devices));
  tcase_add_loop_test(errors, test_model_timing_rejects, 0, N(k_bad_timings));
  tcase_add_loop_test(errors, test_model_result_rejects, 0, N(k_bad_results));
  suite_add_tcase(s, errors);
  return s;
}
