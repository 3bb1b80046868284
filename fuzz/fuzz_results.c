/* libFuzzer target: the results JSON loader (kg_results_read), then what
 * every report derives from a loaded run (kg_perf_of). A run that loads must
 * hold only names the tables know: reports index them without checking. */
#include <stdio.h>

#include "fuzz_file.h"
#include "varreg.h"
#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kg_run run;
  char err[256];
  if (kg_results_read(kg_fuzz_file(data, size), &run, err, sizeof err)) return 0;
  for (size_t i = 0; i < run.n; i++) {
    const kg_case *c = &run.cases[i];
    if (c->variant < 0 || (size_t)c->variant >= kg_nvariants || (unsigned)c->dtype >= KG_NDTYPES ||
        (unsigned)c->pattern >= KG_NPATTERNS || (unsigned)run.results[i].status >= KG_NSTATUS) {
      fprintf(stderr, "fuzz_results: case %zu loaded with a value outside its table\n", i);
      abort();
    }
    (void)kg_perf_of(&run, i);
  }
  kg_run_free(&run);
  return 0;
}
