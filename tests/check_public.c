/* check_public: the installed headers as a team uses them. include/kgate/module.h
 * keeps its ABI numbers, and a module built with kgate/registry.h (and the
 * module flags of kgate_add_kernels) loads through kgate's own loader with
 * the table its registry file describes, exporting only the two entry points. */
#include <check.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "kgate/module.h"
#include "modload.h"

#ifndef REGISTRY_MODULE
#error "REGISTRY_MODULE: the path of the registry test module"
#endif
#ifndef REGISTRY_DUP_MODULE
#error "REGISTRY_DUP_MODULE: the path of the registry test module with a name twice"
#endif

/* The numbers a module is compiled with: changing one breaks every built module. */
static const struct {
  const char *what;
  unsigned got, want;
} k_abi[] = {
    {"KG_I32", KG_I32, 0},           {"KG_I64", KG_I64, 1},
    {"KG_F32", KG_F32, 2},           {"KG_F64", KG_F64, 3},
    {"KG_F16", KG_F16, 4},           {"KG_BF16", KG_BF16, 5},
    {"KG_NDTYPES", KG_NDTYPES, 6},   {"KG_DT_ALL", KG_DT_ALL, 0x3f},
    {"KG_CLOBBERS", KG_CLOBBERS, 1}, {"KG_FLOAT_ATOMICS", KG_FLOAT_ATOMICS, 2},
    {"KG_OP_SUM", KG_OP_SUM, 0},     {"KG_OP_MIN", KG_OP_MIN, 1},
    {"KG_OP_MAX", KG_OP_MAX, 2},     {"KG_NAN_PROPAGATE", KG_NAN_PROPAGATE, 0},
    {"KG_NAN_IGNORE", KG_NAN_IGNORE, 1},
};

START_TEST(test_public_abi_numbers) {
  ck_assert_msg(k_abi[_i].got == k_abi[_i].want, "%s is %u, the ABI says %u", k_abi[_i].what, k_abi[_i].got,
                k_abi[_i].want);
}
END_TEST

/* The harness's dtype table is indexed by the public numbers. */
START_TEST(test_public_dtype_names) {
  static const char *const names[KG_NDTYPES] = {"i32", "i64", "f32", "f64", "f16", "bf16"};
  ck_assert_str_eq(kg_dtype_get((kg_dtype)_i)->name, names[_i]);
  ck_assert_uint_eq(KG_DT_BIT(_i), 1u << _i);
}
END_TEST

START_TEST(test_public_registry_table) {
  kg_loaded_module lm;
  char err[512] = "";
  ck_assert_msg(kg_module_open(REGISTRY_MODULE, &lm, err, sizeof err) == 0, "%s", err);
  const kg_module *m = lm.m;
  ck_assert_uint_eq(m->abi, KG_MODULE_ABI);
  ck_assert_uint_eq(m->variant_size, sizeof(kg_module_variant));
  ck_assert_str_eq(m->name, "regtest");
  ck_assert_str_eq(m->version, "v\"1\"\\2");
  ck_assert_uint_eq(m->nvariants, 2);
  const kg_module_variant *s = &m->variants[0], *x = &m->variants[1];
  ck_assert_str_eq(s->name, "t_sum");
  ck_assert_str_eq(s->seed, "test");
  ck_assert_str_eq(s->idea, "a sum of every dtype");
  ck_assert_uint_eq(s->flags, 0);
  ck_assert_uint_eq(s->dtypes, KG_DT_ALL);
  ck_assert_uint_eq(s->op, KG_OP_SUM);
  ck_assert_uint_eq(s->nan, 0);
  ck_assert_str_eq(x->name, "t_max");
  ck_assert_str_eq(x->seed, "test team");
  ck_assert_uint_eq(x->flags, KG_CLOBBERS | KG_FLOAT_ATOMICS);
  ck_assert_uint_eq(x->dtypes, (1u << KG_F32) | (1u << KG_F64));
  ck_assert_uint_eq(x->op, KG_OP_MAX);
  ck_assert_uint_eq(x->nan, KG_NAN_IGNORE);
  /* each entry points at its own name's functions */
  ck_assert_int_eq(s->run(KG_F64, NULL, 0, NULL, NULL, NULL), 103);
  ck_assert_int_eq(x->run(KG_F32, NULL, 0, NULL, NULL, NULL), 202);
  ck_assert_uint_eq(s->scratch(1, 10), 1011);
  ck_assert_uint_eq(x->scratch(3, 10), 2013);
  ck_assert_double_eq(s->depth(4), 4.5);
  ck_assert_double_eq(x->depth(4), 4.25);
  ck_assert_int_eq(kg_module_find(m, "t_max"), 1);
  kg_module_close(&lm);
}
END_TEST

/* Only kgate_module_abi and kgate_module leave the module: the variants'
 * functions stay local, so two modules with the same names load side by side. */
static const char *const k_hidden[] = {"kg_run_t_sum", "kg_scratch_t_sum", "kg_depth_t_max", "kgate__variants",
                                       "kgate__module"};

START_TEST(test_public_registry_hidden_symbols) {
  void *h = dlopen(REGISTRY_MODULE, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(h != NULL, "%s", dlerror());
  ck_assert_ptr_nonnull(dlsym(h, "kgate_module_abi"));
  ck_assert_ptr_nonnull(dlsym(h, "kgate_module"));
  ck_assert_msg(dlsym(h, k_hidden[_i]) == NULL, "%s is exported", k_hidden[_i]);
  dlclose(h);
}
END_TEST

/* A registry that names a variant twice builds, and kgate refuses the module
 * in one line that names the file and the variant. */
START_TEST(test_public_registry_duplicate_refused) {
  kg_loaded_module lm;
  char err[512] = "";
  ck_assert_int_eq(kg_module_open(REGISTRY_DUP_MODULE, &lm, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, REGISTRY_DUP_MODULE));
  ck_assert_ptr_nonnull(strstr(err, "variant t_sum: listed twice"));
  ck_assert_ptr_null(strchr(err, '\n'));
  ck_assert_ptr_null(lm.handle);
}
END_TEST

static Suite *make_public_suite(void) {
  Suite *s = suite_create("public");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_public_registry_table);
  tcase_add_loop_test(core, test_public_registry_hidden_symbols, 0, (int)(sizeof k_hidden / sizeof k_hidden[0]));
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_loop_test(limits, test_public_abi_numbers, 0, (int)(sizeof k_abi / sizeof k_abi[0]));
  tcase_add_loop_test(limits, test_public_dtype_names, 0, KG_NDTYPES);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_test(errors, test_public_registry_duplicate_refused);
  suite_add_tcase(s, errors);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(make_public_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
