/* libFuzzer target: the baseline loader (kg_baseline_load). */
#include "baseline.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kg_baseline b;
  char err[256];
  if (kg_baseline_load(kg_fuzz_file(data, size), &b, err, sizeof err) == 0) kg_baseline_free(&b);
  return 0;
}
