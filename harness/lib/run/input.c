#include "input.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"

#define CHUNK ((size_t)1 << 20)

typedef struct job {
  kg_dtype dt;
  kg_pattern p;
  uint64_t seed;
  size_t n, chunks;
  char *buf;
  kg_ref *parts;
  atomic_size_t next;
} job;

static void *work(void *arg) {
  job *jb = arg;
  size_t size = kg_dtype_get(jb->dt)->size;
  for (size_t k; (k = atomic_fetch_add(&jb->next, 1)) < jb->chunks;) {
    size_t lo = k * CHUNK, hi = lo + CHUNK < jb->n ? lo + CHUNK : jb->n;
    kg_pattern_fill_range(jb->dt, jb->p, jb->seed, jb->n, jb->buf, lo, hi);
    kg_reference(jb->dt, jb->buf + lo * size, hi - lo, &jb->parts[k]);
  }
  return NULL;
}

void kg_input_make(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n, void *buf, kg_ref *ref, int threads) {
  size_t chunks = (n + CHUNK - 1) / CHUNK;
  kg_ref one;
  job jb = {dt, p, seed, n, chunks, buf, chunks > 1 ? calloc(chunks, sizeof(kg_ref)) : &one, 0};
  memset(ref, 0, sizeof *ref);
  if (!jb.parts) jb.parts = &one, jb.chunks = chunks = 0; /* out of memory: fall back below */
  if (threads <= 0) threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (threads > 64) threads = 64;
  if ((size_t)threads > chunks) threads = (int)chunks;
  pthread_t tid[64];
  int started = 0;
  while (started < threads - 1 && pthread_create(&tid[started], NULL, work, &jb) == 0) started++;
  work(&jb); /* this thread helps, and finishes alone if no thread started */
  for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
  if (chunks == 0) { /* n == 0, one chunk, or no memory for the partials */
    kg_pattern_fill(dt, p, seed, n, buf);
    kg_reference(dt, buf, n, ref);
    return;
  }
  for (size_t k = 0; k < chunks; k++) kg_reference_merge(dt, ref, &jb.parts[k]);
  if (jb.parts != &one) free(jb.parts);
}
