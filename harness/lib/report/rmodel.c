/* The report model (rmodel.h): every decision about what a report says. */
#include "rmodel.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "dtype.h"
#include "exitcode.h"
#include "label.h"
#include "outcome.h"
#include "pattern.h"
#include "varreg.h"

/* ---- the pool: every string and array the model holds --------------------- */

struct kg_rm_pool {
  void **p;
  size_t n, cap;
};

static void *keep(kg_rdoc *d, void *p) {
  struct kg_rm_pool *pool = d->pool;
  if (p && pool->n == pool->cap) {
    size_t cap = pool->cap ? 2 * pool->cap : 256;
    void **more = realloc(pool->p, cap * sizeof *more);
    if (!more) free(p), p = NULL;
    else pool->p = more, pool->cap = cap;
  }
  if (!p) {
    d->oom = 1;
    return NULL;
  }
  return pool->p[pool->n++] = p;
}

static void *array(kg_rdoc *d, size_t n, size_t size) { return keep(d, calloc(n ? n : 1, size)); }

/* A formatted string kept in the pool; "" when memory ran out (d->oom says so). */
static const char *fmt(kg_rdoc *d, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int len = vsnprintf(NULL, 0, f, ap);
  va_end(ap);
  char *s = len >= 0 ? keep(d, malloc((size_t)len + 1)) : NULL;
  if (!s) return "";
  va_start(ap, f);
  vsnprintf(s, (size_t)len + 1, f, ap);
  va_end(ap);
  return s;
}

/* Three significant digits and no exponent (38.0, 41.2, 0.0123, 1235):
 * people compare these by eye. */
static void sig3_into(double v, char *buf, size_t len) {
  int mag = v != 0 && isfinite(v) ? (int)floor(log10(fabs(v))) : 0;
  if (mag < -6 || mag > 15) snprintf(buf, len, "%.3g", v);
  else snprintf(buf, len, "%.*f", mag >= 2 ? 0 : 2 - mag, v);
}

static const char *sig3(kg_rdoc *d, double v) {
  char b[48];
  sig3_into(v, b, sizeof b);
  return fmt(d, "%s", b);
}

/* A time that may be absent (NEW, MISSING): "-" then. */
static const char *us_or_dash(kg_rdoc *d, double us) { return us > 0 ? sig3(d, us) : "-"; }

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

static kg_rm_cell text(const char *s) { return (kg_rm_cell){s, 0}; }
static kg_rm_cell data(const char *s) { return (kg_rm_cell){s, KG_RM_DATA}; }

static int table_init(kg_rdoc *d, kg_rm_table *t, const kg_rm_col *cols, size_t ncols, size_t max_rows) {
  t->cols = cols, t->ncols = ncols;
  t->rows = array(d, max_rows, sizeof *t->rows);
  return t->rows ? 0 : -1;
}

/* The next row of t, its cells all empty; NULL when memory ran out. */
static kg_rm_row *row_add(kg_rdoc *d, kg_rm_table *t, const void *src, kg_severity sev) {
  kg_rm_cell *cells = array(d, t->ncols, sizeof *cells);
  if (!cells) return NULL;
  kg_rm_row *r = &t->rows[t->nrows++];
  *r = (kg_rm_row){src, sev, 0, cells};
  return r;
}

static void item_add(kg_rdoc *d, const char *label, const char *note, const kg_rm_cell *parts, size_t n) {
  if (d->nitems == KG_RM_MAX_ITEMS) return; /* the builder adds at most six */
  kg_rm_item *it = &d->items[d->nitems++];
  *it = (kg_rm_item){label, note, {{0}}, n};
  memcpy(it->parts, parts, n * sizeof *parts);
}

/* ---- the summary ------------------------------------------------------------ */

static void summary_device(kg_rdoc *d, const kg_device_info *dev) {
  char peak[64] = "", roof[80] = "", b[48];
  if (dev->peak_gbps > 0) sig3_into(dev->peak_gbps, b, sizeof b), snprintf(peak, sizeof peak, ", peak %s GB/s", b);
  if (dev->roofline_gbps > 0)
    sig3_into(dev->roofline_gbps, b, sizeof b), snprintf(roof, sizeof roof, ", roofline %s GB/s (measured)", b);
  kg_rm_cell parts[] = {data(dev->name[0] ? dev->name : "unknown"),
                        text(fmt(d, " (CC %d.%d, %d SMs)%s%s, driver %d, CUDA runtime %d", dev->cc_major,
                                 dev->cc_minor, dev->sms, peak, roof, dev->driver_version, dev->runtime_version))};
  item_add(d, "GPU", NULL, parts, 2);
}

static void summary_run(kg_rdoc *d, const kg_run_meta *m) {
  kg_rm_cell parts[] = {data(m->date[0] ? m->date : "unknown date"),
                        text(", commit "),
                        data(m->commit[0] ? m->commit : "unknown"),
                        text(", kgate "),
                        data(m->version[0] ? m->version : "?"),
                        text(fmt(d, ", seed %llu, %.1f s", (unsigned long long)m->seed, m->wall_s))};
  item_add(d, "Run", NULL, parts, 6);
}

/* Where the wall time went (results.h): the phases that took any. */
static void summary_phases(kg_rdoc *d, const kg_phases *p) {
  if (!p->known) return;
  const double v[] = {p->startup_s, p->inputs_s, p->check_s, p->timing_s, p->paired_s, p->reports_s};
  static const char *const names[] = {"start-up", "inputs and references", "check", "timing", "paired rounds",
                                      "reports"};
  char line[400] = "";
  size_t at = 0, shown = 0;
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    if (v[k] >= 0.05 && at < sizeof line)
      at += (size_t)snprintf(line + at, sizeof line - at, "%s%s %.1f s", shown++ ? ", " : "", names[k], v[k]);
  kg_rm_cell part = text(fmt(d, "%s", shown ? line : "every phase under 0.1 s"));
  item_add(d, "Time", NULL, &part, 1);
}

static void summary_checks(kg_rdoc *d, const kg_run *run) {
  kg_counts t = kg_count_results(run->results, run->n);
  char pending[48] = "", carried[640] = "";
  if (t.pending) snprintf(pending, sizeof pending, ", %zu not run", t.pending);
  if (t.carried) /* the path came from the command line or a results file: the formats escape the cell */
    snprintf(carried, sizeof carried,
             " (%zu of them carried over from %.500s: same kgate check code, machine code and launches)", t.carried,
             run->check.from);
  d->checks = fmt(d, "%zu cases, %zu passed%s, %zu failed, %zu errors, %zu unsupported, %zu nondeterministic%s",
                  t.cases, t.passed, carried, t.failed, t.errored, t.unsupported, t.nondeterministic, pending);
  kg_rm_cell part = text(d->checks);
  item_add(d, "Checks", NULL, &part, 1);
}

/* Whether the timed cells' cold L2 was shown to be cold (model.h kg_cold):
 * the counts, and the cells it could not be verified for, with why. A run
 * whose cases carry no guard (before kgate verified it) says nothing. */
static void summary_cold(kg_rdoc *d, const kg_run *run) {
  size_t count[KG_NCOLD] = {0}, guarded = 0, listed = 0;
  char cells[600] = "", label[96];
  size_t at = 0;
  for (size_t i = 0; i < run->n; i++) {
    const kg_guard *g = &run->results[i].guard;
    if (!g->on) continue;
    guarded++, count[g->cold]++;
    if (g->cold != KG_COLD_NOT_VERIFIED) continue;
    if (listed++ < 3 && at < sizeof cells) {
      kg_case_label(&run->cases[i], label, sizeof label);
      at += (size_t)snprintf(cells + at, sizeof cells - at, "%s%s: %s", at ? "; " : "", label, g->cold_why);
    }
  }
  if (!guarded) return;
  static const char *const names[KG_NCOLD] = {"not said", "verified", "not verified", "too large to tell", "hot"};
  char line[200] = "";
  size_t used = 0;
  for (int k = KG_COLD_VERIFIED; k < KG_NCOLD; k++)
    if (count[k] && used < sizeof line)
      used += (size_t)snprintf(line + used, sizeof line - used, "%s%zu %s", used ? ", " : "", count[k], names[k]);
  if (count[KG_COLD_UNKNOWN] && used < sizeof line)
    snprintf(line + used, sizeof line - used, "%s%zu not said", used ? ", " : "", count[KG_COLD_UNKNOWN]);
  d->cold = fmt(d, "%s of %zu timed cell%s", line, guarded, guarded == 1 ? "" : "s");
  d->cold_cells = listed ? fmt(d, "%s%s", cells, listed > 3 ? fmt(d, "; and %zu more", listed - 3) : "") : NULL;
  kg_rm_cell parts[] = {text(d->cold), text(listed ? "; could not be verified for " : ""),
                        data(d->cold_cells ? d->cold_cells : "")};
  item_add(d, "Cold L2", NULL, parts, listed ? 3 : 1);
}

static size_t count_item(char *buf, size_t len, size_t at, size_t n, const char *name) {
  return at < len ? at + (size_t)snprintf(buf + at, len - at, "%s%zu %s", at ? ", " : "", n, name) : at;
}

void kg_rm_verdict_counts(const size_t count[KG_NVERDICTS], int skip_zero, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  for (int rank = 0; rank < KG_NVERDICTS; rank++)
    for (int v = 0; v < KG_NVERDICTS; v++)
      if (kg_verdict_rank((kg_verdict)v) == rank && (count[v] || !skip_zero))
        at = count_item(buf, len, at, count[v], kg_verdict_name((kg_verdict)v));
}

void kg_rm_pverdict_counts(const size_t count[KG_NPVERDICTS], int skip_zero, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < KG_NPVERDICTS; k++) {
    kg_pverdict v = kg_pverdict_order[k];
    if (count[v] || (!skip_zero && v != KG_PV_UNCHANGED)) /* a run without UNCHANGED reads as it always did */
      at = count_item(buf, len, at, count[v], kg_pverdict_name(v));
  }
}

kg_severity kg_rm_verdict_severity(kg_verdict v) {
  return v == KG_V_SLOWER ? KG_SEV_REGRESSION : v == KG_V_FASTER ? KG_SEV_GOOD : KG_NSEVERITIES;
}

const char *kg_rm_pverdict_brief(kg_pverdict v) {
  return v == KG_PV_NEW ? "only in head" : v == KG_PV_MISSING ? "only in base"
         : v == KG_PV_UNCHANGED ? "same machine code, not timed" : "no numbers";
}

/* "0 SLOWER, ..., 240 SAME", and what kg_comparison_common_sizes left out. */
static const char *verdict_counts(kg_rdoc *d, const kg_comparison *cmp) {
  char line[256], left[200] = "";
  kg_rm_verdict_counts(cmp->count, 0, line, sizeof line);
  kg_rm_left_out(cmp, cmp->left_out, left, sizeof left);
  return fmt(d, "%s%s%s", line, left[0] ? "; " : "", left);
}

void kg_rm_left_out(const kg_comparison *cmp, size_t cases, char *buf, size_t len) {
  char lo[32], hi[32];
  buf[0] = '\0';
  if (!cases) return;
  kg_size_label(cmp->left_min, lo, sizeof lo);
  kg_size_label(cmp->left_max, hi, sizeof hi);
  if (cmp->left_sizes == 1)
    snprintf(buf, len, "%zu case%s at n = %s left out: the baseline holds no case of that size", cases, plural(cases),
             lo);
  else
    snprintf(buf, len, "%zu case%s at %zu sizes from n = %s to %s left out: the baseline holds no case of those sizes",
             cases, plural(cases), cmp->left_sizes, lo, hi);
}

static void summary_perf(kg_rdoc *d, const kg_run *run, const kg_comparison *cmp) {
  if (!cmp) {
    kg_rm_cell part = text("no baseline to compare with");
    if (!run->pair.on) item_add(d, "Performance", NULL, &part, 1);
    return;
  }
  d->perf_counts = verdict_counts(d, cmp);
  kg_rm_cell part = text(d->perf_counts);
  /* With a paired result the stored baseline never fails the gate (slower_cells). */
  item_add(d, "Performance vs baseline", run->pair.on ? "(advisory: the paired gate decides)" : NULL, &part, 1);
  if (cmp->warning[0]) d->warning = cmp->warning;
}

/* ---- the lint ------------------------------------------------------------------ */

static void line_add(kg_rm_line *lines, size_t *n, int level, kg_severity sev, const kg_rm_cell *parts, size_t nparts) {
  kg_rm_line *l = &lines[(*n)++];
  *l = (kg_rm_line){level, sev, {{0}}, nparts};
  memcpy(l->parts, parts, nparts * sizeof *parts);
}

static void lint_line(kg_rdoc *d, int level, kg_severity sev, const kg_rm_cell *parts, size_t n) {
  line_add(d->lint.lines, &d->lint.nlines, level, sev, parts, n);
}

static const char *base_name(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

/* What a module not linted means for the gate (the verdict below, and the
 * terminal's line on stderr). */
#define KG_RM_LINT_FAILS "the gate fails (exit 3; --lint off runs without the lint)"

/* A module's line, then under it its findings, waivers and notes. */
static void lint_lines(kg_rdoc *d, const kg_rm_lint_module *m) {
  if (m->state == KG_RM_LINT_OFF) {
    kg_rm_cell p[] = {data(m->name), text(": off (--lint off): not linted")};
    lint_line(d, 0, KG_NSEVERITIES, p, 2);
  } else if (m->state == KG_RM_LINT_NOT_RUN) {
    kg_rm_cell p[] = {data(m->name), text(": "), {"not run", KG_RM_STRONG}, text(": "), data(m->why),
                      text("; " KG_RM_LINT_FAILS)};
    lint_line(d, 0, KG_SEV_FAILURE, p, 6);
  } else {
    kg_rm_cell p[] = {data(m->name), text(fmt(d, ": %d kernels, %d tickets, ", m->kernels, m->tickets)),
                      {fmt(d, "%zu finding%s", m->nfindings, plural(m->nfindings)), m->nfindings ? KG_RM_STRONG : 0}};
    lint_line(d, 0, m->nfindings ? KG_SEV_FAILURE : KG_NSEVERITIES, p, 3);
  }
  for (size_t i = 0; i < m->nfindings && i < KG_RM_MAX_FAILED; i++) {
    const kg_lint_item *x = &m->findings[i];
    kg_rm_cell p[] = {{x->kernel, KG_RM_DATA | KG_RM_CODE}, text(fmt(d, " (sm_%d), %s: ", x->arch, x->side)),
                      data(x->first), text(" → "), data(x->second)};
    lint_line(d, 1, KG_SEV_FAILURE, p, 5);
  }
  if (m->nfindings > KG_RM_MAX_FAILED) {
    kg_rm_cell p = text(fmt(d, "and %zu more (the results JSON has them all)", m->nfindings - KG_RM_MAX_FAILED));
    lint_line(d, 1, KG_NSEVERITIES, &p, 1);
  }
  for (size_t i = 0; i < m->nwaived; i++) {
    const kg_lint_waived *w = &m->waived[i];
    kg_rm_cell p[] = {data(w->variant), text(": waived: "), data(w->reason),
                      text(fmt(d, " (%d finding%s)", w->findings, plural((size_t)w->findings)))};
    lint_line(d, 1, KG_NSEVERITIES, p, 4);
  }
  for (size_t i = 0; i < m->nnotes && i < KG_RM_MAX_FAILED; i++) { /* what the lint could not classify */
    const kg_lint_item *x = &m->notes[i];
    kg_rm_cell p[] = {text("note: "), {x->kernel, KG_RM_DATA | KG_RM_CODE}, text(fmt(d, " (sm_%d): ", x->arch)),
                      data(x->first), text(": "), data(x->second), text(" (not a failure)")};
    lint_line(d, 1, KG_NSEVERITIES, p, 7);
  }
  if (m->nnotes > KG_RM_MAX_FAILED) {
    kg_rm_cell p = text(fmt(d, "and %zu more notes (the results JSON has them all)", m->nnotes - KG_RM_MAX_FAILED));
    lint_line(d, 1, KG_NSEVERITIES, &p, 1);
  }
}

/* A module's facts from its record; a module read counts its findings, one
 * not read (--lint off aside) counts as unread. */
static void lint_module(kg_rdoc *d, kg_rm_lint_module *m, const kg_lint_module *src) {
  *m = (kg_rm_lint_module){.path = src->path, .name = base_name(src->path)};
  m->state = src->ran ? KG_RM_LINT_RAN : src->off ? KG_RM_LINT_OFF : KG_RM_LINT_NOT_RUN;
  if (m->state == KG_RM_LINT_NOT_RUN) m->why = src->why[0] ? src->why : "no reason recorded";
  if (src->ran) {
    m->kernels = src->kernels, m->tickets = src->tickets;
    m->findings = src->items, m->nfindings = src->nitems;
    m->notes = src->notes, m->nnotes = src->nnotes;
    m->waived = src->waived, m->nwaived = src->nwaived;
  }
  d->lint.findings += m->nfindings;
  d->lint.unread += m->state == KG_RM_LINT_NOT_RUN;
}

/* Each module the lint read or did not: its facts, its lines. */
static void build_lint(kg_rdoc *d) {
  const kg_run *run = d->run;
  kg_rm_lint *l = &d->lint;
  size_t most = 0;
  for (size_t k = 0; k < run->nlint; k++) most += 3 + run->lint[k].nwaived + 2 * KG_RM_MAX_FAILED;
  if (!run->nlint || !(l->mods = array(d, run->nlint, sizeof *l->mods))) return;
  for (size_t k = 0; k < run->nlint; k++) lint_module(d, &l->mods[l->n++], &run->lint[k]);
  if (!(l->lines = array(d, most, sizeof *l->lines))) return;
  for (size_t k = 0; k < l->n; k++) lint_lines(d, &l->mods[k]);
}

/* ---- the paired gate ---------------------------------------------------------- */

static const kg_rm_col k_pair_cols[] = {
    {"verdict", NULL, 1}, {"variant", NULL, 1},  {"dtype", NULL, 1},    {"n", NULL, 0},
    {"head", "us", 0},    {"base", "us", 0},     {"change", NULL, 0},   {"interval", NULL, 1},
    {"min effect", NULL, 0}, {"blocks", NULL, 0}, {"rounds", NULL, 0},  {"why", NULL, 1}};

/* Each paired verdict's level on the page's scale (severity.h). */
static const kg_severity k_pair_sev[KG_NPVERDICTS] = {
    [KG_PV_SAME] = KG_NSEVERITIES,     [KG_PV_SLOWER] = KG_SEV_REGRESSION, [KG_PV_FASTER] = KG_SEV_GOOD,
    [KG_PV_UNDECIDED] = KG_SEV_NOTICE, [KG_PV_UNKNOWN] = KG_SEV_NOTICE,    [KG_PV_MISSING] = KG_SEV_NOTICE,
    [KG_PV_NEW] = KG_NSEVERITIES,      [KG_PV_UNCHANGED] = KG_NSEVERITIES};

kg_severity kg_rm_pverdict_severity(kg_pverdict v) {
  return (unsigned)v < KG_NPVERDICTS ? k_pair_sev[v] : KG_NSEVERITIES;
}

static int pair_quiet(kg_pverdict v) { return v == KG_PV_SAME || v == KG_PV_UNCHANGED; }

/* "head/base 1.084 (+8.40 %), 99 % interval [1.079, 1.089] (+7.90 % .. +8.90 %),
 * minimum effect 1 %: head 41.2 us, base 38.0 us, 16 blocks, 2 rounds" */
static const char *pair_numbers(kg_rdoc *d, const kg_pair_cell *c) {
  const kg_pair_stat *s = &c->stat;
  char head[48], base[48];
  sig3_into(s->head_us, head, sizeof head);
  sig3_into(s->base_us, base, sizeof base);
  const kg_pair_meta *m = &d->run->pair;
  const char *seq = c->sequential && m->sequential /* the sequential test's indifference zone and evidence */
                        ? fmt(d, " (delta0 %.3g %%; LLR slower %.1f, faster %.1f, bounds %.2f / %.2f)",
                              100 * c->min_effect * m->delta0_share, c->llr_slower, c->llr_faster, m->llr_lower,
                              m->llr_upper)
                        : "";
  return fmt(d,
             "head/base %.4f (%+.2f %%), %.3g %% interval [%.4f, %.4f] (%+.2f %% .. %+.2f %%), minimum effect %.3g "
             "%%%s: "
             "head %s us, base %s us, %d blocks, %d rounds",
             s->ratio, 100 * (s->ratio - 1), 100 * d->run->pair.confidence, s->lo, s->hi, 100 * (s->lo - 1),
             100 * (s->hi - 1), 100 * c->min_effect, seq, head, base, s->blocks, c->rounds);
}

/* Why a cell has no verdict, or none that counts; "" when a verdict says it
 * all. in_row: said beside the cell's numbers, which then say it themselves. */
static const char *pair_why(kg_rdoc *d, const kg_pair_cell *c, int in_row) {
  const char *msg = c->message;
  switch (c->stat.verdict) {
  case KG_PV_UNDECIDED:
    if (c->stat.blocks < 2)
      return fmt(d, "undecided: %d block%s, an interval needs two or more%s%s", c->stat.blocks,
                 c->stat.blocks == 1 ? "" : "s", msg[0] ? ": " : "", msg);
    if (c->sequential && d->run->pair.sequential)
      return in_row ? "" : fmt(d, "undecided: the sequential test reached neither bound: %s", pair_numbers(d, c));
    return in_row ? "" : fmt(d, "undecided: the interval reaches across the minimum effect: %s", pair_numbers(d, c));
  case KG_PV_UNKNOWN: return fmt(d, "unknown: %s", msg[0] ? msg : "head's check failed or a timing errored");
  case KG_PV_MISSING: return "missing: the base module has this cell, head does not";
  case KG_PV_NEW: return "new: the base module has no such variant for this dtype";
  case KG_PV_UNCHANGED: return fmt(d, "unchanged, not timed: %s", msg[0] ? msg : KG_PV_UNCHANGED_ABOUT);
  default: return "";
  }
}

static void pair_row(kg_rdoc *d, const kg_pair_cell *c) {
  const kg_pair_stat *s = &c->stat;
  kg_pverdict v = s->verdict;
  kg_rm_row *r = row_add(d, &d->paired.cells, c, kg_rm_pverdict_severity(v));
  if (!r) return;
  r->quiet = pair_quiet(v);
  kg_rm_cell *x = r->cells;
  x[0] = (kg_rm_cell){kg_pverdict_name(v), v == KG_PV_SLOWER ? KG_RM_STRONG : 0};
  x[1] = data(c->variant); /* from the results file: any name it holds */
  x[2] = text(kg_dtype_get(c->dtype)->name);
  x[3] = text(fmt(d, "%zu", c->n));
  if (s->blocks > 0) { /* NEW, MISSING, UNKNOWN and UNCHANGED have no numbers (results.h) */
    x[4] = text(us_or_dash(d, s->head_us));
    x[5] = text(us_or_dash(d, s->base_us));
    x[6] = text(fmt(d, "%+.2f %%", 100 * (s->ratio - 1)));
    x[7] = text(fmt(d, "[%+.2f %%, %+.2f %%]", 100 * (s->lo - 1), 100 * (s->hi - 1)));
    x[8] = text(c->sequential && d->run->pair.sequential /* m, and the zone's edge the test weighs it against */
                    ? fmt(d, "%.3g %% (delta0 %.3g %%)", 100 * c->min_effect,
                          100 * c->min_effect * d->run->pair.delta0_share)
                    : fmt(d, "%.3g %%", 100 * c->min_effect));
    x[9] = text(fmt(d, "%d", s->blocks));
  }
  x[10] = text(fmt(d, "%d", c->rounds));
  x[11] = data(pair_why(d, c, 1));
}

static const char *pair_counts(kg_rdoc *d, const size_t count[KG_NPVERDICTS]) {
  char line[256];
  kg_rm_pverdict_counts(count, 0, line, sizeof line);
  return fmt(d, "%s", line);
}

/* What the section says instead of a table, or around it. */
static void pair_state(kg_rdoc *d, const size_t count[KG_NPVERDICTS]) {
  kg_rm_paired *p = &d->paired;
  size_t n = d->run->npairs, same = count[KG_PV_SAME], unchanged = count[KG_PV_UNCHANGED];
  const char *more = "more ";
  if (!n) {
    p->state = "No cell was paired: the base module shares no timed (variant, dtype, n) with this run.";
    return;
  }
  if (same == n) {
    p->state = fmt(d, "All %zu paired cells are SAME: no change beyond the minimum effect.", n);
    return;
  }
  if (same + unchanged == n) p->state = "No paired cell changed beyond the minimum effect.", more = "";
  if (same) p->same_line = fmt(d, "%zu %scell%s SAME.", same, more, same == 1 ? " is" : "s are");
  if (unchanged)
    p->unchanged_line = fmt(d, "%zu cell%s UNCHANGED: " KG_PV_UNCHANGED_ABOUT ", not timed (the evidence per cell is "
                            "in the results JSON).", unchanged, unchanged == 1 ? "" : "s");
}

static void build_paired(kg_rdoc *d) {
  const kg_run *run = d->run;
  const kg_pair_meta *m = &run->pair;
  kg_rm_paired *p = &d->paired;
  if (!m->on) return;
  size_t count[KG_NPVERDICTS];
  kg_pair_count(run->pairs, run->npairs, count);
  p->counts = pair_counts(d, count);
  p->module = (kg_rm_item){"Base module", NULL,
                           {data(m->base_path), text(" ("), data(m->base_name), text(" "), data(m->base_version),
                            text(")")},
                           6};
  p->setting = fmt(d, "%d copies, %d-%d rounds, %.1f s", m->copies, m->rounds, m->max_rounds, m->wall_s);
  p->verdicts = (kg_rm_item){"Paired verdicts", NULL, {text(p->counts)}, 1};
  if (m->sequential)
    p->method = fmt(d, "Change is head/base - 1 (positive: head is slower), from blocks timed side by side in one "
                       "process; the interval is its %.3g %% confidence interval over blocks. The verdict is a "
                       "sequential test per cell, looked at after every round: effect >= the minimum effect m against "
                       "effect <= delta0 = %.3g m (a GSPRT on the blocks, sigma estimated). SLOWER (FASTER) when its "
                       "log-likelihood ratio reaches %.2f, SAME when both fall to %.2f; a false SLOWER at delta0 in at "
                       "most %.3g %% of cells, a true m missed in at most %.3g %%; UNDECIDED at the round cap.",
                    100 * m->confidence, m->delta0_share, m->llr_upper, m->llr_lower, 100 * m->alpha, 100 * m->beta);
  else
    p->method = fmt(d, "Change is head/base - 1 (positive: head is slower), from blocks timed side by side in one "
                       "process; the interval is its %.3g %% confidence interval over blocks. SLOWER or FASTER needs "
                       "the whole interval beyond the minimum effect, SAME needs it wholly inside; anything else is "
                       "UNDECIDED.",
                    100 * m->confidence);
  pair_state(d, count);
  if (table_init(d, &p->cells, k_pair_cols, sizeof k_pair_cols / sizeof k_pair_cols[0], run->npairs)) return;
  size_t loud = 0;
  for (size_t k = 0; k < KG_NPVERDICTS; k++) /* SLOWER first, whatever order the file had */
    for (size_t i = 0; i < run->npairs; i++)
      if (run->pairs[i].stat.verdict == kg_pverdict_order[k]) {
        pair_row(d, &run->pairs[i]);
        loud += !pair_quiet(kg_pverdict_order[k]);
      }
  p->cells.shown = loud < KG_RM_MAX_PAIRS ? loud : KG_RM_MAX_PAIRS;
}

/* ---- the comparison with the stored baseline ------------------------------------ */

static const kg_rm_col k_reg_cols[] = {{"variant", NULL, 1},  {"dtype", NULL, 1}, {"n", NULL, 0},
                                       {"verdict", NULL, 1},  {"baseline", "us", 0}, {"now", "us", 0},
                                       {"change", NULL, 0},   {"tolerance", NULL, 0}};

static int is_regression(kg_verdict v) { return v == KG_V_SLOWER || v == KG_V_UNKNOWN || v == KG_V_MISSING; }

static void build_regressions(kg_rdoc *d) {
  const kg_comparison *cmp = d->cmp;
  if (!cmp) return;
  d->regressions_title = d->run->pair.on ? "Against the stored baseline (advisory)" : "Regressions";
  if (table_init(d, &d->regressions, k_reg_cols, sizeof k_reg_cols / sizeof k_reg_cols[0], cmp->n)) return;
  for (size_t k = 0; k < cmp->n; k++) { /* rows come sorted regressions first */
    const kg_cmp_row *c = &cmp->rows[k];
    if (!is_regression(c->verdict)) continue;
    kg_rm_row *r = row_add(d, &d->regressions, c, c->verdict == KG_V_SLOWER ? KG_SEV_REGRESSION : KG_NSEVERITIES);
    if (!r) return;
    kg_rm_cell *x = r->cells;
    x[0] = data(c->variant); /* from the baseline: any name the file holds */
    x[1] = text(kg_dtype_get(c->dtype)->name);
    x[2] = text(fmt(d, "%zu", c->n));
    x[3] = text(kg_verdict_name(c->verdict));
    x[4] = text(us_or_dash(d, c->base_us));
    x[5] = text(us_or_dash(d, c->now_us));
    if (c->base_us > 0 && c->now_us > 0) x[6] = text(fmt(d, "%+.1f %%", c->change * 100));
    x[7] = text(fmt(d, "%.3g %%", c->tol * 100));
  }
  d->regressions.shown = d->regressions.nrows;
}

/* ---- failed cases ------------------------------------------------------------------ */

static const kg_rm_col k_failed_cols[] = {{"case", NULL, 1},    {"status", NULL, 1}, {"got", NULL, 1},
                                          {"expected", NULL, 1}, {"abs err", NULL, 0}, {"bound", NULL, 0},
                                          {"err/bound", NULL, 0}, {"why", NULL, 1}};

static int has_numbers(kg_status s) { return s == KG_ST_PASS || s == KG_ST_FAIL; }

static void build_failed(kg_rdoc *d) {
  const kg_run *run = d->run;
  if (table_init(d, &d->failed, k_failed_cols, sizeof k_failed_cols / sizeof k_failed_cols[0], run->n)) return;
  for (size_t i = 0; i < run->n; i++) {
    const kg_result *res = &run->results[i];
    if (res->status != KG_ST_FAIL && res->status != KG_ST_ERROR) continue;
    kg_rm_row *r = row_add(d, &d->failed, &run->cases[i], KG_SEV_FAILURE);
    if (!r) return;
    char label[160];
    kg_case_label(&run->cases[i], label, sizeof label);
    kg_rm_cell *x = r->cells;
    x[0] = data(fmt(d, "%s", label));
    x[1] = text(kg_status_name(res->status));
    if (has_numbers(res->status)) {
      x[2] = data(res->got), x[3] = data(res->expected);
      x[4] = text(fmt(d, "%.3g", res->abs_err));
      x[5] = text(fmt(d, "%.3g", res->bound));
      x[6] = text(fmt(d, "%.3g", res->ratio));
    }
    x[7] = data(res->message);
  }
  d->failed.shown = d->failed.nrows < KG_RM_MAX_FAILED ? d->failed.nrows : KG_RM_MAX_FAILED;
}

/* ---- the ladders ----------------------------------------------------------------------- */

static const kg_rm_col k_ladder_cols[] = {
    {"variant", NULL, 1},       {"time", "us", 0}, {"GB/s", NULL, 0},     {"% of peak", NULL, 0},
    {"step speedup", NULL, 0}, {"cumulative speedup", NULL, 0}, {"vs CUB", NULL, 0}, {"verdict", NULL, 1}};

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

static const char *bytes_label(kg_rdoc *d, double bytes) {
  char buf[32];
  kg_bytes_label(bytes, buf, sizeof buf);
  return fmt(d, "%s", buf);
}

static const char *times(kg_rdoc *d, double ratio) { return ratio > 0 ? sig3(d, ratio) : NULL; }

/* One rung; first and prev carry Harris' running state: the first and the previous timed rung. */
static void rung(kg_rdoc *d, kg_rm_table *t, size_t i, double *first, double *prev) {
  const kg_run *run = d->run;
  const kg_result *res = &run->results[i];
  const kg_cmp_row *row = d->cases[i].cmp;
  kg_verdict vd = row ? row->verdict : KG_NVERDICTS;
  kg_rm_row *r = row_add(d, t, &run->cases[i], kg_rm_verdict_severity(vd));
  if (!r) return;
  kg_rm_cell *x = r->cells;
  const kg_variant_info *vi = &kg_variants[run->cases[i].variant];
  /* a module's min or max says so */
  x[0] = data(vi->op == KG_OP_MIN || vi->op == KG_OP_MAX ? fmt(d, "%s (%s)", vi->name, kg_op_name(vi->op)) : vi->name);
  x[7] = (kg_rm_cell){row ? kg_verdict_name(row->verdict) : "", vd == KG_V_SLOWER ? KG_RM_STRONG : 0};
  if (res->timing.samples <= 0) {
    x[1] = text(fmt(d, "not timed (%s)", kg_status_name(res->status)));
    return;
  }
  double us = res->timing.median_us;
  const kg_perf *p = &d->cases[i].perf;
  x[1] = text(sig3(d, us));
  x[2] = text(sig3(d, p->gbps));
  if (p->pct_peak > 0) x[3] = text(fmt(d, "%.1f", p->pct_peak));
  x[4] = (kg_rm_cell){times(d, *prev > 0 ? *prev / us : 0), KG_RM_TIMES};
  x[5] = (kg_rm_cell){times(d, *first > 0 ? *first / us : 0), KG_RM_TIMES};
  x[6] = (kg_rm_cell){times(d, p->vs_cub), KG_RM_TIMES};
  if (*first <= 0) *first = us;
  *prev = us;
}

static void ladder(kg_rdoc *d, kg_rm_ladder *l) {
  const kg_run *run = d->run;
  l->bytes = bytes_label(d, (double)l->n * (double)kg_dtype_get(l->dtype)->size);
  if (table_init(d, &l->table, k_ladder_cols, sizeof k_ladder_cols / sizeof k_ladder_cols[0], kg_nvariants)) return;
  double first = 0, prev = 0;
  for (size_t v = 0; v < kg_nvariants; v++)
    for (size_t i = 0; i < run->n; i++) {
      const kg_case *c = &run->cases[i];
      if (c->timed && c->variant == (int)v && c->dtype == l->dtype && c->n == l->n) {
        rung(d, &l->table, i, &first, &prev);
        break;
      }
    }
  l->table.shown = l->table.nrows;
}

static void build_ladders(kg_rdoc *d) {
  size_t n = 0, k = 0;
  for (int dt = 0; dt < KG_NDTYPES; dt++)
    for (int first = 1; next_perf_size(d->run, (kg_dtype)dt, first, &n); first = 0) k++;
  if (!k || !(d->ladders = array(d, k, sizeof *d->ladders))) return;
  for (int dt = 0; dt < KG_NDTYPES; dt++)
    for (int first = 1; next_perf_size(d->run, (kg_dtype)dt, first, &n); first = 0) {
      kg_rm_ladder *l = &d->ladders[d->nladders++];
      l->dtype = (kg_dtype)dt, l->n = n;
      ladder(d, l);
    }
}

/* ---- each case's joins ------------------------------------------------------------------- */

/* The comparison row of case i. Only perf cases are compared, and only the
 * perf pattern of a (variant, dtype, n) is timed, so the key is unique. */
static const kg_cmp_row *row_of(const kg_rdoc *d, const kg_case *c) {
  if (!d->cmp || !c->timed) return NULL;
  const char *name = kg_variants[c->variant].name;
  for (size_t k = 0; k < d->cmp->n; k++) {
    const kg_cmp_row *r = &d->cmp->rows[k];
    if (r->dtype == c->dtype && r->n == c->n && strcmp(r->variant, name) == 0) return r;
  }
  return NULL;
}

/* The paired cell of a timed case, or NULL. */
static const kg_pair_cell *pair_of(const kg_run *run, const kg_case *c) {
  const char *name = kg_variants[c->variant].name;
  for (size_t k = 0; c->timed && run->pair.on && k < run->npairs; k++) {
    const kg_pair_cell *p = &run->pairs[k];
    if (p->dtype == c->dtype && p->n == c->n && strcmp(p->variant, name) == 0) return p;
  }
  return NULL;
}

static void build_cases(kg_rdoc *d) {
  const kg_run *run = d->run;
  if (!(d->cases = array(d, run->n, sizeof *d->cases))) return;
  for (size_t i = 0; i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    d->cases[i] = (kg_rm_case){row_of(d, c), pair_of(run, c), kg_perf_of(run, i)};
  }
}

/* ---- the CI test cases ---------------------------------------------------------------- */

static kg_rm_outcome check_outcome(kg_status s) {
  switch (s) {
  case KG_ST_PASS: return KG_RM_PASS;
  case KG_ST_FAIL: return KG_RM_FAILURE;
  case KG_ST_ERROR: return KG_RM_ERROR;
  default: return KG_RM_SKIPPED; /* unsupported, or never run */
  }
}

/* A perf test exists for every supported perf case; it fails only on SLOWER
 * (the gate's rule), and is skipped when the case was not timed. -1: none. */
static int perf_outcome(const kg_rdoc *d, size_t i) {
  const kg_case *c = &d->run->cases[i];
  if (!c->timed || !c->supported) return -1;
  if (d->run->results[i].timing.samples <= 0) return KG_RM_SKIPPED;
  const kg_cmp_row *row = d->cases[i].cmp;
  if (!row || row->verdict != KG_V_SLOWER) return KG_RM_PASS;
  /* With a paired result the stored baseline only advises (slower_cells): a
   * failure here would turn CI red on a run that exits 0. */
  return d->run->pair.on ? KG_RM_SKIPPED : KG_RM_FAILURE;
}

/* The paired gate's rule: only SLOWER fails; a cell without a decision is skipped with its reason. */
static kg_rm_outcome pair_outcome(kg_pverdict v) {
  switch (v) {
  case KG_PV_SLOWER: return KG_RM_FAILURE;
  case KG_PV_UNDECIDED:
  case KG_PV_UNKNOWN:
  case KG_PV_MISSING: return KG_RM_SKIPPED;
  default: return KG_RM_PASS; /* SAME, FASTER, NEW, UNCHANGED */
  }
}

static void test_add(kg_rdoc *d, const char *cls, const char *name, kg_rm_outcome o, const char *message,
                     const char *out) {
  kg_rm_suite *s = &d->suites[d->nsuites - 1];
  d->tests[d->ntests++] = (kg_rm_test){cls, name, o, message ? message : "", out};
  s->count++;
  kg_rm_tally *t[] = {&s->tally, &d->tally};
  for (size_t k = 0; k < 2; k++) {
    t[k]->tests++;
    t[k]->failures += o == KG_RM_FAILURE;
    t[k]->errors += o == KG_RM_ERROR;
    t[k]->skipped += o == KG_RM_SKIPPED;
  }
}

static void suite_open(kg_rdoc *d, const char *name) {
  d->suites[d->nsuites++] = (kg_rm_suite){name, {0}, d->ntests, 0};
}

/* The testsuite "paired": a test per cell, named by the cell; the class
 * carries the variant as the per-variant suites do. An UNCHANGED cell
 * passes with its evidence (what was proven identical) as its output. */
static void tests_paired(kg_rdoc *d) {
  const kg_run *run = d->run;
  if (!run->pair.on) return;
  suite_open(d, "paired");
  for (size_t k = 0; k < run->npairs; k++) {
    const kg_pair_cell *c = &run->pairs[k];
    kg_rm_outcome o = pair_outcome(c->stat.verdict);
    const char *msg = "";
    if (o == KG_RM_FAILURE) msg = fmt(d, "SLOWER than the base: %s", pair_numbers(d, c));
    else if (o == KG_RM_SKIPPED || c->stat.verdict == KG_PV_UNCHANGED) msg = pair_why(d, c, 0);
    const char *cls = fmt(d, "kgate.paired.%s", c->variant),
               *name = fmt(d, "%s n=%zu", kg_dtype_get(c->dtype)->name, c->n);
    if (o == KG_RM_PASS && msg[0]) test_add(d, cls, name, o, NULL, msg);
    else test_add(d, cls, name, o, msg, NULL);
  }
}

/* The lint's tests: one per module (failed with its findings or when it
 * could not run, skipped with --lint off), one skipped per waiver ("waived:
 * reason"). */
static void tests_lint(kg_rdoc *d) {
  if (!d->lint.n) return;
  suite_open(d, "lint");
  for (size_t k = 0; k < d->lint.n; k++) {
    const kg_rm_lint_module *m = &d->lint.mods[k];
    const char *msg = "";
    if (m->state == KG_RM_LINT_OFF) msg = "off (--lint off): not linted";
    else if (m->state == KG_RM_LINT_NOT_RUN) msg = fmt(d, "not run: %s; " KG_RM_LINT_FAILS, m->why);
    else if (m->nfindings)
      msg = fmt(d, "%zu finding%s; the first: %s (sm_%d): %s: %s -> %s", m->nfindings, plural(m->nfindings),
                m->findings[0].kernel, m->findings[0].arch, m->findings[0].side, m->findings[0].first,
                m->findings[0].second);
    kg_rm_outcome o = m->state == KG_RM_LINT_OFF ? KG_RM_SKIPPED
                      : m->state == KG_RM_LINT_NOT_RUN || m->nfindings ? KG_RM_FAILURE
                                                                        : KG_RM_PASS;
    test_add(d, "kgate.lint", m->name, o, msg, NULL);
    for (size_t i = 0; i < m->nwaived; i++)
      test_add(d, "kgate.lint", m->waived[i].variant, KG_RM_SKIPPED, fmt(d, "waived: %s", m->waived[i].reason), NULL);
  }
}

/* The testsuite "gate": the run's verdict, when no test of its own carries
 * it (a run the environment stopped, a cell missing in compare, an input
 * refused), so CI's count of failures never reads 0 for a run that failed. */
static void tests_gate(kg_rdoc *d) {
  const kg_rm_verdict *v = &d->verdict;
  if (v->v == KG_GATE_PASS || v->tested || !v->word) return;
  suite_open(d, "gate");
  test_add(d, "kgate.gate", "verdict", v->v == KG_GATE_FAIL ? KG_RM_FAILURE : KG_RM_ERROR,
           fmt(d, "%s (exit %d): %s", v->word, v->exit_code, v->text), NULL);
}

/* "the check's numbers: why" */
static const char *check_message(kg_rdoc *d, const kg_result *r) {
  if (r->status == KG_ST_ERROR) return r->message;
  return fmt(d, "got %s, expected %s, |err| %.3g, bound %.3g, err/bound %.3g%s%s%s", r->got, r->expected, r->abs_err,
             r->bound, r->ratio, r->nondeterministic ? ", nondeterministic" : "", r->message[0] ? ": " : "",
             r->message);
}

/* "median 41.2 us vs baseline 38.0 us (+8.4 %, tolerance 3 %)" */
static const char *perf_message(kg_rdoc *d, const kg_cmp_row *row) {
  char now[48], base[48];
  sig3_into(row->now_us, now, sizeof now);
  sig3_into(row->base_us, base, sizeof base);
  return fmt(d, "median %s us vs baseline %s us (%+.1f %%, tolerance %.3g %%)", now, base, row->change * 100,
             row->tol * 100);
}

static void tests_case(kg_rdoc *d, size_t i, const char *cls) {
  const kg_case *c = &d->run->cases[i];
  const kg_result *r = &d->run->results[i];
  const char *dt = kg_dtype_get(c->dtype)->name;
  kg_rm_outcome o = check_outcome(r->status);
  const char *msg = o == KG_RM_SKIPPED ? (r->status == KG_ST_UNSUPPORTED ? "unsupported dtype" : "not run")
                    : o == KG_RM_PASS  ? (r->carried ? r->message : "")
                                       : check_message(d, r);
  test_add(d, cls, fmt(d, "%s n=%zu %s", dt, c->n, kg_pattern_name(c->pattern)), o, msg, NULL);
  int p = perf_outcome(d, i);
  if (p < 0) return;
  msg = "";
  if (p == KG_RM_FAILURE) msg = perf_message(d, d->cases[i].cmp);
  else if (p == KG_RM_SKIPPED && r->timing.samples > 0) /* a baseline SLOWER under a paired result */
    msg = fmt(d, "SLOWER than the stored baseline, advisory: the paired gate decides (%s)",
              perf_message(d, d->cases[i].cmp));
  else if (p == KG_RM_SKIPPED) msg = "not timed: the check did not pass";
  test_add(d, cls, fmt(d, "perf %s n=%zu", dt, c->n), (kg_rm_outcome)p, msg, NULL);
}

static void build_tests(kg_rdoc *d) {
  const kg_run *run = d->run;
  size_t most = 2 * run->n + run->npairs + 3;
  for (size_t k = 0; k < d->lint.n; k++) most += 1 + d->lint.mods[k].nwaived;
  d->tests = array(d, most, sizeof *d->tests);
  d->suites = array(d, kg_nvariants + 3, sizeof *d->suites);
  if (!d->tests || !d->suites) return;
  tests_gate(d);
  tests_paired(d);
  tests_lint(d);
  for (size_t v = 0; v < kg_nvariants; v++) {
    const char *cls = NULL;
    for (size_t i = 0; i < run->n; i++) {
      if (run->cases[i].variant != (int)v) continue;
      if (!cls) suite_open(d, kg_variants[v].name), cls = fmt(d, "kgate.%s", kg_variants[v].name);
      tests_case(d, i, cls);
    }
  }
}

/* ---- the run's verdict ------------------------------------------------------------------ */

static const char *const k_gate_word[KG_NGATE_VERDICTS] = {
    [KG_GATE_INCOMPLETE] = "INCOMPLETE", [KG_GATE_FAIL] = "FAIL",       [KG_GATE_ENVIRONMENT] = "ENVIRONMENT",
    [KG_GATE_REFUSED] = "INPUT ERROR",   [KG_GATE_REGRESSION] = "REGRESSION", [KG_GATE_PASS] = "PASS"};

static const kg_severity k_gate_sev[KG_NGATE_VERDICTS] = {
    [KG_GATE_INCOMPLETE] = KG_SEV_NOTICE,         [KG_GATE_FAIL] = KG_SEV_FAILURE,
    [KG_GATE_ENVIRONMENT] = KG_SEV_FAILURE,       [KG_GATE_REFUSED] = KG_SEV_FAILURE,
    [KG_GATE_REGRESSION] = KG_SEV_REGRESSION,     [KG_GATE_PASS] = KG_SEV_GOOD};


int kg_rm_exit_code(const kg_rm_verdict *v, int outputs) {
  if (!v->word) return outputs ? outputs : KG_EXIT_ENV; /* out of memory: no verdict was made */
  if (v->v != KG_GATE_REGRESSION && v->v != KG_GATE_PASS) return v->exit_code;
  if (outputs == KG_EXIT_USAGE) return outputs;
  return v->v == KG_GATE_REGRESSION ? v->exit_code : outputs;
}

/* The reasons as they are found: kgate's words gather in one part until a
 * datum (a baseline's name, a message) comes; the flat text beside. */
typedef struct why_buf {
  char words[512], all[2048];
  size_t nwords, nall;
  int any;
} why_buf;

static void why_flush(kg_rdoc *d, why_buf *w) {
  kg_rm_verdict *v = &d->verdict;
  if (!w->words[0] || v->nwhy == KG_RM_MAX_PARTS) return;
  v->why[v->nwhy++] = text(fmt(d, "%s", w->words));
  w->words[0] = '\0', w->nwords = 0;
}

static void why_put(kg_rdoc *d, why_buf *w, const char *s, int is_data) {
  if (is_data) {
    why_flush(d, w);
    if (d->verdict.nwhy < KG_RM_MAX_PARTS) d->verdict.why[d->verdict.nwhy++] = data(s);
  } else if (w->nwords < sizeof w->words) {
    w->nwords += (size_t)snprintf(w->words + w->nwords, sizeof w->words - w->nwords, "%s", s);
  }
  if (w->nall < sizeof w->all) w->nall += (size_t)snprintf(w->all + w->nall, sizeof w->all - w->nall, "%s", s);
}

/* A reason: "; " before every one but the first. */
static void why_add(kg_rdoc *d, why_buf *w, const char *s) {
  why_put(d, w, w->any++ ? "; " : "", 0);
  why_put(d, w, s, 0);
}

/* The slower cells that decide: the paired gate's when it ran (the stored
 * baseline is another process's, often another card's), else the baseline's. */
static size_t slower_cells(const kg_rdoc *d) {
  size_t pcount[KG_NPVERDICTS];
  if (!d->run->pair.on) return d->cmp ? d->cmp->count[KG_V_SLOWER] : 0;
  kg_pair_count(d->run->pairs, d->run->npairs, pcount);
  return pcount[KG_PV_SLOWER];
}

/* What the slower cells are slower than, or what none is slower than. */
static void why_against(kg_rdoc *d, why_buf *w, const kg_rm_gate *g) {
  if (d->run->pair.on) why_put(d, w, "the base build (paired)", 0);
  else if (g->baseline) why_put(d, w, g->baseline, 1);
  else why_put(d, w, "the baseline", 0);
}

static void verdict_is(kg_rdoc *d, kg_gate_verdict v, int code, int tested) {
  if (d->verdict.word) return; /* the first reason found decides */
  d->verdict.v = v, d->verdict.word = k_gate_word[v], d->verdict.sev = k_gate_sev[v];
  d->verdict.exit_code = code, d->verdict.tested = tested;
}

/* In the order the gate decides its exit code (kg_rm_exit_code), each reason found is
 * said; the first decides. */
static void build_verdict(kg_rdoc *d, const kg_rm_gate *g) {
  const kg_run *run = d->run;
  kg_counts k = kg_count_results(run->results, run->n);
  size_t findings = d->lint.findings, unrun = d->lint.unread;
  size_t missing = g->missing_fails && d->cmp ? d->cmp->count[KG_V_MISSING] : 0;
  size_t bad = k.failed + k.errored, slower = slower_cells(d);
  why_buf w = {.any = 0};
  if (run->meta.incomplete[0]) {
    verdict_is(d, KG_GATE_INCOMPLETE, KG_EXIT_SIGNAL + (strcmp(run->meta.incomplete, "SIGTERM") ? SIGINT : SIGTERM), 0);
    why_add(d, &w, fmt(d, "stopped by %s before its end: %zu of %zu cases not run", run->meta.incomplete, k.pending,
                       k.cases));
  }
  if (g->environment || (k.pending && !run->meta.incomplete[0])) {
    verdict_is(d, KG_GATE_ENVIRONMENT, KG_EXIT_ENV, 0);
    why_add(d, &w, "the environment stopped the run");
    if (g->environment) why_put(d, &w, ": ", 0), why_put(d, &w, g->environment, 1);
    if (k.pending && !run->meta.incomplete[0])
      why_put(d, &w, fmt(d, " (%zu of %zu cases not run)", k.pending, k.cases), 0);
  }
  if (bad)
    verdict_is(d, KG_GATE_FAIL, KG_EXIT_FAIL, 1),
        why_add(d, &w, fmt(d, "%zu of %zu cases failed or errored", bad, k.cases));
  if (findings)
    verdict_is(d, KG_GATE_FAIL, KG_EXIT_FAIL, 1),
        why_add(d, &w, fmt(d, "%zu lint finding%s (memory ordering)", findings, plural(findings)));
  if (missing) {
    verdict_is(d, KG_GATE_FAIL, KG_EXIT_FAIL, 0);
    why_add(d, &w, fmt(d, "%zu cell%s of ", missing, plural(missing)));
    why_against(d, &w, g);
    why_put(d, &w, " not in this run (--missing allow accepts them)", 0);
  }
  /* A run the environment stopped before any case ran (no driver) says that
   * alone: the lint's hint would send the reader after the wrong fix. */
  int stopped_bare = g->environment && k.pending == k.cases;
  if (unrun && !stopped_bare)
    verdict_is(d, KG_GATE_ENVIRONMENT, KG_EXIT_ENV, 1),
        why_add(d, &w, fmt(d, "%zu module%s not linted (--lint off runs without the lint)", unrun, plural(unrun)));
  if (g->refused) verdict_is(d, KG_GATE_REFUSED, KG_EXIT_USAGE, 0), why_add(d, &w, ""), why_put(d, &w, g->refused, 1);
  if (slower) {
    verdict_is(d, KG_GATE_REGRESSION, KG_EXIT_PERF, 1);
    why_add(d, &w, fmt(d, "%zu %s slower than ", slower, run->pair.on ? (slower == 1 ? "cell" : "cells")
                                                                      : (slower == 1 ? "case" : "cases")));
    why_against(d, &w, g);
  }
  if (!d->verdict.word) {
    verdict_is(d, KG_GATE_PASS, KG_EXIT_OK, 0);
    if (k.carried) /* carried over: passed by a baseline's check, not run here */
      why_add(d, &w, fmt(d, "%zu cases checked and %zu carried over, none failed", k.cases - k.carried, k.carried));
    else
      why_add(d, &w, fmt(d, "%zu cases checked, none failed", k.cases));
    if (run->pair.on || d->cmp) why_put(d, &w, "; none slower than ", 0), why_against(d, &w, g);
    else why_put(d, &w, " (correctness only: no baseline to compare with)", 0);
  }
  why_flush(d, &w);
  d->verdict.text = fmt(d, "%s", w.all);
}

/* ---- compare ------------------------------------------------------------------------ */

static void compare_line(kg_rdoc *d, int level, kg_severity sev, const kg_rm_cell *parts, size_t n) {
  line_add(d->compare.lines, &d->compare.nlines, level, sev, parts, n);
}

/* NEW's own paired cells (its run against its base build): the verdict
 * counts their SLOWER as the run did, though OLD against NEW found none, so
 * compare says so, and names the slower cells in the run's order. */
static void compare_paired(kg_rdoc *d, const char *path) {
  const kg_run *run = d->run;
  if (!run->pair.on || !run->npairs) return;
  size_t count[KG_NPVERDICTS], slower = 0;
  kg_pair_count(run->pairs, run->npairs, count);
  kg_rm_cell head[] = {text("paired: "), data(path), text(" carries its own run against its base build ("),
                       data(run->pair.base_name), text(" "), data(run->pair.base_version),
                       text(fmt(d, "): %zu SLOWER, %zu FASTER, %zu SAME, %zu UNDECIDED of %zu cells%s",
                                count[KG_PV_SLOWER], count[KG_PV_FASTER], count[KG_PV_SAME], count[KG_PV_UNDECIDED],
                                run->npairs,
                                count[KG_PV_SLOWER] ? "; its SLOWER cells decide the verdict, as in that run:" : ""))};
  compare_line(d, 0, count[KG_PV_SLOWER] ? KG_SEV_REGRESSION : KG_NSEVERITIES, head, 7);
  for (size_t i = 0; i < run->npairs && slower < KG_RM_COMPARE_SLOWER; i++) {
    const kg_pair_cell *c = &run->pairs[i];
    if (c->stat.verdict != KG_PV_SLOWER) continue;
    slower++;
    kg_rm_cell p[] = {text("SLOWER "), data(c->variant),
                      text(fmt(d, " %s n=%zu: %+.2f%% [%+.2f%%, %+.2f%%] against the base (min effect %.1f%%)",
                               kg_dtype_get(c->dtype)->name, c->n, 100 * (c->stat.ratio - 1), 100 * (c->stat.lo - 1),
                               100 * (c->stat.hi - 1), 100 * c->min_effect))};
    compare_line(d, 1, KG_SEV_REGRESSION, p, 3);
  }
  if (count[KG_PV_SLOWER] > slower) {
    kg_rm_cell p[] = {text(fmt(d, "and %zu more SLOWER cells (kgate report ", count[KG_PV_SLOWER] - slower)),
                      data(path), text(" --html DIR shows every one)")};
    compare_line(d, 1, KG_NSEVERITIES, p, 3);
  }
}

/* compare's lines after its table (kg_rm_compare). */
static void build_compare(kg_rdoc *d, const kg_rm_gate *g) {
  const kg_comparison *cmp = d->cmp;
  kg_rm_compare *c = &d->compare;
  if (!g->compared || !cmp || !(c->lines = array(d, 5 + KG_RM_COMPARE_SLOWER, sizeof *c->lines))) return;
  c->on = 1, c->only = g->only_changed != 0;
  size_t same = 0, missing = cmp->count[KG_V_MISSING];
  for (size_t i = 0; i < cmp->n; i++) same += cmp->rows[i].verdict == KG_V_SAME;
  if (c->only) {
    kg_rm_cell p = text(fmt(d, "only changed: %zu SAME cell%s of %zu left out of the table (%s--json keeps every cell)",
                            same, plural(same), cmp->n, g->only_changed == 1 ? "" : "--all prints them; "));
    compare_line(d, 0, KG_NSEVERITIES, &p, 1);
  }
  /* A cell OLD has and NEW lacks was not shown to pass (a crash, a lost
   * shard, a narrower run): a correctness failure unless --missing allow. */
  kg_rm_cell miss[] = {text(fmt(d, "missing: %zu of the cells in ", missing)), data(g->baseline ? g->baseline : ""),
                       text(" are not in "), data(g->compared),
                       text(!missing           ? ""
                            : g->missing_fails ? " (a failure; --missing allow accepts them)"
                                               : " (--missing allow: not a failure)")};
  compare_line(d, 0, missing && g->missing_fails ? KG_SEV_FAILURE : KG_NSEVERITIES, miss, 5);
  kg_counts k = kg_count_results(d->run->results, d->run->n);
  if (k.failed || k.errored) {
    kg_rm_cell p[] = {text("failed: "), data(g->compared),
                      text(fmt(d, " has %zu failed and %zu errored cases", k.failed, k.errored))};
    compare_line(d, 0, KG_SEV_FAILURE, p, 3);
  }
  compare_paired(d, g->compared);
}

/* ---- the nightly's findings ------------------------------------------------------------ */

static const kg_rm_col k_find_cols[] = {{"variant", NULL, 1},      {"dtype", NULL, 1}, {"n", NULL, 0},
                                        {"level before", NULL, 0}, {"since", NULL, 0}, {"change", NULL, 0}};

int kg_rm_commit_hex(const char *c, char *hex, size_t len) {
  size_t n = strspn(c, "0123456789abcdef");
  if (n < 7 || n > 40 || (c[n] && strcmp(c + n, "-dirty")) || n >= len) return 0;
  snprintf(hex, len, "%.*s", (int)n, c);
  return 1;
}

static const char *night(kg_rdoc *d, const kg_history *h, size_t i) {
  char b[48];
  if (h && i < h->n) kg_date_label(h->runs[i].date, b, sizeof b);
  else snprintf(b, sizeof b, "unknown");
  return fmt(d, "%s", b);
}

static void finding_words(kg_rm_finding *f) {
  static const char *const tag[KG_NFIND_KINDS] = {[KG_FIND_REGRESSION] = "REGRESSION",
                                                  [KG_FIND_ENVIRONMENT] = "ENVIRONMENT",
                                                  [KG_FIND_HEALTH] = "RUNNER HEALTH",
                                                  [KG_FIND_IMPROVEMENT] = "IMPROVEMENT"};
  kg_find_kind k = f->src->kind;
  int known = (unsigned)k < KG_NFIND_KINDS;
  f->tag = known ? tag[k] : "FINDING";
  f->sev = kg_find_severity(k);
  f->title = k == KG_FIND_REGRESSION    ? (f->src->acknowledged ? "regression (acknowledged)" : "regression (open)")
             : k == KG_FIND_ENVIRONMENT ? "environment"
             : k == KG_FIND_HEALTH      ? "runner health"
                                        : "improvement";
  f->what = k == KG_FIND_REGRESSION    ? "slower than the reference's accepted level"
            : k == KG_FIND_IMPROVEMENT ? "faster than the accepted level"
                                       : NULL;
}

static void finding_cells(kg_rdoc *d, kg_rm_finding *f) {
  const kg_finding *x = f->src;
  if (table_init(d, &f->cells, k_find_cols, sizeof k_find_cols / sizeof k_find_cols[0], x->ncells)) return;
  for (size_t k = 0; k < x->ncells; k++) {
    const kg_find_cell *c = &x->cells[k];
    kg_rm_row *r = row_add(d, &f->cells, c, x->acknowledged ? KG_SEV_NOTICE : f->sev);
    if (!r) return;
    kg_rm_cell *y = r->cells;
    y[0] = data(c->variant), y[1] = text(kg_dtype_get(c->dtype)->name), y[2] = text(fmt(d, "%zu", c->n));
    y[3] = text(fmt(d, "%.4f", c->before)), y[4] = text(fmt(d, "%.4f", c->after));
    if (c->before > 0 && isfinite(c->before) && isfinite(c->after))
      y[5] = text(fmt(d, "%+.2f %%", 100 * (c->after / c->before - 1)));
  }
  f->cells.shown = x->ncells < KG_RM_FINDING_CELLS ? x->ncells : KG_RM_FINDING_CELLS;
}

static void finding(kg_rdoc *d, const kg_history *h, const kg_finding *x, const char *repo, kg_rm_finding *f) {
  *f = (kg_rm_finding){.src = x};
  finding_words(f);
  f->first_bad = night(d, h, x->first_bad);
  f->alarm = x->alarm != x->first_bad ? night(d, h, x->alarm) : NULL;
  int both = h && x->last_good < h->n && x->first_bad < h->n;
  f->good = both ? kg_hist_commit(&h->runs[x->last_good]) : "";
  f->bad = both ? kg_hist_commit(&h->runs[x->first_bad]) : "";
  char a[48], b[48];
  if (repo && repo[0] && both && x->last_good != x->first_bad && kg_rm_commit_hex(f->good, a, sizeof a) &&
      kg_rm_commit_hex(f->bad, b, sizeof b))
    f->compare = fmt(d, "%s/compare/%s...%s", repo, a, b);
  /* What changed, where the nights say: a history before the toolchain record names the card alone. */
  char changed[400];
  if (both && x->last_good < x->first_bad &&
      (kg_hist_what_changed(h, x->last_good, x->first_bad, changed, sizeof changed) > 0 ||
       h->runs[x->last_good].dev.toolchain.nvcc[0] || h->runs[x->first_bad].dev.toolchain.nvcc[0]))
    f->changed = fmt(d, "%s", changed);
  finding_cells(d, f);
}

/* The pieces of a bisect's line (kg_rm_bisect), in order. */
static void say_words(kg_rm_bisect *x, const char *s, unsigned flags) {
  if (x->n < KG_RM_MAX_PIECES) x->line[x->n++].cell = (kg_rm_cell){s, flags};
}

/* Commit i of the bisect's range, linked when the repository is known. */
static void say_commit(kg_rdoc *d, kg_rm_bisect *x, const kg_bisect_doc *b, long i, const char *repo) {
  const char *hex = b->commits[i];
  if (x->n < KG_RM_MAX_PIECES)
    x->line[x->n++].commit = (kg_rm_commit){hex, repo && repo[0] ? fmt(d, "%s/commit/%s", repo, hex) : NULL};
}

/* "+0.31 % [+0.24, +0.38]" and what follows, or NULL when the file left the effect unmeasured. */
static const char *bisect_effect(kg_rdoc *d, const kg_bisect_doc_effect *e, const char *before, const char *after) {
  if (!e->has || !isfinite(e->pct) || !isfinite(e->lo) || !isfinite(e->hi)) return NULL;
  return fmt(d, "%s%+.2f %% [%+.2f, %+.2f]%s", before, e->pct, e->lo, e->hi, after);
}

static void bisect_line(kg_rdoc *d, kg_rm_bisect *x, const kg_bisect_doc *b, const char *repo) {
  const char *effect;
  if (b->outcome == KG_BISECT_FOUND) {
    say_words(x, "Culprit", KG_RM_STRONG);
    say_words(x, " (kgate bisect): ", 0);
    say_commit(d, x, b, b->culprit, repo);
    effect = bisect_effect(d, &b->verify, ", ", " against its parent ");
    say_words(x, effect ? effect : " (parent ", 0);
    say_commit(d, x, b, b->parent, repo);
    if (!effect) say_words(x, ")", 0);
    return;
  }
  say_words(x, "kgate bisect", KG_RM_STRONG);
  say_words(x, ": ", 0);
  say_words(x, fmt(d, "%s", b->why), KG_RM_DATA);
  if (b->outcome == KG_BISECT_NOT_REPRODUCED && isfinite(b->estimate_pct) &&
      (effect =
           bisect_effect(d, &b->reproduce, ": ",
                         fmt(d, " between the range's ends, where the finding's step is %+.2f %%", b->estimate_pct))))
    say_words(x, effect, 0);
  if (b->outcome == KG_BISECT_UNDECIDED && b->cand_first >= 0) {
    long n = b->cand_last - b->cand_first + 1;
    say_words(x, fmt(d, "; the step is at one of %ld commit%s, ", n, n == 1 ? "" : "s"), 0);
    say_commit(d, x, b, b->cand_first, repo);
    say_words(x, " to ", 0);
    say_commit(d, x, b, b->cand_last, repo);
  }
  if (b->outcome == KG_BISECT_OUTSIDE && b->changed[0]) {
    say_words(x, "; what changed: ", 0);
    say_words(x, fmt(d, "%s", b->changed), KG_RM_DATA);
  }
}

int kg_rdoc_bisect(kg_rdoc *d, const kg_history *h, const kg_bisect_doc *b, const char *repo) {
  kg_rm_findings *fs = &d->findings;
  int given = 0;
  kg_rm_bisect *x = NULL;
  for (size_t i = 0; kg_bisect_doc_answers(b) && i < fs->n; i++) {
    if (!kg_bisect_doc_of(b, h, fs->find[i].src)) continue;
    if (!x && !(x = array(d, 1, sizeof *x))) return -1;
    fs->find[i].bisect = x, given++;
  }
  if (!x) return 0;
  x->outcome = b->outcome;
  bisect_line(d, x, b, repo);
  return d->oom ? -1 : given;
}

/* "Last night: DATE, commit C, GPU, reference R" */
static void last_night(kg_rdoc *d, const kg_history *h) {
  if (!h || !h->n) return;
  const kg_hist_run *last = &h->runs[h->n - 1];
  const char *ref = last->paired.ref_commit[0] ? last->paired.ref_commit : last->paired.ref_version;
  d->findings.last = (kg_rm_item){"Last night",
                                  NULL,
                                  {text(night(d, h, h->n - 1)),
                                   text(", commit "),
                                   {last->commit, KG_RM_DATA | KG_RM_CODE},
                                   text(", "),
                                   data(last->dev.name)},
                                  5};
  if (last->paired.has) {
    d->findings.last.parts[5] = text(", reference ");
    d->findings.last.parts[6] = (kg_rm_cell){ref, KG_RM_DATA | KG_RM_CODE};
    d->findings.last.nparts = 7;
  }
}

int kg_rdoc_findings(kg_rdoc *d, const kg_history *h, const kg_detection *det, const char *repo) {
  kg_rm_findings *fs = &d->findings;
  fs->on = 1, fs->open = det->open_regressions, fs->nseries = det->nseries, fs->runs = h ? h->n : 0;
  fs->exit_code = fs->open ? KG_EXIT_PERF : KG_EXIT_OK;
  for (size_t i = 0; h && i < h->n; i++) fs->nights += h->runs[i].paired.has != 0;
  last_night(d, h);
  if (det->nfind && (fs->find = array(d, det->nfind, sizeof *fs->find)))
    for (size_t i = 0; i < det->nfind; i++) finding(d, h, &det->find[i], repo, &fs->find[fs->n++]);
  return d->oom ? -1 : kg_rdoc_nights(d, h, det);
}

/* ---- the nights' verdicts ------------------------------------------------------------- */

static const struct {
  const char *name;
  kg_severity sev;
} k_night[KG_NNIGHT_VERDICTS] = {
    [KG_NIGHT_FAIL] = {"FAIL", KG_SEV_FAILURE},
    [KG_NIGHT_REGRESSION] = {"REGRESSION", KG_SEV_REGRESSION},
    [KG_NIGHT_HEALTH] = {"RUNNER HEALTH", KG_SEV_ENVIRONMENT},
    [KG_NIGHT_ENVIRONMENT] = {"ENVIRONMENT", KG_SEV_ENVIRONMENT},
    [KG_NIGHT_PASS] = {"PASS", KG_SEV_GOOD},
};

const char *kg_night_verdict_name(kg_night_verdict v) {
  return (unsigned)v < KG_NNIGHT_VERDICTS ? k_night[v].name : "UNKNOWN";
}

kg_severity kg_night_verdict_severity(kg_night_verdict v) {
  return (unsigned)v < KG_NNIGHT_VERDICTS ? k_night[v].sev : KG_SEV_NOTICE;
}

/* Whether finding f decides night i's verdict: an open regression from its
 * first bad night on (it fails every night until acknowledged), the
 * environment and runner health between their first bad night and their
 * alarm. An acknowledged regression and an improvement decide no night. */
static int covers(const kg_finding *f, size_t i) {
  switch (f->kind) {
  case KG_FIND_REGRESSION: return !f->acknowledged && f->first_bad <= i;
  case KG_FIND_ENVIRONMENT:
  case KG_FIND_HEALTH: return f->first_bad <= i && i <= f->alarm;
  default: return 0;
  }
}

static kg_night_verdict night_of_kind(kg_find_kind k) {
  return k == KG_FIND_REGRESSION ? KG_NIGHT_REGRESSION : k == KG_FIND_HEALTH ? KG_NIGHT_HEALTH : KG_NIGHT_ENVIRONMENT;
}

/* Cells of findings of one kind that hold a cell more than once count it once. */
static int cell_seen(const kg_detection *det, size_t upto_f, size_t upto_c, const kg_find_cell *c, size_t i,
                     kg_find_kind kind) {
  for (size_t f = 0; f <= upto_f; f++) {
    const kg_finding *x = &det->find[f];
    if (x->kind != kind || !covers(x, i)) continue;
    for (size_t k = 0; k < (f == upto_f ? upto_c : x->ncells); k++)
      if (x->cells[k].dtype == c->dtype && x->cells[k].n == c->n && !strcmp(x->cells[k].variant, c->variant))
        return 1;
  }
  return 0;
}

void kg_night_verdicts(const kg_history *h, const kg_detection *det, kg_night *out) {
  for (size_t i = 0; h && i < h->n; i++) {
    kg_night *nv = &out[i];
    *nv = (kg_night){.verdict = KG_NIGHT_PASS};
    for (size_t f = 0; det && f < det->nfind; f++) {
      const kg_finding *x = &det->find[f];
      if (x->kind == KG_FIND_REGRESSION && x->acknowledged && x->first_bad <= i) nv->acked += x->ncells;
      if (!covers(x, i)) continue;
      kg_night_verdict v = night_of_kind(x->kind);
      if (v < nv->verdict) nv->verdict = v, nv->cells = 0, nv->finding = NULL;
      if (v != nv->verdict) continue;
      if (!nv->finding || x->first_bad > nv->finding->first_bad) nv->finding = x; /* the newest */
      for (size_t k = 0; k < x->ncells; k++) nv->cells += !cell_seen(det, f, k, &x->cells[k], i, x->kind);
    }
    if (h->runs[i].checks.failed + h->runs[i].checks.errored) nv->verdict = KG_NIGHT_FAIL, nv->finding = NULL;
  }
}

int kg_night_regressed(const kg_history *h, const kg_detection *det, size_t i, const char *variant, kg_dtype dt,
                       size_t n) {
  if (!h || !det || i >= h->n) return 0;
  for (size_t f = 0; f < det->nfind; f++) {
    const kg_finding *x = &det->find[f];
    if (x->kind != KG_FIND_REGRESSION || !covers(x, i)) continue;
    for (size_t k = 0; k < x->ncells; k++)
      if (x->cells[k].dtype == dt && x->cells[k].n == n && !strcmp(x->cells[k].variant, variant)) return 1;
  }
  return 0;
}

size_t kg_rm_night_find(const kg_history *h, const char *date, const char *commit) {
  if (!h) return 0;
  for (size_t i = h->n; i-- > 0;)
    if (!strcmp(h->runs[i].date, date) && !strcmp(h->runs[i].commit, commit)) return i;
  return h->n;
}

size_t kg_rm_night_of(const kg_history *h, const char *date, const char *commit) {
  size_t i = kg_rm_night_find(h, date, commit);
  return h && h->n && i == h->n ? h->n - 1 : i;
}


/* Why a night has its verdict, in the nightly's words. */
static const char *night_why(kg_rdoc *d, const kg_hist_run *r, const kg_night *v) {
  switch (v->verdict) {
  case KG_NIGHT_FAIL:
    return fmt(d, "%zu of %zu cases failed or errored", r->checks.failed + r->checks.errored, r->checks.cases);
  case KG_NIGHT_REGRESSION:
    return fmt(d, "%zu cell%s slower than the reference's accepted level", v->cells, plural(v->cells));
  case KG_NIGHT_HEALTH: return "the reference itself ran slower on this night's card: the machine, not the code";
  case KG_NIGHT_ENVIRONMENT:
    if (!v->cells) return "the control or the reference's own time moved: the machine, not a commit";
    return fmt(d, "%zu cell%s moved while the control or the reference's own time moved: the machine, not a commit",
               v->cells, plural(v->cells));
  default: break;
  }
  if (!r->paired.has) return fmt(d, "%zu cases checked, none failed", r->checks.cases);
  if (v->acked)
    return fmt(d, "every watched cell within its accepted level (the new level of %zu cell%s acknowledged)", v->acked,
               plural(v->acked));
  return "every watched cell within its accepted level against the pinned reference";
}

/* The page's headline: the run's own night, its failed cases first (the
 * run's count, as the gate says it), a regression with its open findings. */
static void night_page(kg_rdoc *d, const kg_history *h) {
  kg_rm_findings *fs = &d->findings;
  kg_counts k = kg_count_results(d->run->results, d->run->n);
  size_t bad = k.failed + k.errored;
  kg_rm_night *p = &fs->page;
  *p = fs->night[kg_rm_night_of(h, d->run->meta.date, d->run->meta.commit)];
  if (bad) {
    p->v.verdict = KG_NIGHT_FAIL;
    p->word = kg_night_verdict_name(KG_NIGHT_FAIL), p->sev = kg_night_verdict_severity(KG_NIGHT_FAIL);
    p->why = fmt(d, "%zu of %zu cases failed or errored", bad, k.cases);
  } else if (p->v.verdict == KG_NIGHT_REGRESSION) {
    p->why = fmt(d, "%s (%zu open finding%s)", p->why, fs->open, plural(fs->open));
  }
}

static const kg_rm_col k_span_cols[] = {{"nights", NULL, 1}, {"verdict", NULL, 1}, {"why", NULL, 1}};

/* The nights as runs of one verdict and one why: "DATE" or "DATE to DATE (N nights)". */
static void night_spans(kg_rdoc *d, const kg_history *h) {
  kg_rm_findings *fs = &d->findings;
  if (table_init(d, &fs->spans, k_span_cols, sizeof k_span_cols / sizeof k_span_cols[0], h->n)) return;
  for (size_t i = 0; i < h->n;) {
    size_t j = i + 1;
    while (j < h->n && fs->night[j].v.verdict == fs->night[i].v.verdict && !strcmp(fs->night[j].why, fs->night[i].why))
      j++;
    kg_rm_row *r = row_add(d, &fs->spans, &fs->night[i], fs->night[i].sev);
    if (!r) return;
    r->quiet = fs->night[i].v.verdict == KG_NIGHT_PASS;
    r->cells[0] = data(j - i == 1 ? fs->night[i].label /* dates from the file */
                                  : fmt(d, "%s to %s (%zu nights)", fs->night[i].label, fs->night[j - 1].label, j - i));
    r->cells[1] = (kg_rm_cell){fs->night[i].word, fs->night[i].v.verdict == KG_NIGHT_PASS ? 0u : KG_RM_STRONG};
    r->cells[2] = text(fs->night[i].why);
    i = j;
  }
  fs->spans.shown = fs->spans.nrows;
}

int kg_rdoc_nights(kg_rdoc *d, const kg_history *h, const kg_detection *det) {
  kg_rm_findings *fs = &d->findings;
  if (!h || fs->night) return d->oom ? -1 : 0;
  kg_night *v = malloc((h->n ? h->n : 1) * sizeof *v);
  if (!keep(d, v) || !(fs->night = array(d, h->n, sizeof *fs->night))) return -1;
  kg_night_verdicts(h, det, v);
  for (size_t i = 0; i < h->n; i++) {
    kg_rm_night *x = &fs->night[i];
    x->v = v[i];
    x->word = kg_night_verdict_name(v[i].verdict);
    x->sev = kg_night_verdict_severity(v[i].verdict);
    x->label = night(d, h, i);
    x->why = night_why(d, &h->runs[i], &v[i]);
  }
  night_spans(d, h);
  if (d->run && det && h->n) night_page(d, h);
  return d->oom ? -1 : 0;
}

/* ---- the whole ------------------------------------------------------------------------- */

int kg_rdoc_init(kg_rdoc *d) {
  memset(d, 0, sizeof *d);
  if (!(d->pool = calloc(1, sizeof *d->pool))) return d->oom = 1, -1;
  return 0;
}

int kg_rdoc_build(kg_rdoc *d, const kg_run *run, const kg_comparison *cmp) {
  return kg_rdoc_build_gate(d, run, cmp, NULL);
}

int kg_rdoc_build_gate(kg_rdoc *d, const kg_run *run, const kg_comparison *cmp, const kg_rm_gate *gate) {
  static const kg_rm_gate none;
  if (kg_rdoc_init(d)) return -1;
  d->run = run, d->cmp = cmp;
  summary_device(d, &run->meta.dev);
  summary_run(d, &run->meta);
  summary_phases(d, &run->meta.phases);
  summary_checks(d, run);
  summary_cold(d, run);
  summary_perf(d, run, cmp);
  build_cases(d);
  if (!d->oom) {
    build_lint(d);
    build_paired(d);
    build_regressions(d);
    build_failed(d);
    build_ladders(d);
    build_verdict(d, gate ? gate : &none);
    build_compare(d, gate ? gate : &none);
    build_tests(d);
  }
  return d->oom ? -1 : 0;
}

void kg_rdoc_free(kg_rdoc *d) {
  if (d->pool) {
    for (size_t i = 0; i < d->pool->n; i++) free(d->pool->p[i]);
    free(d->pool->p);
    free(d->pool);
  }
  memset(d, 0, sizeof *d);
}
