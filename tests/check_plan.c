/* plan: which cases a run has, and in which order. */
#include <check.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "plan.h"
#include "varreg.h"
#include "sanitize.h"
#include "sizes.h"

static kg_case *build(const kg_plan_opts *o, size_t *n) {
  kg_case *cases = NULL;
  char err[256] = "";
  ck_assert_msg(kg_plan_build(o, &cases, n, err, sizeof err) == 0, "plan rejected: %s", err);
  ck_assert_ptr_nonnull(cases);
  return cases;
}

/* variants x their declared dtypes x default sizes x applicable patterns:
 * ints have 2 patterns (exact, wrap), floats 8 (all but wrap). A dtype a
 * variant does not declare (the in-place ones: no f16, bf16) is not planned. */
START_TEST(test_plan_default_count) {
  kg_plan_opts o = {0};
  size_t n, nsizes, per_dtype[KG_NDTYPES] = {0}, want = 0, wide_only = 0;
  kg_sizes_default(&nsizes);
  for (size_t v = 0; v < kg_nvariants; v++) {
    for (int d = 0; d < KG_NDTYPES; d++)
      if (kg_variant_supports((int)v, (kg_dtype)d)) want += nsizes * (kg_dtype_get((kg_dtype)d)->is_float ? 8 : 2);
    wide_only += !kg_variant_supports((int)v, KG_BF16);
  }
  ck_assert_uint_gt(wide_only, 0); /* kgate's own in-place variants: the case this test is about */
  kg_case *c = build(&o, &n);
  ck_assert_uint_eq(n, want);
  for (size_t i = 0; i < n; i++) {
    per_dtype[c[i].dtype]++;
    ck_assert(kg_variant_supports(c[i].variant, c[i].dtype));
    ck_assert_int_eq(c[i].supported != 0, kg_case_supported(c[i].variant, c[i].dtype, c[i].pattern) != 0);
    ck_assert(kg_pattern_applies(c[i].pattern, c[i].dtype));
  }
  ck_assert_uint_eq(per_dtype[KG_I32], kg_nvariants * nsizes * 2);
  ck_assert_uint_eq(per_dtype[KG_BF16], (kg_nvariants - wide_only) * nsizes * 8);
  free(c);
}
END_TEST

static size_t size_rank(const size_t *sizes, size_t nsizes, size_t n) {
  for (size_t i = 0; i < nsizes; i++)
    if (sizes[i] == n) return i;
  ck_abort_msg("size %zu not in the list", n);
  return 0;
}

/* dtype, then n in list order, then pattern, then every variant: runs of
 * kg_nvariants consecutive cases share one input. */
START_TEST(test_plan_order) {
  const size_t sizes[] = {1000, 5, 77};
  kg_plan_opts o = {.dtypes = "f64,i32,f32,i64", .sizes = sizes, .nsizes = 3}; /* the dtypes every variant declares */
  size_t n;
  kg_case *c = build(&o, &n);
  ck_assert_uint_eq(n % kg_nvariants, 0);
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_eq(c[i].variant, (int)(i % kg_nvariants));
    if (i % kg_nvariants) {
      ck_assert(c[i].dtype == c[i - 1].dtype && c[i].n == c[i - 1].n && c[i].pattern == c[i - 1].pattern);
    } else if (i) {
      long a[3] = {c[i - 1].dtype, (long)size_rank(sizes, 3, c[i - 1].n), c[i - 1].pattern};
      long b[3] = {c[i].dtype, (long)size_rank(sizes, 3, c[i].n), c[i].pattern};
      int k = 0;
      while (k < 2 && a[k] == b[k]) k++;
      ck_assert_msg(a[k] < b[k], "case %zu out of order", i);
    }
  }
  free(c);
}
END_TEST

static const struct {
  const char *variants, *dtypes, *patterns;
  size_t nv, nd_int, nd_float, np_int, np_float; /* nv 0: every variant */
} k_filters[] = {
    {"cub_sum,reduce0_divergent", "f32", NULL, 2, 0, 1, 0, 8},
    {NULL, "i32,i64", "exact", 0, 2, 0, 1, 0},
    {"neighbored,cub_sum", "f16", NULL, 1, 0, 1, 0, 8}, /* neighbored does not declare f16 */
    {NULL, NULL, "wrap", 0, 2, 4, 1, 0},
    {"two_pass", "f64,i32", "nan,inf,exact", 1, 1, 1, 1, 3},
    {"cub_sum,cub_sum", "bf16,bf16", "uniform,uniform", 1, 0, 1, 0, 1},
};

static int in_list(const char *list, const char *name) {
  if (!list) return 1;
  size_t len = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
    if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
  return 0;
}

START_TEST(test_plan_filters) {
  const size_t sizes[] = {2, 3};
  kg_plan_opts o = {k_filters[_i].variants, k_filters[_i].dtypes, k_filters[_i].patterns, sizes, 2, NULL, 0, 0};
  size_t n, nv = k_filters[_i].nv ? k_filters[_i].nv : kg_nvariants;
  kg_case *c = build(&o, &n);
  ck_assert_uint_eq(n, nv * 2 * (k_filters[_i].nd_int * k_filters[_i].np_int + k_filters[_i].nd_float * k_filters[_i].np_float));
  for (size_t i = 0; i < n; i++) {
    ck_assert(in_list(k_filters[_i].variants, kg_variants[c[i].variant].name));
    ck_assert(in_list(k_filters[_i].dtypes, kg_dtype_get(c[i].dtype)->name));
    ck_assert(in_list(k_filters[_i].patterns, kg_pattern_name(c[i].pattern)));
  }
  free(c);
}
END_TEST

/* A dtype a variant does not declare is not planned at all (not planned as
 * "unsupported"): kgate's own neighbored has no f16, and a module's variant
 * that declares i32,f32 is planned at those two only. */
START_TEST(test_plan_undeclared_dtype_not_planned) {
  const size_t sizes[] = {8};
  kg_plan_opts o = {"neighbored,cub_sum", "f16", "uniform", sizes, 1, NULL, 0, 0};
  size_t n;
  kg_case *c = build(&o, &n);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(c[0].variant, kg_variant_find("cub_sum"));
  ck_assert_int_eq(c[0].supported, 1);
  free(c);

  char err[256] = "";
  int mod = kg_registry_add_module("/team/libtwo.so");
  kg_variant_info two = {"team_two", "team", "i32 and f32 only", 0, KG_DT_BIT(KG_I32) | KG_DT_BIT(KG_F32), KG_OP_SUM, 0,
                         mod, 1};
  int v = kg_registry_add(&two, err, sizeof err);
  ck_assert_int_ge(v, 0);
  size_t nsizes;
  kg_sizes_default(&nsizes);
  kg_plan_opts all = {.variants = "team_two"};
  c = build(&all, &n);
  ck_assert_uint_eq(n, nsizes * (2 + 8)); /* i32: exact, wrap; f32: the 8 float patterns */
  for (size_t i = 0; i < n; i++) {
    ck_assert(c[i].dtype == KG_I32 || c[i].dtype == KG_F32);
    ck_assert(c[i].supported);
  }
  free(c);
  kg_plan_opts f64 = {.variants = "team_two", .dtypes = "f64"};
  ck_assert_int_eq(kg_plan_build(&f64, &c, &n, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "leaves no case") && strstr(err, "a dtype no selected variant declares"), "%s", err);
  kg_registry_reset();
}
END_TEST

/* Perf sizes join the size list; only supported cases of the perf pattern at them are timed. */
START_TEST(test_plan_perf_cases) {
  size_t sizes[] = {1, 1000}, perf[] = {1000, 4096};
  kg_plan_opts o = {.sizes = sizes, .nsizes = 2, .perf_sizes = perf, .nperf = 2};
  size_t n, timed = 0, at4096 = 0;
  kg_case *c = build(&o, &n);
  for (size_t i = 0; i < n; i++) {
    at4096 += c[i].n == 4096;
    if (!c[i].timed) continue;
    timed++;
    ck_assert(c[i].n == 1000 || c[i].n == 4096);
    ck_assert_int_eq(c[i].pattern, kg_perf_pattern(c[i].dtype));
    ck_assert(c[i].supported);
  }
  size_t supported_pairs = 0; /* (variant, dtype) pairs that can run */
  for (size_t v = 0; v < kg_nvariants; v++)
    for (int d = 0; d < KG_NDTYPES; d++) supported_pairs += kg_variant_supports((int)v, (kg_dtype)d);
  ck_assert_uint_eq(timed, 2 * supported_pairs);
  ck_assert_uint_gt(at4096, 0);
  ck_assert_int_eq(kg_perf_pattern(KG_I32), KG_PAT_WRAP);
  ck_assert_int_eq(kg_perf_pattern(KG_BF16), KG_PAT_UNIFORM);
  free(c);
}
END_TEST

/* A module's min/max variant is planned like any other: every pattern that
 * applies to the dtype (each has a well-defined, exact min and max), tiny
 * data too (no float-atomic flush in a min or max), and timed on the perf
 * pattern; --variant picks it beside cub_sum. */
START_TEST(test_plan_minmax_variant) {
  char err[256] = "";
  int mod = kg_registry_add_module("/team/libteam.so");
  kg_variant_info mx = {"team_max", "team", "a max", KG_FLOAT_ATOMICS, KG_DT_ALL, KG_OP_MAX, KG_NAN_IGNORE, mod, 1};
  int v = kg_registry_add(&mx, err, sizeof err);
  ck_assert_int_ge(v, 0);
  size_t perf[] = {12345}; /* not an edge size */
  kg_plan_opts o = {.variants = "team_max,cub_sum", .dtypes = "f32,i64", .perf_sizes = perf, .nperf = 1};
  size_t n, nsizes, mine = 0, tiny = 0, timed = 0;
  kg_sizes_default(&nsizes);
  kg_case *c = build(&o, &n);
  for (size_t i = 0; i < n; i++) {
    ck_assert(c[i].variant == v || c[i].variant == kg_variant_find("cub_sum"));
    if (c[i].variant != v) continue;
    mine++;
    ck_assert(c[i].supported);
    tiny += c[i].pattern == KG_PAT_TINY;
    timed += c[i].timed;
  }
  ck_assert_uint_eq(mine, (nsizes + 1) * (8 + 2)); /* f32: 8 patterns, i64: 2; the edge sizes plus 12345 */
  ck_assert_uint_eq(tiny, nsizes + 1);
  ck_assert_uint_eq(timed, 2);
  free(c);
  kg_registry_reset();
}
END_TEST

/* With modules loaded the registry outgrows a 64-bit mask: --variant still
 * selects exactly the named ones. */
START_TEST(test_plan_select_past_64) {
  char err[256] = "", name[32];
  int mod = kg_registry_add_module("/team/libmany.so"), last = -1;
  for (int k = 0; k < 80; k++) {
    snprintf(name, sizeof name, "many_%d", k);
    kg_variant_info vi = {name, "team", "", 0, KG_DT_BIT(KG_I32), KG_OP_SUM, 0, mod, 1};
    last = kg_registry_add(&vi, err, sizeof err);
    ck_assert_int_ge(last, 0);
  }
  ck_assert_int_gt(last, 64);
  size_t sizes[] = {7};
  kg_plan_opts o = {.variants = "many_79", .dtypes = "i32", .sizes = sizes, .nsizes = 1};
  size_t n;
  kg_case *c = build(&o, &n);
  ck_assert_uint_eq(n, 2); /* i32: exact and wrap */
  for (size_t i = 0; i < n; i++) ck_assert_int_eq(c[i].variant, last);
  free(c);
  o.variants = NULL;
  c = build(&o, &n);
  size_t seen = 0;
  for (size_t i = 0; i < n; i++) seen += c[i].variant == last;
  ck_assert_uint_eq(seen, 2);
  free(c);
  kg_registry_reset();
}
END_TEST

static int variant_lookup(const char *name) { return kg_variant_find(name); }

START_TEST(test_plan_select_mask) {
  uint64_t mask = 0;
  char err[128];
  ck_assert_int_eq(kg_plan_select("cub_sum,reduce1_strided,cub_sum", variant_lookup, "variant", &mask, err, sizeof err), 0);
  ck_assert_uint_eq(mask, (1ull << kg_variant_find("cub_sum")) | (1ull << kg_variant_find("reduce1_strided")));
}
END_TEST

static const struct {
  const char *variants, *dtypes, *patterns, *message;
} k_bad[] = {
    {"cub_sum,nope", NULL, NULL, "unknown variant 'nope'"},
    {"", NULL, NULL, "unknown variant ''"},
    {"reduce7_shufle", NULL, NULL, "unknown variant 'reduce7_shufle'; did you mean 'reduce7_shuffle'?"},
    {"cub_sum,zzz*", NULL, NULL, "--variant 'zzz*' matches no variant"},
    {"[", NULL, NULL, "--variant '[' matches no variant"},
    {NULL, "f128", NULL, "unknown dtype 'f128'"},
    {NULL, "i32,", NULL, "unknown dtype ''"},
    {NULL, NULL, "exact,random", "unknown pattern 'random'"},
    {NULL, "i32", "nan", "leaves no case"},
    {NULL, "i64,i32", "uniform,cancel", "leaves no case"},
    {"neighbored", "f16,bf16", NULL, "a dtype no selected variant declares"},
};

/* --variant globs: each selects every real variant whose name it matches,
 * and mixes with names; the plan holds exactly those variants. */
static const struct {
  const char *list;
  const char *const want[8];
} k_globs[] = {
    {"reduce*", {"reduce0_divergent", "reduce1_strided", "reduce2_sequential", "reduce3_first_add",
                 "reduce4_unroll_warp", "reduce5_complete_unroll", "reduce6_grid_stride", "reduce7_shuffle"}},
    {"*shuffle*", {"reduce7_shuffle", "shuffle_atomic"}},
    {"cub_sum,reduce?_strided", {"reduce1_strided", "cub_sum"}},
    {"unrolling[48]", {"unrolling4", "unrolling8"}},
};

START_TEST(test_plan_variant_globs) {
  static const size_t sizes[] = {1};
  kg_plan_opts o = {.variants = k_globs[_i].list, .dtypes = "i32", .patterns = "exact", .sizes = sizes, .nsizes = 1};
  kg_case *c;
  size_t n, nwant = 0;
  char err[256] = "";
  ck_assert_msg(kg_plan_build(&o, &c, &n, err, sizeof err) == 0, "%s", err);
  while (nwant < 8 && k_globs[_i].want[nwant]) nwant++;
  ck_assert_uint_eq(n, nwant);
  for (size_t k = 0; k < nwant; k++) {
    int found = 0;
    for (size_t j = 0; j < n; j++) found |= !strcmp(kg_variants[c[j].variant].name, k_globs[_i].want[k]);
    ck_assert_msg(found, "%s: %s not selected", k_globs[_i].list, k_globs[_i].want[k]);
  }
  free(c);
}
END_TEST

/* The estimate adds 0.1 s a timed case (max_seconds at the cap), 0.5 ms a
 * checked case and 1.5 s of start; an unsupported case costs nothing. */
START_TEST(test_plan_estimate_time) {
  kg_case c[3] = {{0, KG_I32, 1000000, KG_PAT_WRAP, 1, 1}, {1, KG_I32, 1000000, KG_PAT_WRAP, 1, 1},
                  {1, KG_I32, 1000000, KG_PAT_EXACT, 0, 0}};
  kg_plan_estimate e = kg_plan_estimate_time(c, 3, 2);
  ck_assert_double_eq_tol(e.typical_s, 1.5 + 2 * 0.5e-3 + 0.2, 1e-9);
  ck_assert_double_eq_tol(e.cap_s, 1.5 + 2 * 0.5e-3 + 4, 1e-9);
}
END_TEST

START_TEST(test_plan_rejects) {
  kg_plan_opts o = {k_bad[_i].variants, k_bad[_i].dtypes, k_bad[_i].patterns, NULL, 0, NULL, 0, 0};
  kg_case *c = (kg_case *)&o;
  size_t n = 99;
  char err[256] = "";
  ck_assert_int_eq(kg_plan_build(&o, &c, &n, err, sizeof err), -1);
  ck_assert_ptr_null(c);
  ck_assert_uint_eq(n, 0);
  ck_assert_msg(strstr(err, k_bad[_i].message) != NULL, "message '%s' lacks \"%s\"", err, k_bad[_i].message);
}
END_TEST

START_TEST(test_plan_rejects_empty_sizes) {
  const size_t sizes[] = {1};
  kg_plan_opts o = {.sizes = sizes, .nsizes = 0};
  kg_case *c;
  size_t n;
  char err[256] = "";
  ck_assert_int_eq(kg_plan_build(&o, &c, &n, err, sizeof err), -1);
  ck_assert_uint_gt(strlen(err), 0);
}
END_TEST

/* --shard i/N: every case in exactly one shard, in plan order, whole input
 * groups, the same split every time. */
START_TEST(test_plan_shard_partition) {
  kg_plan_opts o = {0};
  size_t n;
  kg_case *all = build(&o, &n);
  size_t *group = malloc(n * sizeof *group), ngroups = kg_plan_groups(all, n, group);
  ck_assert_uint_gt(ngroups, 100);
  for (unsigned nshards = 1; nshards <= 5; nshards++) {
    size_t covered = 0, pos[6] = {0}, len[6] = {0};
    kg_case *sh[6];
    for (unsigned i = 1; i <= nshards; i++) {
      sh[i] = malloc(n * sizeof *all);
      memcpy(sh[i], all, n * sizeof *all);
      len[i] = kg_plan_shard(sh[i], n, i, nshards);
      kg_case *again = malloc(n * sizeof *all);
      memcpy(again, all, n * sizeof *all);
      ck_assert_uint_eq(kg_plan_shard(again, n, i, nshards), len[i]); /* deterministic */
      ck_assert(memcmp(again, sh[i], len[i] * sizeof *all) == 0);
      free(again);
      ck_assert_uint_gt(len[i], 0);
      covered += len[i];
    }
    ck_assert_uint_eq(covered, n);
    /* Walking the plan, each case is the next one of exactly its group's shard. */
    for (size_t k = 0; k < n; k++) {
      unsigned want = (unsigned)(group[k] % nshards) + 1;
      ck_assert_uint_lt(pos[want], len[want]);
      ck_assert(memcmp(&sh[want][pos[want]], &all[k], sizeof *all) == 0);
      pos[want]++;
    }
    for (unsigned i = 1; i <= nshards; i++) {
      ck_assert_uint_eq(pos[i], len[i]);
      free(sh[i]);
    }
  }
  free(group);
  free(all);
}
END_TEST

START_TEST(test_plan_shard_parse) {
  unsigned i = 0, n = 0;
  ck_assert_int_eq(kg_shard_parse("2/3", &i, &n), 0);
  ck_assert(i == 2 && n == 3);
  ck_assert_int_eq(kg_shard_parse("1/1", &i, &n), 0);
  const char *bad[] = {"0/2", "3/2", "1/0", "1", "1/", "/2", "a/b", "1/2x", "-1/2", "1/4097", " 1/2", ""};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    ck_assert_msg(kg_shard_parse(bad[k], &i, &n) == -1, "'%s' accepted", bad[k]);
}
END_TEST

/* The gate's size policy: the sanitizer's short sizes and one pattern, the
 * default perf sizes of a timing run, and the huge tier added last. */
START_TEST(test_plan_policy_defaults) {
  size_t *owned, nsan;
  const size_t *san = kg_san_default_sizes(&nsan);
  kg_plan_opts o = {0};
  ck_assert_int_eq(kg_plan_policy(&o, 1, 0, 0, &owned), 0);
  ck_assert(o.sizes == san && o.nsizes == nsan && !strcmp(o.patterns, "exact") && !o.perf_sizes && !owned);
  kg_plan_opts r = {.patterns = "wrap"};
  ck_assert_int_eq(kg_plan_policy(&r, 0, 1, 0, &owned), 0);
  ck_assert(!r.sizes && !strcmp(r.patterns, "wrap") && r.nperf == 2);
  ck_assert(r.perf_sizes[0] == (size_t)1 << 22 && r.perf_sizes[1] == (size_t)1 << 25);
  const size_t mine[] = {7};
  kg_plan_opts c = {.sizes = mine, .nsizes = 1, .perf_sizes = mine, .nperf = 1};
  ck_assert_int_eq(kg_plan_policy(&c, 1, 0, 0, &owned), 0); /* given sizes stay; check times nothing */
  ck_assert(c.sizes == mine && !c.perf_sizes && c.nperf == 0);
}
END_TEST

START_TEST(test_plan_policy_huge_tier) {
  size_t *owned, ndef;
  const size_t *def = kg_sizes_default(&ndef);
  kg_plan_opts o = {0};
  ck_assert_int_eq(kg_plan_policy(&o, 0, 0, 1, &owned), 0);
  ck_assert(owned && o.sizes == owned && o.nsizes == ndef + 2);
  ck_assert(!memcmp(owned, def, ndef * sizeof *def));
  ck_assert(owned[ndef] == ((size_t)1 << 31) + 1 && owned[ndef + 1] == ((size_t)1 << 32) + 3);
  free(owned);
}
END_TEST

Suite *make_plan_suite(void) {
  Suite *s = suite_create("plan");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_plan_policy_defaults);
  tcase_add_test(core, test_plan_policy_huge_tier);
  tcase_add_test(core, test_plan_default_count);
  tcase_add_test(core, test_plan_order);
  tcase_add_loop_test(core, test_plan_filters, 0, sizeof k_filters / sizeof k_filters[0]);
  tcase_add_test(core, test_plan_undeclared_dtype_not_planned);
  tcase_add_test(core, test_plan_select_mask);
  tcase_add_test(core, test_plan_perf_cases);
  tcase_add_test(core, test_plan_shard_partition);
  tcase_add_test(core, test_plan_shard_parse);
  tcase_add_test(core, test_plan_minmax_variant);
  tcase_add_test(core, test_plan_select_past_64);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("Errors");
  tcase_add_loop_test(errors, test_plan_rejects, 0, sizeof k_bad / sizeof k_bad[0]);
  tcase_add_test(core, test_plan_estimate_time);
  tcase_add_loop_test(errors, test_plan_variant_globs, 0, sizeof k_globs / sizeof k_globs[0]);
  tcase_add_test(errors, test_plan_rejects_empty_sizes);
  suite_add_tcase(s, errors);
  return s;
}
