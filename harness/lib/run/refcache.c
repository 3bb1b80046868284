/* The reference cache (refcache.h): the table, the file's one codec, the
 * checks that keep a corrupt or forged line out, and the locked merge on save. */
#include "refcache.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dtype.h"
#include "fileio.h"

/* ---- keys and the index ------------------------------------------------------ */

typedef struct rkey {
  kg_dtype dt;
  kg_pattern p;
  size_t n;
  uint64_t seed;
  unsigned gen;
} rkey;

static rkey key_of(const kg_refcache_entry *e) { return (rkey){e->dt, e->p, e->n, e->seed, e->gen_version}; }

static int key_eq(rkey a, rkey b) {
  return a.dt == b.dt && a.p == b.p && a.n == b.n && a.seed == b.seed && a.gen == b.gen;
}

/* splitmix64's finaliser: every key bit reaches every slot bit. */
static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t key_hash(rkey k) {
  uint64_t small = (uint64_t)(unsigned)k.dt << 48 ^ (uint64_t)(unsigned)k.p << 40 ^ k.gen;
  return mix(mix(mix(k.seed) ^ (uint64_t)k.n) ^ small);
}

/* The slot holding k, or the empty slot where it would go (linear probing;
 * the index is at most half full, so an empty slot is always found). */
static size_t slot_of(const kg_refcache *c, rkey k) {
  size_t mask = c->nslot - 1;
  for (size_t s = (size_t)key_hash(k) & mask;; s = (s + 1) & mask)
    if (!c->slot[s] || key_eq(key_of(&c->e[c->slot[s] - 1]), k)) return s;
}

/* The index of k's entry, or -1. */
static long index_of(const kg_refcache *c, rkey k) {
  if (!c->nslot) return -1;
  uint32_t i = c->slot[slot_of(c, k)];
  return i ? (long)i - 1 : -1;
}

/* A fresh index of nslot slots over the entries. 0, or -1 out of memory (the old one stays). */
static int reindex(kg_refcache *c, size_t nslot) {
  uint32_t *slot = calloc(nslot, sizeof *slot), *old = c->slot;
  if (!slot) return -1;
  c->slot = slot, c->nslot = nslot;
  for (size_t i = 0; i < c->n; i++) c->slot[slot_of(c, key_of(&c->e[i]))] = (uint32_t)(i + 1);
  free(old);
  return 0;
}

/* Room for one more entry, the index kept at most half full. */
static int grow(kg_refcache *c) {
  if (c->n < c->cap) return 0;
  size_t cap = c->cap ? 2 * c->cap : 64;
  kg_refcache_entry *e = realloc(c->e, cap * sizeof *e);
  if (!e) return -1;
  c->e = e, c->cap = cap;
  return reindex(c, 2 * cap);
}

/* ---- what an entry can be ----------------------------------------------------- */

/* Integer dtypes: kg_reference leaves the float fields at their start and
 * counts every element. */
static const char *why_bad_int(const kg_refcache_entry *e) {
  const kg_ref *r = &e->ref;
  if (r->has_nan || r->has_pinf || r->has_ninf) return "a NaN or Inf flag on an integer dtype";
  if (r->sum != 0 || r->sum_err != 0 || r->sum_abs != 0 || r->fmin != INFINITY || r->fmax != -INFINITY)
    return "float fields set on an integer dtype";
  if (r->nvals != e->n) return "nvals is not n on an integer dtype";
  if (!e->n && (r->isum || r->imin != INT64_MAX || r->imax != INT64_MIN))
    return "an empty input with a sum, min or max";
  if (e->n && r->imin > r->imax) return "min above max";
  int narrow = e->dt == KG_I32;
  if (narrow && r->isum != (uint64_t)(int64_t)(int32_t)(uint32_t)r->isum) return "an i32 sum that is not sign-extended";
  if (narrow && e->n && (r->imin < INT32_MIN || r->imax > INT32_MAX)) return "an i32 min or max outside i32";
  return NULL;
}

/* Float dtypes: the sums are finite (specials are flags), sum + sum_err is a
 * two-sum (|sum_err| at most half an ulp of sum: 2^-64 |sum| for a 64-bit
 * significand), |sum| cannot pass sum|x| by more than rounding (n u, far
 * below 2^-20 for any n that fits in memory), and the flags, nvals and the
 * min and max tell one story. Without values the min and max say nothing:
 * kg_input_make leaves them 0 for an input of NaNs only. */
static const char *why_bad_float(const kg_refcache_entry *e) {
  const kg_ref *r = &e->ref;
  if (r->isum) return "an integer sum on a float dtype";
  if (!isfinite(r->sum) || !isfinite(r->sum_err) || !isfinite(r->sum_abs) || signbit(r->sum_abs))
    return "a sum that is not finite, or a negative sum of magnitudes";
  if (fabsl(r->sum_err) > fabsl(r->sum) * 0x1p-64L) return "an error term over half an ulp of the sum";
  if (fabsl(r->sum) > r->sum_abs * (1 + 0x1p-20L)) return "a sum larger than the sum of magnitudes";
  if (r->has_nan != (r->nvals < e->n)) return "nvals does not match the NaN flag";
  if (!r->nvals) return r->has_pinf || r->has_ninf ? "an Inf flag without values" : NULL;
  if (r->imin != INT64_MAX || r->imax != INT64_MIN) return "an integer min or max on a float dtype";
  if (isnan(r->fmin) || isnan(r->fmax)) return "a NaN min or max";
  if (r->fmin > r->fmax) return "min above max";
  if (r->has_pinf != (r->fmax == INFINITY) || r->has_ninf != (r->fmin == -INFINITY))
    return "the Inf flags do not match the min and max";
  return NULL;
}

/* Why e cannot be a true entry (a key out of range, nvals > n, a NaN flag on
 * an integer dtype, ...), or NULL when it can. */
static const char *entry_why_bad(const kg_refcache_entry *e) {
  if ((unsigned)e->dt >= KG_NDTYPES) return "an unknown dtype";
  if ((unsigned)e->p >= KG_NPATTERNS) return "an unknown pattern";
  if (e->gen_version == 0) return "generator version 0";
  if (e->ref.nvals > e->n) return "nvals above n";
  if ((unsigned)e->ref.has_nan > 1 || (unsigned)e->ref.has_pinf > 1 || (unsigned)e->ref.has_ninf > 1)
    return "a flag that is not 0 or 1";
  return kg_dtype_get(e->dt)->is_float ? why_bad_float(e) : why_bad_int(e);
}

/* ---- the table ---------------------------------------------------------------- */

const kg_refcache_entry *kg_refcache_find(const kg_refcache *c, kg_dtype dt, size_t n, kg_pattern p, uint64_t seed,
                                          unsigned gen_version) {
  long i = index_of(c, (rkey){dt, p, n, seed, gen_version});
  return i < 0 ? NULL : &c->e[i];
}

int kg_refcache_put(kg_refcache *c, const kg_refcache_entry *e, char *err, size_t errlen) {
  const char *why = entry_why_bad(e);
  long i = why ? -1 : index_of(c, key_of(e));
  if (!why && i < 0 && c->n >= KG_REFCACHE_MAX) why = "the cache is full";
  else if (!why && i < 0 && grow(c)) why = "out of memory";
  if (why) {
    snprintf(err, errlen, "cannot cache the reference of %s n=%zu %s: %s",
             (unsigned)e->dt < KG_NDTYPES ? kg_dtype_get(e->dt)->name : "?", e->n, kg_pattern_name(e->p), why);
    return -1;
  }
  if (i < 0) {
    i = (long)c->n++;
    c->slot[slot_of(c, key_of(e))] = (uint32_t)(i + 1);
  }
  c->e[i] = *e;
  return 0;
}

void kg_refcache_free(kg_refcache *c) {
  free(c->e);
  free(c->slot);
  memset(c, 0, sizeof *c);
}

/* ---- the codec ---------------------------------------------------------------- */

/* A line without its checksum, as the writer writes it. */
static int format_content(const kg_refcache_entry *e, char *buf, size_t len) {
  const kg_ref *r = &e->ref;
  int w = snprintf(buf, len,
                   "%s %zu %s %" PRIu64 " %u %016" PRIx64 " %" PRId64 " %La %La %La %d %d %d %" PRId64 " %" PRId64
                   " %a %a %zu",
                   kg_dtype_get(e->dt)->name, e->n, kg_pattern_name(e->p), e->seed, e->gen_version, e->fingerprint,
                   (int64_t)r->isum, r->sum, r->sum_err, r->sum_abs, r->has_nan, r->has_pinf, r->has_ninf, r->imin,
                   r->imax, r->fmin, r->fmax, r->nvals);
  return w > 0 && (size_t)w < len ? 0 : -1;
}

/* The last field of a line of content: with a key (the user's cache) the
 * HMAC-SHA256 of the header, a newline and the content, in 64 hex digits;
 * without (the shipped table) the first 16 hex digits of the content's SHA-256. */
static void line_check(const kg_refkey *key, const char *content, char hex[65]) {
  if (key) {
    char text[sizeof KG_REFCACHE_HEADER + KG_REFCACHE_LINE_MAX + 1];
    snprintf(text, sizeof text, "%s\n%s", KG_REFCACHE_HEADER, content);
    kg_refkey_mac(key, text, hex);
    return;
  }
  struct sha256_ctx ctx;
  uint8_t d[8];
  sha256_init(&ctx);
  sha256_update(&ctx, strlen(content), (const uint8_t *)content);
  sha256_digest(&ctx, sizeof d, d);
  for (int i = 0; i < 8; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static const char *header_of(const kg_refkey *key) { return key ? KG_REFCACHE_HEADER : KG_REFCACHE_TABLE_HEADER; }

enum { NFIELDS = 18 };
/* n and nvals are read as uint64_t into size_t. */
_Static_assert(sizeof(size_t) == sizeof(uint64_t), "kgate needs a 64-bit size_t");

/* Splits s in place at single spaces into exactly NFIELDS non-empty fields. */
static int split(char *s, char *f[NFIELDS]) {
  int k = 0;
  for (char *p = s;; p++) {
    if (*p != ' ' && *p) continue;
    if (p == s || k == NFIELDS) return -1;
    f[k++] = s;
    if (!*p) return k == NFIELDS ? 0 : -1;
    *p = '\0', s = p + 1;
  }
}

/* Numbers read as data: whole-field conversions with range errors refused;
 * the canonical re-write (parse_line) refuses any spelling the writer would not use. */
static int dec_u64(const char *s, uint64_t *v) {
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  *v = x;
  return *s >= '0' && *s <= '9' && !*end && !errno ? 0 : -1;
}

static int dec_i64(const char *s, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  *v = x;
  return (*s == '-' || (*s >= '0' && *s <= '9')) && !*end && !errno ? 0 : -1;
}

static int hex_u64(const char *s, uint64_t *v) {
  char *end;
  *v = strtoull(s, &end, 16);
  return strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16 && !*end ? 0 : -1;
}

/* A hex float or an infinity; strtold rounds nothing here: "%La" is exact. */
static int hex_ld(const char *s, long double *v) {
  char *end;
  *v = strtold(s, &end);
  return strspn(s, "0123456789abcdefinx.p+-") == strlen(s) && end != s && !*end ? 0 : -1;
}

static int hex_d(const char *s, double *v) {
  long double x;
  if (hex_ld(s, &x)) return -1;
  *v = (double)x; /* exact for whatever "%a" wrote; anything else fails the re-write */
  return 0;
}

static int flag(const char *s, int *v) {
  *v = s[0] - '0';
  return (s[0] == '0' || s[0] == '1') && !s[1] ? 0 : -1;
}

/* The fields of a line into e. 0, or -1 when a field does not read as its column's kind. */
static int parse_fields(char *f[NFIELDS], kg_refcache_entry *e) {
  uint64_t n, gen, nvals;
  int64_t isum, imin, imax;
  kg_ref *r = &e->ref;
  memset(e, 0, sizeof *e);
  int bad = kg_dtype_parse(f[0], &e->dt) || dec_u64(f[1], &n) || kg_pattern_parse(f[2], &e->p) ||
            dec_u64(f[3], &e->seed) || dec_u64(f[4], &gen) || hex_u64(f[5], &e->fingerprint) || dec_i64(f[6], &isum) ||
            hex_ld(f[7], &r->sum) || hex_ld(f[8], &r->sum_err) || hex_ld(f[9], &r->sum_abs) ||
            flag(f[10], &r->has_nan) || flag(f[11], &r->has_pinf) || flag(f[12], &r->has_ninf) ||
            dec_i64(f[13], &imin) || dec_i64(f[14], &imax) || hex_d(f[15], &r->fmin) || hex_d(f[16], &r->fmax) ||
            dec_u64(f[17], &nvals);
  if (bad || gen > UINT32_MAX) return -1;
  e->n = (size_t)n, e->gen_version = (unsigned)gen, r->nvals = (size_t)nvals;
  r->isum = (uint64_t)isum, r->imin = imin, r->imax = imax;
  return 0;
}

/* One line of the file into e: NULL, or why it is not a true entry. */
static const char *parse_line(const kg_refkey *key, char *line, size_t len, int newline, kg_refcache_entry *e) {
  if (len > KG_REFCACHE_LINE_MAX) return "longer than any line kgate writes";
  if (strlen(line) != len) return "holds a NUL byte";
  if (!newline) return "the last line has no newline (cut short)";
  char *sp = strrchr(line, ' '), want[65], copy[KG_REFCACHE_LINE_MAX + 1], again[KG_REFCACHE_LINE_MAX + 1];
  if (!sp) return key ? "no MAC" : "no checksum";
  *sp = '\0';
  line_check(key, line, want);
  if (key && !kg_refkey_mac_eq(sp + 1, want))
    return "the MAC does not verify (a changed or cut line, or one not written under this user's key)";
  if (!key && strcmp(sp + 1, want)) return "the checksum does not match (a changed or cut line)";
  char *f[NFIELDS];
  snprintf(copy, sizeof copy, "%s", line);
  if (split(copy, f)) return "not 18 fields separated by single spaces";
  if (parse_fields(f, e)) return "a field that does not read as its column's kind";
  const char *why = entry_why_bad(e);
  if (why) return why;
  if (format_content(e, again, sizeof again) || strcmp(again, line)) return "not as kgate writes it";
  return NULL;
}

/* ---- loading ------------------------------------------------------------------ */

typedef struct loader {
  kg_refcache *c;
  const kg_refkey *key; /* NULL: the shipped table */
  long dropped;
  size_t first;      /* the line of the first drop */
  const char *why;   /* and why */
  unsigned char *dup; /* per entry: its key was on another line too */
  size_t dupcap;
} loader;

static void drop(loader *ld, size_t line, const char *why) {
  if (!ld->dropped++) ld->first = line, ld->why = why;
}

/* Marks entry i as a duplicate (its line and this one both drop). 0, or -1 out of memory. */
static int mark_dup(loader *ld, long i, size_t line) {
  if (ld->dupcap < ld->c->n) {
    unsigned char *d = realloc(ld->dup, ld->c->cap);
    if (!d) return -1;
    memset(d + ld->dupcap, 0, ld->c->cap - ld->dupcap);
    ld->dup = d, ld->dupcap = ld->c->cap;
  }
  if (!ld->dup[i]) drop(ld, line, "the key of another line: every line of it dropped");
  ld->dup[i] = 1;
  drop(ld, line, "the key of another line: every line of it dropped");
  return 0;
}

/* One entry line. 0, or -1 out of memory. */
static int take_line(loader *ld, char *line, size_t len, int newline, size_t lineno) {
  kg_refcache_entry e;
  const char *why = parse_line(ld->key, line, len, newline, &e);
  if (why) {
    drop(ld, lineno, why);
    return 0;
  }
  long i = index_of(ld->c, key_of(&e));
  if (i >= 0) return mark_dup(ld, i, lineno);
  if (ld->c->n >= KG_REFCACHE_MAX) {
    drop(ld, lineno, "past the cache's limit of entries");
    return 0;
  }
  char err[160];
  return kg_refcache_put(ld->c, &e, err, sizeof err);
}

/* Removes the entries marked as duplicates. */
static int drop_dups(loader *ld) {
  kg_refcache *c = ld->c;
  size_t k = 0;
  for (size_t i = 0; i < c->n; i++)
    if (i >= ld->dupcap || !ld->dup[i]) c->e[k++] = c->e[i];
  if (k == c->n) return 0;
  c->n = k;
  return reindex(c, c->nslot);
}

/* A regular file over the size limit: corrupt, not unreadable. */
static int too_big(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_size > KG_REFCACHE_FILE_MAX;
}

/* Reads every line of an open file. 0, or -1 with err. */
static int read_lines(loader *ld, int fd, const char *path, char *err, size_t errlen) {
  kg_lines l;
  char *line;
  size_t len, lineno = 0;
  int newline, rc, foreign = 0;
  kg_lines_init(&l, fd, path, KG_REFCACHE_FILE_MAX);
  while ((rc = kg_lines_next(&l, &line, &len, &newline, err, errlen)) == 1) {
    if (++lineno == 1) foreign = strcmp(line, header_of(ld->key)) != 0 || !newline;
    if (foreign) drop(ld, lineno, "not a kgate reference cache of this format (its first line)");
    else if (lineno > 1 && take_line(ld, line, len, newline, lineno)) {
      snprintf(err, errlen, "cannot read %s: out of memory", path);
      rc = -1;
      break;
    }
  }
  kg_lines_free(&l);
  if (rc == 0 && drop_dups(ld)) snprintf(err, errlen, "cannot read %s: out of memory", path), rc = -1;
  return rc;
}

long kg_refcache_load(kg_refcache *c, const char *path, const kg_refkey *key, char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
  loader ld = {.c = c, .key = key};
  int fd, rc = kg_in_open(path, KG_REFCACHE_FILE_MAX, &fd, err, errlen);
  if (rc == 1 || (rc < 0 && !too_big(path))) {
    if (rc == 1) err[0] = '\0'; /* no file yet: an empty cache */
    return rc == 1 ? 0 : -1;
  }
  if (rc < 0) drop(&ld, 1, "larger than any cache kgate writes");
  else {
    rc = read_lines(&ld, fd, path, err, errlen);
    close(fd);
  }
  free(ld.dup);
  if (rc < 0 && fd >= 0) { /* opened, then a read error: not a corrupt file */
    kg_refcache_free(c);
    return -1;
  }
  err[0] = '\0';
  if (ld.dropped)
    snprintf(err, errlen, "%s: %ld corrupt line%s dropped, the first (line %zu): %s; the next save rewrites it", path,
             ld.dropped, ld.dropped == 1 ? "" : "s", ld.first, ld.why);
  return ld.dropped;
}

/* ---- saving ------------------------------------------------------------------- */

static int cmp_entry(const void *a, const void *b) {
  const kg_refcache_entry *x = *(const kg_refcache_entry *const *)a, *y = *(const kg_refcache_entry *const *)b;
#define KG_CMP(f) \
  if (x->f != y->f) return x->f < y->f ? -1 : 1;
  KG_CMP(dt) KG_CMP(p) KG_CMP(n) KG_CMP(seed) KG_CMP(gen_version)
#undef KG_CMP
  return 0;
}

typedef struct sorted {
  const kg_refcache_entry **e;
  size_t n;
  const kg_refkey *key;
} sorted;

static void fill(FILE *f, const void *ctx) {
  const sorted *s = ctx;
  char content[KG_REFCACHE_LINE_MAX], check[65];
  fprintf(f, "%s\n", header_of(s->key));
  for (size_t i = 0; i < s->n; i++) {
    if (format_content(s->e[i], content, sizeof content)) continue; /* cannot happen: why_bad bounds every field */
    line_check(s->key, content, check);
    fprintf(f, "%s %s\n", content, check);
  }
}

/* Writes the entries sorted by key: the same cache is the same file. 0, or -1 with err. */
static int write_sorted(const kg_refcache *c, const char *path, const kg_refkey *key, char *err, size_t errlen) {
  sorted s = {c->n ? malloc(c->n * sizeof *s.e) : NULL, c->n, key};
  if (c->n && !s.e) {
    snprintf(err, errlen, "cannot write %s: out of memory", path);
    return -1;
  }
  for (size_t i = 0; i < c->n; i++) s.e[i] = &c->e[i];
  if (s.n) qsort(s.e, s.n, sizeof *s.e, cmp_entry);
  int rc = kg_out_write(path, fill, &s, err, errlen);
  free(s.e);
  return rc;
}

/* Adds the file's entries that c lacks. How many did not fit, or -1 with err. */
static long merge_file(kg_refcache *c, const char *path, const kg_refkey *key, char *err, size_t errlen) {
  kg_refcache disk;
  long left = 0;
  if (kg_refcache_load(&disk, path, key, err, errlen) < 0) return -1;
  for (size_t i = 0; i < disk.n && left >= 0; i++) {
    if (index_of(c, key_of(&disk.e[i])) >= 0) continue;
    if (c->n >= KG_REFCACHE_MAX) left++;
    else if (kg_refcache_put(c, &disk.e[i], err, errlen)) left = -1;
  }
  kg_refcache_free(&disk);
  return left;
}

long kg_refcache_save(kg_refcache *c, const char *path, const kg_refkey *key, char *err, size_t errlen) {
  kg_lock lk;
  if (kg_make_parent(path, err, errlen) || kg_lock_take(&lk, path, err, errlen)) return -1;
  long left = merge_file(c, path, key, err, errlen);
  if (left >= 0 && write_sorted(c, path, key, err, errlen)) left = -1;
  kg_lock_drop(&lk);
  if (left == 0) err[0] = '\0'; /* the file's corrupt lines are gone now: nothing to say */
  if (left > 0)
    snprintf(err, errlen, "%s: %ld entries of the file left out: the cache holds at most %zu", path, left,
             KG_REFCACHE_MAX);
  return left;
}

/* ---- where it lives ----------------------------------------------------------- */

int kg_refcache_default_path(char *buf, size_t len) { return kg_cache_path("refs.txt", buf, len); }

int kg_refcache_table_path(char *buf, size_t len) {
  static const char *const k_rel[] = {"/" KG_REFCACHE_TABLE, "/../share/kgate/" KG_REFCACHE_TABLE};
  return kg_beside_exe(k_rel, sizeof k_rel / sizeof k_rel[0], buf, len, NULL, 0);
}
