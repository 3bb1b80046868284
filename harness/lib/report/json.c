/* The JSON printer: the run itself, as the results file (results.h). */
#include "export.h"

#include "fileio.h"

int kg_print_json(FILE *f, const kg_rdoc *d) {
  json_t *doc = kg_results_json(d->run);
  int rc = kg_json_put(f, doc, KG_RESULTS_LIST);
  json_decref(doc);
  return rc;
}
