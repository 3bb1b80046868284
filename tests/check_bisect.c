/* bisect: the search over a planted range (bisect.h). A fake repository
 * stands in for the builds, the fingerprints and the paired runs: each
 * commit has a fingerprint, a build that may fail, and a true effect (its
 * module's log time); a paired run of two modules gives the difference of
 * their effects over six cells, with a standard error that may start wide. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"

enum { MAXC = 64, CELLS = 6 };

typedef struct fake {
  size_t n;
  char fp[MAXC];      /* a letter per commit: its fingerprint */
  int fails[MAXC];    /* its build fails */
  double eff[MAXC];   /* its module's true log time */
  double end_eff[2];  /* the given ends' modules (opts.ends: "e0", "e1") */
  double se;          /* each cell's standard error (0.0005 unless set) */
  int wide_from, wide; /* paired runs wide_from+1 .. wide_from+wide give a wide error (undecided) */
  int flat_h, flat_b; /* head flat_h against base flat_b measures no change (a culprit that does not verify) */
  int env_at;         /* the env_at-th paired run cannot run (0: none) */
  /* what the search asked */
  int builds, nruns;
  int run_h[256], run_b[256];
} fake;

static int idx(const char *module, const fake *f, double *eff) {
  if (module[0] == 'e') return *eff = f->end_eff[module[1] - '0'], -1 - (module[1] - '0');
  int i = atoi(module + 1);
  *eff = f->eff[i];
  return i;
}

static int f_build(void *ctx, size_t i, char *module, size_t len, char *why, size_t wlen) {
  fake *f = ctx;
  f->builds++;
  if (f->fails[i]) return snprintf(why, wlen, "planted failure"), 1;
  snprintf(module, len, "m%zu", i);
  return 0;
}

static int f_fp(void *ctx, const char *module, char hex[65], char *why, size_t wlen) {
  fake *f = ctx;
  (void)why, (void)wlen;
  memset(hex, f->fp[atoi(module + 1)], 64);
  hex[64] = '\0';
  return 0;
}

static int f_measure(void *ctx, const char *head, const char *base, kg_bisect_pool *pool, char *why, size_t wlen) {
  fake *f = ctx;
  double eh, eb;
  int h = idx(head, f, &eh), b = idx(base, f, &eb);
  if (f->nruns < 256) f->run_h[f->nruns] = h, f->run_b[f->nruns] = b;
  f->nruns++;
  if (f->env_at && f->nruns == f->env_at) return snprintf(why, wlen, "the planted paired run failed"), -1;
  double m = h == f->flat_h && b == f->flat_b ? 0 : eh - eb, se = f->se > 0 ? f->se : 0.0005;
  if (f->nruns > f->wide_from && f->nruns <= f->wide_from + f->wide) se = 0.05;
  for (int c = 0; c < CELLS; c++) kg_bisect_pool_add(pool, m, se, 7);
  return 0;
}

/* n commits, fingerprints from fps (a letter each), the step of size 0.005 at commit step. */
static void plant(fake *f, size_t n, const char *fps, size_t step) {
  memset(f, 0, sizeof *f);
  f->n = n, f->flat_h = f->flat_b = -100;
  for (size_t i = 0; i < n; i++) f->fp[i] = fps ? fps[i] : (char)('A' + i % 26 + (i >= 26)), f->eff[i] = i >= step ? 0.005 : 0;
}

static kg_bisect_outcome run(fake *f, int max_rounds, double estimate, kg_bisect_result *r) {
  kg_bisect_ops ops = {f, f_build, f_fp, f_measure};
  kg_bisect_opts o = {estimate, 0.99, max_rounds, {NULL, NULL}, NULL, NULL};
  return kg_bisect_run(f->n, &ops, &o, r);
}

/* 32 commits: a comment-only change and unrelated commits keep the
 * fingerprint; another variant's code (commit 10) and the slowdown (20)
 * change it. Three groups, one step (its middle, commit 10, is good), the
 * culprit 20 verified against 19. */
START_TEST(test_bisect_collapse_and_found) {
  fake f;
  plant(&f, 32, "AAAAAAAAAABBBBBBBBBBCCCCCCCCCCCC", 20);
  kg_bisect_result r;
  ck_assert_int_eq(run(&f, 4, 0.005, &r), KG_BISECT_FOUND);
  ck_assert_uint_eq(r.ngroups, 3);
  ck_assert_uint_eq(r.built, 32);
  ck_assert_uint_eq(r.identical, 29);
  ck_assert_uint_eq(r.culprit, 20);
  ck_assert_uint_eq(r.parent, 19);
  ck_assert_uint_eq(r.nsteps, 1);
  ck_assert_uint_eq(r.steps[0].mid, 10);
  ck_assert_int_eq(r.steps[0].verdict, 0);
  /* reproduce (31 vs 0), the step (10 vs 0, 20 vs 10), the sandwich (20 vs 19) */
  int want_h[] = {31, 10, 20, 20}, want_b[] = {0, 0, 10, 19};
  ck_assert_int_eq(f.nruns, 4);
  for (int k = 0; k < 4; k++) {
    ck_assert_int_eq(f.run_h[k], want_h[k]);
    ck_assert_int_eq(f.run_b[k], want_b[k]);
  }
  ck_assert_double_eq_tol(r.verify.m, 0.005, 1e-12);
  ck_assert(r.verify.lo > 0.0025);
  ck_assert_int_eq(r.verify.cells, CELLS);
  ck_assert(strstr(r.why, "found") != NULL);
  kg_bisect_result_free(&r);
}
END_TEST

/* Every commit distinct: the middles are the groups' midpoints, and the
 * step's side decides the next half. */
START_TEST(test_bisect_midpoints) {
  fake f;
  plant(&f, 32, NULL, 23);
  kg_bisect_result r;
  ck_assert_int_eq(run(&f, 4, 0.005, &r), KG_BISECT_FOUND);
  size_t want[] = {15, 23, 19, 21, 22};
  int verdict[] = {0, 1, 0, 0, 0};
  ck_assert_uint_eq(r.nsteps, 5);
  for (size_t s = 0; s < 5; s++) {
    ck_assert_uint_eq(r.steps[s].mid, want[s]);
    ck_assert_int_eq(r.steps[s].verdict, verdict[s]);
  }
  ck_assert_uint_eq(r.culprit, 23);
  ck_assert_uint_eq(r.ngroups, 32);
  ck_assert_uint_eq(r.identical, 0);
  kg_bisect_result_free(&r);
}
END_TEST

/* One commit (both nights built it): without the nights' own modules there
 * is nothing to pair; with them, a step that reproduces is outside the module. */
START_TEST(test_bisect_one_commit) {
  fake f;
  plant(&f, 1, "A", 1000);
  kg_bisect_result r;
  ck_assert_int_eq(run(&f, 4, 0.005, &r), KG_BISECT_BAD_INPUT);
  ck_assert_int_eq(f.nruns, 0);
  kg_bisect_result_free(&r);
  f.end_eff[0] = 0, f.end_eff[1] = 0.005;
  kg_bisect_ops ops = {&f, f_build, f_fp, f_measure};
  kg_bisect_opts o = {0.005, 0.99, 4, {"e0", "e1"}, NULL, NULL};
  ck_assert_int_eq(kg_bisect_run(1, &ops, &o, &r), KG_BISECT_OUTSIDE);
  ck_assert_int_eq(f.run_h[0], -2);
  ck_assert_int_eq(f.run_b[0], -1);
  kg_bisect_result_free(&r);
}
END_TEST

/* A build that fails is skipped (git bisect run's 125): away from the step
 * the culprit still stands; just before it, the step may be at either. */
START_TEST(test_bisect_skip_failed_build) {
  fake f;
  plant(&f, 32, NULL, 20);
  f.fails[7] = 1;
  kg_bisect_result r;
  ck_assert_int_eq(run(&f, 4, 0.005, &r), KG_BISECT_FOUND);
  ck_assert_uint_eq(r.culprit, 20);
  ck_assert_uint_eq(r.skipped, 1);
  ck_assert_int_eq(r.failed[7], 1);
  ck_assert_int_eq(r.group[7], -1);
  for (int k = 0; k < f.nruns; k++) ck_assert_int_ne(f.run_h[k], 7);
  kg_bisect_result_free(&r);

  plant(&f, 32, NULL, 20);
  f.fails[19] = 1;
  ck_assert_int_eq(run(&f, 4, 0.005, &r), KG_BISECT_UNDECIDED);
  ck_assert_uint_eq(r.culprit, 20);
  ck_assert_uint_eq(r.parent, 18);
  ck_assert_uint_eq(r.first_cand, 19);
  ck_assert_uint_eq(r.last_cand, 20);
  ck_assert(strstr(r.why, "whose build failed") != NULL);
  kg_bisect_result_free(&r);
}
END_TEST

/* An end that does not build is bad input: nothing is paired. */
START_TEST(test_bisect_end_does_not_build) {
  fake f;
  plant(&f, 8, NULL, 4);
  f.fails[0] = 1;
  kg_bisect_result r;
  ck_assert_int_eq(run(&f, 4, 0.005, &r), KG_BISECT_BAD_INPUT);
  ck_assert_int_eq(f.nruns, 0);
  ck_assert(strstr(r.why, "last good commit does not build") != NULL);
  kg_bisect_result_free(&r);
}
END_TEST

/* No step between the ends (the finding came from the environment or the
 * toolchain): stop after the reproduction, exit 4, nothing else built. */
START_TEST(test_bisect_not_reproduced) {
  fake f;
  plant(&f, 32, NULL, 1000);
  kg_bisect_result r;
  ck_assert_int_eq(run(&f, 4, 0.005, &r), KG_BISECT_NOT_REPRODUCED);
  ck_assert_int_eq(f.builds, 2);
  ck_assert_int_eq(f.nruns, 1);
  ck_assert_str_eq(r.why, "not reproduced: the environment or the toolchain");
  kg_bisect_result_free(&r);
  /* a step, but under half the estimate: not the finding's */
  plant(&f, 32, NULL, 20);
  ck_assert_int_eq(run(&f, 4, 0.02, &r), KG_BISECT_NOT_REPRODUCED);
  kg_bisect_result_free(&r);
  /* no estimate: the reproduction's own, which must stand clear of zero */
  plant(&f, 32, NULL, 20);
  ck_assert_int_eq(run(&f, 4, 0, &r), KG_BISECT_FOUND);
  ck_assert_double_eq_tol(r.estimate, 0.005, 1e-12);
  kg_bisect_result_free(&r);
}
END_TEST

/* The nights' own modules differ (built by another toolchain), every
 * commit of the range builds the same code here: outside the module. */
START_TEST(test_bisect_outside_module) {
  fake f;
  plant(&f, 32, "QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ", 1000);
  f.end_eff[0] = 0, f.end_eff[1] = 0.005;
  kg_bisect_ops ops = {&f, f_build, f_fp, f_measure};
  kg_bisect_opts o = {0.005, 0.99, 4, {"e0", "e1"}, NULL, NULL};
  kg_bisect_result r;
  ck_assert_int_eq(kg_bisect_run(f.n, &ops, &o, &r), KG_BISECT_OUTSIDE);
  ck_assert_int_eq(f.run_h[0], -2);
  ck_assert_int_eq(f.run_b[0], -1);
  ck_assert_int_eq(f.nruns, 1);
  ck_assert_uint_eq(r.ngroups, 1);
  ck_assert_uint_eq(r.identical, 31);
  ck_assert(strstr(r.why, "outside the module") != NULL);
  kg_bisect_result_free(&r);
}
END_TEST

/* A step whose first runs are too noisy to say: rounds are added while
 * undecided, and only then; when they run out, undecided (exit 1). */
START_TEST(test_bisect_rounds_while_undecided) {
  fake f;
  kg_bisect_result r;
  plant(&f, 16, "AAAAAAAABBBBCCCC", 12);
  ck_assert_int_eq(run(&f, 4, 0.005, &r), KG_BISECT_FOUND);
  ck_assert_int_eq(r.steps[0].left.runs, 1); /* decided at once: no extra round */
  ck_assert_int_eq(f.nruns, 4);
  kg_bisect_result_free(&r);

  plant(&f, 16, "AAAAAAAABBBBCCCC", 12);
  f.wide_from = 1, f.wide = 4; /* the step's first two rounds (runs 2-5) are wide */
  ck_assert_int_eq(run(&f, 4, 0.005, &r), KG_BISECT_FOUND);
  ck_assert_int_eq(r.steps[0].left.runs, 3);
  ck_assert_int_eq(r.steps[0].right.runs, 3);
  ck_assert_int_eq(r.steps[0].verdict, 0);
  ck_assert_uint_eq(r.culprit, 12);
  kg_bisect_result_free(&r);

  plant(&f, 16, "AAAAAAAABBBBCCCC", 12);
  f.wide_from = 1, f.wide = 4;
  ck_assert_int_eq(run(&f, 2, 0.005, &r), KG_BISECT_UNDECIDED);
  ck_assert_int_eq(r.steps[0].verdict, -1);
  ck_assert_int_eq(f.nruns, 5); /* no sandwich */
  ck_assert_uint_eq(r.first_cand, 1);
  ck_assert_uint_eq(r.last_cand, 12);
  kg_bisect_result_free(&r);
}
END_TEST

/* The culprit that does not verify against its parent (the sandwich) is undecided. */
START_TEST(test_bisect_sandwich) {
  fake f;
  plant(&f, 16, "AAAAAAAABBBBBBBB", 8);
  f.flat_h = 8, f.flat_b = 7;
  kg_bisect_result r;
  ck_assert_int_eq(run(&f, 3, 0.005, &r), KG_BISECT_UNDECIDED);
  ck_assert_int_eq(r.verify.runs, 1); /* wholly below half the step at once: no more rounds */
  ck_assert(r.verify.hi < 0.0025);
  ck_assert(strstr(r.why, "did not verify") != NULL);
  kg_bisect_result_free(&r);
}
END_TEST

/* A paired run that cannot run stops the search: environment, exit 3. */
START_TEST(test_bisect_environment) {
  fake f;
  plant(&f, 16, NULL, 8);
  f.env_at = 2;
  kg_bisect_result r;
  ck_assert_int_eq(run(&f, 3, 0.005, &r), KG_BISECT_ENV);
  ck_assert_str_eq(r.why, "the planted paired run failed");
  kg_bisect_result_free(&r);
}
END_TEST

/* Each outcome's exit code and name (README: exit codes; docs/bisect.md). */
static const struct {
  kg_bisect_outcome o;
  int code;
  const char *name;
} k_exits[] = {{KG_BISECT_FOUND, 0, "found"},          {KG_BISECT_OUTSIDE, 0, "outside"},
               {KG_BISECT_NOT_REPRODUCED, 4, "not-reproduced"}, {KG_BISECT_UNDECIDED, 1, "undecided"},
               {KG_BISECT_BAD_INPUT, 2, "bad-input"},   {KG_BISECT_ENV, 3, "environment"}};

START_TEST(test_bisect_exit_codes) {
  ck_assert_int_eq(kg_bisect_exit(k_exits[_i].o), k_exits[_i].code);
  ck_assert_str_eq(kg_bisect_outcome_name(k_exits[_i].o), k_exits[_i].name);
}
END_TEST

/* Pooling: inverse-variance weights, Student t on the summed degrees of freedom. */
START_TEST(test_bisect_pool) {
  kg_bisect_pool p = {0};
  double m, lo, hi;
  ck_assert_int_eq(kg_bisect_pool_get(&p, 0.99, &m, &lo, &hi), -1);
  kg_bisect_pool_add(&p, 0.01, 0.001, 5);
  kg_bisect_pool_add(&p, 0.04, 0.002, 5);
  ck_assert_int_eq(kg_bisect_pool_get(&p, 0.99, &m, &lo, &hi), 0);
  double w1 = 1e6, w2 = 0.25e6, se = 1 / sqrt(w1 + w2);
  ck_assert_double_eq_tol(m, (w1 * 0.01 + w2 * 0.04) / (w1 + w2), 1e-12);
  ck_assert_double_eq_tol(hi - m, 3.169273 * se, 1e-6); /* t(0.99, 10) */
  kg_bisect_pool u = {0};
  kg_bisect_pool_add(&u, 0, 0, 0); /* proven unchanged */
  ck_assert_int_eq(kg_bisect_pool_get(&u, 0.99, &m, &lo, &hi), 0);
  ck_assert(m == 0 && lo == 0 && hi == 0);
}
END_TEST

Suite *make_bisect_suite(void) {
  Suite *s = suite_create("bisect");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_bisect_collapse_and_found);
  tcase_add_test(core, test_bisect_midpoints);
  tcase_add_test(core, test_bisect_skip_failed_build);
  tcase_add_test(core, test_bisect_one_commit);
  tcase_add_test(core, test_bisect_end_does_not_build);
  tcase_add_test(core, test_bisect_not_reproduced);
  tcase_add_test(core, test_bisect_outside_module);
  tcase_add_test(core, test_bisect_rounds_while_undecided);
  tcase_add_test(core, test_bisect_sandwich);
  tcase_add_test(core, test_bisect_environment);
  tcase_add_test(core, test_bisect_pool);
  tcase_add_loop_test(core, test_bisect_exit_codes, 0, sizeof k_exits / sizeof *k_exits);
  suite_add_tcase(s, core);
  return s;
}
