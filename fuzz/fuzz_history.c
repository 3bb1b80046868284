/* libFuzzer target: the history (JSON Lines) loader and the step analysis
 * that reads what it loaded. */
#include "fuzz_file.h"
#include "history.h"
#include "verdict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kg_history h;
  char err[256];
  if (kg_history_read(kg_fuzz_file(data, size), &h, err, sizeof err) == 0) {
    kg_step *steps = NULL;
    size_t n = 0;
    if (kg_history_steps(&h, 0, &steps, &n) == 0) free(steps);
    kg_history_free(&h);
  }
  return 0;
}
