/* Atomic file writes and JSON documents. A reader of a results file or a
 * baseline (a person, CI, `kgate compare`) must never see half a file: a
 * killed run leaves the old file, plus at worst a stray <path>.tmp.<pid>.XXXXXX
 * that the next writer of that path removes. */
#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- writing ------------------------------------------------------------- */

/* The descriptor a path names without naming a file: "/dev/stderr",
 * "/dev/fd/N", "/proc/self/fd/N". Writing through it keeps the meaning the
 * shell gave it (`2>>log` appends); reopening the path, or renaming over the
 * file behind it, would not. -1 for any other path. */
static int named_fd(const char *path) {
  if (strcmp(path, "/dev/stderr") == 0) return STDERR_FILENO;
  const char *num = strncmp(path, "/dev/fd/", 8) == 0           ? path + 8
                    : strncmp(path, "/proc/self/fd/", 14) == 0 ? path + 14
                                                                : NULL;
  if (!num || *num < '0' || *num > '9') return -1;
  char *end;
  long fd = strtol(num, &end, 10);
  return *end || fd > INT_MAX ? -1 : (int)fd;
}

/* path's folder ("." for a bare name) and last component. */
static void split_path(const char *path, char *dir, size_t dirlen, const char **base) {
  const char *slash = strrchr(path, '/');
  *base = slash ? slash + 1 : path;
  if (!slash) snprintf(dir, dirlen, ".");
  else if (slash == path) snprintf(dir, dirlen, "/");
  else snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
}

/* Follows path's symbolic links (the last component's, hop by hop: the
 * folders on the way the kernel follows itself) to the file they name, which
 * need not exist yet: a link to a history not yet written creates it there.
 * 0 with real, or -1 with err. */
static int follow_links(const char *path, char *real, size_t len, char *err, size_t errlen) {
  char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
  const char *base;
  if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur) goto toolong;
  for (int hop = 0;; hop++) {
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) break; /* the end of the chain (or absent) */
    if (hop == 40) {
      snprintf(err, errlen, "cannot write %s: %s", path, strerror(ELOOP));
      return -1;
    }
    ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0) {
      snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
      return -1;
    }
    link[n] = '\0';
    split_path(cur, dir, sizeof dir, &base);
    /* A relative link is relative to the folder holding the link. */
    int w = link[0] == '/' ? snprintf(cur, sizeof cur, "%s", link) : snprintf(cur, sizeof cur, "%s/%s", dir, link);
    if (w >= (int)sizeof cur) goto toolong;
  }
  if (snprintf(real, len, "%s", cur) < (int)len) return 0;
toolong:
  snprintf(err, errlen, "cannot write %.60s...: path too long", path);
  return -1;
}

/* Removes the temp files of real's killed writers: <base>.tmp.<pid>.XXXXXX
 * whose process is gone, and the pid-less <base>.tmp.XXXXXX of older kgates
 * once an hour old. A pid names a process of this host: temp files of a
 * writer on another machine sharing the folder would look stale, which is
 * one more reason to write a shared file from one host. */
static void sweep_stale(const char *real) {
  char dir[PATH_MAX], prefix[NAME_MAX + 8];
  const char *base;
  split_path(real, dir, sizeof dir, &base);
  size_t plen = (size_t)snprintf(prefix, sizeof prefix, "%s.tmp.", base);
  if (plen >= sizeof prefix) return;
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, prefix, plen) != 0) continue;
    const char *rest = e->d_name + plen;
    char *end;
    errno = 0;
    long pid = strtol(rest, &end, 10);
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    int stale;
    if (end != rest && *end == '.' && strlen(end + 1) == 6 && pid > 0 && !errno)
      stale = pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
    else
      stale = strlen(rest) == 6 && time(NULL) - st.st_mtime > 3600;
    if (stale) unlinkat(dirfd(d), e->d_name, 0);
  }
  closedir(d);
}

static int open_direct(kg_outfile *o, int fd, char *err, size_t errlen) {
  if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
    snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  o->direct = 1;
  return 0;
}

int kg_out_open(kg_outfile *o, const char *path, char *err, size_t errlen) {
  memset(o, 0, sizeof *o);
  if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) {
    o->f = stdout;
    o->is_stdout = 1;
    snprintf(o->path, sizeof o->path, "-");
    return 0;
  }
  if (strlen(path) >= sizeof o->path) {
    snprintf(err, errlen, "cannot write %.60s...: path too long", path);
    return -1;
  }
  snprintf(o->path, sizeof o->path, "%s", path);
  int named = named_fd(path);
  if (named >= 0) return open_direct(o, fcntl(named, F_DUPFD_CLOEXEC, 3), err, errlen);
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      snprintf(err, errlen, "cannot write %s: it is a directory", path);
      return -1;
    }
    /* A FIFO or a device was asked for: write to it, never rename over it
     * (as root, a rename would replace /dev/full with a plain file). */
    return open_direct(o, open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), err, errlen);
  }
  if (follow_links(path, o->real, sizeof o->real, err, errlen)) return -1;
  sweep_stale(o->real);
  /* Beside the real file, so that rename() stays within one file system; the
   * pid tells a later writer whether this one is still alive. */
  if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld.XXXXXX", o->real, (long)getpid()) >= (int)sizeof o->tmp) {
    snprintf(err, errlen, "cannot write %.60s...: path too long", path);
    return -1;
  }
  int fd = mkostemp(o->tmp, O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  /* An existing file keeps its mode, and its owner and group as far as we
   * may set them (chown before chmod: chown clears set-id bits). A new one
   * gets the mode fopen would give: mkstemp makes 0600. Reading the umask
   * means setting it: harmless here, no thread creates files now. */
  mode_t mode;
  if (stat(o->real, &st) == 0 && S_ISREG(st.st_mode)) {
    if (fchown(fd, geteuid() == 0 ? st.st_uid : (uid_t)-1, st.st_gid) != 0) errno = 0; /* best effort */
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    close(fd);
    unlink(o->tmp);
    return -1;
  }
  return 0;
}

int kg_out_commit(kg_outfile *o, char *err, size_t errlen) {
  if (!o->f) {
    snprintf(err, errlen, "cannot write %s: not open", o->path);
    return -1;
  }
  if (o->is_stdout) { /* never closed: later output may follow */
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    o->f = NULL;
    if (bad) snprintf(err, errlen, "cannot write to standard output: %s", strerror(errno ? errno : EIO));
    return bad ? -1 : 0;
  }
  if (o->direct) { /* no fsync: a pipe or a device has none */
    errno = 0;
    int bad = fflush(o->f) != 0 || ferror(o->f), e = errno;
    if (fclose(o->f) != 0 && !bad) bad = 1, e = errno;
    o->f = NULL;
    if (bad) snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e ? e : EIO));
    return bad ? -1 : 0;
  }
  /* fsync before rename: otherwise a crash soon after can leave the new name
   * pointing at an empty file on some file systems. */
  errno = 0;
  int bad = fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0;
  int e = errno;
  if (fclose(o->f) != 0 && !bad) bad = 1, e = errno;
  o->f = NULL;
  if (!bad && rename(o->tmp, o->real) != 0) bad = 1, e = errno;
  if (bad) {
    snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e ? e : EIO));
    unlink(o->tmp);
    return -1;
  }
  return 0;
}

int kg_out_write(const char *path, void (*fill)(FILE *f, const void *ctx), const void *ctx, char *err, size_t errlen) {
  kg_outfile o;
  if (kg_out_open(&o, path, err, errlen)) return -1;
  fill(o.f, ctx);
  if (ferror(o.f)) {
    kg_out_abort(&o);
    snprintf(err, errlen, "cannot write %s: write error", path);
    return -1;
  }
  return kg_out_commit(&o, err, errlen);
}

void kg_out_abort(kg_outfile *o) {
  if (!o->f) return;
  if (!o->is_stdout) {
    fclose(o->f);
    if (!o->direct) unlink(o->tmp);
  }
  o->f = NULL;
}

json_t *kg_json_real(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* 15 significant digits: every decimal of up to 15 digits (0.005, 12.3) reads
 * back as the same double and prints as typed, where jansson's default 17
 * would show 0.0050000000000000001 in every baseline diff. Timings carry far
 * fewer meaningful digits than 15. */
static int dump_any(FILE *f, json_t *v) {
  return json_dumpf(v, f, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
}

static int dump_list(FILE *f, json_t *a) {
  size_t i;
  json_t *v;
  int bad = fputs("[", f) == EOF;
  json_array_foreach(a, i, v) bad |= fputs(i ? ",\n" : "\n", f) == EOF || dump_any(f, v) != 0;
  return bad | (fputs(json_array_size(a) ? "\n]" : "]", f) == EOF);
}

/* An object: its array under list_key (NULL: none) an element a line, the
 * rest compact; a top-level object's member objects get their "groups"
 * laid out so too (nested: 1). */
static int put_object(FILE *f, json_t *o, const char *list_key, int nested, const char *sep) {
  const char *key;
  json_t *v;
  int bad = fputs("{", f) == EOF, first = 1;
  json_object_foreach(o, key, v) {
    json_t *k = json_string(key);
    bad |= !k || fputs(first ? "" : sep, f) == EOF || dump_any(f, k) != 0 || fputs(":", f) == EOF;
    json_decref(k);
    if (list_key && strcmp(key, list_key) == 0 && json_is_array(v)) bad |= dump_list(f, v);
    else if (nested && json_is_object(v) && json_is_array(json_object_get(v, KG_JSON_GROUPS)))
      bad |= put_object(f, v, KG_JSON_GROUPS, 0, ",");
    else bad |= dump_any(f, v) != 0;
    first = 0;
  }
  return bad | (fputs("}", f) == EOF);
}

int kg_json_put(FILE *f, json_t *doc, const char *list_key) {
  if (!json_is_object(doc)) return -1;
  int bad = put_object(f, doc, list_key, 1, ",\n");
  bad |= fputs("\n", f) == EOF;
  return bad ? -1 : 0;
}

int kg_json_write(const char *path, json_t *doc, const char *list_key, char *err, size_t errlen) {
  kg_outfile o;
  if (!json_is_object(doc)) {
    snprintf(err, errlen, "cannot write %s: out of memory", path);
    return -1;
  }
  if (kg_out_open(&o, path, err, errlen)) return -1;
  errno = 0; /* set below only by a failed write; else the failure was memory */
  if (kg_json_put(o.f, doc, list_key)) {
    snprintf(err, errlen, "cannot write %s: %s", path, errno ? strerror(errno) : "out of memory");
    kg_out_abort(&o);
    return -1;
  }
  return kg_out_commit(&o, err, errlen);
}

int kg_json_load(const char *path, json_t **doc, char *err, size_t errlen) {
  *doc = NULL;
  char *text;
  size_t len;
  int rc = kg_read_file(path, KG_JSON_MAX, &text, &len, err, errlen);
  if (rc) return rc;
  json_error_t je;
  json_t *d = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
  free(text);
  if (!d) snprintf(err, errlen, "%s: malformed JSON at line %d, column %d: %s", path, je.line, je.column, je.text);
  else if (!json_is_object(d)) snprintf(err, errlen, "%s: the top level is not a JSON object", path);
  if (!json_is_object(d)) {
    json_decref(d);
    return -1;
  }
  *doc = d;
  return 0;
}

/* ---- the writers' lock --------------------------------------------------- */

double kg_lock_wait_s = 30;

static double mono_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One try: locks what stands for real now (the file, or its folder while the
 * file is absent) and checks it still stands for it. 0 locked (*fd), 1 held
 * by another writer or replaced meanwhile (try again), 2 nothing to lock (not
 * a regular file), -1 with err. */
static int lock_once(const char *path, const char *real, int *fd, char *err, size_t errlen) {
  struct stat st, now;
  char dir[PATH_MAX];
  const char *base;
  int absent = stat(real, &st) != 0;
  if (absent && errno != ENOENT) {
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  if (!absent && !S_ISREG(st.st_mode)) return 2;
  if (absent) split_path(real, dir, sizeof dir, &base);
  *fd = absent ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
               : open(real, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (*fd < 0) {
    if (errno == ENOENT && !absent) return 1; /* removed between stat and open */
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    close(*fd);
    if (e == EWOULDBLOCK || e == EINTR) return 1;
    snprintf(err, errlen, "cannot lock %s: %s", path, strerror(e));
    return -1;
  }
  /* The previous holder may have renamed a new file over the one locked, or
   * created the absent one: then this lock guards nothing. */
  int same = absent ? stat(real, &now) != 0 && errno == ENOENT
                    : fstat(*fd, &st) == 0 && stat(real, &now) == 0 && now.st_dev == st.st_dev &&
                          now.st_ino == st.st_ino;
  if (same) return 0;
  close(*fd);
  return 1;
}

int kg_lock_take(kg_lock *lk, const char *path, char *err, size_t errlen) {
  lk->fd = -1;
  if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0 || named_fd(path) >= 0) return 0;
  char real[PATH_MAX];
  if (follow_links(path, real, sizeof real, err, errlen)) return -1;
  double deadline = mono_s() + kg_lock_wait_s;
  long nap_us = 1000;
  for (;;) {
    int fd, rc = lock_once(path, real, &fd, err, errlen);
    if (rc == 0) lk->fd = fd;
    if (rc != 1) return rc < 0 ? -1 : 0;
    if (mono_s() >= deadline) {
      snprintf(err, errlen, "cannot write %s: another kgate has been writing it for %g s (its lock is held)", path,
               kg_lock_wait_s);
      return -1;
    }
    /* Short naps first: an append takes milliseconds. */
    struct timespec t = {0, nap_us * 1000};
    nanosleep(&t, NULL);
    nap_us = nap_us < 50000 ? 2 * nap_us : 50000;
  }
}

void kg_lock_drop(kg_lock *lk) {
  if (lk->fd >= 0) close(lk->fd); /* closing the last descriptor releases the flock */
  lk->fd = -1;
}

/* ---- reading files from elsewhere --------------------------------------- */

static const char *file_kind(mode_t m) {
  return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "a special file";
}

int kg_in_open(const char *path, size_t limit, int *fd, char *err, size_t errlen) {
  /* O_NONBLOCK: opening a FIFO with no writer would block; fstat decides
   * before any read whether this is a file at all. */
  *fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (*fd < 0) {
    int e = errno;
    snprintf(err, errlen, "cannot read %s: %s", path, strerror(e));
    return e == ENOENT ? 1 : -1;
  }
  struct stat st;
  char why[128] = "";
  int flags;
  if (fstat(*fd, &st) != 0) snprintf(why, sizeof why, "%s", strerror(errno));
  else if (!S_ISREG(st.st_mode)) snprintf(why, sizeof why, "it is %s, not a regular file", file_kind(st.st_mode));
  else if ((unsigned long long)st.st_size > limit)
    snprintf(why, sizeof why, "%lld bytes, over kgate's limit of %zu MiB for this file", (long long)st.st_size,
             limit >> 20);
  else if ((flags = fcntl(*fd, F_GETFL)) < 0 || fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
    snprintf(why, sizeof why, "%s", strerror(errno));
  if (why[0]) {
    snprintf(err, errlen, "cannot read %s: %s", path, why);
    close(*fd);
    *fd = -1;
    return -1;
  }
  return 0;
}

void kg_lines_init(kg_lines *l, int fd, const char *path, size_t limit) {
  *l = (kg_lines){.fd = fd, .path = path, .limit = limit};
}

void kg_lines_free(kg_lines *l) {
  free(l->buf);
  l->buf = NULL;
  l->cap = l->start = l->end = 0;
}

/* Reads the next chunk into l->buf: 0 read (or the end), -1 with err. */
static int lines_fill(kg_lines *l, char *err, size_t errlen) {
  enum { CHUNK = 1 << 16 };
  if (l->start > 0) { /* keep only the unfinished line */
    memmove(l->buf, l->buf + l->start, l->end - l->start);
    l->end -= l->start;
    l->start = 0;
  }
  if (l->end + CHUNK + 1 > l->cap) {
    size_t cap = 2 * l->cap > l->end + CHUNK + 1 ? 2 * l->cap : l->end + CHUNK + 1;
    char *more = realloc(l->buf, cap);
    if (!more) {
      snprintf(err, errlen, "cannot read %s: out of memory", l->path);
      return -1;
    }
    l->buf = more, l->cap = cap;
  }
  /* At most limit + 1 bytes in all: one past the limit proves the file grew. */
  size_t want = l->limit + 1 - l->total < CHUNK ? l->limit + 1 - l->total : CHUNK;
  ssize_t got;
  do got = read(l->fd, l->buf + l->end, want);
  while (got < 0 && errno == EINTR);
  if (got < 0) {
    snprintf(err, errlen, "cannot read %s: %s", l->path, strerror(errno));
    return -1;
  }
  l->total += (size_t)got;
  l->end += (size_t)got;
  if (l->total > l->limit) {
    snprintf(err, errlen, "cannot read %s: it grew past kgate's limit of %zu MiB for this file", l->path,
             l->limit >> 20);
    return -1;
  }
  l->eof = got == 0;
  return 0;
}

int kg_lines_next(kg_lines *l, char **line, size_t *len, int *newline, char *err, size_t errlen) {
  size_t scanned = 0; /* bytes of the current line already searched for '\n' */
  for (;;) {
    /* No buffer before the first read (an empty file never gets one). */
    char *s = l->buf ? l->buf + l->start : NULL;
    char *nl = s ? memchr(s + scanned, '\n', l->end - l->start - scanned) : NULL;
    if (nl || (l->eof && l->end > l->start)) {
      *line = s;
      *len = nl ? (size_t)(nl - s) : l->end - l->start;
      *newline = nl != NULL;
      s[*len] = '\0'; /* the newline's place, or the spare byte lines_fill keeps */
      l->start += *len + (nl != NULL);
      return 1;
    }
    if (l->eof) return 0;
    scanned = l->end - l->start;
    if (lines_fill(l, err, errlen)) return -1;
  }
}

int kg_read_file(const char *path, size_t limit, char **text, size_t *len, char *err, size_t errlen) {
  *text = NULL;
  *len = 0;
  int fd, rc = kg_in_open(path, limit, &fd, err, errlen);
  if (rc) return rc;
  kg_lines l;
  kg_lines_init(&l, fd, path, limit);
  do rc = lines_fill(&l, err, errlen);
  while (rc == 0 && !l.eof);
  close(fd);
  if (rc == 0 && !l.buf && !(l.buf = malloc(1))) {
    snprintf(err, errlen, "cannot read %s: out of memory", path);
    rc = -1;
  }
  if (rc) {
    kg_lines_free(&l);
    return -1;
  }
  l.buf[l.end] = '\0';
  *text = l.buf;
  *len = l.end;
  return 0;
}

int kg_append_file(const char *path, const char *from, char *err, size_t errlen) {
  char *text;
  size_t len;
  if (kg_read_file(from, KG_JSON_MAX, &text, &len, err, errlen)) return -1;
  /* O_APPEND: what the file holds stays, and so does its inode (a symbolic
   * link, a FIFO or a device is written through, not replaced). */
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_CLOEXEC, 0666), e = 0;
  if (fd < 0) e = errno;
  for (size_t at = 0; fd >= 0 && at < len && !e;) {
    ssize_t put = write(fd, text + at, len - at);
    if (put < 0 && errno != EINTR) e = errno;
    else if (put > 0) at += (size_t)put;
  }
  if (fd >= 0 && close(fd) != 0 && !e) e = errno;
  free(text);
  if (e) snprintf(err, errlen, "cannot append to %s: %s", path, strerror(e));
  return e ? -1 : 0;
}

int kg_beside_exe(const char *const *rel, size_t n, char *buf, size_t len, char *dir, size_t dirlen) {
  char exe[PATH_MAX];
  ssize_t got = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (dirlen) dir[0] = '\0';
  if (got <= 0) return -1;
  exe[got] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  if (dirlen) snprintf(dir, dirlen, "%s", exe);
  for (size_t i = 0; i < n; i++) {
    int w = snprintf(buf, len, "%s%s", exe, rel[i]);
    if (w > 0 && (size_t)w < len && access(buf, R_OK) == 0) return 0;
  }
  return -1;
}

int kg_mkdirs(const char *dir, char *err, size_t errlen) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
    snprintf(err, errlen, "cannot create %.60s...: path too long", dir);
    return -1;
  }
  for (char *p = path + 1;; p++) {
    if (*p != '/' && *p) continue;
    char c = *p;
    *p = '\0';
    struct stat st;
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
      snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
      return -1;
    }
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
      snprintf(err, errlen, "cannot create %s: not a folder", path);
      return -1;
    }
    if (!c) break;
    *p = c;
  }
  return 0;
}

int kg_make_parent(const char *path, char *err, size_t errlen) {
  const char *slash = strrchr(path, '/');
  if (!slash || slash == path) return 0;
  char dir[4096];
  if ((size_t)(slash - path) >= sizeof dir) {
    snprintf(err, errlen, "cannot write %.60s...: path too long", path);
    return -1;
  }
  snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  return kg_mkdirs(dir, err, errlen);
}

int kg_env_path(const kg_env_place *places, size_t n, const char *file, char *buf, size_t len) {
  for (size_t i = 0; i < n; i++) {
    const char *v = getenv(places[i].env);
    if (!v || !*v || (places[i].absolute && v[0] != '/')) continue;
    int w = snprintf(buf, len, "%s%s%s", v, places[i].rel, places[i].whole ? "" : file);
    return w > 0 && (size_t)w < len ? 0 : -1;
  }
  return -1;
}

int kg_cache_path(const char *file, char *buf, size_t len) {
  static const kg_env_place k_places[] = {
      {"KGATE_CACHE_DIR", 0, "/", 0}, {"XDG_CACHE_HOME", 1, "/kgate/", 0}, {"HOME", 0, "/.cache/kgate/", 0}};
  return kg_env_path(k_places, sizeof k_places / sizeof k_places[0], file, buf, len);
}
