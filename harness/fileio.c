/* Atomic file writes and JSON documents. A reader of a results file or a
 * baseline (a person, CI, `kgate compare`) must never see half a file: a
 * killed run leaves the old file, plus at worst a stray <path>.tmp.XXXXXX. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int kg_out_open(kg_outfile *o, const char *path, char *err, size_t errlen) {
  memset(o, 0, sizeof *o);
  if (strcmp(path, "-") == 0) {
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
  /* Beside the target, so that rename() stays within one file system. */
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  /* mkstemp makes the file 0600; give it the mode fopen would have. Reading
   * the umask means setting it: harmless here, no thread creates files now. */
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "w"))) {
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
  /* fsync before rename: otherwise a crash soon after can leave the new name
   * pointing at an empty file on some file systems. */
  errno = 0;
  int bad = fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0;
  int e = errno;
  if (fclose(o->f) != 0 && !bad) bad = 1, e = errno;
  o->f = NULL;
  if (!bad && rename(o->tmp, o->path) != 0) bad = 1, e = errno;
  if (bad) {
    snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e ? e : EIO));
    unlink(o->tmp);
    return -1;
  }
  return 0;
}

void kg_out_abort(kg_outfile *o) {
  if (!o->f) return;
  if (!o->is_stdout) {
    fclose(o->f);
    unlink(o->tmp);
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

int kg_json_write(const char *path, json_t *doc, const char *list_key, char *err, size_t errlen) {
  kg_outfile o;
  if (!json_is_object(doc)) {
    snprintf(err, errlen, "cannot write %s: out of memory", path);
    return -1;
  }
  if (kg_out_open(&o, path, err, errlen)) return -1;
  errno = 0; /* set below only by a failed write; else the failure was memory */
  const char *key;
  json_t *v;
  int bad = fputs("{", o.f) == EOF, first = 1;
  json_object_foreach(doc, key, v) {
    json_t *k = json_string(key);
    bad |= !k || fputs(first ? "" : ",\n", o.f) == EOF || dump_any(o.f, k) != 0 || fputs(":", o.f) == EOF;
    json_decref(k);
    if (list_key && strcmp(key, list_key) == 0 && json_is_array(v)) bad |= dump_list(o.f, v);
    else bad |= dump_any(o.f, v) != 0;
    first = 0;
  }
  bad |= fputs("}\n", o.f) == EOF;
  if (bad) {
    snprintf(err, errlen, "cannot write %s: %s", path, errno ? strerror(errno) : "out of memory");
    kg_out_abort(&o);
    return -1;
  }
  return kg_out_commit(&o, err, errlen);
}

int kg_json_load(const char *path, json_t **doc, char *err, size_t errlen) {
  *doc = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    int e = errno;
    snprintf(err, errlen, "cannot read %s: %s", path, strerror(e));
    return e == ENOENT ? 1 : -1;
  }
  json_error_t je;
  errno = 0;
  json_t *d = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
  int e = errno, ioerr = ferror(f);
  fclose(f);
  if (!d && ioerr) snprintf(err, errlen, "cannot read %s: %s", path, strerror(e ? e : EIO));
  else if (!d) snprintf(err, errlen, "%s: malformed JSON at line %d, column %d: %s", path, je.line, je.column, je.text);
  else if (!json_is_object(d)) snprintf(err, errlen, "%s: the top level is not a JSON object", path);
  if (!json_is_object(d)) {
    json_decref(d);
    return -1;
  }
  *doc = d;
  return 0;
}

void kg_jrd_fail(kg_jrd *r, const char *fmt, ...) {
  if (r->failed++) return; /* keep the first problem: later ones often follow from it */
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(r->err, r->errlen, "%s%s%s%s%s", r->file ? r->file : "", r->file ? ": " : "", r->where,
           r->where[0] ? ": " : "", msg);
}

/* The value under key, or NULL after recording why (missing, or not of the
 * wanted kind; test says which kinds are accepted). */
static json_t *get(kg_jrd *r, json_t *o, const char *key, int (*test)(const json_t *), const char *kind) {
  if (r->failed) return NULL;
  json_t *v = json_object_get(o, key);
  if (!v) kg_jrd_fail(r, "missing field '%s'", key);
  else if (!test(v)) kg_jrd_fail(r, "field '%s' should be %s", key, kind);
  return r->failed ? NULL : v;
}

static int is_str(const json_t *v) { return json_is_string(v); }
static int is_int(const json_t *v) { return json_is_integer(v); }
static int is_num(const json_t *v) { return json_is_number(v) || json_is_null(v); }
static int is_bool(const json_t *v) { return json_is_boolean(v); }
static int is_obj(const json_t *v) { return json_is_object(v); }
static int is_obj_or_null(const json_t *v) { return json_is_object(v) || json_is_null(v); }
static int is_arr(const json_t *v) { return json_is_array(v); }

const char *kg_jrd_str(kg_jrd *r, json_t *o, const char *key) {
  json_t *v = get(r, o, key, is_str, "a string");
  return v ? json_string_value(v) : "";
}

long long kg_jrd_int(kg_jrd *r, json_t *o, const char *key) {
  json_t *v = get(r, o, key, is_int, "an integer");
  return v ? (long long)json_integer_value(v) : 0;
}

double kg_jrd_num(kg_jrd *r, json_t *o, const char *key) {
  json_t *v = get(r, o, key, is_num, "a number or null");
  return !v ? 0 : json_is_null(v) ? INFINITY : json_number_value(v);
}

int kg_jrd_bool(kg_jrd *r, json_t *o, const char *key) {
  json_t *v = get(r, o, key, is_bool, "true or false");
  return v && json_is_true(v);
}

json_t *kg_jrd_obj(kg_jrd *r, json_t *o, const char *key, int nullable) {
  json_t *v = get(r, o, key, nullable ? is_obj_or_null : is_obj, nullable ? "an object or null" : "an object");
  return json_is_object(v) ? v : NULL;
}

json_t *kg_jrd_arr(kg_jrd *r, json_t *o, const char *key) { return get(r, o, key, is_arr, "an array"); }
