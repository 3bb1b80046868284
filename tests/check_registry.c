/* registry: the facts expanded from kernels/variants.def. */
#include <check.h>
#include <string.h>

#include "dtype.h"
#include "registry.h"

START_TEST(test_registry_count) {
  ck_assert_uint_ge(kg_nvariants, 1);
  ck_assert_uint_le(kg_nvariants, 64); /* plan masks are 64 bits */
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
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_variant_find_unknown, 0, sizeof k_unknown / sizeof k_unknown[0]);
  tcase_add_test(errors, test_variant_supports_out_of_range);
  suite_add_tcase(s, errors);
  return s;
}
