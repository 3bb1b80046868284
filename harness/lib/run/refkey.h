/* The reference cache's key (refcache.h): 32 random bytes in a file of the
 * user's own, outside the cache's folder and the CI workspace. Every line of
 * the cache carries the HMAC-SHA256 of its content under this key, so a line
 * written by anything that cannot read the key (a forged file restored into
 * the cache folder, a cache carried from another machine, a pull request's
 * job on another runner) never verifies. Code running as the same user on the
 * same host can read the key: it is no defence against that (docs/checks.md). */
#ifndef KG_REFKEY_H
#define KG_REFKEY_H

#include <stddef.h>

#define KG_REFKEY_LEN 32
#define KG_REFKEY_FILE "refcache.key"

typedef struct kg_refkey {
  unsigned char k[KG_REFKEY_LEN];
} kg_refkey;

/* Where the key lives: $KGATE_REFCACHE_KEY (the file's path), else
 * $XDG_STATE_HOME/kgate/refcache.key (an absolute XDG_STATE_HOME only, as
 * the XDG spec says), else $HOME/.local/state/kgate/refcache.key. 0, or -1
 * when none is set or the path does not fit. */
int kg_refkey_path(char *buf, size_t len);

/* The key at path, made when missing (its folders too): KG_REFKEY_LEN bytes
 * of getrandom(), mode 0600, put in place whole by a link, so that workers
 * starting side by side all read the first one made. Refused (-1 with err
 * naming path): a symbolic link, not a regular file, not owned by this user,
 * a mode other than 0600, another size, or a file inside the folder of
 * cache_path or inside $GITHUB_WORKSPACE or $RUNNER_WORKSPACE (a key kept
 * with the cache, or where a job's checkout can write, guards nothing). */
int kg_refkey_open(kg_refkey *key, const char *path, const char *cache_path, char *err, size_t errlen);

/* The HMAC-SHA256 under key of text, as 64 lowercase hex digits. */
void kg_refkey_mac(const kg_refkey *key, const char *text, char hex[65]);

/* Whether two MACs in hex are equal, in time that does not depend on where they differ. */
int kg_refkey_mac_eq(const char *a, const char *b);

#endif
