#include "varreg.h"

#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "fields.h"

/* kgate's own variants, then the mutants: the table as built (kept for
 * kg_registry_reset; k_tab below starts as the same list). */
static const kg_variant_info k_own[] = {
#define KG_VARIANT(name, seed, idea, flags, dtypes, lint) {#name, seed, idea, flags, dtypes, KG_OP_SUM, 0, 0, 1},
#include "variants.def"
#undef KG_VARIANT
#define KG_MUTANT(name, base, flags, dtypes, expect, planted)                                                          \
  {#name, "mutant", planted, flags, dtypes, KG_OP_SUM, 0, 0, 1},
#include "mutants/mutants.def"
#undef KG_MUTANT
};

enum {
  k_nreal = 0
#define KG_VARIANT(name, seed, idea, flags, dtypes, lint) +1
#include "variants.def"
#undef KG_VARIANT
};

enum { k_nown_all = sizeof k_own / sizeof k_own[0], k_nmut = k_nown_all - k_nreal };

/* The live table: own variants, added ones, then the mutants. Text of added
 * entries lives beside it, so nothing here is ever freed. */
static kg_variant_info k_tab[KG_REGISTRY_MAX + k_nmut] = {
#define KG_VARIANT(name, seed, idea, flags, dtypes, lint) {#name, seed, idea, flags, dtypes, KG_OP_SUM, 0, 0, 1},
#include "variants.def"
#undef KG_VARIANT
#define KG_MUTANT(name, base, flags, dtypes, expect, planted)                                                          \
  {#name, "mutant", planted, flags, dtypes, KG_OP_SUM, 0, 0, 1},
#include "mutants/mutants.def"
#undef KG_MUTANT
};
static struct {
  char name[64], seed[64], idea[160];
} k_text[KG_REGISTRY_MAX];
enum { k_max_modules = 64 };
static char k_module_path[k_max_modules + 1][1024];
static int k_nmodules;

const kg_variant_info *const kg_variants = k_tab;
size_t kg_nvariants = k_nreal;
size_t kg_nvariants_all = k_nown_all;
const size_t kg_nvariants_own = k_nreal;

enum {
#define KG_MUTANT(name, base, flags, dtypes, expect, planted) k_mut_##name,
#include "mutants/mutants.def"
#undef KG_MUTANT
};

static kg_mutant_info k_mutants[] = {
#define KG_MUTANT(name, base, flags, dtypes, expect, planted) {#name, #base, expect, planted, k_nreal + k_mut_##name},
#include "mutants/mutants.def"
#undef KG_MUTANT
};

const kg_mutant_info *const kg_mutants = k_mutants;
const size_t kg_nmutants = sizeof k_mutants / sizeof k_mutants[0];

/* The mutants sit after the real variants: rewritten whenever one is added. */
static void place_mutants(void) {
  for (size_t m = 0; m < (size_t)k_nmut; m++) {
    k_tab[kg_nvariants + m] = k_own[k_nreal + m];
    k_mutants[m].variant = (int)(kg_nvariants + m);
  }
  kg_nvariants_all = kg_nvariants + (size_t)k_nmut;
}

void kg_registry_reset(void) {
  memcpy(k_tab, k_own, sizeof k_own);
  kg_nvariants = k_nreal;
  k_nmodules = 0;
  place_mutants();
}

static const char *const k_expect_names[KG_NEXPECT] = {
    [KG_EXPECT_WRONG_RESULT] = "wrong_result",         [KG_EXPECT_INPUT_MODIFIED] = "input_modified",
    [KG_EXPECT_NONDETERMINISTIC] = "nondeterministic", [KG_EXPECT_CRASH] = "crash",
    [KG_EXPECT_TIMEOUT] = "timeout",                   [KG_EXPECT_MEMCHECK] = "sanitizer:memcheck",
    [KG_EXPECT_RACECHECK] = "sanitizer:racecheck",     [KG_EXPECT_SYNCCHECK] = "sanitizer:synccheck",
    [KG_EXPECT_SLOWER] = "slower",                     [KG_EXPECT_HUGE] = "huge",
    [KG_EXPECT_SAME] = "same",                         [KG_EXPECT_LINT] = "lint",
    [KG_EXPECT_NOT_SLOWER] = "not_slower",             [KG_EXPECT_REFUSED] = "refused",
    [KG_EXPECT_WRONG_AFTER_TIMING] = "wrong_after_timing",
};

const char *kg_expect_name(kg_expect e) { return (unsigned)e < KG_NEXPECT ? k_expect_names[e] : "?"; }

static int find_in(const char *name, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (strcmp(k_tab[i].name, name) == 0) return (int)i;
  return -1;
}

int kg_variant_find(const char *name) { return find_in(name, 0, kg_nvariants); }

int kg_variant_find_any(const char *name) {
  /* A name from a file may equal a mutant's: the real one is found first. */
  return find_in(name, 0, kg_nvariants_all);
}

int kg_variant_is_mutant(int v) { return v >= 0 && (size_t)v >= kg_nvariants && (size_t)v < kg_nvariants_all; }

int kg_variant_name_ok(const char *s) {
  size_t len = 0;
  for (; s && s[len]; len++) {
    char c = s[len];
    if (len >= 63 || !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return 0;
  }
  return len > 0;
}

int kg_registry_add_module(const char *path) {
  if (k_nmodules >= k_max_modules) return -1;
  k_nmodules++;
  snprintf(k_module_path[k_nmodules], sizeof k_module_path[k_nmodules], "%s", path);
  return k_nmodules;
}

const char *kg_registry_module_path(int module) {
  if (module == 0) return "kgate";
  return module > 0 && module <= k_nmodules ? k_module_path[module] : "?";
}

/* Where a variant was defined, for the clash message. */
static void origin(const kg_variant_info *v, char *buf, size_t len) {
  if (v->module == 0) snprintf(buf, len, "kgate's own variants");
  else if (v->module > 0) snprintf(buf, len, "%s", kg_registry_module_path(v->module));
  else snprintf(buf, len, "a results file");
}

static int append(const kg_variant_info *v, char *err, size_t errlen) {
  if (kg_nvariants >= KG_REGISTRY_MAX)
    return snprintf(err, errlen, "more than %d variants: the registry is full", KG_REGISTRY_MAX), -1;
  size_t i = kg_nvariants;
  snprintf(k_text[i].name, sizeof k_text[i].name, "%s", v->name);
  snprintf(k_text[i].seed, sizeof k_text[i].seed, "%s", v->seed ? v->seed : "unknown");
  snprintf(k_text[i].idea, sizeof k_text[i].idea, "%s", v->idea ? v->idea : "");
  k_tab[i] = *v;
  k_tab[i].name = k_text[i].name, k_tab[i].seed = k_text[i].seed, k_tab[i].idea = k_text[i].idea;
  kg_nvariants++;
  place_mutants();
  return (int)i;
}

int kg_registry_add(const kg_variant_info *v, char *err, size_t errlen) {
  if (!kg_variant_name_ok(v->name))
    return snprintf(err, errlen, "variant name '%.63s' is not [a-z0-9_], 1..63 characters", v->name ? v->name : ""), -1;
  if (kg_variant_text_check(v->name, v->seed, v->idea, err, errlen)) return -1;
  int old = kg_variant_find_any(v->name); /* a mutant's name is kgate's too */
  if (old >= 0) {
    char a[1040], b[1040];
    origin(&k_tab[old], a, sizeof a);
    origin(v, b, sizeof b);
    return snprintf(err, errlen, "variant %s is defined twice: in %s and in %s (rename one)", v->name, a, b), -1;
  }
  return append(v, err, errlen);
}

int kg_variant_intern(const char *name, const kg_variant_info *facts, char *err, size_t errlen) {
  int v = kg_variant_find(name);
  if (v >= 0) return v;
  if (!kg_variant_name_ok(name)) return snprintf(err, errlen, "variant name is not [a-z0-9_], 1..63 characters"), -1;
  kg_variant_info u = {name, "unknown", "", 0, 0, KG_OP_UNKNOWN, 0, -1, 0};
  if (facts) u = *facts, u.name = name, u.module = -1, u.known = 1;
  if (kg_variant_text_check(name, u.seed, u.idea, err, errlen)) return -1;
  return append(&u, err, errlen);
}

static const char *const k_ops[] = {[KG_OP_SUM] = "sum", [KG_OP_MIN] = "min", [KG_OP_MAX] = "max"};
static const char *const k_nans[] = {[KG_NAN_PROPAGATE] = "propagate", [KG_NAN_IGNORE] = "ignore"};

const char *kg_op_name(unsigned op) { return op < 3 ? k_ops[op] : "unknown"; }
const char *kg_nan_name(unsigned nan) { return nan < 2 ? k_nans[nan] : "unknown"; }

int kg_op_parse(const char *s, unsigned *op) {
  for (unsigned i = 0; s && i < 3; i++)
    if (!strcmp(s, k_ops[i])) return *op = i, 0;
  if (s && !strcmp(s, "unknown")) return *op = KG_OP_UNKNOWN, 0;
  return -1;
}

int kg_nan_parse(const char *s, unsigned *nan) {
  for (unsigned i = 0; s && i < 2; i++)
    if (!strcmp(s, k_nans[i])) return *nan = i, 0;
  return -1;
}

int kg_variant_supports(int v, kg_dtype dt) {
  return v >= 0 && (size_t)v < kg_nvariants_all && (unsigned)dt < KG_NDTYPES && (k_tab[v].dtypes & KG_DT_BIT(dt));
}

/* atom.add.f32 flushes subnormal operands and results to zero by definition
 * (PTX ISA), so sums of f32/bf16 `tiny` data, which stay below the smallest
 * f32 normal, come out 0 from any float-atomic combine: unsupported, not a
 * failure on every run. f16's tiny values are normal in f32, and f64 atomics
 * keep subnormals, so those cases run. A min or max adds nothing: it runs. */
int kg_case_supported(int v, kg_dtype dt, kg_pattern p) {
  if (!kg_variant_supports(v, dt)) return 0;
  const kg_dtype_info *d = kg_dtype_get(dt);
  int flushed = d->is_float && d->acc_size == 4 && kg_pattern_scale(p, dt) < 0x1p-126;
  return !(flushed && k_tab[v].op == KG_OP_SUM && (k_tab[v].flags & KG_FLOAT_ATOMICS));
}

int kg_variant_nondeterministic(int v, kg_dtype dt) {
  return k_tab[v].op == KG_OP_SUM && (k_tab[v].flags & KG_FLOAT_ATOMICS) && kg_dtype_get(dt)->is_float;
}
