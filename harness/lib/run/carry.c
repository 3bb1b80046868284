/* Checks carried over (carry.h). */
#include "carry.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "fields.h"
#include "varreg.h"

static int is_group_case(const kg_case *c) { return c->supported && c->n >= KG_CARRY_MIN_N; }

int kg_carry_probe(const kg_run *run, const kg_run_params *rp, const kg_super_opts *so, const kg_super_dev *devs,
                   size_t ndev, kg_device_info *devinfo, kg_carry_probes *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  out->jobs = calloc(run->n + 1, sizeof *out->jobs);
  out->res = calloc(run->n + 1, sizeof *out->res);
  out->patterns = calloc(run->n + 1, sizeof *out->patterns);
  if (!out->jobs || !out->res || !out->patterns)
    return snprintf(err, errlen, "out of memory"), kg_carry_probes_free(out), -1;
  for (size_t i = 0; i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    if (!is_group_case(c)) continue;
    size_t k = out->n;
    while (k-- > 0) /* cases of a group are neighbours in the plan */
      if (out->jobs[k].variant == c->variant && out->jobs[k].dtype == c->dtype && out->jobs[k].n == c->n) break;
    if (k == (size_t)-1) /* a new group: its job probes the perf pattern's case */
      k = out->n++, out->jobs[k] = (kg_case){c->variant, c->dtype, c->n, kg_perf_pattern(c->dtype), 1, 0};
    out->patterns[k] |= 1u << c->pattern;
  }
  if (!out->n) return 0;
  kg_run_params p = *rp;
  p.pair.on = 1, p.pair.probe = 2, p.pair.module = 0, p.pair.base_variant = -1, p.pair.round = 0;
  return kg_supervise_devices(out->jobs, out->n, &p, so, devs, ndev, out->res, devinfo, err, errlen);
}

void kg_carry_record(kg_run *run, const kg_carry_probes *p, const kg_code_table *head, const char *harness, int arch,
                     const kg_run_params *rp) {
  kg_crec *r = &run->check;
  kg_crec_free(r);
  snprintf(r->harness, sizeof r->harness, "%s", harness);
  r->arch = arch, r->seed = rp->seed, r->repeats = rp->repeats, r->on = 1;
  for (size_t j = 0; j < p->n; j++) {
    const kg_result *a = &p->res[j];
    kg_crec_group g = {0};
    char why[200];
    if (a->status != KG_ST_PASS || !a->probed || a->launch_same != 1 || !a->launch_digest[0] ||
        !kg_code_digest(head, arch, a->kernels, a->nkernels, a->launch_digest, &a->read, g.digest, why, sizeof why))
      continue; /* not provable: its cases are checked, and no record claims them */
    snprintf(g.variant, sizeof g.variant, "%s", kg_variants[p->jobs[j].variant].name);
    g.dtype = p->jobs[j].dtype, g.n = p->jobs[j].n;
    g.patterns = p->patterns[j];
    if (kg_crec_put(r, &g)) break; /* out of memory: fewer groups recorded, none wrongly */
  }
}

void kg_carry_probes_free(kg_carry_probes *p) {
  free(p->jobs), free(p->res), free(p->patterns);
  memset(p, 0, sizeof *p);
}

size_t kg_carry_apply(kg_run *run, const kg_case *sent, const kg_crec *rec, const char *from, FILE *log) {
  size_t carried = 0;
  int said_variant = -1;
  char why[120], shown[96], src[160];
  kg_esc_term(from, src, sizeof src);
  /* per group of the run's record */
  unsigned char *carries = calloc(run->check.n + 1, 1);
  if (!carries) return 0; /* out of memory: nothing carried, every case runs */
  for (size_t k = 0; k < run->check.n; k++) {
    const kg_crec_group *g = &run->check.g[k];
    int v = kg_variant_find_any(g->variant);
    carries[k] = v >= 0 && kg_crec_carries(rec, &run->check, g, why, sizeof why);
    if (v >= 0 && !carries[k] && log && why[0] && said_variant != v) { /* once a variant: its first group's reason */
      kg_entry_label(g->variant, kg_dtype_get(g->dtype)->name, (long long)g->n, shown, sizeof shown);
      fprintf(log, "kgate: %s is checked, not carried over from %s: %s (%s)\n", kg_variants[v].name, src, why, shown);
      said_variant = v;
    }
  }
  for (size_t i = 0; i < run->n; i++) { /* the cases of the groups that carry, but those the check times */
    const kg_case *c = &run->cases[i];
    if (!is_group_case(c) || sent[i].timed) continue;
    kg_crec_group *g = (kg_crec_group *)kg_crec_find(&run->check, kg_variants[c->variant].name, c->dtype, c->n);
    if (!g || !carries[g - run->check.g]) continue;
    kg_result *r = &run->results[i];
    memset(r, 0, sizeof *r);
    r->status = KG_ST_PASS, r->carried = 1;
    snprintf(r->message, sizeof r->message, "carried over from %.100s: same kgate, machine code and launches (%.16s)",
             from, g->digest);
    g->carried = 1;
    carried++;
  }
  free(carries);
  if (carried) snprintf(run->check.from, sizeof run->check.from, "%s", from);
  return carried;
}
