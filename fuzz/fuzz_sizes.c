/* libFuzzer target: the --sizes parser (kg_sizes_parse), NUL-terminated copy. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sizes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  size_t *sizes = NULL, count = 0;
  char err[256];
  if (kg_sizes_parse(text, &sizes, &count, err, sizeof err) == 0) free(sizes);
  free(text);
  return 0;
}
