/* libFuzzer target: kgate lint on listing text (kg_sass_parse, then the rule,
 * kg_lint_listing, the summary and the report): a listing is data from a
 * module or a file, so no text may crash it or make it read out of bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"
#include "sass.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kg_sass_listing l;
  char err[256];
  if (kg_sass_parse((const char *)data, size, &l, err, sizeof err)) return 0;
  kg_lint_report r;
  kg_lint_waiver w = {"k", "a reason"};
  if (kg_lint_listing(&l, &w, 1, &r) == 0) {
    kg_lint_module m;
    memset(&m, 0, sizeof m);
    if (kg_lint_summarize(&l, &r, &m) == 0) {
      FILE *f = fopen("/dev/null", "w");
      if (f) kg_lint_print(f, "fuzz", &l, &r), fclose(f);
    }
    kg_lint_module_free(&m);
  }
  kg_lint_report_free(&r);
  kg_sass_free(&l);
  return 0;
}
