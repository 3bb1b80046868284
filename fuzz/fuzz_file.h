/* Shared by the loader fuzz targets: the loaders read paths, so each input is
 * written to a per-process file first (slot: one file per document of an
 * input, for targets that read several), in /dev/shm where there is one:
 * rewriting a file in place on ext4 (/tmp here) waits on the disk and made
 * the loaders' fuzzing 8x slower. The files are removed at exit. */
#ifndef KG_FUZZ_FILE_H
#define KG_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define KG_FUZZ_SLOTS 3

static char kg_fuzz_paths[KG_FUZZ_SLOTS][64];

static void kg_fuzz_cleanup(void) {
  for (int i = 0; i < KG_FUZZ_SLOTS; i++)
    if (kg_fuzz_paths[i][0]) unlink(kg_fuzz_paths[i]);
}

/* The slot's path (the file is not touched). */
static inline const char *kg_fuzz_path(int slot) {
  char *path = kg_fuzz_paths[slot];
  if (!path[0]) {
    static int registered;
    if (!registered++) atexit(kg_fuzz_cleanup);
    const char *dir = getenv("KG_FUZZ_TMPDIR"); /* fuzz/run's, removed when it ends: a crash skips atexit */
    if (!dir) dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof kg_fuzz_paths[slot], "%s/kgate-fuzz-%ld-%d", dir, (long)getpid(), slot);
  }
  return path;
}

/* Writes data to the slot's file; returns its path. */
static inline const char *kg_fuzz_file_slot(int slot, const uint8_t *data, size_t size) {
  const char *path = kg_fuzz_path(slot);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  return path;
}

static inline const char *kg_fuzz_file(const uint8_t *data, size_t size) { return kg_fuzz_file_slot(0, data, size); }

#endif
