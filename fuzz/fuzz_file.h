/* Shared by the loader fuzz targets: the loaders read paths, so each input is
 * written to a per-process file first. */
#ifndef KG_FUZZ_FILE_H
#define KG_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *kg_fuzz_file(const uint8_t *data, size_t size) {
  static char path[64];
  if (!path[0]) snprintf(path, sizeof path, "/tmp/kgate-fuzz-%ld", (long)getpid());
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  return path;
}

#endif
