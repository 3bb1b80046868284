/* libFuzzer target: a module's waiver tables (kgate_module_lint_waivers and
 * kgate_module_sanitizer_waivers, read from a module's file: data) and
 * compute-sanitizer's log read against a table (kg_san_parse_waived). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kgate/module.h"
#include "sanitize.h"
#include "waiver.h"

static const char k_table[] = KG_MODULE_SANITIZER_WAIVERS_TAG "\0racecheck\0k\0a.cu:3\0a reason\0";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[300];
  kg_lint_waivers lw;
  if (kg_lint_waivers_parse((const char *)data, size, &lw, err, sizeof err) == 0) kg_lint_waivers_free(&lw);
  kg_san_waivers sw;
  if (kg_san_waivers_parse((const char *)data, size, &sw, err, sizeof err) == 0) kg_san_waivers_free(&sw);
  if (kg_san_waivers_parse(k_table, sizeof k_table, &sw, err, sizeof err) == 0) {
    kg_san_report r;
    kg_san_parse_waived((const char *)data, size, "racecheck", &sw, &r);
    kg_san_waivers_free(&sw);
  }
  return 0;
}
