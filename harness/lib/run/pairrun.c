/* The paired gate's rounds (pairrun.h). */
#include "pairrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "label.h"
#include "phases.h"
#include "varreg.h"
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

/* The case a job times: its cell on the perf pattern of its dtype (timed:
 * the absolute timing of a plain case, else a paired or probe case). */
static kg_case job_case(const kg_pair_job *j, int timed) {
  return (kg_case){j->variant, j->dtype, j->n, kg_perf_pattern(j->dtype), 1, timed};
}

/* The blocks a job has gathered over the rounds. */
typedef struct gathered {
  kg_pblock *b;
  size_t n, cap;
  char error[200];
  kg_timing t[KG_PAIR_MAX_ROUNDS]; /* the head's absolute timing, a round each */
  int nt;
  int stopped; /* decided before the rounds every cell gets were done (KG_PAIR_EARLY), or wrong */
  kg_guard guard; /* the head's, from the last answer that had one */
  int rechecked;  /* the head's samples re-checked over the rounds */
  kg_pair_side wrong; /* the side whose results were wrong after timing (its message in error) */
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

/* The rounds at most: max_rounds, or rounds when that is more. */
static int max_rounds(const kg_pair_settings *ps) { return ps->max_rounds > ps->rounds ? ps->max_rounds : ps->rounds; }

/* The rounds still to come, at this round's cost per cell: the rounds every
 * cell gets, then one for each undecided cell until max_rounds, within what
 * is left of the extra rounds' budget (extra_s spent of it). */
static double rounds_left_s(const kg_pair_settings *ps, int round, size_t njobs, size_t undecided, double per_cell,
                            double extra_s) {
  int fixed = ps->rounds > round ? ps->rounds - round : 0;
  int last = round > ps->rounds ? round : ps->rounds;
  double extra = undecided ? (double)(max_rounds(ps) - last) * (double)undecided * per_cell : 0;
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

/* One job's answer in a round: its blocks, its head timing, or its error;
 * then the cell's verdict so far, and whether it stops: sequential, as soon
 * as it is decided; else before the rounds every cell gets are done (fixed:
 * those rounds) when its stricter interval decides too. 0, or -1 out of
 * memory. */
static int take_answer(const kg_pair_job *job, kg_pair_cell *c, gathered *g, const kg_result *r, double min_effect_pct,
                       int fixed, int sequential) {
  if (r->guard.on) g->guard = r->guard, g->rechecked += r->guard.rechecked;
  if (r->pair_wrong) { /* wrong after timing: no verdict, no more rounds (rounds_end says why) */
    g->wrong = r->pair_wrong, g->stopped = 1;
    snprintf(g->error, sizeof g->error, "%s", r->message);
    c->stat.verdict = KG_PV_UNKNOWN;
    return 0;
  }
  if (r->status == KG_ST_PASS && r->nblocks > 0) {
    if (add_blocks(g, r)) return -1;
    c->rounds++;
    if (r->timing.samples > 0 && g->nt < KG_PAIR_MAX_ROUNDS) g->t[g->nt++] = r->timing;
  } else if (r->status != KG_ST_PENDING) {
    snprintf(g->error, sizeof g->error, "%s", r->message[0] ? r->message : "no pair timed");
  }
  c->set_aside += r->pair_set_aside;
  kg_pair_rule rule = {0, KG_PAIR_CONFIDENCE};
  rule.min_effect = c->min_effect = kg_pair_min_effect(job->n * kg_dtype_get(job->dtype)->size, min_effect_pct);
  kg_pair_decide(g->b, g->n, &rule, &c->stat); /* the estimate and its interval, for the reports */
  if (sequential) { /* every round a look: decided, the cell is done */
    kg_seq_rule sr = kg_seq_rule_for(c->min_effect);
    kg_seq_stat ss;
    kg_seq_decide(g->b, g->n, &sr, c->rounds >= KG_SEQ_CHANGE_ROUNDS, &ss);
    c->sequential = 1;
    c->llr_slower = ss.llr_slower, c->llr_faster = ss.llr_faster;
    c->stat.verdict = ss.verdict;
    g->stopped = ss.verdict != KG_PV_UNDECIDED;
    return 0;
  }
  if (c->rounds < fixed && c->stat.verdict != KG_PV_UNDECIDED) {
    /* an early look: decided at the stricter level too, it is done */
    kg_pair_stat early;
    kg_pair_rule strict = {rule.min_effect, KG_PAIR_EARLY};
    kg_pair_decide(g->b, g->n, &strict, &early);
    g->stopped = early.verdict != KG_PV_UNDECIDED;
  }
  return 0;
}

/* The rounds' working memory: per job its blocks, and a round's cases. */
typedef struct rounds {
  gathered *g;
  kg_case *cases;
  kg_result *res;
  size_t *which;
} rounds;

/* A job whose results were wrong after timing: its cell UNKNOWN, saying
 * which side; a wrong head fails its head case too (h: NULL, not wanted). */
static void wrong_end(const gathered *g, kg_pair_cell *c, kg_pair_head *h) {
  int head = g->wrong == KG_SIDE_HEAD;
  c->stat.verdict = KG_PV_UNKNOWN;
  snprintf(c->message, sizeof c->message, "%s: %.110s",
           head ? "the head was wrong after timing" : "the base was wrong after timing, not the head", g->error);
  if (!h || !head) return;
  h->status = KG_ST_FAIL, h->fail = KG_FK_WRONG_AFTER_TIMING, h->timing = (kg_timing){0};
  snprintf(h->message, sizeof h->message, "paired, %.190s", g->error);
}

/* After the rounds: each job's head, a job that never timed UNKNOWN. */
static void rounds_end(rounds *w, size_t njobs, kg_pair_cell *cells, kg_pair_head *head) {
  for (size_t j = 0; j < njobs && w->g; j++) {
    if (head) {
      head[j] = (kg_pair_head){.timing = kg_pair_combine_timing(w->g[j].t, w->g[j].nt), .guard = w->g[j].guard,
                               .status = KG_ST_PASS};
      head[j].guard.rechecked = w->g[j].rechecked;
    }
    if (w->g[j].wrong) {
      wrong_end(&w->g[j], &cells[j], head ? &head[j] : NULL);
    } else if (w->g[j].n == 0) {
      cells[j].stat.verdict = KG_PV_UNKNOWN;
      snprintf(cells[j].message, sizeof cells[j].message, "paired timing failed: %.120s",
               w->g[j].error[0] ? w->g[j].error : "not run");
    }
    free(w->g[j].b);
  }
  free(w->g), free(w->cases), free(w->res), free(w->which);
}

int kg_pair_rounds(const kg_pair_job *jobs, size_t njobs, kg_pair_cell *cells, const kg_pair_settings *ps, FILE *log,
                   const kg_run_params *rp, const kg_super_opts *so, const kg_super_dev *devs, size_t ndev,
                   kg_device_info *devinfo, kg_pair_head *head, char *err, size_t errlen) {
  rounds w = {calloc(njobs + 1, sizeof *w.g), calloc(njobs + 1, sizeof *w.cases), calloc(njobs + 1, sizeof *w.res),
              calloc(njobs + 1, sizeof *w.which)};
  int oom = !w.g || !w.cases || !w.res || !w.which, rc = oom ? -1 : 0;
  kg_run_params prp = *rp;
  prp.pair.on = 1;
  double extra0 = 0; /* when the rounds past ps->rounds began: budget_s counts from there */
  for (int round = 1; !rc && round <= max_rounds(ps); round++) {
    if (round == ps->rounds + 1) extra0 = kg_now_s();
    if (round > ps->rounds + 1 && kg_now_s() - extra0 > ps->budget_s) break;
    size_t m = 0;
    for (size_t j = 0; j < njobs; j++) {
      if (round > ps->rounds && cells[j].stat.verdict != KG_PV_UNDECIDED) continue;
      if (w.g[j].stopped) continue;
      w.cases[m] = job_case(&jobs[j], 0);
      w.which[m++] = j;
    }
    if (!m) break;
    double r0 = kg_now_s();
    prp.pair.round = round;
    rc = kg_supervise_devices(w.cases, m, &prp, so, devs, ndev, w.res, devinfo, err, errlen);
    if (rc == KG_SUPER_INTERRUPTED) m = 0; /* answers of the cut round are not counted */
    for (size_t k = 0; k < m && !rc; k++) {
      size_t j = w.which[k];
      rc = oom = take_answer(&jobs[j], &cells[j], &w.g[j], &w.res[k], ps->min_effect_pct, ps->rounds,
                            ps->sequential) != 0 ? -1 : 0;
    }
    if (rc) break;
    size_t undecided = 0;
    for (size_t j = 0; j < njobs; j++) undecided += cells[j].stat.verdict == KG_PV_UNDECIDED;
    if (log)
      fprintf(log, "kgate: paired round %d: %zu cells in %.1f s, %zu undecided, ETA %.0f s\n", round, m,
              kg_now_s() - r0, undecided,
              rounds_left_s(ps, round, njobs, undecided, (kg_now_s() - r0) / (double)m,
                            extra0 ? kg_now_s() - extra0 : 0));
  }
  if (oom) snprintf(err, errlen, "out of memory");
  rounds_end(&w, njobs, cells, head);
  return rc;
}

/* The proof that cells are unchanged (unchanged.h): one untimed probe of
 * every job in fresh workers (rp->pair: module and base variant; probe and
 * on are set here), then, for each job whose head and base queued the same
 * launches, the kernels' machine code at arch in the head and base tables.
 * A proven job's cell becomes UNCHANGED with the evidence as its message and
 * proven[j] = 1; log (NULL: none) gets a line per variant with a cell that
 * was not proven, saying why for its first. Returns 0, or the supervisor's
 * -1/-2 with err. */
static int probe(const kg_pair_job *jobs, size_t njobs, kg_pair_cell *cells, const kg_code_table *head,
                  const kg_code_table *base, int arch, const kg_run_params *rp, const kg_super_opts *so,
                  const kg_super_dev *devs, size_t ndev, kg_device_info *devinfo, int *proven, FILE *log, char *err,
                  size_t errlen) {
  kg_case *cases = calloc(njobs + 1, sizeof *cases);
  kg_result *res = calloc(njobs + 1, sizeof *res);
  int rc = cases && res ? 0 : (snprintf(err, errlen, "out of memory"), -1);
  kg_run_params prp = *rp;
  prp.pair.on = 1, prp.pair.probe = 1, prp.pair.round = 0;
  for (size_t j = 0; !rc && j < njobs; j++)
    cases[j] = job_case(&jobs[j], 0);
  if (!rc && njobs) rc = kg_supervise_devices(cases, njobs, &prp, so, devs, ndev, res, devinfo, err, errlen);
  for (size_t j = 0; !rc && j < njobs; j++) {
    char why[160] = "";
    proven[j] = res[j].status == KG_ST_PASS && res[j].probed && res[j].launch_same == 1 &&
                kg_code_same(head, base, arch, res[j].kernels, res[j].nkernels, res[j].nlaunches, &res[j].read, why,
                             sizeof why);
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

/* A paired cell's head is its cases' absolute timing (the check left the
 * cases the base has untimed) and its re-check after timing. */
void kg_pair_apply_head(kg_run *run, const kg_pair_job *j, const kg_pair_head *h) {
  for (size_t i = 0; i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    kg_result *r = &run->results[i];
    if (!c->timed || c->variant != j->variant || c->dtype != j->dtype || c->n != j->n) continue;
    if (h->guard.on) r->guard = h->guard;
    if (h->status == KG_ST_PASS) {
      r->timing = h->timing;
      continue;
    }
    r->status = h->status, r->fail = h->fail, r->timing = (kg_timing){0};
    snprintf(r->message, sizeof r->message, "%s", h->message);
  }
}

/* The cells proven unchanged (jobs[0 .. njobs)) are not paired; with
 * --absolute-unchanged one timing pass gives their cases the absolute
 * timing, as the check would have (one pass of fresh workers, each case run
 * and judged once more, then timed). */
static void time_unchanged(kg_run *run, const kg_pair_job *jobs, size_t njobs, const kg_pair_gate_in *in,
                           const kg_super_opts *so, kg_device_info *devs) {
  kg_case *cases = calloc(njobs + 1, sizeof *cases);
  kg_result *res = calloc(njobs + 1, sizeof *res);
  char err[512];
  kg_run_params trp = *in->rp;
  trp.pair.on = 0;
  trp.repeats = 1; /* the check judged these cases' determinism already: one run before the timing */
  for (size_t j = 0; cases && j < njobs; j++) cases[j] = job_case(&jobs[j], 1);
  int rc = cases && res ? kg_supervise_devices(cases, njobs, &trp, so, in->devs, in->ndev, res, devs, err, sizeof err)
                        : (snprintf(err, sizeof err, "out of memory"), -1);
  if (rc && rc != KG_SUPER_INTERRUPTED) fprintf(stderr, "kgate: timing the unchanged cells: %s\n", err);
  for (size_t j = 0; !rc && j < njobs; j++) { /* passed, or failed by the guard (refused, wrong after timing) */
    const kg_result *r = &res[j];
    kg_pair_head h = {r->timing, r->guard, r->status, r->fail, ""};
    snprintf(h.message, sizeof h.message, "%s", r->message);
    if (r->status == KG_ST_PASS || (r->status == KG_ST_FAIL && r->guard.on)) kg_pair_apply_head(run, &jobs[j], &h);
  }
  free(cases);
  free(res);
}

/* The probe and the proof: the jobs proven unchanged move behind the
 * others and are timed once; returns how many are left to pair. */
static size_t prove_unchanged(kg_run *run, kg_pair_job *jobs, size_t njobs, const kg_pair_gate_in *in,
                              const kg_super_opts *so, kg_device_info *devs, double *timing_s) {
  char err[512];
  if (in->no_proof) {
    if (in->log) fprintf(in->log, "kgate: no cell proven unchanged: %s\n", in->no_proof);
    return njobs;
  }
  if (!in->head_code) return njobs;
  int *proven = calloc(njobs + 1, sizeof *proven);
  int arch = run->meta.dev.cc_major * 10 + run->meta.dev.cc_minor;
  int rc = proven ? probe(jobs, njobs, run->pairs, in->head_code, in->base_code, arch, in->rp, so, in->devs,
                                  in->ndev, devs, proven, in->log, err, sizeof err)
                  : (snprintf(err, sizeof err, "out of memory"), -1);
  size_t kept = njobs;
  if (rc && rc != KG_SUPER_INTERRUPTED) fprintf(stderr, "kgate: probing the cells: %s\n", err);
  if (!rc) kept = kg_pair_partition(jobs, run->pairs, njobs, proven);
  free(proven);
  int timed = in->ps->absolute_unchanged;
  if (in->log)
    fprintf(in->log, "kgate: %zu of %zu cells proven unchanged (the same machine code and launches): %s\n",
            njobs - kept, njobs, timed ? "timed once, not paired" : "not timed (--absolute-unchanged times them)");
  /* the pass's work (the start-up phase counts its workers' start-up) */
  kg_phase_clock clock = kg_phase_start(so->startup_s, kg_now_s());
  if (kept < njobs && timed) time_unchanged(run, jobs + kept, njobs - kept, in, so, devs);
  *timing_s = kg_phase_stop(&clock, kg_now_s()).work_s;
  return kept;
}

/* What run->pair records of the settings and the base. */
static void pair_meta(kg_pair_meta *pm, const kg_modinfo *base, const kg_pair_settings *ps) {
  pm->on = 1;
  snprintf(pm->base_path, sizeof pm->base_path, "%s", base->path);
  snprintf(pm->base_name, sizeof pm->base_name, "%s", base->name);
  snprintf(pm->base_version, sizeof pm->base_version, "%s", base->version);
  pm->confidence = KG_PAIR_CONFIDENCE;
  pm->min_effect_pct = ps->min_effect_pct;
  pm->copies = ps->pair.copies, pm->quads = ps->pair.quads;
  pm->rounds = ps->rounds, pm->max_rounds = max_rounds(ps);
  pm->budget_s = ps->budget_s;
  pm->sequential = ps->sequential;
  if (ps->sequential) {
    kg_seq_rule r = kg_seq_rule_for(1);
    pm->alpha = r.alpha, pm->beta = r.beta, pm->delta0_share = KG_SEQ_DELTA0_SHARE;
    pm->llr_upper = kg_seq_upper(&r), pm->llr_lower = kg_seq_lower(&r);
    pm->change_rounds = KG_SEQ_CHANGE_ROUNDS;
  }
}

int kg_pair_pools(const kg_pair_cell *cells, size_t n, const kg_pair_meta *m, kg_pair_pool **pools, size_t *npools) {
  *pools = NULL, *npools = 0;
  if (!m->sequential) return 0;
  kg_pair_pool *q = calloc(n + 1, sizeof *q);
  int *maxr = calloc(n + 1, sizeof *maxr);
  if (!q || !maxr) return free(q), free(maxr), -1;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const kg_pair_cell *c = &cells[i];
    if (!c->sequential || c->stat.blocks < 2 || c->stat.verdict == KG_PV_UNKNOWN) continue; /* UNKNOWN: wrong */
    size_t j = 0;
    while (j < k && !(q[j].n == c->n && !strcmp(q[j].variant, c->variant))) j++;
    if (j == k) {
      memset(&q[k], 0, sizeof q[k]);
      snprintf(q[k].variant, sizeof q[k].variant, "%s", c->variant);
      q[k++].n = c->n;
    }
    q[j].cells++, q[j].blocks += c->stat.blocks;
    q[j].llr_slower += c->llr_slower, q[j].llr_faster += c->llr_faster;
    if (c->min_effect > q[j].min_effect) q[j].min_effect = c->min_effect;
    if (c->rounds > maxr[j]) maxr[j] = c->rounds;
  }
  size_t out = 0;
  for (size_t j = 0; j < k; j++) {
    if (q[j].cells < 2) continue; /* one dtype: its cell says it */
    kg_seq_rule r = kg_seq_rule_for(q[j].min_effect);
    q[j].verdict = kg_seq_verdict(q[j].llr_slower, q[j].llr_faster, &r, maxr[j] >= KG_SEQ_CHANGE_ROUNDS);
    q[out++] = q[j];
  }
  free(maxr);
  if (!out) return free(q), 0;
  *pools = q, *npools = out;
  return 0;
}

int kg_pair_gate(kg_run *run, const kg_pair_gate_in *in, double *unchanged_s) {
  char err[512];
  kg_pair_job *jobs = NULL;
  size_t njobs = 0;
  double t0 = kg_now_s();
  *unchanged_s = 0;
  pair_meta(&run->pair, in->base, in->ps);
  if (kg_pair_plan(run, in->base, in->all_variants, &run->pairs, &run->npairs, &jobs, &njobs))
    return fprintf(stderr, "kgate: out of memory\n"), -1;
  kg_device_info *devs = calloc(in->ndev + 1, sizeof *devs);
  kg_super_opts o = *in->so;
  o.one_model = 0; /* the hellos were checked by the run itself */
  njobs = devs ? prove_unchanged(run, jobs, njobs, in, &o, devs, unchanged_s) : njobs;
  kg_pair_head *head = calloc(njobs + 1, sizeof *head);
  int rc = head && devs ? kg_pair_rounds(jobs, njobs, run->pairs, in->ps, in->log, in->rp, &o, in->devs, in->ndev, devs,
                                         head, err, sizeof err)
                        : (snprintf(err, sizeof err, "out of memory"), -1);
  for (size_t j = 0; head && j < njobs; j++) kg_pair_apply_head(run, &jobs[j], &head[j]);
  free(head), free(jobs), free(devs);
  kg_pair_sort(run->pairs, run->npairs);
  if (!rc && kg_pair_pools(run->pairs, run->npairs, &run->pair, &run->pools, &run->npools))
    rc = -1, snprintf(err, sizeof err, "out of memory");
  run->pair.wall_s = kg_now_s() - t0;
  if (rc) fprintf(stderr, "kgate: paired timing: %s\n", err);
  if (kg_super_interrupted()) { /* the rounds so far stand, marked: undecided cells stay UNDECIDED */
    snprintf(run->meta.incomplete, sizeof run->meta.incomplete, "%s", kg_super_signal_name(kg_super_interrupted()));
    return 0;
  }
  return rc ? -1 : 0;
}
