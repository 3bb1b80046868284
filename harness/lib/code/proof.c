/* A captured call's description judged on the CPU (proof.h). */
#include "proof.h"

#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CUDA 13's cudaLaunchAttributeID (driver_types.h); 15 is unassigned. */
static const char *const k_attr[] = {
    [1] = "access policy window",
    [2] = "cooperative",
    [3] = "synchronization policy",
    [4] = "cluster dimension",
    [5] = "cluster scheduling policy",
    [6] = "programmatic stream serialization",
    [7] = "programmatic event",
    [8] = "priority",
    [9] = "memory sync domain map",
    [10] = "memory sync domain",
    [11] = "preferred cluster dimension",
    [12] = "launch completion event",
    [13] = "device-updatable kernel node",
    [14] = "preferred shared memory carveout",
    [16] = "NVLink utilization-centric scheduling",
};

const char *kg_proof_attr_name(int id) {
  return id > 0 && (size_t)id < sizeof k_attr / sizeof *k_attr ? k_attr[id] : NULL;
}

/* A line's next space-separated word: its start in *w, its length returned. */
static size_t word(const char **p, const char *end, const char **w) {
  while (*p < end && **p == ' ') (*p)++;
  *w = *p;
  while (*p < end && **p != ' ') (*p)++;
  return (size_t)(*p - *w);
}

static int is_hex(const char *w, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!w[i] || !strchr("0123456789abcdef", w[i])) return 0;
  return n > 0;
}

static int refuse(char *buf, size_t len, const char *fmt, const char *w, size_t n) {
  char shown[72];
  snprintf(shown, sizeof shown, "%.*s", (int)(n < 64 ? n : 64), w);
  snprintf(buf, len, fmt, shown);
  return 0;
}

/* "aN=V" of a kernel line: an unknown id must be unset. */
static int check_node_attr(const char *w, size_t n, char *buf, size_t len) {
  const char *eq = memchr(w, '=', n);
  int id = atoi(w + 1);
  const char *v = eq + 1;
  size_t vn = n - (size_t)(v - w);
  if (!kg_proof_attr_name(id) && !(vn == 1 && (*v == '0' || *v == '-')))
    return refuse(buf, len, "not proven: a launch attribute kgate does not know is set (%s)", w, n);
  return 1;
}

static int check_kernel(const char *p, const char *end, char *buf, size_t len) {
  const char *w;
  size_t n = word(&p, end, &w); /* "kernel" */
  n = word(&p, end, &w);        /* the name */
  while ((n = word(&p, end, &w)) > 0)
    if (w[0] == 'a' && n > 2 && memchr(w, '=', n) && w[1] >= '0' && w[1] <= '9' && !check_node_attr(w, n, buf, len))
      return 0;
  return 1;
}

/* "launch ID=HEX ...": what the call passed to the runtime with a launch. */
static int check_launch(const char *p, const char *end, char *buf, size_t len) {
  const char *w;
  size_t n = word(&p, end, &w);
  while ((n = word(&p, end, &w)) > 0)
    if (!kg_proof_attr_name(atoi(w)))
      return refuse(buf, len, "not proven: a launch passed an attribute kgate does not know (%s)", w, n);
  return 1;
}

/* The value of key= among a line's words, or NULL. */
static const char *value_of(const char *p, const char *end, const char *key, size_t *vn) {
  const char *w;
  size_t n, k = strlen(key);
  while ((n = word(&p, end, &w)) > 0)
    if (n >= k && !memcmp(w, key, k)) return *vn = n - k, w + k;
  return NULL;
}

/* Where a copy or memset reads or writes: a harness buffer, or (a copy's
 * source) host bytes hashed at capture. */
static int check_mem(const char *p, const char *end, const char *what, int may_host, char *buf, size_t len) {
  size_t vn = 0;
  const char *v = value_of(p, end, what, &vn);
  char why[120];
  if (!v) return snprintf(buf, len, "not proven: a copy or memset without %s", what), 0;
  if (vn == 3 && !memcmp(v, "buf", 3)) return 1;
  if (may_host && vn == 69 && !memcmp(v, "host:", 5) && is_hex(v + 5, 64)) return 1;
  snprintf(why, sizeof why, "not proven: a copy or memset %s memory the harness did not give the call (%%s)",
           !strcmp(what, "to=") ? "into" : "from");
  return refuse(buf, len, why, v, vn);
}

static int check_line(const char *p, const char *end, char *buf, size_t len) {
  const char *w, *q = p;
  size_t n = word(&q, end, &w);
#define KIND(s) (n == sizeof s - 1 && !memcmp(w, s, n))
  if (KIND("nodes") || KIND("empty") || KIND("edge")) return 1;
  if (KIND("variable")) { /* a variable's size and digest after the capture: compared as text */
    size_t vn = 0;
    const char *sha = value_of(p, end, "sha=", &vn);
    if (sha && vn == 64 && is_hex(sha, 64) && value_of(p, end, "bytes=", &vn)) return 1;
    return refuse(buf, len, "not proven: a variable line kgate does not know (%s)", p, (size_t)(end - p));
  }
  if (KIND("kernel")) return check_kernel(p, end, buf, len);
  if (KIND("launch")) return check_launch(p, end, buf, len);
  if (KIND("memset")) return check_mem(p, end, "to=", 0, buf, len);
  if (KIND("memcpy")) {
    size_t vn = 0;
    const char *shape = value_of(p, end, "shape=", &vn);
    if (!shape || vn != 2 || memcmp(shape, "1d", 2))
      return snprintf(buf, len, "not proven: a pitched, 3D or array copy"), 0;
    return check_mem(p, end, "from=", 1, buf, len) && check_mem(p, end, "to=", 0, buf, len);
  }
  if (KIND("queries")) {
    const char *v;
    size_t vn = word(&q, end, &v);
    if (vn == 1 && *v == '0') return 1;
    return refuse(buf, len,
                  "not proven: the call asked whether its stream is capturing (%s times): it may take another "
                  "path when it is not",
                  v, vn);
  }
#undef KIND
  return refuse(buf, len, "not proven: a description line kgate does not know (%s)", p, (size_t)(end - p));
}

int kg_proof_check(const char *desc, char *buf, size_t len) {
  if (!desc || !*desc) return snprintf(buf, len, "not proven: no description"), 0;
  for (const char *p = desc; *p;) {
    const char *end = p + strcspn(p, "\n");
    if (end > p && !check_line(p, end, buf, len)) return 0;
    p = *end ? end + 1 : end;
  }
  buf[0] = '\0';
  return 1;
}

/* The first line where a and b differ, as "line N: <a's line, cut>", in buf
 * ("" when equal). */
static void first_difference(const char *a, const char *b, char *buf, size_t len) {
  const char *p = a ? a : "", *q = b ? b : "";
  buf[0] = '\0';
  for (int line = 0;; line++) {
    size_t lp = strcspn(p, "\n"), lq = strcspn(q, "\n");
    if (lp != lq || memcmp(p, q, lp)) {
      snprintf(buf, len, "line %d: %.*s", line, (int)(lp < 100 ? lp : 100), p);
      return;
    }
    if (!p[lp] && !q[lq]) return;
    p += lp + (p[lp] != 0), q += lq + (q[lq] != 0);
  }
}

int kg_proof_launches(const char *const h[2], const char *const b[2], char *buf, size_t len) {
  char why[200], d[140];
  const char *const *side[2] = {h, b};
  for (int s = 0; s < 2; s++) {
    const char *name = s ? "base" : "head";
    for (int k = 0; k < 2; k++)
      if (!kg_proof_check(side[s][k], why, sizeof why))
        return snprintf(buf, len, "not proven: the %s: %s", name, why + strlen("not proven: ")), KG_PROOF_UNPROVEN;
    first_difference(side[s][0], side[s][1], d, sizeof d);
    if (d[0])
      return snprintf(buf, len, "not proven: the %s queued other work on a second call (a host path that changes), %s",
                      name, d),
             KG_PROOF_UNPROVEN;
  }
  first_difference(h[0], b[0], d, sizeof d);
  if (d[0]) return snprintf(buf, len, "launches differ at %s", d), KG_PROOF_DIFFER;
  buf[0] = '\0';
  return KG_PROOF_SAME;
}

void kg_proof_digest_hex(const void *p, size_t n, char *out) {
  struct sha256_ctx c;
  unsigned char d[SHA256_DIGEST_SIZE];
  sha256_init(&c);
  sha256_update(&c, n, p);
  sha256_digest(&c, sizeof d, d);
  for (size_t i = 0; i < sizeof d; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}
