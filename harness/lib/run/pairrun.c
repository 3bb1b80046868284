/* The paired gate's rounds (pairrun.h). */
#include "pairrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "label.h"
#include "registry.h"
#include "stats.h"


static void cell_init(kg_pair_cell *c, const char *name, kg_dtype dt, size_t n, kg_pverdict v) {
  memset(c, 0, sizeof *c);
  snprintf(c->variant, sizeof c->variant, "%s", name);
  c->dtype = dt;
  c->n = n;
  c->stat.verdict = v;
  c->stat.ratio = c->stat.lo = c->stat.hi = 1;
}

int kg_pair_in_base(const kg_modinfo *base, int variant, kg_dtype dt) {
  int b = kg_modinfo_find(base, kg_variants[variant].name);
  return b >= 0 && (base->v[b].dtypes & KG_DT_BIT(dt)) != 0;
}

int kg_pair_plan(const kg_run *run, const kg_modinfo *base, int all_variants, kg_pair_cell **cells,
                 size_t *ncells, kg_pair_job **jobs, size_t *njobs) {
  /* The timed (dtype, n) pairs, each once: a MISSING variant gets a cell at each of its dtype's. */
  kg_case *sizes = calloc(run->n + 1, sizeof *sizes);
  size_t nsizes = 0;
  for (size_t i = 0; sizes && i < run->n; i++) {
    const kg_case *k = &run->cases[i];
    int seen = !k->timed;
    for (size_t e = 0; !seen && e < nsizes; e++) seen = sizes[e].dtype == k->dtype && sizes[e].n == k->n;
    if (!seen) sizes[nsizes++] = *k;
  }
  size_t cap = run->n + (all_variants ? base->n * nsizes : 0) + 1;
  kg_pair_cell *c = calloc(cap, sizeof *c), *other = calloc(cap, sizeof *other);
  kg_pair_job *j = calloc(cap, sizeof *j);
  if (!sizes || !c || !other || !j) {
    free(sizes), free(c), free(other), free(j);
    return -1;
  }
  size_t nj = 0, no = 0;
  for (size_t i = 0; i < run->n; i++) {
    const kg_case *k = &run->cases[i];
    const kg_result *r = &run->results[i];
    if (!k->timed || !k->supported) continue;
    const char *name = kg_variants[k->variant].name;
    if (!kg_pair_in_base(base, k->variant, k->dtype)) {
      cell_init(&other[no++], name, k->dtype, k->n, KG_PV_NEW);
    } else if (r->status != KG_ST_PASS) {
      kg_pair_cell *u = &other[no++];
      cell_init(u, name, k->dtype, k->n, KG_PV_UNKNOWN);
      snprintf(u->message, sizeof u->message, "not timed: %s", kg_status_name(r->status));
    } else {
      j[nj] = (kg_pair_job){.variant = k->variant, .dtype = k->dtype, .n = k->n};
      cell_init(&c[nj++], name, k->dtype, k->n, KG_PV_UNDECIDED);
    }
  }
  /* Base variants this kgate lacks (for a dtype) at every timed size of that dtype. */
  for (size_t b = 0; all_variants && b < base->n; b++) {
    int v = kg_variant_find_any(base->v[b].name); /* a base's mutants are kgate's too: not MISSING */
    for (size_t e = 0; e < nsizes; e++) {
      kg_dtype d = sizes[e].dtype;
      if ((base->v[b].dtypes & KG_DT_BIT(d)) && !(v >= 0 && kg_variant_supports(v, d)))
        cell_init(&other[no++], base->v[b].name, d, sizes[e].n, KG_PV_MISSING);
    }
  }
  memcpy(c + nj, other, no * sizeof *other);
  free(other);
  free(sizes);
  *cells = c;
  *ncells = nj + no;
  *jobs = j;
  *njobs = nj;
  return 0;
}

kg_case kg_pair_job_case(const kg_pair_job *j, int timed) {
  return (kg_case){j->variant, j->dtype, j->n, kg_perf_pattern(j->dtype), 1, timed};
}

/* The blocks a job has gathered over the rounds. */
typedef struct gathered {
  kg_pblock *b;
  size_t n, cap;
  char error[200];
  kg_timing t[KG_PAIR_MAX_ROUNDS]; /* the head's absolute timing, a round each */
  int nt;
} gathered;

static int add_blocks(gathered *g, const kg_result *r) {
  if (g->n + (size_t)r->nblocks > g->cap) {
    size_t cap = g->cap ? 2 * g->cap + (size_t)r->nblocks : 32;
    kg_pblock *b = realloc(g->b, cap * sizeof *b);
    if (!b) return -1;
    g->b = b, g->cap = cap;
  }
  memcpy(g->b + g->n, r->blocks, (size_t)r->nblocks * sizeof *r->blocks);
  g->n += (size_t)r->nblocks;
  return 0;
}

/* The rounds still to come, at this round's cost per cell: the rounds every
 * cell gets, then one for each undecided cell until max_rounds, within what
 * is left of the extra rounds' budget (extra_s spent of it). */
static double rounds_left_s(const kg_pair_settings *ps, int round, size_t njobs, size_t undecided, double per_cell,
                            double extra_s) {
  int fixed = ps->rounds > round ? ps->rounds - round : 0;
  int last = round > ps->rounds ? round : ps->rounds;
  double extra = undecided ? (double)(ps->max_rounds - last) * (double)undecided * per_cell : 0;
  double budget = ps->budget_s - extra_s;
  if (extra > budget) extra = budget > 0 ? budget : 0;
  return (double)fixed * (double)njobs * per_cell + extra;
}

kg_timing kg_pair_combine_timing(const kg_timing *t, int n) {
  kg_timing out = {0};
  if (n <= 0) return out;
  double m[KG_PAIR_MAX_ROUNDS], q1[KG_PAIR_MAX_ROUNDS], q3[KG_PAIR_MAX_ROUNDS], noise[KG_PAIR_MAX_ROUNDS];
  out.min_us = t[0].min_us;
  for (int k = 0; k < n; k++) {
    m[k] = t[k].median_us, q1[k] = t[k].q1_us, q3[k] = t[k].q3_us, noise[k] = t[k].noise;
    if (t[k].min_us < out.min_us) out.min_us = t[k].min_us;
    out.samples += t[k].samples;
    out.set_aside += t[k].set_aside;
    out.sm_clock_mhz += t[k].sm_clock_mhz / n;
  }
  out.median_us = kg_median(m, (size_t)n), out.q1_us = kg_median(q1, (size_t)n), out.q3_us = kg_median(q3, (size_t)n);
  out.noise = kg_median(noise, (size_t)n) / sqrt((double)n);
  return out;
}

int kg_pair_rounds(const kg_pair_job *jobs, size_t njobs, kg_pair_cell *cells, const kg_pair_settings *ps,
                   const kg_run_params *rp, const kg_super_opts *so, const kg_super_dev *devs, size_t ndev,
                   kg_device_info *devinfo, kg_timing *head, char *err, size_t errlen) {
  gathered *g = calloc(njobs + 1, sizeof *g);
  kg_case *cases = calloc(njobs + 1, sizeof *cases);
  kg_result *res = calloc(njobs + 1, sizeof *res);
  size_t *which = calloc(njobs + 1, sizeof *which);
  int rc = 0;
  if (!g || !cases || !res || !which) {
    snprintf(err, errlen, "out of memory");
    rc = -1;
  }
  kg_run_params prp = *rp;
  prp.pair.on = 1;
  double extra0 = 0; /* when the rounds past ps->rounds began: budget_s counts from there */
  for (int round = 1; !rc && round <= ps->max_rounds; round++) {
    if (round == ps->rounds + 1) extra0 = kg_now_s();
    if (round > ps->rounds + 1 && kg_now_s() - extra0 > ps->budget_s) break;
    size_t m = 0;
    for (size_t j = 0; j < njobs; j++) {
      if (round > ps->rounds && cells[j].stat.verdict != KG_PV_UNDECIDED) continue;
      cases[m] = kg_pair_job_case(&jobs[j], 0);
      which[m++] = j;
    }
    if (!m) break;
    double r0 = kg_now_s();
    prp.pair.round = round;
    rc = kg_supervise_devices(cases, m, &prp, so, devs, ndev, res, devinfo, err, errlen);
    if (rc == KG_SUPER_INTERRUPTED) m = 0; /* answers of the cut round are not counted */
    for (size_t k = 0; k < m; k++) {
      size_t j = which[k];
      kg_pair_cell *c = &cells[j];
      if (res[k].status == KG_ST_PASS && res[k].nblocks > 0) {
        if (add_blocks(&g[j], &res[k])) {
          snprintf(err, errlen, "out of memory");
          rc = -1;
          break;
        }
        c->rounds++;
        if (res[k].timing.samples > 0 && g[j].nt < KG_PAIR_MAX_ROUNDS) g[j].t[g[j].nt++] = res[k].timing;
      } else if (res[k].status != KG_ST_PENDING) {
        snprintf(g[j].error, sizeof g[j].error, "%s", res[k].message[0] ? res[k].message : "no pair timed");
      }
      c->set_aside += res[k].pair_set_aside;
      kg_pair_rule rule = ps->rule;
      rule.min_effect = c->min_effect =
          kg_pair_min_effect(jobs[j].n * kg_dtype_get(jobs[j].dtype)->size, ps->min_effect_pct);
      kg_pair_decide(g[j].b, g[j].n, &rule, &c->stat);
    }
    if (rc) break;
    size_t undecided = 0;
    for (size_t j = 0; j < njobs; j++) undecided += cells[j].stat.verdict == KG_PV_UNDECIDED;
    if (ps->log)
      fprintf(ps->log, "kgate: paired round %d: %zu cells in %.1f s, %zu undecided, ETA %.0f s\n", round, m,
              kg_now_s() - r0, undecided,
              rounds_left_s(ps, round, njobs, undecided, (kg_now_s() - r0) / (double)m, extra0 ? kg_now_s() - extra0 : 0));
  }
  for (size_t j = 0; j < njobs && g; j++) {
    if (head) head[j] = kg_pair_combine_timing(g[j].t, g[j].nt);
    if (g[j].n == 0) {
      cells[j].stat.verdict = KG_PV_UNKNOWN;
      snprintf(cells[j].message, sizeof cells[j].message, "paired timing failed: %.120s",
               g[j].error[0] ? g[j].error : "not run");
    }
    free(g[j].b);
  }
  free(g);
  free(cases);
  free(res);
  free(which);
  return rc;
}

int kg_pair_probe(const kg_pair_job *jobs, size_t njobs, kg_pair_cell *cells, const kg_code_table *head,
                  const kg_code_table *base, int arch, const kg_run_params *rp, const kg_super_opts *so,
                  const kg_super_dev *devs, size_t ndev, kg_device_info *devinfo, int *proven, FILE *log, char *err,
                  size_t errlen) {
  kg_case *cases = calloc(njobs + 1, sizeof *cases);
  kg_result *res = calloc(njobs + 1, sizeof *res);
  int rc = cases && res ? 0 : (snprintf(err, errlen, "out of memory"), -1);
  kg_run_params prp = *rp;
  prp.pair.on = 1, prp.pair.probe = 1, prp.pair.round = 0;
  for (size_t j = 0; !rc && j < njobs; j++)
    cases[j] = kg_pair_job_case(&jobs[j], 0);
  if (!rc && njobs) rc = kg_supervise_devices(cases, njobs, &prp, so, devs, ndev, res, devinfo, err, errlen);
  for (size_t j = 0; !rc && j < njobs; j++) {
    char why[160] = "";
    proven[j] = res[j].status == KG_ST_PASS && res[j].probed && res[j].launch_same == 1 &&
                kg_code_same(head, base, arch, res[j].kernels, res[j].nkernels, res[j].nlaunches, why, sizeof why);
    if (proven[j]) {
      cells[j].stat.verdict = KG_PV_UNCHANGED;
      snprintf(cells[j].message, sizeof cells[j].message, "%.159s", why);
      continue;
    }
    int said = 0; /* why a variant is paired after all: once, for its first cell */
    for (size_t i = 0; i < j; i++) said |= !proven[i] && jobs[i].variant == jobs[j].variant;
    char shown[160], vname[72]; /* kernel names come from a module: escaped for the terminal */
    if (log && !said)
      fprintf(log, "kgate: %s is paired: not proven unchanged (%s %zu: %s)\n",
              kg_esc_term(kg_variants[jobs[j].variant].name, vname, sizeof vname), kg_dtype_get(jobs[j].dtype)->name,
              jobs[j].n,
              kg_esc_term(why[0] ? why : res[j].message[0] ? res[j].message : "the probe did not answer", shown,
                          sizeof shown));
  }
  free(cases);
  free(res);
  return rc;
}

size_t kg_pair_partition(kg_pair_job *jobs, kg_pair_cell *cells, size_t njobs, const int *proven) {
  kg_pair_job *j2 = malloc((njobs + 1) * sizeof *j2);
  kg_pair_cell *c2 = malloc((njobs + 1) * sizeof *c2);
  size_t kept = 0;
  for (size_t j = 0; j < njobs; j++) kept += !proven[j];
  if (!j2 || !c2) { /* out of memory: nothing moves, so nothing proven is skipped */
    free(j2), free(c2);
    return njobs;
  }
  for (size_t j = 0, a = 0, b = kept; j < njobs; j++) {
    size_t to = proven[j] ? b++ : a++;
    j2[to] = jobs[j], c2[to] = cells[j];
  }
  memcpy(jobs, j2, njobs * sizeof *jobs);
  memcpy(cells, c2, njobs * sizeof *cells);
  free(j2), free(c2);
  return kept;
}
