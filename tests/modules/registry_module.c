/* A kernel module built the way kgate_add_kernels builds a team's, without
 * CUDA: kgate/registry.h over registry_test.def, hidden visibility and the
 * module version script (tests/CMakeLists.txt). Each function answers with a
 * value that names it, so the test sees which one a table entry points at. */
#ifdef TEST_REGISTRY
#define KGATE_REGISTRY TEST_REGISTRY /* registry_dup.def: a bad registry */
#else
#define KGATE_REGISTRY "registry_test.def"
#endif
#define KGATE_MODULE_NAME "regtest"
#define KGATE_MODULE_VERSION "v\"1\"\\2"
#include "kgate/registry.h"

int kg_run_t_sum(int dtype, void *in, size_t n, void *out, void *scratch, void *stream) {
  (void)in, (void)n, (void)out, (void)scratch, (void)stream;
  return 100 + dtype;
}
size_t kg_scratch_t_sum(int dtype, size_t n) { return 1000 + (size_t)dtype + n; }
double kg_depth_t_sum(size_t n) { return (double)n + 0.5; }
int kg_run_t_max(int dtype, void *in, size_t n, void *out, void *scratch, void *stream) {
  (void)in, (void)n, (void)out, (void)scratch, (void)stream;
  return 200 + dtype;
}
size_t kg_scratch_t_max(int dtype, size_t n) { return 2000 + (size_t)dtype + n; }
double kg_depth_t_max(size_t n) { return (double)n + 0.25; }
