/* The rules for a text field read from a file or a module (fields.h). The
 * rules are what kgate itself writes, so a file kgate wrote always passes;
 * what a hand, a bug or an attacker makes differently is refused with its
 * place named. */
#include "fields.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"

void kg_gpu_slug(const char *name, char *out, size_t len) {
  if (len == 0) return;
  size_t k = 0;
  int dash = 0; /* a '-' is owed before the next kept character */
  for (const char *p = name; *p && k + 1 < len; p++) {
    int ch = tolower((unsigned char)*p);
    if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
      if (dash && k > 0) {
        if (k + 2 >= len) break; /* no room for "-x": stop short of a trailing '-' */
        out[k++] = '-';
      }
      dash = 0;
      out[k++] = (char)ch;
    } else {
      dash = 1;
    }
  }
  out[k] = '\0';
}

static int digits(const char *s, int n) {
  for (int i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return 0;
  return 1;
}

static int num(const char *s, int n) {
  int v = 0;
  for (int i = 0; i < n; i++) v = 10 * v + (s[i] - '0');
  return v;
}

const char *kg_why_bad_date(const char *s) {
  static const char why[] = "not an ISO 8601 UTC time like 2026-11-21T08:30:00Z";
  /* What the session writes (gate/session.c): strftime "%Y-%m-%dT%H:%M:%SZ" of gmtime. */
  if (strlen(s) != 20 || !digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' || !digits(s + 8, 2) ||
      s[10] != 'T' || !digits(s + 11, 2) || s[13] != ':' || !digits(s + 14, 2) || s[16] != ':' ||
      !digits(s + 17, 2) || s[19] != 'Z')
    return why;
  static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int y = num(s, 4), mo = num(s + 5, 2), d = num(s + 8, 2);
  int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap))
    return "not a day of the calendar";
  /* 60: a leap second is a real UTC time. */
  if (num(s + 11, 2) > 23 || num(s + 14, 2) > 59 || num(s + 17, 2) > 60) return "not a time of day";
  return NULL;
}

static int is_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* 1-63 bytes of alnum and extra, starting with an alnum. */
static const char *word_like(const char *s, const char *extra, const char *why) {
  size_t n = strlen(s);
  if (n == 0) return "empty";
  if (n > 63) return "longer than 63 bytes";
  if (!is_alnum(s[0])) return why;
  for (; *s; s++)
    if (!is_alnum(*s) && !strchr(extra, *s)) return why;
  return NULL;
}

const char *kg_why_bad_commit(const char *s) {
  /* git describe --always --dirty: "90386bbe7606-dirty", "v0.1.0-3-g90386bbe7606";
   * a tag may hold '/', '+' or '.'; "unknown" outside a git tree. */
  return word_like(s, "._+/-", "not a commit or git describe name (letters, digits, . _ + / -)");
}

const char *kg_why_bad_variant(const char *s) {
  return word_like(s, "_.+-", "not a variant name (letters, digits, _ . + -)");
}

const char *kg_why_bad_hex_list(const char *s) {
  for (const char *p = s; *p; p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p == '+' && p > s && p[1] && p[1] != '+')))
      return "not lowercase hex words joined by '+'";
  return NULL;
}

/* s matches pattern, where 'x' is a lowercase hex digit and any other byte itself. */
static int shaped(const char *s, const char *pattern) {
  for (; *pattern; s++, pattern++) {
    if (*pattern == 'x' ? !((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')) : *s != *pattern) return 0;
  }
  return *s == '\0';
}

const char *kg_why_bad_uuid(const char *s) {
  return shaped(s, "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")
             ? NULL
             : "not a GPU UUID like GPU-0123abcd-0123-4567-89ab-0123456789ab";
}

const char *kg_why_bad_pci(const char *s) {
  return shaped(s, "xxxx:xx:xx.x") ? NULL : "not a PCI address like 0000:1b:00.0";
}

const char *kg_why_bad_gpu_name(const char *s) {
  if (!*s) return "empty";
  if (strlen(s) >= KG_GPU_NAME_LEN) return "longer than 255 bytes";
  if (kg_has_control(s)) return "holds control characters";
  /* The name picks the baseline file: baselines/<slug>.json. */
  char slug[128];
  kg_gpu_slug(s, slug, sizeof slug);
  if (!slug[0]) return "has no letter or digit to name its baseline file by";
  return NULL;
}

const char *kg_why_bad_path(const char *s) {
  if (kg_has_control(s)) return "not a path: not UTF-8, or holds control or bidirectional characters";
  return NULL;
}

const char *kg_why_bad_module_text(const char *s, size_t max) {
  if (!s) return NULL;
  /* A line break or an ESC would let a module write its own lines into a
   * terminal or a CI log; a byte that is not UTF-8 cannot go into JSON. */
  if (kg_has_control(s)) return "not UTF-8, or holds control characters (C0, ESC, DEL, C1)";
  if (strlen(s) > max) return "too long (seed and version: at most 63 bytes, idea: 159)";
  return NULL;
}

int kg_module_text_check(const char *field, const char *s, size_t max, char *why, size_t len) {
  const char *bad = kg_why_bad_module_text(s, max);
  if (!bad) return 0;
  char shown[56];
  snprintf(why, len, "%s '%s': %s", field, kg_esc_term(s, shown, sizeof shown), bad);
  return -1;
}

int kg_variant_text_check(const char *name, const char *seed, const char *idea, char *why, size_t len) {
  char bad[160];
  if (!kg_module_text_check("seed", seed, KG_SEED_MAX, bad, sizeof bad) &&
      !kg_module_text_check("idea", idea, KG_IDEA_MAX, bad, sizeof bad))
    return 0;
  snprintf(why, len, "variant %s: %s", name, bad);
  return -1;
}

void kg_entry_label(const char *variant, const char *dtype, long long n, char *buf, size_t len) {
  char v[72];
  snprintf(buf, len, "%s %s %lld", kg_esc_term(variant, v, sizeof v), dtype, n);
}
