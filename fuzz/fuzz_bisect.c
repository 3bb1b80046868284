/* libFuzzer target: kgate bisect's file as the page reads it (bisectjson.h):
 * a GPU runner's artifact, so every field is checked before anything shows it. */
#include "bisectjson.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kg_bisect_doc d;
  char err[256];
  if (kg_bisect_read(kg_fuzz_file(data, size), &d, err, sizeof err) == 0) {
    /* What the page asks of a file it read: an answer, a range it can name. */
    if (kg_bisect_doc_answers(&d) && d.ncommits && d.culprit >= 0 && (size_t)d.culprit >= d.ncommits) abort();
    kg_bisect_doc_free(&d);
  }
  return 0;
}
