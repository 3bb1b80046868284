#include "proto.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "registry.h"
#include "validate.h"

/* JSON has no Inf or NaN: non-finite numbers travel as null and come back as +Inf. */
static json_t *jreal(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static double get_real(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  return json_is_number(v) ? json_number_value(v) : INFINITY;
}

static char *dump(json_t *o) {
  char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  return s;
}

char *kg_proto_encode_case(size_t index, const kg_case *c, const kg_run_params *p) {
  return kg_proto_encode_case_exact(index, c, p, 0);
}

char *kg_proto_encode_case_exact(size_t index, const kg_case *c, const kg_run_params *p, int exact) {
  json_t *o = json_pack("{sI ss ss sI ss sI si}", "case", (json_int_t)index, "variant", kg_variants[c->variant].name,
                        "dtype", kg_dtype_get(c->dtype)->name, "n", (json_int_t)c->n, "pattern",
                        kg_pattern_name(c->pattern), "seed", (json_int_t)p->seed, "repeats", p->repeats);
  if (o && exact) json_object_set_new(o, "exact", json_true());
  if (o && (c->timed || p->pair.on))
    json_object_set_new(o, "time", json_pack("{sb sf si sf}", "hot", p->time.hot, "max_noise", p->time.max_noise,
                                             "min_samples", p->time.min_samples, "max_seconds", p->time.max_seconds));
  if (o && p->pair.on)
    json_object_set_new(o, "pair", json_pack("{ss ss si si sf si}", "module", p->pair.module ? "base" : "own", "variant",
                                             kg_variants[p->pair.base_variant >= 0 ? p->pair.base_variant : c->variant].name, "copies", p->pair.copies, "quads",
                                             p->pair.quads, "max_seconds", p->pair.max_seconds, "round", p->pair.round));
  return dump(o);
}

static json_t *parse(const char *line, char *err, size_t errlen) {
  json_error_t e;
  json_t *o = json_loads(line, 0, &e);
  if (!o) snprintf(err, errlen, "malformed JSON line: %s", e.text);
  else if (!json_is_object(o)) {
    snprintf(err, errlen, "JSON line is not an object");
    json_decref(o);
    o = NULL;
  }
  return o;
}

int kg_proto_decode_case(const char *line, size_t *index, kg_case *c, kg_run_params *p, char *err, size_t errlen) {
  int exact;
  return kg_proto_decode_case_exact(line, index, c, p, &exact, err, errlen);
}

int kg_proto_decode_case_exact(const char *line, size_t *index, kg_case *c, kg_run_params *p, int *exact_out,
                               char *err, size_t errlen) {
  json_t *o = parse(line, err, errlen);
  if (!o) return -1;
  json_int_t idx, n, seed;
  const char *variant, *dtype, *pattern;
  int repeats, rc = -1;
  json_error_t e;
  json_t *time = NULL, *pair = NULL;
  const char *pmodule = NULL, *pvariant = NULL;
  int exact = 0;
  memset(&p->time, 0, sizeof p->time);
  memset(&p->pair, 0, sizeof p->pair);
  memset(c, 0, sizeof *c);
  if (json_unpack_ex(o, &e, JSON_STRICT, "{sI ss ss sI ss sI si s?o s?b s?o}", "case", &idx, "variant", &variant,
                     "dtype", &dtype, "n", &n, "pattern", &pattern, "seed", &seed, "repeats", &repeats, "time", &time,
                     "exact", &exact, "pair", &pair) ||
      (time && json_unpack_ex(time, &e, JSON_STRICT, "{sb sF si sF}", "hot", &p->time.hot, "max_noise",
                              &p->time.max_noise, "min_samples", &p->time.min_samples, "max_seconds",
                              &p->time.max_seconds)) ||
      (pair && json_unpack_ex(pair, &e, JSON_STRICT, "{ss ss si si sF s?i}", "module", &pmodule, "variant", &pvariant,
                              "copies", &p->pair.copies, "quads", &p->pair.quads, "max_seconds",
                              &p->pair.max_seconds, "round", &p->pair.round))) {
    snprintf(err, errlen, "bad case line: %s", e.text);
  } else if (pair && (strcmp(pmodule, "own") && strcmp(pmodule, "base"))) {
    snprintf(err, errlen, "bad case line: pair module '%s' (own or base)", pmodule);
  } else if (pair && (p->pair.base_variant = kg_variant_find_any(pvariant)) < 0) {
    snprintf(err, errlen, "unknown pair variant '%s'", pvariant);
  } else if (pair && (p->pair.copies < 1 || p->pair.copies > KG_PAIR_MAX_COPIES || p->pair.quads < 1 ||
                      !(p->pair.max_seconds > 0) || p->pair.round < 0)) {
    snprintf(err, errlen, "bad case line: pair copies 1..%d, quads >= 1, max_seconds > 0 and round >= 0",
             KG_PAIR_MAX_COPIES);
  } else if ((c->variant = kg_variant_find_any(variant)) < 0) {
    snprintf(err, errlen, "unknown variant '%s'", variant);
  } else if (kg_dtype_parse(dtype, &c->dtype)) {
    snprintf(err, errlen, "unknown dtype '%s'", dtype);
  } else if (kg_pattern_parse(pattern, &c->pattern)) {
    snprintf(err, errlen, "unknown pattern '%s'", pattern);
  } else if (idx < 0 || n < 0 || repeats < 1) {
    snprintf(err, errlen, "negative index or size, or repeats < 1");
  } else {
    *index = (size_t)idx;
    c->n = (size_t)n;
    c->supported = kg_case_supported(c->variant, c->dtype, c->pattern);
    c->timed = time != NULL && !pair;
    p->pair.on = pair != NULL;
    p->pair.module = pair && !strcmp(pmodule, "base");
    p->seed = (uint64_t)seed;
    p->repeats = repeats;
    *exact_out = exact;
    rc = 0;
  }
  json_decref(o);
  return rc;
}

char *kg_proto_encode_result(size_t index, const kg_result *r, int restart) {
  json_t *o = json_pack("{sI ss ss ss so so so sf si sb sb ss}", "case", (json_int_t)index, "status",
                        kg_status_name(r->status), "got", r->got, "expected", r->expected, "abs_err",
                        jreal(r->abs_err), "bound", jreal(r->bound), "ratio", jreal(r->ratio), "depth", r->depth,
                        "repeats", r->repeats, "nondeterministic", r->nondeterministic, "input_modified",
                        r->input_modified, "message", r->message);
  if (o && restart) json_object_set_new(o, "restart", json_true());
  if (o && r->device) json_object_set_new(o, "device", json_integer(r->device));
  const kg_timing *t = &r->timing;
  if (o && t->samples)
    json_object_set_new(o, "timing", json_pack("{si sf sf sf sf sf sf sf sb}", "samples", t->samples, "median_us",
                                               t->median_us, "q1_us", t->q1_us, "q3_us", t->q3_us, "min_us",
                                               t->min_us, "noise", t->noise, "graph_us", t->graph_us,
                                               "sm_clock_mhz", t->sm_clock_mhz, "throttled", t->throttled));
  if (o && t->samples && t->set_aside)
    json_object_set_new(json_object_get(o, "timing"), "set_aside", json_integer(t->set_aside));
  if (o && r->nblocks > 0) {
    json_t *bl = json_array();
    for (int k = 0; bl && k < r->nblocks && k < KG_PAIR_MAX_COPIES; k++)
      json_array_append_new(bl, json_pack("[o i o o]", jreal(r->blocks[k].log_ratio), r->blocks[k].pairs,
                                          jreal(r->blocks[k].head_us), jreal(r->blocks[k].base_us)));
    json_object_set_new(o, "blocks", bl);
    json_object_set_new(o, "set_aside", json_integer(r->pair_set_aside));
  }
  return dump(o);
}

/* [[log_ratio, pairs, head_us, base_us], ...]: 0, or -1 when malformed. A
 * block with a non-finite value (null) is kept: the statistics drop it. */
static int decode_blocks(json_t *bl, kg_result *r) {
  if (!json_is_array(bl) || json_array_size(bl) > KG_PAIR_MAX_COPIES) return -1;
  for (size_t k = 0; k < json_array_size(bl); k++) {
    json_t *b = json_array_get(bl, k);
    kg_pblock *pb = &r->blocks[k];
    json_t *pairs = json_array_get(b, 1);
    if (!json_is_array(b) || json_array_size(b) != 4 || !json_is_integer(pairs) || json_integer_value(pairs) < 1 ||
        json_integer_value(pairs) > 1 << 20)
      return -1;
    pb->pairs = (int)json_integer_value(pairs);
    double *v[3] = {&pb->log_ratio, &pb->head_us, &pb->base_us};
    static const int at[3] = {0, 2, 3};
    for (int i = 0; i < 3; i++) {
      json_t *x = json_array_get(b, at[i]);
      if (!json_is_number(x) && !json_is_null(x)) return -1;
      *v[i] = json_is_number(x) ? json_number_value(x) : NAN;
    }
  }
  r->nblocks = (int)json_array_size(bl);
  return 0;
}

/* A cut never splits a UTF-8 sequence (jansson gave valid UTF-8): every
 * JSON encoder, the results file's too, refuses invalid UTF-8. */
static void copy_str(char *dst, size_t len, const char *src) {
  if (!len) return;
  src = src ? src : "";
  snprintf(dst, len, "%s", src);
  for (size_t n = strlen(dst); n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80;) dst[--n] = '\0';
}

int kg_proto_decode_result(const char *line, size_t *index, kg_result *r, int *restart, char *err, size_t errlen) {
  json_t *o = parse(line, err, errlen);
  if (!o) return -1;
  json_int_t idx;
  const char *status, *got, *expected, *message;
  int rc = -1, restart_flag = 0;
  json_error_t e;
  memset(r, 0, sizeof *r);
  kg_timing *t = &r->timing;
  json_t *timing = NULL, *blocks = NULL;
  if (json_unpack_ex(o, &e, 0, "{sI ss ss ss sF si sb sb ss s?b s?o s?i s?o s?i}", "case", &idx, "status", &status,
                     "got", &got, "expected", &expected, "depth", &r->depth, "repeats", &r->repeats,
                     "nondeterministic", &r->nondeterministic, "input_modified", &r->input_modified, "message",
                     &message, "restart", &restart_flag, "timing", &timing, "device", &r->device, "blocks", &blocks,
                     "set_aside", &r->pair_set_aside) ||
      (timing && json_unpack_ex(timing, &e, 0, "{si sF sF sF sF sF sF sF sb}", "samples", &t->samples, "median_us",
                                &t->median_us, "q1_us", &t->q1_us, "q3_us", &t->q3_us, "min_us", &t->min_us, "noise",
                                &t->noise, "graph_us", &t->graph_us, "sm_clock_mhz", &t->sm_clock_mhz, "throttled",
                                &t->throttled))) {
    snprintf(err, errlen, "bad result line: %s", e.text);
  } else if (blocks && decode_blocks(blocks, r)) {
    snprintf(err, errlen, "bad result line: malformed blocks");
  } else if (idx < 0) {
    snprintf(err, errlen, "bad result line: negative case index");
  } else {
    if (kg_status_parse(status, &r->status)) {
      snprintf(err, errlen, "bad result line: unknown status '%s'", status);
    } else {
      *index = (size_t)idx;
      copy_str(r->got, sizeof r->got, got);
      copy_str(r->expected, sizeof r->expected, expected);
      copy_str(r->message, sizeof r->message, message);
      r->abs_err = get_real(o, "abs_err");
      r->bound = get_real(o, "bound");
      r->ratio = get_real(o, "ratio");
      json_t *aside = json_object_get(timing, "set_aside");
      t->set_aside = json_is_integer(aside) ? (int)json_integer_value(aside) : 0;
      *restart = restart_flag;
      rc = 0;
    }
  }
  json_decref(o);
  return rc;
}

char *kg_proto_encode_hello(const kg_device_info *d) {
  json_t *o = json_pack("{s{ss si si si sI sI si si si si sf sf}}", "hello", "name", d->name, "cc_major", d->cc_major,
                        "cc_minor", d->cc_minor, "sms", d->sms, "l2_bytes", (json_int_t)d->l2_bytes, "mem_bytes",
                        (json_int_t)d->mem_bytes, "driver_version", d->driver_version, "runtime_version",
                        d->runtime_version, "mem_clock_khz", d->mem_clock_khz, "bus_width_bits", d->bus_width_bits,
                        "peak_gbps", d->peak_gbps, "roofline_gbps", d->roofline_gbps);
  if (o && d->count) json_object_set_new(json_object_get(o, "hello"), "count", json_integer(d->count));
  if (o && d->uuid[0]) json_object_set_new(json_object_get(o, "hello"), "uuid", json_string(d->uuid));
  if (o && d->pci[0]) json_object_set_new(json_object_get(o, "hello"), "pci", json_string(d->pci));
  return dump(o);
}

char *kg_proto_encode_fatal(const char *why) { return dump(json_pack("{ss}", "fatal", why)); }

int kg_proto_decode_hello(const char *line, kg_device_info *d, char *err, size_t errlen) {
  json_t *o = parse(line, err, errlen);
  if (!o) return -1;
  int rc = -1;
  const char *name, *fatal;
  json_int_t l2, mem;
  json_error_t e;
  memset(d, 0, sizeof *d);
  if (json_unpack(o, "{ss}", "fatal", &fatal) == 0) {
    copy_str(err, errlen, fatal);
    rc = 1;
  } else if (json_unpack_ex(o, &e, 0, "{s{ss si si si sI sI si si si si sF sF}}", "hello", "name", &name, "cc_major",
                            &d->cc_major, "cc_minor", &d->cc_minor, "sms", &d->sms, "l2_bytes", &l2, "mem_bytes",
                            &mem, "driver_version", &d->driver_version, "runtime_version", &d->runtime_version,
                            "mem_clock_khz", &d->mem_clock_khz, "bus_width_bits", &d->bus_width_bits, "peak_gbps",
                            &d->peak_gbps, "roofline_gbps", &d->roofline_gbps) == 0) {
    copy_str(d->name, sizeof d->name, name);
    d->l2_bytes = l2;
    d->mem_bytes = mem;
    json_t *count = json_object_get(json_object_get(o, "hello"), "count");
    d->count = json_is_integer(count) ? (int)json_integer_value(count) : 0;
    rc = 0;
    /* optional: the card's identity (kg_why_bad_uuid/pci say what a worker sends) */
    const char *uuid = json_string_value(json_object_get(json_object_get(o, "hello"), "uuid"));
    const char *pci = json_string_value(json_object_get(json_object_get(o, "hello"), "pci"));
    if (uuid && kg_why_bad_uuid(uuid)) {
      snprintf(err, errlen, "hello: uuid: %s", kg_why_bad_uuid(uuid));
      rc = -1;
    } else if (pci && kg_why_bad_pci(pci)) {
      snprintf(err, errlen, "hello: pci: %s", kg_why_bad_pci(pci));
      rc = -1;
    } else {
      copy_str(d->uuid, sizeof d->uuid, uuid ? uuid : "");
      copy_str(d->pci, sizeof d->pci, pci ? pci : "");
    }
  } else {
    snprintf(err, errlen, "expected a hello line from the worker: %s", e.text);
  }
  json_decref(o);
  return rc;
}
