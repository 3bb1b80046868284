/* libFuzzer target: the results JSON loader (kg_results_read). */
#include "fuzz_file.h"
#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kg_run run;
  char err[256];
  if (kg_results_read(kg_fuzz_file(data, size), &run, err, sizeof err) == 0) kg_run_free(&run);
  return 0;
}
