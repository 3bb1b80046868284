/* The reference cache's key (refkey.h): where it lives, making it once, the
 * checks that refuse a key anyone else could have written or read, and the MAC. */
#include "refkey.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

int kg_refkey_path(char *buf, size_t len) {
  static const kg_env_place k_places[] = {{"KGATE_REFCACHE_KEY", 0, "", 1},
                                          {"XDG_STATE_HOME", 1, "/kgate/", 0},
                                          {"HOME", 0, "/.local/state/kgate/", 0}};
  return kg_env_path(k_places, sizeof k_places / sizeof k_places[0], KG_REFKEY_FILE, buf, len);
}

/* The real path of the folder that path is in. 0, or -1. */
static int real_folder(const char *path, char out[PATH_MAX]) {
  char dir[PATH_MAX];
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == path) snprintf(dir, sizeof dir, "/");
  else if ((size_t)(slash - path) >= sizeof dir) return -1;
  else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  return realpath(dir, out) ? 0 : -1;
}

/* Whether the real folder dir is root or lies under it (root: any path that exists). */
static int inside(const char *dir, const char *root) {
  char r[PATH_MAX];
  if (!root || !*root || !realpath(root, r)) return 0;
  size_t n = strlen(r);
  if (n == 1) return 1; /* "/" */
  return strncmp(dir, r, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

/* Fills buf with n bytes of the kernel's random source. 0, or -1 (errno). */
static int random_bytes(unsigned char *buf, size_t n) {
  for (size_t got = 0; got < n;) {
    ssize_t r = getrandom(buf + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

/* A new key at path, made whole beside it and linked into place: a reader
 * never sees a part of one, and when two workers make one at once the first
 * link wins and the other's is dropped. 0 (made, or another was first), or -1 with err. */
static int make_key(const char *path, char *err, size_t errlen) {
  char tmp[PATH_MAX + 16];
  unsigned char k[KG_REFKEY_LEN];
  if (kg_make_parent(path, err, errlen)) return -1;
  if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof tmp)
    return snprintf(err, errlen, "reference cache key %.200s: path too long", path), -1;
  int fd = mkstemp(tmp); /* mode 0600 */
  if (fd < 0) return snprintf(err, errlen, "cannot create reference cache key %.200s: %s", path, strerror(errno)), -1;
  int bad = fchmod(fd, 0600) || random_bytes(k, sizeof k) || write(fd, k, sizeof k) != (ssize_t)sizeof k || fsync(fd);
  int e = errno;
  memset(k, 0, sizeof k);
  if (close(fd) && !bad) bad = 1, e = errno;
  if (!bad && link(tmp, path) && errno != EEXIST) bad = 1, e = errno;
  unlink(tmp);
  if (bad) return snprintf(err, errlen, "cannot create reference cache key %.200s: %s", path, strerror(e)), -1;
  return 0;
}

static const char k_rule[] = "the key must be a regular file of this user with mode 0600, outside the cache's folder "
                             "and the CI workspace (docs/checks.md)";

/* Opens the key, making it once when missing. The fd, or -1 with err. */
static int open_key(const char *path, char *err, size_t errlen) {
  for (int made = 0;; made = 1) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) return fd;
    if (errno == ELOOP)
      return snprintf(err, errlen, "reference cache key %.200s: a symbolic link; %s", path, k_rule), -1;
    if (errno != ENOENT || made)
      return snprintf(err, errlen, "cannot read reference cache key %.200s: %s", path, strerror(errno)), -1;
    if (make_key(path, err, errlen)) return -1;
  }
}

int kg_refkey_open(kg_refkey *key, const char *path, const char *cache_path, char *err, size_t errlen) {
  memset(key, 0, sizeof *key);
  /* The cache's folder first: a key made inside it would be refused anyway. */
  char dir[PATH_MAX], cache_dir[PATH_MAX];
  if (kg_make_parent(cache_path, err, errlen) || real_folder(cache_path, cache_dir))
    return snprintf(err, errlen, "reference cache %.200s: cannot resolve its folder", cache_path), -1;
  int fd = open_key(path, err, errlen);
  if (fd < 0) return -1;
  struct stat st;
  const char *why = NULL;
  if (fstat(fd, &st)) why = strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "not a regular file";
  else if (st.st_uid != geteuid()) why = "owned by another user";
  else if ((st.st_mode & 07777) != 0600) why = "its mode is not 0600";
  else if (st.st_size != KG_REFKEY_LEN) why = "not 32 bytes long";
  else if (real_folder(path, dir)) why = "its folder cannot be resolved";
  else if (inside(dir, cache_dir)) why = "inside the cache's folder";
  else if (inside(dir, getenv("GITHUB_WORKSPACE")) || inside(dir, getenv("RUNNER_WORKSPACE")))
    why = "inside the CI workspace";
  else if (read(fd, key->k, sizeof key->k) != (ssize_t)sizeof key->k) why = "cannot be read whole";
  close(fd);
  if (!why) return 0;
  memset(key, 0, sizeof *key);
  snprintf(err, errlen, "reference cache key %.200s: %s; %s", path, why, k_rule);
  return -1;
}
_Static_assert(KG_REFKEY_LEN == 32, "the message above says 32 bytes");

void kg_refkey_mac(const kg_refkey *key, const char *text, char hex[65]) {
  struct hmac_sha256_ctx ctx;
  uint8_t d[SHA256_DIGEST_SIZE];
  hmac_sha256_set_key(&ctx, sizeof key->k, key->k);
  hmac_sha256_update(&ctx, strlen(text), (const uint8_t *)text);
  hmac_sha256_digest(&ctx, sizeof d, d);
  for (size_t i = 0; i < sizeof d; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

int kg_refkey_mac_eq(const char *a, const char *b) {
  return strlen(a) == 64 && strlen(b) == 64 && memeql_sec(a, b, 64);
}
