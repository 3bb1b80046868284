#include "report.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "varreg.h"

static void dtype_list(unsigned mask, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int d = 0; d < KG_NDTYPES && used < len; d++)
    if (mask & KG_DT_BIT(d))
      used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", kg_dtype_get((kg_dtype)d)->name);
}

/* A variant's name, with its op when it is a min or max: "team_max (max)"
 * (a name from a file whose op is unknown stays bare). */
static const char *vlabel(int v, char *buf, size_t len) {
  const kg_variant_info *i = &kg_variants[v];
  if (i->op != KG_OP_MIN && i->op != KG_OP_MAX) return i->name;
  snprintf(buf, len, "%s (%s)", i->name, kg_op_name(i->op));
  return buf;
}

/* One row of list: its cells (a module's seed and idea are its own text:
 * escaped like a file's). */
typedef struct list_row {
  char seed[64], op[32], flags[32], dts[64];
} list_row;

static void list_cells(const kg_variant_info *i, list_row *r) {
  /* a float min/max says its NaN policy */
  snprintf(r->op, sizeof r->op, "%s%s%s", kg_op_name(i->op), i->op == KG_OP_MIN || i->op == KG_OP_MAX ? " nan:" : "",
           i->op == KG_OP_MIN || i->op == KG_OP_MAX ? kg_nan_name(i->nan) : "");
  snprintf(r->flags, sizeof r->flags, "%s%s%s", i->flags & KG_CLOBBERS ? "in-place" : "",
           (i->flags & KG_CLOBBERS) && (i->flags & KG_FLOAT_ATOMICS) ? "," : "",
           i->flags & KG_FLOAT_ATOMICS ? "float-atomics" : "");
  if (!r->flags[0]) snprintf(r->flags, sizeof r->flags, "-");
  dtype_list(i->dtypes, r->dts, sizeof r->dts);
  kg_esc_term(i->seed, r->seed, sizeof r->seed);
}

static int max_int(int a, int b) { return a > b ? a : b; }

/* Each column as wide as its longest value (or its heading), so a module's
 * long seed or name never shifts the columns after it. */
void kg_report_list(FILE *f) {
  int w[5] = {(int)strlen("variant"), (int)strlen("seed"), (int)strlen("op"), (int)strlen("flags"),
              (int)strlen("dtypes")};
  list_row r;
  for (size_t v = 0; v < kg_nvariants; v++) {
    list_cells(&kg_variants[v], &r);
    const char *cells[5] = {kg_variants[v].name, r.seed, r.op, r.flags, r.dts};
    for (int k = 0; k < 5; k++) w[k] = max_int(w[k], kg_term_width(cells[k]));
  }
  const char *head[5] = {"variant", "seed", "op", "flags", "dtypes"};
  for (int k = 0; k < 5; k++) kg_term_cell(f, head[k], w[k]), fputc(' ', f);
  fputs("idea\n", f);
  for (size_t v = 0; v < kg_nvariants; v++) {
    const kg_variant_info *i = &kg_variants[v];
    list_cells(i, &r);
    const char *cells[5] = {i->name, r.seed, r.op, r.flags, r.dts};
    for (int k = 0; k < 5; k++) kg_term_cell(f, cells[k], w[k]), fputc(' ', f);
    char idea[160];
    fprintf(f, "%s\n", kg_esc_term(i->idea, idea, sizeof idea));
  }
}

/* The planned variants that do not declare some of the plan's dtypes, one
 * line per set of missing dtypes (at its first variant): those cases are
 * not in the plan at all. */
static void plan_undeclared(FILE *f, const unsigned char *vseen, unsigned dseen) {
  for (size_t v = 0; v < kg_nvariants_all; v++) {
    unsigned miss = dseen & ~kg_variants[v].dtypes;
    if (!vseen[v] || !miss) continue;
    size_t count = 0, seen_before = 0;
    for (size_t u = 0; u < kg_nvariants_all; u++)
      if (vseen[u] && (dseen & ~kg_variants[u].dtypes) == miss) *(u < v ? &seen_before : &count) += 1;
    if (seen_before) continue;
    char dts[64];
    dtype_list(miss, dts, sizeof dts);
    fprintf(f, "not planned: %s for %zu variant%s (not among its dtypes):", dts, count, count == 1 ? "" : "s");
    for (size_t u = v; u < kg_nvariants_all; u++)
      if (vseen[u] && (dseen & ~kg_variants[u].dtypes) == miss) fprintf(f, " %s", kg_variants[u].name);
    fputc('\n', f);
  }
}

void kg_report_plan(FILE *f, const kg_case *cases, size_t n, kg_plan_estimate est, int verbose) {
  size_t timed = 0, unsupported = 0, groups = kg_plan_groups(cases, n, NULL);
  unsigned char *vseen = calloc(kg_nvariants_all + 1, 1);
  unsigned dseen = 0;
  uint64_t pseen = 0;
  size_t *sizes = malloc((n + 1) * sizeof *sizes), *tsizes = malloc((n + 1) * sizeof *tsizes), ns = 0, nts = 0;
  if (!vseen || !sizes || !tsizes) {
    fprintf(f, "plan: %zu cases (out of memory for the rest)\n", n);
    free(vseen), free(sizes), free(tsizes);
    return;
  }
  size_t nv = 0;
  for (size_t i = 0; i < n; i++) {
    const kg_case *c = &cases[i];
    timed += c->timed;
    unsupported += !c->supported;
    nv += !vseen[c->variant];
    vseen[c->variant] = 1;
    dseen |= KG_DT_BIT(c->dtype);
    pseen |= 1ull << c->pattern;
    size_t k = 0;
    while (k < ns && sizes[k] != c->n) k++;
    if (k == ns) sizes[ns++] = c->n;
    k = 0;
    while (c->timed && k < nts && tsizes[k] != c->n) k++;
    if (c->timed && k == nts) tsizes[nts++] = c->n;
  }
  char dts[64];
  dtype_list(dseen, dts, sizeof dts);
  fprintf(f, "plan: %zu cases (%zu timed, %zu unsupported: reported, never run), %zu input groups\n", n, timed,
          unsupported, groups);
  fprintf(f, "variants (%zu):", nv);
  for (size_t v = 0; v < kg_nvariants_all; v++)
    if (vseen[v]) fprintf(f, " %s", kg_variants[v].name);
  fprintf(f, "\ndtypes: %s (each variant only at the dtypes it declares)\n", dts);
  plan_undeclared(f, vseen, dseen);
  fprintf(f, "sizes (%zu):", ns);
  for (size_t k = 0; k < ns; k++) fprintf(f, " %zu", sizes[k]);
  fprintf(f, "\ntimed sizes:%s", nts ? "" : " none");
  for (size_t k = 0; k < nts; k++) fprintf(f, " %zu", tsizes[k]);
  fprintf(f, "\npatterns:");
  for (int p = 0; p < KG_NPATTERNS; p++)
    if (pseen & (1ull << p)) fprintf(f, " %s", kg_pattern_name((kg_pattern)p));
  fprintf(f, "\nestimated time on one GPU: about %.0f s (at most %.0f s if every timed case samples to the cap)\n",
          est.typical_s, est.cap_s);
  for (size_t i = 0; verbose && i < n; i++) {
    char label[160];
    kg_case_label(&cases[i], label, sizeof label);
    fprintf(f, "  %s%s%s\n", label, cases[i].timed ? " timed" : "", cases[i].supported ? "" : " unsupported");
  }
  free(vseen), free(sizes), free(tsizes);
}

/* got, expected and the message may come from a results file (compare,
 * report): control characters (an ESC sequence can rewrite the terminal)
 * are shown as '?'. */
static void case_line(FILE *f, const kg_case *c, const kg_result *r) {
  char label[160], got[64], want[64], msg[sizeof r->message * 2];
  kg_case_label(c, label, sizeof label);
  kg_esc_term(r->message, msg, sizeof msg);
  if (r->status == KG_ST_ERROR) { /* it never produced numbers */
    fprintf(f, "  error %s: %s\n", label, msg);
    return;
  }
  fprintf(f, "  %-5s %s: got %s, expected %s, |err| %.3g, bound %.3g, err/bound %.3g%s%s%s\n",
          r->status == KG_ST_PASS ? "ok" : kg_status_name(r->status), label, kg_esc_term(r->got, got, sizeof got),
          kg_esc_term(r->expected, want, sizeof want), r->abs_err, r->bound, r->ratio,
          r->nondeterministic ? ", nondeterministic" : "", r->message[0] ? ": " : "", msg);
}

void kg_report_check(FILE *f, const kg_case *cases, const kg_result *results, size_t n, const kg_device_info *dev,
                     double wall_s, int verbose) {
  int wv = (int)strlen("variant"), ws = (int)strlen("seed"); /* the longest label and seed checked */
  for (size_t v = 0; v < kg_nvariants; v++)
    for (size_t i = 0; i < n; i++)
      if (cases[i].variant == (int)v) {
        char label[96], seed[64];
        wv = max_int(wv, kg_term_width(vlabel((int)v, label, sizeof label)));
        ws = max_int(ws, kg_term_width(kg_esc_term(kg_variants[v].seed, seed, sizeof seed)));
        break;
      }
  fprintf(f, "%-*s %-*s %7s %7s %6s %6s %6s %7s %14s\n", wv, "variant", ws, "seed", "cases", "pass", "fail", "error",
          "unsup", "nondet", "max err/bound");
  for (size_t v = 0; v < kg_nvariants; v++) {
    kg_counts c = {0};
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
      if (cases[i].variant != (int)v) continue;
      kg_counts one = kg_count_results(&results[i], 1);
      c.cases++, c.passed += one.passed, c.failed += one.failed, c.errored += one.errored;
      c.unsupported += one.unsupported, c.nondeterministic += one.nondeterministic;
      if (results[i].status == KG_ST_PASS && results[i].bound > 0 && results[i].ratio > worst) worst = results[i].ratio;
    }
    if (!c.cases) continue;
    char label[96], seed[64];
    kg_term_cell(f, vlabel((int)v, label, sizeof label), wv + 1);
    kg_term_cell(f, kg_esc_term(kg_variants[v].seed, seed, sizeof seed), ws);
    fprintf(f, " %7zu %7zu %6zu %6zu %6zu %7zu %14.3g\n", c.cases, c.passed, c.failed, c.errored, c.unsupported,
            c.nondeterministic, worst);
  }
  int header = 0;
  for (size_t i = 0; i < n; i++) {
    const kg_result *r = &results[i];
    int bad = r->status == KG_ST_FAIL || r->status == KG_ST_ERROR;
    if (!bad && !(verbose && r->status == KG_ST_PASS)) continue;
    if (!header) fprintf(f, "\n%s:\n", verbose ? "cases" : "failed cases"), header = 1;
    case_line(f, &cases[i], r);
  }
  kg_counts t = kg_count_results(results, n);
  fprintf(f, "\nsummary: %zu cases, %zu passed", t.cases, t.passed);
  if (t.carried) fprintf(f, " (%zu of them carried over from the baseline's check)", t.carried);
  fprintf(f, ", %zu failed, %zu errors, %zu unsupported, %zu nondeterministic", t.failed, t.errored, t.unsupported,
          t.nondeterministic);
  if (t.pending) fprintf(f, ", %zu not run", t.pending);
  char name[sizeof dev->name];
  fprintf(f, " on %s in %.1f s\n", dev && dev->name[0] ? kg_esc_term(dev->name, name, sizeof name) : "no device",
          wall_s);
}

/* The counts in the report order every format uses (rmodel.h). */
static void verdict_counts(FILE *f, const kg_comparison *cmp) {
  char line[256];
  kg_rm_verdict_counts(cmp->count, 0, line, sizeof line);
  fprintf(f, "verdicts: %s\n", line);
  char warning[sizeof cmp->warning];
  if (cmp->warning[0]) fprintf(f, "warning: %s\n", kg_esc_term(cmp->warning, warning, sizeof warning));
}

void kg_report_verdict(FILE *f, const kg_rdoc *doc) {
  const kg_rm_verdict *v = &doc->verdict;
  char why[2048];
  if (!v->word) return; /* out of memory: the reports said so */
  fprintf(f, "verdict: %s (exit %d): %s\n", v->word, v->exit_code, kg_esc_term(v->text, why, sizeof why));
}

void kg_report_perf(FILE *f, const kg_rdoc *doc) {
  const kg_run *run = doc->run;
  const kg_comparison *cmp = doc->cmp;
  const kg_device_info *d = &run->meta.dev;
  char name[sizeof d->name];
  fprintf(f, "\ntiming on %s: peak %.0f GB/s (%d-bit bus at %.0f MHz), measured roofline %.0f GB/s, %s L2\n",
          kg_esc_term(d->name, name, sizeof name), d->peak_gbps, d->bus_width_bits, d->mem_clock_khz / 1e3,
          d->roofline_gbps, run->meta.time.hot ? "hot" : "cold");
  if (doc->cold) {
    char cells[1024];
    fprintf(f, "cold L2: %s", doc->cold);
    if (doc->cold_cells)
      fprintf(f, "; could not be verified for %s", kg_esc_term(doc->cold_cells, cells, sizeof cells));
    fputc('\n', f);
  }
  int wv = (int)strlen("variant");
  for (size_t i = 0; i < run->n; i++) {
    char label[96];
    if (run->cases[i].timed && run->results[i].timing.samples)
      wv = max_int(wv, kg_term_width(vlabel(run->cases[i].variant, label, sizeof label)));
  }
  fprintf(f, "%-*s %-5s %10s %10s %9s %7s %7s %7s %9s %-7s %8s\n", wv, "variant", "dtype", "n", "median us", "GB/s",
          "% peak", "% roof", "vs CUB", "graph us", "verdict", "change");
  for (size_t i = 0; i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    const kg_timing *t = &run->results[i].timing;
    if (!c->timed || !t->samples) continue;
    const kg_perf p = doc->cases[i].perf;
    const kg_cmp_row *row = doc->cases[i].cmp;
    char change[16] = "";
    if (row && row->base_us > 0) snprintf(change, sizeof change, "%+.1f%%", 100 * row->change);
    char label[96];
    kg_term_cell(f, vlabel(c->variant, label, sizeof label), wv);
    fprintf(f, " %-5s %10zu %10.2f %9.1f %7.1f %7.1f %7.2f %9.2f %-7s %8s%s\n", kg_dtype_get(c->dtype)->name, c->n,
            t->median_us, p.gbps, p.pct_peak, p.pct_roofline, p.vs_cub, t->graph_us,
            row ? kg_verdict_name(row->verdict) : "-", change, t->throttled ? " throttled" : "");
  }
  if (cmp) verdict_counts(f, cmp);
}

/* A part of a line: data escaped whole (a path may be long), kgate's words as they are. */
static void term_part(FILE *f, const kg_rm_cell *c) {
  if (!c->text) return;
  if (!(c->flags & KG_RM_DATA)) {
    fputs(c->text, f);
    return;
  }
  size_t len = strlen(c->text) + 1;
  char *buf = malloc(len);
  if (buf) fputs(kg_esc_term(c->text, buf, len), f);
  free(buf);
}

static void term_lines(FILE *f, const kg_rm_line *lines, size_t n) {
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < lines[i].level; k++) fputs("  ", f);
    for (size_t k = 0; k < lines[i].nparts; k++) term_part(f, &lines[i].parts[k]);
    fputc('\n', f);
  }
}

void kg_report_compare(FILE *f, const kg_rdoc *doc) {
  const kg_comparison *cmp = doc->cmp;
  int only = doc->compare.only;
  int wv = (int)strlen("variant"); /* the longest variant name of the rows printed */
  for (size_t i = 0; i < cmp->n; i++) {
    char variant[sizeof cmp->rows[i].variant];
    if (!only || cmp->rows[i].verdict != KG_V_SAME)
      wv = max_int(wv, kg_term_width(kg_esc_term(cmp->rows[i].variant, variant, sizeof variant)));
  }
  fprintf(f, "%-7s %-*s %-5s %10s %11s %11s %8s %6s\n", "verdict", wv, "variant", "dtype", "n", "old us", "new us",
          "change", "tol");
  for (size_t i = 0; i < cmp->n; i++) {
    const kg_cmp_row *r = &cmp->rows[i];
    char variant[sizeof r->variant];
    if (only && r->verdict == KG_V_SAME) continue; /* counted in a line below */
    fprintf(f, "%-7s ", kg_verdict_name(r->verdict));
    kg_term_cell(f, kg_esc_term(r->variant, variant, sizeof variant), wv);
    fprintf(f, " %-5s %10zu %11.2f %11.2f %+7.1f%% %5.0f%%\n", kg_dtype_get(r->dtype)->name, r->n, r->base_us,
            r->now_us, 100 * r->change, 100 * r->tol);
  }
  verdict_counts(f, cmp);
  term_lines(f, doc->compare.lines, doc->compare.nlines);
}

void kg_report_pairs(FILE *f, const kg_rdoc *doc) {
  const kg_run *run = doc->run;
  const kg_pair_meta *m = &run->pair;
  size_t count[KG_NPVERDICTS];
  kg_pair_count(run->pairs, run->npairs, count);
  char path[256], name[72], version[72], variant[72], message[200];
  fprintf(f, "\npaired against %s (%s %s): %d copies, %d-%d rounds, %.0f %% intervals, %.1f s\n",
          kg_esc_term(m->base_path, path, sizeof path), kg_esc_term(m->base_name, name, sizeof name),
          kg_esc_term(m->base_version, version, sizeof version), m->copies, m->rounds, m->max_rounds,
          100 * m->confidence, m->wall_s);
  int wv = (int)strlen("variant");
  for (size_t i = 0; i < doc->paired.cells.nrows; i++) {
    const kg_pair_cell *c = doc->paired.cells.rows[i].src;
    if (c->stat.verdict != KG_PV_UNCHANGED)
      wv = max_int(wv, kg_term_width(kg_esc_term(c->variant, variant, sizeof variant)));
  }
  fprintf(f, "%-9s %-*s %-5s %10s %10s %10s %8s %19s %6s %6s %6s\n", "verdict", wv, "variant", "dtype", "n", "head us",
          "base us", "ratio", "interval", "min", "blocks", "rounds");
  for (size_t i = 0; i < doc->paired.cells.nrows; i++) { /* report order */
    const kg_pair_cell *c = doc->paired.cells.rows[i].src;
    const kg_pair_stat *s = &c->stat;
    if (s->verdict == KG_PV_UNCHANGED) continue; /* counted in one line below */
    fprintf(f, "%-9s ", kg_pverdict_name(s->verdict));
    kg_term_cell(f, kg_esc_term(c->variant, variant, sizeof variant), wv);
    if (s->blocks)
      fprintf(f, " %-5s %10zu %10.2f %10.2f %+7.2f%% [%+7.2f%%, %+7.2f%%] %5.1f%% %6d %6d\n",
              kg_dtype_get(c->dtype)->name, c->n, s->head_us, s->base_us, 100 * (s->ratio - 1), 100 * (s->lo - 1),
              100 * (s->hi - 1), 100 * c->min_effect, s->blocks, c->rounds);
    else
      fprintf(f, " %-5s %10zu %s\n", kg_dtype_get(c->dtype)->name, c->n,
              kg_esc_term(c->message, message, sizeof message));
  }
  size_t unchanged = count[KG_PV_UNCHANGED];
  if (unchanged)
    fprintf(f,
            "%zu cell%s UNCHANGED: " KG_PV_UNCHANGED_ABOUT ", not timed (the evidence per cell is in the results "
            "JSON)\n",
            unchanged, unchanged == 1 ? "" : "s");
  char line[256]; /* the report order (rmodel.h); UNCHANGED only when a cell is */
  kg_rm_pverdict_counts(count, 0, line, sizeof line);
  fprintf(f, "paired verdicts: %s\n", line);
}

void kg_report_lint(FILE *f, const kg_rdoc *doc) {
  char a[200], b[200], c[200];
  for (size_t k = 0; k < doc->lint.n; k++) {
    const kg_rm_lint_module *m = &doc->lint.mods[k];
    kg_esc_term(m->name, a, sizeof a);
    if (m->state == KG_RM_LINT_OFF) fprintf(f, "lint %s: off (--lint off): not linted\n", a);
    if (m->state == KG_RM_LINT_NOT_RUN) fprintf(f, "lint %s: not run: %s\n", a, kg_esc_term(m->why, b, sizeof b));
    if (m->state != KG_RM_LINT_RAN) continue; /* not run fails the gate; stderr says so (kg_report_lint_unread) */
    for (size_t i = 0; i < m->nfindings; i++) {
      const kg_lint_item *x = &m->findings[i];
      fprintf(f, "lint FINDING %s (sm_%d) %s: %s", kg_esc_term(x->kernel, c, sizeof c), x->arch, x->side,
              kg_esc_term(x->first, b, sizeof b));
      fprintf(f, " -> %s\n", kg_esc_term(x->second, b, sizeof b));
    }
    for (size_t i = 0; i < m->nwaived; i++)
      fprintf(f, "lint %s: waived: %s\n", kg_esc_term(m->waived[i].variant, c, sizeof c),
              kg_esc_term(m->waived[i].reason, b, sizeof b));
    for (size_t i = 0; i < m->nnotes; i++) {
      const kg_lint_item *x = &m->notes[i];
      fprintf(f, "lint note %s (sm_%d): %s", kg_esc_term(x->kernel, c, sizeof c), x->arch,
              kg_esc_term(x->first, b, sizeof b));
      fprintf(f, ": %s (not a failure)\n", kg_esc_term(x->second, b, sizeof b));
    }
    fprintf(f, "lint %s: %d kernels, %d tickets, %zu finding%s\n", a, m->kernels, m->tickets, m->nfindings,
            m->nfindings == 1 ? "" : "s");
  }
}

void kg_report_lint_unread(FILE *f, const kg_rdoc *doc) {
  char a[200], b[260];
  for (size_t k = 0; k < doc->lint.n; k++) {
    const kg_rm_lint_module *m = &doc->lint.mods[k];
    /* a module's path and why come from the command line or a results file: escaped */
    if (m->state == KG_RM_LINT_NOT_RUN)
      fprintf(f, "kgate: lint: %s was not linted: %s (a failure, exit 3; --lint off runs without the lint)\n",
              kg_esc_term(m->path, a, sizeof a), kg_esc_term(m->why, b, sizeof b));
  }
}

void kg_report_findings(FILE *f, const kg_rdoc *doc) {
  const kg_rm_findings *fs = &doc->findings;
  char note[400], a[72], b[72], v[72];
  for (size_t i = 0; i < fs->n; i++) {
    const kg_rm_finding *x = &fs->find[i];
    fprintf(f, "kgate: %s since the night of %s (commits %s..%s)%s%s\n", x->title, x->first_bad,
            kg_esc_term(x->good, a, sizeof a), kg_esc_term(x->bad, b, sizeof b), x->src->note[0] ? ": " : "",
            kg_esc_term(x->src->note, note, sizeof note));
    if (x->changed) fprintf(f, "  toolchain and machine: %s\n", kg_esc_term(x->changed, note, sizeof note));
    for (size_t k = 0; k < x->cells.nrows; k++) {
      const kg_rm_cell *c = x->cells.rows[k].cells;
      fprintf(f, "  %s %s %s: %s (ratio %s -> %s)\n", kg_esc_term(c[0].text, v, sizeof v), c[1].text, c[2].text,
              c[5].text ? c[5].text : "?", c[3].text, c[4].text);
    }
  }
  /* the nights that were not PASS, a run of one verdict a line (the report model's, as the page says them) */
  char nights[160], why[300];
  for (size_t i = 0; i < fs->spans.nrows; i++) {
    const kg_rm_row *r = &fs->spans.rows[i];
    if (r->quiet) continue;
    fprintf(f, "kgate: %s: %s: %s\n", kg_esc_term(r->cells[0].text, nights, sizeof nights), r->cells[1].text,
            kg_esc_term(r->cells[2].text, why, sizeof why));
  }
  fprintf(f, "kgate: history check: %zu nights, %zu cells watched: %zu open regression finding(s)", fs->runs,
          fs->nseries, fs->open);
  if (fs->night && fs->runs) {
    const kg_rm_night *last = &fs->night[fs->runs - 1];
    fprintf(f, "; last night (%s): %s: %s", kg_esc_term(last->label, nights, sizeof nights), last->word,
            kg_esc_term(last->why, why, sizeof why));
  }
  fputc('\n', f);
}
