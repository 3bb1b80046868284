/* registry: the facts expanded from kernels/variants.def. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "varreg.h"

START_TEST(test_registry_count) {
  ck_assert_uint_ge(kg_nvariants, 1);
  ck_assert_uint_eq(kg_nvariants, kg_nvariants_own); /* nothing loaded yet */
  ck_assert_uint_eq(kg_nvariants_all, kg_nvariants + kg_nmutants);
  ck_assert_uint_le(kg_nvariants_all, KG_REGISTRY_MAX);
}
END_TEST

/* The union: a module's variants come after kgate's own, the mutants move
 * up behind them and stay findable, and kgate's own facts stay put. */
START_TEST(test_registry_add_module_variants) {
  char err[512] = "";
  size_t own = kg_nvariants, all = kg_nvariants_all;
  int cub = kg_variant_find("cub_sum"), mut0 = kg_mutants[0].variant;
  ck_assert_int_eq(mut0, (int)own);
  int mod = kg_registry_add_module("/team/build/libteam.so");
  ck_assert_int_eq(mod, 1);
  ck_assert_str_eq(kg_registry_module_path(mod), "/team/build/libteam.so");
  kg_variant_info mx = {"team_max", "team", "a max", KG_FLOAT_ATOMICS, KG_DT_ALL, KG_OP_MAX, KG_NAN_IGNORE, mod, 1};
  kg_variant_info sm = {"team_sum", "team", "a sum", 0, KG_DT_WIDE, KG_OP_SUM, 0, mod, 1};
  ck_assert_int_eq(kg_registry_add(&mx, err, sizeof err), (int)own);
  ck_assert_int_eq(kg_registry_add(&sm, err, sizeof err), (int)own + 1);
  ck_assert_uint_eq(kg_nvariants, own + 2);
  ck_assert_uint_eq(kg_nvariants_all, all + 2);
  ck_assert_int_eq(kg_variant_find("team_max"), (int)own);
  ck_assert_str_eq(kg_variants[own].seed, "team");
  ck_assert_uint_eq(kg_variants[own].op, KG_OP_MAX);
  ck_assert_uint_eq(kg_variants[own].nan, KG_NAN_IGNORE);
  ck_assert_int_eq(kg_variants[own].module, mod);
  ck_assert_int_eq(kg_variant_find("cub_sum"), cub);
  ck_assert_int_eq(kg_variants[cub].module, 0);
  for (size_t m = 0; m < kg_nmutants; m++) {
    ck_assert_int_eq(kg_mutants[m].variant, (int)(own + 2 + m));
    ck_assert_int_eq(kg_variant_find_any(kg_mutants[m].name), kg_mutants[m].variant);
    ck_assert(kg_variant_is_mutant(kg_mutants[m].variant));
    ck_assert_int_eq(kg_variant_find(kg_mutants[m].name), -1);
  }
  ck_assert(!kg_variant_is_mutant((int)own));
  kg_registry_reset();
  ck_assert_uint_eq(kg_nvariants, own);
  ck_assert_int_eq(kg_mutants[0].variant, mut0);
  ck_assert_int_eq(kg_variant_find("team_max"), -1);
}
END_TEST

/* A min or max has no float-atomic rounding: it runs on tiny data and must
 * be deterministic, whatever its flags. */
START_TEST(test_registry_minmax_facts) {
  char err[512] = "";
  int mod = kg_registry_add_module("/team/libteam.so");
  kg_variant_info mx = {"team_max", "team", "a max", KG_FLOAT_ATOMICS, KG_DT_ALL, KG_OP_MAX, KG_NAN_IGNORE, mod, 1};
  int v = kg_registry_add(&mx, err, sizeof err);
  ck_assert_int_ge(v, 0);
  ck_assert(kg_case_supported(v, KG_F32, KG_PAT_TINY) && kg_case_supported(v, KG_BF16, KG_PAT_TINY));
  for (int d = 0; d < KG_NDTYPES; d++) ck_assert(!kg_variant_nondeterministic(v, (kg_dtype)d));
  int atomic = kg_variant_find("shuffle_atomic");
  ck_assert(!kg_case_supported(atomic, KG_F32, KG_PAT_TINY)); /* a sum's rule is unchanged */
  kg_registry_reset();
}
END_TEST

/* A name defined twice is one line naming where each definition lives. */
static const struct {
  const char *first_path, *name, *want;
} k_clashes[] = {
    {NULL, "cub_sum", "variant cub_sum is defined twice: in kgate's own variants and in /b/libteam.so (rename one)"},
    {NULL, "mut_slow1", "variant mut_slow1 is defined twice: in kgate's own variants and in /b/libteam.so (rename one)"},
    {"/a/libother.so", "team_max", "variant team_max is defined twice: in /a/libother.so and in /b/libteam.so (rename one)"},
};

START_TEST(test_registry_clash) {
  char err[512] = "";
  if (k_clashes[_i].first_path) {
    int a = kg_registry_add_module(k_clashes[_i].first_path);
    kg_variant_info v = {k_clashes[_i].name, "other", "", 0, KG_DT_ALL, KG_OP_MAX, 0, a, 1};
    ck_assert_int_ge(kg_registry_add(&v, err, sizeof err), 0);
  }
  size_t before = kg_nvariants;
  int b = kg_registry_add_module("/b/libteam.so");
  kg_variant_info v = {k_clashes[_i].name, "team", "", 0, KG_DT_ALL, KG_OP_SUM, 0, b, 1};
  ck_assert_int_eq(kg_registry_add(&v, err, sizeof err), -1);
  ck_assert_str_eq(err, k_clashes[_i].want);
  ck_assert_uint_eq(kg_nvariants, before);
  kg_registry_reset();
}
END_TEST

/* A name from a file that no module defines is data: added once, facts
 * unknown unless the file gives them; a name that is not a name is refused. */
START_TEST(test_registry_intern) {
  char err[256] = "";
  size_t own = kg_nvariants;
  int v = kg_variant_intern("my_team_kernel", NULL, err, sizeof err);
  ck_assert_int_eq(v, (int)own);
  ck_assert_int_eq(kg_variant_intern("my_team_kernel", NULL, err, sizeof err), v);
  ck_assert_int_eq(kg_variant_intern("cub_sum", NULL, err, sizeof err), kg_variant_find("cub_sum"));
  ck_assert_int_eq(kg_variants[v].known, 0);
  ck_assert_int_eq(kg_variants[v].module, -1);
  ck_assert_str_eq(kg_op_name(kg_variants[v].op), "unknown");
  ck_assert_str_eq(kg_variants[v].seed, "unknown");
  ck_assert_uint_eq(kg_nvariants, own + 1);
  kg_variant_info f = {"ignored", "team", "max", 0, KG_DT_BIT(KG_F32), KG_OP_MAX, KG_NAN_IGNORE, 7, 0};
  int w = kg_variant_intern("their_max", &f, err, sizeof err);
  ck_assert_str_eq(kg_variants[w].name, "their_max");
  ck_assert_int_eq(kg_variants[w].known, 1);
  ck_assert_int_eq(kg_variants[w].module, -1);
  ck_assert_uint_eq(kg_variants[w].op, KG_OP_MAX);
  static const char *const bad[] = {"", "My_kernel", "a-b", "a b", "x;rm", "\x1b[2J",
                                    "a234567890123456789012345678901234567890123456789012345678901234"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    ck_assert_int_eq(kg_variant_intern(bad[i], NULL, err, sizeof err), -1);
    ck_assert_str_eq(err, "variant name is not [a-z0-9_], 1..63 characters");
  }
  kg_registry_reset();
}
END_TEST

/* The registry takes a seed and an idea by the loader's rule (validate.h),
 * from a module and from a file alike: nothing is added when one breaks it. */
static const struct {
  const char *seed, *idea, *want;
} k_bad_text[] = {
    {"caf\xe9", "", "variant team_x: seed 'caf?': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"team", "\x1b]0;title\x07", "variant team_x: idea '?]0;title?': not UTF-8, or holds control characters (C0, ESC, "
                                  "DEL, C1)"},
    {"team", "two\nlines", "variant team_x: idea 'two?lines': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"\xc2\x9b" "31m", "", "variant team_x: seed '?31m': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
};

START_TEST(test_registry_bad_text) {
  char err[256] = "";
  size_t before = kg_nvariants;
  int mod = kg_registry_add_module("/a/libteam.so");
  kg_variant_info v = {"team_x", k_bad_text[_i].seed, k_bad_text[_i].idea, 0, KG_DT_ALL, KG_OP_SUM, 0, mod, 1};
  ck_assert_int_eq(kg_registry_add(&v, err, sizeof err), -1);
  ck_assert_str_eq(err, k_bad_text[_i].want);
  err[0] = '\0';
  ck_assert_int_eq(kg_variant_intern("team_x", &v, err, sizeof err), -1);
  ck_assert_str_eq(err, k_bad_text[_i].want);
  ck_assert_uint_eq(kg_nvariants, before);
  /* the same variant with a seed of spaces, digits and UTF-8 is welcome */
  v.seed = "\xc3\x9cnal 2007", v.idea = "a sum, \"quoted\"";
  ck_assert_msg(kg_registry_add(&v, err, sizeof err) >= 0, "%s", err);
  ck_assert_str_eq(kg_variants[kg_variant_find("team_x")].seed, "\xc3\x9cnal 2007");
  kg_registry_reset();
}
END_TEST

/* The registry holds KG_REGISTRY_MAX variants; one more is refused. */
START_TEST(test_registry_full) {
  char err[256] = "", name[32];
  size_t i = 0;
  for (; kg_nvariants < KG_REGISTRY_MAX; i++) {
    snprintf(name, sizeof name, "v%zu", i);
    ck_assert_int_ge(kg_variant_intern(name, NULL, err, sizeof err), 0);
  }
  ck_assert_int_eq(kg_variant_intern("one_more", NULL, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "the registry is full"));
  ck_assert_int_eq(kg_mutants[kg_nmutants - 1].variant, (int)kg_nvariants_all - 1);
  kg_registry_reset();
}
END_TEST

START_TEST(test_registry_op_names) {
  unsigned op = 9, nan = 9;
  ck_assert_str_eq(kg_op_name(KG_OP_SUM), "sum");
  ck_assert_str_eq(kg_op_name(KG_OP_MIN), "min");
  ck_assert_str_eq(kg_op_name(KG_OP_MAX), "max");
  ck_assert_int_eq(kg_op_parse("max", &op), 0);
  ck_assert_uint_eq(op, KG_OP_MAX);
  ck_assert_int_eq(kg_op_parse("unknown", &op), 0);
  ck_assert_uint_eq(op, KG_OP_UNKNOWN);
  ck_assert_int_eq(kg_op_parse("prod", &op), -1);
  ck_assert_int_eq(kg_nan_parse("ignore", &nan), 0);
  ck_assert_uint_eq(nan, KG_NAN_IGNORE);
  ck_assert_int_eq(kg_nan_parse("skip", &nan), -1);
  ck_assert_str_eq(kg_nan_name(KG_NAN_PROPAGATE), "propagate");
}
END_TEST

/* Loop index: the variant. */
START_TEST(test_registry_name_snake_unique) {
  const kg_variant_info *v = &kg_variants[_i];
  ck_assert_uint_gt(strlen(v->name), 0);
  ck_assert_msg(v->name[0] >= 'a' && v->name[0] <= 'z', "'%s' does not start with a letter", v->name);
  ck_assert_msg(strspn(v->name, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(v->name), "'%s' is not snake_case",
                v->name);
  for (size_t k = 0; k < kg_nvariants; k++)
    if (k != (size_t)_i) ck_assert_msg(strcmp(kg_variants[k].name, v->name) != 0, "'%s' twice", v->name);
  ck_assert(v->seed[0] && v->idea[0]);
  ck_assert_int_eq(kg_variant_find(v->name), _i);
}
END_TEST

START_TEST(test_registry_dtypes) {
  const kg_variant_info *v = &kg_variants[_i];
  ck_assert_uint_eq(v->dtypes & ~KG_DT_ALL, 0);
  ck_assert_uint_eq(v->flags & ~(unsigned)(KG_CLOBBERS | KG_FLOAT_ATOMICS), 0);
  const kg_dtype wide[] = {KG_I32, KG_I64, KG_F32, KG_F64};
  for (int d = 0; d < 4; d++) ck_assert_msg(kg_variant_supports(_i, wide[d]), "%s lacks a wide dtype", v->name);
  if (v->flags & KG_CLOBBERS) ck_assert_msg(v->dtypes == KG_DT_WIDE, "in-place %s must list KG_DT_WIDE", v->name);
  for (int d = 0; d < KG_NDTYPES; d++)
    ck_assert_int_eq(kg_variant_supports(_i, (kg_dtype)d) != 0, (v->dtypes >> d & 1) != 0);
}
END_TEST

START_TEST(test_registry_nondeterministic) {
  int atomics = (kg_variants[_i].flags & KG_FLOAT_ATOMICS) != 0;
  for (int d = 0; d < KG_NDTYPES; d++) {
    int want = atomics && kg_dtype_get((kg_dtype)d)->is_float;
    ck_assert_msg((kg_variant_nondeterministic(_i, (kg_dtype)d) != 0) == want, "%s %s", kg_variants[_i].name,
                  kg_dtype_get((kg_dtype)d)->name);
  }
}
END_TEST

START_TEST(test_registry_known_variants) {
  int cub = kg_variant_find("cub_sum"), atomic = kg_variant_find("atomic_per_element");
  int neighbored = kg_variant_find("neighbored");
  ck_assert_int_ge(cub, 0);
  for (int d = 0; d < KG_NDTYPES; d++) ck_assert(kg_variant_supports(cub, (kg_dtype)d));
  ck_assert_int_eq(kg_variants[cub].flags, 0);
  ck_assert_int_ge(atomic, 0);
  ck_assert(kg_variant_nondeterministic(atomic, KG_F32) && !kg_variant_nondeterministic(atomic, KG_I64));
  ck_assert_int_ge(neighbored, 0);
  ck_assert(!kg_variant_supports(neighbored, KG_F16) && !kg_variant_supports(neighbored, KG_BF16));
}
END_TEST

/* Float atomics flush subnormals: tiny f32/bf16 cases are unsupported for
 * them and only for them; f16 (normal in f32), f64 and other patterns run. */
START_TEST(test_case_supported_tiny_atomics) {
  int atomic = kg_variant_find("shuffle_atomic"), tree = kg_variant_find("two_pass");
  int mine = kg_variant_find("kgate_single_pass");
  ck_assert_int_ge(atomic, 0);
  ck_assert_int_ge(tree, 0);
  ck_assert_int_ge(mine, 0);
  ck_assert(!kg_case_supported(atomic, KG_F32, KG_PAT_TINY) && !kg_case_supported(atomic, KG_BF16, KG_PAT_TINY));
  ck_assert(kg_case_supported(atomic, KG_F16, KG_PAT_TINY) && kg_case_supported(atomic, KG_F64, KG_PAT_TINY));
  ck_assert(kg_case_supported(atomic, KG_F32, KG_PAT_HUGE) && kg_case_supported(atomic, KG_F32, KG_PAT_UNIFORM));
  ck_assert(kg_case_supported(tree, KG_F32, KG_PAT_TINY) && kg_case_supported(mine, KG_BF16, KG_PAT_TINY));
  ck_assert(!kg_case_supported(kg_variant_find("neighbored"), KG_F16, KG_PAT_UNIFORM)); /* dtype still decides */
}
END_TEST

static const char *const k_unknown[] = {"", "CUB_SUM", "cub_sum ", " cub_sum", "cub", "reduce0", "nope"};

START_TEST(test_variant_find_unknown) {
  ck_assert_int_eq(kg_variant_find(k_unknown[_i]), -1);
}
END_TEST

START_TEST(test_variant_supports_out_of_range) {
  ck_assert(!kg_variant_supports(-1, KG_I32));
  ck_assert(!kg_variant_supports((int)kg_nvariants_all, KG_I32)); /* past the mutants too */
  ck_assert(!kg_variant_supports(0, KG_NDTYPES));
}
END_TEST

Suite *make_registry_suite(void) {
  Suite *s = suite_create("registry");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_registry_count);
  tcase_add_loop_test(core, test_registry_name_snake_unique, 0, (int)kg_nvariants);
  tcase_add_loop_test(core, test_registry_dtypes, 0, (int)kg_nvariants);
  tcase_add_loop_test(core, test_registry_nondeterministic, 0, (int)kg_nvariants);
  tcase_add_test(core, test_registry_known_variants);
  tcase_add_test(core, test_case_supported_tiny_atomics);
  tcase_add_test(core, test_registry_add_module_variants);
  tcase_add_test(core, test_registry_minmax_facts);
  tcase_add_test(core, test_registry_intern);
  tcase_add_test(core, test_registry_op_names);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_test(limits, test_registry_full);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_variant_find_unknown, 0, sizeof k_unknown / sizeof k_unknown[0]);
  tcase_add_test(errors, test_variant_supports_out_of_range);
  tcase_add_loop_test(errors, test_registry_bad_text, 0, (int)(sizeof k_bad_text / sizeof k_bad_text[0]));
  tcase_add_loop_test(errors, test_registry_clash, 0, (int)(sizeof k_clashes / sizeof k_clashes[0]));
  suite_add_tcase(s, errors);
  return s;
}
