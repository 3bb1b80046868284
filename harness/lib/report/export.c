#include "export.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "fileio.h"
#include "pairrun.h"
#include "registry.h"

typedef void (*kg__writer)(FILE *f, const kg_run *run, const kg_comparison *cmp);

typedef struct export_ctx {
  kg__writer write;
  const kg_run *run;
  const kg_comparison *cmp;
} export_ctx;

static void export_fill(FILE *f, const void *ctx) {
  const export_ctx *x = ctx;
  x->write(f, x->run, x->cmp);
}

/* Every export goes through the same atomic open / write / commit. */
static int export_with(kg__writer write, const char *path, const kg_run *run, const kg_comparison *cmp, char *err,
                       size_t errlen) {
  export_ctx x = {write, run, cmp};
  return kg_out_write(path, export_fill, &x, err, errlen);
}

/* The comparison row of case i. Only perf cases are compared, and only the
 * perf pattern of a (variant, dtype, n) is timed, so the key is unique. */
static const kg_cmp_row *row_of(const kg_run *run, size_t i, const kg_comparison *cmp) {
  const kg_case *c = &run->cases[i];
  if (!cmp || !c->timed) return NULL;
  const char *name = kg_variants[c->variant].name;
  for (size_t k = 0; k < cmp->n; k++) {
    const kg_cmp_row *r = &cmp->rows[k];
    if (r->dtype == c->dtype && r->n == c->n && strcmp(r->variant, name) == 0) return r;
  }
  return NULL;
}

static int has_numbers(kg_status s) { return s == KG_ST_PASS || s == KG_ST_FAIL; }

/* Three significant digits and no exponent (38.0, 41.2, 0.0123, 1235):
 * people compare these by eye. Returned by value so several fit in one printf. */
typedef struct kg__num {
  char s[40];
} kg__num;

static kg__num sig3(double v) {
  kg__num n;
  int mag = v != 0 && isfinite(v) ? (int)floor(log10(fabs(v))) : 0;
  if (mag < -6 || mag > 15) snprintf(n.s, sizeof n.s, "%.3g", v);
  else snprintf(n.s, sizeof n.s, "%.*f", mag >= 2 ? 0 : 2 - mag, v);
  return n;
}

/* "the check's numbers: why", shared by JUnit and Markdown. */
static void check_message(const kg_result *r, char *buf, size_t len) {
  if (r->status == KG_ST_ERROR) {
    snprintf(buf, len, "%s", r->message);
    return;
  }
  snprintf(buf, len, "got %s, expected %s, |err| %.3g, bound %.3g, err/bound %.3g%s%s%s", r->got, r->expected,
           r->abs_err, r->bound, r->ratio, r->nondeterministic ? ", nondeterministic" : "", r->message[0] ? ": " : "",
           r->message);
}

/* "median 41.2 us vs baseline 38.0 us (+8.4 %, tolerance 3 %)" */
static void perf_message(const kg_cmp_row *row, char *buf, size_t len) {
  snprintf(buf, len, "median %s us vs baseline %s us (%+.1f %%, tolerance %.3g %%)", sig3(row->now_us).s,
           sig3(row->base_us).s, row->change * 100, row->tol * 100);
}

/* ---- the paired gate's cells (shared) ------------------------------------ */

/* A cell carries numbers only when blocks were timed (NEW, MISSING,
 * UNKNOWN and UNCHANGED have none; see results.h). */
static int pair_has_numbers(const kg_pair_cell *c) { return c->stat.blocks > 0; }

/* The paired cell of (variant, dtype, n), or NULL. */
static const kg_pair_cell *pair_of(const kg_run *run, const char *variant, kg_dtype dt, size_t n) {
  for (size_t k = 0; run->pair.on && k < run->npairs; k++) {
    const kg_pair_cell *c = &run->pairs[k];
    if (c->dtype == dt && c->n == n && strcmp(c->variant, variant) == 0) return c;
  }
  return NULL;
}

/* "head/base 1.084 (+8.40 %), 99 % interval [1.079, 1.089] (+7.90 % .. +8.90 %),
 * minimum effect 1 %: head 41.2 us, base 38.0 us, 16 blocks, 2 rounds" */
static void pair_numbers(const kg_run *run, const kg_pair_cell *c, char *buf, size_t len) {
  const kg_pair_stat *s = &c->stat;
  snprintf(buf, len,
           "head/base %.4f (%+.2f %%), %.3g %% interval [%.4f, %.4f] (%+.2f %% .. %+.2f %%), minimum effect %.3g %%: "
           "head %s us, base %s us, %d blocks, %d rounds",
           s->ratio, 100 * (s->ratio - 1), 100 * run->pair.confidence, s->lo, s->hi, 100 * (s->lo - 1),
           100 * (s->hi - 1), 100 * c->min_effect, sig3(s->head_us).s, sig3(s->base_us).s, s->blocks, c->rounds);
}

/* Why a cell has no verdict, or why it has none that counts. */
static void pair_reason(const kg_run *run, const kg_pair_cell *c, char *buf, size_t len) {
  char nums[320];
  switch (c->stat.verdict) {
  case KG_PV_UNDECIDED:
    if (c->stat.blocks < 2) {
      snprintf(buf, len, "undecided: %d block%s, an interval needs two or more%s%s", c->stat.blocks,
               c->stat.blocks == 1 ? "" : "s", c->message[0] ? ": " : "", c->message);
      return;
    }
    pair_numbers(run, c, nums, sizeof nums);
    snprintf(buf, len, "undecided: the interval reaches across the minimum effect: %s", nums);
    return;
  case KG_PV_UNKNOWN:
    snprintf(buf, len, "unknown: %s", c->message[0] ? c->message : "head's check failed or a timing errored");
    return;
  case KG_PV_MISSING: snprintf(buf, len, "missing: the base module has this cell, head does not"); return;
  case KG_PV_UNCHANGED:
    snprintf(buf, len, "unchanged, not timed: %s", c->message[0] ? c->message : KG_PV_UNCHANGED_ABOUT);
    return;
  default: snprintf(buf, len, "%s", c->message); return;
  }
}

void kg_export_base(FILE *f, const kg_pair_meta *m, void (*put)(FILE *f, const char *s)) {
  put(f, m->base_path);
  fputs(" (", f);
  put(f, m->base_name);
  fputc(' ', f);
  put(f, m->base_version);
  fputc(')', f);
}

/* ---- CSV ---------------------------------------------------------------- */

static const char k_csv_header[] =
    "variant,seed,dtype,n,pattern,status,got,expected,abs_err,bound,err_ratio,nondeterministic,"
    "median_us,q1_us,q3_us,min_us,samples,noise,graph_us,gbps,pct_peak,pct_roofline,vs_cub,verdict,change,message,"
    "paired_verdict,paired_ratio,paired_lo,paired_hi,paired_min_effect";

/* An absent value is an empty field, so plotting tools skip it rather than plot a 0. */
static void csv_num(FILE *f, int present, double v) {
  fputc(',', f);
  if (present) fprintf(f, "%.9g", v);
}

/* RFC 4180 (kg_esc_csv): text from a results file (got, expected, the
 * message) may hold commas, quotes, line breaks, control characters or a
 * spreadsheet formula. */
static void csv_str(FILE *f, const char *s) {
  fputc(',', f);
  kg_esc_csv(f, s);
}

static void csv_timing(FILE *f, const kg_timing *t) {
  int timed = t->samples > 0;
  csv_num(f, timed, t->median_us);
  csv_num(f, timed, t->q1_us);
  csv_num(f, timed, t->q3_us);
  csv_num(f, timed, t->min_us);
  csv_num(f, timed, t->samples);
  csv_num(f, timed, t->noise);
  csv_num(f, timed && t->graph_us > 0, t->graph_us);
}

static void csv_row(FILE *f, const kg_run *run, size_t i, const kg_comparison *cmp) {
  const kg_case *c = &run->cases[i];
  const kg_result *r = &run->results[i];
  int num = has_numbers(r->status);
  /* Every text column is quoted per RFC 4180 when it needs it: a module's
   * seed is free text ("Harris, 2007"), and the names cost nothing to pass. */
  kg_esc_csv(f, kg_variants[c->variant].name);
  csv_str(f, kg_variants[c->variant].seed);
  csv_str(f, kg_dtype_get(c->dtype)->name);
  fprintf(f, ",%zu", c->n);
  csv_str(f, kg_pattern_name(c->pattern));
  csv_str(f, kg_status_name(r->status));
  csv_str(f, num ? r->got : "");
  csv_str(f, num ? r->expected : "");
  csv_num(f, num, r->abs_err);
  csv_num(f, num, r->bound);
  csv_num(f, num, r->ratio);
  csv_num(f, num, r->nondeterministic != 0);
  csv_timing(f, &r->timing);
  kg_perf p = kg_perf_of(run, i);
  csv_num(f, p.gbps > 0, p.gbps);
  csv_num(f, p.pct_peak > 0, p.pct_peak);
  csv_num(f, p.pct_roofline > 0, p.pct_roofline);
  csv_num(f, p.vs_cub > 0, p.vs_cub);
  const kg_cmp_row *row = row_of(run, i, cmp);
  csv_str(f, row ? kg_verdict_name(row->verdict) : "");
  csv_num(f, row && row->base_us > 0 && row->now_us > 0, row ? row->change : 0);
  csv_str(f, r->message);
  /* The paired columns come last, so readers that count columns keep working. */
  const kg_pair_cell *pc = c->timed ? pair_of(run, kg_variants[c->variant].name, c->dtype, c->n) : NULL;
  int pnum = pc && pair_has_numbers(pc);
  csv_str(f, pc ? kg_pverdict_name(pc->stat.verdict) : "");
  csv_num(f, pnum, pnum ? pc->stat.ratio : 0);
  csv_num(f, pnum, pnum ? pc->stat.lo : 0);
  csv_num(f, pnum, pnum ? pc->stat.hi : 0);
  csv_num(f, pnum, pnum ? pc->min_effect : 0);
  fputc('\n', f);
}

static void write_csv(FILE *f, const kg_run *run, const kg_comparison *cmp) {
  fprintf(f, "%s\n", k_csv_header);
  for (size_t i = 0; i < run->n; i++) csv_row(f, run, i, cmp);
}

int kg_export_csv(const char *path, const kg_run *run, const kg_comparison *cmp, char *err, size_t errlen) {
  return export_with(write_csv, path, run, cmp, err, errlen);
}

/* ---- JUnit XML ---------------------------------------------------------- */

typedef enum kg__outcome { KG_OK, KG_FAILURE, KG_ERROR, KG_SKIPPED, KG_NONE } kg__outcome;

typedef struct kg__tally {
  size_t tests, failures, errors, skipped;
} kg__tally;

static kg__outcome check_outcome(kg_status s) {
  switch (s) {
  case KG_ST_PASS: return KG_OK;
  case KG_ST_FAIL: return KG_FAILURE;
  case KG_ST_ERROR: return KG_ERROR;
  default: return KG_SKIPPED; /* unsupported, or never run */
  }
}

/* A perf testcase exists for every supported perf case; it fails only on
 * SLOWER (the gate's rule), and is skipped when the case was not timed. */
static kg__outcome perf_outcome(const kg_run *run, size_t i, const kg_comparison *cmp) {
  const kg_case *c = &run->cases[i];
  if (!c->timed || !c->supported) return KG_NONE;
  if (run->results[i].timing.samples <= 0) return KG_SKIPPED;
  const kg_cmp_row *row = row_of(run, i, cmp);
  if (!row || row->verdict != KG_V_SLOWER) return KG_OK;
  /* With a paired result the stored baseline only advises (gate.c): a
   * failure here would turn CI red on a run that exits 0. */
  return run->pair.on ? KG_SKIPPED : KG_FAILURE;
}

/* The paired gate's rule: only SLOWER fails; a cell without a decision is skipped with its reason. */
static kg__outcome pair_outcome(kg_pverdict v) {
  switch (v) {
  case KG_PV_SLOWER: return KG_FAILURE;
  case KG_PV_UNDECIDED:
  case KG_PV_UNKNOWN:
  case KG_PV_MISSING: return KG_SKIPPED;
  default: return KG_OK; /* SAME, FASTER, NEW, UNCHANGED */
  }
}

static void tally_add(kg__tally *t, kg__outcome o) {
  if (o == KG_NONE) return;
  t->tests++;
  t->failures += o == KG_FAILURE;
  t->errors += o == KG_ERROR;
  t->skipped += o == KG_SKIPPED;
}

/* The lint's testcases: one per module (failed with its findings, skipped
 * when it could not run), one skipped per waiver ("waived: reason"). */
static kg__outcome lint_outcome(const kg_lint_module *m) {
  return !m->ran ? KG_SKIPPED : m->nitems ? KG_FAILURE : KG_OK;
}

static kg__tally lint_tally(const kg_run *run) {
  kg__tally t = {0};
  for (size_t k = 0; k < run->nlint; k++) {
    tally_add(&t, lint_outcome(&run->lint[k]));
    for (size_t i = 0; i < run->lint[k].nwaived; i++) tally_add(&t, KG_SKIPPED);
  }
  return t;
}

/* variant < 0: every variant, and the paired cells. */
static kg__tally tally(const kg_run *run, const kg_comparison *cmp, int variant) {
  kg__tally t = {0};
  for (size_t i = 0; i < run->n; i++) {
    if (variant >= 0 && run->cases[i].variant != variant) continue;
    tally_add(&t, check_outcome(run->results[i].status));
    tally_add(&t, perf_outcome(run, i, cmp));
  }
  for (size_t k = 0; variant < 0 && run->pair.on && k < run->npairs; k++)
    tally_add(&t, pair_outcome(run->pairs[k].stat.verdict));
  if (variant < 0) {
    kg__tally l = lint_tally(run);
    t.tests += l.tests, t.failures += l.failures, t.errors += l.errors, t.skipped += l.skipped;
  }
  return t;
}

static kg__tally pair_tally(const kg_run *run) {
  kg__tally t = {0};
  for (size_t k = 0; run->pair.on && k < run->npairs; k++) tally_add(&t, pair_outcome(run->pairs[k].stat.verdict));
  return t;
}

/* Attribute values and text (kg_esc_xml): XML 1.0 forbids most control
 * characters even as references, so those become '?'. */
static void xml_put(FILE *f, const char *s) { kg_esc_xml(f, s); }

static void xml_tally(FILE *f, kg__tally t) {
  fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\"", t.tests, t.failures, t.errors,
          t.skipped);
}

/* The start of a <testcase>, up to the closing quote of its name. */
static void xml_testcase_open(FILE *f, const char *variant, const char *name) {
  fputs("    <testcase classname=\"kgate.", f);
  xml_put(f, variant);
  fputs("\" name=\"", f);
  xml_put(f, name);
}

/* One <testcase>; message is used by failure, error and skipped. */
static void xml_testcase(FILE *f, const char *variant, const char *name, kg__outcome o, const char *message) {
  static const char *const tag[] = {[KG_FAILURE] = "failure", [KG_ERROR] = "error", [KG_SKIPPED] = "skipped"};
  xml_testcase_open(f, variant, name);
  if (o == KG_OK) {
    fputs("\"/>\n", f);
    return;
  }
  fprintf(f, "\">\n      <%s message=\"", tag[o]);
  xml_put(f, message);
  fputs("\"/>\n    </testcase>\n", f);
}

/* A passed <testcase> with its evidence in <system-out>. */
static void xml_testcase_out(FILE *f, const char *variant, const char *name, const char *out) {
  xml_testcase_open(f, variant, name);
  fputs("\">\n      <system-out>", f);
  xml_put(f, out);
  fputs("</system-out>\n    </testcase>\n", f);
}

static void xml_check_case(FILE *f, const kg_run *run, size_t i) {
  const kg_case *c = &run->cases[i];
  const kg_result *r = &run->results[i];
  char name[128], msg[512];
  snprintf(name, sizeof name, "%s n=%zu %s", kg_dtype_get(c->dtype)->name, c->n, kg_pattern_name(c->pattern));
  kg__outcome o = check_outcome(r->status);
  if (o == KG_SKIPPED) snprintf(msg, sizeof msg, "%s", r->status == KG_ST_UNSUPPORTED ? "unsupported dtype" : "not run");
  else check_message(r, msg, sizeof msg);
  xml_testcase(f, kg_variants[c->variant].name, name, o, msg);
}

static void xml_perf_case(FILE *f, const kg_run *run, size_t i, const kg_comparison *cmp) {
  kg__outcome o = perf_outcome(run, i, cmp);
  if (o == KG_NONE) return;
  const kg_case *c = &run->cases[i];
  char name[128], msg[400] = "";
  snprintf(name, sizeof name, "perf %s n=%zu", kg_dtype_get(c->dtype)->name, c->n);
  if (o == KG_FAILURE) perf_message(row_of(run, i, cmp), msg, sizeof msg);
  else if (o == KG_SKIPPED && run->results[i].timing.samples > 0) { /* a baseline SLOWER under a paired result */
    char perf[256];
    perf_message(row_of(run, i, cmp), perf, sizeof perf);
    snprintf(msg, sizeof msg, "SLOWER than the stored baseline, advisory: the paired gate decides (%s)", perf);
  } else if (o == KG_SKIPPED) snprintf(msg, sizeof msg, "not timed: the check did not pass");
  xml_testcase(f, kg_variants[c->variant].name, name, o, msg);
}

/* The testsuite "paired": a testcase per cell, named by the cell; the
 * classname carries the variant as the per-variant suites do. An UNCHANGED
 * cell passes with its evidence (what was proven identical) as its output. */
static void xml_paired(FILE *f, const kg_run *run) {
  if (!run->pair.on) return;
  fputs("  <testsuite name=\"paired\"", f);
  xml_tally(f, pair_tally(run));
  fputs(">\n", f);
  for (size_t k = 0; k < run->npairs; k++) {
    const kg_pair_cell *c = &run->pairs[k];
    kg__outcome o = pair_outcome(c->stat.verdict);
    char cls[96], name[96], msg[600] = "";
    snprintf(cls, sizeof cls, "paired.%s", c->variant);
    snprintf(name, sizeof name, "%s n=%zu", kg_dtype_get(c->dtype)->name, c->n);
    if (o == KG_FAILURE) {
      char nums[400];
      pair_numbers(run, c, nums, sizeof nums);
      snprintf(msg, sizeof msg, "SLOWER than the base: %s", nums);
    } else if (o == KG_SKIPPED || c->stat.verdict == KG_PV_UNCHANGED) {
      pair_reason(run, c, msg, sizeof msg);
    }
    if (o == KG_OK && msg[0]) xml_testcase_out(f, cls, name, msg);
    else xml_testcase(f, cls, name, o, msg);
  }
  fputs("  </testsuite>\n", f);
}

static const char *base_name(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

static void xml_lint(FILE *f, const kg_run *run) {
  if (!run->nlint) return;
  fputs("  <testsuite name=\"lint\"", f);
  xml_tally(f, lint_tally(run));
  fputs(">\n", f);
  for (size_t k = 0; k < run->nlint; k++) {
    const kg_lint_module *m = &run->lint[k];
    char msg[1024] = "";
    if (!m->ran) snprintf(msg, sizeof msg, "not run: %s", m->why);
    else if (m->nitems)
      snprintf(msg, sizeof msg, "%zu finding%s; the first: %s (sm_%d): %s: %s -> %s", m->nitems, m->nitems == 1 ? "" : "s",
               m->items[0].kernel, m->items[0].arch, m->items[0].side, m->items[0].first, m->items[0].second);
    xml_testcase(f, "lint", base_name(m->path), lint_outcome(m), msg);
    for (size_t i = 0; i < m->nwaived; i++) {
      snprintf(msg, sizeof msg, "waived: %s", m->waived[i].reason);
      xml_testcase(f, "lint", m->waived[i].variant, KG_SKIPPED, msg);
    }
  }
  fputs("  </testsuite>\n", f);
}

static void write_junit(FILE *f, const kg_run *run, const kg_comparison *cmp) {
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kgate\"", f);
  xml_tally(f, tally(run, cmp, -1));
  fputs(">\n", f);
  xml_paired(f, run);
  xml_lint(f, run);
  for (size_t v = 0; v < kg_nvariants; v++) {
    kg__tally t = tally(run, cmp, (int)v);
    if (!t.tests) continue;
    fputs("  <testsuite name=\"", f);
    xml_put(f, kg_variants[v].name);
    fputc('"', f);
    xml_tally(f, t);
    fputs(">\n", f);
    for (size_t i = 0; i < run->n; i++) {
      if (run->cases[i].variant != (int)v) continue;
      xml_check_case(f, run, i);
      xml_perf_case(f, run, i, cmp);
    }
    fputs("  </testsuite>\n", f);
  }
  fputs("</testsuites>\n", f);
}

int kg_export_junit(const char *path, const kg_run *run, const kg_comparison *cmp, char *err, size_t errlen) {
  return export_with(write_junit, path, run, cmp, err, errlen);
}

/* ---- Markdown ----------------------------------------------------------- */

enum { KG_MD_MAX_FAILED = 50 };

/* Text and table cells (kg_esc_md): the summary lands in
 * $GITHUB_STEP_SUMMARY, where a GPU name, date, commit or message from a
 * file must not become a link, an image, HTML or a new table cell. */
static void md_put(FILE *f, const char *s) { kg_esc_md(f, s); }

static void md_device(FILE *f, const kg_device_info *d) {
  fputs("- **GPU**: ", f);
  md_put(f, d->name[0] ? d->name : "unknown");
  fprintf(f, " (CC %d.%d, %d SMs)", d->cc_major, d->cc_minor, d->sms);
  if (d->peak_gbps > 0) fprintf(f, ", peak %s GB/s", sig3(d->peak_gbps).s);
  if (d->roofline_gbps > 0) fprintf(f, ", roofline %s GB/s (measured)", sig3(d->roofline_gbps).s);
  fprintf(f, ", driver %d, CUDA runtime %d\n", d->driver_version, d->runtime_version);
}

static void md_counts(FILE *f, const kg_run *run) {
  kg_counts t = kg_count_results(run->results, run->n);
  fprintf(f, "- **Checks**: %zu cases, %zu passed, %zu failed, %zu errors, %zu unsupported, %zu nondeterministic",
          t.cases, t.passed, t.failed, t.errored, t.unsupported, t.nondeterministic);
  if (t.pending) fprintf(f, ", %zu not run", t.pending);
  fputc('\n', f);
}

/* Verdict counts in report order: the ones that block first. */
static const kg_verdict k_md_order[] = {KG_V_SLOWER, KG_V_UNKNOWN, KG_V_MISSING, KG_V_FASTER, KG_V_NEW, KG_V_SAME};

static void md_verdicts(FILE *f, const kg_run *run, const kg_comparison *cmp) {
  if (!cmp) {
    if (!run->pair.on) fputs("- **Performance**: no baseline to compare with\n", f);
    return;
  }
  /* gate.c: with a paired result the stored baseline never fails the gate. */
  fputs(run->pair.on ? "- **Performance vs baseline** (advisory: the paired gate decides):" : "- **Performance vs baseline**:", f);
  for (size_t k = 0; k < sizeof k_md_order / sizeof k_md_order[0]; k++)
    fprintf(f, "%s %zu %s", k ? "," : "", cmp->count[k_md_order[k]], kg_verdict_name(k_md_order[k]));
  fputc('\n', f);
  if (cmp->warning[0]) {
    fputs("\n> **Warning:** ", f);
    md_put(f, cmp->warning);
    fputc('\n', f);
  }
}

/* Where the wall time went (results.h), the phases that took any. */
static void md_phases(FILE *f, const kg_phases *p) {
  if (!p->known) return;
  const double v[] = {p->startup_s, p->inputs_s, p->check_s, p->timing_s, p->paired_s, p->reports_s};
  static const char *const names[] = {"start-up", "inputs and references", "check", "timing", "paired rounds",
                                      "reports"};
  fputs("- **Time**:", f);
  size_t shown = 0;
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    if (v[k] >= 0.05) fprintf(f, "%s %s %.1f s", shown++ ? "," : "", names[k], v[k]);
  fputs(shown ? "\n" : " every phase under 0.1 s\n", f);
}

static void md_summary(FILE *f, const kg_run *run, const kg_comparison *cmp) {
  const kg_run_meta *m = &run->meta;
  fputs("# kgate report\n\n", f);
  md_device(f, &m->dev);
  fputs("- **Run**: ", f);
  md_put(f, m->date[0] ? m->date : "unknown date");
  fputs(", commit ", f);
  md_put(f, m->commit[0] ? m->commit : "unknown");
  fputs(", kgate ", f);
  md_put(f, m->version[0] ? m->version : "?");
  fprintf(f, ", seed %llu, %.1f s\n", (unsigned long long)m->seed, m->wall_s);
  md_phases(f, &m->phases);
  md_counts(f, run);
  md_verdicts(f, run, cmp);
}

static int is_regression(kg_verdict v) { return v == KG_V_SLOWER || v == KG_V_UNKNOWN || v == KG_V_MISSING; }

static void md_us(FILE *f, double us) {
  if (us > 0) fprintf(f, " %s |", sig3(us).s);
  else fputs(" - |", f);
}

static void md_regressions(FILE *f, const kg_run *run, const kg_comparison *cmp) {
  size_t n = 0;
  for (size_t k = 0; cmp && k < cmp->n; k++) n += is_regression(cmp->rows[k].verdict);
  if (!n) return;
  fputs(run->pair.on ? "\n## Against the stored baseline (advisory)\n" : "\n## Regressions\n", f);
  fputs("\n| variant | dtype | n | verdict | baseline (us) | now (us) | change | tolerance |\n"
        "|---|---|---:|---|---:|---:|---:|---:|\n",
        f);
  for (size_t k = 0; k < cmp->n; k++) { /* rows come sorted regressions first */
    const kg_cmp_row *r = &cmp->rows[k];
    if (!is_regression(r->verdict)) continue;
    fputs("| ", f);
    md_put(f, r->variant); /* from the baseline: any name the file holds */
    fprintf(f, " | %s | %zu | %s |", kg_dtype_get(r->dtype)->name, r->n, kg_verdict_name(r->verdict));
    md_us(f, r->base_us);
    md_us(f, r->now_us);
    if (r->base_us > 0 && r->now_us > 0) fprintf(f, " %+.1f %% |", r->change * 100);
    else fputs(" |", f);
    fprintf(f, " %.3g %% |\n", r->tol * 100);
  }
}

static void md_failed_row(FILE *f, const kg_case *c, const kg_result *r) {
  char label[160];
  kg_case_label(c, label, sizeof label);
  fputs("| ", f);
  md_put(f, label);
  fprintf(f, " | %s |", kg_status_name(r->status));
  if (has_numbers(r->status)) {
    fputc(' ', f);
    md_put(f, r->got);
    fputs(" | ", f);
    md_put(f, r->expected);
    fprintf(f, " | %.3g | %.3g | %.3g |", r->abs_err, r->bound, r->ratio);
  } else {
    fputs(" | | | | |", f);
  }
  fputc(' ', f);
  md_put(f, r->message);
  fputs(" |\n", f);
}

size_t kg_export_failed(FILE *f, const kg_run *run, size_t max, const char *head,
                        void (*row)(FILE *f, const kg_case *c, const kg_result *r), size_t *more) {
  size_t shown = 0;
  *more = 0;
  for (size_t i = 0; i < run->n; i++) {
    const kg_result *r = &run->results[i];
    if (r->status != KG_ST_FAIL && r->status != KG_ST_ERROR) continue;
    if (shown == max) {
      (*more)++;
      continue;
    }
    if (!shown++) fputs(head, f);
    row(f, &run->cases[i], r);
  }
  return shown;
}

static void md_failed(FILE *f, const kg_run *run) {
  size_t more;
  kg_export_failed(f, run, KG_MD_MAX_FAILED,
                   "\n## Failed cases\n\n| case | status | got | expected | abs err | bound | err/bound | why |\n"
                   "|---|---|---|---|---:|---:|---:|---|\n",
                   md_failed_row, &more);
  if (more) fprintf(f, "\n... and %zu more\n", more);
}

/* The perf case of (variant, dtype, n), or -1. */
static long perf_case(const kg_run *run, int variant, kg_dtype dt, size_t n) {
  for (size_t i = 0; i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    if (c->timed && c->variant == variant && c->dtype == dt && c->n == n) return (long)i;
  }
  return -1;
}

/* The smallest perf size of dt above *n (above nothing when first), or 0 when none is left. */
static int next_perf_size(const kg_run *run, kg_dtype dt, int first, size_t *n) {
  int found = 0;
  size_t best = 0;
  for (size_t i = 0; i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    if (!c->timed || c->dtype != dt || (!first && c->n <= *n)) continue;
    if (!found || c->n < best) best = c->n, found = 1;
  }
  if (found) *n = best;
  return found;
}

static kg__num bytes_str(double bytes) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, u++;
  kg__num s;
  snprintf(s.s, sizeof s.s, "%.4g %s", bytes, unit[u]); /* below 1024: no exponent */
  return s;
}

/* Speedups carry Harris' running state: the first and the previous timed rung. */
typedef struct kg__ladder {
  double first_us, prev_us;
} kg__ladder;

static void md_speedup(FILE *f, double ref_us, double us) {
  if (ref_us > 0) fprintf(f, " %sx |", sig3(ref_us / us).s);
  else fputs(" |", f);
}

static void md_rung(FILE *f, const kg_run *run, size_t i, const kg_comparison *cmp, kg__ladder *l) {
  const kg_result *r = &run->results[i];
  const kg_cmp_row *row = row_of(run, i, cmp);
  const char *verdict = row ? kg_verdict_name(row->verdict) : "";
  fputs("| ", f);
  const kg_variant_info *vi = &kg_variants[run->cases[i].variant];
  md_put(f, vi->name);
  if (vi->op == KG_OP_MIN || vi->op == KG_OP_MAX) fprintf(f, " (%s)", kg_op_name(vi->op)); /* a module's min or max */
  fputs(" |", f);
  if (r->timing.samples <= 0) {
    fprintf(f, " not timed (%s) | | | | | | %s |\n", kg_status_name(r->status), verdict);
    return;
  }
  double us = r->timing.median_us;
  kg_perf p = kg_perf_of(run, i);
  fprintf(f, " %s | %s |", sig3(us).s, sig3(p.gbps).s);
  if (p.pct_peak > 0) fprintf(f, " %.1f |", p.pct_peak);
  else fputs(" |", f);
  md_speedup(f, l->prev_us, us);
  md_speedup(f, l->first_us, us);
  if (p.vs_cub > 0) fprintf(f, " %sx |", sig3(p.vs_cub).s);
  else fputs(" |", f);
  fprintf(f, row && row->verdict == KG_V_SLOWER ? " **%s** |\n" : " %s |\n", verdict);
  if (l->first_us <= 0) l->first_us = us;
  l->prev_us = us;
}

static void md_ladder(FILE *f, const kg_run *run, const kg_comparison *cmp, kg_dtype dt, size_t n) {
  fprintf(f, "\n## Ladder: %s, n = %zu (%s)\n\n", kg_dtype_get(dt)->name, n,
          bytes_str((double)n * (double)kg_dtype_get(dt)->size).s);
  fputs("| variant | time (us) | GB/s | % of peak | step speedup | cumulative speedup | vs CUB | verdict |\n"
        "|---|---:|---:|---:|---:|---:|---:|---|\n",
        f);
  kg__ladder l = {0, 0};
  for (size_t v = 0; v < kg_nvariants; v++) {
    long i = perf_case(run, (int)v, dt, n);
    if (i >= 0) md_rung(f, run, (size_t)i, cmp, &l);
  }
}

enum { KG_MD_MAX_PAIRS = 100 };

void kg_export_pair_counts(FILE *f, const size_t count[KG_NPVERDICTS]) {
  for (size_t k = 0; k < KG_NPVERDICTS; k++) {
    kg_pverdict v = kg_pverdict_order[k];
    if (v == KG_PV_UNCHANGED && !count[v]) continue;
    fprintf(f, "%s %zu %s", k ? "," : "", count[v], kg_pverdict_name(v));
  }
}

static void md_pair_counts(FILE *f, const size_t count[KG_NPVERDICTS]) {
  fputs("- **Paired verdicts**:", f);
  kg_export_pair_counts(f, count);
  fputc('\n', f);
}

/* SAME and UNCHANGED cells are counted, one line each, not a row each. */
static int md_pair_quiet(kg_pverdict v) { return v == KG_PV_SAME || v == KG_PV_UNCHANGED; }

/* more: "more " after a table of the other cells, else "". */
static void md_pair_quiet_lines(FILE *f, const size_t count[KG_NPVERDICTS], const char *more) {
  size_t same = count[KG_PV_SAME], unchanged = count[KG_PV_UNCHANGED];
  if (same) fprintf(f, "\n%zu %scell%s SAME.\n", same, more, same == 1 ? " is" : "s are");
  if (unchanged)
    fprintf(f, "\n%zu cell%s UNCHANGED: " KG_PV_UNCHANGED_ABOUT ", not timed (the evidence per cell is in the results "
               "JSON).\n",
            unchanged, unchanged == 1 ? "" : "s");
}

static void md_pair_row(FILE *f, const kg_run *run, const kg_pair_cell *c) {
  const kg_pair_stat *s = &c->stat;
  fprintf(f, s->verdict == KG_PV_SLOWER ? "| **%s** | " : "| %s | ", kg_pverdict_name(s->verdict));
  md_put(f, c->variant); /* from the results file: any name it holds */
  fprintf(f, " | %s | %zu |", kg_dtype_get(c->dtype)->name, c->n);
  if (pair_has_numbers(c)) {
    md_us(f, s->head_us);
    md_us(f, s->base_us);
    fprintf(f, " %+.2f %% | [%+.2f %%, %+.2f %%] | %.3g %% | %d | %d |", 100 * (s->ratio - 1), 100 * (s->lo - 1),
            100 * (s->hi - 1), 100 * c->min_effect, s->blocks, c->rounds);
  } else {
    fprintf(f, " | | | | | | %d |", c->rounds);
  }
  char why[600] = "";
  if (s->verdict == KG_PV_UNKNOWN || s->verdict == KG_PV_MISSING || (s->verdict == KG_PV_UNDECIDED && s->blocks < 2))
    pair_reason(run, c, why, sizeof why);
  else if (s->verdict == KG_PV_NEW)
    snprintf(why, sizeof why, "new: the base module has no such variant for this dtype");
  fputc(' ', f);
  md_put(f, why);
  fputs(" |\n", f);
}

/* The paired gate first: it decides the exit code when it ran (gate.c). */
static void md_paired(FILE *f, const kg_run *run) {
  const kg_pair_meta *m = &run->pair;
  if (!m->on) return;
  size_t count[KG_NPVERDICTS] = {0};
  kg_pair_count(run->pairs, run->npairs, count);
  fputs("\n## Paired gate\n\n- **Base module**: ", f);
  kg_export_base(f, m, md_put);
  fprintf(f, ", %d copies, %d-%d rounds, %.1f s\n", m->copies, m->rounds, m->max_rounds, m->wall_s);
  md_pair_counts(f, count);
  if (!run->npairs) {
    fputs("\nNo cell was paired: the base module shares no timed (variant, dtype, n) with this run.\n", f);
    return;
  }
  if (count[KG_PV_SAME] == run->npairs) {
    fprintf(f, "\nAll %zu paired cells are SAME: no change beyond the minimum effect.\n", run->npairs);
    return;
  }
  if (count[KG_PV_SAME] + count[KG_PV_UNCHANGED] == run->npairs) {
    fprintf(f, "\nNo paired cell changed beyond the minimum effect.\n");
    md_pair_quiet_lines(f, count, "");
    return;
  }
  fprintf(f, "\nChange is head/base - 1 (positive: head is slower), from blocks timed side by side in one process; "
             "the interval is its %.3g %% confidence interval over blocks. SLOWER or FASTER needs the whole interval "
             "beyond the minimum effect, SAME needs it wholly inside; anything else is UNDECIDED.\n\n",
          100 * m->confidence);
  fputs("| verdict | variant | dtype | n | head (us) | base (us) | change | interval | min effect | blocks | rounds | "
        "why |\n|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|\n",
        f);
  size_t shown = 0, more = 0;
  for (size_t k = 0; k < KG_NPVERDICTS; k++) { /* SLOWER first, whatever order the file had */
    if (md_pair_quiet(kg_pverdict_order[k])) continue;
    for (size_t i = 0; i < run->npairs; i++) {
      if (run->pairs[i].stat.verdict != kg_pverdict_order[k]) continue;
      if (shown == KG_MD_MAX_PAIRS) more++;
      else shown++, md_pair_row(f, run, &run->pairs[i]);
    }
  }
  if (more) fprintf(f, "\n... and %zu more (see the results JSON)\n", more);
  md_pair_quiet_lines(f, count, "more ");
}

/* The lint of each module: its findings, or clean, and every waiver in use. */
static void md_lint(FILE *f, const kg_run *run) {
  if (!run->nlint) return;
  fputs("\n## Memory ordering (kgate lint)\n\n", f);
  for (size_t k = 0; k < run->nlint; k++) {
    const kg_lint_module *m = &run->lint[k];
    fputs("- ", f);
    md_put(f, base_name(m->path));
    fputs(": ", f);
    if (!m->ran) {
      fputs("not run: ", f);
      md_put(f, m->why);
    } else {
      fprintf(f, "%d kernels, %d tickets, ", m->kernels, m->tickets);
      fputs(m->nitems ? "**" : "", f);
      fprintf(f, "%zu finding%s", m->nitems, m->nitems == 1 ? "" : "s");
      fputs(m->nitems ? "**" : "", f);
    }
    fputc('\n', f);
    for (size_t i = 0; i < m->nitems && i < KG_MD_MAX_FAILED; i++) {
      const kg_lint_item *x = &m->items[i];
      fputs("  - ", f);
      md_put(f, x->kernel);
      fprintf(f, " (sm_%d), %s: ", x->arch, x->side);
      md_put(f, x->first);
      fputs(" → ", f);
      md_put(f, x->second);
      fputc('\n', f);
    }
    if (m->nitems > KG_MD_MAX_FAILED) fprintf(f, "  - and %zu more (the results JSON has them all)\n", m->nitems - KG_MD_MAX_FAILED);
    for (size_t i = 0; i < m->nwaived; i++) {
      fputs("  - ", f);
      md_put(f, m->waived[i].variant);
      fputs(": waived: ", f);
      md_put(f, m->waived[i].reason);
      fprintf(f, " (%d finding%s)\n", m->waived[i].findings, m->waived[i].findings == 1 ? "" : "s");
    }
  }
}

static void write_markdown(FILE *f, const kg_run *run, const kg_comparison *cmp) {
  md_summary(f, run, cmp);
  md_lint(f, run);
  md_paired(f, run);
  md_regressions(f, run, cmp);
  md_failed(f, run);
  for (int d = 0; d < KG_NDTYPES; d++) {
    size_t n = 0;
    for (int first = 1; next_perf_size(run, (kg_dtype)d, first, &n); first = 0) md_ladder(f, run, cmp, (kg_dtype)d, n);
  }
}

int kg_export_markdown(const char *path, const kg_run *run, const kg_comparison *cmp, char *err, size_t errlen) {
  return export_with(write_markdown, path, run, cmp, err, errlen);
}

/* results.json: the run itself (results.h); a comparison is not stored in it. */
static int write_json(const char *path, const kg_run *run, const kg_comparison *cmp, char *err, size_t errlen) {
  (void)cmp;
  return kg_results_write(path, run, err, errlen);
}

/* A median of 0 is an absent one (NEW, MISSING, UNKNOWN): null. */
static json_t *median_json(double us) { return us > 0 ? kg_json_real(us) : json_null(); }

int kg_comparison_write(const char *path, const kg_comparison *cmp, const char *old_path, const char *new_path,
                        int missing_fail, char *err, size_t errlen) {
  json_t *counts = json_object(), *cells = json_array();
  for (int v = 0; counts && v < KG_NVERDICTS; v++)
    json_object_set_new(counts, kg_verdict_name((kg_verdict)v), json_integer((json_int_t)cmp->count[v]));
  for (size_t i = 0; cells && i < cmp->n; i++) {
    const kg_cmp_row *r = &cmp->rows[i];
    int both = r->base_us > 0 && r->now_us > 0;
    json_t *o = json_pack("{ss ss sI ss so so so so}", "variant", r->variant, "dtype", kg_dtype_get(r->dtype)->name,
                          "n", (json_int_t)r->n, "verdict", kg_verdict_name(r->verdict), "old_us", median_json(r->base_us),
                          "new_us", median_json(r->now_us), "change", both ? kg_json_real(r->change) : json_null(),
                          "tolerance", kg_json_real(r->tol));
    if (!o || json_array_append_new(cells, o)) json_decref(cells), cells = NULL;
  }
  json_t *doc = json_pack("{ss si ss ss sb sb ss so so}", "kind", "kgate-compare", "schema_version", 1, "old", old_path,
                          "new", new_path, "cross_card", cmp->cross_card, "missing_fail", missing_fail, "warning",
                          cmp->warning, "counts", counts, "cells", cells);
  int rc = kg_json_write(path, doc, "cells", err, errlen);
  json_decref(doc);
  return rc;
}

const kg_format kg_formats[KG_NFORMATS] = {
    [KG_FMT_JSON] = {"json", "--json", 0, "results.json",
                     "the results: every case, its check and its timing (docs/results-schema.md)", write_json},
    [KG_FMT_CSV] = {"csv", "--csv", 1, "results.csv",
                    "one row per case with named columns, for spreadsheets and gnuplot", kg_export_csv},
    [KG_FMT_JUNIT] = {"junit", "--junit", 1, "results.junit.xml",
                      "JUnit XML: a test case per check and per timed case, for CI", kg_export_junit},
    [KG_FMT_MD] = {"markdown", "--markdown", 1, "summary.md", "the Markdown summary (what $GITHUB_STEP_SUMMARY gets)",
                   kg_export_markdown},
};
