/* refcache: real references through the file bit for bit, corrupt and
 * forged files loaded without their bad lines (and rewritten without them),
 * writers side by side losing nothing, where the cache and its key live, and
 * the key files that are refused. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <errno.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dtype.h"
#include "fileio.h"
#include "input.h"
#include "refcache.h"
#include "refkey.h"
#include "roofcache.h"
#include "testutil.h"

#define N(a) (int)(sizeof a / sizeof a[0])

static char g_dir[64], g_path[128];
/* The key every test's cache is MACed under (a real one is random: refkey.h). */
static const kg_refkey g_key = {{0x6b, 0x67, 0x61, 0x74, 0x65, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                 18, 19, 20, 21, 22, 23, 24, 25, 26, 27}};

static void setup(void) {
  kgt_mkscratch(g_dir, sizeof g_dir, "refcache");
  snprintf(g_path, sizeof g_path, "%s/refs.txt", g_dir);
}

static void teardown(void) { kgt_rmtree(g_dir); }

/* The entry of a real input: kg_input_make's reference, the seed as fingerprint. */
static kg_refcache_entry make_entry(kg_dtype dt, kg_pattern p, size_t n, uint64_t seed) {
  kg_refcache_entry e = {.dt = dt, .p = p, .n = n, .seed = seed, .gen_version = KG_GEN_VERSION};
  void *buf = malloc(n ? n * kg_dtype_get(dt)->size : 1);
  ck_assert_ptr_nonnull(buf);
  kg_input_make(dt, p, seed, n, buf, &e.ref, 2);
  free(buf);
  e.fingerprint = seed * 0x9e3779b97f4a7c15ull ^ n;
  return e;
}

/* Equal values, -0 told from +0 (no field may hold a NaN); padding never compared. */
static int same_ld(long double a, long double b) { return a == b && signbit(a) == signbit(b); }
static int same_d(double a, double b) { return a == b && signbit(a) == signbit(b); }

static void assert_same(const kg_refcache_entry *a, const kg_refcache_entry *b) {
  ck_assert_int_eq(a->dt, b->dt);
  ck_assert_int_eq(a->p, b->p);
  ck_assert_uint_eq(a->n, b->n);
  ck_assert_uint_eq(a->seed, b->seed);
  ck_assert_uint_eq(a->gen_version, b->gen_version);
  ck_assert_uint_eq(a->fingerprint, b->fingerprint);
  const kg_ref *x = &a->ref, *y = &b->ref;
  ck_assert_uint_eq(x->isum, y->isum);
  ck_assert_msg(same_ld(x->sum, y->sum), "sum %La != %La", x->sum, y->sum);
  ck_assert_msg(same_ld(x->sum_err, y->sum_err), "sum_err %La != %La", x->sum_err, y->sum_err);
  ck_assert_msg(same_ld(x->sum_abs, y->sum_abs), "sum_abs %La != %La", x->sum_abs, y->sum_abs);
  ck_assert_int_eq(x->has_nan, y->has_nan);
  ck_assert_int_eq(x->has_pinf, y->has_pinf);
  ck_assert_int_eq(x->has_ninf, y->has_ninf);
  ck_assert_int_eq(x->imin, y->imin);
  ck_assert_int_eq(x->imax, y->imax);
  ck_assert_msg(same_d(x->fmin, y->fmin), "fmin %a != %a", x->fmin, y->fmin);
  ck_assert_msg(same_d(x->fmax, y->fmax), "fmax %a != %a", x->fmax, y->fmax);
  ck_assert_uint_eq(x->nvals, y->nvals);
}

static void put_ok(kg_refcache *c, const kg_refcache_entry *e) {
  char err[256] = "";
  ck_assert_msg(kg_refcache_put(c, e, err, sizeof err) == 0, "%s", err);
}

static void save_ok(kg_refcache *c, const char *path) {
  char err[512] = "";
  ck_assert_msg(kg_refcache_save(c, path, &g_key, err, sizeof err) == 0, "%s", err);
}

/* Loads path, asserting the number of dropped lines. */
static void load_expect(kg_refcache *c, const char *path, long dropped) {
  char err[512] = "";
  long got = kg_refcache_load(c, path, &g_key, err, sizeof err);
  ck_assert_msg(got == dropped, "%ld lines dropped, expected %ld: %s", got, dropped, err);
  ck_assert_msg(dropped ? strstr(err, path) != NULL : err[0] == '\0', "message: '%s'", err);
}

static void assert_found(const kg_refcache *c, const kg_refcache_entry *want) {
  const kg_refcache_entry *got = kg_refcache_find(c, want->dt, want->n, want->p, want->seed, want->gen_version);
  ck_assert_msg(got != NULL, "%s n=%zu %s seed %llu not found", kg_dtype_get(want->dt)->name, want->n,
                kg_pattern_name(want->p), (unsigned long long)want->seed);
  assert_same(got, want);
}

/* ---- Core --------------------------------------------------------------------- */

/* Groups of every dtype with the specials, the tiny and huge scales, an empty
 * input, one element, and inputs of several chunks (merged partials). */
static const struct {
  kg_dtype dt;
  kg_pattern p;
  size_t n;
} k_groups[] = {
    {KG_I32, KG_PAT_EXACT, 0},           {KG_I32, KG_PAT_WRAP, 1000},       {KG_I32, KG_PAT_WRAP, 3000001},
    {KG_I64, KG_PAT_WRAP, 4099},         {KG_I64, KG_PAT_EXACT, 1},         {KG_F32, KG_PAT_UNIFORM, 1000},
    {KG_F32, KG_PAT_EXACT, 2100000},     {KG_F64, KG_PAT_CANCEL, 5000},     {KG_F64, KG_PAT_UNIFORM, 0},
    {KG_F64, KG_PAT_TINY, 1000},         {KG_F64, KG_PAT_HUGE, 1000},       {KG_F16, KG_PAT_TINY, 777},
    {KG_BF16, KG_PAT_HUGE, 1000},        {KG_F32, KG_PAT_NAN, 100},         {KG_F64, KG_PAT_NAN, 1},
    {KG_F64, KG_PAT_INF, 100},           {KG_F32, KG_PAT_INF_NAN, 100},     {KG_F16, KG_PAT_INF_NAN, 1},
    {KG_BF16, KG_PAT_CANCEL, 1500000},   {KG_F16, KG_PAT_UNIFORM, 4096},
};

/* A real reference through save and load comes back bit for bit; so does a
 * second save of what was loaded (the file is canonical). */
START_TEST(test_refcache_round_trip) {
  kg_refcache_entry e = make_entry(k_groups[_i].dt, k_groups[_i].p, k_groups[_i].n, 42 + (uint64_t)_i);
  kg_refcache c = {0}, back;
  put_ok(&c, &e);
  save_ok(&c, g_path);
  load_expect(&back, g_path, 0);
  ck_assert_uint_eq(back.n, 1);
  assert_found(&back, &e);
  char *first = kgt_slurp(g_path);
  save_ok(&back, g_path);
  char *second = kgt_slurp(g_path);
  ck_assert_str_eq(first, second);
  free(first);
  free(second);
  kg_refcache_free(&c);
  kg_refcache_free(&back);
}
END_TEST

/* Long doubles at the edges of "%La" and strtold: a 64-bit significand, the
 * smallest subnormal, the largest value, -0; doubles at theirs; infinities. */
START_TEST(test_refcache_long_double_exact) {
  kg_refcache_entry e = {.dt = KG_F64, .p = KG_PAT_INF_NAN, .n = 10, .seed = 1, .gen_version = 1};
  kg_ref *r = &e.ref;
  r->imin = INT64_MAX, r->imax = INT64_MIN;
  r->sum = 1 + 0x1p-63L, r->sum_err = -0x1p-66L, r->sum_abs = LDBL_MAX;
  r->has_nan = r->has_pinf = r->has_ninf = 1;
  r->fmin = -INFINITY, r->fmax = INFINITY, r->nvals = 9;
  kg_refcache_entry f = e, g = e;
  f.seed = 2, f.ref.sum = -0.0L, f.ref.sum_err = 0, f.ref.sum_abs = LDBL_TRUE_MIN;
  f.ref.has_nan = f.ref.has_pinf = f.ref.has_ninf = 0, f.ref.nvals = 10;
  f.ref.fmin = -DBL_TRUE_MIN, f.ref.fmax = DBL_MAX;
  g.seed = 3, g.ref.sum = -0x1.fffffffffffffffep+16383L, g.ref.sum_err = 0x1p+16319L, g.ref.sum_abs = LDBL_MAX;
  g.ref.has_nan = g.ref.has_pinf = g.ref.has_ninf = 0, g.ref.nvals = 10;
  g.ref.fmin = -0.0, g.ref.fmax = DBL_MIN;
  kg_refcache c = {0}, back;
  put_ok(&c, &e);
  put_ok(&c, &f);
  put_ok(&c, &g);
  save_ok(&c, g_path);
  load_expect(&back, g_path, 0);
  ck_assert_uint_eq(back.n, 3);
  assert_found(&back, &e);
  assert_found(&back, &f);
  assert_found(&back, &g);
  ck_assert(signbit(kg_refcache_find(&back, KG_F64, 10, KG_PAT_INF_NAN, 2, 1)->ref.sum));
  kg_refcache_free(&c);
  kg_refcache_free(&back);
}
END_TEST

/* Each part of the key tells entries apart; another generator version is a
 * miss; a put of the same key replaces. */
START_TEST(test_refcache_find_keys) {
  kg_refcache c = {0};
  kg_refcache_entry e = make_entry(KG_F32, KG_PAT_UNIFORM, 100, 7);
  ck_assert_ptr_null(kg_refcache_find(&c, KG_F32, 100, KG_PAT_UNIFORM, 7, KG_GEN_VERSION)); /* empty */
  put_ok(&c, &e);
  ck_assert_ptr_nonnull(kg_refcache_find(&c, KG_F32, 100, KG_PAT_UNIFORM, 7, KG_GEN_VERSION));
  ck_assert_ptr_null(kg_refcache_find(&c, KG_F64, 100, KG_PAT_UNIFORM, 7, KG_GEN_VERSION));
  ck_assert_ptr_null(kg_refcache_find(&c, KG_F32, 101, KG_PAT_UNIFORM, 7, KG_GEN_VERSION));
  ck_assert_ptr_null(kg_refcache_find(&c, KG_F32, 100, KG_PAT_CANCEL, 7, KG_GEN_VERSION));
  ck_assert_ptr_null(kg_refcache_find(&c, KG_F32, 100, KG_PAT_UNIFORM, 8, KG_GEN_VERSION));
  ck_assert_ptr_null(kg_refcache_find(&c, KG_F32, 100, KG_PAT_UNIFORM, 7, KG_GEN_VERSION + 1));
  kg_refcache_entry again = e;
  again.fingerprint++;
  put_ok(&c, &again);
  ck_assert_uint_eq(c.n, 1);
  assert_found(&c, &again);
  kg_refcache_free(&c);
}
END_TEST

/* Many entries: the index grows and still finds each, and the file is sorted by key. */
START_TEST(test_refcache_many) {
  kg_refcache c = {0}, back;
  for (int i = 999; i >= 0; i--) {
    kg_refcache_entry e = make_entry(i % 2 ? KG_I64 : KG_I32, KG_PAT_WRAP, (size_t)i % 7, (uint64_t)i);
    put_ok(&c, &e);
  }
  save_ok(&c, g_path);
  load_expect(&back, g_path, 0);
  ck_assert_uint_eq(back.n, 1000);
  for (int i = 0; i < 1000; i++) assert_found(&back, &c.e[i]);
  ck_assert_int_eq(back.e[0].dt, KG_I32); /* written in key order, read in file order */
  ck_assert_uint_eq(back.e[0].n, 0);
  ck_assert_int_eq(back.e[999].dt, KG_I64);
  kg_refcache_free(&c);
  kg_refcache_free(&back);
}
END_TEST

/* No file is an empty cache; saving makes the folders on the way. */
START_TEST(test_refcache_missing_and_new_folder) {
  kg_refcache c;
  load_expect(&c, g_path, 0);
  ck_assert_uint_eq(c.n, 0);
  ck_assert_ptr_null(kg_refcache_find(&c, KG_I32, 1, KG_PAT_EXACT, 1, 1));
  kg_refcache_entry e = make_entry(KG_I32, KG_PAT_EXACT, 10, 1);
  put_ok(&c, &e);
  char deep[200];
  snprintf(deep, sizeof deep, "%s/a/b/refs.txt", g_dir);
  save_ok(&c, deep);
  kg_refcache_free(&c);
  load_expect(&c, deep, 0);
  assert_found(&c, &e);
  kg_refcache_free(&c);
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), 1); /* a, and no temp or lock file beside it */
}
END_TEST

/* The three places, in order; empty and relative XDG values skipped. */
START_TEST(test_refcache_default_path) {
  char p[64];
  unsetenv("KGATE_CACHE_DIR");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  ck_assert_int_eq(kg_refcache_default_path(p, sizeof p), -1);
  setenv("HOME", "/home/u", 1);
  ck_assert_int_eq(kg_refcache_default_path(p, sizeof p), 0);
  ck_assert_str_eq(p, "/home/u/.cache/kgate/refs.txt");
  setenv("XDG_CACHE_HOME", "relative/cache", 1);
  ck_assert_int_eq(kg_refcache_default_path(p, sizeof p), 0);
  ck_assert_str_eq(p, "/home/u/.cache/kgate/refs.txt");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  ck_assert_int_eq(kg_refcache_default_path(p, sizeof p), 0);
  ck_assert_str_eq(p, "/xdg/kgate/refs.txt");
  setenv("KGATE_CACHE_DIR", "", 1);
  ck_assert_int_eq(kg_refcache_default_path(p, sizeof p), 0);
  ck_assert_str_eq(p, "/xdg/kgate/refs.txt");
  setenv("KGATE_CACHE_DIR", "ci-cache", 1);
  ck_assert_int_eq(kg_refcache_default_path(p, sizeof p), 0);
  ck_assert_str_eq(p, "ci-cache/refs.txt");
  ck_assert_int_eq(kg_refcache_default_path(p, 12), -1); /* does not fit */
}
END_TEST

/* ---- Limits: writers side by side ------------------------------------------------ */

enum { WRITERS = 4, ROUNDS = 8, PER = 25 };

static uint64_t seed_of(int round, int k, int i) { return (uint64_t)(round * 10000 + k * 100 + i); }

/* A worker: loads, adds PER entries of its own (and one every worker adds), saves. */
static int worker(int round, int k) {
  kg_refcache c;
  char err[512];
  if (kg_refcache_load(&c, g_path, &g_key, err, sizeof err) != 0) return 1;
  for (int i = 0; i < PER; i++) {
    kg_refcache_entry e = make_entry(KG_I32, KG_PAT_EXACT, 16, seed_of(round, k, i));
    if (kg_refcache_put(&c, &e, err, sizeof err)) return 2;
  }
  kg_refcache_entry shared = make_entry(KG_F32, KG_PAT_UNIFORM, 64, (uint64_t)round);
  if (kg_refcache_put(&c, &shared, err, sizeof err) || kg_refcache_save(&c, g_path, &g_key, err, sizeof err)) return 3;
  kg_refcache_free(&c);
  return 0;
}

/* WRITERS processes save at once, ROUNDS times (the first from no file), while
 * this process reads the file again and again: no entry lost, no reader ever
 * sees a torn or corrupt file, every worker exits 0. */
START_TEST(test_refcache_writers_side_by_side) {
  long torn = 0, reads = 0;
  for (int round = 0; round < ROUNDS; round++) {
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    pid_t kids[WRITERS];
    for (int k = 0; k < WRITERS; k++) {
      kids[k] = fork();
      ck_assert_int_ge(kids[k], 0);
      if (kids[k] == 0) {
        char ch;
        close(go[1]);
        if (read(go[0], &ch, 1) != 0) _exit(9); /* 0 when the parent closes it: all start together */
        _exit(worker(round, k));
      }
    }
    close(go[0]);
    close(go[1]);
    for (int left = WRITERS; left;) {
      kg_refcache c;
      char err[512];
      torn += kg_refcache_load(&c, g_path, &g_key, err, sizeof err) != 0;
      reads++;
      kg_refcache_free(&c);
      int st;
      pid_t done = waitpid(-1, &st, WNOHANG);
      if (done <= 0) continue;
      ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a writer failed: status %d", st);
      left--;
    }
  }
  kg_refcache c;
  load_expect(&c, g_path, 0);
  ck_assert_uint_eq(c.n, (size_t)ROUNDS * (WRITERS * PER + 1));
  for (int round = 0; round < ROUNDS; round++)
    for (int k = 0; k < WRITERS; k++)
      for (int i = 0; i < PER; i++)
        ck_assert_ptr_nonnull(kg_refcache_find(&c, KG_I32, 16, KG_PAT_EXACT, seed_of(round, k, i), KG_GEN_VERSION));
  kg_refcache_free(&c);
  ck_assert_int_eq(torn, 0);
  ck_assert_int_gt(reads, 0);
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), 1); /* no temp file left */
}
END_TEST

/* A put past KG_REFCACHE_MAX is refused, with the reason. */
START_TEST(test_refcache_full) {
  kg_refcache c = {0};
  kg_refcache_entry e = make_entry(KG_I64, KG_PAT_WRAP, 3, 0);
  for (size_t i = 0; i < KG_REFCACHE_MAX; i++) {
    e.seed = i;
    put_ok(&c, &e);
  }
  char err[256] = "";
  e.seed = KG_REFCACHE_MAX;
  ck_assert_int_eq(kg_refcache_put(&c, &e, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "full"));
  e.seed = 5; /* an existing key still replaces */
  put_ok(&c, &e);
  ck_assert_uint_eq(c.n, KG_REFCACHE_MAX);
  kg_refcache_free(&c);
}
END_TEST

/* ---- Errors: corrupt files ------------------------------------------------------- */

/* The file as lines, each with its length (a line may hold NUL bytes). */
enum { MAXL = 8, LCAP = 2048 };
typedef struct lines {
  char s[MAXL][LCAP];
  size_t len[MAXL], n;
  int cut_end; /* the last line lacks its newline */
} lines;

static void read_lines(lines *L) {
  char *text = kgt_slurp(g_path);
  ck_assert_ptr_nonnull(text);
  memset(L, 0, sizeof *L);
  for (char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1, L->n++) {
    ck_assert_uint_lt(L->n, MAXL);
    L->len[L->n] = (size_t)(nl - p);
    memcpy(L->s[L->n], p, L->len[L->n]);
  }
  free(text);
}

static void write_lines(const lines *L) {
  FILE *f = fopen(g_path, "wb");
  ck_assert_ptr_nonnull(f);
  for (size_t i = 0; i < L->n; i++) {
    fwrite(L->s[i], 1, L->len[i], f);
    if (i + 1 < L->n || !L->cut_end) fputc('\n', f);
  }
  ck_assert_int_eq(fclose(f), 0);
}

/* The HMAC-SHA256 of the header, a newline and content under key, in hex
 * (computed here from nettle, not through refkey.c). */
static void mac_hex(const kg_refkey *key, const char *content, char hex[65]) {
  struct hmac_sha256_ctx ctx;
  uint8_t d[SHA256_DIGEST_SIZE];
  hmac_sha256_set_key(&ctx, sizeof key->k, key->k);
  hmac_sha256_update(&ctx, strlen(KG_REFCACHE_HEADER), (const uint8_t *)KG_REFCACHE_HEADER);
  hmac_sha256_update(&ctx, 1, (const uint8_t *)"\n");
  hmac_sha256_update(&ctx, strlen(content), (const uint8_t *)content);
  hmac_sha256_digest(&ctx, sizeof d, d);
  for (size_t k = 0; k < sizeof d; k++) snprintf(hex + 2 * k, 3, "%02x", d[k]);
}

/* The first `digits` hex digits of the content's plain SHA-256: the shipped
 * table's check (16), or a whole digest (64) in place of a MAC. */
static void sha_hex(const char *content, int digits, char *hex) {
  struct sha256_ctx ctx;
  uint8_t d[SHA256_DIGEST_SIZE];
  sha256_init(&ctx);
  sha256_update(&ctx, strlen(content), (const uint8_t *)content);
  sha256_digest(&ctx, sizeof d, d);
  for (int k = 0; k < digits / 2; k++) snprintf(hex + 2 * k, 3, "%02x", d[k]);
}

/* Replaces the last field of line i: with MAC under key, or (key NULL) a
 * plain SHA-256 of `digits` hex digits, for what the line now says. */
static void sign_with(lines *L, size_t i, const kg_refkey *key, int digits) {
  char *sp = strrchr(L->s[i], ' ');
  *sp = '\0';
  if (key) mac_hex(key, L->s[i], sp + 1);
  else sha_hex(L->s[i], digits, sp + 1);
  *sp = ' ';
  L->len[i] = strlen(L->s[i]);
}

/* Gives line i a correct MAC (the test's key) for what it now says. */
static void resign(lines *L, size_t i) { sign_with(L, i, &g_key, 0); }

/* Sets field k of line i to v, with a correct checksum. */
static void set_field(lines *L, size_t i, int k, const char *v) {
  char *s = L->s[i], out[LCAP] = "";
  for (int f = 0; s; f++) {
    char *sp = strchr(s, ' ');
    size_t len = sp ? (size_t)(sp - s) : strlen(s);
    snprintf(out + strlen(out), sizeof out - strlen(out), "%s%.*s", f ? " " : "", (int)(f == k ? strlen(v) : len),
             f == k ? v : s);
    s = sp ? sp + 1 : NULL;
  }
  snprintf(L->s[i], LCAP, "%s", out);
  resign(L, i);
}

/* The file holds the header and three entries: line 1 i32, line 2 f32, line 3 f64. */
static void flip_digit(lines *L) { /* a digit of the f32 sum: the MAC catches it */
  char *x = strstr(L->s[2], " 0x") + 3;
  *x = *x == '9' ? '8' : '9';
}
static void cut_line(lines *L) { L->s[2][L->len[2] /= 2] = '\0'; }
static void bad_check(lines *L) { L->s[2][L->len[2] - 1] ^= 1; }
static void cut_end(lines *L) {
  L->s[3][L->len[3] -= 5] = '\0';
  L->cut_end = 1;
}
static void dup_key(lines *L) { /* line 2 again, another fingerprint, signed */
  memcpy(L->s[4], L->s[2], LCAP);
  L->len[4] = L->len[2], L->n = 5;
  set_field(L, 4, 5, "00000000deadbeef");
}
static void dup_same(lines *L) { /* line 2 twice, byte for byte */
  memcpy(L->s[4], L->s[2], LCAP);
  L->len[4] = L->len[2], L->n = 5;
}
static void garbage(lines *L) {
  static const char junk[] = "\x7f" "ELF\x02\x01\x00\xff\xfe garbage\x00\x01";
  memcpy(L->s[4], junk, sizeof junk);
  L->len[4] = sizeof junk, L->n = 5;
}
static void nan_on_int(lines *L) { set_field(L, 1, 10, "1"); }
static void nvals_over_n(lines *L) { set_field(L, 1, 17, "1001"); }
static void unknown_dtype(lines *L) { set_field(L, 2, 0, "f8"); }
static void unknown_pattern(lines *L) { set_field(L, 2, 2, "bogus"); }
static void version_zero(lines *L) { set_field(L, 2, 4, "0"); }
static void nan_sum(lines *L) { set_field(L, 2, 7, "nan"); }
static void inf_sum(lines *L) { set_field(L, 2, 7, "inf"); }
static void decimal_sum(lines *L) { set_field(L, 2, 7, "1.5"); } /* a value, but not as kgate writes it */
static void leading_zero(lines *L) { set_field(L, 2, 1, "01000"); }
static void negative_n(lines *L) { set_field(L, 2, 1, "-1"); }
static void min_above_max(lines *L) { set_field(L, 2, 15, "0x1p+0"), set_field(L, 2, 16, "-0x1p+0"); }
static void two_spaces(lines *L) {
  char *sp = strchr(L->s[2], ' ');
  memmove(sp + 1, sp, strlen(sp) + 1);
  resign(L, 2);
}
static void too_long(lines *L) {
  memset(L->s[2] + L->len[2], 'a', 600);
  L->len[2] += 600;
  L->s[2][L->len[2]] = '\0';
}
static void wrong_header(lines *L) { L->s[0][strlen("kgate-refcache ")] = '0'; }
static void no_header(lines *L) {
  memmove(L->s[0], L->s[1], LCAP);
  L->len[0] = L->len[1];
}

static const struct {
  const char *name;
  void (*apply)(lines *L);
  long dropped;
  int kept; /* bit mask of the entries that survive (1 i32, 2 f32, 4 f64) */
} k_corrupt[] = {
    {"a flipped digit", flip_digit, 1, 5},       {"a cut line", cut_line, 1, 5},
    {"a bad MAC", bad_check, 1, 5},         {"the file cut short", cut_end, 1, 3},
    {"a duplicate key", dup_key, 2, 5},          {"a line twice", dup_same, 2, 5},
    {"binary garbage", garbage, 1, 7},           {"NaN on an integer", nan_on_int, 1, 6},
    {"nvals over n", nvals_over_n, 1, 6},        {"an unknown dtype", unknown_dtype, 1, 5},
    {"an unknown pattern", unknown_pattern, 1, 5}, {"generator version 0", version_zero, 1, 5},
    {"a NaN sum", nan_sum, 1, 5},                {"an infinite sum", inf_sum, 1, 5},
    {"a decimal sum", decimal_sum, 1, 5},        {"a leading zero", leading_zero, 1, 5},
    {"a negative n", negative_n, 1, 5},          {"min above max", min_above_max, 1, 5},
    {"two spaces", two_spaces, 1, 5},            {"a long line", too_long, 1, 5},
    {"a wrong header", wrong_header, 4, 0},      {"no header", no_header, 4, 0},
};

/* A corrupt file loads without its bad lines and says so, naming the file;
 * what survives is bit for bit what was saved; the next save leaves a file
 * that loads clean with the survivors and the new entry. */
START_TEST(test_refcache_corrupt) {
  kg_refcache_entry e[3] = {make_entry(KG_I32, KG_PAT_EXACT, 1000, 1), make_entry(KG_F32, KG_PAT_UNIFORM, 1000, 1),
                            make_entry(KG_F64, KG_PAT_NAN, 100, 1)};
  kg_refcache c = {0};
  for (int i = 0; i < 3; i++) put_ok(&c, &e[i]);
  save_ok(&c, g_path);
  kg_refcache_free(&c);
  lines L;
  read_lines(&L);
  ck_assert_uint_eq(L.n, 4);
  k_corrupt[_i].apply(&L);
  write_lines(&L);
  load_expect(&c, g_path, k_corrupt[_i].dropped);
  int kept = k_corrupt[_i].kept, n = 0;
  for (int i = 0; i < 3; i++) {
    if (kept >> i & 1) assert_found(&c, &e[i]), n++;
    else ck_assert_ptr_null(kg_refcache_find(&c, e[i].dt, e[i].n, e[i].p, e[i].seed, e[i].gen_version));
  }
  ck_assert_msg(c.n == (size_t)n, "%s: %zu entries kept, expected %d", k_corrupt[_i].name, c.n, n);
  kg_refcache_entry more = make_entry(KG_I64, KG_PAT_WRAP, 5, 9);
  put_ok(&c, &more);
  save_ok(&c, g_path);
  kg_refcache_free(&c);
  load_expect(&c, g_path, 0);
  ck_assert_uint_eq(c.n, (size_t)n + 1);
  kg_refcache_free(&c);
}
END_TEST

/* A file larger than any cache is corrupt (read as empty, replaced on save);
 * a folder is no cache at all (-1). */
START_TEST(test_refcache_too_big_or_folder) {
  FILE *f = fopen(g_path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ftruncate(fileno(f), (off_t)KG_REFCACHE_FILE_MAX + 1), 0); /* sparse: costs no disk */
  fclose(f);
  kg_refcache c;
  load_expect(&c, g_path, 1);
  ck_assert_uint_eq(c.n, 0);
  kg_refcache_entry e = make_entry(KG_I32, KG_PAT_EXACT, 3, 3);
  put_ok(&c, &e);
  save_ok(&c, g_path);
  kg_refcache_free(&c);
  load_expect(&c, g_path, 0);
  assert_found(&c, &e);
  kg_refcache_free(&c);
  char err[512] = "";
  ck_assert_int_eq(kg_refcache_load(&c, g_dir, &g_key, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, g_dir));
  ck_assert_uint_eq(c.n, 0);
}
END_TEST

/* put refuses what a load would drop, with the reason. */
START_TEST(test_refcache_put_refuses_untrue) {
  kg_refcache c = {0};
  kg_refcache_entry e = make_entry(KG_I32, KG_PAT_EXACT, 10, 1);
  char err[256] = "";
  e.ref.has_nan = 1;
  ck_assert_int_eq(kg_refcache_put(&c, &e, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "integer"));
  e = make_entry(KG_F64, KG_PAT_UNIFORM, 10, 1);
  e.ref.nvals = 11;
  ck_assert_int_eq(kg_refcache_put(&c, &e, err, sizeof err), -1);
  e.ref.nvals = 10, e.gen_version = 0;
  ck_assert_int_eq(kg_refcache_put(&c, &e, err, sizeof err), -1);
  e.gen_version = 1, e.dt = (kg_dtype)KG_NDTYPES;
  ck_assert_int_eq(kg_refcache_put(&c, &e, err, sizeof err), -1);
  ck_assert_uint_eq(c.n, 0);
  kg_refcache_free(&c);
}
END_TEST

/* ---- Errors: forged lines and the key ------------------------------------------- */

/* The three entries of the corrupt tests, saved under the test's key, and
 * the file's lines. */
static void three_saved(kg_refcache_entry e[3], lines *L) {
  e[0] = make_entry(KG_I32, KG_PAT_EXACT, 1000, 1);
  e[1] = make_entry(KG_F32, KG_PAT_UNIFORM, 1000, 1);
  e[2] = make_entry(KG_F64, KG_PAT_NAN, 100, 1);
  kg_refcache c = {0};
  for (int i = 0; i < 3; i++) put_ok(&c, &e[i]);
  save_ok(&c, g_path);
  kg_refcache_free(&c);
  read_lines(L);
  ck_assert_uint_eq(L->n, 4);
}

/* Line 2 (the f32 entry) made to say sum 2 (err 0): a value that can be true,
 * so only the line's signature can tell it from a real one. */
static void forge_sum(lines *L) {
  char two[64], zero[64];
  snprintf(two, sizeof two, "%La", 2.0L);
  snprintf(zero, sizeof zero, "%La", 0.0L);
  set_field(L, 2, 7, two);
  set_field(L, 2, 8, zero);
}

/* A forged reference whose line carries a correct SHA-256 of what it says
 * (all a checksum can check, and what anyone who can write the file can
 * compute) is dropped, the MAC named; so is a whole file in the checksummed
 * format kgate wrote before (its header and 16-digit checks) at the cache's
 * path: read as empty, never as references. */
START_TEST(test_refcache_forged_checksum) {
  kg_refcache_entry e[3];
  lines L;
  three_saved(e, &L);
  forge_sum(&L);
  sign_with(&L, 2, NULL, 64);
  write_lines(&L);
  kg_refcache c;
  char err[512] = "";
  ck_assert_int_eq(kg_refcache_load(&c, g_path, &g_key, err, sizeof err), 1);
  ck_assert_msg(strstr(err, g_path) && strstr(err, "line 3") && strstr(err, "MAC"), "message: '%s'", err);
  ck_assert_ptr_null(kg_refcache_find(&c, KG_F32, 1000, KG_PAT_UNIFORM, 1, KG_GEN_VERSION));
  assert_found(&c, &e[0]);
  assert_found(&c, &e[2]);
  kg_refcache_free(&c);

  /* The old format: the checksummed table's header and checks, the forged line among them. */
  snprintf(L.s[0], LCAP, "%s", KG_REFCACHE_TABLE_HEADER);
  L.len[0] = strlen(L.s[0]);
  for (size_t i = 1; i < 4; i++) sign_with(&L, i, NULL, 16);
  write_lines(&L);
  ck_assert_int_eq(kg_refcache_load(&c, g_path, &g_key, err, sizeof err), 4);
  ck_assert_msg(strstr(err, "not a kgate reference cache of this format"), "message: '%s'", err);
  ck_assert_uint_eq(c.n, 0);
  kg_refcache_free(&c);
}
END_TEST

/* Lines MACed under another key (another user's, another machine's cache)
 * are all dropped; the next save rewrites the file under this key. */
START_TEST(test_refcache_other_key) {
  kg_refcache_entry e[3];
  lines L;
  three_saved(e, &L);
  kg_refkey other = g_key;
  other.k[31] ^= 1;
  for (size_t i = 1; i < 4; i++) sign_with(&L, i, &other, 0);
  write_lines(&L);
  kg_refcache c;
  char err[512] = "";
  ck_assert_int_eq(kg_refcache_load(&c, g_path, &g_key, err, sizeof err), 3);
  ck_assert_msg(strstr(err, "MAC does not verify"), "message: '%s'", err);
  ck_assert_uint_eq(c.n, 0);
  kg_refcache_free(&c);
  /* and the right key reads the file the other key's writer would have read */
  ck_assert_int_eq(kg_refcache_load(&c, g_path, &other, err, sizeof err), 0);
  ck_assert_uint_eq(c.n, 3);
  kg_refcache_free(&c);
}
END_TEST

/* The shipped table's format (key NULL): its own header and checksums,
 * read back whole; neither format reads as the other. */
START_TEST(test_refcache_table_format) {
  kg_refcache_entry e = make_entry(KG_F64, KG_PAT_CANCEL, 5000, 1);
  kg_refcache c = {0}, back;
  put_ok(&c, &e);
  char err[512] = "";
  ck_assert_msg(kg_refcache_save(&c, g_path, NULL, err, sizeof err) == 0, "%s", err);
  char *text = kgt_slurp(g_path);
  ck_assert_msg(!strncmp(text, KG_REFCACHE_TABLE_HEADER "\n", strlen(KG_REFCACHE_TABLE_HEADER) + 1), "%s", text);
  free(text);
  ck_assert_int_eq(kg_refcache_load(&back, g_path, NULL, err, sizeof err), 0);
  assert_found(&back, &e);
  kg_refcache_free(&back);
  ck_assert_int_eq(kg_refcache_load(&back, g_path, &g_key, err, sizeof err), 2);
  ck_assert_uint_eq(back.n, 0);
  kg_refcache_free(&back);
  save_ok(&c, g_path); /* the keyed format over it */
  ck_assert_int_eq(kg_refcache_load(&back, g_path, NULL, err, sizeof err), 2);
  ck_assert_uint_eq(back.n, 0);
  kg_refcache_free(&back);
  kg_refcache_free(&c);
}
END_TEST

static char g_key_path[320], g_cache[192];

static void key_setup(void) {
  setup();
  snprintf(g_key_path, sizeof g_key_path, "%s/state/kgate/refcache.key", g_dir);
  snprintf(g_cache, sizeof g_cache, "%s/cache/refs.txt", g_dir);
  unsetenv("GITHUB_WORKSPACE");
  unsetenv("RUNNER_WORKSPACE");
}

/* A missing key is made once, with its folders: 32 bytes, mode 0600, the
 * same bytes on every open after; no temp file left beside it. */
START_TEST(test_refkey_made_once) {
  kg_refkey a, b;
  char err[512] = "";
  ck_assert_msg(kg_refkey_open(&a, g_key_path, g_cache, err, sizeof err) == 0, "%s", err);
  struct stat st;
  ck_assert_int_eq(lstat(g_key_path, &st), 0);
  ck_assert(S_ISREG(st.st_mode));
  ck_assert_uint_eq(st.st_mode & 07777, 0600);
  ck_assert_int_eq(st.st_size, KG_REFKEY_LEN);
  ck_assert_msg(kg_refkey_open(&b, g_key_path, g_cache, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(memcmp(a.k, b.k, sizeof a.k), 0);
  static const kg_refkey zero;
  ck_assert_int_ne(memcmp(a.k, zero.k, sizeof a.k), 0);
  char dir[256];
  snprintf(dir, sizeof dir, "%s/state/kgate", g_dir);
  ck_assert_int_eq(kgt_count_files(dir, NULL), 1);
}
END_TEST

/* Writes a key file of len bytes and mode at path (its folder made). */
static void write_key(const char *path, size_t len, mode_t mode) {
  char dir[512];
  ck_assert_uint_lt(strlen(path), sizeof dir);
  memcpy(dir, path, strlen(path) + 1);
  *strrchr(dir, '/') = '\0';
  char err[300];
  ck_assert_msg(kg_mkdirs(dir, err, sizeof err) == 0, "%s", err);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  for (size_t i = 0; i < len; i++) fputc((int)i, f);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(chmod(path, mode), 0);
}

static void key_0644(void) { write_key(g_key_path, KG_REFKEY_LEN, 0644); }
static void key_0400(void) { write_key(g_key_path, KG_REFKEY_LEN, 0400); }
static void key_short(void) { write_key(g_key_path, 16, 0600); }
static void key_symlink(void) { /* a link to a good key: the file at the path is not the user's own key */
  char target[256];
  snprintf(target, sizeof target, "%s/elsewhere.key", g_dir);
  write_key(target, KG_REFKEY_LEN, 0600);
  char dir[256];
  snprintf(dir, sizeof dir, "%s/state/kgate", g_dir);
  char err[300];
  ck_assert_msg(kg_mkdirs(dir, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(symlink(target, g_key_path), 0);
}
static void key_folder(void) {
  char err[300];
  ck_assert_msg(kg_mkdirs(g_key_path, err, sizeof err) == 0, "%s", err);
}
static void key_in_cache(void) { snprintf(g_key_path, sizeof g_key_path, "%s/cache/refcache.key", g_dir); }
static void key_in_cache_below(void) { snprintf(g_key_path, sizeof g_key_path, "%s/cache/keys/refcache.key", g_dir); }
static void key_in_workspace(void) {
  char ws[256];
  snprintf(ws, sizeof ws, "%s/work/repo", g_dir);
  char err[300];
  ck_assert_msg(kg_mkdirs(ws, err, sizeof err) == 0, "%s", err);
  setenv("GITHUB_WORKSPACE", ws, 1);
  snprintf(g_key_path, sizeof g_key_path, "%s/.kgate/refcache.key", ws);
}

static const struct {
  const char *name;
  void (*make)(void);
  const char *why;
} k_bad_keys[] = {
    {"mode 0644", key_0644, "mode is not 0600"},
    {"mode 0400", key_0400, "mode is not 0600"},
    {"16 bytes", key_short, "not 32 bytes"},
    {"a symbolic link", key_symlink, "symbolic link"},
    {"a folder", key_folder, "not a regular file"},
    {"in the cache's folder", key_in_cache, "inside the cache's folder"},
    {"below the cache's folder", key_in_cache_below, "inside the cache's folder"},
    {"in the workspace", key_in_workspace, "inside the CI workspace"},
};

/* A key anyone else could have written or read, or kept where the cache or
 * a job's checkout is, is refused with one line naming the file and why. */
START_TEST(test_refkey_refused) {
  k_bad_keys[_i].make();
  kg_refkey k;
  memset(&k, 0xaa, sizeof k);
  char err[512] = "";
  ck_assert_msg(kg_refkey_open(&k, g_key_path, g_cache, err, sizeof err) == -1, "%s: accepted", k_bad_keys[_i].name);
  ck_assert_msg(strstr(err, g_key_path) && strstr(err, k_bad_keys[_i].why), "%s: '%s'", k_bad_keys[_i].name, err);
  ck_assert_ptr_null(strchr(err, '\n'));
  static const kg_refkey zero;
  ck_assert_int_eq(memcmp(k.k, zero.k, sizeof k.k), 0);
}
END_TEST

/* The key's three places, in order; an empty or relative XDG value skipped. */
START_TEST(test_refkey_path) {
  char p[96];
  unsetenv("KGATE_REFCACHE_KEY");
  unsetenv("XDG_STATE_HOME");
  unsetenv("HOME");
  ck_assert_int_eq(kg_refkey_path(p, sizeof p), -1);
  setenv("HOME", "/home/u", 1);
  ck_assert_int_eq(kg_refkey_path(p, sizeof p), 0);
  ck_assert_str_eq(p, "/home/u/.local/state/kgate/refcache.key");
  setenv("XDG_STATE_HOME", "rel", 1);
  ck_assert_int_eq(kg_refkey_path(p, sizeof p), 0);
  ck_assert_str_eq(p, "/home/u/.local/state/kgate/refcache.key");
  setenv("XDG_STATE_HOME", "/xdg", 1);
  ck_assert_int_eq(kg_refkey_path(p, sizeof p), 0);
  ck_assert_str_eq(p, "/xdg/kgate/refcache.key");
  setenv("KGATE_REFCACHE_KEY", "/secrets/k", 1);
  ck_assert_int_eq(kg_refkey_path(p, sizeof p), 0);
  ck_assert_str_eq(p, "/secrets/k");
  ck_assert_int_eq(kg_refkey_path(p, 8), -1);
}
END_TEST

/* The roofline cache: a card's line is used for its driver and memory clock
 * for a week; another driver, clock or card, a stale, future or impossible
 * line is not; a put replaces the card's line, keeps other cards' and drops
 * malformed ones, making the folder when needed. */
START_TEST(test_roofcache) {
  char dir[256], path[320];
  kgt_mkscratch(dir, sizeof dir, "roof");
  snprintf(path, sizeof path, "%s/sub/roofline.txt", dir);
  kg_device_info d = kgt_h200();
  snprintf(d.uuid, sizeof d.uuid, "GPU-3cf61bf6-0000-1111-2222-333344445555");
  d.driver_version = 13000, d.mem_clock_khz = 3201000, d.peak_gbps = 4814;
  double now = 1.8e9, g = 0;
  ck_assert_int_eq(kg_roofcache_get(path, &d, now, &g), 0); /* no file */
  char err[300] = "";
  ck_assert_msg(kg_roofcache_put(path, &d, 4552.3, now, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kg_roofcache_get(path, &d, now + 3600, &g), 1);
  ck_assert_double_eq_tol(g, 4552.3, 1e-9);
  ck_assert_int_eq(kg_roofcache_get(path, &d, now + 8 * 86400.0, &g), 0); /* stale */
  ck_assert_int_eq(kg_roofcache_get(path, &d, now - 3600, &g), 0);        /* from the future */
  kg_device_info o = d;
  o.driver_version = 13010;
  ck_assert_int_eq(kg_roofcache_get(path, &o, now, &g), 0);
  o = d, o.mem_clock_khz = 2619000;
  ck_assert_int_eq(kg_roofcache_get(path, &o, now, &g), 0);
  o = d, o.peak_gbps = 4000; /* the cached value above this card's peak cannot be true */
  ck_assert_int_eq(kg_roofcache_get(path, &o, now, &g), 0);
  /* another card, then a malformed line by hand, then this card again */
  o = d;
  snprintf(o.uuid, sizeof o.uuid, "GPU-aa9e8299-0000-1111-2222-333344445555");
  ck_assert_int_eq(kg_roofcache_put(path, &o, 4470, now, err, sizeof err), 0);
  FILE *f = fopen(path, "a");
  fputs("kgate-roofline 1 GPU-nothex 13000 3201000 4500 1800000000\nkgate-roofline 1 junk\n", f);
  fclose(f);
  ck_assert_int_eq(kg_roofcache_put(path, &d, 4560, now, err, sizeof err), 0);
  ck_assert_int_eq(kg_roofcache_get(path, &d, now, &g), 1);
  ck_assert_double_eq_tol(g, 4560, 1e-9);
  ck_assert_int_eq(kg_roofcache_get(path, &o, now, &g), 1);
  ck_assert_double_eq_tol(g, 4470, 1e-9);
  char *text = kgt_slurp(path);
  ck_assert_msg(!strstr(text, "junk") && !strstr(text, "nothex") && !strstr(text, "4552.3"), "%s", text);
  free(text);
  kg_device_info none = d;
  none.uuid[0] = '\0';
  ck_assert_int_eq(kg_roofcache_put(path, &none, 4500, now, err, sizeof err), -1);
  ck_assert_int_eq(kg_roofcache_get(path, &none, now, &g), 0);
  kgt_rmtree(dir);
}
END_TEST

Suite *make_refcache_suite(void) {
  Suite *s = suite_create("refcache");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, setup, teardown);
  tcase_add_loop_test(core, test_refcache_round_trip, 0, N(k_groups));
  tcase_add_test(core, test_refcache_long_double_exact);
  tcase_add_test(core, test_refcache_find_keys);
  tcase_add_test(core, test_refcache_many);
  tcase_add_test(core, test_refcache_missing_and_new_folder);
  tcase_add_test(core, test_refcache_default_path);
  tcase_add_test(core, test_roofcache);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_checked_fixture(limits, setup, teardown);
  tcase_set_timeout(limits, 120);
  tcase_add_test(limits, test_refcache_writers_side_by_side);
  tcase_add_test(limits, test_refcache_full);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, setup, teardown);
  tcase_add_loop_test(errors, test_refcache_corrupt, 0, N(k_corrupt));
  tcase_add_test(errors, test_refcache_too_big_or_folder);
  tcase_add_test(errors, test_refcache_put_refuses_untrue);
  tcase_add_test(errors, test_refcache_forged_checksum);
  tcase_add_test(errors, test_refcache_other_key);
  tcase_add_test(errors, test_refcache_table_format);
  suite_add_tcase(s, errors);
  TCase *key = tcase_create("Key");
  tcase_add_checked_fixture(key, key_setup, teardown);
  tcase_add_test(key, test_refkey_made_once);
  tcase_add_loop_test(key, test_refkey_refused, 0, N(k_bad_keys));
  tcase_add_test(key, test_refkey_path);
  suite_add_tcase(s, key);
  return s;
}
