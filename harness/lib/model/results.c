/* The results JSON (docs/results-schema.md): the whole run, written once at
 * the end, atomically, one case per line. Reading is strict about what it
 * needs and names the file, the case and the field when something is off,
 * since a results file may come from another machine or another kgate. */
#include "results.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "fileio.h"
#include "jread.h"
#include "varreg.h"
#include "sizes.h"
#include "fields.h"

#define R kg_json_real

kg_perf kg_perf_of(const kg_run *run, size_t i) {
  kg_perf p = {0};
  const kg_case *c = &run->cases[i];
  double t = run->results[i].timing.median_us;
  if (run->results[i].timing.samples <= 0 || !(t > 0)) return p;
  const kg_device_info *d = &run->meta.dev;
  p.gbps = (double)c->n * (double)kg_dtype_get(c->dtype)->size / (t * 1e3); /* bytes/us = 1e6 B/s */
  p.pct_peak = d->peak_gbps > 0 ? 100 * p.gbps / d->peak_gbps : 0;
  p.pct_roofline = d->roofline_gbps > 0 ? 100 * p.gbps / d->roofline_gbps : 0;
  int cub = kg_variant_find("cub_sum");
  for (size_t j = 0; j < run->n; j++) {
    const kg_case *o = &run->cases[j];
    const kg_timing *ot = &run->results[j].timing;
    if (o->variant == cub && o->dtype == c->dtype && o->n == c->n && o->timed && ot->samples > 0) {
      p.vs_cub = ot->median_us / t;
      break;
    }
  }
  return p;
}

/* The case's identity, then its result (model.h) with the numbers derived
 * from its timing (kg_perf) added to the timing object. */
static json_t *case_json(const kg_run *run, size_t i) {
  const kg_case *c = &run->cases[i];
  const char *variant = c->variant >= 0 && (size_t)c->variant < kg_nvariants ? kg_variants[c->variant].name : "?";
  json_t *o = json_pack("{ss ss sI ss sb sb}", "variant", variant, "dtype", kg_dtype_get(c->dtype)->name, "n",
                        (json_int_t)c->n, "pattern", kg_pattern_name(c->pattern), "supported", c->supported, "timed",
                        c->timed);
  if (o && json_object_update_new(o, kg_result_to_json(&run->results[i], KG_FORM_FILE))) json_decref(o), o = NULL;
  json_t *t = json_object_get(o, "timing");
  if (json_is_object(t)) {
    kg_perf p = kg_perf_of(run, i);
    if (json_object_update_new(t, json_pack("{so so so so}", "gbps", R(p.gbps), "pct_peak", R(p.pct_peak),
                                            "pct_roofline", R(p.pct_roofline), "vs_cub", R(p.vs_cub))))
      json_decref(o), o = NULL;
  }
  return o;
}

#define PH(m) offsetof(kg_phases, m)
static const kg_field k_phases[] = {
    {"startup_s", KG_FT_REAL_IN, PH(startup_s), 0, 0, 0, 1e9, 0},
    {"inputs_s", KG_FT_REAL_IN, PH(inputs_s), 0, 0, 0, 1e9, 0},
    {"check_s", KG_FT_REAL_IN, PH(check_s), 0, 0, 0, 1e9, 0},
    {"timing_s", KG_FT_REAL_IN, PH(timing_s), 0, 0, 0, 1e9, 0},
    {"paired_s", KG_FT_REAL_IN, PH(paired_s), 0, 0, 0, 1e9, 0},
    {"reports_s", KG_FT_REAL_IN, PH(reports_s), 0, 0, 0, 1e9, 0},
};

/* "lint": each module's lint (lint.h): what ran, the findings that count, the waivers. */
static json_t *lint_json(const kg_run *run) {
  json_t *a = json_array();
  for (size_t k = 0; a && k < run->nlint; k++) {
    const kg_lint_module *m = &run->lint[k];
    json_t *o = json_pack("{ss sb}", "module", m->path, "ran", m->ran);
    if (o && !m->ran && m->off) json_object_set_new(o, "off", json_true()); /* --lint off: not a failure */
    if (o && !m->ran) json_object_set_new(o, "why", json_string(m->why));
    json_t *items = json_array(), *waived = json_array();
    for (size_t i = 0; items && i < m->nitems; i++) {
      const kg_lint_item *x = &m->items[i];
      json_array_append_new(items, json_pack("{ss si ss ss ss ss}", "kernel", x->kernel, "arch", x->arch, "side",
                                             x->side, "first", x->first, "second", x->second, "path", x->path));
    }
    for (size_t i = 0; waived && i < m->nwaived; i++)
      json_array_append_new(waived, json_pack("{ss ss si}", "variant", m->waived[i].variant, "reason",
                                              m->waived[i].reason, "findings", m->waived[i].findings));
    if (!o || !items || !waived ||
        (m->ran && json_object_update_new(o, json_pack("{si si si so so}", "kernels", m->kernels, "tickets", m->tickets,
                                                       "unknown_calls", m->unknown_calls, "findings", items, "waived",
                                                       waived)))) {
      json_decref(o), json_decref(a);
      return NULL;
    }
    if (!m->ran) json_decref(items), json_decref(waived);
    /* "notes" (only when there are any): what the lint could not classify, no failure */
    json_t *notes = m->ran && m->nnotes ? json_array() : NULL;
    for (size_t i = 0; notes && i < m->nnotes; i++)
      json_array_append_new(notes, json_pack("{ss si ss ss}", "kernel", m->notes[i].kernel, "arch", m->notes[i].arch,
                                             "at", m->notes[i].first, "why", m->notes[i].second));
    if (notes) json_object_set_new(o, "notes", notes);
    json_array_append_new(a, o);
  }
  return a;
}

static json_t *run_json(const kg_run_meta *m) {
  json_t *o = json_pack("{ss ss ss so s{sI si sb so si so so} so}", "date", m->date, "kgate_version", m->version,
                   "kgate_commit", m->commit, "wall_s", R(m->wall_s), "options", "seed", (json_int_t)m->seed,
                   "repeats", m->repeats, "hot", m->time.hot, "max_noise", R(m->time.max_noise), "min_samples",
                   m->time.min_samples, "max_seconds", R(m->time.max_seconds), "tolerance_pct", R(m->tolerance),
                   "device", kg_device_to_json(&m->dev, KG_FORM_FILE));
  if (o && m->shard[0]) json_object_set_new(json_object_get(o, "options"), "shard", json_string(m->shard));
  if (o && kg_provenance_known(&m->prov) && json_object_set_new(o, "provenance", kg_provenance_to_json(&m->prov)))
    json_decref(o), o = NULL;
  /* what built the code under test, and the machine beyond the card (absent: nothing known) */
  if (o && kg_toolchain_known(&m->dev.toolchain) &&
      json_object_set_new(o, "toolchain", kg_toolchain_to_json(&m->dev.toolchain)))
    json_decref(o), o = NULL;
  json_t *ph = o && m->phases.known ? json_object() : NULL;
  if (ph && kg_fields_to_json(ph, &m->phases, k_phases, NULL, sizeof k_phases / sizeof k_phases[0], KG_FORM_FILE))
    json_decref(ph), ph = NULL, json_decref(o), o = NULL;
  if (ph && json_object_set_new(o, "phases", ph)) json_decref(o), o = NULL;
  if (o && m->incomplete[0]) { /* interrupted: cases not reached are "pending" */
    json_object_set_new(o, "incomplete", json_true());
    json_object_set_new(o, "signal", json_string(m->incomplete));
  }
  return o;
}

/* The numbers of "paired" and of each of its cells, in the file's order. */
#define PM(m) offsetof(kg_pair_meta, m)
static const kg_field k_pair_meta[] = {
    {"confidence", KG_FT_NUM, PM(confidence), 0, 0, 0, 0, 0},
    {"min_effect_pct", KG_FT_NUM, PM(min_effect_pct), 0, 0, 0, 0, 0},
    {"copies", KG_FT_INT, PM(copies), 0, 0, 0, 0, 0},
    {"quads", KG_FT_INT, PM(quads), 0, 0, 0, 0, 0},
    {"rounds", KG_FT_INT, PM(rounds), 0, 0, 0, 0, 0},
    {"max_rounds", KG_FT_INT, PM(max_rounds), 0, 0, 0, 0, 0},
    {"budget_s", KG_FT_NUM, PM(budget_s), 0, 0, 0, 0, 0},
    {"wall_s", KG_FT_NUM, PM(wall_s), 0, 0, 0, 0, 0},
};
#define PC(m) offsetof(kg_pair_cell, m)
static const kg_field k_pair_cell[] = {
    {"ratio", KG_FT_NUM, PC(stat.ratio), 0, 0, 0, 0, 0},     {"lo", KG_FT_NUM, PC(stat.lo), 0, 0, 0, 0, 0},
    {"hi", KG_FT_NUM, PC(stat.hi), 0, 0, 0, 0, 0},           {"head_us", KG_FT_NUM, PC(stat.head_us), 0, 0, 0, 0, 0},
    {"base_us", KG_FT_NUM, PC(stat.base_us), 0, 0, 0, 0, 0}, {"min_effect", KG_FT_NUM, PC(min_effect), 0, 0, 0, 0, 0},
    {"blocks", KG_FT_INT, PC(stat.blocks), 0, 0, 0, 0, 0},   {"pairs", KG_FT_INT, PC(stat.pairs), 0, 0, 0, 0, 0},
    {"rounds", KG_FT_INT, PC(rounds), 0, 0, 0, 0, 0},        {"set_aside", KG_FT_INT, PC(set_aside), 0, 0, 0, 0, 0},
};
#define NFIELDS(t) (sizeof t / sizeof t[0])
/* "paired.sequential": the sequential decision's settings (absent: the interval decided). */
static const kg_field k_pair_seq[] = {
    {"alpha", KG_FT_NUM, PM(alpha), 0, 0, 0, 0, 0},         {"beta", KG_FT_NUM, PM(beta), 0, 0, 0, 0, 0},
    {"delta0_share", KG_FT_NUM, PM(delta0_share), 0, 0, 0, 0, 0},
    {"llr_upper", KG_FT_NUM, PM(llr_upper), 0, 0, 0, 0, 0}, {"llr_lower", KG_FT_NUM, PM(llr_lower), 0, 0, 0, 0, 0},
    {"change_rounds", KG_FT_INT, PM(change_rounds), 0, 0, 0, 0, 0},
};

static json_t *seq_json(const void *obj, const kg_field *f, size_t n) {
  json_t *o = json_object();
  json_t *test = json_string("gsprt");
  if (o && (json_object_set_new(o, "test", test) || kg_fields_to_json(o, obj, f, NULL, n, KG_FORM_FILE)))
    json_decref(o), o = NULL;
  return o;
}

/* "paired": how the run was paired, and one object per cell. */
static json_t *paired_json(const kg_run *run) {
  const kg_pair_meta *m = &run->pair;
  json_t *cells = json_array();
  for (size_t i = 0; cells && i < run->npairs; i++) {
    const kg_pair_cell *c = &run->pairs[i];
    json_t *o = json_pack("{ss ss sI ss}", "variant", c->variant, "dtype", kg_dtype_get(c->dtype)->name, "n",
                          (json_int_t)c->n, "verdict", kg_pverdict_name(c->stat.verdict));
    if (o && (kg_fields_to_json(o, c, k_pair_cell, NULL, NFIELDS(k_pair_cell), KG_FORM_FILE) ||
              json_object_set_new(o, "message", json_string(c->message))))
      json_decref(o), o = NULL;
    if (o && c->sequential && /* the sequential decision's evidence (new in kgate 0.2; absent: the interval decided) */
        (json_object_set_new(o, "llr_slower", R(c->llr_slower)) ||
         json_object_set_new(o, "llr_faster", R(c->llr_faster))))
      json_decref(o), o = NULL;
    json_array_append_new(cells, o);
  }
  json_t *pools = m->sequential ? json_array() : NULL;
  for (size_t i = 0; pools && i < run->npools; i++) {
    const kg_pair_pool *q = &run->pools[i];
    json_array_append_new(pools, json_pack("{ss sI ss si si so so so}", "variant", q->variant, "n", (json_int_t)q->n,
                                           "verdict", kg_pverdict_name(q->verdict), "cells", q->cells, "blocks",
                                           q->blocks, "min_effect", R(q->min_effect), "llr_slower", R(q->llr_slower),
                                           "llr_faster", R(q->llr_faster)));
  }
  json_t *o = json_pack("{ss ss ss ss ss}", "base_path", m->base_path, "base_name", m->base_name, "base_version",
                        m->base_version, "base_sha256", m->base_sha256, "base_commit", m->base_commit);
  if (o && (kg_fields_to_json(o, m, k_pair_meta, NULL, NFIELDS(k_pair_meta), KG_FORM_FILE) ||
            json_object_set_new(o, "cells", cells ? cells : json_array())))
    json_decref(o), o = NULL;
  if (o && m->sequential &&
      (json_object_set_new(o, "sequential", seq_json(m, k_pair_seq, NFIELDS(k_pair_seq))) ||
       json_object_set_new(o, "variants", pools ? pools : json_array())))
    json_decref(o), o = NULL;
  else if (!o || !m->sequential)
    json_decref(pools);
  return o;
}

/* A module's text (a seed, an idea, a version) by the loader's rule
 * (fields.h); kg_jrd_text's buffer bounds its length. */
static const char *why_bad_text(const char *s) { return kg_why_bad_module_text(s, SIZE_MAX); }

/* "paired.variants": a variant's dtypes pooled (optional: a sequential run's). */
static void read_pools(kg_jrd *r, json_t *o, kg_run *run) {
  json_t *arr = json_object_get(o, "variants");
  if (!arr) return;
  if (!json_is_array(arr)) {
    kg_jrd_fail(r, "variants is not an array");
    return;
  }
  size_t n = json_array_size(arr);
  run->pools = calloc(n ? n : 1, sizeof *run->pools);
  if (!run->pools) {
    kg_jrd_fail(r, "out of memory");
    return;
  }
  for (size_t i = 0; i < n && !r->failed; i++) {
    static const char *const k_pool_keys[] = {"variant", "verdict", "n", "cells", "blocks", "min_effect",
                                              "llr_slower", "llr_faster", NULL};
    json_t *c = json_array_get(arr, i);
    kg_pair_pool *q = &run->pools[i];
    snprintf(r->where, sizeof r->where, "paired.variants[%zu]", i);
    if (json_is_object(c)) kg_jrd_keys(r, c, k_pool_keys);
    kg_jrd_text(r, c, "variant", q->variant, sizeof q->variant, kg_why_bad_variant);
    const char *verdict = kg_jrd_str(r, c, "verdict");
    long long nn = kg_jrd_int(r, c, "n");
    q->cells = (int)kg_jrd_int(r, c, "cells");
    q->blocks = (int)kg_jrd_int(r, c, "blocks");
    q->min_effect = kg_jrd_num(r, c, "min_effect");
    q->llr_slower = kg_jrd_num(r, c, "llr_slower");
    q->llr_faster = kg_jrd_num(r, c, "llr_faster");
    if (r->failed) return;
    char cell[160];
    kg_entry_label(q->variant, "pooled", nn, cell, sizeof cell);
    q->verdict = KG_NPVERDICTS;
    for (int v = 0; v < KG_NPVERDICTS; v++)
      if (!strcmp(verdict, kg_pverdict_name((kg_pverdict)v))) q->verdict = (kg_pverdict)v;
    int decided = q->verdict == KG_PV_SAME || q->verdict == KG_PV_SLOWER || q->verdict == KG_PV_FASTER;
    if (q->verdict != KG_PV_UNDECIDED && !decided)
      kg_jrd_fail(r, "verdict '%s' is not one of a pool (%s)", verdict, cell);
    else if (nn < 0 || q->cells < 1 || q->blocks < 0) kg_jrd_fail(r, "negative n or blocks, or no cells (%s)", cell);
    else if (decided && q->blocks < 2)
      kg_jrd_fail(r, "%s with %d blocks: a verdict needs blocks (%s)", verdict, q->blocks, cell);
    else if (!isfinite(q->llr_slower) || !isfinite(q->llr_faster) || !(q->min_effect > 0 && isfinite(q->min_effect)))
      kg_jrd_fail(r, "llr_slower, llr_faster and min_effect must be finite, min_effect > 0 (%s)", cell);
    q->n = (size_t)nn;
    run->npools = i + 1;
  }
}

/* "sequential": absent before the sequential decision (the interval decided). */
static void read_pair_seq(kg_jrd *r, json_t *o, kg_pair_meta *m) {
  json_t *seq = json_object_get(o, "sequential");
  if (seq && !r->failed) {
    snprintf(r->where, sizeof r->where, "paired.sequential");
    m->sequential = 1;
    kg_fields_from_json(r, seq, m, k_pair_seq, NULL, NFIELDS(k_pair_seq));
    if (!r->failed && !(m->alpha > 0 && m->alpha < 0.5 && m->beta > 0 && m->beta < 0.5 && m->delta0_share > 0 &&
                        m->delta0_share < 1 && isfinite(m->llr_upper) && isfinite(m->llr_lower) &&
                        m->llr_lower < 0 && m->llr_upper > 0 && m->change_rounds >= 1))
      kg_jrd_fail(r, "alpha and beta must lie in (0, 0.5), delta0_share in (0, 1), llr_lower < 0 < llr_upper, "
                     "change_rounds >= 1");
    snprintf(r->where, sizeof r->where, "paired");
  }
}

/* One of "cells": -1 when r failed before its checks, else 0 (r may have failed in them). */
static int read_pair_cell(kg_jrd *r, json_t *c, const kg_pair_meta *m, kg_pair_cell *pc) {
  static const char *const k_cell_keys[] = {"variant", "dtype", "n", "verdict", "ratio", "lo", "hi", "head_us",
                                            "base_us", "min_effect", "blocks", "pairs", "rounds", "set_aside",
                                            "message", "llr_slower", "llr_faster", NULL};
  kg_jrd_text(r, c, "variant", pc->variant, sizeof pc->variant, kg_why_bad_variant);
  const char *dtype = kg_jrd_str(r, c, "dtype"), *verdict = kg_jrd_str(r, c, "verdict");
  long long nn = kg_jrd_int(r, c, "n");
  kg_pair_stat *st = &pc->stat;
  kg_fields_from_json(r, c, pc, k_pair_cell, NULL, NFIELDS(k_pair_cell));
  kg_jrd_text(r, c, "message", pc->message, sizeof pc->message, NULL);
  if (json_is_object(c)) kg_jrd_keys(r, c, k_cell_keys);
  if (r->failed) return -1;
  st->verdict = KG_NPVERDICTS;
  for (int v = 0; v < KG_NPVERDICTS; v++)
    if (!strcmp(verdict, kg_pverdict_name((kg_pverdict)v))) st->verdict = (kg_pverdict)v;
  char cell[160]; /* the cell, named in what is refused */
  kg_entry_label(pc->variant, dtype, nn, cell, sizeof cell);
  int decided = st->verdict == KG_PV_SAME || st->verdict == KG_PV_SLOWER || st->verdict == KG_PV_FASTER;
  json_t *ls = json_object_get(c, "llr_slower"), *lf = json_object_get(c, "llr_faster");
  if (ls || lf) {
    pc->sequential = 1;
    pc->llr_slower = kg_jrd_num(r, c, "llr_slower");
    pc->llr_faster = kg_jrd_num(r, c, "llr_faster");
    if (r->failed) return -1;
  }
  if (kg_dtype_parse(dtype, &pc->dtype)) kg_jrd_fail(r, "unknown dtype '%s'", dtype);
  else if (st->verdict == KG_NPVERDICTS) kg_jrd_fail(r, "unknown verdict '%s'", verdict);
  else if (nn < 0 || st->blocks < 0 || st->pairs < 0 || pc->rounds < 0 || pc->set_aside < 0)
    kg_jrd_fail(r, "negative n, blocks, pairs, rounds or set_aside (%s)", cell);
  else if (decided && st->blocks < 2) /* SAME, SLOWER and FASTER are decided on two blocks or more */
    kg_jrd_fail(r, "%s with %d blocks: a verdict needs blocks (%s)", verdict, st->blocks, cell);
  else if (pc->sequential && !(isfinite(pc->llr_slower) && isfinite(pc->llr_faster)))
    kg_jrd_fail(r, "llr_slower and llr_faster must be finite (%s)", cell);
  else if (pc->sequential && m->sequential && decided &&
           ((st->verdict == KG_PV_SLOWER && pc->llr_slower < m->llr_upper) ||
            (st->verdict == KG_PV_FASTER && pc->llr_faster < m->llr_upper) ||
            (st->verdict == KG_PV_SAME && (pc->llr_slower > m->llr_lower || pc->llr_faster > m->llr_lower))))
    kg_jrd_fail(r, "%s but llr_slower %g and llr_faster %g do not reach the bounds %g / %g (%s)", verdict,
                pc->llr_slower, pc->llr_faster, m->llr_lower, m->llr_upper, cell);
  else if (st->blocks > 0 && pc->rounds < 1) /* its blocks came from the rounds that timed it */
    kg_jrd_fail(r, "rounds is 0 with %d blocks: a measured cell was timed in 1 round or more", st->blocks);
  else if (st->blocks > 0 && !(st->lo > 0 && st->lo <= st->ratio && st->ratio <= st->hi && isfinite(st->hi) &&
                               st->head_us > 0 && isfinite(st->head_us) && st->base_us > 0 && isfinite(st->base_us)))
    kg_jrd_fail(r, "ratio and interval must be finite with 0 < lo <= ratio <= hi, times > 0");
  pc->n = (size_t)nn;
  return 0;
}

static void read_paired(kg_jrd *r, json_t *o, kg_run *run) {
  kg_pair_meta *m = &run->pair;
  snprintf(r->where, sizeof r->where, "paired");
  m->on = 1;
  static const char *const k_keys[] = {"base_path", "base_name", "base_version", "base_sha256", "base_commit",
                                       "budget_s", "cells", "confidence", "copies", "max_rounds", "min_effect_pct",
                                       "quads", "rounds", "wall_s", "sequential", "variants", NULL};
  kg_jrd_text(r, o, "base_path", m->base_path, sizeof m->base_path, kg_why_bad_path);
  kg_jrd_text(r, o, "base_name", m->base_name, sizeof m->base_name, why_bad_text);
  kg_jrd_text(r, o, "base_version", m->base_version, sizeof m->base_version, why_bad_text);
  /* absent before the nightly's pins: unknown, read as "" */
  if (json_object_get(o, "base_sha256"))
    kg_jrd_text(r, o, "base_sha256", m->base_sha256, sizeof m->base_sha256, kg_why_bad_hex_list);
  if (json_object_get(o, "base_commit"))
    kg_jrd_text(r, o, "base_commit", m->base_commit, sizeof m->base_commit, kg_why_bad_hex_list);
  kg_fields_from_json(r, o, m, k_pair_meta, NULL, NFIELDS(k_pair_meta));
  read_pair_seq(r, o, m);
  json_t *cells = kg_jrd_arr(r, o, "cells");
  size_t n = json_array_size(cells);
  kg_jrd_keys(r, o, k_keys);
  if (r->failed) return;
  if (!(m->confidence > 0 && m->confidence < 1)) {
    kg_jrd_fail(r, "confidence must lie in (0, 1)");
    return;
  }
  /* A paired run gives every cell its rounds: none is no paired run at all. */
  if (m->rounds < 1 || m->max_rounds < m->rounds) {
    kg_jrd_fail(r, "rounds is %d and max_rounds %d: a paired run has 1 <= rounds <= max_rounds", m->rounds,
                m->max_rounds);
    return;
  }
  run->pairs = calloc(n ? n : 1, sizeof *run->pairs);
  if (!run->pairs) {
    kg_jrd_fail(r, "out of memory");
    return;
  }
  for (size_t i = 0; i < n && !r->failed; i++) {
    json_t *c = json_array_get(cells, i);
    kg_pair_cell *pc = &run->pairs[i];
    snprintf(r->where, sizeof r->where, "paired.cells[%zu]", i);
    if (read_pair_cell(r, c, m, pc)) return;
    run->npairs = i + 1;
  }
  if (!r->failed) read_pools(r, o, run);
}

/* ---- "variants": the facts of variants that are not kgate's own ---------- */

static const char *const k_flag_names[] = {"in-place", "float-atomics"}; /* KG_CLOBBERS, KG_FLOAT_ATOMICS */

static json_t *facts_json(const kg_variant_info *v) {
  json_t *flags = json_array(), *dtypes = json_array();
  for (unsigned b = 0; b < 2; b++)
    if (v->flags >> b & 1) json_array_append_new(flags, json_string(k_flag_names[b]));
  for (int d = 0; d < KG_NDTYPES; d++)
    if (v->dtypes & KG_DT_BIT(d)) json_array_append_new(dtypes, json_string(kg_dtype_get((kg_dtype)d)->name));
  json_t *o = json_pack("{ss ss so so ss}", "seed", v->seed, "idea", v->idea, "flags", flags, "dtypes", dtypes, "op",
                        kg_op_name(v->op));
  if (o && v->op != KG_OP_SUM) json_object_set_new(o, "nan", json_string(kg_nan_name(v->nan)));
  if (o && v->module > 0) json_object_set_new(o, "module", json_string(kg_registry_module_path(v->module)));
  return o;
}

/* NULL when every variant of the run is kgate's own (or its facts are unknown). */
static json_t *variants_json(const kg_run *run) {
  json_t *o = NULL;
  for (size_t i = 0; i < run->n; i++) {
    int v = run->cases[i].variant;
    if (v < 0 || (size_t)v >= kg_nvariants) continue;
    const kg_variant_info *vi = &kg_variants[v];
    if (vi->module == 0 || !vi->known || (o && json_object_get(o, vi->name))) continue;
    if (!o) o = json_object();
    if (o) json_object_set_new(o, vi->name, facts_json(vi));
  }
  return o;
}

/* Reads "variants" (optional) into the registry: names kgate does not know
 * get the file's facts, so their op decides how they are reported. */
static void read_variants(kg_jrd *r, json_t *doc) {
  json_t *vs = json_object_get(doc, "variants");
  if (!vs) return;
  snprintf(r->where, sizeof r->where, "variants");
  if (!json_is_object(vs)) {
    kg_jrd_fail(r, "not an object");
    return;
  }
  const char *name;
  json_t *o;
  json_object_foreach(vs, name, o) {
    char shown[72], seed[64], idea[160];
    snprintf(r->where, sizeof r->where, "variants.%s", kg_esc_term(name, shown, sizeof shown));
    if (!kg_variant_name_ok(name)) {
      kg_jrd_fail(r, "a variant name is [a-z0-9_], 1..63 characters");
      return;
    }
    if (!json_is_object(o)) {
      kg_jrd_fail(r, "not an object");
      return;
    }
    kg_jrd_text(r, o, "seed", seed, sizeof seed, why_bad_text);
    kg_jrd_text(r, o, "idea", idea, sizeof idea, why_bad_text);
    json_t *flags = kg_jrd_arr(r, o, "flags"), *dtypes = kg_jrd_arr(r, o, "dtypes");
    const char *op = kg_jrd_str(r, o, "op");
    json_t *nanj = json_object_get(o, "nan");
    if (r->failed) return;
    kg_variant_info vi = {name, seed, idea, 0, 0, 0, 0, -1, 1};
    for (size_t i = 0; i < json_array_size(flags) && !r->failed; i++) {
      const char *f = json_string_value(json_array_get(flags, i));
      int b = f && !strcmp(f, k_flag_names[0]) ? 0 : f && !strcmp(f, k_flag_names[1]) ? 1 : -1;
      if (b < 0) kg_jrd_fail(r, "flags[%zu] is not \"in-place\" or \"float-atomics\"", i);
      else vi.flags |= 1u << b;
    }
    for (size_t i = 0; i < json_array_size(dtypes) && !r->failed; i++) {
      const char *d = json_string_value(json_array_get(dtypes, i));
      kg_dtype dt;
      if (!d || kg_dtype_parse(d, &dt)) kg_jrd_fail(r, "dtypes[%zu] is not a dtype name", i);
      else vi.dtypes |= KG_DT_BIT(dt);
    }
    if (r->failed) return;
    if (kg_op_parse(op, &vi.op))
      kg_jrd_fail(r, "op '%s' is not sum, min, max or unknown", kg_esc_term(op, shown, sizeof shown));
    else if (nanj && (!json_is_string(nanj) || kg_nan_parse(json_string_value(nanj), &vi.nan)))
      kg_jrd_fail(r, "nan is not \"propagate\" or \"ignore\"");
    else if (vi.nan && vi.op == KG_OP_SUM) kg_jrd_fail(r, "a sum has no NaN policy");
    if (r->failed) return;
    if (vi.op == KG_OP_UNKNOWN) vi.known = 0;
    char e[200];
    if (kg_variant_intern(name, &vi, e, sizeof e) < 0) kg_jrd_fail(r, "%s", e);
  }
}

int kg_variants_write(const char *path, char *err, size_t errlen) {
  json_t *list = json_array();
  for (size_t v = 0; list && v < kg_nvariants; v++) {
    json_t *o = facts_json(&kg_variants[v]);
    if (!o || json_object_set_new(o, "name", json_string(kg_variants[v].name)) || json_array_append_new(list, o))
      json_decref(list), list = NULL;
  }
  json_t *doc = json_pack("{ss si so}", "kind", "kgate-list", "schema_version", 1, "variants", list);
  int rc = kg_json_write(path, doc, "variants", err, errlen);
  json_decref(doc);
  return rc;
}

json_t *kg_results_json(const kg_run *run) {
  json_t *cases = json_array();
  for (size_t i = 0; cases && i < run->n; i++)
    if (json_array_append_new(cases, case_json(run, i))) json_decref(cases), cases = NULL;
  json_t *doc = json_pack("{ss si so so}", "kind", "kgate-results", "schema_version", KG_RESULTS_SCHEMA, "run",
                          run_json(&run->meta), "cases", cases);
  json_t *facts = doc ? variants_json(run) : NULL;
  if (facts) json_object_set_new(doc, "variants", facts);
  if (doc && run->pair.on) json_object_set_new(doc, "paired", paired_json(run));
  if (doc && run->check.on) json_object_set_new(doc, "check_record", kg_crec_to_json(&run->check, 1));
  json_t *lint = doc && run->nlint ? lint_json(run) : NULL;
  if (doc && run->nlint && (!lint || json_object_set_new(doc, "lint", lint))) json_decref(doc), doc = NULL;
  return doc;
}

int kg_results_write(const char *path, const kg_run *run, char *err, size_t errlen) {
  json_t *doc = kg_results_json(run);
  int rc = kg_json_write(path, doc, KG_RESULTS_LIST, err, errlen);
  json_decref(doc);
  return rc;
}

static void read_meta(kg_jrd *r, json_t *doc, kg_run_meta *m) {
  static const char *const k_keys[] = {"date", "device", "incomplete", "kgate_commit", "kgate_version", "options",
                                       "phases", "provenance", "signal", "toolchain", "wall_s", NULL};
  static const char *const k_opt_keys[] = {"hot", "max_noise", "max_seconds", "min_samples", "repeats", "seed",
                                           "shard", "tolerance_pct", NULL};
  static const char *const k_phase_keys[] = {"check_s", "inputs_s", "paired_s", "reports_s", "startup_s", "timing_s",
                                             NULL};
  json_t *o = kg_jrd_obj(r, doc, "run", 0);
  snprintf(r->where, sizeof r->where, "run");
  /* The date, commit and version reach titles, pages and file names. */
  kg_jrd_text(r, o, "date", m->date, sizeof m->date, kg_why_bad_date);
  kg_jrd_text(r, o, "kgate_version", m->version, sizeof m->version, kg_why_bad_commit);
  kg_jrd_text(r, o, "kgate_commit", m->commit, sizeof m->commit, kg_why_bad_commit);
  m->wall_s = kg_jrd_real(r, o, "wall_s", 0, 1e9, NAN);
  json_t *opt = kg_jrd_obj(r, o, "options", 0), *dev = kg_jrd_obj(r, o, "device", 0);
  snprintf(r->where, sizeof r->where, "run.options");
  m->seed = (uint64_t)kg_jrd_range(r, opt, "seed", 0, LLONG_MAX);
  m->repeats = (int)kg_jrd_range(r, opt, "repeats", 0, 1000000);
  m->time.hot = kg_jrd_bool(r, opt, "hot");
  m->time.max_noise = kg_jrd_real(r, opt, "max_noise", 0, 1e6, NAN);
  m->time.min_samples = (int)kg_jrd_range(r, opt, "min_samples", 0, INT_MAX);
  m->time.max_seconds = kg_jrd_real(r, opt, "max_seconds", 0, 1e9, NAN);
  m->tolerance = kg_jrd_real(r, opt, "tolerance_pct", 0, 1e6, NAN);
  json_t *shard = json_object_get(opt, "shard"); /* optional: only sharded runs have it */
  unsigned si, sn;
  if (shard && !r->failed) {
    kg_jrd_text(r, opt, "shard", m->shard, sizeof m->shard, NULL);
    if (!r->failed && kg_shard_parse(m->shard, &si, &sn)) kg_jrd_fail(r, "shard is not i/N");
  }
  if (opt) kg_jrd_keys(r, opt, k_opt_keys);
  json_t *inc = json_object_get(o, "incomplete"), *sig = json_object_get(o, "signal"); /* optional */
  const char *signame = json_is_string(sig) ? json_string_value(sig) : "";
  snprintf(r->where, sizeof r->where, "run");
  if (inc && !json_is_boolean(inc)) kg_jrd_fail(r, "field 'incomplete' should be true or false");
  else if (json_is_true(inc) && strcmp(signame, "SIGINT") && strcmp(signame, "SIGTERM"))
    kg_jrd_fail(r, "field 'signal' should be \"SIGINT\" or \"SIGTERM\" in an incomplete run");
  else if (json_is_true(inc)) snprintf(m->incomplete, sizeof m->incomplete, "%s", signame);
  json_t *ph = json_object_get(o, "phases"); /* optional: files before it */
  snprintf(r->where, sizeof r->where, "run.phases");
  if (ph && !r->failed && !json_is_object(ph)) kg_jrd_fail(r, "should be an object");
  else if (ph && !r->failed) {
    kg_jrd_keys(r, ph, k_phase_keys);
    kg_fields_from_json(r, ph, &m->phases, k_phases, NULL, sizeof k_phases / sizeof k_phases[0]);
    m->phases.known = 1;
  }
  json_t *prov = json_object_get(o, "provenance"); /* optional: runs outside CI, and files before it */
  snprintf(r->where, sizeof r->where, "run.provenance");
  if (prov && !r->failed) kg_provenance_read(r, prov, &m->prov);
  snprintf(r->where, sizeof r->where, "run.device");
  char e[300];
  if (!r->failed && kg_device_from_json(dev, &m->dev, KG_FORM_FILE, e, sizeof e)) kg_jrd_fail(r, "%s", e);
  json_t *tc = json_object_get(o, "toolchain"); /* optional: nothing known, and files before it */
  snprintf(r->where, sizeof r->where, "run.toolchain");
  if (tc && !r->failed) kg_toolchain_read(r, tc, &m->dev.toolchain);
  snprintf(r->where, sizeof r->where, "run");
  if (o) kg_jrd_keys(r, o, k_keys);
}

static void read_case(kg_jrd *r, json_t *o, kg_case *c, kg_result *res) {
  static const char *const k_keys[] = {"abs_err", "bound", "carried", "check_us", "depth", "device", "dtype",
                                       "expected", "fail", "got", "guard", "input_modified", "input_us", "message", "n",
                                       "nondeterministic", "pattern", "ratio", "repeats", "status", "supported",
                                       "time_us", "timed", "timing", "variant", NULL};
  const char *variant = kg_jrd_str(r, o, "variant"), *dtype = kg_jrd_str(r, o, "dtype");
  long long n = kg_jrd_range(r, o, "n", 0, (long long)KG_SIZE_MAX);
  const char *pattern = kg_jrd_str(r, o, "pattern");
  char shown[72];
  if (r->failed) return;
  char why[200];
  /* A name kgate has never seen is data: kept, timed, charted (varreg.h). */
  if ((c->variant = kg_variant_intern(variant, NULL, why, sizeof why)) < 0)
    kg_jrd_fail(r, "variant '%s': %s", kg_esc_term(variant, shown, sizeof shown), why);
  else if (kg_dtype_parse(dtype, &c->dtype))
    kg_jrd_fail(r, "unknown dtype '%s'", kg_esc_term(dtype, shown, sizeof shown));
  else if (kg_pattern_parse(pattern, &c->pattern))
    kg_jrd_fail(r, "unknown pattern '%s'", kg_esc_term(pattern, shown, sizeof shown));
  if (r->failed) return;
  c->n = (size_t)n;
  /* Past its status a message names the case, not only its index. */
  char label[sizeof r->where];
  snprintf(label, sizeof label, " (%s %s %zu %s)", variant, dtype, c->n, pattern);
  kg_result_read(r, o, res, label);
  c->supported = kg_jrd_bool(r, o, "supported");
  c->timed = kg_jrd_bool(r, o, "timed");
  /* A case the variant cannot run is never timed (plan.c): a timing there is made up. */
  if (!r->failed && !c->supported && res->timing.samples)
    kg_jrd_fail(r, "supported is false, yet the case has a timing: kgate times only cases it can run");
  else if (!r->failed && !c->supported && c->timed)
    kg_jrd_fail(r, "supported is false, yet timed is true: kgate times only cases it can run");
  else if (!r->failed && res->carried && (res->status != KG_ST_PASS || c->n < KG_CARRY_MIN_N))
    kg_jrd_fail(r, "carried is true, yet the case %s: kgate carries over only passed cases of %zu elements or more",
                res->status != KG_ST_PASS ? "did not pass" : "is smaller", KG_CARRY_MIN_N);
  else if (!r->failed && res->guard.on && !c->timed)
    kg_jrd_fail(r, "the case has a guard, yet timed is false: only a timed case is guarded");
  kg_jrd_keys(r, o, k_keys); /* as closed as the schema: a misspelt key is an error, never dropped */
}

/* Cases in (variant, dtype, n, pattern) order. */
static int case_cmp(const void *pa, const void *pb) {
  const kg_case *a = pa, *b = pb;
  if (a->variant != b->variant) return a->variant < b->variant ? -1 : 1;
  if (a->dtype != b->dtype) return a->dtype < b->dtype ? -1 : 1;
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  return (a->pattern > b->pattern) - (a->pattern < b->pattern);
}

/* A case twice in one file is refused: which timing would be the truth? */
static void refuse_duplicates(kg_jrd *r, const kg_run *run) {
  size_t i, j;
  if (!kg_find_duplicate(r, run->cases, run->n, sizeof *run->cases, case_cmp, &i, &j)) return;
  const kg_case *b = &run->cases[j];
  snprintf(r->where, sizeof r->where, "cases[%zu] (%s %s %zu %s)", j, kg_variants[b->variant].name,
           kg_dtype_get(b->dtype)->name, b->n, kg_pattern_name(b->pattern));
  kg_jrd_fail(r, "the same case as cases[%zu]: a case appears once in a results file", i);
}

/* "lint" (optional): read back for the page and the merge; text that
 * cannot be what a lint wrote (control characters, a side it has not) is
 * refused, naming the field. */
enum { LINT_MAX_MODULES = 64, LINT_MAX_ITEMS = 100000 };

static void read_lint_item(kg_jrd *r, json_t *o, kg_lint_item *x) {
  static const char *const k_keys[] = {"kernel", "arch", "side", "first", "second", "path", NULL};
  if (json_is_object(o)) kg_jrd_keys(r, o, k_keys);
  kg_jrd_text(r, o, "kernel", x->kernel, sizeof x->kernel, why_bad_text);
  x->arch = (int)kg_jrd_range(r, o, "arch", 0, 1000);
  kg_jrd_text(r, o, "side", x->side, sizeof x->side, NULL);
  kg_jrd_text(r, o, "first", x->first, sizeof x->first, why_bad_text);
  kg_jrd_text(r, o, "second", x->second, sizeof x->second, why_bad_text);
  kg_jrd_text(r, o, "path", x->path, sizeof x->path, why_bad_text);
  if (!r->failed && strcmp(x->side, "release") && strcmp(x->side, "acquire") && strcmp(x->side, "scope"))
    kg_jrd_fail(r, "side '%s' is not release, acquire or scope", x->side);
}

static void read_lint_module(kg_jrd *r, json_t *o, kg_lint_module *m, size_t k) {
  snprintf(r->where, sizeof r->where, "lint[%zu]", k);
  static const char *const k_keys[] = {"module", "ran", "off", "why", "kernels", "tickets", "unknown_calls",
                                       "findings", "waived", "notes", NULL};
  kg_jrd_text(r, o, "module", m->path, sizeof m->path, kg_why_bad_path);
  m->ran = kg_jrd_bool(r, o, "ran");
  kg_jrd_keys(r, o, k_keys);
  if (r->failed) return;
  if (!m->ran) {
    /* "off" (optional): the run said --lint off; absent, a lint not run fails */
    if (json_object_get(o, "off")) m->off = kg_jrd_bool(r, o, "off");
    kg_jrd_text(r, o, "why", m->why, sizeof m->why, why_bad_text);
    return;
  }
  m->kernels = (int)kg_jrd_range(r, o, "kernels", 0, INT_MAX);
  m->tickets = (int)kg_jrd_range(r, o, "tickets", 0, INT_MAX);
  m->unknown_calls = (int)kg_jrd_range(r, o, "unknown_calls", 0, INT_MAX);
  json_t *items = kg_jrd_arr(r, o, "findings"), *waived = kg_jrd_arr(r, o, "waived");
  size_t ni = json_array_size(items), nw = json_array_size(waived);
  if (!r->failed && (ni > LINT_MAX_ITEMS || nw > LINT_MAX_ITEMS))
    kg_jrd_fail(r, "more than %d findings or waivers", LINT_MAX_ITEMS);
  if (r->failed) return;
  m->items = calloc(ni + 1, sizeof *m->items), m->waived = calloc(nw + 1, sizeof *m->waived);
  if (!m->items || !m->waived) {
    kg_jrd_fail(r, "out of memory");
    return;
  }
  for (size_t i = 0; i < ni && !r->failed; i++) {
    snprintf(r->where, sizeof r->where, "lint[%zu].findings[%zu]", k, i);
    read_lint_item(r, json_array_get(items, i), &m->items[m->nitems++]);
  }
  json_t *notes = json_object_get(o, "notes"); /* optional: absent, none */
  if (notes && !json_is_array(notes)) kg_jrd_fail(r, "notes is not an array");
  size_t nn = json_array_size(notes);
  if (!r->failed && nn > LINT_MAX_ITEMS) kg_jrd_fail(r, "more than %d notes", LINT_MAX_ITEMS);
  if (!r->failed && nn && !(m->notes = calloc(nn, sizeof *m->notes))) kg_jrd_fail(r, "out of memory");
  for (size_t i = 0; i < nn && !r->failed; i++) {
    static const char *const k_note_keys[] = {"kernel", "arch", "at", "why", NULL};
    json_t *x = json_array_get(notes, i);
    kg_lint_item *it = &m->notes[m->nnotes++];
    snprintf(r->where, sizeof r->where, "lint[%zu].notes[%zu]", k, i);
    if (!json_is_object(x)) kg_jrd_fail(r, "is not an object");
    else kg_jrd_keys(r, x, k_note_keys);
    kg_jrd_text(r, x, "kernel", it->kernel, sizeof it->kernel, why_bad_text);
    it->arch = (int)kg_jrd_range(r, x, "arch", 0, 1000);
    snprintf(it->side, sizeof it->side, "note");
    kg_jrd_text(r, x, "at", it->first, sizeof it->first, why_bad_text);
    kg_jrd_text(r, x, "why", it->second, sizeof it->second, why_bad_text);
  }
  for (size_t i = 0; i < nw && !r->failed; i++) {
    json_t *w = json_array_get(waived, i);
    kg_lint_waived *x = &m->waived[m->nwaived++];
    snprintf(r->where, sizeof r->where, "lint[%zu].waived[%zu]", k, i);
    static const char *const k_wkeys[] = {"variant", "reason", "findings", NULL};
    if (json_is_object(w)) kg_jrd_keys(r, w, k_wkeys);
    kg_jrd_text(r, w, "variant", x->variant, sizeof x->variant, why_bad_text);
    kg_jrd_text(r, w, "reason", x->reason, sizeof x->reason, why_bad_text);
    x->findings = (int)kg_jrd_range(r, w, "findings", 0, INT_MAX);
  }
}

static void read_lint(kg_jrd *r, json_t *a, kg_run *run) {
  snprintf(r->where, sizeof r->where, "lint");
  size_t n = json_array_size(a);
  if (!json_is_array(a) || n > LINT_MAX_MODULES) {
    kg_jrd_fail(r, "lint is not an array of at most %d modules", LINT_MAX_MODULES);
    return;
  }
  run->lint = calloc(n + 1, sizeof *run->lint);
  if (!run->lint) {
    kg_jrd_fail(r, "out of memory");
    return;
  }
  for (size_t k = 0; k < n && !r->failed; k++) {
    json_t *o = json_array_get(a, k);
    run->nlint = k + 1;
    if (!json_is_object(o)) kg_jrd_fail(r, "lint[%zu] is not an object", k);
    else read_lint_module(r, o, &run->lint[k], k);
  }
}

int kg_results_read(const char *path, kg_run *run, char *err, size_t errlen) {
  memset(run, 0, sizeof *run);
  json_t *doc;
  if (kg_json_load(path, &doc, err, errlen)) return -1;
  kg_jrd r = {.file = path, .err = err, .errlen = errlen};
  const char *kind = kg_jrd_str(&r, doc, "kind");
  char shown[72];
  if (!r.failed && strcmp(kind, "kgate-results") != 0)
    kg_jrd_fail(&r, "not a kgate results file (kind '%s')", kg_esc_term(kind, shown, sizeof shown));
  long long version = kg_jrd_int(&r, doc, "schema_version");
  if (!r.failed && (version < 1 || version > KG_RESULTS_SCHEMA))
    kg_jrd_fail(&r, "schema_version %lld is not supported (this kgate reads 1 to %d)", version, KG_RESULTS_SCHEMA);
  /* Every object as closed as its schema: a misspelt key is an error, never dropped. */
  static const char *const k_keys[] = {"kind", "schema_version", "run", "cases", "variants", "paired", "check_record",
                                       "lint", "verdict", NULL};
  read_meta(&r, doc, &run->meta);
  if (!r.failed) read_variants(&r, doc);
  r.where[0] = '\0';
  json_t *cases = kg_jrd_arr(&r, doc, "cases");
  size_t n = json_array_size(cases);
  if (!r.failed) {
    run->cases = calloc(n ? n : 1, sizeof *run->cases);
    run->results = calloc(n ? n : 1, sizeof *run->results);
    if (!run->cases || !run->results) kg_jrd_fail(&r, "out of memory");
  }
  for (size_t i = 0; i < n && !r.failed; i++) {
    json_t *o = json_array_get(cases, i);
    snprintf(r.where, sizeof r.where, "cases[%zu]", i);
    if (!json_is_object(o)) kg_jrd_fail(&r, "not an object");
    else read_case(&r, o, &run->cases[i], &run->results[i]);
  }
  run->n = n;
  if (!r.failed) refuse_duplicates(&r, run);
  r.where[0] = '\0';
  kg_jrd_keys(&r, doc, k_keys);
  json_t *paired = json_object_get(doc, "paired"); /* optional: only paired runs have it */
  if (!r.failed && paired) {
    if (!json_is_object(paired)) kg_jrd_fail(&r, "paired is not an object");
    else read_paired(&r, paired, run);
  }
  json_t *lint = json_object_get(doc, "lint"); /* optional: runs that linted */
  if (!r.failed && lint) read_lint(&r, lint, run);
  json_t *rec = json_object_get(doc, "check_record"); /* optional: runs that probed their groups */
  if (!r.failed && rec) {
    snprintf(r.where, sizeof r.where, "check_record");
    if (!json_is_object(rec)) kg_jrd_fail(&r, "not an object");
    else kg_crec_read(&r, rec, &run->check);
  }
  json_decref(doc);
  if (r.failed) kg_run_free(run);
  return r.failed ? -1 : 0;
}

void kg_run_free(kg_run *run) {
  kg_crec_free(&run->check);
  for (size_t k = 0; k < run->nlint; k++) kg_lint_module_free(&run->lint[k]);
  free(run->lint);
  run->lint = NULL, run->nlint = 0;
  free(run->cases);
  free(run->results);
  free(run->pairs);
  free(run->pools);
  run->pools = NULL;
  run->npools = 0;
  run->cases = NULL;
  run->results = NULL;
  run->pairs = NULL;
  run->n = 0;
  run->npairs = 0;
}

/* ---- paired cells ------------------------------------------------------ */

static int cmp_cell(const void *pa, const void *pb) {
  const kg_pair_cell *a = pa, *b = pb;
  int d = kg_pverdict_rank(a->stat.verdict) - kg_pverdict_rank(b->stat.verdict);
  if (d) return d;
  d = strcmp(a->variant, b->variant);
  if (d) return d;
  if (a->dtype != b->dtype) return a->dtype < b->dtype ? -1 : 1;
  return (a->n > b->n) - (a->n < b->n);
}

void kg_pair_sort(kg_pair_cell *cells, size_t n) {
  if (n) qsort(cells, n, sizeof *cells, cmp_cell);
}

void kg_pair_count(const kg_pair_cell *cells, size_t n, size_t count[KG_NPVERDICTS]) {
  memset(count, 0, KG_NPVERDICTS * sizeof *count);
  for (size_t i = 0; i < n; i++)
    if ((unsigned)cells[i].stat.verdict < KG_NPVERDICTS) count[cells[i].stat.verdict]++;
}
