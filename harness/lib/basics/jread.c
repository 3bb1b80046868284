/* The JSON reader (jread.h). */
#include "jread.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"

void kg_jrd_fail(kg_jrd *r, const char *fmt, ...) {
  if (r->failed++) return; /* keep the first problem: later ones often follow from it */
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* Escaped here, whole: a value from the file quoted by any message, the file's name and where it
   * is (names from the file) never put a raw control or bidi character into a terminal or a CI log. */
  char raw[sizeof msg + 600];
  snprintf(raw, sizeof raw, "%s%s%s%s%s", r->file ? r->file : "", r->file ? ": " : "", r->where,
           r->where[0] ? ": " : "", msg);
  kg_esc_term(raw, r->err, r->errlen);
}

/* The value under key, or NULL after recording why (missing, or not of the
 * wanted kind; test says which kinds are accepted). */
static json_t *get(kg_jrd *r, json_t *o, const char *key, int (*test)(const json_t *), const char *kind) {
  if (r->failed) return NULL;
  json_t *v = json_object_get(o, key);
  if (!v) kg_jrd_fail(r, "missing field '%s'", key);
  else if (!test(v)) kg_jrd_fail(r, "field '%s' should be %s", key, kind);
  return r->failed ? NULL : v;
}

static int is_str(const json_t *v) { return json_is_string(v); }
static int is_int(const json_t *v) { return json_is_integer(v); }
static int is_num(const json_t *v) { return json_is_number(v) || json_is_null(v); }
static int is_bool(const json_t *v) { return json_is_boolean(v); }
static int is_obj(const json_t *v) { return json_is_object(v); }
static int is_obj_or_null(const json_t *v) { return json_is_object(v) || json_is_null(v); }
static int is_arr(const json_t *v) { return json_is_array(v); }

const char *kg_jrd_str(kg_jrd *r, json_t *o, const char *key) {
  json_t *v = get(r, o, key, is_str, "a string");
  return v ? json_string_value(v) : "";
}

long long kg_jrd_int(kg_jrd *r, json_t *o, const char *key) {
  json_t *v = get(r, o, key, is_int, "an integer");
  return v ? (long long)json_integer_value(v) : 0;
}

double kg_jrd_num(kg_jrd *r, json_t *o, const char *key) {
  json_t *v = get(r, o, key, is_num, "a number or null");
  return !v ? 0 : json_is_null(v) ? INFINITY : json_number_value(v);
}

int kg_jrd_bool(kg_jrd *r, json_t *o, const char *key) {
  json_t *v = get(r, o, key, is_bool, "true or false");
  return v && json_is_true(v);
}

json_t *kg_jrd_obj(kg_jrd *r, json_t *o, const char *key, int nullable) {
  json_t *v = get(r, o, key, nullable ? is_obj_or_null : is_obj, nullable ? "an object or null" : "an object");
  return json_is_object(v) ? v : NULL;
}

json_t *kg_jrd_arr(kg_jrd *r, json_t *o, const char *key) { return get(r, o, key, is_arr, "an array"); }

const char *kg_why_bad_time(double v) {
  if (!isfinite(v)) return "not a finite time";
  if (!(v > 0)) return "a time must be above 0";
  if (v > KG_MAX_TIME_US) return "more than a day (no sample outlives --timeout)";
  return NULL;
}

/* o[key] or NULL after saying it is missing. */
static json_t *field(kg_jrd *r, json_t *o, const char *key) {
  if (r->failed) return NULL;
  json_t *v = json_object_get(o, key);
  if (!v) kg_jrd_fail(r, "missing field '%s'", key);
  return v;
}

double kg_jrd_time(kg_jrd *r, json_t *o, const char *key) {
  json_t *v = field(r, o, key);
  if (!v) return 0;
  if (json_is_null(v)) {
    kg_jrd_fail(r, "%s is null: not a finite time", key);
    return 0;
  }
  if (!json_is_number(v)) {
    kg_jrd_fail(r, "field '%s' should be a number", key);
    return 0;
  }
  double t = json_number_value(v);
  const char *why = kg_why_bad_time(t);
  if (why) kg_jrd_fail(r, "%s is %g: %s", key, t, why);
  return why ? 0 : t;
}

double kg_jrd_real(kg_jrd *r, json_t *o, const char *key, double lo, double hi, double null_value) {
  json_t *v = field(r, o, key);
  if (!v) return 0;
  if (json_is_null(v)) return null_value;
  if (!json_is_number(v)) {
    kg_jrd_fail(r, "field '%s' should be a number or null", key);
    return 0;
  }
  double x = json_number_value(v);
  if (!(x >= lo && x <= hi)) {
    kg_jrd_fail(r, "%s is %g: outside [%g, %g]", key, x, lo, hi);
    return 0;
  }
  return x;
}

long long kg_jrd_range(kg_jrd *r, json_t *o, const char *key, long long lo, long long hi) {
  json_t *v = field(r, o, key);
  if (!v) return 0;
  if (!json_is_integer(v)) {
    kg_jrd_fail(r, "field '%s' should be an integer", key);
    return 0;
  }
  long long x = (long long)json_integer_value(v);
  if (x < lo || x > hi) {
    kg_jrd_fail(r, "%s is %lld: outside [%lld, %lld]", key, x, lo, hi);
    return 0;
  }
  return x;
}

void kg_jrd_text(kg_jrd *r, json_t *o, const char *key, char *buf, size_t size, const char *(*why_bad)(const char *)) {
  buf[0] = '\0';
  json_t *v = field(r, o, key);
  if (!v) return;
  if (!json_is_string(v)) {
    kg_jrd_fail(r, "field '%s' should be a string", key);
    return;
  }
  const char *s = json_string_value(v);
  char shown[56];
  size_t n = json_string_length(v);
  if (n >= size || strlen(s) != n) {
    kg_jrd_fail(r, "%s is %zu bytes long: at most %zu", key, n, size - 1);
    return;
  }
  const char *why = why_bad ? why_bad(s) : NULL;
  if (why) kg_jrd_fail(r, "%s is '%s': %s", key, kg_esc_term(s, shown, sizeof shown), why);
  else memcpy(buf, s, n + 1);
}

void kg_jrd_kind(kg_jrd *r, json_t *doc, const char *kind, const char *what, long long schema) {
  char shown[72];
  const char *k = kg_jrd_str(r, doc, "kind");
  if (!r->failed && strcmp(k, kind)) kg_jrd_fail(r, "not %s (kind '%s')", what, kg_esc_term(k, shown, sizeof shown));
  long long version = kg_jrd_int(r, doc, "schema_version");
  if (!r->failed && version != schema)
    kg_jrd_fail(r, "schema_version %lld is not supported (this kgate reads %lld)", version, schema);
}

void kg_jrd_keys(kg_jrd *r, json_t *o, const char *const *keys) {
  const char *key;
  json_t *v;
  char shown[72];
  json_object_foreach(o, key, v) {
    size_t k = 0;
    while (keys[k] && strcmp(keys[k], key)) k++;
    if (!keys[k] && !r->failed) kg_jrd_fail(r, "unknown field '%s'", kg_esc_term(key, shown, sizeof shown));
  }
}
