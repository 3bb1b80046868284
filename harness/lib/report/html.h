/* The static pages `kgate report --html DIR` writes: DIR/index.html (the
 * verdict first, the open findings of the nightly detector, the headline
 * charts as images, then the details: the paired gate, regressions, every
 * chart one click away, the ladder tables and links to the machine-readable
 * files) and, with a history,
 * DIR/archive.html (every night with its verdict). With a history the
 * detector read (detect), the headline and the archive give each night's
 * verdict of the report model (rmodel.h, kg_rdoc_nights), in the nightly's
 * words; a results file alone keeps the PR gate's. */
#ifndef KG_HTML_H
#define KG_HTML_H

#include <stddef.h>

#include "bisectjson.h"
#include "chart.h"
#include "detect.h"
#include "history.h"
#include "results.h"
#include "rmodel.h"
#include "verdict.h"

typedef struct kg_html_link {
  const char *href;  /* relative to the page's folder */
  const char *label; /* what it is, for people */
} kg_html_link;

typedef struct kg_html_page {
  const kg_run *run;
  const kg_comparison *cmp;  /* NULL: no baseline */
  const char *baseline;      /* what the run was compared with (NULL: nothing) */
  const kg_history *history; /* NULL: no history */
  const kg_charts *charts; /* those drawn; a chart whose PNG is not in the folder is left out */
  const char *note;        /* one line shown at the top, e.g. why there are no charts; NULL: none */
  const kg_html_link *links;
  size_t nlinks; /* a link whose file is not in the folder is left out */
  const char *repo_url; /* "https://github.com/o/r": commits and compare ranges become links; NULL: text */
  const kg_detection *detect; /* the detector over history's paired nights; NULL: no paired history */
  /* kgate bisect's result: in the box of the finding it is of (kg_rdoc_bisect); NULL: none */
  const kg_bisect_doc *bisect;
  const kg_rdoc *doc; /* what the page says (kg_html_doc of this page); NULL: kg_html_write builds it */
} kg_html_page;

/* "13.0" for the 13000 that cudaDriverGetVersion gives (major*1000 + minor*10);
 * "unknown" for 0 or less. */
void kg_cuda_version_label(int v, char *buf, size_t len);

/* 1 when url may be linked to: http(s)://host[:port][/path] of letters,
 * digits and . _ ~ - only (no query, no quote, no space, no "..") . */
int kg_html_url_ok(const char *url);

/* The document a page prints: the run's gate, and with a detection the
 * findings, the bisect and the nights (rmodel.h). 0, or -1 out of memory
 * (doc freed). The report's other files print the same one. */
int kg_html_doc(kg_rdoc *doc, const kg_html_page *page);

/* Writes <dir>/index.html (and <dir>/archive.html when page->history) atomically. Every src and href it holds names a
 * file that exists in dir. 0, or -1 with err. */
int kg_html_write(const char *dir, const kg_html_page *page, char *err, size_t errlen);

#endif
