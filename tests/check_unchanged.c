/* The proof that a paired cell is unchanged (unchanged.h), on cubins that
 * nvcc 13.0 built from tests/data/cubin/unit.cu (see its README): the same
 * code built again with other line numbers, and one change each to a
 * kernel's code, its device function, the unit's __constant__ data, and a
 * kernel added to the unit. */
#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "unchanged.h"

#define CUBINS KG_SOURCE_DIR "/tests/data/cubin/"

static const char *const k_kernels[] = {"_Z5k_sumPKiPii", "_Z7k_scalePKiPii", "_Z7k_tablePKiPii"};
enum { SUM, SCALE, TABLE };

/* The table of one cubin, built for sm_90. */
static void table_of(const char *file, kg_code_table *t) {
  char path[512];
  snprintf(path, sizeof path, CUBINS "%s", file);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "%s", path);
  static unsigned char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  memset(t, 0, sizeof *t);
  ck_assert_msg(kg_code_table_add_cubin(t, buf, n, 90, file) == 0, "%s", t->why);
}

/* Whether kernel k is proven the same in the two cubins, with the evidence or why not in buf. */
static int same(const char *head, const char *base, int k, char *buf, size_t len) {
  kg_code_table h, b;
  table_of(head, &h);
  table_of(base, &b);
  uint64_t hash = kg_code_name_hash(k_kernels[k]);
  int rc = kg_code_same(&h, &b, 90, &hash, 1, 2, buf, len);
  kg_code_table_free(&h);
  kg_code_table_free(&b);
  return rc;
}

START_TEST(test_unchanged_same_code_other_lines) {
  char why[200];
  for (int k = SUM; k <= TABLE; k++) {
    ck_assert_msg(same("lines.cubin", "base.cubin", k, why, sizeof why) == 1, "%s", why);
    ck_assert_msg(strstr(why, "same machine code (sm_90, SHA-256 ") && strstr(why, "1 kernel, 2 launches"), "%s", why);
  }
}
END_TEST

/* One kernel's code changed: it alone is refused. */
START_TEST(test_unchanged_kernel_changed) {
  char why[200];
  ck_assert_int_eq(same("scale.cubin", "base.cubin", SCALE, why, sizeof why), 0);
  ck_assert_msg(strstr(why, "machine code differs: _Z7k_scalePKiPii") != NULL, "%s", why);
  ck_assert_msg(same("scale.cubin", "base.cubin", SUM, why, sizeof why) == 1, "%s", why);
  ck_assert_msg(same("scale.cubin", "base.cubin", TABLE, why, sizeof why) == 1, "%s", why);
}
END_TEST

/* The device function k_sum calls changed (its code sits in k_sum's text). */
START_TEST(test_unchanged_callee_changed) {
  char why[200];
  ck_assert_int_eq(same("devfn.cubin", "base.cubin", SUM, why, sizeof why), 0);
  ck_assert_msg(same("devfn.cubin", "base.cubin", SCALE, why, sizeof why) == 1, "%s", why);
}
END_TEST

/* __constant__ data is the unit's: every kernel of it is refused. A kernel
 * added to the unit moves its symbols, which the proof reads by name: the
 * others stay provable. */
START_TEST(test_unchanged_unit_data_changed) {
  char why[200];
  for (int k = SUM; k <= TABLE; k++) {
    ck_assert_int_eq(same("table.cubin", "base.cubin", k, why, sizeof why), 0);
    ck_assert_msg(same("extra.cubin", "base.cubin", k, why, sizeof why) == 1, "%s", why);
  }
}
END_TEST

/* A kernel the base lacks, or lacks for this architecture, proves nothing;
 * nor does a kernel two units of one side hold with different code. */
START_TEST(test_unchanged_missing_and_twice) {
  kg_code_table h, b;
  char why[200];
  table_of("extra.cubin", &h);
  table_of("base.cubin", &b);
  uint64_t extra = kg_code_name_hash("_Z7k_extraPi");
  ck_assert_int_eq(kg_code_same(&h, &b, 90, &extra, 1, 1, why, sizeof why), 0);
  ck_assert_msg(strstr(why, "no sm_90 machine code in the base module") != NULL, "%s", why);
  uint64_t sum = kg_code_name_hash(k_kernels[SUM]);
  ck_assert_int_eq(kg_code_same(&b, &b, 80, &sum, 1, 1, why, sizeof why), 0);
  ck_assert_msg(strstr(why, "no sm_80 machine code in the head module") != NULL, "%s", why);
  ck_assert_int_eq(kg_code_same(&b, &b, 90, &sum, 0, 0, why, sizeof why), 0);
  kg_code_table_free(&h);
  /* the base again with a unit whose k_sum differs */
  kg_code_table two;
  table_of("base.cubin", &two);
  char path[512];
  snprintf(path, sizeof path, CUBINS "devfn.cubin");
  FILE *f = fopen(path, "rb");
  static unsigned char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  ck_assert_int_eq(kg_code_table_add_cubin(&two, buf, n, 90, "devfn.cubin"), 0);
  ck_assert_int_eq(two.units, 2);
  ck_assert_int_eq(kg_code_same(&two, &b, 90, &sum, 1, 1, why, sizeof why), 0);
  ck_assert_msg(strstr(why, "in two units of the head with different code") != NULL, "%s", why);
  uint64_t scale = kg_code_name_hash(k_kernels[SCALE]); /* the same in both units: still provable */
  ck_assert_msg(kg_code_same(&two, &b, 90, &scale, 1, 1, why, sizeof why) == 1, "%s", why);
  kg_code_table_free(&two);
  kg_code_table_free(&b);
}
END_TEST

/* The same source built in two folders: the kernel's name differs by the
 * path hash of its anonymous namespace, and both the name and the code are
 * read as the same. */
START_TEST(test_unchanged_other_folder) {
  char n1[] = "_ZN36_GLOBAL__N__c7d723a5_4_a_cu_4536d6f11kEPi", n2[] = "_ZN36_GLOBAL__N__4bb65bea_4_a_cu_4536d6f11kEPi";
  char o1[sizeof n1], o2[sizeof n2];
  kg_code_name_normal(n1, o1);
  kg_code_name_normal(n2, o2);
  ck_assert_str_eq(o1, "_ZN36_GLOBAL__N__xxxxxxxx_4_a_cu_4536d6f11kEPi");
  ck_assert_str_eq(o1, o2);
  char internal[] = "_ZN51_INTERNAL_5ede2b10_20_kgate_single_pass_cu_988b689953_GLOBAL__N__5ede2b10_20_x8g_ticketE",
       oi[sizeof internal];
  kg_code_name_normal(internal, oi);
  ck_assert_str_eq(oi, "_ZN51_INTERNAL_xxxxxxxx_20_kgate_single_pass_cu_988b689953_GLOBAL__N__xxxxxxxx_20_x8g_ticketE");
  char short_hex[] = "_GLOBAL__N__12ab_x", o3[sizeof short_hex]; /* not 8 digits: left alone */
  kg_code_name_normal(short_hex, o3);
  ck_assert_str_eq(o3, short_hex);
  ck_assert(kg_code_name_hash(n1) == kg_code_name_hash(n2));
  kg_code_table h, b;
  char why[200];
  table_of("anon_here.cubin", &h);
  table_of("anon_there.cubin", &b);
  uint64_t k = kg_code_name_hash(n1);
  ck_assert_msg(kg_code_same(&h, &b, 90, &k, 1, 1, why, sizeof why) == 1, "%s", why);
  kg_code_table_free(&h);
  kg_code_table_free(&b);
}
END_TEST

/* A cut or foreign image is refused with its name, and nothing is added. */
START_TEST(test_unchanged_bad_images) {
  static unsigned char buf[1 << 16];
  FILE *f = fopen(CUBINS "base.cubin", "rb");
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  Elf64_Ehdr h;
  memcpy(&h, buf, sizeof h);
  const size_t cuts[] = {0, 10, 64, n / 2, (size_t)h.e_shoff + 100}; /* the last: inside the section headers */
  for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
    kg_code_table t = {0};
    ck_assert_int_eq(kg_code_table_add_cubin(&t, buf, cuts[k], 90, "cut.cubin"), -1);
    ck_assert_msg(strstr(t.why, "cut.cubin: not a readable cubin") != NULL, "%s", t.why);
    ck_assert_uint_eq(t.n, 0);
    kg_code_table_free(&t);
  }
  kg_code_table t = {0};
  ck_assert_int_eq(kg_code_table_add_cubin(&t, "hello", 5, 90, "text"), -1);
  kg_code_table_free(&t);
}
END_TEST

/* A module's cubins come from cuobjdump -xelf all: a stand-in that writes
 * two named as cuobjdump names them; without any cuobjdump the table says so. */
START_TEST(test_unchanged_module) {
  char dir[256], tool[300], cmd[1200];
  kgt_mkscratch(dir, sizeof dir, "unch");
  snprintf(tool, sizeof tool, "%s/cuobjdump", dir);
  snprintf(cmd, sizeof cmd, "#!/bin/sh\n[ \"$1\" = -xelf ] || exit 9\ncp %sbase.cubin mod.1.sm_90.cubin\ncp %sscale.cubin mod.2.sm_80.cubin\n",
           CUBINS, CUBINS);
  kgt_spit(tool, cmd);
  chmod(tool, 0755);
  setenv("KGATE_CUOBJDUMP", tool, 1);
  kg_code_table t = {0};
  ck_assert_msg(kg_code_table_add_module(&t, CUBINS "base.cubin") == 0, "%s", t.why);
  ck_assert_int_eq(t.units, 2);
  ck_assert_uint_eq(t.n, 6);
  int at90 = 0;
  for (size_t i = 0; i < t.n; i++) at90 += t.f[i].arch == 90;
  ck_assert_int_eq(at90, 3);
  kg_code_table_free(&t);
  setenv("KGATE_CUOBJDUMP", "/nonexistent/cuobjdump", 1);
  ck_assert_int_eq(kg_code_table_add_module(&t, CUBINS "base.cubin"), -1);
  ck_assert_msg(strstr(t.why, "needs cuobjdump") != NULL, "%s", t.why);
  kg_code_table_free(&t);
  unsetenv("KGATE_CUOBJDUMP");
  kgt_rmtree(dir);
}
END_TEST

Suite *make_unchanged_suite(void) {
  Suite *s = suite_create("unchanged");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_unchanged_same_code_other_lines);
  tcase_add_test(tc, test_unchanged_kernel_changed);
  tcase_add_test(tc, test_unchanged_callee_changed);
  tcase_add_test(tc, test_unchanged_unit_data_changed);
  tcase_add_test(tc, test_unchanged_missing_and_twice);
  tcase_add_test(tc, test_unchanged_other_folder);
  tcase_add_test(tc, test_unchanged_bad_images);
  tcase_add_test(tc, test_unchanged_module);
  suite_add_tcase(s, tc);
  return s;
}
