/* The output formats, one list (formats.def), and the fan-out that writes
 * the report model (rmodel.h) once built to every format asked for. Each
 * file is written atomically; "-" is stdout. */
#ifndef KG_EXPORT_H
#define KG_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "results.h"
#include "rmodel.h"
#include "verdict.h"

typedef enum kg_format_id {
#define KG_FORMAT(id, name, option, compare, file, about, printer) id,
#include "formats.def"
#undef KG_FORMAT
  KG_NFORMATS
} kg_format_id;

/* A printer lays the model out onto f: 0, or -1 when memory ran out. */
typedef int (*kg_printer)(FILE *f, const kg_rdoc *doc);
#define KG_FORMAT(id, name, option, compare, file, about, printer) int printer(FILE *f, const kg_rdoc *doc);
#include "formats.def"
#undef KG_FORMAT

typedef struct kg_format {
  const char *name;   /* "csv" */
  const char *option; /* "--csv": check and run take it */
  int compare;        /* compare takes the option too */
  const char *file;   /* the file's name in a report folder: "results.csv" */
  const char *about;  /* what the file is, for the report page and the help */
  kg_printer print;
} kg_format;
extern const kg_format kg_formats[KG_NFORMATS];

/* The nightly's summary (history check --summary): the model's findings
 * (kg_rdoc_findings) as Markdown. 0, or -1 out of memory. */
int kg_print_nightly_markdown(FILE *f, const kg_rdoc *doc);

/* Writes format id of doc to path. 0, or -1 with err; 1 with a note in err
 * when the format has nothing to hold and is not written (github-benchmark
 * with no timed case: github-action-benchmark refuses an empty list). */
int kg_report_write(kg_format_id id, const char *path, const kg_rdoc *doc, char *err, size_t errlen);
/* Whether github-action-benchmark's file has an entry: a timed case that passed. */
int kg_github_benchmark_any(const kg_rdoc *doc);
/* The fan-out: doc, built once, written to every format whose paths[id] is
 * set; a format that cannot be written is said on errs ("kgate: why") and
 * the others are still written; one with nothing to hold is a note there
 * ("kgate: note: ..."), not a failure. 0, or -1 when any failed. */
int kg_report_files(const char *const paths[KG_NFORMATS], const kg_rdoc *doc, FILE *errs);
/* One format of run and cmp to path (the model built for it): as kg_report_write. */
int kg_report_file(kg_format_id id, const char *path, const kg_run *run, const kg_comparison *cmp, char *err,
                   size_t errlen);

/* `kgate compare --json`: the counts and the verdict of every cell
 * (docs/schema/compare.schema.json); old and new are the files compared,
 * missing_fail whether missing cells fail. "-" is stdout. 0, or -1 with err. */
int kg_comparison_write(const char *path, const kg_comparison *cmp, const char *old_path, const char *new_path,
                        int missing_fail, char *err, size_t errlen);

#endif
