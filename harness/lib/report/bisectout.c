/* kgate bisect's outputs (bisectout.h). */
#include "bisectout.h"

#include <math.h>
#include <string.h>

#include "escape.h"

/* A log ratio as a signed percentage. */
static double pct(double m) { return 100 * expm1(m); }

static const char *cell_text(const kg_bisect_cell *c, char *buf, size_t len) {
  char n[32] = "any size";
  if (c->n) snprintf(n, sizeof n, "%zu", c->n);
  snprintf(buf, len, "%s %s %s", c->variant, c->dtype == KG_NDTYPES ? "any dtype" : kg_dtype_get(c->dtype)->name, n);
  return buf;
}

static const char *short_id(const kg_bisect_report *b, size_t i) {
  return i < b->r->n && b->ids ? b->ids[i] : "?";
}

/* Whether the result names the culprit, and whether it bounds the step by a range of commits. */
static int has_culprit(const kg_bisect_result *r) { return r->outcome == KG_BISECT_FOUND; }
static int has_range(const kg_bisect_result *r) { return r->last_cand > 0; }

void kg_bisect_print_term(FILE *f, const kg_bisect_report *b) {
  const kg_bisect_result *r = b->r;
  char buf[600];
  fprintf(f, "kgate bisect: %s\n", kg_esc_term(r->why, buf, sizeof buf));
  if (r->reproduce.runs)
    fprintf(f, "  reproduce: %+.3f %% [%+.3f, %+.3f] (estimate %+.3f %%)\n", pct(r->reproduce.m), pct(r->reproduce.lo),
            pct(r->reproduce.hi), pct(r->estimate));
  if (has_culprit(r)) fprintf(f, "  culprit: %s (parent %.12s)\n", short_id(b, r->culprit), short_id(b, r->parent));
  else if (has_range(r))
    fprintf(f, "  the step is at one of %zu commits, %.12s to %.12s\n", r->last_cand - r->first_cand + 1,
            short_id(b, r->first_cand), short_id(b, r->last_cand));
  if (r->verify.runs)
    fprintf(f, "  effect against its parent: %+.3f %% [%+.3f, %+.3f] (%d paired run%s)\n", pct(r->verify.m),
            pct(r->verify.lo), pct(r->verify.hi), r->verify.runs, r->verify.runs == 1 ? "" : "s");
  if (r->outcome == KG_BISECT_OUTSIDE)
    fprintf(f, "  what changed: %s\n",
            kg_esc_term(r->changed[0] ? r->changed : "no toolchain record given", buf, sizeof buf));
  fprintf(f, "  cells:");
  for (size_t k = 0; k < b->ncells; k++)
    fprintf(f, "%s %s", k ? "," : "", kg_esc_term(cell_text(&b->cells[k], buf, 200), buf + 200, 400));
  fprintf(f, "\n  commits: %zu, skipped as identical %zu, failed builds %zu, distinct machine code %zu (%s)\n", r->n,
          r->identical, r->skipped, r->ngroups, b->fp_how ? b->fp_how : "");
  fprintf(f, "  modules: %zu (%d builds run, %d from the cache)\n", r->built, b->made, b->cached);
  for (size_t s = 0; s < r->nsteps; s++) {
    const kg_bisect_step *st = &r->steps[s];
    fprintf(f, "  step %zu: %.12s vs %.12s: %+.3f %%, vs %.12s: %+.3f %%: %s\n", s + 1, short_id(b, st->mid),
            short_id(b, st->good), pct(st->left.m), short_id(b, st->bad), pct(st->right.m),
            st->verdict == 1 ? "bad" : st->verdict == 0 ? "good" : "undecided");
  }
  fprintf(f, "  time: %.0f s (builds %.0f s, paired runs %.0f s)\n", r->wall_s, r->build_s, r->measure_s);
}

static void md_commit(FILE *f, const kg_bisect_report *b, size_t i) {
  if (b->link) {
    fputs("[`", f);
    fprintf(f, "%.12s`](", short_id(b, i));
    kg_esc_md(f, b->link);
    fprintf(f, "%s)", short_id(b, i));
  } else {
    fprintf(f, "`%.12s`", short_id(b, i));
  }
}

void kg_bisect_print_md(FILE *f, const kg_bisect_report *b) {
  const kg_bisect_result *r = b->r;
  char buf[200];
  fputs("## kgate bisect: ", f);
  kg_esc_md(f, kg_bisect_outcome_name(r->outcome));
  fputs("\n\n", f);
  kg_esc_md(f, r->why);
  fputs("\n\n| | |\n|---|---|\n", f);
  if (has_culprit(r)) {
    fputs("| culprit | ", f);
    md_commit(f, b, r->culprit);
    fputs(" (parent ", f);
    md_commit(f, b, r->parent);
    fputs(") |\n", f);
  } else if (has_range(r)) {
    fprintf(f, "| the step | at one of %zu commits, ", r->last_cand - r->first_cand + 1);
    md_commit(f, b, r->first_cand);
    fputs(" to ", f);
    md_commit(f, b, r->last_cand);
    fputs(" |\n", f);
  }
  if (r->reproduce.runs)
    fprintf(f, "| reproduced | %+.3f %% [%+.3f, %+.3f], estimate %+.3f %% |\n", pct(r->reproduce.m),
            pct(r->reproduce.lo), pct(r->reproduce.hi), pct(r->estimate));
  if (r->verify.runs)
    fprintf(f, "| effect against its parent | %+.3f %% [%+.3f, %+.3f] |\n", pct(r->verify.m), pct(r->verify.lo),
            pct(r->verify.hi));
  if (r->outcome == KG_BISECT_OUTSIDE) {
    fputs("| what changed | ", f);
    kg_esc_md(f, r->changed[0] ? r->changed : "no toolchain record given");
    fputs(" |\n", f);
  }
  fputs("| cells | ", f);
  for (size_t k = 0; k < b->ncells; k++) {
    if (k) fputs(", ", f);
    kg_esc_md(f, cell_text(&b->cells[k], buf, sizeof buf));
  }
  fprintf(f, " |\n| commits | %zu: skipped as identical %zu, failed builds %zu, distinct machine code %zu |\n", r->n,
          r->identical, r->skipped, r->ngroups);
  fprintf(f, "| modules | %zu: %d builds run, %d from the cache |\n", r->built, b->made, b->cached);
  fprintf(f, "| time | %.0f s (builds %.0f s, paired runs %.0f s) |\n", r->wall_s, r->build_s, r->measure_s);
}
