/* The output formats (formats.def) and their fan-out (export.h). */
#include "export.h"

#include <errno.h>
#include <string.h>

#include "dtype.h"
#include "fileio.h"

const kg_format kg_formats[KG_NFORMATS] = {
#define KG_FORMAT(id, name, option, compare, file, about, printer) [id] = {name, option, compare, file, about, printer},
#include "formats.def"
#undef KG_FORMAT
};

int kg_report_write(kg_format_id id, const char *path, const kg_rdoc *doc, char *err, size_t errlen) {
  if (doc->oom) {
    snprintf(err, errlen, "cannot write %s: out of memory", path);
    return -1;
  }
  if (id == KG_FMT_GITHUB_BENCHMARK && !kg_github_benchmark_any(doc)) {
    snprintf(err, errlen, "%s not written: no timed case passed, and github-action-benchmark refuses an empty list",
             path);
    return 1;
  }
  kg_outfile o;
  if (kg_out_open(&o, path, err, errlen)) return -1;
  errno = 0; /* set below only by a failed write; else the failure was memory */
  if (kg_formats[id].print(o.f, doc) || ferror(o.f)) {
    snprintf(err, errlen, "cannot write %s: %s", path, errno ? strerror(errno) : "out of memory");
    kg_out_abort(&o);
    return -1;
  }
  return kg_out_commit(&o, err, errlen);
}

int kg_report_files(const char *const paths[KG_NFORMATS], const kg_rdoc *doc, FILE *errs) {
  char err[1024];
  int rc = 0;
  for (int f = 0; f < KG_NFORMATS; f++) {
    int w = paths[f] ? kg_report_write((kg_format_id)f, paths[f], doc, err, sizeof err) : 0;
    if (w) fprintf(errs, "kgate: %s%s\n", w > 0 ? "note: " : "", err);
    if (w < 0) rc = -1;
  }
  return rc;
}

int kg_report_file(kg_format_id id, const char *path, const kg_run *run, const kg_comparison *cmp, char *err,
                   size_t errlen) {
  kg_rdoc doc;
  kg_rdoc_build(&doc, run, cmp);
  int rc = kg_report_write(id, path, &doc, err, errlen);
  kg_rdoc_free(&doc);
  return rc;
}

/* A median of 0 is an absent one (NEW, MISSING, UNKNOWN): null. */
static json_t *median_json(double us) { return us > 0 ? kg_json_real(us) : json_null(); }

int kg_comparison_write(const char *path, const kg_comparison *cmp, const char *old_path, const char *new_path,
                        int missing_fail, char *err, size_t errlen) {
  json_t *counts = json_object(), *cells = json_array();
  for (int v = 0; counts && v < KG_NVERDICTS; v++)
    json_object_set_new(counts, kg_verdict_name((kg_verdict)v), json_integer((json_int_t)cmp->count[v]));
  for (size_t i = 0; cells && i < cmp->n; i++) {
    const kg_cmp_row *r = &cmp->rows[i];
    int both = r->base_us > 0 && r->now_us > 0;
    json_t *o = json_pack("{ss ss sI ss so so so so}", "variant", r->variant, "dtype", kg_dtype_get(r->dtype)->name,
                          "n", (json_int_t)r->n, "verdict", kg_verdict_name(r->verdict), "old_us",
                          median_json(r->base_us), "new_us", median_json(r->now_us), "change",
                          both ? kg_json_real(r->change) : json_null(), "tolerance", kg_json_real(r->tol));
    if (!o || json_array_append_new(cells, o)) json_decref(cells), cells = NULL;
  }
  json_t *doc = json_pack("{ss si ss ss sb sb ss so so}", "kind", "kgate-compare", "schema_version", 1, "old", old_path,
                          "new", new_path, "cross_card", cmp->cross_card, "missing_fail", missing_fail, "warning",
                          cmp->warning, "counts", counts, "cells", cells);
  int rc = kg_json_write(path, doc, "cells", err, errlen);
  json_decref(doc);
  return rc;
}
