/* kgate bisect's search (bisect.h). */
#include "bisect.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "label.h"
#include "paired.h"

void kg_bisect_pool_add(kg_bisect_pool *p, double m, double se, int df) {
  p->cells++;
  if (se <= 0 || df <= 0) { /* proven unchanged: no weight, but it counts as a cell that did not move */
    p->exact++;
    return;
  }
  double w = 1 / (se * se);
  p->sw += w, p->swm += w * m, p->df += df;
}

/* The pooled estimate, its standard error and degrees of freedom; -1 when empty. */
static int pool_est(const kg_bisect_pool *p, double *m, double *se, int *df) {
  if (!p->cells) return -1;
  if (p->sw <= 0) return *m = 0, *se = 0, *df = 0, 0; /* every cell unchanged */
  *m = p->swm / p->sw, *se = 1 / sqrt(p->sw), *df = p->df;
  return 0;
}

static double t_of(double confidence, int df) { return df > 0 ? kg_student_t(confidence, df) : 0; }

int kg_bisect_pool_get(const kg_bisect_pool *p, double confidence, double *m, double *lo, double *hi) {
  double se;
  int df;
  if (pool_est(p, m, &se, &df)) return -1;
  double t = t_of(confidence, df);
  *lo = *m - t * se, *hi = *m + t * se;
  return 0;
}

const char *kg_bisect_outcome_name(kg_bisect_outcome o) {
  static const char *const k_names[] = {"found", "outside", "not-reproduced", "undecided", "bad-input", "environment"};
  return (unsigned)o < sizeof k_names / sizeof *k_names ? k_names[o] : "?";
}

int kg_bisect_exit(kg_bisect_outcome o) {
  static const int k_codes[] = {0, 0, 4, 1, 2, 3};
  return (unsigned)o < sizeof k_codes / sizeof *k_codes ? k_codes[o] : 3;
}

typedef struct search {
  const kg_bisect_ops *ops;
  const kg_bisect_opts *o;
  kg_bisect_result *r;
  char (*mod)[1024]; /* per commit: its module ("" not built yet) */
} search;

/* The module of commit i; for the reproduction (end 0 the good, 1 the bad), the given end's when there is one. */
static const char *module_of(const search *s, size_t i, int end) {
  return end >= 0 && s->o->ends[end] ? s->o->ends[end] : s->mod[i];
}

static void say(const search *s, const char *fmt, ...) {
  if (!s->o->log) return;
  char line[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  s->o->log(s->o->log_ctx, line);
}

/* Builds commit i once: 0 built, 1 failed (skipped), -1 environment. */
static int build(search *s, size_t i) {
  kg_bisect_result *r = s->r;
  if (s->mod[i][0]) return 0;
  if (r->failed[i]) return 1;
  char why[400] = "";
  double t0 = kg_now_s();
  int rc = s->ops->build(s->ops->ctx, i, s->mod[i], sizeof s->mod[i], why, sizeof why);
  r->build_s += kg_now_s() - t0;
  if (rc == 0) r->built++;
  if (rc == 1) r->failed[i] = 1, r->skipped++, say(s, "commit %zu: the build failed, skipped: %s", i, why);
  if (rc < 0) snprintf(r->why, sizeof r->why, "%s", why);
  if (rc) s->mod[i][0] = '\0';
  return rc;
}

/* One more paired run of head i against base j into pool and e. 0 or -1 (r->why). */
static int measure_as(search *s, size_t i, size_t j, int reproduce, kg_bisect_pool *pool, kg_bisect_effect *e) {
  kg_bisect_result *r = s->r;
  double t0 = kg_now_s();
  int rc = s->ops->measure(s->ops->ctx, module_of(s, i, reproduce ? 1 : -1), module_of(s, j, reproduce ? 0 : -1), pool,
                           r->why, sizeof r->why);
  r->measure_s += kg_now_s() - t0;
  if (rc) return -1;
  e->runs++;
  e->cells = pool->cells;
  if (kg_bisect_pool_get(pool, s->o->confidence, &e->m, &e->lo, &e->hi))
    return snprintf(r->why, sizeof r->why, "the paired run of commit %zu against %zu measured no cell", i, j), -1;
  return 0;
}

static int measure(search *s, size_t i, size_t j, kg_bisect_pool *pool, kg_bisect_effect *e) {
  return measure_as(s, i, j, 0, pool, e);
}

/* Head i against base j until the effect's interval lies wholly above or
 * below half the estimate, max_rounds at most: 1 above, 0 below, 2 neither,
 * -1 environment. */
static int sandwich(search *s, size_t i, size_t j, kg_bisect_effect *e) {
  kg_bisect_pool pool = {0};
  double half = s->r->estimate / 2;
  for (int k = 0; k < s->o->max_rounds; k++) {
    if (measure(s, i, j, &pool, e)) return -1;
    if (e->lo > half) return 1;
    if (e->hi < half) return 0;
  }
  return 2;
}

/* The middle commit against both ends, rounds added while undecided. */
static int step(search *s, kg_bisect_step *st) {
  kg_bisect_pool left = {0}, right = {0};
  for (int k = 0; k < s->o->max_rounds; k++) {
    if (measure(s, st->mid, st->good, &left, &st->left) || measure(s, st->bad, st->mid, &right, &st->right)) return -1;
    double ml = 0, sl = 0, mr = 0, sr = 0; /* both pools hold the runs just measured */
    int dl = 0, dr = 0;
    pool_est(&left, &ml, &sl, &dl), pool_est(&right, &mr, &sr, &dr);
    double se = sqrt(sl * sl + sr * sr), t = t_of(s->o->confidence, dl + dr);
    st->d = ml - mr, st->d_lo = st->d - t * se, st->d_hi = st->d + t * se;
    st->verdict = st->d_lo > 0 ? 1 : st->d_hi < 0 ? 0 : -1;
    say(s, "step: commit %zu against %zu and %zu: %+.3f %% and %+.3f %% (%d run%s): %s", st->mid, st->good, st->bad,
        100 * expm1(ml), 100 * expm1(mr), k + 1, k ? "s" : "",
        st->verdict == 1 ? "bad" : st->verdict == 0 ? "good" : "undecided");
    if (st->verdict >= 0) return 0;
  }
  return 0;
}

static kg_bisect_outcome finish(search *s, kg_bisect_outcome o, double t0, const char *fmt, ...) {
  kg_bisect_result *r = s->r;
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
  }
  r->wall_s = kg_now_s() - t0;
  free(s->mod);
  return r->outcome = o;
}

/* Builds and fingerprints every commit; groups the runs of equal fingerprints. */
static int fingerprint_all(search *s, size_t *first, size_t *ng) {
  kg_bisect_result *r = s->r;
  const char *last = NULL;
  *ng = 0;
  for (size_t i = 0; i < r->n; i++) {
    int rc = build(s, i);
    if (rc < 0) return -1;
    r->group[i] = -1;
    if (rc) continue;
    if (s->ops->fingerprint(s->ops->ctx, s->mod[i], r->fp[i], r->why, sizeof r->why)) return -1;
    if (last && !strcmp(last, r->fp[i])) {
      r->identical++;
    } else {
      first[(*ng)++] = i;
      say(s, "commit %zu: fingerprint %.12s: new", i, r->fp[i]);
    }
    r->group[i] = (int)*ng - 1;
    last = r->fp[i];
  }
  r->ngroups = *ng;
  return 0;
}

/* 1. The ends built and the step between them reproduced. 0 to go on; else
 * 1 with *out and *fmt (or -1: the environment, *out as it was). */
static int ends(search *s, size_t n, kg_bisect_outcome *out, const char **fmt) {
  kg_bisect_result *r = s->r;
  for (size_t e = 0; e < 2; e++) {
    int rc = build(s, e ? n - 1 : 0);
    if (rc < 0) return -1;
    if (rc) {
      *out = KG_BISECT_BAD_INPUT;
      *fmt = e ? "the last bad commit does not build" : "the last good commit does not build";
      return 1;
    }
  }
  kg_bisect_pool rp = {0};
  if (measure_as(s, n - 1, 0, 1, &rp, &r->reproduce)) return -1;
  r->estimate = s->o->estimate > 0 ? s->o->estimate : r->reproduce.m;
  say(s, "reproduce: %+.3f %% [%+.3f, %+.3f] against an estimate of %+.3f %%", 100 * expm1(r->reproduce.m),
      100 * expm1(r->reproduce.lo), 100 * expm1(r->reproduce.hi), 100 * expm1(r->estimate));
  if (r->estimate <= 0 || r->reproduce.lo < r->estimate / 2) {
    *out = KG_BISECT_NOT_REPRODUCED;
    *fmt = "not reproduced: the environment or the toolchain";
    return 1;
  }
  return 0;
}

/* 3. The groups, halved until the step lies between two neighbours; *hi the
 * later one. 0 to go on; else 1 with *out and *fmt, or -1 (the environment). */
static int groups(search *s, const size_t *first, size_t ng, size_t *hi, kg_bisect_outcome *out, const char **fmt) {
  kg_bisect_result *r = s->r;
  size_t lo = 0;
  *hi = ng - 1;
  while (*hi - lo > 1) {
    kg_bisect_step *st = &r->steps[r->nsteps++];
    size_t mid = lo + (*hi - lo) / 2;
    *st = (kg_bisect_step){.good = first[lo], .mid = first[mid], .bad = first[*hi], .verdict = -1};
    if (step(s, st)) return -1;
    if (st->verdict < 0) {
      r->parent = first[lo], r->culprit = first[*hi];
      r->first_cand = first[lo] + 1, r->last_cand = first[*hi];
      *out = KG_BISECT_UNDECIDED;
      *fmt = "undecided: the rounds ran out before the middle commit's side was clear";
      return 1;
    }
    if (st->verdict) *hi = mid;
    else lo = mid;
  }
  return 0;
}

kg_bisect_outcome kg_bisect_run(size_t n, const kg_bisect_ops *ops, const kg_bisect_opts *o, kg_bisect_result *r) {
  memset(r, 0, sizeof *r);
  double t0 = kg_now_s();
  search s = {ops, o, r, calloc(n + 1, sizeof *s.mod)};
  r->n = n;
  r->failed = calloc(n + 1, sizeof *r->failed), r->group = calloc(n + 1, sizeof *r->group);
  r->fp = calloc(n + 1, sizeof *r->fp), r->steps = calloc(n + 1, sizeof *r->steps);
  size_t *first = calloc(n + 1, sizeof *first);
  if (!s.mod || !r->failed || !r->group || !r->fp || !r->steps || !first) {
    free(first);
    kg_bisect_result_free(r);
    return finish(&s, KG_BISECT_ENV, t0, "out of memory");
  }
  kg_bisect_outcome out = KG_BISECT_ENV;
  const char *fmt = NULL;
  if (n == 1 && !(o->ends[0] && o->ends[1])) { /* the nights were one commit: only their own modules can differ */
    out = KG_BISECT_BAD_INPUT;
    fmt = "the range is one commit: nothing to bisect (give the nights' own modules to reproduce the step)";
    goto done;
  }
  /* 1. the ends, and the step between them */
  int stop = ends(&s, n, &out, &fmt);
  if (stop) goto done;
  /* 2. fingerprints */
  size_t ng;
  if (fingerprint_all(&s, first, &ng)) goto done;
  if (ng == 1) {
    out = KG_BISECT_OUTSIDE;
    fmt = "every commit of the range builds the same machine code: the cause is outside the module";
    goto done;
  }
  /* 3. the groups: the step is after group lo's commits and at or before group hi's first */
  size_t hi;
  if (groups(&s, first, ng, &hi, &out, &fmt)) goto done;
  size_t cb = first[hi], parent = cb - 1;
  while (r->failed[parent]) parent--; /* commit 0 built */
  r->culprit = cb, r->parent = parent, r->first_cand = parent + 1, r->last_cand = cb;
  if (parent + 1 < cb) {
    out = KG_BISECT_UNDECIDED;
    fmt = "undecided: the step is at this commit or at one before it whose build failed";
    goto done;
  }
  /* 4. the sandwich */
  int v = sandwich(&s, cb, parent, &r->verify);
  if (v < 0) goto done;
  out = v == 1 ? KG_BISECT_FOUND : KG_BISECT_UNDECIDED;
  fmt = v == 1 ? "found: the culprit is slower than its parent by the step" :
                 "undecided: the culprit did not verify against its parent";
done:
  free(first);
  return finish(&s, out, t0, fmt);
}

void kg_bisect_result_free(kg_bisect_result *r) {
  free(r->failed), free(r->group), free(r->fp), free(r->steps);
  r->failed = r->group = NULL, r->fp = NULL, r->steps = NULL;
}
