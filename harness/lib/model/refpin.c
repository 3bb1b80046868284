/* Pinned reference modules (refpin.h). */
#include "refpin.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "fileio.h"
#include "jread.h"
#include "fields.h"

int kg_sha256_file(const char *path, char hex[65], char *err, size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
    if (fd >= 0) close(fd);
    return -1;
  }
  struct sha256_ctx ctx;
  sha256_init(&ctx);
  unsigned char buf[1 << 16];
  ssize_t got;
  while ((got = read(fd, buf, sizeof buf)) > 0) sha256_update(&ctx, (size_t)got, buf);
  int bad = got < 0 ? errno : 0;
  close(fd);
  if (bad) {
    snprintf(err, errlen, "%s: %s", path, strerror(bad));
    return -1;
  }
  unsigned char d[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof d, d);
  for (int i = 0; i < SHA256_DIGEST_SIZE; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
  return 0;
}

/* ---- the pin file ---------------------------------------------------------- */

static int lower_hex(const char *s, size_t lo, size_t hi) {
  size_t n = strspn(s, "0123456789abcdef");
  return s[n] == '\0' && n >= lo && n <= hi;
}

static const char *why_bad_sha256(const char *s) {
  return lower_hex(s, 64, 64) ? NULL : "not a SHA-256 (64 lowercase hex digits)";
}
static const char *why_bad_hex_commit(const char *s) {
  return lower_hex(s, 7, 40) ? NULL : "not a commit (7-40 lowercase hex digits)";
}
static const char *why_bad_nvcc(const char *s) {
  return s[0] && strspn(s, "0123456789.") == strlen(s) ? NULL : "not an nvcc version like 13.0.88";
}
static const char *why_bad_day(const char *s) {
  return strlen(s) == 10 && strspn(s, "0123456789-") == 10 && s[4] == '-' && s[7] == '-' ? NULL
                                                                                         : "not a date like 2026-11-25";
}
/* CMAKE_CUDA_ARCHITECTURES as built: "80-real;90-real" (native code only,
 * what a reference should be), or "90" (native code and PTX; kg_pin_has_ptx). */
static const char *why_bad_archs(const char *s) {
  static const char why[] = "not a list of CUDA architectures like 80-real;90-real";
  if (!*s) return why;
  for (const char *p = s; *p;) {
    size_t d = strspn(p, "0123456789");
    if (d < 2 || d > 3) return why;
    p += d;
    if (*p == 'a' || *p == 'f') p++;
    if (!strncmp(p, "-real", 5)) p += 5;
    if (*p == ';' && p[1]) p++;
    else if (*p) return why;
  }
  return NULL;
}

int kg_pins_read(const char *path, kg_pins *p, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  json_t *doc;
  int rc = kg_json_load(path, &doc, err, errlen);
  if (rc == 1) snprintf(err, errlen, "%s: no such file", path);
  if (rc) return -1;
  kg_jrd r = {.file = path, .err = err, .errlen = errlen};
  kg_jrd_kind(&r, doc, "kgate-reference-pins", "a kgate reference pin file", KG_PINS_SCHEMA);
  json_t *pins = kg_jrd_arr(&r, doc, "pins");
  size_t n = json_array_size(pins);
  if (!r.failed && (n == 0 || n > KG_PINS_MAX)) kg_jrd_fail(&r, "pins: %zu records, expected 1 to %d", n, KG_PINS_MAX);
  for (size_t i = 0; i < n && !r.failed; i++) {
    json_t *o = json_array_get(pins, i);
    kg_pin *q = &p->pins[i];
    snprintf(r.where, sizeof r.where, "pins[%zu]", i);
    if (!json_is_object(o)) {
      kg_jrd_fail(&r, "not an object");
      break;
    }
    kg_jrd_text(&r, o, "module", q->module, sizeof q->module, kg_why_bad_variant);
    kg_jrd_text(&r, o, "sha256", q->sha256, sizeof q->sha256, why_bad_sha256);
    kg_jrd_text(&r, o, "commit", q->commit, sizeof q->commit, why_bad_hex_commit);
    kg_jrd_text(&r, o, "nvcc", q->nvcc, sizeof q->nvcc, why_bad_nvcc);
    kg_jrd_text(&r, o, "architectures", q->architectures, sizeof q->architectures, why_bad_archs);
    kg_jrd_text(&r, o, "pinned", q->pinned, sizeof q->pinned, why_bad_day);
    for (size_t j = 0; j < i && !r.failed; j++)
      if (!strcmp(p->pins[j].sha256, q->sha256)) kg_jrd_fail(&r, "the same sha256 as pins[%zu]", j);
    p->n = i + 1;
  }
  json_decref(doc);
  return r.failed ? -1 : 0;
}

int kg_pin_has_ptx(const kg_pin *p) {
  for (const char *s = p->architectures; *s;) {
    s += strspn(s, "0123456789af");
    if (strncmp(s, "-real", 5)) return 1;
    s += 5;
    if (*s == ';') s++;
  }
  return 0;
}

const kg_pin *kg_pin_match(const kg_pins *p, const char *module, const char *sha256, char *err, size_t errlen) {
  const kg_pin *other = NULL;
  for (size_t i = 0; i < p->n; i++) {
    if (strcmp(p->pins[i].module, module)) continue;
    if (!strcmp(p->pins[i].sha256, sha256)) return &p->pins[i];
    other = &p->pins[i];
  }
  char shown[72];
  kg_esc_term(module, shown, sizeof shown);
  if (other)
    snprintf(err, errlen, "module '%s' has sha256 %.12s, not a pinned one (pinned: %.12s, commit %.12s)", shown,
             sha256, other->sha256, other->commit);
  else snprintf(err, errlen, "no pinned reference for module '%s'", shown);
  return NULL;
}

const kg_pin *kg_pin_by_sha(const kg_pins *p, const char *path, const char *sha256, char *err, size_t errlen) {
  char pinned[16 * KG_PINS_MAX] = "";
  for (size_t i = 0; i < p->n; i++) {
    if (!strcmp(p->pins[i].sha256, sha256)) return &p->pins[i];
    size_t len = strlen(pinned);
    snprintf(pinned + len, sizeof pinned - len, "%s%.12s", i ? ", " : "", p->pins[i].sha256);
  }
  char shown[300];
  snprintf(err, errlen, "%s has sha256 %.12s, not a pinned one (pinned: %s); it was not loaded",
           kg_esc_term(path, shown, sizeof shown), sha256, pinned);
  return NULL;
}
