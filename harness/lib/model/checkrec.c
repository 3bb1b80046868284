/* A check's record (checkrec.h). */
#include "checkrec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "fields.h"
#include "sizes.h"

static int group_cmp(const kg_crec_group *a, const char *variant, kg_dtype dtype, size_t n) {
  int c = strcmp(a->variant, variant);
  if (c) return c;
  if (a->dtype != dtype) return a->dtype < dtype ? -1 : 1;
  return (a->n > n) - (a->n < n);
}

/* The index of the group, or where it would go (with *found 0). */
static size_t locate(const kg_crec *r, const char *variant, kg_dtype dtype, size_t n, int *found) {
  size_t lo = 0, hi = r->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = group_cmp(&r->g[mid], variant, dtype, n);
    if (!c) return *found = 1, mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return *found = 0, lo;
}

int kg_crec_put(kg_crec *r, const kg_crec_group *g) {
  int found;
  size_t at = locate(r, g->variant, g->dtype, g->n, &found);
  if (found) return r->g[at] = *g, 0;
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 64;
    kg_crec_group *p = realloc(r->g, cap * sizeof *p);
    if (!p) return -1;
    r->g = p, r->cap = cap;
  }
  memmove(r->g + at + 1, r->g + at, (r->n - at) * sizeof *r->g);
  r->g[at] = *g;
  r->n++;
  return 0;
}

const kg_crec_group *kg_crec_find(const kg_crec *r, const char *variant, kg_dtype dtype, size_t n) {
  int found;
  size_t at = locate(r, variant, dtype, n, &found);
  return found ? &r->g[at] : NULL;
}

int kg_crec_same_key(const kg_crec *a, const kg_crec *b) {
  return a->on && b->on && !strcmp(a->harness, b->harness) && a->arch == b->arch && a->seed == b->seed &&
         a->repeats == b->repeats;
}

int kg_crec_carries(const kg_crec *rec, const kg_crec *run, const kg_crec_group *g, char *buf, size_t len) {
  buf[0] = '\0';
  if (!rec->on || !run->on) return 0;
  if (strcmp(rec->harness, run->harness)) return snprintf(buf, len, "kgate's check code differs"), 0;
  if (rec->arch != run->arch) return snprintf(buf, len, "checked on sm_%d", rec->arch), 0;
  if (rec->seed != run->seed || rec->repeats != run->repeats)
    return snprintf(buf, len, "checked with another seed or repeats"), 0;
  const kg_crec_group *o = kg_crec_find(rec, g->variant, g->dtype, g->n);
  if (!o) return 0;
  if (strcmp(o->digest, g->digest)) return snprintf(buf, len, "launches or machine code differ"), 0;
  if (g->patterns & ~o->patterns) return snprintf(buf, len, "patterns its record did not check"), 0;
  return 1;
}

json_t *kg_crec_to_json(const kg_crec *r, int with_run) {
  json_t *groups = json_array();
  for (size_t i = 0; groups && i < r->n; i++) {
    const kg_crec_group *g = &r->g[i];
    json_t *a = json_pack("[s s I i s]", g->variant, kg_dtype_get(g->dtype)->name, (json_int_t)g->n, (int)g->patterns,
                          g->digest);
    if (a && with_run) json_array_append_new(a, json_boolean(g->carried));
    if (!a || json_array_append_new(groups, a)) json_decref(groups), groups = NULL;
  }
  json_t *o = json_pack("{ss si sI si so}", "harness", r->harness, "arch", r->arch, "seed", (json_int_t)r->seed,
                        "repeats", r->repeats, "groups", groups);
  if (o && with_run) json_object_set_new(o, "from", json_string(r->from));
  return o;
}

static const char *why_bad_hex64(const char *s) {
  return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64 ? NULL : "not 64 lowercase hex digits";
}

/* One group into g; 0, or -1 with the failure on r. */
static int read_group(kg_jrd *r, json_t *a, kg_crec_group *g, int with_run) {
  size_t want = with_run ? 6 : 5;
  if (!json_is_array(a) || json_array_size(a) != want) {
    kg_jrd_fail(r, "not [variant, dtype, n, patterns, digest%s]", with_run ? ", carried" : "");
    return -1;
  }
  const char *variant = json_string_value(json_array_get(a, 0)), *dtype = json_string_value(json_array_get(a, 1));
  const char *digest = json_string_value(json_array_get(a, 4));
  json_t *n = json_array_get(a, 2), *p = json_array_get(a, 3), *c = json_array_get(a, 5);
  unsigned all = (1u << KG_NPATTERNS) - 1;
  char shown[72];
  if (!variant || kg_why_bad_variant(variant) || strlen(variant) >= sizeof g->variant)
    kg_jrd_fail(r, "variant: %s", variant ? "not a variant name" : "not a string");
  else if (!dtype || kg_dtype_parse(dtype, &g->dtype))
    kg_jrd_fail(r, "unknown dtype '%s'", kg_esc_term(dtype ? dtype : "", shown, sizeof shown));
  else if (!json_is_integer(n) || json_integer_value(n) < (json_int_t)KG_CARRY_MIN_N ||
           (unsigned long long)json_integer_value(n) > (unsigned long long)KG_SIZE_MAX)
    kg_jrd_fail(r, "n: not a size of at least %zu", KG_CARRY_MIN_N);
  else if (!json_is_integer(p) || json_integer_value(p) <= 0 || (json_integer_value(p) & ~(json_int_t)all))
    kg_jrd_fail(r, "patterns: not a set of the %d patterns (1..%u)", KG_NPATTERNS, all);
  else if (!digest || why_bad_hex64(digest))
    kg_jrd_fail(r, "digest: not 64 lowercase hex digits");
  else if (with_run && !json_is_boolean(c))
    kg_jrd_fail(r, "carried: not true or false");
  if (r->failed) return -1;
  snprintf(g->variant, sizeof g->variant, "%s", variant);
  snprintf(g->digest, sizeof g->digest, "%s", digest);
  g->n = (size_t)json_integer_value(n);
  g->patterns = (unsigned)json_integer_value(p);
  g->carried = with_run && json_is_true(c);
  return 0;
}

void kg_crec_read(kg_jrd *r, json_t *o, kg_crec *out) {
  memset(out, 0, sizeof *out);
  size_t at = strlen(r->where);
  int with_run = json_object_get(o, "from") != NULL;
  kg_jrd_text(r, o, "harness", out->harness, sizeof out->harness, why_bad_hex64);
  out->arch = (int)kg_jrd_range(r, o, "arch", 10, 1000);
  out->seed = (uint64_t)kg_jrd_range(r, o, "seed", 0, INT64_MAX);
  out->repeats = (int)kg_jrd_range(r, o, "repeats", 1, 1000);
  static const char *const k_keys[] = {"harness", "arch", "seed", "repeats", "groups", NULL};
  static const char *const k_run_keys[] = {"harness", "arch", "seed", "repeats", "groups", "from", NULL};
  kg_jrd_keys(r, o, with_run ? k_run_keys : k_keys);
  if (with_run) kg_jrd_text(r, o, "from", out->from, sizeof out->from, kg_why_bad_path);
  json_t *groups = kg_jrd_arr(r, o, "groups");
  for (size_t i = 0; !r->failed && i < json_array_size(groups); i++) {
    snprintf(r->where + at, sizeof r->where - at, ".groups[%zu]", i);
    kg_crec_group g = {0};
    if (read_group(r, json_array_get(groups, i), &g, with_run)) break;
    if (kg_crec_find(out, g.variant, g.dtype, g.n)) {
      char label[96];
      kg_entry_label(g.variant, kg_dtype_get(g.dtype)->name, (long long)g.n, label, sizeof label);
      kg_jrd_fail(r, "%s twice: a group appears once in a record", label);
    } else if (kg_crec_put(out, &g)) {
      kg_jrd_fail(r, "out of memory");
    }
  }
  if (r->failed) {
    kg_crec_free(out);
    return;
  }
  r->where[at] = '\0';
  out->on = 1;
}

void kg_crec_free(kg_crec *r) {
  free(r->g);
  r->g = NULL;
  r->n = r->cap = 0;
  r->on = 0;
}
