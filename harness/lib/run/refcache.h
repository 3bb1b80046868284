/* The reference cache: the CPU reference of each input (kg_ref), computed
 * once and kept between runs in a text file, keyed by (dtype, n, pattern,
 * seed, generator version). Inputs are made on the GPU; their references
 * would cost most of a check if the CPU recomputed them every run.
 *
 * The file is never trusted: a line whose MAC, syntax, key or values cannot
 * be true is dropped, counted, and gone from the file after the next save; a
 * file of another format (an older one included) is read as empty and
 * replaced. Several processes (one per GPU) may save at once: each merges
 * what the file holds under the writers' lock (fileio.h) and renames a whole
 * new file over it.
 *
 * Each line's MAC is the HMAC-SHA256, under the user's key (refkey.h), of the
 * header line, a newline and the line's content: a checksum only finds
 * corruption, and anything that can write the file can recompute one. A
 * line forged without the key never verifies, so a cached reference cannot
 * make a wrong result pass unless the key was read (docs/checks.md).
 *
 * The format (one codec: refcache.c writes and reads it):
 *   line 1: KG_REFCACHE_HEADER
 *   then one entry a line, fields separated by one space:
 *     dtype n pattern seed gen fingerprint isum sum sum_err sum_abs nan pinf ninf imin imax fmin fmax nvals mac
 *   dtype and pattern by name ("f32", "uniform"); n, seed, gen, nvals in
 *   decimal; fingerprint in 16 hex digits; isum, imin, imax as signed
 *   decimals (isum's 64 bits read as int64); sum, sum_err, sum_abs as "%La"
 *   (hex, exact for every long double); fmin, fmax as "%a"; nan, pinf, ninf
 *   as 0 or 1; mac: 64 lowercase hex digits. A line must be exactly what the
 *   writer would write for the values it holds.
 *
 * The table kgate ships (KG_REFCACHE_TABLE) is the same but for its header
 * (KG_REFCACHE_TABLE_HEADER) and its last field, "check": the first 16 hex
 * digits of the SHA-256 of everything before the space that precedes it. It
 * is part of the installation, reviewed like its code and re-derived by a
 * test, and as trusted as the executable beside it: no key can ship with it. */
#ifndef KG_REFCACHE_H
#define KG_REFCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "pattern.h"
#include "reference.h"
#include "refkey.h"

#define KG_REFCACHE_HEADER                                                                                     \
  "kgate-refcache 2: dtype n pattern seed gen fingerprint isum sum sum_err sum_abs nan pinf ninf imin imax " \
  "fmin fmax nvals mac"
#define KG_REFCACHE_TABLE_HEADER                                                                               \
  "kgate-refcache 1: dtype n pattern seed gen fingerprint isum sum sum_err sum_abs nan pinf ninf imin imax " \
  "fmin fmax nvals check"
/* A file holds at most this many entries: a few thousand inputs make the
 * whole default matrix (every size, dtype and pattern of one seed), so this
 * is room for dozens of seeds and generator versions. Past it, put refuses,
 * a load drops the extra lines and a save leaves the file's extra entries
 * out; each says how many. */
#define KG_REFCACHE_MAX ((size_t)1 << 17)
/* A written line is at most about 380 bytes; anything longer is not one of ours. */
#define KG_REFCACHE_LINE_MAX 512
/* What a load reads at most (about 64 MiB): a full cache of the longest lines. */
#define KG_REFCACHE_FILE_MAX ((KG_REFCACHE_MAX + 1) * (KG_REFCACHE_LINE_MAX + 1))

typedef struct kg_refcache_entry {
  kg_dtype dt;
  kg_pattern p;
  size_t n;
  uint64_t seed;
  unsigned gen_version; /* KG_GEN_VERSION of the generator that made the input */
  /* The caller's hash of the input the reference was computed from, kept so
   * that an input made elsewhere (on the GPU) can be checked against it. */
  uint64_t fingerprint;
  kg_ref ref;
} kg_refcache_entry;

/* Entries in a growing array, found through an open-addressing index. A
 * zeroed kg_refcache is an empty cache. */
typedef struct kg_refcache {
  kg_refcache_entry *e;
  size_t n, cap;
  uint32_t *slot; /* index + 1 into e, 0 empty; nslot is a power of two, at least 2 * cap */
  size_t nslot;
} kg_refcache;

/* Reads path into cache (which need not be initialised; what it held is not
 * freed): the user's cache with key, the shipped table with key NULL (its
 * header and checksums; a file of the other kind is of another format). A
 * missing file is an empty cache. A line whose MAC does not verify under key
 * is dropped like any corrupt line. Returns the number of lines
 * dropped as corrupt (0: none; a key on two lines drops both, as neither can
 * be trusted; a file of another format drops all of its lines), with err
 * holding one line that names the file, the count and the
 * first bad line's reason when it is not 0; or -1 with err when the file
 * cannot be read at all (not a regular file, no permission, out of memory). */
long kg_refcache_load(kg_refcache *cache, const char *path, const kg_refkey *key, char *err, size_t errlen);

/* The entry for this key, or NULL. Entries of another generator version
 * are never returned: their inputs were other data. */
const kg_refcache_entry *kg_refcache_find(const kg_refcache *cache, kg_dtype dt, size_t n, kg_pattern p,
                                          uint64_t seed, unsigned gen_version);

/* Adds e, or replaces the entry of the same key. -1 with err when e is one a
 * load would drop (why_bad's reason), the cache is full (KG_REFCACHE_MAX) or
 * memory is out; 0 otherwise. */
int kg_refcache_put(kg_refcache *cache, const kg_refcache_entry *e, char *err, size_t errlen);

/* Writes the cache to path, each line MACed under key (NULL: the shipped
 * table's format, for the tool that makes it): creates path's folder, takes the writers' lock,
 * merges in the entries the file holds now (the cache's own win for the same
 * key; they are added to cache, too), and renames the whole new file, sorted
 * by key, over the old one. Corrupt lines of the old file are not carried over.
 * Returns how many of the file's entries did not fit (KG_REFCACHE_MAX), with
 * err saying so: normally 0; or -1 with err. */
long kg_refcache_save(kg_refcache *cache, const char *path, const kg_refkey *key, char *err, size_t errlen);

void kg_refcache_free(kg_refcache *cache); /* leaves an empty cache */

/* Where the cache lives: $KGATE_CACHE_DIR/refs.txt, else
 * $XDG_CACHE_HOME/kgate/refs.txt (an absolute one: the XDG spec says a
 * relative one is ignored), else $HOME/.cache/kgate/refs.txt. 0, or -1 when
 * none is set or the path does not fit. */
int kg_refcache_default_path(char *buf, size_t len);

/* The references of the default inputs (seed 1, every default size, dtype
 * and pattern), shipped with kgate and re-derived by a test
 * (tests/ref_table.c), so that a fresh runner makes no reference at all. */
#define KG_REFCACHE_TABLE "kgate-refs.txt"
/* Where the shipped table is: beside the executable (a build tree) or in
 * <prefix>/share/kgate. 0, or -1 when it is in neither. */
int kg_refcache_table_path(char *buf, size_t len);

#endif
