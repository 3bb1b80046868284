#include "proto.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "fileio.h"
#include "varreg.h"
#include "fields.h"

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
    json_object_set_new(o, "pair",
                        json_pack("{ss ss si si sf si}", "module", p->pair.module ? "base" : "own", "variant",
                                  kg_variants[p->pair.base_variant >= 0 ? p->pair.base_variant : c->variant].name,
                                  "copies", p->pair.copies, "quads", p->pair.quads, "max_seconds", p->pair.max_seconds,
                                  "round", p->pair.round));
  if (o && p->pair.on && p->pair.probe)
    json_object_set_new(json_object_get(o, "pair"), "probe", json_integer(p->pair.probe));
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
      (time &&
       json_unpack_ex(time, &e, JSON_STRICT, "{sb sF si sF}", "hot", &p->time.hot, "max_noise", &p->time.max_noise,
                      "min_samples", &p->time.min_samples, "max_seconds", &p->time.max_seconds)) ||
      (pair && json_unpack_ex(pair, &e, JSON_STRICT, "{ss ss si si sF s?i s?i}", "module", &pmodule, "variant",
                              &pvariant, "copies", &p->pair.copies, "quads", &p->pair.quads, "max_seconds",
                              &p->pair.max_seconds, "round", &p->pair.round, "probe", &p->pair.probe))) {
    snprintf(err, errlen, "bad case line: %s", e.text);
  } else if (pair && (strcmp(pmodule, "own") && strcmp(pmodule, "base"))) {
    snprintf(err, errlen, "bad case line: pair module '%s' (own or base)", pmodule);
  } else if (pair && (p->pair.base_variant = kg_variant_find_any(pvariant)) < 0) {
    snprintf(err, errlen, "unknown pair variant '%s'", pvariant);
  } else if (pair && (p->pair.copies < 1 || p->pair.copies > KG_PAIR_MAX_COPIES || p->pair.quads < 1 ||
                      !(p->pair.max_seconds > 0) || p->pair.round < 0 || p->pair.probe < 0 || p->pair.probe > 2)) {
    snprintf(err, errlen, "bad case line: pair copies 1..%d, quads >= 1, max_seconds > 0, round >= 0 and probe 0..2",
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

/* The framing ("case", "restart", a paired case's blocks) around the
 * result's own fields (model.h). */
char *kg_proto_encode_result(size_t index, const kg_result *r, int restart) {
  json_t *o = json_pack("{sI}", "case", (json_int_t)index);
  if (o && restart) json_object_set_new(o, "restart", json_true());
  if (o && json_object_update_new(o, kg_result_to_json(r, KG_FORM_WIRE))) json_decref(o), o = NULL;
  if (o && r->nblocks > 0) {
    json_t *bl = json_array();
    for (int k = 0; bl && k < r->nblocks && k < KG_PAIR_MAX_COPIES; k++)
      json_array_append_new(bl, json_pack("[o i o o]", kg_json_real(r->blocks[k].log_ratio), r->blocks[k].pairs,
                                          kg_json_real(r->blocks[k].head_us), kg_json_real(r->blocks[k].base_us)));
    json_object_set_new(o, "blocks", bl);
    json_object_set_new(o, "set_aside", json_integer(r->pair_set_aside));
  }
  if (o && r->pair_wrong) json_object_set_new(o, "wrong", json_string(r->pair_wrong == KG_SIDE_HEAD ? "head" : "base"));
  if (o && r->probed) {
    json_t *k = json_array();
    for (int i = 0; k && i < r->nkernels && i < KG_PROBE_MAX_KERNELS; i++) {
      char hex[17];
      snprintf(hex, sizeof hex, "%016llx", (unsigned long long)r->kernels[i]);
      json_array_append_new(k, json_string(hex));
    }
    json_t *pr = json_pack("{si si so*}", "same", r->launch_same, "launches", r->nlaunches, "kernels", k);
    if (pr && r->launch_digest[0]) json_object_set_new(pr, "digest", json_string(r->launch_digest));
    json_t *rd = r->read.n ? json_array() : NULL;
    for (int i = 0; rd && i < r->read.n && i < KG_CODE_MAX_READ; i++) {
      char hex[17];
      snprintf(hex, sizeof hex, "%016llx", (unsigned long long)r->read.hash[i]);
      json_array_append_new(rd, json_string(hex));
    }
    if (pr && rd) json_object_set_new(pr, "read", rd);
    json_object_set_new(o, "probe", pr);
  }
  return dump(o);
}

/* {"same":1|0|-1,"launches":n,"kernels":["16 hex digits",...],"digest"?:"64 hex digits"}:
 * 0, or -1 when malformed. */
static int decode_probe(json_t *pr, kg_result *r) {
  json_t *k = NULL, *rd = NULL;
  const char *digest = NULL;
  if (json_unpack(pr, "{si si so s?s s?o}", "same", &r->launch_same, "launches", &r->nlaunches, "kernels", &k, "digest",
                  &digest, "read", &rd) ||
      r->launch_same < -1 || r->launch_same > 1 || r->nlaunches < 0 || !json_is_array(k) ||
      json_array_size(k) > KG_PROBE_MAX_KERNELS ||
      (digest && (strlen(digest) != 64 || strspn(digest, "0123456789abcdef") != 64)) ||
      (rd && (!json_is_array(rd) || json_array_size(rd) > KG_CODE_MAX_READ)))
    return -1;
  for (size_t i = 0; rd && i < json_array_size(rd); i++) {
    const char *h = json_string_value(json_array_get(rd, i));
    if (!h || strlen(h) != 16 || strspn(h, "0123456789abcdef") != 16) return -1;
    r->read.hash[r->read.n++] = (uint64_t)strtoull(h, NULL, 16);
  }
  snprintf(r->launch_digest, sizeof r->launch_digest, "%s", digest ? digest : "");
  for (size_t i = 0; i < json_array_size(k); i++) {
    const char *h = json_string_value(json_array_get(k, i));
    char *end = NULL;
    if (!h || strlen(h) != 16 || strspn(h, "0123456789abcdef") != 16) return -1;
    r->kernels[i] = (uint64_t)strtoull(h, &end, 16);
  }
  r->nkernels = (int)json_array_size(k), r->probed = 1;
  return 0;
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

int kg_proto_decode_result(const char *line, size_t *index, kg_result *r, int *restart, char *err, size_t errlen) {
  json_t *o = parse(line, err, errlen);
  if (!o) return -1;
  json_int_t idx;
  int rc = -1, restart_flag = 0, set_aside = 0;
  json_error_t e;
  json_t *blocks = NULL, *probe = NULL;
  const char *wrong = NULL;
  char why[200];
  memset(r, 0, sizeof *r);
  int bad = json_unpack_ex(o, &e, 0, "{sI s?b s?o s?i s?o s?s}", "case", &idx, "restart", &restart_flag, "blocks",
                           &blocks, "set_aside", &set_aside, "probe", &probe, "wrong", &wrong);
  if (bad) snprintf(why, sizeof why, "%s", e.text);
  else bad = kg_result_from_json(o, r, KG_FORM_WIRE, why, sizeof why);
  if (bad) {
    snprintf(err, errlen, "bad result line: %s", why);
  } else if (wrong && (strcmp(wrong, "head") && strcmp(wrong, "base"))) {
    snprintf(err, errlen, "bad result line: wrong is neither head nor base");
  } else if (wrong && (r->status != KG_ST_FAIL || r->fail != KG_FK_WRONG_AFTER_TIMING)) {
    snprintf(err, errlen, "bad result line: wrong %s, yet not failed wrong_after_timing", wrong);
  } else if (blocks && decode_blocks(blocks, r)) {
    snprintf(err, errlen, "bad result line: malformed blocks");
  } else if (probe && decode_probe(probe, r)) {
    snprintf(err, errlen, "bad result line: malformed probe");
  } else if (idx < 0) {
    snprintf(err, errlen, "bad result line: negative case index");
  } else {
    *index = (size_t)idx;
    *restart = restart_flag;
    r->pair_set_aside = set_aside;
    r->pair_wrong = !wrong ? KG_SIDE_NONE : !strcmp(wrong, "head") ? KG_SIDE_HEAD : KG_SIDE_BASE;
    rc = 0;
  }
  json_decref(o);
  return rc;
}

char *kg_proto_encode_hello(const kg_device_info *d) {
  return dump(json_pack("{so}", "hello", kg_device_to_json(d, KG_FORM_WIRE)));
}

char *kg_proto_encode_fatal(const char *why) { return dump(json_pack("{ss}", "fatal", why)); }

int kg_proto_decode_hello(const char *line, kg_device_info *d, char *err, size_t errlen) {
  json_t *o = parse(line, err, errlen);
  if (!o) return -1;
  int rc = -1;
  const char *fatal;
  json_t *hello = json_object_get(o, "hello");
  char e[200];
  memset(d, 0, sizeof *d);
  if (json_unpack(o, "{ss}", "fatal", &fatal) == 0) {
    kg_copy_text(err, errlen, fatal);
    rc = 1;
  } else if (!hello) {
    snprintf(err, errlen, "expected a hello line from the worker: Object item not found: hello");
  } else if ((rc = kg_device_from_json(hello, d, KG_FORM_WIRE, e, sizeof e)) != 0) {
    /* -2: a malformed card identity (kg_why_bad_uuid/pci say what a worker sends) */
    snprintf(err, errlen, rc == -2 ? "hello: %s" : "expected a hello line from the worker: %s", e);
    rc = -1;
  }
  json_decref(o);
  return rc;
}
