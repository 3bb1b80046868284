/* lint: the fence rule of a last-block ticket on listings captured with CUDA
 * 13's cuobjdump and nvdisasm (tests/data/sass/README.md): fences.cu's
 * correct and buggy kernels at sm_75/80/90 and ptxas -O0..-O3, the fence
 * mutants, CUB's reduction, kgate_single_pass's waiver; then small listings
 * written here for the cases one instruction decides (predicated fences,
 * predicates redefined, non-tickets), and the errors. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcode.h"
#include "jobs.h"
#include "settings.h"
#include "lint.h"
#include "lintcmd.h"
#include "report.h"
#include "sass.h"
#include "waiver.h"

#define DATA KG_SOURCE_DIR "/tests/data/sass/"

enum { R = 1 << KG_LINT_RELEASE, A = 1 << KG_LINT_ACQUIRE };

/* What each kernel of fences.cu and each mutant must show: its sides. */
static const struct {
  const char *name;
  unsigned sides;
} k_expect[] = {
    {"ok_fence", 0},           {"ok_acq_rel", 0},         {"ok_seq_cst", 0},          {"ok_release_fence", 0},
    {"ok_system", 0},          {"ok_strong_reads", 0},    {"ok_both_branches", 0},    {"ok_fence_in_call", 0},
    {"ok_grid_sync", 0},       {"ok_atomic_add", 0},      {"ok_slot_alloc", 0},       {"bug_no_fence", R | A},
    {"bug_block_fence", R | A}, {"bug_one_branch", R},    {"bug_fence_after", R},     {"bug_relaxed", R | A},
    {"bug_acquire_ticket", R}, {"bug_no_acquire", A},     {"bug_store_in_call", R},   {"bug_proxy_fence", R},
    {"mut_fence_none_kernel", R | A}, {"mut_fence_block_kernel", R | A}, {"mut_fence_one_branch_kernel", R},
    {"mut_fence_after_kernel", R},    {"mut_fence_relaxed_kernel", R | A}, {"mut_fence_no_acquire_kernel", A},
};
enum { k_nexpect = sizeof k_expect / sizeof k_expect[0] };

/* The row of a mangled kernel name (_Z12bug_no_fencePKiPiS1_), -1 if none. */
static int expect_of(const char *mangled) {
  for (int k = 0; k < k_nexpect; k++) {
    char want[80];
    snprintf(want, sizeof want, "_Z%zu%s", strlen(k_expect[k].name), k_expect[k].name);
    if (!strncmp(mangled, want, strlen(want))) return k;
  }
  return -1;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *t = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(t);
  ck_assert_uint_eq(fread(t, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  t[n] = '\0';
  *len = (size_t)n;
  return t;
}

/* kgate's own waivers (variants.def's lint column), as its modules export them. */
#define KG_LINT_CHECKED
#define KG_LINT_WAIVE(kernel, reason) {kernel, reason},
static const kg_lint_waiver k_own[] = {
#define KG_VARIANT(name, seed, idea, flags, dtypes, lint) lint
#include "variants.def"
#undef KG_VARIANT
};
#undef KG_LINT_CHECKED
#undef KG_LINT_WAIVE
enum { k_nown = sizeof k_own / sizeof k_own[0] };

static void lint_text(const char *text, size_t len, kg_sass_listing *l, kg_lint_report *r) {
  char err[256];
  ck_assert_msg(kg_sass_parse(text, len, l, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(kg_lint_listing(l, k_own, k_nown, r), 0);
}

static void lint_path(const char *path, kg_sass_listing *l, kg_lint_report *r) {
  size_t len;
  char *t = slurp(path, &len);
  lint_text(t, len, l, r);
  free(t);
}

/* A listing of tests/data/sass, linted. */
static void lint_data(const char *file, kg_sass_listing *l, kg_lint_report *r) {
  char path[4096];
  snprintf(path, sizeof path, DATA "%s", file);
  lint_path(path, l, r);
}

/* The sides of the findings in kernel k, waived ones left out. */
static unsigned sides_of(const kg_lint_report *r, int k) {
  unsigned s = 0;
  for (size_t i = 0; i < r->nfindings; i++)
    if (r->findings[i].func == k && !r->findings[i].waived) s |= 1u << r->findings[i].side;
  return s;
}

static const char *const k_listings[] = {
    "fences_sm75_O0.nvdisasm", "fences_sm75_O3.nvdisasm", "fences_sm80_O0.nvdisasm", "fences_sm80_O3.nvdisasm",
    "fences_sm90_O0.nvdisasm", "fences_sm90_O1.nvdisasm", "fences_sm90_O2.nvdisasm", "fences_sm90_O3.nvdisasm",
    "fences_sm90_O3.cuobjdump", "fences_sm75_O0.cuobjdump",
#define MUT(m) "mut_fence_" m "_sm75_O0.nvdisasm", "mut_fence_" m "_sm75_O3.nvdisasm", "mut_fence_" m "_sm80_O0.nvdisasm", \
               "mut_fence_" m "_sm80_O3.nvdisasm", "mut_fence_" m "_sm90_O0.nvdisasm", "mut_fence_" m "_sm90_O3.nvdisasm"
    MUT("none"), MUT("block"), MUT("one_branch"), MUT("after"), MUT("relaxed"), MUT("no_acquire"),
#undef MUT
};

/* Every kernel of every captured listing shows exactly its expected sides:
 * each bug caught, each correct kernel clean. */
START_TEST(test_lint_captured) {
  kg_sass_listing l;
  kg_lint_report r;
  lint_data(k_listings[_i], &l, &r);
  int seen = 0;
  for (int k = 0; k < l.nfuncs; k++) {
    if (l.funcs[k].called) continue;
    int e = expect_of(l.funcs[k].name);
    ck_assert_msg(e >= 0, "%s: unexpected kernel %s", k_listings[_i], l.funcs[k].name);
    ck_assert_msg(sides_of(&r, k) == k_expect[e].sides, "%s: %s: sides %u, want %u", k_listings[_i],
                  k_expect[e].name, sides_of(&r, k), k_expect[e].sides);
    seen++;
  }
  ck_assert_int_eq(seen, r.nkernels);
  ck_assert_int_ge(seen, 1);
  ck_assert_int_eq(l.funcs[0].arch, atoi(strstr(k_listings[_i], "_sm") + 3));
  kg_lint_report_free(&r);
  kg_sass_free(&l);
}
END_TEST

/* The corpus (tests/data/sass/README.md, "The corpus"): real code listed by
 * CUDA 13.0 on an H100. Each kernel shows exactly the sides its row of
 * corpus-expect.tsv says, the one truth the capture script checks too; a
 * row KERNEL@TOOL holds for that tool's listings; every CUB kernel is clean. */
static const char *const k_corpus[] = {
#define LV(s, a) s "_sm" a "_O0.nvdisasm", s "_sm" a "_O3.nvdisasm"
#define SRC(s) LV(s, "75"), LV(s, "80"), LV(s, "90")
    SRC("atomics_idioms"), SRC("bug_shapes"), SRC("semaphore"), SRC("split"),
#undef SRC
#undef LV
    "cub_algos_sm90_O3.nvdisasm", "split_sm90_O3.cuobjdump",
};

/* The sides a row of corpus-expect.tsv names: "none", "release,acquire". */
static unsigned sides_named(const char *t) {
  unsigned s = 0;
  if (strstr(t, "release")) s |= R;
  if (strstr(t, "acquire")) s |= A;
  if (strstr(t, "scope")) s |= 1u << KG_LINT_SCOPE;
  return s;
}

/* The expected sides of kernel name in a listing of these sources and tool;
 * -1 when no row names it. */
static int corpus_expect(const char *tsv, const char *stem, const char *tool, const char *name) {
  int got = -1, cub = !strcmp(stem, "cub_algos");
  const char *line = tsv;
  while (*line) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    char row[512], *f[4] = {0};
    snprintf(row, sizeof row, "%.*s", (int)n, line);
    line += n + (end != NULL);
    if (row[0] == '#') continue;
    char *save = NULL;
    for (int k = 0; k < 4; k++) f[k] = strtok_r(k ? NULL : row, "\t", &save);
    if (!f[2] || strncmp(f[0], stem, strlen(stem)) || f[0][strlen(stem)] == '\0') continue;
    char *at = strchr(f[1], '@');
    if (at) *at++ = '\0';
    if (strcmp(f[1], name) || (at && strcmp(at, tool))) continue;
    if (at || got < 0) got = (int)sides_named(f[2]);
  }
  return got < 0 && cub ? 0 : got; /* every CUB kernel: clean */
}

START_TEST(test_lint_corpus) {
  const char *file = k_corpus[_i];
  char stem[64], name[KG_WAIVER_NAME_MAX + 1];
  size_t len;
  char *tsv = slurp(DATA "corpus-expect.tsv", &len);
  snprintf(stem, sizeof stem, "%.*s", (int)(strstr(file, "_sm") - file), file);
  const char *tool = strrchr(file, '.') + 1;
  kg_sass_listing l;
  kg_lint_report r;
  lint_data(file, &l, &r);
  int seen = 0;
  for (int k = 0; k < l.nfuncs; k++) {
    if (l.funcs[k].called) continue;
    if (kg_lint_kernel_name(l.funcs[k].name, name, sizeof name)) /* a name it cannot read: only CUB's has none */
      snprintf(name, sizeof name, "%s", strcmp(stem, "cub_algos") ? "?" : "(cub)");
    int want = corpus_expect(tsv, stem, tool, name);
    ck_assert_msg(want >= 0, "%s: no row for kernel %s", file, name);
    ck_assert_msg(sides_of(&r, k) == (unsigned)want, "%s: %s: sides %u, want %d", file, name, sides_of(&r, k), want);
    seen++;
  }
  ck_assert_int_eq(seen, r.nkernels);
  ck_assert_int_ge(seen, 2);
  kg_lint_report_free(&r);
  kg_sass_free(&l);
  free(tsv);
}
END_TEST

/* CUB's two-kernel reduction has no ticket: nothing to find. */
START_TEST(test_lint_cub_clean) {
  kg_sass_listing l;
  kg_lint_report r;
  lint_path(DATA "cub_reduce_sm90_O3.nvdisasm", &l, &r);
  ck_assert_int_ge(r.nkernels, 6);
  ck_assert_int_eq(r.ntickets, 0);
  ck_assert_uint_eq(r.nfindings, 0);
  kg_lint_report_free(&r);
  kg_sass_free(&l);
}
END_TEST

/* kgate_single_pass: six tickets (one per dtype) and the f64 kernel's fifteen
 * waits on a slot's tag (strong loads polled until the tag shows), its
 * findings waived with the registry line's reason, and the report says so. */
START_TEST(test_lint_waiver_shown) {
  kg_sass_listing l;
  kg_lint_report r;
  lint_path(DATA "single_pass_sm90_O3.nvdisasm", &l, &r);
  ck_assert_int_eq(r.ntickets, 21);
  ck_assert_uint_gt(r.nwaived, 0);
  ck_assert_uint_eq(kg_lint_unwaived(&r), 0);
  ck_assert_uint_eq(r.nused, 1);
  ck_assert_str_eq(r.used[0]->kernel, "single_pass");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  kg_lint_print(f, "x", &l, &r);
  fclose(f);
  ck_assert_msg(strstr(buf, "single_pass: waived: f64 partials") == buf, "%s", buf);
  ck_assert_msg(strstr(buf, "0 findings, 2 waived") != NULL, "%s", buf);
  free(buf);
  kg_lint_report_free(&r);
  kg_sass_free(&l);
}
END_TEST

/* A finding names the kernel, the store, the ticket, their source lines
 * (nvdisasm -g) and the path. */
START_TEST(test_lint_report_names_places) {
  kg_sass_listing l;
  kg_lint_report r;
  lint_path(DATA "mut_fence_none_sm90_O3.nvdisasm", &l, &r);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  kg_lint_print(f, "mut_fence_none_sm90_O3.nvdisasm", &l, &r);
  fclose(f);
  ck_assert_msg(strstr(buf, "_Z21mut_fence_none_kernelPKimPiS1_ (sm_90): release:") != NULL, "%s", buf);
  ck_assert_msg(strstr(buf, "    store   0x") != NULL && strstr(buf, "STG.E") != NULL, "%s", buf);
  ck_assert_msg(strstr(buf, "    ticket  0x") != NULL && strstr(buf, "ATOMG.E.INC.STRONG.GPU") != NULL, "%s", buf);
  ck_assert_msg(strstr(buf, "(mut_fence.cuh:") != NULL, "%s", buf);
  ck_assert_msg(strstr(buf, "    path    0x") != NULL, "%s", buf);
  free(buf);
  kg_lint_report_free(&r);
  kg_sass_free(&l);
}
END_TEST

/* ---- small listings: one instruction decides ---- */

/* A cuobjdump-shaped listing of one kernel "k" from instruction lines, at
 * addresses 0x00, 0x10, ... */
static char *listing_of(const char *const *insns) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  fprintf(f, "\tcode for sm_90\n\t\tFunction : k\n");
  for (int i = 0; insns[i]; i++)
    fprintf(f, "        /*%04x*/  %s ;  /* 0x000fe40000000800 */\n                  /* 0x0000000000007919 */\n", 16 * i,
            insns[i]);
  fclose(f);
  return buf;
}

#define TID_P0 "S2R R0, SR_TID.X", "ISETP.NE.AND P0, PT, R0, RZ, PT"
#define TICKET(g) g "ATOMG.E.INC.STRONG.GPU PT, R7, desc[UR4][R8.64], R9", g "ISETP.NE.AND P1, PT, R7, R10, PT"
static const char *const k_pred_same[] = {TID_P0, "@!P0 STG.E desc[UR4][R2.64], R5", "@!P0 MEMBAR.SC.GPU",
                                          TICKET("@!P0 "), "@P1 EXIT", "MEMBAR.SC.GPU", "LDG.E R13, desc[UR4][R2.64]",
                                          "EXIT", NULL};
static const char *const k_pred_other[] = {TID_P0, "@!P0 STG.E desc[UR4][R2.64], R5", "@P0 MEMBAR.SC.GPU",
                                           TICKET("@!P0 "), "@P1 EXIT", "MEMBAR.SC.GPU", "LDG.E R13, desc[UR4][R2.64]",
                                           "EXIT", NULL};
static const char *const k_pred_redefined[] = {TID_P0, "@!P0 STG.E desc[UR4][R2.64], R5", "@!P0 MEMBAR.SC.GPU",
                                               "ISETP.NE.AND P0, PT, R4, RZ, PT", TICKET("@!P0 "), "@P1 EXIT",
                                               "MEMBAR.SC.GPU", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
static const char *const k_red[] = {"STG.E desc[UR4][R2.64], R5", "REDG.E.ADD.STRONG.GPU desc[UR4][R8.64], R9", "EXIT",
                                    NULL};
static const char *const k_slot[] = {"ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR4][R8.64], R9", "IMAD.WIDE R2, R7, 0x4, R4",
                                     "STG.E desc[UR4][R2.64], R5", "EXIT", NULL};
/* the classic: the ticket's result through shared memory and a barrier */
static const char *const k_smem[] = {TID_P0, "@P0 BRA 0x90", "STG.E desc[UR4][R2.64], R5", TICKET(""),
                                     "SEL R11, RZ, 0x1, P1", "STS.U8 [UR4], R11", "BAR.SYNC.DEFER_BLOCKING 0x0",
                                     "LDS.U8 R12, [UR4]", "ISETP.NE.AND P2, PT, R12, RZ, PT", "@P2 EXIT",
                                     "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
static const char *const k_cctl[] = {"STG.E desc[UR4][R2.64], R5", "MEMBAR.ALL.GPU", TICKET(""), "CCTL.IVALL",
                                     "@P1 EXIT", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
static const char *const k_strong[] = {"STG.E desc[UR4][R2.64], R5", "MEMBAR.SC.GPU", TICKET(""), "@P1 EXIT",
                                       "LDG.E.STRONG.GPU R13, desc[UR4][R2.64]", "EXIT", NULL};
static const char *const k_block_scope[] = {"STG.E desc[UR4][R2.64], R5", "MEMBAR.SC.GPU",
                                            "ATOMG.E.INC.STRONG.SM PT, R7, desc[UR4][R8.64], R9",
                                            "ISETP.NE.AND P1, PT, R7, R10, PT", "@P1 EXIT", "MEMBAR.SC.GPU",
                                            "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
/* a fence on one branch: 0x20 jumps over it to the ticket */
static const char *const k_branch[] = {"STG.E desc[UR4][R2.64], R5", "ISETP.NE.AND P0, PT, R5, RZ, PT", "@P0 BRA 0x40",
                                       "MEMBAR.SC.GPU", TICKET(""), "@P1 EXIT", "MEMBAR.SC.GPU",
                                       "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
/* the fence in a subroutine of the same function (CALL.REL, RET) */
static const char *const k_subroutine[] = {"STG.E desc[UR4][R2.64], R5", "CALL.REL.NOINC 0x80", TICKET(""),
                                           "@P1 EXIT", "CALL.REL.NOINC 0x80", "LDG.E R13, desc[UR4][R2.64]", "EXIT",
                                           "MEMBAR.SC.GPU", "RET.REL.NODEC R20 0x0", NULL};
static const char *const k_unknown_call[] = {"STG.E desc[UR4][R2.64], R5", "CALL.ABS.NOINC 0x0", TICKET(""), "@P1 EXIT",
                                             "MEMBAR.SC.GPU", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};

/* the tile-id counter of CUB's onesweep: thread 0 takes the next tile, the
 * block reads it back from shared memory; the keys' addresses and the
 * look-back loop (strong loads) come from it, a branch on "first tile" guards
 * no other read. No ticket. */
static const char *const k_tile_id[] = {
    TID_P0, "@!P0 ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR4][R8.64], R9", "@!P0 STS [UR4], R7",
    "BAR.SYNC.DEFER_BLOCKING 0x0", "LDS R7, [UR4]", "IMAD.WIDE R2, R7, 0x1000, R4", "LDG.E R13, desc[UR4][R2.64]",
    "ISETP.NE.AND P1, PT, R7, RZ, PT", "@!P1 BRA 0xf0", "VIADD R10, R7, 0xffffffff", /* 0xa0: the look-back */
    "IMAD.WIDE R2, R10, 0x400, R4", "LDG.E.STRONG.GPU R14, desc[UR4][R2.64]", "ISETP.NE.AND P2, PT, R10, RZ, PT",
    "@P2 BRA 0xa0", "STG.E desc[UR4][R2.64], R13", "EXIT", NULL};
/* the same counter as a persistent loop's bound: no ticket either */
static const char *const k_tile_loop[] = {
    "ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR4][R8.64], R9", "ISETP.GE.AND P1, PT, R7, R20, PT", "@P1 EXIT",
    "IMAD.WIDE R2, R7, 0x1000, R4", "LDG.E R13, desc[UR4][R2.64]", "STG.E desc[UR4][R2.64], R13", "BRA 0x0", NULL};
/* a ticket whose acquire is the atom's own CCTL.IVALL (fetch_add seq_cst,
 * atom.acq_rel.gpu), taken by thread 0, the decision through shared memory */
#define FLAG_SET "SEL R11, RZ, 0x1, P1", "STS.U8 [UR4+0x400], R11"
#define FLAG_READ "BAR.SYNC.DEFER_BLOCKING 0x0", "LDS.U8 R12, [UR4+0x400]", "ISETP.NE.AND P2, PT, R12, RZ, PT", "@!P2 EXIT"
static const char *const k_acq_rel_t0[] = {TID_P0, "STG.E desc[UR4][R2.64], R5", "@P0 BRA 0xa0", "MEMBAR.ALL.GPU",
                                           TICKET(""), "CCTL.IVALL", FLAG_SET, FLAG_READ,
                                           "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
/* threadFenceReduction, fixed: thread 0 fences only when it is last, then the
 * barrier, then every thread loads (PTX causality through bar.sync) */
static const char *const k_tfr_fixed[] = {TID_P0, "STG.E desc[UR4][R2.64], R5", "MEMBAR.SC.GPU", "@P0 BRA 0xb0",
                                          TICKET(""), FLAG_SET, "@P1 BRA 0xb0", "MEMBAR.SC.GPU", FLAG_READ,
                                          "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
/* the same with the acquire on the path of the blocks that are not last */
static const char *const k_tfr_wrong_side[] = {TID_P0, "STG.E desc[UR4][R2.64], R5", "MEMBAR.SC.GPU", "@P0 BRA 0xb0",
                                               TICKET(""), FLAG_SET, "@!P1 BRA 0xb0", "MEMBAR.SC.GPU", FLAG_READ,
                                               "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
/* __syncthreads_or(last): BAR.RED.OR and B2R carry the decision */
static const char *const k_sync_or[] = {"STG.E desc[UR4][R2.64], R5", "MEMBAR.SC.GPU",
                                        "ATOMG.E.INC.STRONG.GPU PT, R7, desc[UR4][R8.64], R9",
                                        "ISETP.EQ.AND P1, PT, R7, R10, PT", "BAR.RED.OR.DEFER_BLOCKING 0x0, P1",
                                        "B2R.RESULT RZ, P2", "@!P2 EXIT", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
/* the decision saved by P2R and restored by R2P */
static const char *const k_p2r_ticket[] = {"STG.E desc[UR4][R2.64], R5", "MEMBAR.SC.GPU", TICKET(""),
                                           "P2R R5, PR, RZ, 0x2", "ISETP.NE.AND P1, PT, R4, RZ, PT",
                                           "@P1 STG.E desc[UR4][R2.64], R4", "R2P PR, R5, 0x2", "@P1 EXIT",
                                           "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
/* the fence's guard saved in R14, the predicate reused, then restored: the
 * same guard as the ticket's (ok), or restored from another register (bug) */
#define GUARDED_FENCE TID_P0, "@!P0 STG.E desc[UR4][R2.64], R5", "@!P0 MEMBAR.SC.GPU", "P2R R14, PR, RZ, 0x1", \
                      "ISETP.NE.AND P0, PT, R4, RZ, PT", "@P0 IADD3 R4, R4, 0x1, RZ"
static const char *const k_p2r_fence[] = {GUARDED_FENCE, "ISETP.NE.AND P0, PT, R14, RZ, PT", TICKET("@!P0 "), "@P1 EXIT",
                                          "MEMBAR.SC.GPU", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
static const char *const k_p2r_other[] = {GUARDED_FENCE, "ISETP.NE.AND P0, PT, R15, RZ, PT", TICKET("@!P0 "), "@P1 EXIT",
                                          "MEMBAR.SC.GPU", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
/* a fence that never runs, and one that always does */
static const char *const k_never[] = {"STG.E desc[UR4][R2.64], R5", "@!PT MEMBAR.SC.GPU", TICKET(""), "@P1 EXIT",
                                      "@!PT MEMBAR.SC.GPU", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
static const char *const k_always[] = {"STG.E desc[UR4][R2.64], R5", "@PT MEMBAR.SC.GPU", TICKET(""), "@P1 EXIT",
                                       "@PT MEMBAR.SC.GPU", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
/* strong loads of block scope are weak against another block */
static const char *const k_strong_sm[] = {"STG.E desc[UR4][R2.64], R5", "MEMBAR.SC.GPU", TICKET(""), "@P1 EXIT",
                                          "LDG.E.STRONG.SM R13, desc[UR4][R2.64]", "EXIT", NULL};
/* the fences of each scope word: SYS and GPU order, CTA and the async proxy do not */
static const char *const k_sys[] = {"STG.E desc[UR4][R2.64], R5", "MEMBAR.SC.SYS", TICKET(""), "@P1 EXIT",
                                    "MEMBAR.ALL.SYS", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
static const char *const k_cta_async[] = {"STG.E desc[UR4][R2.64], R5", "FENCE.VIEW.ASYNC.G", TICKET(""), "@P1 EXIT",
                                          "MEMBAR.ALL.CTA", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};

/* onesweep's shape: the tile id broadcast through one place of shared
 * memory ([UR4+0x7200] and [UR6+0x7200] are one), the histogram read from
 * another and compared: no ticket; the broadcast place compared: a ticket */
#define TILE_BCAST TID_P0, "@!P0 ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR4][R8.64], R9", "@!P0 STS [UR4+0x7200], R7", \
                   "BAR.SYNC.DEFER_BLOCKING 0x0", "LDS R7, [UR6+0x7200]", "IMAD.WIDE R2, R7, 0x1000, R4"
static const char *const k_smem_other[] = {TILE_BCAST, "LDS R11, [R41+0x400]", "ISETP.NE.AND P1, PT, R11, 0x1c80, PT",
                                           "@!P1 BRA 0xb0", "LDG.E R13, desc[UR4][R20.64]", "LDG.E R14, desc[UR4][R2.64]",
                                           "EXIT", NULL};
static const char *const k_smem_same[] = {TILE_BCAST, "LDS R11, [UR6+0x7200]", "ISETP.NE.AND P1, PT, R11, 0x1c80, PT",
                                          "@!P1 BRA 0xb0", "LDG.E R13, desc[UR4][R20.64]", "LDG.E R14, desc[UR4][R2.64]",
                                          "EXIT", NULL};
/* -O0: the offset added to the address register, a constant address */
static const char *const k_smem_o0[] = {TID_P0, "@!P0 ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR4][R8.64], R9",
                                        "IADD3 R0, RZ, 0x7e00, RZ", "@!P0 STS [R0], R7", "BAR.SYNC.DEFER_BLOCKING 0x0",
                                        "IADD3 R5, R41, 0x400, RZ", "LDS R11, [R5]", "ISETP.NE.AND P1, PT, R11, 0x1c80, PT",
                                        "@!P1 BRA 0xb0", "LDG.E R13, desc[UR4][R20.64]", "EXIT", "EXIT", NULL};
/* ptxas computes the ticket's compare again into P3 and branches on that */
static const char *const k_recomputed[] = {TID_P0, "STG.E desc[UR4][R2.64], R5", "MEMBAR.SC.GPU", "@P0 BRA 0xc0",
                                           TICKET(""), "ISETP.NE.AND P3, PT, R7.reuse, R10, PT", FLAG_SET, "@P3 BRA 0xc0",
                                           "MEMBAR.SC.GPU", FLAG_READ, "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
/* __syncthreads_or(last) copied by PLOP3; fresh input loaded by every block
 * after the ticket is no read the ticket guards */
#define SYNC_OR_PLOP3 "STG.E desc[UR4][R2.64], R5", "MEMBAR.SC.GPU", "ATOMG.E.INC.STRONG.GPU PT, R7, desc[UR4][R8.64], R9", \
                      "ISETP.EQ.AND P1, PT, R7, R10, PT", "BAR.RED.OR.DEFER_BLOCKING 0x0, P1", "B2R.RESULT RZ, P2",  \
                      "PLOP3.LUT P3, PT, P2, PT, PT, 0x80, 0x0", "LDG.E R20, desc[UR4][R22.64]", "@!P3 EXIT"
static const char *const k_plop3_ok[] = {SYNC_OR_PLOP3, "MEMBAR.SC.GPU", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
static const char *const k_plop3_bug[] = {SYNC_OR_PLOP3, "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};

/* cooperative_groups' multi-warp tile barrier: an acq_rel CTA-scope
 * atom.or on a word of shared memory reached through a generic pointer made
 * from the shared window (SR_SWINHI), the last warp's red.and, the others'
 * ld.acquire.cta spin, then a read of global memory: synchronisation inside
 * the block, no ticket. */
#define CG_BARRIER(ADDR_HI)                                                                              \
  "S2R R0, SR_TID.X", ADDR_HI, "MOV R2, 0x400", "STG.E desc[UR4][R20.64], R5",                                \
      "ATOM.E.OR.STRONG.SM PT, R7, desc[UR4][R2.64], R9", "ISETP.NE.AND P1, PT, R7, R10, PT", "@P1 BRA 0xb0", \
      "RED.E.AND.STRONG.SM desc[UR4][R2.64], R11", "BRA 0xe0", "LD.E.STRONG.SM R12, desc[UR4][R2.64]",        \
      "ISETP.EQ.AND P2, PT, R12, R10, PT", "@P2 BRA 0xb0", "LDG.E R13, desc[UR4][R22.64]", "EXIT"
static const char *const k_cg_window[] = {CG_BARRIER("S2R R3, SR_SWINHI"), NULL};
static const char *const k_cg_window_c[] = {CG_BARRIER("LDC R3, c[0x0][0x1c]"), NULL};
/* the same with the word's address loaded from memory: the lint cannot tell
 * shared from global, so a note and no finding */
static const char *const k_cg_unknown[] = {CG_BARRIER("LDG.E R3, desc[UR4][R24.64]"), NULL};
/* a GPU-scope ticket on a word in the shared window is no ticket either */
static const char *const k_gpu_on_window[] = {"S2R R3, SR_SWINHI", "MOV R2, 0x400", "STG.E desc[UR4][R20.64], R5",
                                              "ATOM.E.INC.STRONG.GPU PT, R7, desc[UR4][R2.64], R9",
                                              "ISETP.NE.AND P1, PT, R7, R10, PT", "@P1 EXIT", "LDG.E R13, desc[UR4][R22.64]",
                                              "EXIT", NULL};
/* atomicInc_block on a kernel parameter's word (generic, proven global), fenced: scope */
static const char *const k_block_param[] = {"LDC.64 R2, c[0x0][0x210]", "STG.E desc[UR4][R20.64], R5", "MEMBAR.SC.GPU",
                                            "ATOM.E.INC.STRONG.SM PT, R7, desc[UR4][R2.64], R9",
                                            "ISETP.NE.AND P1, PT, R7, R10, PT", "@P1 EXIT", "MEMBAR.SC.GPU",
                                            "LDG.E R13, desc[UR4][R22.64]", "EXIT", NULL};
/* a generic store and load in the shared window around a ticket: neither is another block's data */
static const char *const k_window_access[] = {"S2R R3, SR_SWINHI", "MOV R2, 0x400", "ST.E desc[UR4][R2.64], R5", TICKET(""),
                                              "@P1 EXIT", "LD.E R13, desc[UR4][R2.64]", "MEMBAR.SC.GPU",
                                              "LDG.E R14, desc[UR4][R20.64]", "EXIT", NULL};
/* one block raises a flag, another waits on it and reads the data: relaxed
 * (no fences), and fenced on both sides */
#define FLAG_KERNEL(REL, ACQ)                                                                                   \
  "S2R R0, SR_CTAID.X", "ISETP.NE.AND P0, PT, R0, RZ, PT", "@P0 BRA 0x70", "STG.E desc[UR4][R20.64], R5", REL, \
      "STG.E.STRONG.GPU desc[UR4][R24.64], R6", "EXIT", "LDG.E.STRONG.GPU R7, desc[UR4][R24.64]",                 \
      "ISETP.EQ.AND P1, PT, R7, RZ, PT", "@P1 BRA 0x70", ACQ, "LDG.E R8, desc[UR4][R20.64]", "EXIT"
static const char *const k_flag_relaxed[] = {FLAG_KERNEL("NOP", "NOP"), NULL};
static const char *const k_flag_fenced[] = {FLAG_KERNEL("MEMBAR.SC.GPU", "MEMBAR.SC.GPU"), NULL};
static const char *const k_flag_acquire[] = {FLAG_KERNEL("MEMBAR.ALL.GPU", "CCTL.IVALL"), NULL};
/* a VOTE with no operands after a ticket (a fuzzer's listing): no crash */
static const char *const k_vote_bare[] = {"STG.E desc[UR4][R2.64], R5", TICKET(""), "VOTE.ANY", "VOTEU.ANY", "@P1 EXIT",
                                          "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};

/* A CAS loop on a device-scope word (libcu++'s fetch_add of a double,
 * cooperative_groups' reduce_update_async): its retry reads and writes back
 * that same word, which is no data of other blocks; a read of other data the
 * compare decides still is. */
#define CAS_LOOP(load)                                                                                          \
  "LDG.E R6, desc[UR4][R8.64]", "ATOMG.E.CAS.STRONG.GPU P0, R7, desc[UR4][R8.64], R6, R10",                    \
      "ISETP.NE.AND P1, PT, R7, R6, PT", "@!P1 BRA 0x70", load, "STG.E desc[UR4][R8.64], R6", "BRA 0x10", "EXIT"
static const char *const k_cas_same[] = {CAS_LOOP("LDG.E R6, desc[UR4][R8.64]"), NULL};
static const char *const k_cas_other[] = {CAS_LOOP("LDG.E R6, desc[UR4][R2.64]"), NULL};

static const struct {
  const char *name;
  const char *const *insns;
  int tickets;
  unsigned sides;
  int unknown_calls;
} k_small[] = {
    {"a tile-id counter is no ticket", k_tile_id, 0, 0, 0},
    {"a persistent loop's tile counter is no ticket", k_tile_loop, 0, 0, 0},
    {"an acq_rel atom's CCTL.IVALL in thread 0, then the barrier", k_acq_rel_t0, 1, 0, 0},
    {"threadFenceReduction fixed: the acquire on the last block's path", k_tfr_fixed, 1, 0, 0},
    {"the acquire on the other blocks' path", k_tfr_wrong_side, 1, A, 0},
    {"__syncthreads_or(last) with no acquire", k_sync_or, 1, A, 0},
    {"the decision through P2R and R2P, no acquire", k_p2r_ticket, 1, A, 0},
    {"the fence's guard restored from its register", k_p2r_fence, 1, 0, 0},
    {"the ticket's guard restored from another register", k_p2r_other, 1, R, 0},
    {"@!PT MEMBAR never runs", k_never, 1, R | A, 0},
    {"@PT MEMBAR always runs", k_always, 1, 0, 0},
    {"LDG.E.STRONG.SM is a weak load here", k_strong_sm, 1, A, 0},
    {"MEMBAR.SC.SYS and MEMBAR.ALL.SYS", k_sys, 1, 0, 0},
    {"FENCE.VIEW.ASYNC and MEMBAR.ALL.CTA", k_cta_async, 1, R | A, 0},
    {"a fence under the ticket's guard", k_pred_same, 1, 0, 0},
    {"a fence under the other guard", k_pred_other, 1, R, 0},
    {"the guard redefined after the fence", k_pred_redefined, 1, R, 0},
    {"a reduction is no ticket", k_red, 0, 0, 0},
    {"a slot allocator is no ticket", k_slot, 0, 0, 0},
    {"a ticket through shared memory, no fences", k_smem, 1, R | A, 0},
    {"a release atomic and CCTL.IVALL", k_cctl, 1, 0, 0},
    {"strong loads after the ticket", k_strong, 1, 0, 0},
    {"a block-scope ticket", k_block_scope, 1, 1 << KG_LINT_SCOPE, 0},
    {"a fence on one branch", k_branch, 1, R, 0},
    {"the fence in a subroutine", k_subroutine, 1, 0, 0},
    {"a call into code the listing lacks", k_unknown_call, 1, R, 1},
    {"a tile id through shared memory, another place compared", k_smem_other, 0, 0, 0},
    {"a tile id through shared memory, its place compared", k_smem_same, 1, A, 0},
    {"-O0 shared addresses: the register's offset", k_smem_o0, 0, 0, 0},
    {"the ticket's compare computed again", k_recomputed, 1, 0, 0},
    {"__syncthreads_or through PLOP3, fresh input read, fenced", k_plop3_ok, 1, 0, 0},
    {"__syncthreads_or through PLOP3, no acquire", k_plop3_bug, 1, A, 0},
    {"cooperative_groups' tile barrier in the shared window (SR_SWINHI)", k_cg_window, 0, 0, 0},
    {"cooperative_groups' tile barrier in the shared window (c[0x0][0x1c])", k_cg_window_c, 0, 0, 0},
    {"a block-scope barrier on a word of unknown space: a note", k_cg_unknown, 0, 0, 0},
    {"a GPU-scope atomic in the shared window is no ticket", k_gpu_on_window, 0, 0, 0},
    {"a block-scope ticket on a parameter's word", k_block_param, 1, 1 << KG_LINT_SCOPE, 0},
    {"generic accesses in the shared window around a ticket", k_window_access, 1, 0, 0},
    {"a flag between blocks, relaxed", k_flag_relaxed, 1, R | A, 0},
    {"a flag between blocks, fenced", k_flag_fenced, 1, 0, 0},
    {"a flag between blocks, release and acquire", k_flag_acquire, 1, 0, 0},
    {"VOTE and VOTEU with no operands", k_vote_bare, 1, R | A, 0},
    {"a CAS loop's retry of its own word", k_cas_same, 1, 0, 0},
    {"a CAS loop deciding a read of other data", k_cas_other, 1, A, 0},
};

START_TEST(test_lint_small) {
  char *text = listing_of(k_small[_i].insns);
  kg_sass_listing l;
  kg_lint_report r;
  lint_text(text, strlen(text), &l, &r);
  ck_assert_msg(r.ntickets == k_small[_i].tickets, "%s: %d tickets", k_small[_i].name, r.ntickets);
  ck_assert_msg(sides_of(&r, 0) == k_small[_i].sides, "%s: sides %u, want %u", k_small[_i].name, sides_of(&r, 0),
                k_small[_i].sides);
  ck_assert_int_eq(r.unknown_calls, k_small[_i].unknown_calls);
  ck_assert_msg(r.nnotes == (k_small[_i].insns == k_cg_unknown), "%s: %zu notes", k_small[_i].name, r.nnotes);
  kg_lint_report_free(&r);
  kg_sass_free(&l);
  free(text);
}
END_TEST

/* Listings of several functions and units: "#unit" starts a cubin (code for
 * sm_90), "#func NAME" a function; the rest are instructions. */
static char *units_of(const char *const *lines) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  for (int i = 0, addr = 0; lines[i]; i++) {
    if (!strcmp(lines[i], "#unit")) fprintf(f, "\tcode for sm_90\n");
    else if (!strncmp(lines[i], "#func ", 6)) fprintf(f, "\t\tFunction : %s\n", lines[i] + 6), addr = 0;
    else fprintf(f, "        /*%04x*/  %s ;\n", addr, lines[i]), addr += 16;
  }
  fclose(f);
  return buf;
}

/* The ticket taken in a __noinline__ helper, the decision in the kernel. */
static const char *const k_callee_ticket[] = {
    "#unit", "#func _Z4takePj", "ATOMG.E.INC.STRONG.GPU PT, R4, desc[UR4][R4.64], R6", "RET.REL.NODEC R20 0x0",
    "#func _Z1kPi", "STG.E desc[UR4][R2.64], R5", "CALL.ABS.NOINC `(_Z4takePj)", "ISETP.NE.AND P1, PT, R4, R10, PT",
    "@P1 EXIT", "LDG.E R13, desc[UR4][R2.64]", "EXIT", NULL};
/* Two units, each with its own static helper of one name: the fenced one in
 * the first, an empty one in the second. */
#define UNIT_KERNEL(name) "#func " name, "STG.E desc[UR4][R2.64], R5", "CALL.ABS.NOINC `(_ZL5fencev)", TICKET(""), \
                          "@P1 EXIT", "MEMBAR.SC.GPU", "LDG.E R13, desc[UR4][R2.64]", "EXIT"
static const char *const k_two_units[] = {"#unit", "#func _ZL5fencev", "MEMBAR.SC.GPU", "RET.REL.NODEC R20 0x0",
                                          UNIT_KERNEL("_Z2kav"), "#unit", "#func _ZL5fencev", "NOP",
                                          "RET.REL.NODEC R20 0x0", UNIT_KERNEL("_Z2kbv"), NULL};

/* Lints the listing of lines; the text, for the caller to free. */
static char *lint_units(const char *const *lines, kg_sass_listing *l, kg_lint_report *r) {
  char *text = units_of(lines);
  lint_text(text, strlen(text), l, r);
  return text;
}

START_TEST(test_lint_callee_ticket) {
  kg_sass_listing l;
  kg_lint_report r;
  char *text = lint_units(k_callee_ticket, &l, &r);
  ck_assert_int_eq(r.nkernels, 1);
  ck_assert_int_eq(r.ntickets, 1);
  ck_assert_uint_eq(sides_of(&r, 1), R | A);
  kg_lint_report_free(&r);
  kg_sass_free(&l);
  free(text);
}
END_TEST

START_TEST(test_lint_units) {
  kg_sass_listing l;
  kg_lint_report r;
  char *text = lint_units(k_two_units, &l, &r);
  ck_assert_int_eq(r.nkernels, 2);
  ck_assert_str_eq(l.funcs[1].name, "_Z2kav");
  ck_assert_str_eq(l.funcs[3].name, "_Z2kbv");
  ck_assert_int_ne(l.funcs[1].unit, l.funcs[3].unit);
  ck_assert_uint_eq(sides_of(&r, 1), 0);
  ck_assert_uint_eq(sides_of(&r, 3), R);
  kg_lint_report_free(&r);
  kg_sass_free(&l);
  free(text);
}
END_TEST

/* A module of k_big kernels, nvdisasm's shape: each stores, calls a chain of
 * k_depth helpers (each calling the next on two paths, the last fencing),
 * takes a ticket, exits unless last, calls the chain again and loads. Every
 * tenth kernel calls a chain whose last helper does not fence: release and
 * acquire findings. Summaries computed per call used to grow as 2^depth. */
enum { k_big = 1000, k_depth = 24 };

static char *big_listing(void) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  fprintf(f, "\t.target\tsm_90\n");
  for (int c = 0; c < 2; c++)
    for (int d = 0; d < k_depth; d++) {
      fprintf(f, "//--------------------- .text.chain%d_%d --------------------------\nchain%d_%d:\n", c, d, c, d);
      if (d + 1 < k_depth)
        fprintf(f, "        /*0000*/ ISETP.NE.AND P0, PT, R4, RZ, PT ;\n        /*0010*/ @P0 BRA `(.L_x_%d_%d) ;\n"
                   "        /*0020*/ CALL.ABS.NOINC `(chain%d_%d) ;\n        /*0030*/ RET.REL.NODEC R20 0x0 ;\n"
                   ".L_x_%d_%d:\n        /*0040*/ CALL.ABS.NOINC `(chain%d_%d) ;\n        /*0050*/ RET.REL.NODEC R20 0x0 ;\n",
                c, d, c, d + 1, c, d, c, d + 1);
      else fprintf(f, "        /*0000*/ %s ;\n        /*0010*/ RET.REL.NODEC R20 0x0 ;\n", c ? "NOP" : "MEMBAR.SC.GPU");
    }
  static const char *const body[] = {"STG.E desc[UR4][R2.64], R5", "CALL.ABS.NOINC `(chain%d_0)",
                                     "ATOMG.E.INC.STRONG.GPU PT, R7, desc[UR4][R8.64], R9",
                                     "ISETP.NE.AND P1, PT, R7, R10, PT", "@P1 EXIT", "CALL.ABS.NOINC `(chain%d_0)",
                                     "LDG.E R13, desc[UR4][R2.64]", "EXIT"};
  for (int k = 0; k < k_big; k++) {
    fprintf(f, "//--------------------- .text._Z3k%dv --------------------------\n_Z3k%dv:\n", k, k);
    for (size_t i = 0; i < sizeof body / sizeof body[0]; i++) {
      fprintf(f, "        /*%04zx*/ ", 16 * i);
      fprintf(f, body[i], k % 10 == 9);
      fprintf(f, " ;\n");
    }
  }
  fclose(f);
  return buf;
}

/* The outcome on that module (its time is measured, docs/lint.md). */
START_TEST(test_lint_big_module) {
  char *text = big_listing();
  kg_sass_listing l;
  kg_lint_report r;
  lint_text(text, strlen(text), &l, &r);
  ck_assert_int_eq(r.nkernels, k_big);
  ck_assert_int_eq(r.ntickets, k_big);
  ck_assert_int_eq(r.unknown_calls, 0);
  int bad = 0;
  for (int k = 0; k < l.nfuncs; k++)
    if (!l.funcs[k].called) {
      int want = atoi(l.funcs[k].name + 4) % 10 == 9 ? R | A : 0;
      ck_assert_msg(sides_of(&r, k) == (unsigned)want, "%s: sides %u", l.funcs[k].name, sides_of(&r, k));
      bad += want != 0;
    }
  ck_assert_int_eq(bad, k_big / 10);
  kg_lint_report_free(&r);
  kg_sass_free(&l);
  free(text);
}
END_TEST

/* nvdisasm's shape: labels for targets, source lines, .target for the arch. */
START_TEST(test_lint_nvdisasm_labels) {
  const char *text = "\t.target\tsm_80\n"
                     "//--------------------- .text.k --------------------------\n"
                     "k:\n"
                     "\t//## File \"/src/x.cu\", line 7\n"
                     "        /*0000*/                   STG.E desc[UR4][R2.64], R5 ;\n"
                     "        /*0010*/                   ISETP.NE.AND P0, PT, R5, RZ, PT ;\n"
                     "        /*0020*/               @P0 BRA `(.L_x_1) ;\n"
                     "        /*0030*/                   MEMBAR.SC.GPU ;\n"
                     ".L_x_1:\n"
                     "\t//## File \"/src/x.cu\", line 9\n"
                     "        /*0040*/                   ATOMG.E.INC.STRONG.GPU PT, R7, desc[UR4][R8.64], R9 ;\n"
                     "        /*0050*/                   ISETP.NE.AND P1, PT, R7, R10, PT ;\n"
                     "        /*0060*/               @P1 EXIT ;\n"
                     "        /*0070*/                   MEMBAR.SC.GPU ;\n"
                     "        /*0080*/                   LDG.E R13, desc[UR4][R2.64] ;\n"
                     "        /*0090*/                   EXIT ;\n";
  kg_sass_listing l;
  kg_lint_report r;
  lint_text(text, strlen(text), &l, &r);
  ck_assert_int_eq(l.funcs[0].arch, 80);
  ck_assert_uint_eq(r.nfindings, 1);
  ck_assert_int_eq(r.findings[0].from.line, 7);
  ck_assert_int_eq(r.findings[0].to.line, 9);
  ck_assert_str_eq(r.findings[0].path, "0x0000 -> 0x0040");
  kg_lint_report_free(&r);
  kg_sass_free(&l);
}
END_TEST

/* ---- errors ---- */

START_TEST(test_lint_not_sass) {
  kg_sass_listing l;
  char err[256];
  ck_assert_int_eq(kg_sass_parse("hello\nworld\n", 12, &l, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "no SASS functions found") != NULL, "%s", err);
  ck_assert_int_eq(kg_sass_parse("a\0b", 3, &l, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "NUL") != NULL, "%s", err);
}
END_TEST

static int lint_exit(const char *path, char *msg, size_t len) {
  FILE *out = fopen("/dev/null", "w"), *e = fmemopen(msg, len, "w");
  int rc = kg_lint_file(path, NULL, out, e);
  fclose(out), fclose(e);
  return rc;
}

/* 2 for a missing file or text that is no listing, naming the file; 3 for
 * machine code with no disassembler; 1 and 0 for findings and none (no
 * waiver but a module's own: kgate_single_pass's listing alone fails). */
START_TEST(test_lint_exit_codes) {
  char msg[1024] = "";
  ck_assert_int_eq(lint_exit("/nonexistent/x.sass", msg, sizeof msg), KG_EXIT_USAGE);
  ck_assert_msg(strstr(msg, "/nonexistent/x.sass") != NULL, "%s", msg);
  ck_assert_int_eq(lint_exit(KG_SOURCE_DIR "/tests/data/sass/fences.cu", msg, sizeof msg), KG_EXIT_USAGE);
  ck_assert_msg(strstr(msg, "fences.cu: not a SASS listing") != NULL, "%s", msg);
  char cubin[] = "/tmp/kgate-lint-test-XXXXXX";
  int fd = mkstemp(cubin);
  unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  elf[18] = 190; /* EM_CUDA */
  ck_assert_int_eq(write(fd, elf, sizeof elf), (int)sizeof elf);
  close(fd);
  setenv("KGATE_NVDISASM", "/nonexistent/nvdisasm", 1);
  setenv("KGATE_CUOBJDUMP", "/nonexistent/cuobjdump", 1);
  ck_assert_int_eq(lint_exit(cubin, msg, sizeof msg), KG_EXIT_ENV);
  ck_assert_msg(strstr(msg, "is machine code (a cubin)") != NULL, "%s", msg);
  unsetenv("KGATE_NVDISASM"), unsetenv("KGATE_CUOBJDUMP");
  unlink(cubin);
  ck_assert_int_eq(lint_exit(DATA "mut_fence_after_sm80_O3.nvdisasm", msg, sizeof msg), KG_EXIT_FAIL);
  ck_assert_int_eq(lint_exit(DATA "cub_reduce_sm90_O3.nvdisasm", msg, sizeof msg), KG_EXIT_OK);
  /* a listing is no module: it carries no waiver, kgate's own included */
  ck_assert_int_eq(lint_exit(DATA "single_pass_sm90_O3.nvdisasm", msg, sizeof msg), KG_EXIT_FAIL);
}
END_TEST

/* ---- a lint that could not run fails the gate ---- */

/* Modules the lint cannot read, each as kg_lint_for_run meets it in a run:
 * text that is no listing, a cubin with no disassembler here, a module the
 * disassembler refuses, a module with no cubin (PTX only). */
static const struct {
  const char *what, *nvdisasm, *cuobjdump;
  unsigned char machine; /* the ELF machine of the file made, 0: the file is fences.cu */
  const char *why;       /* part of what the module's why must say */
} k_unread[] = {
    {"no listing", NULL, NULL, 0, "not a SASS listing"},
    {"no disassembler", "/nonexistent/nvdisasm", "/nonexistent/cuobjdump", 190, "is machine code (a cubin)"},
    {"refused", "/bin/false", "/bin/false", 190, "failed on it"},
    {"ptx only", "/bin/true", "/bin/true", 62, "no cubin in it"},
};

/* The lint's exit code as the run's document decides it (rmodel.h), and
 * its lines on stderr (kg_report_lint_unread) into err. */
static int lint_code(const kg_run *run, FILE *err) {
  kg_rdoc d;
  ck_assert_int_eq(kg_rdoc_build(&d, run, NULL), 0);
  kg_report_lint_unread(err, &d);
  int code = d.verdict.exit_code;
  kg_rdoc_free(&d);
  return code;
}

START_TEST(test_lint_not_run_fails_gate) {
  char path[] = "/tmp/kgate-lint-gate-XXXXXX", msg[2048] = "";
  const char *file = KG_SOURCE_DIR "/tests/data/sass/fences.cu";
  if (k_unread[_i].machine) {
    int fd = mkstemp(path);
    unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    elf[18] = k_unread[_i].machine;
    ck_assert_int_eq(write(fd, elf, sizeof elf), (int)sizeof elf);
    close(fd);
    file = path;
  }
  if (k_unread[_i].nvdisasm) setenv("KGATE_NVDISASM", k_unread[_i].nvdisasm, 1);
  if (k_unread[_i].cuobjdump) setenv("KGATE_CUOBJDUMP", k_unread[_i].cuobjdump, 1);
  static kg_lint_module m;
  memset(&m, 0, sizeof m);
  snprintf(m.path, sizeof m.path, "%s", file);
  ck_assert_int_eq(kg_lint_for_run(&m), 0);
  unsetenv("KGATE_NVDISASM"), unsetenv("KGATE_CUOBJDUMP");
  if (k_unread[_i].machine) unlink(path);
  ck_assert_msg(!m.ran && strstr(m.why, k_unread[_i].why), "%s: ran %d, why '%s'", k_unread[_i].what, m.ran, m.why);
  kg_run run = {.lint = &m, .nlint = 1};
  FILE *e = fmemopen(msg, sizeof msg, "w");
  ck_assert_int_eq(lint_code(&run, e), KG_EXIT_ENV);
  fclose(e);
  /* one line, naming the module and why */
  ck_assert_msg(strstr(msg, "kgate: lint: ") == msg && strstr(msg, file) && strstr(msg, "was not linted: ") &&
                    strstr(msg, k_unread[_i].why) && strchr(msg, '\n') == msg + strlen(msg) - 1,
                "%s: %s", k_unread[_i].what, msg);
  /* --lint off: recorded as off, not a failure, nothing said */
  m.off = 1;
  memset(msg, 0, sizeof msg);
  e = fmemopen(msg, sizeof msg, "w");
  ck_assert_int_eq(lint_code(&run, e), KG_EXIT_OK);
  fclose(e);
  ck_assert_str_eq(msg, "");
}
END_TEST

/* A module whose analysis runs past KGATE_LINT_LIMIT_S is not run, a failure
 * (3), as is a limit that is no positive number; a limit it keeps lints. */
static const struct {
  const char *limit, *why;
} k_limits[] = {
    {"1e-9", "the lint took over its time limit of 1e-09 s (KGATE_LINT_LIMIT_S)"},
    {"abc", "KGATE_LINT_LIMIT_S is not a positive number of seconds"},
    {"0", "KGATE_LINT_LIMIT_S is not a positive number of seconds"},
    {"30", NULL},
};

START_TEST(test_lint_time_limit) {
  static kg_lint_module m;
  memset(&m, 0, sizeof m);
  snprintf(m.path, sizeof m.path, DATA "fences_sm90_O0.nvdisasm");
  setenv("KGATE_LINT_LIMIT_S", k_limits[_i].limit, 1);
  ck_assert_int_eq(kg_lint_for_run(&m), 0);
  unsetenv("KGATE_LINT_LIMIT_S");
  FILE *null = fopen("/dev/null", "w");
  kg_run run = {.lint = &m, .nlint = 1};
  if (k_limits[_i].why) {
    ck_assert_msg(!m.ran && !strcmp(m.why, k_limits[_i].why), "%s: ran %d, why '%s'", k_limits[_i].limit, m.ran, m.why);
    ck_assert_int_eq(lint_code(&run, null), KG_EXIT_ENV);
  } else {
    ck_assert_msg(m.ran && m.nitems > 0, "%s: ran %d, why '%s'", k_limits[_i].limit, m.ran, m.why);
    ck_assert_int_eq(lint_code(&run, null), KG_EXIT_FAIL);
  }
  fclose(null);
  kg_lint_module_free(&m);
}
END_TEST

/* A finding fails (1) before a module not linted (3); a clean module and no
 * lint record at all (check --sanitize, an older results file) pass. */
START_TEST(test_lint_gate_code_order) {
  kg_lint_item item = {.kernel = "k", .arch = 90, .side = "release"};
  kg_lint_module m[2] = {{.path = "a.so", .ran = 1, .items = &item, .nitems = 1},
                         {.path = "b.so", .why = "no disassembler"}};
  FILE *null = fopen("/dev/null", "w");
  kg_run run = {.lint = m, .nlint = 2};
  ck_assert_int_eq(lint_code(&run, null), KG_EXIT_FAIL);
  m[0].nitems = 0;
  ck_assert_int_eq(lint_code(&run, null), KG_EXIT_ENV);
  run.nlint = 1;
  ck_assert_int_eq(lint_code(&run, null), KG_EXIT_OK);
  run.nlint = 0;
  ck_assert_int_eq(lint_code(&run, null), KG_EXIT_OK);
  fclose(null);
}
END_TEST

/* ---- waivers: whole kernel names, the module's table ---- */

/* A waiver names a kernel by its identifier in the source: no namespace,
 * class or template arguments; a C-linkage kernel by its symbol; a symbol
 * it cannot read has no name (never waived). */
static const struct {
  const char *symbol, *name; /* name NULL: unreadable */
} k_names[] = {
    {"_Z12bug_no_fencePKiPiS1_", "bug_no_fence"},
    {"_ZN53_GLOBAL__N__57763ffe_20_kgate_single_pass_cu_988b689911single_passIddEEvPKT_mPT0_", "single_pass"},
    {"_ZN3cub17CUB_300001_SM_9006detail6reduce18DeviceReduceKernelINS2_10policy_hubIdjN4cuda3std3__44plusIvEEE10"
     "Policy1000EPKdjS9_dNS7_10__identityEEEvT0_PT3_T1_NS0_13GridEvenShareISI_EET2_T4_",
     "DeviceReduceKernel"},
    {"_ZN5OuterIiLi4EE6kernelEv", "kernel"},
    {"_ZN2kg6kernelB5cxx11Ev", "kernel"},
    {"_ZNSt6vectorIiE4sizeEv", "size"},
    {"_ZL9my_kernelPi", "my_kernel"},
    {"team_sum_kernel", "team_sum_kernel"},
    {"_Z", NULL},
    {"_ZN3fooC1Ev", NULL},
    {"_Z99short", NULL},
    {"_ZN3foo", NULL},
};

START_TEST(test_lint_kernel_names) {
  char name[128] = "";
  int rc = kg_lint_kernel_name(k_names[_i].symbol, name, sizeof name);
  if (!k_names[_i].name) ck_assert_msg(rc == -1, "%s: read as '%s'", k_names[_i].symbol, name);
  else ck_assert_msg(rc == 0 && !strcmp(name, k_names[_i].name), "%s: '%s', want %s", k_names[_i].symbol, name,
                     k_names[_i].name);
}
END_TEST

/* Whole names: kgate's waiver "single_pass" waives single_pass<double> but
 * not a kernel whose name contains it (foo_single_pass_bar), whose
 * findings count. */
START_TEST(test_lint_waiver_whole_name) {
  kg_lint_waiver w = {"single_pass", "why"};
  ck_assert(kg_lint_waiver_applies(&w, "_ZN2kg11single_passIdEEvPKdmPd"));
  ck_assert(!kg_lint_waiver_applies(&w, "_ZN2kg19foo_single_pass_barIdEEvPKdmPd"));
  ck_assert(!kg_lint_waiver_applies(&w, "_Z12single_pass2Pi"));
  ck_assert(!kg_lint_waiver_applies(&w, "single_pass_kernel"));
  size_t len;
  char *t = slurp(DATA "single_pass_sm90_O3.nvdisasm", &len), *p;
  /* every single_pass kernel renamed foo_single_pass_bar (8 characters more) */
  size_t n = 0;
  for (p = t; (p = strstr(p, "11single_pass")); p++) n++;
  char *u = malloc(len + 8 * n + 1), *o = u;
  for (p = t; *p;) {
    if (!strncmp(p, "11single_pass", 13)) o += sprintf(o, "19foo_single_pass_bar"), p += 13;
    else *o++ = *p++;
  }
  *o = '\0';
  kg_sass_listing l;
  kg_lint_report r;
  lint_text(u, strlen(u), &l, &r);
  ck_assert_uint_gt(n, 0);
  ck_assert_int_eq(r.ntickets, 21);
  ck_assert_uint_eq(r.nwaived, 0);
  ck_assert_uint_eq(r.nused, 0);
  ck_assert_uint_gt(kg_lint_unwaived(&r), 0);
  kg_lint_report_free(&r);
  kg_sass_free(&l);
  free(u), free(t);
}
END_TEST

/* The table as a module exports it (kgate/module.h): read and validated. */
#define TAG KG_MODULE_LINT_WAIVERS_TAG "\0"
START_TEST(test_lint_waivers_parse) {
  static const char good[] = TAG "k_one\0first reason\0_k2\0second\0";
  kg_lint_waivers w;
  char err[512] = "";
  ck_assert_msg(kg_lint_waivers_parse(good, sizeof good, &w, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(w.n, 2);
  ck_assert_str_eq(w.w[0].kernel, "k_one");
  ck_assert_str_eq(w.w[0].reason, "first reason");
  ck_assert_str_eq(w.w[1].kernel, "_k2");
  ck_assert_str_eq(w.w[1].reason, "second");
  kg_lint_waivers_free(&w);
  static const char none[] = TAG;
  ck_assert_int_eq(kg_lint_waivers_parse(none, sizeof none, &w, err, sizeof err), 0);
  ck_assert_uint_eq(w.n, 0);
  kg_lint_waivers_free(&w);
}
END_TEST

/* Each bad table is refused with the field and what is wrong. */
static const struct {
  const char *bytes;
  size_t len;
  const char *why;
} k_bad_tables[] = {
#define B(s) s, sizeof s
    {B("kgate-lint-waivers 2\0k\0r\0"), "starts 'kgate-lint-waivers 2', this kgate reads 'kgate-lint-waivers 1'"},
    {B(TAG "k\0\0"), "waiver 1 (k): reason is missing"},
    {B(TAG "k\0r\0k2\0"), "waiver 2 (k2): reason is missing"},
    {B(TAG "9k\0r\0"), "waiver 1: kernel name '9k' is not [A-Za-z_][A-Za-z0-9_]*"},
    {B(TAG "a.b\0r\0"), "waiver 1: kernel name 'a.b' is not"},
    {B(TAG "k\0tab\there\0"), "waiver 1 (k): reason is not printable ASCII"},
    {B(TAG "k\0caf\xc3\xa9\0"), "waiver 1 (k): reason is not printable ASCII"},
    {B(TAG "k\0r\0k\0s\0"), "waiver 2: kernel k is listed twice"},
    {B(TAG "k\0r\0\0junk\0"), "bytes after its end ('junk')"},
    {"kgate-lint-waivers 1\0k\0r", 24, "does not end in a NUL"},
#undef B
};

START_TEST(test_lint_waivers_refused) {
  kg_lint_waivers w;
  char err[512] = "";
  ck_assert_int_eq(kg_lint_waivers_parse(k_bad_tables[_i].bytes, k_bad_tables[_i].len, &w, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "kgate_module_lint_waivers: ") == err && strstr(err, k_bad_tables[_i].why), "%s", err);
  ck_assert_ptr_null(w.w);
}
END_TEST

/* Lengths and counts: a name of 127 and a reason of 199 characters are
 * taken, one more is refused; 256 waivers are taken, 257 refused. */
START_TEST(test_lint_waivers_limits) {
  char *b = malloc(1 << 20), err[512];
  kg_lint_waivers w;
  size_t at;
  for (int over = 0; over < 2; over++) {
    at = sizeof TAG - 1;
    memcpy(b, TAG, at);
    memset(b + at, 'k', 127 + over), at += 127 + over, b[at++] = '\0';
    memset(b + at, 'r', 199), at += 199, b[at++] = '\0', b[at++] = '\0';
    ck_assert_int_eq(kg_lint_waivers_parse(b, at, &w, err, sizeof err), over ? -1 : 0);
    if (over) ck_assert_msg(strstr(err, "1..127 characters"), "%s", err);
    kg_lint_waivers_free(&w);
    at = sizeof TAG - 1;
    memcpy(b, TAG, at);
    at += (size_t)sprintf(b + at, "k") + 1;
    memset(b + at, 'r', 199 + over), at += 199 + over, b[at++] = '\0', b[at++] = '\0';
    ck_assert_int_eq(kg_lint_waivers_parse(b, at, &w, err, sizeof err), over ? -1 : 0);
    if (over) ck_assert_msg(strstr(err, "longer than 199"), "%s", err);
    kg_lint_waivers_free(&w);
    at = sizeof TAG - 1;
    memcpy(b, TAG, at);
    for (int k = 0; k < KG_MODULE_LINT_WAIVERS_MAX + over; k++) at += (size_t)sprintf(b + at, "k%d", k) + 1, b[at++] = 'r', b[at++] = '\0';
    b[at++] = '\0';
    ck_assert_int_eq(kg_lint_waivers_parse(b, at, &w, err, sizeof err), over ? -1 : 0);
    if (over) ck_assert_msg(strstr(err, "more than 256 waivers"), "%s", err);
    else ck_assert_uint_eq(w.n, KG_MODULE_LINT_WAIVERS_MAX);
    kg_lint_waivers_free(&w);
  }
  free(b);
}
END_TEST
#undef TAG

/* From a module's file: the table it exports, none in a listing or a cubin,
 * and a bad one refused naming the file. */
START_TEST(test_lint_waivers_read) {
  kg_lint_waivers w;
  char err[1024] = "";
  ck_assert_msg(kg_lint_waivers_read(TEST_MODULES "/libkg_lintmod_waive.so", &w, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(w.n, 2);
  ck_assert_str_eq(w.w[0].kernel, "mut_fence_after_kernel");
  ck_assert_str_eq(w.w[1].reason, "a part of a name waives nothing");
  kg_lint_waivers_free(&w);
  ck_assert_int_eq(kg_lint_waivers_read(DATA "single_pass_sm90_O3.nvdisasm", &w, err, sizeof err), 0);
  ck_assert_uint_eq(w.n, 0);
  ck_assert_int_eq(kg_lint_waivers_read(TEST_MODULES "/libkg_lintmod_badwaive.so", &w, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "libkg_lintmod_badwaive.so: kgate_module_lint_waivers: waiver 1 (bug_no_fence): reason"),
                "%s", err);
}
END_TEST

Suite *make_lint_suite(void) {
  Suite *s = suite_create("lint");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_lint_captured, 0, (int)(sizeof k_listings / sizeof k_listings[0]));
  tcase_add_test(core, test_lint_cub_clean);
  tcase_add_loop_test(core, test_lint_corpus, 0, (int)(sizeof k_corpus / sizeof k_corpus[0]));
  tcase_add_test(core, test_lint_waiver_shown);
  tcase_add_test(core, test_lint_report_names_places);
  tcase_add_loop_test(core, test_lint_small, 0, (int)(sizeof k_small / sizeof k_small[0]));
  tcase_add_test(core, test_lint_nvdisasm_labels);
  tcase_add_loop_test(core, test_lint_kernel_names, 0, (int)(sizeof k_names / sizeof k_names[0]));
  tcase_add_test(core, test_lint_waiver_whole_name);
  tcase_add_test(core, test_lint_waivers_parse);
  tcase_add_test(core, test_lint_waivers_read);
  tcase_add_test(core, test_lint_callee_ticket);
  tcase_add_test(core, test_lint_units);
  tcase_add_test(core, test_lint_big_module);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("Errors");
  tcase_add_test(errors, test_lint_not_sass);
  tcase_add_test(errors, test_lint_exit_codes);
  tcase_add_loop_test(errors, test_lint_not_run_fails_gate, 0, (int)(sizeof k_unread / sizeof k_unread[0]));
  tcase_add_test(errors, test_lint_gate_code_order);
  tcase_add_loop_test(errors, test_lint_waivers_refused, 0, (int)(sizeof k_bad_tables / sizeof k_bad_tables[0]));
  tcase_add_test(errors, test_lint_waivers_limits);
  tcase_add_loop_test(errors, test_lint_time_limit, 0, (int)(sizeof k_limits / sizeof k_limits[0]));
  suite_add_tcase(s, errors);
  return s;
}
