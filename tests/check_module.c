/* Kernel modules: loading, the ABI check, registry validation, and the
 * description the supervisor reads (module.h). The modules are built from
 * tests/modules/test_module.c without CUDA. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

static const char *mod_path(const char *kind, char *buf, size_t len) {
  snprintf(buf, len, "%s/libkg_testmod_%s.so", TEST_MODULES, kind);
  return buf;
}

static int run_stub(int dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  (void)dt, (void)in, (void)n, (void)out, (void)scratch, (void)stream;
  return 0;
}
static size_t scratch_stub(int dt, size_t n) { return (size_t)dt + n; }
static double depth_stub(size_t n) { return (double)n; }

START_TEST(test_module_open_good) {
  char path[1024], err[512] = "";
  kg_loaded_module m;
  ck_assert_int_eq(kg_module_open(mod_path("good", path, sizeof path), &m, err, sizeof err), 0);
  ck_assert_str_eq(m.m->name, "testmod");
  ck_assert_uint_eq(m.m->nvariants, 2);
  ck_assert_int_eq(kg_module_find(m.m, "second"), 1);
  ck_assert_int_eq(kg_module_find(m.m, "third"), -1);
  /* the functions are the module's own: scratch(dt, n) = dt + n there */
  ck_assert_uint_eq(m.m->variants[0].scratch(2, 40), 42);
  kg_module_close(&m);
}
END_TEST

START_TEST(test_module_describe_round_trip) {
  char path[1024], err[512] = "";
  kg_loaded_module m[2];
  ck_assert_int_eq(kg_module_open(mod_path("good", path, sizeof path), &m[0], err, sizeof err), 0);
  m[1] = m[0];
  char *line = kg_module_describe(m, 2);
  ck_assert_ptr_nonnull(line);
  kg_modinfo mi[2];
  ck_assert_int_eq(kg_module_parse_describe(line, mi, 2, err, sizeof err), 2);
  ck_assert_str_eq(mi[1].name, "testmod");
  ck_assert_str_eq(mi[1].version, "v1");
  ck_assert_uint_eq(mi[1].n, 2);
  ck_assert_int_eq(kg_modinfo_find(&mi[1], "second"), 1);
  ck_assert_uint_eq(mi[1].v[1].flags, 1);
  ck_assert_uint_eq(mi[1].v[1].dtypes, 0x0f);
  /* more modules than room: refused, nothing leaked */
  ck_assert_int_eq(kg_module_parse_describe(line, mi, 1, err, sizeof err), -1);
  kg_modinfo_free(&mi[0]);
  kg_modinfo_free(&mi[1]);
  free(line);
  kg_module_close(&m[0]);
}
END_TEST

/* Each broken module is one line naming the file, never a crash. */
static const struct {
  const char *kind, *want;
} k_bad[] = {
    {"abi", "built for kernel ABI 99, this kgate speaks ABI 1"},
    {"nosym", "not a kgate kernel module"},
    {"dup", "variant first: listed twice"},
};

START_TEST(test_module_open_refuses) {
  char path[1024], err[512] = "";
  kg_loaded_module m;
  mod_path(k_bad[_i].kind, path, sizeof path);
  ck_assert_int_eq(kg_module_open(path, &m, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, k_bad[_i].want));
  ck_assert_ptr_nonnull(strstr(err, path));
  ck_assert_ptr_null(m.handle);
}
END_TEST

START_TEST(test_module_open_not_a_module) {
  char err[512] = "";
  kg_loaded_module m;
  ck_assert_int_eq(kg_module_open("/nonexistent/libx.so", &m, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "/nonexistent/libx.so: No such file"));
  ck_assert_int_eq(kg_module_open("/etc", &m, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
  ck_assert_int_eq(kg_module_open(TEST_MODULES "/../CTestTestfile.cmake", &m, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "cannot load"));
}
END_TEST

/* kg_module_validate on tables: one defect each. */
enum { BAD_ABI, BAD_SIZE, BAD_NAME, BAD_CHARS, BAD_LONG, BAD_FLAGS, BAD_DTYPES, NO_DTYPES, NO_RUN, NONE, NBAD };

START_TEST(test_module_validate_defects) {
  kg_module_variant v[2] = {{"alpha", "s", "i", 0, 0x3f, run_stub, scratch_stub, depth_stub, KG_OP_SUM, 0},
                            {"beta", "s", "i", 0, 0x3f, run_stub, scratch_stub, depth_stub, KG_OP_SUM, 0}};
  kg_module m = {KG_MODULE_ABI, sizeof(kg_module_variant), "mod", "1", 2, v};
  char err[256] = "", longname[80];
  memset(longname, 'a', 64);
  longname[64] = '\0';
  ck_assert_int_eq(kg_module_validate(&m, err, sizeof err), 0);
  switch (_i) {
  case BAD_ABI: m.abi = 2; break;
  case BAD_SIZE: m.variant_size = 8; break;
  case BAD_NAME: v[1].name = NULL; break;
  case BAD_CHARS: v[1].name = "Beta;rm"; break;
  case BAD_LONG: v[1].name = longname; break;
  case BAD_FLAGS: v[1].flags = 8; break;
  case BAD_DTYPES: v[1].dtypes = 0x40; break;
  case NO_DTYPES: v[1].dtypes = 0; break;
  case NO_RUN: v[1].run = NULL; break;
  case NONE: m.nvariants = 0; break;
  }
  ck_assert_int_eq(kg_module_validate(&m, err, sizeof err), -1);
  ck_assert_str_ne(err, "");
}
END_TEST

START_TEST(test_module_parse_describe_malformed) {
  static const char *const k_lines[] = {
      "", "{}", "{\"modules\":7}", "{\"modules\":[{}]}",
      "{\"modules\":[{\"path\":\"p\",\"name\":\"n\",\"variants\":[[\"Bad name\",0,1]]}]}",
      "{\"modules\":[{\"path\":\"p\",\"name\":\"n\",\"variants\":[[\"ok\",\"0\",1]]}]}",
      "{\"modules\":[{\"path\":\"p\",\"name\":\"n\",\"variants\":[7]}]}",
  };
  char err[256];
  kg_modinfo mi[2];
  for (size_t i = 0; i < sizeof k_lines / sizeof k_lines[0]; i++) {
    err[0] = '\0';
    ck_assert_int_eq(kg_module_parse_describe(k_lines[i], mi, 2, err, sizeof err), -1);
    ck_assert_str_eq(err, "the worker's module description is malformed");
  }
}
END_TEST

Suite *make_module_suite(void) {
  Suite *s = suite_create("module");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_module_open_good);
  tcase_add_test(core, test_module_describe_round_trip);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_module_open_refuses, 0, (int)(sizeof k_bad / sizeof k_bad[0]));
  tcase_add_test(errors, test_module_open_not_a_module);
  tcase_add_loop_test(errors, test_module_validate_defects, 0, NBAD);
  tcase_add_test(errors, test_module_parse_describe_malformed);
  suite_add_tcase(s, errors);
  return s;
}
