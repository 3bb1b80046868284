#include "basecmp.h"

#include <string.h>

#include "varreg.h"

/* Whether a paired run proved e's cell unchanged and left it untimed
 * (without --absolute-unchanged): the same code as its base, no time of
 * its own, so nothing for the baseline comparison to say. */
static int untimed_unchanged(const kg_base_entry *e, const kg_run *run) {
  int unchanged = 0;
  for (size_t i = 0; !unchanged && i < run->npairs; i++) {
    const kg_pair_cell *p = &run->pairs[i];
    unchanged = p->stat.verdict == KG_PV_UNCHANGED && p->dtype == e->dtype && p->n == e->n &&
                !strcmp(p->variant, e->variant);
  }
  for (size_t i = 0; unchanged && i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    if (c->timed && c->dtype == e->dtype && c->n == e->n && !strcmp(kg_variants[c->variant].name, e->variant) &&
        run->results[i].timing.samples)
      return 0;
  }
  return unchanged;
}

static void drop_untimed_unchanged(kg_baseline *b, const kg_run *run) {
  size_t kept = 0;
  for (size_t i = 0; i < b->n; i++)
    if (!untimed_unchanged(&b->entries[i], run)) b->entries[kept++] = b->entries[i];
  b->n = kept;
}

/* Keeps the baseline entries this run could have timed: a --variant, --dtype
 * or --perf-sizes selection must not report everything else as MISSING.
 * Variants the registry no longer knows stay, and show as MISSING. */
static void restrict_to_run(kg_baseline *b, const kg_run *run) {
  size_t kept = 0;
  for (size_t i = 0; i < b->n; i++) {
    const kg_base_entry *e = &b->entries[i];
    int v = kg_variant_find(e->variant), keep = v < 0, variant_timed = 0, size_timed = 0;
    for (size_t k = 0; k < run->n && !keep; k++) {
      const kg_case *c = &run->cases[k];
      if (!c->timed) continue;
      variant_timed |= c->variant == v && c->dtype == e->dtype;
      size_timed |= c->n == e->n;
      keep = variant_timed && size_timed;
    }
    if (keep) b->entries[kept++] = *e;
  }
  b->n = kept;
}

int kg_gate_compare_baseline(const char *path, double tolerance_pct, const kg_run *run, kg_comparison *cmp, int *have,
                             FILE *log) {
  char err[512];
  *have = 0;
  kg_baseline base, now;
  int rc = kg_baseline_load(path, &base, err, sizeof err);
  if (rc == 1) {
    fprintf(log, "kgate: no baseline %s for %s: every timed case is NEW (kgate baseline update writes one)\n", path,
            run->meta.dev.name);
    memset(&base, 0, sizeof base);
    base.dev = run->meta.dev;
  } else if (rc) {
    return fprintf(log, "kgate: %s\n", err), -1;
  }
  restrict_to_run(&base, run);
  if (kg_baseline_from_run(run, &now)) {
    kg_baseline_free(&base);
    return fprintf(log, "kgate: out of memory\n"), -1;
  }
  drop_untimed_unchanged(&base, run);
  drop_untimed_unchanged(&now, run);
  rc = kg_compare(&base, &now, tolerance_pct, cmp, err, sizeof err);
  kg_baseline_free(&base);
  kg_baseline_free(&now);
  if (rc) return fprintf(log, "kgate: %s\n", err), -1;
  *have = 1;
  return 0;
}
