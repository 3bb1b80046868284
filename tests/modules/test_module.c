/* A kernel module without CUDA, for the loader's tests: a real module's
 * shape, its ABI and registry set by the build (tests/CMakeLists.txt). */
#include <stddef.h>

#include "kgate/module.h"

#ifndef TEST_ABI
#define TEST_ABI KG_MODULE_ABI
#endif
#ifndef TEST_SECOND
#define TEST_SECOND "second"
#endif

static int run(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  (void)dt, (void)in, (void)n, (void)out, (void)scratch, (void)stream;
  return 0;
}
static size_t scratch(int dt, size_t n) { return (size_t)dt + n; }
static double depth(size_t n) { return (double)n; }

static const kg_module_variant k_variants[] = {
    {"first", "test", "one", 0, 0x3f, run, scratch, depth},
    {TEST_SECOND, "test", "two", 1, 0x0f, run, scratch, depth},
};
static const kg_module k_module = {TEST_ABI, sizeof(kg_module_variant), "testmod", "v1", 2, k_variants};

#ifndef TEST_NO_SYMBOLS
__attribute__((visibility("default"))) unsigned kgate_module_abi(void) { return TEST_ABI; }
__attribute__((visibility("default"))) const kg_module *kgate_module(void) { return &k_module; }
#endif
