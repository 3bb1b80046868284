/* The JSON printer: the run itself, as the results file (results.h), and
 * the report model's verdict of it (docs/results-schema.md: written, never
 * read back: a reader decides the verdict from the file anew). */
#include "export.h"

#include "fileio.h"

int kg_print_json(FILE *f, const kg_rdoc *d) {
  json_t *doc = kg_results_json(d->run);
  const kg_rm_verdict *v = &d->verdict;
  json_t *verdict = json_pack("{ss si ss}", "verdict", v->word, "exit_code", v->exit_code, "why", v->text);
  if (!doc || !verdict || json_object_set_new(doc, "verdict", verdict)) return json_decref(doc), -1;
  int rc = kg_json_put(f, doc, KG_RESULTS_LIST);
  json_decref(doc);
  return rc;
}
