/* The proof that a paired cell is unchanged (unchanged.h), on cubins that
 * nvcc 13.0 built from tests/data/cubin/unit.cu and proof.cu (see its
 * README): the same code built again with other line numbers, and one
 * change each to a kernel's code, its device function, the unit's
 * __constant__ data, and a kernel added to the unit; units with __device__
 * data and a launch from the device. Then the launches' half (proof.h) on
 * captured calls described as data. */
#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proof.h"
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

/* Whether the kernel named name is proven the same in the two cubins, the
 * probe having read the variables read (NULL: none), with the evidence or
 * why not in buf. */
static int same_read(const char *head, const char *base, const char *name, const kg_code_read *read, char *buf,
                     size_t len) {
  kg_code_table h, b;
  table_of(head, &h);
  table_of(base, &b);
  uint64_t hash = kg_code_name_hash(name);
  int rc = kg_code_same(&h, &b, 90, &hash, 1, 2, read, buf, len);
  kg_code_table_free(&h);
  kg_code_table_free(&b);
  return rc;
}

static int same_named(const char *head, const char *base, const char *name, char *buf, size_t len) {
  return same_read(head, base, name, NULL, buf, len);
}

/* unit.cu holds __constant__ data, so no kernel of it is proven (see
 * test_unchanged_device_data): these tests read its digests, 1 when kernel
 * k's is the same in both cubins, and what kg_code_same says in buf. */
static int same(const char *head, const char *base, int k, char *buf, size_t len) {
  int proven = same_named(head, base, k_kernels[k], buf, len);
  ck_assert_int_eq(proven, 0);
  return !strstr(buf, "machine code differs");
}

START_TEST(test_unchanged_same_code_other_lines) {
  char why[200];
  for (int k = SUM; k <= TABLE; k++) {
    ck_assert_msg(same("lines.cubin", "base.cubin", k, why, sizeof why) == 1, "%s", why);
    ck_assert_msg(strstr(why, "in the head: its unit's __device__ or __constant__ data (table) was not read"), "%s", why);
  }
  /* a unit without data: proven, with the evidence */
  ck_assert_msg(same_named("plain.cubin", "plain.cubin", "_Z7k_childPi", why, sizeof why) == 1, "%s", why);
  ck_assert_msg(strstr(why, "same machine code (sm_90, SHA-256 ") && strstr(why, "1 kernel, 2 launches"), "%s", why);
}
END_TEST

/* __device__ and __constant__ data the host may set with
 * cudaMemcpyToSymbol outside the captured call: the digest holds only its
 * initial image, so every kernel of its unit is refused, the same cubin on
 * both sides included, unless the probe read each variable of the unit
 * (alike on both sides: the descriptions it compared hold their digests). */
START_TEST(test_unchanged_device_data) {
  static const struct {
    const char *cubin, *kernel, *var;
  } k_cases[] = {
      {"devdata.cubin", "_Z7k_childPi", "g_bias"},      /* __device__ int g_bias; */
      {"devinit.cubin", "_Z7k_childPi", "g_bias"},      /* __device__ int g_bias = 3; */
      {"devdata.cubin", "_Z8k_parentPi", "g_bias"},     /* a kernel that does not read it: its unit does */
      {"base.cubin", "_Z7k_scalePKiPii", "table"},      /* __constant__ int table[4] */
  };
  char why[200];
  for (size_t c = 0; c < sizeof k_cases / sizeof *k_cases; c++) {
    ck_assert_int_eq(same_named(k_cases[c].cubin, k_cases[c].cubin, k_cases[c].kernel, why, sizeof why), 0);
    char want[120];
    snprintf(want, sizeof want, "its unit's __device__ or __constant__ data (%s) was not read", k_cases[c].var);
    ck_assert_msg(strstr(why, "not proven: ") && strstr(why, want), "%s: %s", k_cases[c].cubin, why);
    kg_code_read other = {1, {kg_code_name_hash("another_variable")}};
    ck_assert_int_eq(same_read(k_cases[c].cubin, k_cases[c].cubin, k_cases[c].kernel, &other, why, sizeof why), 0);
    kg_code_read read = {2, {kg_code_name_hash("another_variable"), kg_code_name_hash(k_cases[c].var)}};
    ck_assert_msg(same_read(k_cases[c].cubin, k_cases[c].cubin, k_cases[c].kernel, &read, why, sizeof why) == 1,
                  "%s: %s", k_cases[c].cubin, why);
    ck_assert_msg(strstr(why, ", 1 variable read alike"), "%s", why);
  }
  /* a unit of two variables, one of internal linkage: both must be read */
  kg_code_read one = {1, {kg_code_name_hash("g_flag")}};
  ck_assert_int_eq(same_read("devpad.cubin", "devpad.cubin", "_Z7k_childPi", &one, why, sizeof why), 0);
  ck_assert_msg(strstr(why, "data (g_scale) was not read"), "%s", why);
  kg_code_read both = {2, {kg_code_name_hash("g_scale"), kg_code_name_hash("g_flag")}};
  ck_assert_msg(same_read("devpad.cubin", "devpad.cubin", "_Z7k_childPi", &both, why, sizeof why) == 1, "%s", why);
  ck_assert_msg(strstr(why, ", 2 variables read alike"), "%s", why);
  /* two kernels of that unit: its variables are counted once */
  kg_code_table pad;
  table_of("devpad.cubin", &pad);
  uint64_t two[2] = {kg_code_name_hash("_Z7k_childPi"), kg_code_name_hash("_Z8k_parentPi")};
  ck_assert_msg(kg_code_same(&pad, &pad, 90, two, 2, 2, &both, why, sizeof why) == 1, "%s", why);
  ck_assert_msg(strstr(why, "2 kernels, 2 launches, 2 variables read alike"), "%s", why);
  kg_code_table_free(&pad);
  /* read or not, the variable's initial image is in the digest: 0 and 3 differ */
  kg_code_read bias = {1, {kg_code_name_hash("g_bias")}};
  ck_assert_int_eq(same_read("devinit.cubin", "devdata.cubin", "_Z7k_childPi", &bias, why, sizeof why), 0);
  ck_assert_msg(strstr(why, "machine code differs"), "%s", why);
  ck_assert_msg(same_named("plain.cubin", "plain.cubin", "_Z8k_parentPi", why, sizeof why) == 1, "%s", why);
  /* the other kernel of a unit without data changed: this one is still proven */
  ck_assert_msg(same_named("plain5.cubin", "plain.cubin", "_Z8k_parentPi", why, sizeof why) == 1, "%s", why);
  ck_assert_int_eq(same_named("plain5.cubin", "plain.cubin", "_Z7k_childPi", why, sizeof why), 0);
}
END_TEST

/* Dynamic parallelism: k_parent launches k_child from the device, whose
 * code changed (BIAS_VALUE 3 to 5). The parent's own code is the same, but
 * its digest cannot stand for the child's: refused. */
START_TEST(test_unchanged_device_launch) {
  char why[200];
  ck_assert_int_eq(same_named("dynpar_child.cubin", "dynpar.cubin", "_Z8k_parentPi", why, sizeof why), 0);
  ck_assert_msg(strstr(why, "not proven: _Z8k_parentPi in the head: it launches kernels from the device "
                            "(__cudaCDP2LaunchDeviceV2)"),
                "%s", why);
  ck_assert_int_eq(same_named("dynpar.cubin", "dynpar.cubin", "_Z8k_parentPi", why, sizeof why), 0);
  ck_assert_int_eq(same_named("dynpar_child.cubin", "dynpar.cubin", "_Z7k_childPi", why, sizeof why), 0);
  ck_assert_msg(strstr(why, "machine code differs: _Z7k_childPi"), "%s", why);
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
  ck_assert_int_eq(kg_code_same(&h, &b, 90, &extra, 1, 1, NULL, why, sizeof why), 0);
  ck_assert_msg(strstr(why, "no sm_90 machine code in the base module") != NULL, "%s", why);
  uint64_t sum = kg_code_name_hash(k_kernels[SUM]);
  ck_assert_int_eq(kg_code_same(&b, &b, 80, &sum, 1, 1, NULL, why, sizeof why), 0);
  ck_assert_msg(strstr(why, "no sm_80 machine code in the head module") != NULL, "%s", why);
  ck_assert_int_eq(kg_code_same(&b, &b, 90, &sum, 0, 0, NULL, why, sizeof why), 0);
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
  ck_assert_int_eq(kg_code_same(&two, &b, 90, &sum, 1, 1, NULL, why, sizeof why), 0);
  ck_assert_msg(strstr(why, "in two units of the head with different code") != NULL, "%s", why);
  uint64_t scale = kg_code_name_hash(k_kernels[SCALE]); /* the same in both units: not refused as twice */
  ck_assert_int_eq(kg_code_same(&two, &b, 90, &scale, 1, 1, NULL, why, sizeof why), 0);
  ck_assert_msg(strstr(why, "two units") == NULL && strstr(why, "__constant__ data"), "%s", why);
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
  ck_assert_msg(kg_code_same(&h, &b, 90, &k, 1, 1, NULL, why, sizeof why) == 1, "%s", why);
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

/* A captured call as the worker describes it (device/launches.c): two
 * kernels, a memset of the output, a copy between harness buffers, the
 * edges. KERNEL_ATTRS: the launch attributes of ids 1..31 as the driver
 * reports them, with the carve-out (14) unset. */
#define ATTRS_1_13 "a1=0 a2=0 a3=- a4=0 a5=0 a6=- a7=- a8=0 a9=0 a10=0 a11=0 a12=- a13=0"
#define ATTRS_15_31                                                                                                 \
  " a15=- a16=0 a17=- a18=- a19=- a20=- a21=- a22=- a23=- a24=- a25=- a26=- a27=- a28=- a29=- a30=- a31=-"
#define KERNEL(name, a14)                                                                                          \
  "kernel " name " grid=120,1,1 block=256,1,1 dsmem=0 regs=16 smem=1024 lmem=0 const=0 maxthr=1024 ptx=90 bin=90 " \
  "ca=0 dynmax=48128 carve=-1 cluster=0,0,0,0,0 " ATTRS_1_13 " a14=" a14 ATTRS_15_31 " args=00a0,0100\n"
#define MEMSET "memset dst=0x7f0000200000 to=buf pitch=0 value=0 elem=4 width=4 height=1\n"
#define COPY(from, shape)                                                                                          \
  "memcpy src=0x7f0000000000,4096,4096,1 from=" from " pos=0,0,0 dst=0x7f0000200000,4096,4096,1 to=buf pos=0,0,0 " \
  "extent=4096,1,1 kind=3 shape=" shape "\n"
#define EDGES "edge 0 1 0000000000000000\nedge 1 2 0000000000000000\nedge 2 3 0000000000000000\n"
#define CALL(k14, from, shape, queries)                                                                            \
  "nodes 4\n" MEMSET KERNEL("_Z6reduceILi256EEvPKiPii", k14) COPY(from, shape) KERNEL("_Z4lastPii", "0") EDGES      \
  "queries " queries "\n"
#define PLAIN CALL("0", "buf", "1d", "0")
#define SHA_A "host:" "a665a45920422f9d417e4867efdc4fb8a04a1f3fff1fa07e998e86f7f7a27ae3"
#define SHA_B "host:" "b665a45920422f9d417e4867efdc4fb8a04a1f3fff1fa07e998e86f7f7a27ae3"

/* The launches' half: both sides captured twice, judged as data. */
static int launches(const char *h0, const char *h1, const char *b0, const char *b1, char *why, size_t len) {
  const char *h[2] = {h0, h1}, *b[2] = {b0, b1};
  return kg_proof_launches(h, b, why, len);
}

/* A call described alike in every fact below still proves the same: the
 * proof refuses what it does not compare, not what is plain. */
START_TEST(test_unchanged_desc_same) {
  char why[300];
  ck_assert_msg(kg_proof_check(PLAIN, why, sizeof why) == 1, "%s", why);
  ck_assert_msg(launches(PLAIN, PLAIN, PLAIN, PLAIN, why, sizeof why) == KG_PROOF_SAME, "%s", why);
  /* the same host bytes copied in, the same carve-out asked for, the same launch attributes passed */
  const char *d = CALL("3c000000", SHA_A, "1d", "0") "launch 14=3c000000 8=01000000\n";
  ck_assert_msg(launches(d, d, d, d, why, sizeof why) == KG_PROOF_SAME, "%s", why);
  /* another grid is another launch */
  ck_assert_int_eq(launches(PLAIN, PLAIN, "nodes 5\n", "nodes 5\n", why, sizeof why), KG_PROOF_DIFFER);
  ck_assert_msg(strstr(why, "launches differ at line 0: nodes 4"), "%s", why);
}
END_TEST

/* A per-launch attribute: the carve-out (14) set on the head's launch
 * only differs; an attribute id kgate does not know, set alike on both
 * sides, is refused (its effect is not known to be nothing). */
START_TEST(test_unchanged_desc_launch_attribute) {
  char why[300];
  const char *h = CALL("3c000000", "buf", "1d", "0");
  ck_assert_int_eq(launches(h, h, PLAIN, PLAIN, why, sizeof why), KG_PROOF_DIFFER);
  ck_assert_msg(strstr(why, "launches differ at line 2: kernel _Z6reduce"), "%s", why);
  const char *u = "nodes 1\nkernel k grid=1,1,1 a14=0 a15=01000000 args=\nqueries 0\n";
  ck_assert_int_eq(launches(u, u, u, u, why, sizeof why), KG_PROOF_UNPROVEN);
  ck_assert_msg(strstr(why, "not proven: the head: a launch attribute kgate does not know is set (a15=01000000)"), "%s",
                why);
  const char *l = PLAIN "launch 14=3c000000 40=01000000\n"; /* what the call passed to the runtime */
  ck_assert_int_eq(launches(l, l, l, l, why, sizeof why), KG_PROOF_UNPROVEN);
  ck_assert_msg(strstr(why, "a launch passed an attribute kgate does not know (40=01000000)"), "%s", why);
  ck_assert_ptr_nonnull(kg_proof_attr_name(14));
  ck_assert_ptr_null(kg_proof_attr_name(15));
}
END_TEST

/* A captured copy: host bytes are hashed at capture, so other contents
 * differ; a copy from or into device memory the harness did not give the
 * call (a module's own table the host filled), or a pitched, 3D or array
 * copy, is refused even when both sides describe it alike. */
START_TEST(test_unchanged_desc_copy) {
  char why[300];
  const char *a = CALL("0", SHA_A, "1d", "0"), *b = CALL("0", SHA_B, "1d", "0");
  ck_assert_int_eq(launches(a, a, b, b, why, sizeof why), KG_PROOF_DIFFER);
  ck_assert_msg(strstr(why, "launches differ at line 3: memcpy"), "%s", why);
  static const struct {
    const char *desc, *why;
  } k_cases[] = {
      {CALL("0", "device", "1d", "0"), "a copy or memset from memory the harness did not give the call (device)"},
      {CALL("0", "managed", "1d", "0"), "from memory the harness did not give the call (managed)"},
      {CALL("0", "host:12", "1d", "0"), "(host:12)"},
      {CALL("0", "buf", "3d", "0"), "a pitched, 3D or array copy"},
      {"nodes 1\nmemset dst=0x1 to=device\nqueries 0\n", "into memory the harness did not give the call (device)"},
      {"nodes 1\nmemcpy from=buf shape=1d\nqueries 0\n", "a copy or memset without to="},
  };
  for (size_t c = 0; c < sizeof k_cases / sizeof *k_cases; c++) {
    const char *d = k_cases[c].desc;
    ck_assert_int_eq(launches(d, d, d, d, why, sizeof why), KG_PROOF_UNPROVEN);
    ck_assert_msg(strstr(why, "not proven: the head: ") && strstr(why, k_cases[c].why), "%zu: %s", c, why);
  }
}
END_TEST

/* A host path taken at capture: a call that asked the runtime whether its
 * stream is capturing may do other work when it is not; a call whose second
 * capture differs from its first keeps state on the host. Both refused,
 * though head and base describe the same work. */
START_TEST(test_unchanged_desc_host_path) {
  char why[300];
  const char *q = CALL("0", "buf", "1d", "1");
  ck_assert_int_eq(launches(q, q, q, q, why, sizeof why), KG_PROOF_UNPROVEN);
  ck_assert_msg(strstr(why, "not proven: the head: the call asked whether its stream is capturing (1 times)"), "%s", why);
  const char *other = CALL("3c000000", "buf", "1d", "0");
  ck_assert_int_eq(launches(PLAIN, other, PLAIN, other, why, sizeof why), KG_PROOF_UNPROVEN);
  ck_assert_msg(strstr(why, "not proven: the head queued other work on a second call") && strstr(why, "line 2: kernel"),
                "%s", why);
  ck_assert_int_eq(launches(PLAIN, PLAIN, PLAIN, other, why, sizeof why), KG_PROOF_UNPROVEN);
  ck_assert_msg(strstr(why, "not proven: the base queued other work on a second call"), "%s", why);
  /* a node or fact the proof does not know (a host node's callback) */
  const char *h = "nodes 1\nhost fn=0x4011d0\nqueries 0\n";
  ck_assert_int_eq(launches(h, h, h, h, why, sizeof why), KG_PROOF_UNPROVEN);
  ck_assert_msg(strstr(why, "a description line kgate does not know (host fn=0x4011d0)"), "%s", why);
  ck_assert_int_eq(kg_proof_check("", why, sizeof why), 0);
}
END_TEST

Suite *make_unchanged_suite(void) {
  Suite *s = suite_create("unchanged");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_unchanged_same_code_other_lines);
  tcase_add_test(tc, test_unchanged_device_data);
  tcase_add_test(tc, test_unchanged_device_launch);
  tcase_add_test(tc, test_unchanged_kernel_changed);
  tcase_add_test(tc, test_unchanged_callee_changed);
  tcase_add_test(tc, test_unchanged_unit_data_changed);
  tcase_add_test(tc, test_unchanged_missing_and_twice);
  tcase_add_test(tc, test_unchanged_other_folder);
  tcase_add_test(tc, test_unchanged_bad_images);
  tcase_add_test(tc, test_unchanged_module);
  tcase_add_test(tc, test_unchanged_desc_same);
  tcase_add_test(tc, test_unchanged_desc_launch_attribute);
  tcase_add_test(tc, test_unchanged_desc_copy);
  tcase_add_test(tc, test_unchanged_desc_host_path);
  suite_add_tcase(s, tc);
  return s;
}
