/* The run model (model.h): status names, counts and labels, and the JSON of
 * its objects, one encoder and decoder each for the wire and the file. */
#include "model.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "fileio.h"
#include "jread.h"
#include "varreg.h"
#include "fields.h"

static const char *const k_status[KG_NSTATUS] = {"pending", "pass", "fail", "unsupported", "error"};

const char *kg_status_name(kg_status s) { return (unsigned)s < KG_NSTATUS ? k_status[s] : "?"; }

static const char *const k_fail_kind[KG_NFAIL_KINDS] = {
    "", "wrong_result", "input_modified", "nondeterministic", "sanitizer", "timeout", "crash", "refused",
    "wrong_after_timing"};

const char *kg_fail_kind_name(kg_fail_kind k) { return (unsigned)k < KG_NFAIL_KINDS ? k_fail_kind[k] : "?"; }

int kg_fail_kind_parse(const char *s, kg_fail_kind *out) {
  for (int k = 1; k < KG_NFAIL_KINDS; k++)
    if (!strcmp(s, k_fail_kind[k])) return *out = (kg_fail_kind)k, 0;
  return -1;
}

static const char *const k_cold[KG_NCOLD] = {"unknown", "verified", "not_verified", "too_large", "hot"};
static const char *const k_recheck[KG_NRECHECK] = {"none", "exact", "bounded", "weak"};

const char *kg_cold_name(kg_cold c) { return (unsigned)c < KG_NCOLD ? k_cold[c] : "?"; }
const char *kg_recheck_name(kg_recheck_kind k) { return (unsigned)k < KG_NRECHECK ? k_recheck[k] : "?"; }

/* The index of s among n names: 0, or -1 when it is none of them. */
static int name_index(const char *const *names, int n, const char *s, int *out) {
  for (int k = 0; s && k < n; k++)
    if (!strcmp(s, names[k])) return *out = k, 0;
  return -1;
}

int kg_cold_parse(const char *s, kg_cold *out) {
  int k;
  if (name_index(k_cold, KG_NCOLD, s, &k)) return -1;
  return *out = (kg_cold)k, 0;
}

int kg_recheck_parse(const char *s, kg_recheck_kind *out) {
  int k;
  if (name_index(k_recheck, KG_NRECHECK, s, &k)) return -1;
  return *out = (kg_recheck_kind)k, 0;
}

int kg_status_parse(const char *s, kg_status *out) {
  for (int i = 0; i < KG_NSTATUS; i++)
    if (s && strcmp(s, k_status[i]) == 0) {
      *out = (kg_status)i;
      return 0;
    }
  return -1;
}

kg_counts kg_count_results(const kg_result *results, size_t n) {
  kg_counts c = {.cases = n};
  for (size_t i = 0; i < n; i++) {
    switch (results[i].status) {
    case KG_ST_PASS: c.passed++; break;
    case KG_ST_FAIL: c.failed++; break;
    case KG_ST_ERROR: c.errored++; break;
    case KG_ST_UNSUPPORTED: c.unsupported++; break;
    default: c.pending++; break;
    }
    c.nondeterministic += results[i].nondeterministic != 0;
    c.carried += results[i].status == KG_ST_PASS && results[i].carried;
  }
  return c;
}

void kg_case_label(const kg_case *c, char *buf, size_t len) {
  snprintf(buf, len, "%s %s n=%zu %s", kg_variants[c->variant].name, kg_dtype_get(c->dtype)->name, c->n,
           kg_pattern_name(c->pattern));
}

/* An item with its position, sorted by the caller's comparison. */
typedef struct keyed {
  const void *e;
  size_t i;
  int (*cmp)(const void *, const void *);
} keyed;

static int keyed_cmp(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  int c = a->cmp(a->e, b->e);
  return c ? c : (a->i > b->i) - (a->i < b->i);
}

int kg_find_duplicate(struct kg_jrd *r, const void *items, size_t n, size_t size,
                      int (*cmp)(const void *, const void *), size_t *first, size_t *again) {
  keyed *k = malloc((n ? n : 1) * sizeof *k);
  if (!k) return kg_jrd_fail(r, "out of memory"), 0;
  for (size_t i = 0; i < n; i++) k[i] = (keyed){(const char *)items + i * size, i, cmp};
  qsort(k, n, sizeof *k, keyed_cmp);
  int found = 0;
  for (size_t j = 1; j < n && !found; j++)
    if (!cmp(k[j - 1].e, k[j].e)) {
      *first = k[j - 1].i;
      *again = k[j].i;
      found = 1;
    }
  free(k);
  return found;
}

/* A cut never splits a UTF-8 sequence (jansson gave valid UTF-8): every
 * JSON encoder, the results file's too, refuses invalid UTF-8. */
void kg_copy_text(char *dst, size_t len, const char *src) {
  if (!len) return;
  src = src ? src : "";
  snprintf(dst, len, "%s", src);
  for (size_t n = strlen(dst); n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80;) dst[--n] = '\0';
}

/* ---- one table of fields per object, read and written in either form ---- */

#define AT(s, m) offsetof(s, m)
#define NFIELDS(t) (sizeof t / sizeof t[0])
static const kg_field k_dev[] = {
    {"cc_major", KG_FT_INT_IN, AT(kg_device_info, cc_major), 0, 99, 0, 0, 0},
    {"cc_minor", KG_FT_INT_IN, AT(kg_device_info, cc_minor), 0, 99, 0, 0, 0},
    {"sms", KG_FT_INT_IN, AT(kg_device_info, sms), 0, 1 << 20, 0, 0, 0},
    {"l2_bytes", KG_FT_LLONG_IN, AT(kg_device_info, l2_bytes), 0, LLONG_MAX, 0, 0, 0},
    {"mem_bytes", KG_FT_LLONG_IN, AT(kg_device_info, mem_bytes), 0, LLONG_MAX, 0, 0, 0},
    {"mem_clock_khz", KG_FT_INT_IN, AT(kg_device_info, mem_clock_khz), 0, INT_MAX, 0, 0, 0},
    {"bus_width_bits", KG_FT_INT_IN, AT(kg_device_info, bus_width_bits), 0, 1 << 20, 0, 0, 0},
    /* null: not measured (kg_json_real writes a non-finite number so). */
    {"peak_gbps", KG_FT_REAL_IN, AT(kg_device_info, peak_gbps), 0, 0, 0, 1e9, NAN},
    {"roofline_gbps", KG_FT_REAL_IN, AT(kg_device_info, roofline_gbps), 0, 0, 0, 1e9, NAN},
    {"driver_version", KG_FT_INT_IN, AT(kg_device_info, driver_version), 0, INT_MAX, 0, 0, 0},
    {"runtime_version", KG_FT_INT_IN, AT(kg_device_info, runtime_version), 0, INT_MAX, 0, 0, 0},
};
/* The order of k_dev's fields in each form (the hello names the versions earlier). */
enum { KG_DEV_FIELDS = 11 };
_Static_assert(NFIELDS(k_dev) == KG_DEV_FIELDS, "k_dev_order lists every field of k_dev");
static const unsigned char k_dev_order[2][KG_DEV_FIELDS] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                                                            {0, 1, 2, 3, 4, 9, 10, 5, 6, 7, 8}};

static const kg_field k_timing[] = {
    {"samples", KG_FT_INT_IN, AT(kg_timing, samples), 1, INT_MAX, 0, 0, 0},
    {"median_us", KG_FT_TIME, AT(kg_timing, median_us), 0, 0, 0, 0, 0},
    {"q1_us", KG_FT_TIME, AT(kg_timing, q1_us), 0, 0, 0, 0, 0},
    {"q3_us", KG_FT_TIME, AT(kg_timing, q3_us), 0, 0, 0, 0, 0},
    {"min_us", KG_FT_TIME, AT(kg_timing, min_us), 0, 0, 0, 0, 0},
    {"noise", KG_FT_REAL_IN, AT(kg_timing, noise), 0, 0, 0, 1e9, INFINITY},
    /* 0 is what the worker writes for "not measured". */
    {"graph_us", KG_FT_REAL_IN, AT(kg_timing, graph_us), 0, 0, 0, KG_MAX_TIME_US, 0},
    {"sm_clock_mhz", KG_FT_REAL_IN, AT(kg_timing, sm_clock_mhz), 0, 0, 0, 1e6, 0},
    {"throttled", KG_FT_FLAG, AT(kg_timing, throttled), 0, 0, 0, 0, 0},
};

/* The result's own fields, in the order both forms write them: after
 * "status" (its name, a special case) and before "timing" and "device".
 * A field a new check adds is one row here (and its member in model.h). */
#define TEXT(s, m) AT(s, m), 0, sizeof((s *)0)->m
static const kg_field k_result[] = {
    {"got", KG_FT_TEXT, TEXT(kg_result, got), 0, 0, 0},
    {"expected", KG_FT_TEXT, TEXT(kg_result, expected), 0, 0, 0},
    /* null: an infinite error or ratio (a bound of 0) */
    {"abs_err", KG_FT_REAL_OR_NULL, AT(kg_result, abs_err), 0, 0, 0, DBL_MAX, INFINITY},
    {"bound", KG_FT_REAL_OR_NULL, AT(kg_result, bound), 0, 0, 0, DBL_MAX, INFINITY},
    {"ratio", KG_FT_REAL_OR_NULL, AT(kg_result, ratio), 0, 0, 0, DBL_MAX, INFINITY},
    {"depth", KG_FT_REAL_IN, AT(kg_result, depth), 0, 0, 0, DBL_MAX, INFINITY},
    {"repeats", KG_FT_INT_IN, AT(kg_result, repeats), 0, 1000000, 0, 0, 0},
    {"nondeterministic", KG_FT_FLAG, AT(kg_result, nondeterministic), 0, 0, 0, 0, 0},
    {"input_modified", KG_FT_FLAG, AT(kg_result, input_modified), 0, 0, 0, 0, 0},
    {"message", KG_FT_TEXT, TEXT(kg_result, message), 0, 0, 0},
    {"input_us", KG_FT_REAL_IN, AT(kg_result, input_us), 0, 0, 0, KG_MAX_TIME_US, 0},
    {"check_us", KG_FT_REAL_IN, AT(kg_result, check_us), 0, 0, 0, KG_MAX_TIME_US, 0},
    {"time_us", KG_FT_REAL_IN, AT(kg_result, time_us), 0, 0, 0, KG_MAX_TIME_US, 0},
    {"carried", KG_FT_FLAG, AT(kg_result, carried), 0, 0, 0, 0, 0},
};
/* The guard's numbers and texts, after its two names ("cold", "recheck"). */
static const kg_field k_guard[] = {
    {"cold_why", KG_FT_TEXT, TEXT(kg_guard, cold_why), 0, 0, 0},
    {"flushed_us", KG_FT_REAL_IN, AT(kg_guard, flushed_us), 0, 0, 0, KG_MAX_TIME_US, 0},
    {"unflushed_us", KG_FT_REAL_IN, AT(kg_guard, unflushed_us), 0, 0, 0, KG_MAX_TIME_US, 0},
    {"recheck_why", KG_FT_TEXT, TEXT(kg_guard, recheck_why), 0, 0, 0},
    {"rechecked", KG_FT_INT_IN, AT(kg_guard, rechecked), 0, INT_MAX, 0, 0, 0},
    {"allocs", KG_FT_INT_IN, AT(kg_guard, allocs), 0, INT_MAX, 0, 0, 0},
    {"alloc_bytes", KG_FT_LLONG_IN, AT(kg_guard, alloc_bytes), 0, LLONG_MAX, 0, 0, 0},
    {"streams", KG_FT_INT_IN, AT(kg_guard, streams), 0, INT_MAX, 0, 0, 0},
};

/* The rows every result has had; a row added after them is optional when
 * read in either form (absent: 0), as results files and lines written
 * before its check lack it. Both forms always write every row. */
#define RESULT_ALWAYS 10
_Static_assert(RESULT_ALWAYS <= NFIELDS(k_result), "the rows every result has are rows of k_result");

#define FIELD(obj, f, T) ((T *)((char *)(obj) + (f)->off))
#define CFIELD(obj, f, T) (*(const T *)((const char *)(obj) + (f)->off))

int kg_fields_to_json(json_t *o, const void *obj, const kg_field *tab, const unsigned char *order, size_t n,
                      kg_form form) {
  for (size_t k = 0; k < n; k++) {
    const kg_field *f = &tab[order ? order[k] : k];
    json_t *v;
    switch (f->type) {
    case KG_FT_INT_IN:
    case KG_FT_INT: v = json_integer(CFIELD(obj, f, int)); break;
    case KG_FT_LLONG_IN: v = json_integer((json_int_t)CFIELD(obj, f, long long)); break;
    case KG_FT_FLAG: v = json_boolean(CFIELD(obj, f, int)); break;
    case KG_FT_TEXT: v = json_string((const char *)obj + f->off); break;
    case KG_FT_REAL_OR_NULL: v = kg_json_real(CFIELD(obj, f, double)); break;
    default: /* JSON has no Inf or NaN: the file writes null, the wire cannot */
      v = form == KG_FORM_FILE ? kg_json_real(CFIELD(obj, f, double)) : json_real(CFIELD(obj, f, double));
    }
    if (json_object_set_new(o, f->key, v)) return -1;
  }
  return 0;
}

/* jansson's name of a value's type, for the wire's messages. */
static const char *type_name(const json_t *v) {
  static const char *const names[] = {"object", "array", "string", "integer", "real", "true", "false", "null"};
  return names[json_typeof(v)];
}

/* The wire: types only, the first problem worded as json_unpack words it. */
static int get_wire(json_t *o, void *obj, const kg_field *tab, const unsigned char *order, size_t n, char *err,
                    size_t errlen) {
  for (size_t k = 0; k < n; k++) {
    const kg_field *f = &tab[order ? order[k] : k];
    json_t *v = json_object_get(o, f->key);
    if (f->type == KG_FT_REAL_OR_NULL) { /* anything but a number (null, or left out) is the non-finite value */
      *FIELD(obj, f, double) = json_is_number(v) ? json_number_value(v) : f->null_value;
      continue;
    }
    int flag = f->type == KG_FT_FLAG, text = f->type == KG_FT_TEXT,
        integer = f->type == KG_FT_INT_IN || f->type == KG_FT_INT || f->type == KG_FT_LLONG_IN;
    const char *want = flag ? "true or false" : text ? "string" : integer ? "integer" : "real or integer";
    int ok = flag ? json_is_boolean(v) : text ? json_is_string(v) : integer ? json_is_integer(v) : json_is_number(v);
    if (!v) return snprintf(err, errlen, "Object item not found: %s", f->key), -1;
    if (!ok) return snprintf(err, errlen, "Expected %s, got %s", want, type_name(v)), -1;
    switch (f->type) {
    case KG_FT_INT_IN:
    case KG_FT_INT: *FIELD(obj, f, int) = (int)json_integer_value(v); break;
    case KG_FT_LLONG_IN: *FIELD(obj, f, long long) = json_integer_value(v); break;
    case KG_FT_FLAG: *FIELD(obj, f, int) = json_is_true(v); break;
    case KG_FT_TEXT: kg_copy_text((char *)obj + f->off, (size_t)f->hi, json_string_value(v)); break;
    default: *FIELD(obj, f, double) = json_number_value(v);
    }
  }
  return 0;
}

void kg_fields_from_json(kg_jrd *r, json_t *o, void *obj, const kg_field *tab, const unsigned char *order, size_t n) {
  for (size_t k = 0; k < n; k++) {
    const kg_field *f = &tab[order ? order[k] : k];
    switch (f->type) {
    case KG_FT_INT: *FIELD(obj, f, int) = (int)kg_jrd_int(r, o, f->key); break;
    case KG_FT_NUM: *FIELD(obj, f, double) = kg_jrd_num(r, o, f->key); break;
    case KG_FT_INT_IN: *FIELD(obj, f, int) = (int)kg_jrd_range(r, o, f->key, f->lo, f->hi); break;
    case KG_FT_LLONG_IN: *FIELD(obj, f, long long) = kg_jrd_range(r, o, f->key, f->lo, f->hi); break;
    case KG_FT_FLAG: *FIELD(obj, f, int) = kg_jrd_bool(r, o, f->key); break;
    case KG_FT_TIME: *FIELD(obj, f, double) = kg_jrd_time(r, o, f->key); break;
    case KG_FT_TEXT: kg_jrd_text(r, o, f->key, (char *)obj + f->off, (size_t)f->hi, NULL); break;
    default: *FIELD(obj, f, double) = kg_jrd_real(r, o, f->key, f->rlo, f->rhi, f->null_value);
    }
  }
}

json_t *kg_device_to_json(const kg_device_info *d, kg_form form) {
  json_t *o = json_object();
  if (!o || json_object_set_new(o, "name", json_string(d->name)) ||
      kg_fields_to_json(o, d, k_dev, k_dev_order[form], KG_DEV_FIELDS, form) ||
      (form == KG_FORM_WIRE && d->count && json_object_set_new(o, "count", json_integer(d->count))) ||
      (d->uuid[0] && json_object_set_new(o, "uuid", json_string(d->uuid))) ||
      (d->pci[0] && json_object_set_new(o, "pci", json_string(d->pci))) ||
      (form == KG_FORM_WIRE && kg_toolchain_known(&d->toolchain) &&
       json_object_set_new(o, "toolchain", kg_toolchain_to_json(&d->toolchain)))) {
    json_decref(o);
    return NULL;
  }
  return o;
}

/* The string under key on the wire, or NULL with the problem in err. */
static const char *wire_str(json_t *o, const char *key, char *err, size_t errlen) {
  json_t *v = json_object_get(o, key);
  if (!v) snprintf(err, errlen, "Object item not found: %s", key);
  else if (!json_is_string(v)) snprintf(err, errlen, "Expected string, got %s", type_name(v));
  return json_string_value(v);
}

/* The wire's device: a worker's own facts, so types only; the card's
 * identity, when sent, must be well formed (kg_why_bad_uuid/pci). */
static int device_from_wire(json_t *o, kg_device_info *d, char *err, size_t errlen) {
  if (!json_is_object(o)) return snprintf(err, errlen, "Expected object, got %s", type_name(o)), -1;
  const char *name = wire_str(o, "name", err, errlen);
  if (!name || get_wire(o, d, k_dev, k_dev_order[KG_FORM_WIRE], KG_DEV_FIELDS, err, errlen)) return -1;
  kg_copy_text(d->name, sizeof d->name, name);
  json_t *count = json_object_get(o, "count");
  d->count = json_is_integer(count) ? (int)json_integer_value(count) : 0;
  const char *uuid = json_string_value(json_object_get(o, "uuid"));
  const char *pci = json_string_value(json_object_get(o, "pci"));
  if (uuid && kg_why_bad_uuid(uuid)) return snprintf(err, errlen, "uuid: %s", kg_why_bad_uuid(uuid)), -2;
  if (pci && kg_why_bad_pci(pci)) return snprintf(err, errlen, "pci: %s", kg_why_bad_pci(pci)), -2;
  kg_copy_text(d->uuid, sizeof d->uuid, uuid);
  kg_copy_text(d->pci, sizeof d->pci, pci);
  json_t *tc = json_object_get(o, "toolchain"); /* optional: a worker before it, or nothing known */
  kg_jrd r = {.where = "toolchain", .err = err, .errlen = errlen};
  if (tc) kg_toolchain_read(&r, tc, &d->toolchain);
  return r.failed ? -2 : 0;
}

int kg_device_from_json(json_t *o, kg_device_info *d, kg_form form, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  if (form == KG_FORM_WIRE) return device_from_wire(o, d, err, errlen);
  kg_jrd r = {.err = err, .errlen = errlen};
  /* The name becomes a file name (the baseline's slug) and a title. */
  kg_jrd_text(&r, o, "name", d->name, sizeof d->name, kg_why_bad_gpu_name);
  kg_fields_from_json(&r, o, d, k_dev, k_dev_order[KG_FORM_FILE], KG_DEV_FIELDS);
  /* optional: files written before kgate recorded the card have neither */
  if (json_object_get(o, "uuid")) kg_jrd_text(&r, o, "uuid", d->uuid, sizeof d->uuid, kg_why_bad_uuid);
  if (json_object_get(o, "pci")) kg_jrd_text(&r, o, "pci", d->pci, sizeof d->pci, kg_why_bad_pci);
  return r.failed ? -1 : 0;
}

json_t *kg_timing_to_json(const kg_timing *t, kg_form form) {
  json_t *o = json_object();
  if (!o || kg_fields_to_json(o, t, k_timing, NULL, NFIELDS(k_timing), form) ||
      (form == KG_FORM_WIRE && t->set_aside && json_object_set_new(o, "set_aside", json_integer(t->set_aside)))) {
    json_decref(o);
    return NULL;
  }
  return o;
}

int kg_timing_from_json(json_t *o, kg_timing *t, kg_form form, char *err, size_t errlen) {
  if (form == KG_FORM_WIRE) {
    if (!json_is_object(o)) return snprintf(err, errlen, "Expected object, got %s", type_name(o)), -1;
    if (get_wire(o, t, k_timing, NULL, NFIELDS(k_timing), err, errlen)) return -1;
    json_t *aside = json_object_get(o, "set_aside");
    t->set_aside = json_is_integer(aside) ? (int)json_integer_value(aside) : 0;
    return 0;
  }
  kg_jrd r = {.err = err, .errlen = errlen};
  kg_fields_from_json(&r, o, t, k_timing, NULL, NFIELDS(k_timing));
  char why[200];
  if (!r.failed && kg_timing_check(t, 1, why, sizeof why)) kg_jrd_fail(&r, "%s", why);
  return r.failed ? -1 : 0;
}

json_t *kg_result_to_json(const kg_result *r, kg_form form) {
  json_t *o = json_object();
  int bad = !o || json_object_set_new(o, "status", json_string(kg_status_name(r->status))) ||
            kg_fields_to_json(o, r, k_result, NULL, NFIELDS(k_result), form) ||
            (r->fail != KG_FK_NONE && json_object_set_new(o, "fail", json_string(kg_fail_kind_name(r->fail)))) ||
            (r->guard.on && json_object_set_new(o, "guard", kg_guard_to_json(&r->guard, form)));
  if (!bad && form == KG_FORM_FILE) /* every case has both; "timing" is null when not timed */
    bad = json_object_set_new(o, "timing", r->timing.samples ? kg_timing_to_json(&r->timing, form) : json_null()) ||
          json_object_set_new(o, "device", json_integer(r->device));
  else if (!bad) {
    bad = r->device && json_object_set_new(o, "device", json_integer(r->device));
    /* A timing the wire cannot carry (a non-finite number) is left out, as
     * the line always did: the case then reads as not timed. */
    if (!bad && r->timing.samples) json_object_set_new(o, "timing", kg_timing_to_json(&r->timing, form));
  }
  if (bad) json_decref(o);
  return bad ? NULL : o;
}

/* The guard, its messages naming "<where>.guard". */
static void read_guard(kg_jrd *r, json_t *o, kg_result *res) {
  json_t *g = kg_jrd_obj(r, o, "guard", 0);
  if (!g) return;
  size_t len = strlen(r->where);
  snprintf(r->where + len, sizeof r->where - len, "%s", len ? ".guard" : "guard");
  kg_guard_read(r, g, &res->guard);
  if (!r->failed) r->where[len] = '\0';
}

/* A failure's kind: a name kgate knows, on a case that failed or errored. */
static void read_fail(kg_jrd *r, json_t *o, kg_result *res) {
  const char *fail = kg_jrd_str(r, o, "fail");
  char shown[72];
  if (r->failed) return;
  if (kg_fail_kind_parse(fail, &res->fail))
    kg_jrd_fail(r, "unknown fail '%s'", kg_esc_term(fail, shown, sizeof shown));
  else if (res->status != KG_ST_FAIL && res->status != KG_ST_ERROR)
    kg_jrd_fail(r, "fail '%s' on a case with status %s: only a failed or errored case has a kind", fail,
                kg_status_name(res->status));
}

json_t *kg_guard_to_json(const kg_guard *g, kg_form form) {
  json_t *o = json_object();
  if (!o || json_object_set_new(o, "cold", json_string(kg_cold_name(g->cold))) ||
      json_object_set_new(o, "recheck", json_string(kg_recheck_name(g->recheck))) ||
      kg_fields_to_json(o, g, k_guard, NULL, NFIELDS(k_guard), form)) {
    json_decref(o);
    return NULL;
  }
  return o;
}

void kg_guard_read(kg_jrd *r, json_t *o, kg_guard *g) {
  memset(g, 0, sizeof *g);
  const char *cold = kg_jrd_str(r, o, "cold"), *recheck = kg_jrd_str(r, o, "recheck");
  char shown[72];
  if (r->failed) return;
  if (kg_cold_parse(cold, &g->cold)) return kg_jrd_fail(r, "unknown cold '%s'", kg_esc_term(cold, shown, sizeof shown));
  if (kg_recheck_parse(recheck, &g->recheck))
    return kg_jrd_fail(r, "unknown recheck '%s'", kg_esc_term(recheck, shown, sizeof shown));
  kg_fields_from_json(r, o, g, k_guard, NULL, NFIELDS(k_guard));
  if (r->failed) return;
  int cold_why = g->cold == KG_COLD_NOT_VERIFIED;
  int recheck_why = g->recheck == KG_RECHECK_NONE || g->recheck == KG_RECHECK_WEAK;
  if (cold_why != (g->cold_why[0] != '\0'))
    return kg_jrd_fail(r, "cold '%s' %s", cold, cold_why ? "needs a cold_why" : "takes no cold_why");
  if (recheck_why != (g->recheck_why[0] != '\0'))
    return kg_jrd_fail(r, "recheck '%s' %s", recheck, recheck_why ? "needs a recheck_why" : "takes no recheck_why");
  if (g->recheck == KG_RECHECK_NONE && g->rechecked)
    return kg_jrd_fail(r, "recheck 'none' yet %d samples rechecked", g->rechecked);
  g->on = 1;
}

/* The wire's guard: a worker's own, so types and names only. */
static int guard_from_wire(json_t *o, kg_guard *g, char *err, size_t errlen) {
  if (!json_is_object(o)) return snprintf(err, errlen, "Expected object, got %s", type_name(o)), -1;
  const char *cold = wire_str(o, "cold", err, errlen), *recheck = cold ? wire_str(o, "recheck", err, errlen) : NULL;
  if (!recheck || get_wire(o, g, k_guard, NULL, NFIELDS(k_guard), err, errlen)) return -1;
  if (kg_cold_parse(cold, &g->cold) || kg_recheck_parse(recheck, &g->recheck))
    return snprintf(err, errlen, "guard: unknown cold or recheck"), -1;
  g->on = 1;
  return 0;
}

void kg_result_read(kg_jrd *r, json_t *o, kg_result *res, const char *label) {
  memset(res, 0, sizeof *res);
  const char *status = kg_jrd_str(r, o, "status");
  char shown[72];
  if (!r->failed && kg_status_parse(status, &res->status))
    kg_jrd_fail(r, "unknown status '%s'", kg_esc_term(status, shown, sizeof shown));
  if (r->failed) return;
  size_t len = strlen(r->where);
  snprintf(r->where + len, sizeof r->where - len, "%s", label);
  kg_fields_from_json(r, o, res, k_result, NULL, RESULT_ALWAYS);
  for (size_t k = RESULT_ALWAYS; k < NFIELDS(k_result); k++)
    if (json_object_get(o, k_result[k].key)) kg_fields_from_json(r, o, res, &k_result[k], NULL, 1);
  if (json_object_get(o, "fail")) read_fail(r, o, res); /* optional: files before it, and every passed case */
  json_t *guard = json_object_get(o, "guard"); /* optional: files before it, and cases not timed */
  if (guard && !r->failed) read_guard(r, o, res);
  json_t *t = kg_jrd_obj(r, o, "timing", 1);
  json_t *device = json_object_get(o, "device"); /* optional: files before --devices lack it */
  res->device = device ? (int)kg_jrd_range(r, o, "device", 0, 4095) : 0;
  if (!t || r->failed) return;
  len = strlen(r->where);
  snprintf(r->where + len, sizeof r->where - len, "%s", len ? ".timing" : "timing");
  char e[300];
  if (kg_timing_from_json(t, &res->timing, KG_FORM_FILE, e, sizeof e)) kg_jrd_fail(r, "%s", e);
  r->where[len] = '\0';
}

/* The wire's result: a worker's own answer, so types only. */
static int result_from_wire(json_t *o, kg_result *r, char *err, size_t errlen) {
  if (!json_is_object(o)) return snprintf(err, errlen, "Expected object, got %s", type_name(o)), -1;
  const char *status = wire_str(o, "status", err, errlen);
  json_t *device = json_object_get(o, "device"), *t = json_object_get(o, "timing"); /* both optional */
  if (!status || get_wire(o, r, k_result, NULL, RESULT_ALWAYS, err, errlen)) return -1;
  for (size_t k = RESULT_ALWAYS; k < NFIELDS(k_result); k++)
    if (json_object_get(o, k_result[k].key) && get_wire(o, r, &k_result[k], NULL, 1, err, errlen)) return -1;
  if (device && !json_is_integer(device))
    return snprintf(err, errlen, "Expected integer, got %s", type_name(device)), -1;
  json_t *fail = json_object_get(o, "fail"); /* optional: a case that passed has none */
  if (fail && (!json_is_string(fail) || kg_fail_kind_parse(json_string_value(fail), &r->fail)))
    return snprintf(err, errlen, "unknown failure kind"), -1;
  json_t *guard = json_object_get(o, "guard"); /* optional: a case not timed */
  if (guard && guard_from_wire(guard, &r->guard, err, errlen)) return -1;
  r->device = (int)json_integer_value(device);
  if (t && kg_timing_from_json(t, &r->timing, KG_FORM_WIRE, err, errlen)) return -1;
  char shown[72];
  if (kg_status_parse(status, &r->status))
    return snprintf(err, errlen, "unknown status '%s'", kg_esc_term(status, shown, sizeof shown)), -1;
  return 0;
}

int kg_result_from_json(json_t *o, kg_result *r, kg_form form, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  if (form == KG_FORM_WIRE) return result_from_wire(o, r, err, errlen);
  kg_jrd rd = {.err = err, .errlen = errlen};
  kg_result_read(&rd, o, r, "");
  return rd.failed ? -1 : 0;
}

/* ---- provenance: where the run was made ---------------------------------- */

#define PV(m) offsetof(kg_provenance, m)
static const kg_field k_provenance[] = {
    {"run_id", KG_FT_LLONG_IN, PV(run_id), 1, LLONG_MAX, 0, 0, 0},
    {"run_attempt", KG_FT_INT_IN, PV(run_attempt), 1, INT_MAX, 0, 0, 0},
    {"runner", KG_FT_TEXT, PV(runner), 0, sizeof((kg_provenance *)0)->runner, 0, 0, 0},
    {"repository", KG_FT_TEXT, PV(repository), 0, sizeof((kg_provenance *)0)->repository, 0, 0, 0},
    {"sha", KG_FT_TEXT, PV(sha), 0, sizeof((kg_provenance *)0)->sha, 0, 0, 0},
};

static const char *why_bad_repository(const char *s) {
  const char *slash = strchr(s, '/');
  int ok = slash && slash > s && slash[1] && !strchr(slash + 1, '/');
  for (const char *c = s; ok && *c; c++)
    ok = *c == '/' || *c == '-' || *c == '_' || *c == '.' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
         (*c >= 'A' && *c <= 'Z');
  return ok ? NULL : "not owner/name (letters, digits, - _ .)";
}

static const char *why_bad_sha(const char *s) {
  size_t n = strspn(s, "0123456789abcdef");
  return s[n] == '\0' && (n == 40 || n == 64) ? NULL : "not a commit (40 or 64 lowercase hex digits)";
}

static const char *why_bad_runner(const char *s) {
  return *s ? kg_why_bad_module_text(s, sizeof((kg_provenance *)0)->runner - 1) : "empty";
}

/* The checks of the text rows, in k_provenance's order from "runner". */
static const char *(*const k_provenance_why[])(const char *) = {why_bad_runner, why_bad_repository, why_bad_sha};

/* Whether row k of k_provenance is known in p. */
static int provenance_has(const kg_provenance *p, size_t k) {
  const kg_field *f = &k_provenance[k];
  if (f->type == KG_FT_LLONG_IN) return CFIELD(p, f, long long) != 0;
  if (f->type == KG_FT_INT_IN) return CFIELD(p, f, int) != 0;
  return ((const char *)p + f->off)[0] != '\0';
}

void kg_provenance_from_env(kg_provenance *p) {
  memset(p, 0, sizeof *p);
  const char *id = getenv("GITHUB_RUN_ID"), *attempt = getenv("GITHUB_RUN_ATTEMPT");
  char *end;
  long long v = id && *id ? strtoll(id, &end, 10) : 0;
  if (v > 0 && !*end) p->run_id = v;
  v = attempt && *attempt ? strtoll(attempt, &end, 10) : 0;
  if (v > 0 && v <= INT_MAX && !*end) p->run_attempt = (int)v;
  static const char *const vars[] = {"RUNNER_NAME", "GITHUB_REPOSITORY", "GITHUB_SHA"};
  for (size_t k = 0; k < 3; k++) {
    const kg_field *f = &k_provenance[2 + k];
    const char *s = getenv(vars[k]);
    if (s && strlen(s) < (size_t)f->hi && !k_provenance_why[k](s)) snprintf((char *)p + f->off, (size_t)f->hi, "%s", s);
  }
}

int kg_provenance_known(const kg_provenance *p) {
  for (size_t k = 0; k < NFIELDS(k_provenance); k++)
    if (provenance_has(p, k)) return 1;
  return 0;
}

json_t *kg_provenance_to_json(const kg_provenance *p) {
  json_t *o = json_object();
  for (size_t k = 0; o && k < NFIELDS(k_provenance); k++)
    if (provenance_has(p, k) && kg_fields_to_json(o, p, &k_provenance[k], NULL, 1, KG_FORM_FILE))
      json_decref(o), o = NULL;
  return o;
}

void kg_provenance_read(kg_jrd *r, json_t *o, kg_provenance *p) {
  memset(p, 0, sizeof *p);
  if (!json_is_object(o)) {
    kg_jrd_fail(r, "provenance is not an object");
    return;
  }
  const char *key;
  json_t *v;
  json_object_foreach(o, key, v) { /* closed, as the schema */
    size_t k = 0;
    while (k < NFIELDS(k_provenance) && strcmp(k_provenance[k].key, key)) k++;
    if (k == NFIELDS(k_provenance) && !r->failed) kg_jrd_fail(r, "provenance: unknown field '%s'", key);
  }
  for (size_t k = 0; k < NFIELDS(k_provenance) && !r->failed; k++) {
    const kg_field *f = &k_provenance[k];
    if (!json_object_get(o, f->key)) continue; /* each is optional: set only where the CI said */
    if (f->type == KG_FT_TEXT) kg_jrd_text(r, o, f->key, (char *)p + f->off, (size_t)f->hi, k_provenance_why[k - 2]);
    else kg_fields_from_json(r, o, p, f, NULL, 1);
  }
}

int kg_timing_check(const kg_timing *t, int has_min, char *why, size_t len) {
  const struct {
    const char *name;
    double v;
  } f[] = {{"min_us", t->min_us}, {"q1_us", t->q1_us}, {"median_us", t->median_us}, {"q3_us", t->q3_us}};
  if (t->samples < 1) {
    snprintf(why, len, "samples is %d: a timing has at least 1", t->samples);
    return -1;
  }
  for (size_t k = has_min ? 0 : 1; k < 4; k++) {
    const char *bad = kg_why_bad_time(f[k].v);
    if (bad) {
      snprintf(why, len, "%s is %g: %s", f[k].name, f[k].v, bad);
      return -1;
    }
  }
  for (size_t k = has_min ? 1 : 2; k < 4; k++)
    if (f[k - 1].v > f[k].v) {
      snprintf(why, len, "%s %g is above %s %g: not in order min <= q1 <= median <= q3", f[k - 1].name, f[k - 1].v,
               f[k].name, f[k].v);
      return -1;
    }
  return 0;
}

/* ---- the toolchain: what built the code under test, and the machine ------ */

/* "580.65.06", "13.0.88": 1 to 4 numbers of 1 to 9 digits, dot-separated. */
static int version_ok(const char *s, size_t n) {
  size_t parts = 0, digits = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] >= '0' && s[i] <= '9') {
      if (++digits > 9) return 0;
    } else if (s[i] == '.' && digits) {
      digits = 0, parts++;
    } else {
      return 0;
    }
  }
  return digits > 0 && parts < 4;
}

/* nvcc, cccl, driver: versions, digits and dots ("13.0.88"), several joined
 * with '+'. */
static const char *why_bad_version(const char *s) {
  const char *why = "not a version (digits and dots, several joined with '+')";
  if (strlen(s) >= sizeof((kg_toolchain *)0)->nvcc) return why;
  for (const char *p = s; *p;) { /* each '+'-joined part a version */
    size_t n = strcspn(p, "+");
    if (!version_ok(p, n)) return why;
    p += n;
    if (*p && !*++p) return why; /* a trailing '+' */
  }
  return NULL;
}

const char *kg_why_bad_toolchain_flags(const char *s) {
  size_t n = strspn(s, "0123456789abcdef");
  return !*s || (s[n] == '\0' && n >= 8 && n <= 64) ? NULL : "not a digest (8 to 64 lowercase hex digits)";
}

/* Printable ASCII without leading or trailing space, at most 127 bytes. */
static const char *why_bad_image(const char *s) {
  size_t n = strlen(s);
  if (!n) return NULL;
  if (n >= sizeof((kg_toolchain *)0)->image) return "longer than 127 bytes";
  for (size_t i = 0; i < n; i++)
    if (s[i] < 0x20 || s[i] > 0x7e) return "not printable ASCII";
  return s[0] == ' ' || s[n - 1] == ' ' ? "starts or ends with a space" : NULL;
}

#define TC(m) offsetof(kg_toolchain, m), sizeof((kg_toolchain *)0)->m
static const struct {
  const char *key;
  size_t off, size;
  const char *(*why)(const char *);
} k_toolchain[] = {
    {"nvcc", TC(nvcc), why_bad_version},   {"cccl", TC(cccl), why_bad_version},
    {"flags", TC(flags), kg_why_bad_toolchain_flags}, {"driver", TC(driver), why_bad_version},
    {"image", TC(image), why_bad_image},
};
#define TC_FIELD(t, k) ((const char *)(t) + k_toolchain[k].off)

int kg_toolchain_check(const kg_toolchain *t, char *why, size_t len) {
  for (size_t k = 0; k < NFIELDS(k_toolchain); k++) {
    const char *s = TC_FIELD(t, k);
    int ended = memchr(s, '\0', k_toolchain[k].size) != NULL;
    const char *bad = ended ? k_toolchain[k].why(s) : "not a string";
    char shown[56];
    if (bad)
      return snprintf(why, len, "toolchain.%s is '%s': %s", k_toolchain[k].key,
                      ended ? kg_esc_term(s, shown, sizeof shown) : "", bad),
             -1;
  }
  return 0;
}

int kg_toolchain_known(const kg_toolchain *t) {
  for (size_t k = 0; k < NFIELDS(k_toolchain); k++)
    if (TC_FIELD(t, k)[0]) return 1;
  return 0;
}

json_t *kg_toolchain_to_json(const kg_toolchain *t) {
  json_t *o = json_object();
  for (size_t k = 0; o && k < NFIELDS(k_toolchain); k++)
    if (TC_FIELD(t, k)[0] && json_object_set_new(o, k_toolchain[k].key, json_string(TC_FIELD(t, k))))
      json_decref(o), o = NULL;
  return o;
}

void kg_toolchain_read(kg_jrd *r, json_t *o, kg_toolchain *t) {
  memset(t, 0, sizeof *t);
  if (!json_is_object(o)) kg_jrd_fail(r, "not an object");
  const char *key;
  json_t *v;
  json_object_foreach(o, key, v) { /* closed, as the schema */
    size_t k = 0;
    while (k < NFIELDS(k_toolchain) && strcmp(k_toolchain[k].key, key)) k++;
    if (k == NFIELDS(k_toolchain) && !r->failed) kg_jrd_fail(r, "unknown field '%s'", key);
  }
  for (size_t k = 0; k < NFIELDS(k_toolchain) && !r->failed; k++)
    if (json_object_get(o, k_toolchain[k].key)) /* each optional: absent is unknown */
      kg_jrd_text(r, o, k_toolchain[k].key, (char *)t + k_toolchain[k].off, k_toolchain[k].size, k_toolchain[k].why);
}

/* The kernel driver's version: the first word of the file's first line made
 * of digits and dots ("NVRM version: NVIDIA UNIX x86_64 Kernel Module
 * 580.65.06  Sun Jul 27 ..."). */
static void driver_version(const char *path, char *out, size_t len) {
  FILE *f = fopen(path, "re");
  char line[512];
  out[0] = '\0';
  if (!f) return;
  if (fgets(line, sizeof line, f))
    for (char *save = NULL, *w = strtok_r(line, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
      if (strchr(w, '.') && strlen(w) < len && !why_bad_version(w) && !strchr(w, '+')) {
        snprintf(out, len, "%s", w);
        break;
      }
  fclose(f);
}

void kg_toolchain_machine(kg_toolchain *t, const char *driver_file) {
  const char *os = getenv("ImageOS"), *ver = getenv("ImageVersion"), *own = getenv("KGATE_RUNNER_IMAGE");
  char image[512] = "";
  if (os && *os && ver && *ver) snprintf(image, sizeof image, "%s/%s", os, ver);
  if (!image[0] || why_bad_image(image)) snprintf(image, sizeof image, "%s", own ? own : "");
  if (why_bad_image(image)) image[0] = '\0';
  snprintf(t->image, sizeof t->image, "%.127s", image);
  driver_version(driver_file ? driver_file : "/proc/driver/nvidia/version", t->driver, sizeof t->driver);
}
