/* The sequential decision replayed on recorded cells (seqreplay.h). */
#include "seqreplay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dtype.h"
#include "paired.h"

/* A cell's block spread from its interval: half-width = t(conf, blocks - 1) s / sqrt(blocks). */
static double spread(double lo, double hi, double conf, int blocks) {
  if (blocks < 2 || !(lo > 0 && hi > lo && isfinite(hi))) return NAN;
  return (log(hi) - log(lo)) / 2 / kg_student_t(conf, blocks - 1) * sqrt((double)blocks);
}

int kg_seq_cells(const kg_run *run, int aa_only, kg_seq_cell **cells, size_t *ncells, char *err, size_t errlen) {
  *cells = NULL, *ncells = 0;
  kg_seq_cell *c = calloc(run->npairs + 1, sizeof *c);
  if (!c) return snprintf(err, errlen, "out of memory"), -1;
  double conf = run->pair.confidence;
  size_t k = 0;
  for (size_t i = 0; i < run->npairs; i++) {
    const kg_pair_cell *p = &run->pairs[i];
    const kg_pair_stat *s = &p->stat;
    if (aa_only && s->verdict != KG_PV_SAME) continue;
    if (s->blocks < 2 || !(s->lo > 0 && s->hi > s->lo && isfinite(s->hi)) || !(p->min_effect > 0)) continue;
    double sigma = spread(s->lo, s->hi, conf, s->blocks);
    if (!(sigma > 0 && isfinite(sigma))) continue;
    c[k++] = (kg_seq_cell){sigma, p->min_effect, p->n};
  }
  if (!k) {
    free(c);
    return snprintf(err, errlen, "no paired cell with two blocks or more and an interval"), -1;
  }
  *cells = c, *ncells = k;
  return 0;
}

int kg_seq_cells_history(const kg_history *h, int copies, kg_seq_cell **cells, size_t *ncells, char *err,
                         size_t errlen) {
  size_t cap = 0, k = 0;
  *cells = NULL, *ncells = 0;
  for (size_t i = 0; i < h->n; i++) cap += h->runs[i].paired.has ? h->runs[i].paired.n : 0;
  kg_seq_cell *c = calloc(cap + 1, sizeof *c);
  if (!c) return snprintf(err, errlen, "out of memory"), -1;
  for (size_t i = 0; i < h->n; i++) {
    const kg_hist_paired *p = &h->runs[i].paired;
    for (size_t j = 0; p->has && j < p->n; j++) {
      const kg_hist_pcell *x = &p->cells[j];
      double s = spread(x->lo, x->hi, p->confidence, p->rounds * copies);
      if (!(s > 0 && isfinite(s))) continue;
      c[k++] = (kg_seq_cell){s, kg_pair_min_effect(x->n * kg_dtype_get(x->dtype)->size, 0), x->n};
    }
  }
  if (!k) {
    free(c);
    return snprintf(err, errlen, "no night with paired cells and intervals"), -1;
  }
  *cells = c, *ncells = k;
  return 0;
}

kg_seq_replay_opts kg_seq_replay_defaults(void) {
  return (kg_seq_replay_opts){.seed = 47, .trials = 100000, .shift = 0, .copies = 4, .max_rounds = 12, .df = 0,
                              .alpha = KG_SEQ_ALPHA, .beta = KG_SEQ_BETA};
}

/* splitmix64: a small generator whose stream is fixed by its seed. */
static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double uniform(uint64_t *s) { return ((double)(next(s) >> 11) + 0.5) * 0x1.0p-53; } /* (0, 1) */

static double normal(uint64_t *s) { /* Box-Muller; one of the pair is enough here */
  return sqrt(-2 * log(uniform(s))) * cos(6.283185307179586 * uniform(s));
}

/* A unit-variance deviate: normal, or Student t(df) scaled by sqrt((df - 2) / df). */
static double deviate(uint64_t *s, int df) {
  double z = normal(s);
  if (df <= 0) return z;
  double chi = 0;
  for (int i = 0; i < df; i++) {
    double g = normal(s);
    chi += g * g;
  }
  return z / sqrt(chi / df) * sqrt((df - 2.0) / df);
}

int kg_seq_replay(const kg_seq_cell *cells, size_t ncells, const kg_seq_replay_opts *o, kg_seq_replay_result *out) {
  *out = (kg_seq_replay_result){0};
  if (o->copies < 1 || o->max_rounds < 1 || o->max_rounds > 64 || (o->df != 0 && o->df <= 2) || o->trials < 1 ||
      !(o->round_share >= 0 && o->round_share < 1))
    return -1;
  size_t *use = malloc((ncells + 1) * sizeof *use), nuse = 0;
  kg_pblock *b = malloc((size_t)o->copies * (size_t)o->max_rounds * sizeof *b);
  if (!use || !b) return free(use), free(b), -1;
  for (size_t i = 0; i < ncells; i++)
    if (!(o->only_effect > 0) || fabs(cells[i].min_effect - o->only_effect) < 1e-12) use[nuse++] = i;
  if (!nuse) return free(use), free(b), -1;
  uint64_t s = o->seed;
  double rounds_sum = 0;
  for (long t = 0; t < o->trials; t++) {
    const kg_seq_cell *c = &cells[use[next(&s) % nuse]];
    double mu = log1p(o->shift * c->min_effect);
    kg_seq_rule rule = kg_seq_rule_for(c->min_effect);
    rule.alpha = o->alpha, rule.beta = o->beta;
    kg_pverdict v = KG_PV_UNDECIDED;
    int r = 0;
    size_t nb = 0;
    while (r < o->max_rounds) {
      r++;
      double worker = o->round_share > 0 ? sqrt(o->round_share) * deviate(&s, o->df) : 0,
             own = sqrt(1 - o->round_share);
      for (int k = 0; k < o->copies; k++)
        b[nb++] = (kg_pblock){.log_ratio = mu + c->sigma * (worker + own * deviate(&s, o->df)), .pairs = 1,
                              .head_us = 1, .base_us = 1};
      if (o->interval_rule) { /* the rule before: rounds 2 for every cell, an early look at 99.5 % */
        kg_pair_stat st, early;
        kg_pair_rule pr = {c->min_effect, 0.99}, strict = {c->min_effect, 0.995};
        kg_pair_decide(b, nb, &pr, &st);
        v = st.verdict;
        if (r < 2 && v != KG_PV_UNDECIDED) {
          kg_pair_decide(b, nb, &strict, &early);
          if (early.verdict == KG_PV_UNDECIDED) v = KG_PV_UNDECIDED;
        }
        if (r < 2 && v == KG_PV_UNDECIDED) continue;
      } else {
        kg_seq_stat st;
        kg_seq_decide(b, nb, &rule, r >= KG_SEQ_CHANGE_ROUNDS, &st);
        v = st.verdict;
      }
      if (v != KG_PV_UNDECIDED) break;
    }
    out->count[v]++;
    rounds_sum += r;
    out->first_round += r == 1 && v != KG_PV_UNDECIDED;
  }
  out->trials = o->trials;
  out->mean_rounds = rounds_sum / (double)o->trials;
  free(use), free(b);
  return 0;
}
