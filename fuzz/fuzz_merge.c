/* libFuzzer target: kgate merge (kg_merge_runs) over two results files split
 * from the input at its first NUL byte (a results file holds no NUL; without
 * one, the input is a single file). A merge that succeeds must hold every
 * case of its inputs once, in the documented order, and, as `kgate merge`
 * does next, write a results file (kg_results_write) that reads back
 * (kg_results_read) with the same cases. */
#include <stdio.h>
#include <string.h>

#include "fuzz_file.h"
#include "merge.h"

/* merge.h's order: dtype, n, pattern, then registry order of the variant. */
static int case_cmp(const kg_case *a, const kg_case *b) {
  if (a->dtype != b->dtype) return a->dtype < b->dtype ? -1 : 1;
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  if (a->pattern != b->pattern) return a->pattern < b->pattern ? -1 : 1;
  return (a->variant > b->variant) - (a->variant < b->variant);
}

static size_t cases_in(const char *path) {
  kg_run run;
  char err[512];
  if (kg_results_read(path, &run, err, sizeof err)) abort(); /* it merged, so it reads */
  size_t n = run.n;
  kg_run_free(&run);
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  size_t first = nul ? (size_t)(nul - data) : size;
  const char *paths[2] = {kg_fuzz_file_slot(0, data, first), NULL};
  size_t npaths = 1;
  if (nul) paths[npaths++] = kg_fuzz_file_slot(1, nul + 1, size - first - 1);
  kg_run out;
  char err[512];
  if (kg_merge_runs(paths, npaths, &out, err, sizeof err)) return 0;
  size_t total = 0;
  for (size_t i = 0; i < npaths; i++) total += cases_in(paths[i]);
  if (out.n != total) {
    fprintf(stderr, "fuzz_merge: merged %zu cases of %zu\n", out.n, total);
    abort();
  }
  for (size_t i = 1; i < out.n; i++)
    if (case_cmp(&out.cases[i - 1], &out.cases[i]) >= 0) {
      fprintf(stderr, "fuzz_merge: cases %zu and %zu out of order or twice\n", i - 1, i);
      abort();
    }
  const char *path = kg_fuzz_path(2);
  kg_run back;
  if (kg_results_write(path, &out, err, sizeof err)) {
    fprintf(stderr, "fuzz_merge: the merged run does not write: %s\n", err);
    abort();
  }
  if (kg_results_read(path, &back, err, sizeof err)) {
    fprintf(stderr, "fuzz_merge: the merged file does not read back: %s\n", err);
    abort();
  }
  if (back.n != out.n) abort();
  for (size_t i = 0; i < out.n; i++)
    if (case_cmp(&out.cases[i], &back.cases[i]) || out.results[i].status != back.results[i].status) {
      fprintf(stderr, "fuzz_merge: case %zu changed when written and read back\n", i);
      abort();
    }
  kg_run_free(&back);
  kg_run_free(&out);
  return 0;
}
