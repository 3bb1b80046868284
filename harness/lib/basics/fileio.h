/* Files that are never left half-written: write to a temp file beside the
 * target, then rename over it. "-" means standard output. Also the JSON
 * documents kgate keeps (results, baselines): atomic writing and loading
 * (their fields are read by jread.h); the writers' lock; and reading files
 * from elsewhere within a size limit. */
#ifndef KG_FILEIO_H
#define KG_FILEIO_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

typedef struct kg_outfile {
  FILE *f;
  char path[4096]; /* as given: what messages name */
  char real[4096]; /* path with its symbolic links followed: what is replaced */
  char tmp[4200];
  int is_stdout;
  int direct; /* written in place: a FIFO, a device, an open descriptor */
} kg_outfile;

/* Opens a writer of path:
 * - "-" and "/dev/stdout": standard output; "/dev/stderr", "/dev/fd/N" and
 *   "/proc/self/fd/N": a copy of that descriptor (a shell's `2>>log` keeps
 *   its meaning);
 * - a FIFO or a device (anything but a regular file or a directory): opened
 *   and written in place, never renamed over;
 * - otherwise the regular file at the end of path's symbolic links (the links
 *   stay links): <real>.tmp.<pid>.XXXXXX beside it, with the existing file's
 *   mode (and owner as root, group where allowed; best effort), renamed over
 *   it by kg_out_commit. Temp files of the same target whose writer process
 *   is gone are removed first, so killed writers leave no growing litter.
 * A directory is refused. 0, or -1 with err. */
int kg_out_open(kg_outfile *o, const char *path, char *err, size_t errlen);
/* Flushes, fsyncs, closes and renames into place (a direct target: flushes
 * and closes). 0, or -1 with err naming the path (the temp file is removed). */
int kg_out_commit(kg_outfile *o, char *err, size_t errlen);
/* Drops the temp file; the target is untouched. */
void kg_out_abort(kg_outfile *o);
/* The whole of a text file through kg_out_open: fill writes it, then a
 * stream error aborts ("cannot write PATH: write error", the target
 * untouched) and anything else commits. 0, or -1 with err. */
int kg_out_write(const char *path, void (*fill)(FILE *f, const void *ctx), const void *ctx, char *err, size_t errlen);

/* A JSON number, or null for a non-finite one (JSON has no Inf or NaN). */
json_t *kg_json_real(double v);
/* doc as kg_json_write lays it out, onto f: 0, or -1 (not an object, out of
 * memory, or a write error: errno says which when it is set). */
int kg_json_put(FILE *f, json_t *doc, const char *list_key);
/* Writes the object doc atomically as compact JSON with each top-level key on
 * its own line and each element of the array under list_key (may be NULL) on
 * its own line, as each element of a top-level object's KG_JSON_GROUPS
 * array (a check record's): small git diffs, greppable. Reals get 15
 * significant digits. 0, or -1 with err. */
#define KG_JSON_GROUPS "groups"
int kg_json_write(const char *path, json_t *doc, const char *list_key, char *err, size_t errlen);
/* Parses a file holding one JSON object: a regular file of at most
 * KG_JSON_MAX bytes (kg_in_open). 0 with *doc (the caller decrefs); 1 when
 * the file does not exist; -1 otherwise. err gets a one-line reason naming
 * the file (malformed JSON with its line and column). */
int kg_json_load(const char *path, json_t **doc, char *err, size_t errlen);

/* ---- the writers' lock ------------------------------------------------------
 * One read-modify-rename at a time per target (`history add`, `baseline
 * update`): an exclusive flock on the target itself (after its symbolic
 * links), or on its folder while the target does not exist yet, so no lock
 * file is left behind. A writer that renamed a new file over the target has
 * replaced the locked inode: the waiter sees that and locks the new one.
 * Advisory: it binds kgate writers, not `cp` or an editor. */
typedef struct kg_lock {
  int fd; /* -1: nothing held */
} kg_lock;

/* How long kg_lock_take waits for another writer: 30 s (docs/files.md). */
extern double kg_lock_wait_s;
/* Takes the lock of path, waiting up to kg_lock_wait_s. A target that is not
 * a regular file (a FIFO, a device, "-") takes no lock: it is never renamed
 * over. 0, or -1 with err ("cannot write PATH: another kgate has been writing
 * it for 30 s (its lock is held)"). */
int kg_lock_take(kg_lock *lk, const char *path, char *err, size_t errlen);
void kg_lock_drop(kg_lock *lk);

/* ---- reading files that come from elsewhere ----------------------------------
 * Size limits, decided before a byte is read (docs/files.md):
 * the largest real results file (a full sweep, huge tier, 8 shards merged) is
 * a few MiB, a baseline 50 KB; a history grows by 14 KB to 150 KB a night. */
#define KG_JSON_MAX ((size_t)64 << 20)     /* a results file or a baseline */
#define KG_HISTORY_MAX ((size_t)256 << 20) /* a history */

/* Opens path for reading when it is a regular file of at most limit bytes:
 * opened with O_NONBLOCK (a FIFO without a writer does not block) and judged
 * by fstat before any read (/dev/zero, a FIFO, a directory are refused).
 * 0 with *fd; 1 when path does not exist (err says so); -1 with err naming
 * the file. */
int kg_in_open(const char *path, size_t limit, int *fd, char *err, size_t errlen);
/* The whole of path (kg_in_open, then at most limit + 1 bytes read: a file
 * that grew past the limit is refused), NUL-terminated, malloc'ed. 0, 1 when
 * the file does not exist, -1 with err. */
int kg_read_file(const char *path, size_t limit, char **text, size_t *len, char *err, size_t errlen);

/* Lines of a file opened with kg_in_open, read in chunks: memory is the
 * longest line, and no more than limit bytes are read in all. */
typedef struct kg_lines {
  int fd;
  const char *path;
  size_t limit, total;
  char *buf;
  size_t cap, start, end;
  int eof;
} kg_lines;

void kg_lines_init(kg_lines *l, int fd, const char *path, size_t limit);
/* The next line, NUL-terminated without its newline (*newline says whether
 * it had one; only the last line may lack it), valid until the next call.
 * 1 a line, 0 the end, -1 a read error or the limit passed (err). */
int kg_lines_next(kg_lines *l, char **line, size_t *len, int *newline, char *err, size_t errlen);
void kg_lines_free(kg_lines *l); /* frees the buffer; the caller closes fd */

/* Appends the file from (which kgate just wrote) to path, opened for appending
 * and created when absent (`$GITHUB_STEP_SUMMARY`); every write checked.
 * 0, or -1 with err naming path. */
int kg_append_file(const char *path, const char *from, char *err, size_t errlen);

/* kgate's installed files, found from its own executable: the first of
 * <exe dir><rel[i]> that can be read, in buf. dir gets the executable's
 * folder ("" when unknown). 0, or -1 when none is there. */
int kg_beside_exe(const char *const *rel, size_t n, char *buf, size_t len, char *dir, size_t dirlen);

/* Creates dir and any missing parents. 0, or -1 with err. */
int kg_mkdirs(const char *dir, char *err, size_t errlen);
/* Creates the folder path is in (and its parents). 0, or -1 with err. */
int kg_make_parent(const char *path, char *err, size_t errlen);

/* A place a path may come from: an environment variable, whether its value
 * must be absolute (the XDG spec: a relative one is invalid, ignored), what
 * follows it, and whether it names the file itself (whole: no file after). */
typedef struct kg_env_place {
  const char *env;
  int absolute;
  const char *rel;
  int whole;
} kg_env_place;

/* The first place whose variable is set: its value, rel and file into buf.
 * 0, or -1 (none set, or too long). */
int kg_env_path(const kg_env_place *places, size_t n, const char *file, char *buf, size_t len);

/* A file of kgate's cache folder: $KGATE_CACHE_DIR/file, else
 * $XDG_CACHE_HOME/kgate/file (an absolute XDG_CACHE_HOME only, as the XDG
 * spec says), else $HOME/.cache/kgate/file. 0, or -1 when none is set or the
 * path does not fit. */
int kg_cache_path(const char *file, char *buf, size_t len);

#endif
