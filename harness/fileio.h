/* Files that are never left half-written: write to a temp file beside the
 * target, then rename over it. "-" means standard output. Also the JSON
 * documents kgate keeps (results, baselines): atomic writing, loading, and a
 * field reader whose errors name the file, the object and the field. */
#ifndef KG_FILEIO_H
#define KG_FILEIO_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

typedef struct kg_outfile {
  FILE *f;
  char path[4096], tmp[4200];
  int is_stdout;
} kg_outfile;

/* Opens path.tmp.XXXXXX (mkstemp) in path's folder, or stdout for "-". 0, or -1 with err. */
int kg_out_open(kg_outfile *o, const char *path, char *err, size_t errlen);
/* Flushes, fsyncs, closes and renames into place. 0, or -1 with err (the temp file is removed). */
int kg_out_commit(kg_outfile *o, char *err, size_t errlen);
/* Drops the temp file; the target is untouched. */
void kg_out_abort(kg_outfile *o);

/* A JSON number, or null for a non-finite one (JSON has no Inf or NaN). */
json_t *kg_json_real(double v);
/* Writes the object doc atomically as compact JSON with each top-level key on
 * its own line and each element of the array under list_key (may be NULL) on
 * its own line: small git diffs, greppable. Reals get 15 significant digits.
 * 0, or -1 with err. */
int kg_json_write(const char *path, json_t *doc, const char *list_key, char *err, size_t errlen);
/* Parses a file holding one JSON object. 0 with *doc (the caller decrefs);
 * 1 when the file does not exist; -1 otherwise. err gets a one-line reason
 * naming the file (malformed JSON with its line and column). */
int kg_json_load(const char *path, json_t **doc, char *err, size_t errlen);

/* Reads fields of a parsed document. The first problem is kept in err as
 * "file: where: problem" (each part only when set); after it every read
 * returns zeros, so a reader reads on and checks .failed once. */
typedef struct kg_jrd {
  const char *file; /* NULL: no file prefix */
  char where[160];  /* the object being read, "run.options", "cases[3] (cub_sum f32 1024 uniform)"; "" for the top */
  char *err;
  size_t errlen;
  int failed;
} kg_jrd;

void kg_jrd_fail(kg_jrd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *kg_jrd_str(kg_jrd *r, json_t *o, const char *key); /* "" on failure */
long long kg_jrd_int(kg_jrd *r, json_t *o, const char *key);
double kg_jrd_num(kg_jrd *r, json_t *o, const char *key); /* an integer or a real; null reads as +Inf */
int kg_jrd_bool(kg_jrd *r, json_t *o, const char *key);
json_t *kg_jrd_obj(kg_jrd *r, json_t *o, const char *key, int nullable); /* NULL for null or on failure */
json_t *kg_jrd_arr(kg_jrd *r, json_t *o, const char *key);

#endif
