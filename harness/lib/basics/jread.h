/* The JSON reader: typed getters and range checks over a parsed document
 * (jansson), one home for every file kgate reads (results, baselines,
 * histories, pins). A reader keeps the first problem in err as
 * "file: where: problem" (each part only when set); after it every read
 * returns zeros, so a reader reads on and checks .failed once. */
#ifndef KG_JREAD_H
#define KG_JREAD_H

#include <jansson.h>
#include <stddef.h>

/* No sample outlives the watchdog, and --timeout is at most a day. */
#define KG_MAX_TIME_US 86400e6

typedef struct kg_jrd {
  const char *file; /* NULL: no file prefix */
  char where[160];  /* the object being read, "run.options", "cases[3] (cub_sum f32 1024 uniform)"; "" for the top */
  char *err;
  size_t errlen;
  int failed;
} kg_jrd;

void kg_jrd_fail(kg_jrd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *kg_jrd_str(kg_jrd *r, json_t *o, const char *key); /* "" on failure */
long long kg_jrd_int(kg_jrd *r, json_t *o, const char *key);
double kg_jrd_num(kg_jrd *r, json_t *o, const char *key); /* an integer or a real; null reads as +Inf */
int kg_jrd_bool(kg_jrd *r, json_t *o, const char *key);
json_t *kg_jrd_obj(kg_jrd *r, json_t *o, const char *key, int nullable); /* NULL for null or on failure */
json_t *kg_jrd_arr(kg_jrd *r, json_t *o, const char *key);

/* Why v cannot be a time in microseconds (not finite, not above 0, over
 * KG_MAX_TIME_US), or NULL. */
const char *kg_why_bad_time(double v);
/* A time in microseconds: a number (null is refused: "median_us is null: not
 * a finite time"), above 0 and at most KG_MAX_TIME_US. */
double kg_jrd_time(kg_jrd *r, json_t *o, const char *key);
/* A number in [lo, hi]; null reads as null_value (NAN: "not measured"). */
double kg_jrd_real(kg_jrd *r, json_t *o, const char *key, double lo, double hi, double null_value);
/* An integer in [lo, hi]. */
long long kg_jrd_range(kg_jrd *r, json_t *o, const char *key, long long lo, long long hi);
/* A string that fits buf (size bytes with its NUL: longer is refused, never
 * cut; so is a NUL inside) and, when why_bad is given, passes it. buf gets ""
 * on failure. */
void kg_jrd_text(kg_jrd *r, json_t *o, const char *key, char *buf, size_t size, const char *(*why_bad)(const char *));
/* A closed object: every key of o must be one of keys (NULL-terminated);
 * the first other one fails ("unknown field 'x'"), so a misspelt key is an
 * error, never dropped. */
void kg_jrd_keys(kg_jrd *r, json_t *o, const char *const *keys);
/* A document's "kind" must be kind (what names it: "a kgate reference pin
 * file") and its "schema_version" this kgate's schema. */
void kg_jrd_kind(kg_jrd *r, json_t *doc, const char *kind, const char *what, long long schema);

#endif
