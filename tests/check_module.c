/* Kernel modules: loading, the ABI check, registry validation, and the
 * description the supervisor reads (module.h). The modules are built from
 * tests/modules/test_module.c without CUDA. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modload.h"
#include "refpin.h"
#include "varreg.h"
#include "testutil.h"

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
  char *line = kg_module_describe(m, NULL, 2);
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

/* A module built before ops existed (records end before `op`) loads, its
 * variants read as sums, and describes like any other. */
START_TEST(test_module_open_old_record) {
  char path[1024], err[512] = "";
  kg_loaded_module m;
  ck_assert_msg(kg_module_open(mod_path("old", path, sizeof path), &m, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(m.m->variant_size, sizeof(kg_module_variant)); /* normalised */
  ck_assert_uint_eq(m.m->nvariants, 2);
  ck_assert_str_eq(m.m->variants[1].name, "legacy_wide");
  ck_assert_uint_eq(m.m->variants[1].flags, 1);
  ck_assert_uint_eq(m.m->variants[1].dtypes, 0x0f);
  ck_assert_uint_eq(m.m->variants[1].scratch(3, 4), 7);
  for (int i = 0; i < 2; i++) {
    ck_assert_uint_eq(m.m->variants[i].op, KG_OP_SUM);
    ck_assert_uint_eq(m.m->variants[i].nan, 0);
  }
  kg_modrole role = KG_MOD_BASE;
  char *line = kg_module_describe(&m, &role, 1);
  kg_modinfo mi;
  ck_assert_int_eq(kg_module_parse_describe(line, &mi, 1, err, sizeof err), 1);
  ck_assert_int_eq(mi.role, KG_MOD_BASE);
  ck_assert_uint_eq(mi.v[0].op, KG_OP_SUM);
  ck_assert_str_eq(mi.v[0].idea, "a module built before ops");
  kg_modinfo_free(&mi);
  free(line);
  kg_module_close(&m);
}
END_TEST

/* A team's module: the op, the NaN policy, seed and idea survive the
 * describe line the supervisor reads. */
START_TEST(test_module_minmax_describe) {
  char path[1024], err[512] = "";
  kg_loaded_module m;
  ck_assert_msg(kg_module_open(mod_path("minmax", path, sizeof path), &m, err, sizeof err) == 0, "%s", err);
  kg_modrole role = KG_MOD_KERNELS;
  char *line = kg_module_describe(&m, &role, 1);
  kg_modinfo mi;
  ck_assert_int_eq(kg_module_parse_describe(line, &mi, 1, err, sizeof err), 1);
  ck_assert_int_eq(mi.role, KG_MOD_KERNELS);
  ck_assert_uint_eq(mi.n, 3);
  static const unsigned ops[] = {KG_OP_SUM, KG_OP_MIN, KG_OP_MAX}, nans[] = {0, KG_NAN_PROPAGATE, KG_NAN_IGNORE};
  for (size_t i = 0; i < 3; i++) {
    ck_assert_uint_eq(mi.v[i].op, ops[i]);
    ck_assert_uint_eq(mi.v[i].nan, nans[i]);
    ck_assert_str_eq(mi.v[i].seed, "team");
  }
  ck_assert_str_eq(mi.v[2].name, "team_max");
  ck_assert_str_eq(mi.v[2].idea, "a team's max, NaNs ignored");
  kg_modinfo_free(&mi);
  free(line);
  kg_module_close(&m);
}
END_TEST

/* The set a worker loads: --kernels modules join the registry; a name
 * defined twice (two modules, a module and kgate's own, two base modules)
 * is one line naming both paths. */
START_TEST(test_module_set_union) {
  char a[1024], err[512] = "";
  const char *k[] = {mod_path("minmax", a, sizeof a)};
  kg_module_set set;
  size_t own = kg_nvariants;
  ck_assert_msg(kg_module_set_load(&set, NULL, k, 1, NULL, 0, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(set.nmods, 1);
  ck_assert_uint_eq(kg_nvariants, own + 3);
  int v = kg_variant_find("team_max");
  ck_assert_int_eq(v, (int)own + 2);
  ck_assert_str_eq(kg_registry_module_path(kg_variants[v].module), a);
  ck_assert_uint_eq(kg_variants[v].op, KG_OP_MAX);
  ck_assert_uint_eq(kg_variants[v].nan, KG_NAN_IGNORE);
  kg_module_set_close(&set);
  kg_registry_reset();
}
END_TEST

static const struct {
  const char *kernels[2], *base[2], *want;
} k_set_clash[] = {
    {{"minmax", "minmax2"}, {NULL, NULL}, "variant team_sum is defined twice: in %s and in %s"},
    {{"cub", NULL}, {NULL, NULL}, "variant cub_sum is defined twice: in kgate's own variants and in %s"},
    {{NULL, NULL}, {"minmax", "minmax2"}, "variant team_sum is defined twice: in base modules %s and %s"},
};

START_TEST(test_module_set_clash) {
  char p[4][1024], err[1024] = "", want[4096];
  const char *k[2], *b[2];
  int nk = 0, nb = 0;
  for (int i = 0; i < 2; i++) {
    if (k_set_clash[_i].kernels[i]) k[nk] = mod_path(k_set_clash[_i].kernels[i], p[i], sizeof p[i]), nk++;
    if (k_set_clash[_i].base[i]) b[nb] = mod_path(k_set_clash[_i].base[i], p[2 + i], sizeof p[2 + i]), nb++;
  }
  const char *first = nk ? k[0] : b[0], *second = nk > 1 ? k[1] : nb > 1 ? b[1] : NULL;
  if (second) snprintf(want, sizeof want, k_set_clash[_i].want, first, second);
  else snprintf(want, sizeof want, k_set_clash[_i].want, first);
  kg_module_set set;
  ck_assert_int_eq(kg_module_set_load(&set, NULL, k, nk, b, nb, err, sizeof err), -1);
  ck_assert_msg(strstr(err, want) != NULL, "'%s' lacks '%s'", err, want);
  kg_module_set_close(&set);
  kg_registry_reset();
}
END_TEST

/* Each broken module is one line naming the file, never a crash. */
static const struct {
  const char *kind, *want;
} k_bad[] = {
    {"abi", "built for kernel ABI 99, this kgate speaks ABI 1"},
    {"nosym", "not a kgate kernel module"},
    {"dup", "variant first: listed twice"},
    {"short", "variant record of 48 bytes, this kgate reads 56 to 64"},
    {"long", "variant record of 72 bytes, this kgate reads 56 to 64"},
    {"badutf8", ": variant first: seed 'caf?': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"esc", ": variant first: idea '?[2J?[31mall clear': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"longseed", ": variant first: seed 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...': too long (seed and "
                 "version: at most 63 bytes, idea: 159)"},
    {"badversion", ": version 'v1?::error::forged': not UTF-8, or holds control characters (C0, ESC, DEL, C1)"},
    {"tcflags", ": toolchain: flags '0123456789ABCDEF': not a digest (8 to 64 lowercase hex digits)"},
    {"tcshort", ": toolchain record of 8 bytes, this kgate reads 32 or more"},
    {"tcnvcc", ": toolchain: nvcc 1000.0.0 is not a version of nvcc"},
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

/* A module's lint waivers are checked when it is loaded too: check and run
 * refuse a bad table before any case (exit 2), as `kgate lint` does. */
START_TEST(test_module_open_waivers) {
  char err[1024] = "";
  kg_loaded_module m;
  ck_assert_msg(kg_module_open(TEST_MODULES "/libkg_lintmod_waive.so", &m, err, sizeof err) == 0, "%s", err);
  kg_module_close(&m);
  ck_assert_int_eq(kg_module_open(TEST_MODULES "/libkg_lintmod_badwaive.so", &m, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "kernel module ") == err && strstr(err, "libkg_lintmod_badwaive.so: "
                "kgate_module_lint_waivers: waiver 1 (bug_no_fence): reason is missing") && !strchr(err, '\n'),
                "%s", err);
  ck_assert_ptr_null(m.handle);
}
END_TEST

/* Text kgate must take (spaces, quotes, commas, UTF-8, "::error::" in the
 * middle of a line) loads and survives the describe line unchanged. */
START_TEST(test_module_text_edge_cases) {
  char path[1024], err[512] = "";
  kg_loaded_module m;
  ck_assert_msg(kg_module_open(mod_path("text", path, sizeof path), &m, err, sizeof err) == 0, "%s", err);
  char *line = kg_module_describe(&m, NULL, 1);
  ck_assert_ptr_nonnull(line);
  kg_modinfo mi;
  ck_assert_int_eq(kg_module_parse_describe(line, &mi, 1, err, sizeof err), 1);
  ck_assert_str_eq(mi.v[0].seed, "Harris 2007, \"\xc3\x9cnal\"");
  ck_assert_str_eq(mi.v[0].idea, "::error::a sum, with \"quotes\", commas and \xc3\x9cnal's name");
  kg_modinfo_free(&mi);
  free(line);
  kg_module_close(&m);
}
END_TEST

/* A describe line is read by the same rule: a seed, idea or version that
 * breaks it makes the whole line malformed, never a dropped variant. */
START_TEST(test_module_parse_describe_bad_text) {
  static const char *const k_lines[] = {
      "{\"modules\":[{\"path\":\"p\",\"name\":\"n\",\"variants\":[[\"ok\",0,1,0,0,\"\\u001b[2J\",\"i\"]]}]}",
      "{\"modules\":[{\"path\":\"p\",\"name\":\"n\",\"variants\":[[\"ok\",0,1,0,0,\"s\",\"a\\nb\"]]}]}",
      "{\"modules\":[{\"path\":\"p\",\"name\":\"n\",\"version\":\"\\u0085\",\"variants\":[]}]}",
  };
  char err[256];
  kg_modinfo mi[1];
  for (size_t i = 0; i < sizeof k_lines / sizeof k_lines[0]; i++) {
    err[0] = '\0';
    ck_assert_int_eq(kg_module_parse_describe(k_lines[i], mi, 1, err, sizeof err), -1);
    ck_assert_str_eq(err, "the worker's module description is malformed");
  }
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

/* A module that names its toolchain: its nvcc, CCCL and flags as text; one
 * without kgate_module_toolchain loads as before, its toolchain unknown. */
START_TEST(test_module_toolchain_named) {
  char path[1024], err[512] = "";
  kg_loaded_module m;
  ck_assert_msg(kg_module_open(mod_path("tc", path, sizeof path), &m, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(m.tc.nvcc, "13.0.88");
  ck_assert_str_eq(m.tc.cccl, "3.0.1");
  ck_assert_str_eq(m.tc.flags, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  kg_module_close(&m);
  ck_assert_msg(kg_module_open(mod_path("good", path, sizeof path), &m, err, sizeof err) == 0, "%s", err);
  ck_assert(!m.tc.nvcc[0] && !m.tc.cccl[0] && !m.tc.flags[0]);
  kg_module_close(&m);
}
END_TEST

/* kg_module_toolchain_read on records: one defect each, refused in one line. */
static const struct {
  kg_module_toolchain t;
  const char *want; /* NULL: read */
} k_tc[] = {
    {{sizeof(kg_module_toolchain), 12, 9, 41, 2008000, "deadbeef"}, NULL},
    {{sizeof(kg_module_toolchain), 0, 0, 0, 0, NULL}, NULL},          /* a host compiler: all unknown */
    {{sizeof(kg_module_toolchain) + 16, 13, 1, 0, 0, ""}, NULL},      /* a later, longer record */
    {{sizeof(kg_module_toolchain) - 1, 13, 1, 0, 0, ""}, "toolchain record of"},
    {{sizeof(kg_module_toolchain), 13, 1000, 0, 0, ""}, "not a version of nvcc"},
    {{sizeof(kg_module_toolchain), 0, 1, 0, 0, ""}, "not a version of nvcc"},
    {{sizeof(kg_module_toolchain), 13, 0, 1000000, 0, ""}, "not a version of nvcc"},
    {{sizeof(kg_module_toolchain), 13, 0, 88, 1000000000u, ""}, "not a CCCL_VERSION"},
    {{sizeof(kg_module_toolchain), 13, 0, 88, 0, "abc"}, "not a digest"},
    {{sizeof(kg_module_toolchain), 13, 0, 88, 0, "deadbeef\x1b[2J"}, "not a digest"},
    {{sizeof(kg_module_toolchain), 13, 0, 88, 0,
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0"}, "longer than 64 bytes"},
};

START_TEST(test_module_toolchain_defects) {
  kg_toolchain out;
  memset(&out, 'x', sizeof out);
  char err[256] = "";
  int rc = kg_module_toolchain_read(&k_tc[_i].t, &out, err, sizeof err);
  if (!k_tc[_i].want) {
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_str_eq(out.nvcc, _i == 0 ? "12.9.41" : _i == 2 ? "13.1.0" : "");
    ck_assert_str_eq(out.cccl, _i == 0 ? "2.8.0" : "");
    ck_assert_str_eq(out.flags, _i == 0 ? "deadbeef" : "");
    return;
  }
  ck_assert_int_eq(rc, -1);
  ck_assert_msg(strstr(err, k_tc[_i].want) != NULL, "'%s' lacks '%s'", err, k_tc[_i].want);
  ck_assert_ptr_null(strchr(err, '\x1b'));
  ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

/* The toolchain a worker says: its --kernels modules' (kgate's own when
 * none), values that differ joined, digests that differ hashed together. */
START_TEST(test_module_set_toolchain) {
  static kg_module_set s; /* large: not on the stack */
  memset(&s, 0, sizeof s);
  const kg_toolchain own = {"13.0.88", "3.0.1", "11111111", "", ""}, a = {"13.0.88", "3.0.1", "22222222", "", ""},
                     b = {"12.9.41", "", "33333333", "", ""};
  s.nmods = 1, s.mod[0].tc = own, s.role[0] = KG_MOD_OWN;
  kg_toolchain t = {.driver = "580.65.06"};
  kg_module_set_toolchain(&s, &t);
  ck_assert_str_eq(t.nvcc, "13.0.88");
  ck_assert_str_eq(t.flags, "11111111");
  ck_assert_str_eq(t.driver, "580.65.06"); /* the machine's part is not the modules' */
  s.nmods = 3, s.mod[1].tc = a, s.role[1] = KG_MOD_KERNELS, s.mod[2].tc = own, s.role[2] = KG_MOD_BASE;
  kg_module_set_toolchain(&s, &t);
  ck_assert_str_eq(t.flags, "22222222"); /* the module under test, not kgate's own nor the base */
  s.nmods = 4, s.mod[3].tc = b, s.role[3] = KG_MOD_KERNELS;
  kg_module_set_toolchain(&s, &t);
  ck_assert_str_eq(t.nvcc, "13.0.88+12.9.41");
  ck_assert_str_eq(t.cccl, "3.0.1");
  ck_assert_uint_eq(strlen(t.flags), 64);
  ck_assert_ptr_null(kg_why_bad_toolchain_flags(t.flags));
  char both[65];
  snprintf(both, sizeof both, "%s", t.flags);
  s.mod[3].tc.flags[0] = '4'; /* either module's flags move the digest */
  kg_module_set_toolchain(&s, &t);
  ck_assert_str_ne(t.flags, both);
  s.mod[3].tc = a; /* the same flags: that digest, unchanged */
  kg_module_set_toolchain(&s, &t);
  ck_assert_str_eq(t.flags, "22222222");
  ck_assert_str_eq(t.nvcc, "13.0.88");
}
END_TEST

/* kg_module_validate on tables: one defect each. */
enum {
  BAD_ABI, BAD_SIZE, BAD_NAME, BAD_CHARS, BAD_LONG, BAD_FLAGS, BAD_DTYPES, NO_DTYPES, NO_RUN, NONE, BAD_OP, BAD_NAN,
  NAN_ON_SUM, BIG_SIZE, NBAD
};

START_TEST(test_module_validate_defects) {
  kg_module_variant v[2] = {{"alpha", "s", "i", 0, 0x3f, run_stub, scratch_stub, depth_stub, KG_OP_SUM, 0},
                            {"beta", "s", "i", 0, 0x3f, run_stub, scratch_stub, depth_stub, KG_OP_SUM, 0}};
  kg_module m = {KG_MODULE_ABI, sizeof(kg_module_variant), "mod", "1", 2, v};
  char err[256] = "", longname[80];
  memset(longname, 'a', 64);
  longname[64] = '\0';
  ck_assert_int_eq(kg_module_validate(&m, err, sizeof err), 0);
  v[0].op = KG_OP_MAX, v[0].nan = KG_NAN_IGNORE; /* a max may ignore NaNs */
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
  case BAD_OP: v[1].op = 3; break;
  case BAD_NAN: v[1].op = KG_OP_MIN, v[1].nan = 2; break;
  case NAN_ON_SUM: v[1].nan = KG_NAN_IGNORE; break;
  case BIG_SIZE: m.variant_size = sizeof(kg_module_variant) + 8; break;
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
      "{\"modules\":[{\"path\":\"p\",\"name\":\"n\",\"variants\":[[\"ok\",0,1,3,0,\"s\",\"i\"]]}]}",
      "{\"modules\":[{\"path\":\"p\",\"name\":\"n\",\"variants\":[[\"ok\",0,1,1,2,\"s\",\"i\"]]}]}",
      "{\"modules\":[{\"path\":\"p\",\"name\":\"n\",\"variants\":[[\"ok\",0,1,1]]}]}",
      "{\"modules\":[{\"path\":\"p\",\"name\":\"n\",\"role\":\"boss\",\"variants\":[]}]}",
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

/* Writes the bytes of file from over to, in place (the same inode: what a
 * writer racing kgate would do). */
static void overwrite(const char *to, const char *from) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "r+b");
  ck_assert_ptr_nonnull(in);
  ck_assert_ptr_nonnull(out);
  ck_assert_int_eq(ftruncate(fileno(out), 0), 0);
  char buf[1 << 14];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, in)) > 0) ck_assert_uint_eq(fwrite(buf, 1, got, out), got);
  fclose(in);
  ck_assert_int_eq(fclose(out), 0);
}

/* The module that was hashed is the module that loads: the good module's
 * bytes are read into a sealed image and hashed; then another module is
 * written over the path; loading the image's path gets the good module, the
 * image's own bytes still hash as before, and nothing can write the image. */
START_TEST(test_module_image_swap) {
  char dir[64], path[128], good[1024], other[1024], err[512] = "", sha_good[65], sha_now[65];
  kgt_mkscratch(dir, sizeof dir, "modimage");
  snprintf(path, sizeof path, "%s/reference.so", dir);
  mod_path("good", good, sizeof good);
  mod_path("minmax", other, sizeof other);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  overwrite(path, good);
  ck_assert_int_eq(kg_sha256_file(good, sha_good, err, sizeof err), 0);

  kg_module_image im;
  ck_assert_msg(kg_module_image_open(path, &im, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(im.sha256, sha_good);
  overwrite(path, other); /* after the hash, before the load */
  ck_assert_int_eq(kg_sha256_file(path, sha_now, err, sizeof err), 0);
  ck_assert_str_ne(sha_now, sha_good);

  kg_loaded_module m;
  ck_assert_msg(kg_module_open(im.load_path, &m, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(m.m->name, "testmod"); /* the hashed module, not the one now at the path */
  kg_module_close(&m);
  ck_assert_int_eq(kg_sha256_file(im.load_path, sha_now, err, sizeof err), 0);
  ck_assert_str_eq(sha_now, sha_good);

  /* sealed: no write, no truncation, no writable shared mapping, by anyone */
  ck_assert_int_eq(write(im.fd, "x", 1), -1);
  ck_assert_int_eq(errno, EPERM);
  ck_assert_int_eq(ftruncate(im.fd, 0), -1);
  int again = open(im.load_path, O_RDWR);
  if (again >= 0) { /* a reopen shares the seals */
    ck_assert_int_eq(pwrite(again, "x", 1, 0), -1);
    close(again);
  }
  ck_assert_int_eq(fcntl(im.fd, F_GETFD) & FD_CLOEXEC, 0); /* the workers inherit it */
  kg_module_image_close(&im);
  ck_assert_int_eq(im.fd, -1);
  kgt_rmtree(dir);
}
END_TEST

/* A worker's message names each image by the path it was read from;
 * /proc/self/fd/1 is not taken for the start of /proc/self/fd/12. */
START_TEST(test_module_image_names) {
  kg_module_image im[2] = {{.fd = 1, .load_path = "/proc/self/fd/1"}, {.fd = 12, .load_path = "/proc/self/fd/12"}};
  const char *given[2] = {"ref/a.so", "ref/b.so"};
  char out[128];
  kg_module_image_names(im, given, 2, "in base modules /proc/self/fd/12 and /proc/self/fd/1 (x)", out, sizeof out);
  ck_assert_str_eq(out, "in base modules ref/b.so and ref/a.so (x)");
  kg_module_image_names(im, given, 2, "/proc/self/fd/13: /proc/self/fd/1", out, sizeof out);
  ck_assert_str_eq(out, "/proc/self/fd/13: ref/a.so");
  kg_module_image_names(im, given, 2, "at /proc/self/fd/1", out, 8); /* cut, never past the end */
  ck_assert_str_eq(out, "at ref/");
}
END_TEST

/* What cannot be read into an image is one line naming the path. */
START_TEST(test_module_image_refuses) {
  char dir[64], missing[128], err[512] = "";
  kgt_mkscratch(dir, sizeof dir, "modimage");
  snprintf(missing, sizeof missing, "%s/none.so", dir);
  const char *paths[] = {missing, dir};
  for (int i = 0; i < 2; i++) {
    kg_module_image im;
    ck_assert_int_eq(kg_module_image_open(paths[i], &im, err, sizeof err), -1);
    ck_assert_int_eq(im.fd, -1);
    ck_assert_msg(strstr(err, paths[i]) && !strchr(err, '\n'), "%s", err);
  }
  kgt_rmtree(dir);
}
END_TEST

Suite *make_module_suite(void) {
  Suite *s = suite_create("module");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_module_open_good);
  tcase_add_test(core, test_module_describe_round_trip);
  tcase_add_test(core, test_module_open_old_record);
  tcase_add_test(core, test_module_minmax_describe);
  tcase_add_test(core, test_module_set_union);
  tcase_add_test(core, test_module_text_edge_cases);
  tcase_add_test(core, test_module_image_swap);
  tcase_add_test(core, test_module_image_names);
  tcase_add_test(core, test_module_toolchain_named);
  tcase_add_test(core, test_module_set_toolchain);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_module_open_refuses, 0, (int)(sizeof k_bad / sizeof k_bad[0]));
  tcase_add_test(errors, test_module_open_not_a_module);
  tcase_add_test(errors, test_module_open_waivers);
  tcase_add_loop_test(errors, test_module_validate_defects, 0, NBAD);
  tcase_add_test(errors, test_module_parse_describe_malformed);
  tcase_add_test(errors, test_module_parse_describe_bad_text);
  tcase_add_test(errors, test_module_image_refuses);
  tcase_add_loop_test(errors, test_module_toolchain_defects, 0, (int)(sizeof k_tc / sizeof k_tc[0]));
  tcase_add_loop_test(errors, test_module_set_clash, 0, (int)(sizeof k_set_clash / sizeof k_set_clash[0]));
  suite_add_tcase(s, errors);
  return s;
}
