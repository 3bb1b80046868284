/* A kernel module without CUDA, for the loader's tests: a real module's
 * shape, its ABI and registry set by the build (tests/CMakeLists.txt).
 *   TEST_ABI         the ABI it claims          TEST_NO_SYMBOLS  no entry points
 *   TEST_SECOND      its second variant's name (a clash or a duplicate)
 *   TEST_MINMAX      a team's module: a sum, a min (NaN propagate), a max (NaN ignore)
 *   TEST_OLD_RECORD  records as built before ops existed (they end before `op`)
 *   TEST_RECORD_SIZE a variant_size to claim (too short, too long)
 *   TEST_TEXT        the first variant's seed and idea, the module's version:
 *                    1 edge cases kgate must take (spaces, quotes, commas,
 *                    UTF-8, "::error::"), 2 a seed that is not UTF-8, 3 an
 *                    idea with an ESC sequence, 4 a seed of 64 bytes, 5 a
 *                    version with a line break and a workflow command
 *   TEST_TOOLCHAIN   exports kgate_module_toolchain: 1 nvcc 13.0.88, CCCL
 *                    3.0.1 and a flags digest, 2 flags in upper case, 3 a
 *                    record of 8 bytes, 4 an nvcc 1000.0.0 (without it: no
 *                    such export, the toolchain unknown) */
#include <stddef.h>

#include "kgate/module.h"

#ifndef TEST_ABI
#define TEST_ABI KG_MODULE_ABI
#endif
#ifndef TEST_SECOND
#define TEST_SECOND "second"
#endif
#ifndef TEST_TEXT
#define TEST_TEXT 0
#endif

static int run(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  (void)dt, (void)in, (void)n, (void)out, (void)scratch, (void)stream;
  return 0;
}
static size_t scratch(int dt, size_t n) { return (size_t)dt + n; }
static double depth(size_t n) { return (double)n; }

#if defined(TEST_OLD_RECORD)
/* kg_module_variant as it was: everything before `op`. */
typedef struct old_variant {
  const char *name, *seed, *idea;
  unsigned flags, dtypes;
  int (*run)(int, void *, size_t, void *, void *, void *);
  size_t (*scratch)(int, size_t);
  double (*depth)(size_t);
} old_variant;
static const old_variant k_variants[] = {
    {"legacy_sum", "test", "a module built before ops", 0, 0x3f, run, scratch, depth},
    {"legacy_wide", "test", "another", 1, 0x0f, run, scratch, depth},
};
#define TEST_RECORD sizeof(old_variant)
#define TEST_NAME "legacymod"
#elif defined(TEST_MINMAX)
static const kg_module_variant k_variants[] = {
    {"team_sum", "team", "a team's sum", 0, 0x3f, run, scratch, depth, KG_OP_SUM, 0},
    {"team_min", "team", "a team's min, NaN propagates", 0, 0x3f, run, scratch, depth, KG_OP_MIN, KG_NAN_PROPAGATE},
    {"team_max", "team", "a team's max, NaNs ignored", 0, 0x3f, run, scratch, depth, KG_OP_MAX, KG_NAN_IGNORE},
};
#define TEST_NAME "teammod"
#else
#if TEST_TEXT == 1
#define TEST_SEED "Harris 2007, \"\xc3\x9cnal\""
#define TEST_IDEA "::error::a sum, with \"quotes\", commas and \xc3\x9cnal's name"
#elif TEST_TEXT == 2
#define TEST_SEED "caf\xe9"
#elif TEST_TEXT == 3
#define TEST_IDEA "\x1b[2J\x1b[31mall clear"
#elif TEST_TEXT == 4
#define TEST_SEED "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#elif TEST_TEXT == 5
#define TEST_VERSION "v1\n::error::forged"
#endif
#ifndef TEST_SEED
#define TEST_SEED "test"
#endif
#ifndef TEST_IDEA
#define TEST_IDEA "one"
#endif
static const kg_module_variant k_variants[] = {
    {"first", TEST_SEED, TEST_IDEA, 0, 0x3f, run, scratch, depth, KG_OP_SUM, 0},
    {TEST_SECOND, "test", "two", 1, 0x0f, run, scratch, depth, KG_OP_SUM, 0},
};
#define TEST_NAME "testmod"
#endif

#ifndef TEST_RECORD
#define TEST_RECORD sizeof(kg_module_variant)
#endif
#ifndef TEST_RECORD_SIZE
#define TEST_RECORD_SIZE TEST_RECORD
#endif

#ifndef TEST_VERSION
#define TEST_VERSION "v1"
#endif
/* unused where TEST_NO_SYMBOLS leaves the module without its exports */
__attribute__((unused)) static const kg_module k_module = {
    TEST_ABI, (unsigned)(TEST_RECORD_SIZE), TEST_NAME, TEST_VERSION, sizeof k_variants / sizeof k_variants[0],
    (const kg_module_variant *)k_variants};

#ifndef TEST_NO_SYMBOLS
__attribute__((visibility("default"))) unsigned kgate_module_abi(void) { return TEST_ABI; }
__attribute__((visibility("default"))) const kg_module *kgate_module(void) { return &k_module; }
#endif

#ifdef TEST_TOOLCHAIN
#if TEST_TOOLCHAIN == 1
static const kg_module_toolchain k_toolchain = {sizeof(kg_module_toolchain), 13, 0, 88, 3000001,
                                                "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"};
#elif TEST_TOOLCHAIN == 2
static const kg_module_toolchain k_toolchain = {sizeof(kg_module_toolchain), 13, 0, 88, 3000001, "0123456789ABCDEF"};
#elif TEST_TOOLCHAIN == 3
static const kg_module_toolchain k_toolchain = {8, 13, 0, 88, 3000001, ""};
#else
static const kg_module_toolchain k_toolchain = {sizeof(kg_module_toolchain), 1000, 0, 0, 0, ""};
#endif
__attribute__((visibility("default"))) const kg_module_toolchain *kgate_module_toolchain(void) { return &k_toolchain; }
#endif
