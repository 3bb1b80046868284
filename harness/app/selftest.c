#include "selftest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disasm.h"
#include "dtype.h"
#include "exitcode.h"
#include "lintcmd.h"
#include "pairrun.h"
#include "sanitize.h"
#include "supervisor.h"
#include "verdict.h"

/* Past 2^31 elements, and not a multiple of any block: 8 GiB of i32. */
#define KG_ST_HUGE_N (((size_t)1 << 31) + ((size_t)1 << 20) + 1)

/* The paired rows: the size each slowdown mutant is judged at (where its
 * planted effect is the one its name says: the 2 % at 2^22, 1 % at
 * 2^25, 5 % at 2^22), and the A/A control at both default sizes. The rows at
 * exactly m and m/2 measure the gate's power and false rate (caught in about
 * 95 % of runs at m by design, docs/timing-and-verdicts.md): a pass or fail
 * of one run says little, so they run only when --only names them
 * (tests/power_gpu.sh), never in a plain selftest. */
static const struct {
  const char *name;
  size_t n;
  int power;
} k_paired[] = {{"mut_slow1", (size_t)1 << 25, 0},       {"mut_slow2", (size_t)1 << 22, 0},
                {"mut_slow5", (size_t)1 << 22, 0},       {"mut_slow_m25", (size_t)1 << 25, 1},
                {"mut_slow_half25", (size_t)1 << 25, 1}, {"mut_slow_m22", (size_t)1 << 22, 1},
                {"mut_slow_half22", (size_t)1 << 22, 1}, {"mut_none", (size_t)1 << 22, 0},
                {"mut_none", (size_t)1 << 25, 0}};
enum { k_npaired = sizeof k_paired / sizeof k_paired[0] };

static int is_paired(kg_expect e) { return e == KG_EXPECT_SLOWER || e == KG_EXPECT_SAME || e == KG_EXPECT_NOT_SLOWER; }

static int first_dtype(unsigned mask) {
  for (int d = 0; d < KG_NDTYPES; d++)
    if (mask & KG_DT_BIT(d)) return d;
  return KG_I32;
}

static int sanitizer_tool_of(kg_expect e) {
  return e == KG_EXPECT_MEMCHECK    ? KG_SAN_MEMCHECK
         : e == KG_EXPECT_RACECHECK ? KG_SAN_RACECHECK
         : e == KG_EXPECT_SYNCCHECK ? KG_SAN_SYNCCHECK
                                    : -1;
}

uint64_t kg_st_huge_bytes(void) {
  /* its i32 input and the worker's pristine copy, plus 1 GiB for the rest */
  return 2 * (uint64_t)KG_ST_HUGE_N * 4 + ((uint64_t)1 << 30);
}

int kg_st_cases(int m, int huge, kg_case **cases, size_t *ncases) {
  const kg_mutant_info *mi = &kg_mutants[m];
  int base = kg_variant_find(mi->base);
  kg_dtype dt = (kg_dtype)first_dtype(kg_variants[mi->variant].dtypes);
  kg_pattern pat = kg_dtype_get(dt)->is_float ? KG_PAT_UNIFORM : KG_PAT_EXACT;
  /* Sizes with tails: not multiples of 32, 256 or 512, one and several levels. */
  static const size_t tails[] = {33, 1000, 4097, 65537};
  static const size_t big[] = {(size_t)1 << 22, (size_t)1 << 24};
  static const size_t one[] = {1000};
  static const size_t timed_size[] = {(size_t)1 << 22}; /* the game mutants: a size kgate times */
  size_t hugen[] = {KG_ST_HUGE_N};
  const size_t *sizes = tails;
  size_t ns = sizeof tails / sizeof tails[0];
  int timed = 0;
  switch (mi->expect) {
  case KG_EXPECT_NONDETERMINISTIC: sizes = big, ns = 2; break;
  case KG_EXPECT_CRASH:
  case KG_EXPECT_TIMEOUT: sizes = one, ns = 1; break;
  case KG_EXPECT_HUGE: sizes = hugen, ns = 1; (void)huge; break;
  case KG_EXPECT_REFUSED:
  case KG_EXPECT_WRONG_AFTER_TIMING: sizes = timed_size, ns = 1, timed = 1; break;
  case KG_EXPECT_MEMCHECK:
  case KG_EXPECT_RACECHECK:
  case KG_EXPECT_SYNCCHECK: ns = 2; break; /* 33 and 1000: sanitized runs are slow */
  default: break;
  }
  kg_case *c = malloc(2 * ns * sizeof *c);
  if (!c || base < 0) {
    free(c);
    return -1;
  }
  for (size_t k = 0; k < 2 * ns; k++) {
    int v = k < ns ? mi->variant : base;
    c[k] = (kg_case){v, dt, sizes[k % ns], pat, kg_case_supported(v, dt, pat), timed};
  }
  *cases = c;
  *ncases = 2 * ns;
  return 0;
}

unsigned kg_st_observe(const kg_result *r, int tool) {
  unsigned seen = 0;
  if (r->status == KG_ST_ERROR) {
    seen |= 1u << (r->fail == KG_FK_TIMEOUT ? KG_EXPECT_TIMEOUT : KG_EXPECT_CRASH);
  } else if (r->status == KG_ST_FAIL) {
    switch (r->fail) {
    case KG_FK_SANITIZER:
      if (tool >= 0) seen |= 1u << (tool == KG_SAN_MEMCHECK    ? KG_EXPECT_MEMCHECK
                                    : tool == KG_SAN_RACECHECK ? KG_EXPECT_RACECHECK
                                                               : KG_EXPECT_SYNCCHECK);
      break;
    case KG_FK_INPUT_MODIFIED: seen |= 1u << KG_EXPECT_INPUT_MODIFIED; break;
    case KG_FK_NONDETERMINISTIC: seen |= 1u << KG_EXPECT_NONDETERMINISTIC; break;
    case KG_FK_REFUSED: seen |= 1u << KG_EXPECT_REFUSED; break;
    case KG_FK_WRONG_AFTER_TIMING: seen |= 1u << KG_EXPECT_WRONG_AFTER_TIMING; break;
    default: seen |= 1u << KG_EXPECT_WRONG_RESULT; break; /* wrong_result, or a failure of no named kind */
    }
    if (r->input_modified) seen |= 1u << KG_EXPECT_INPUT_MODIFIED;
  }
  return seen;
}

static void names_of(unsigned seen, char *out, size_t len) {
  size_t used = 0;
  out[0] = '\0';
  for (int e = 0; e < KG_NEXPECT; e++)
    if (seen >> e & 1)
      used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s", used ? "+" : "",
                               kg_expect_name((kg_expect)e));
  if (!used) snprintf(out, len, "clean");
}

void kg_st_judge(int m, const kg_case *cases, const kg_result *results, size_t ncases, kg_st_row *row) {
  const kg_mutant_info *mi = &kg_mutants[m];
  int tool = sanitizer_tool_of(mi->expect);
  size_t ns = ncases / 2;
  unsigned mseen = 0, bseen = 0;
  const kg_result *first_bad = NULL;
  for (size_t k = 0; k < ncases; k++) {
    unsigned s = kg_st_observe(&results[k], tool);
    if (k < ns) {
      mseen |= s;
      if (s && !first_bad) first_bad = &results[k];
    } else {
      bseen |= s;
    }
  }
  row->mutant = m;
  char what[80], base[80];
  names_of(mseen, what, sizeof what);
  names_of(bseen, base, sizeof base);
  /* huge: any failure at n > 2^31 counts; the rest must trip their own check */
  unsigned want = mi->expect == KG_EXPECT_HUGE ? ((1u << KG_EXPECT_WRONG_RESULT) | (1u << KG_EXPECT_CRASH))
                                               : 1u << mi->expect;
  if (bseen) row->outcome = KG_STO_UNCLEAR;
  else row->outcome = (mseen & want) ? KG_STO_CAUGHT : KG_STO_MISSED;
  char detail[120] = "";
  if (first_bad) snprintf(detail, sizeof detail, " (n=%zu: %.90s)", cases[first_bad - results].n, first_bad->message);
  snprintf(row->observed, sizeof row->observed, "%.60s%.100s%s%.30s", what, detail, bseen ? "; base: " : "",
           bseen ? base : "");
}

int kg_st_exit_code(const kg_st_row *rows, size_t nrows) {
  int code = KG_EXIT_OK;
  for (size_t i = 0; i < nrows; i++) {
    if (rows[i].outcome == KG_STO_MISSED || rows[i].outcome == KG_STO_UNCLEAR) return KG_EXIT_FAIL;
    if (rows[i].outcome == KG_STO_NOT_RUN) code = KG_EXIT_ENV;
  }
  return code;
}

static const char *outcome_name(kg_st_outcome o) {
  switch (o) {
  case KG_STO_CAUGHT: return "yes";
  case KG_STO_MISSED: return "**NO**";
  case KG_STO_UNCLEAR: return "**unclear** (base fails too)";
  case KG_STO_NOT_RUN: return "not run";
  default: return "skipped";
  }
}

void kg_st_print(FILE *f, const kg_st_row *rows, size_t nrows) {
  fprintf(f, "| mutant | planted bug | expected check | observed | caught? |\n|---|---|---|---|---|\n");
  size_t count[KG_STO_SKIPPED + 1] = {0};
  for (size_t i = 0; i < nrows; i++) {
    const kg_mutant_info *mi = &kg_mutants[rows[i].mutant];
    fprintf(f, "| %s | %s | %s | %s | %s |\n", mi->name, mi->planted, kg_expect_name(mi->expect), rows[i].observed,
            outcome_name(rows[i].outcome));
    count[rows[i].outcome]++;
  }
  fprintf(f, "\nselftest: %zu of %zu mutants caught, %zu missed, %zu unclear, %zu not run, %zu skipped\n",
          count[KG_STO_CAUGHT], nrows, count[KG_STO_MISSED], count[KG_STO_UNCLEAR], count[KG_STO_NOT_RUN],
          count[KG_STO_SKIPPED]);
}

enum { k_max_arch = 256 }; /* sm_NN: NN below it */

/* What the lint found in the kernels whose symbol contains name (NULL: in
 * the real variants' kernels, every symbol without "mut_"): findings that
 * count and their sides; per architecture, 1 for such a kernel, 2 for a
 * finding in one. */
static size_t lint_count(const kg_sass_listing *l, const kg_lint_report *r, const char *name,
                         unsigned char arch[k_max_arch], unsigned *sides) {
  size_t n = 0;
  memset(arch, 0, k_max_arch);
  *sides = 0;
  for (int k = 0; k < l->nfuncs; k++) {
    const char *sym = l->funcs[k].name;
    if (l->funcs[k].called || (name ? !strstr(sym, name) : strstr(sym, "mut_") != NULL)) continue;
    int a = (unsigned)l->funcs[k].arch < k_max_arch ? l->funcs[k].arch : 0;
    arch[a] |= 1;
    for (size_t i = 0; i < r->nfindings; i++)
      if (r->findings[i].func == k && !r->findings[i].waived) n++, arch[a] |= 2, *sides |= 1u << r->findings[i].side;
  }
  return n;
}

static void lint_row(kg_st_row *row, const kg_sass_listing *l, const kg_lint_report *r, size_t base_findings) {
  unsigned char arch[k_max_arch];
  unsigned sides;
  size_t n = lint_count(l, r, kg_mutants[row->mutant].name, arch, &sides);
  size_t used = (size_t)snprintf(row->observed, sizeof row->observed, "%zu finding%s (%s%s%s%s%s)", n,
                                 n == 1 ? "" : "s", sides & 1 ? "release" : "", sides == 3 ? "+" : "",
                                 sides & 2 ? "acquire" : "", sides & 4 ? " scope" : "", n ? "" : "none");
  int kernels = 0, missed = 0;
  for (int a = 0; a < k_max_arch && used < sizeof row->observed; a++) {
    if (!arch[a]) continue;
    kernels++, missed += arch[a] != 3;
    used += (size_t)snprintf(row->observed + used, sizeof row->observed - used, " sm_%d%s", a,
                             arch[a] == 3 ? "" : ": clean");
  }
  if (base_findings && used < sizeof row->observed)
    snprintf(row->observed + used, sizeof row->observed - used, "; base: %zu findings in real variants",
             base_findings);
  row->outcome = base_findings ? KG_STO_UNCLEAR : kernels && !missed ? KG_STO_CAUGHT : KG_STO_MISSED;
}

/* The fence mutants: one lint of their module (libkgate_selftest.so) for
 * all of them, with its waivers. Each is caught when its kernel has a
 * finding at every architecture the module holds; the control is the real
 * variants' kernels, linked into that module too, which must lint clean. */
static void lint_rows(const kg_st_opts *o, kg_st_row *rows, size_t nrows) {
  size_t any = 0; /* no lint row selected (--only): the module is not disassembled */
  for (size_t i = 0; i < nrows; i++) any += kg_mutants[rows[i].mutant].expect == KG_EXPECT_LINT;
  if (!any) return;
  char err[512] = "no module to lint";
  char *text = NULL;
  size_t len = 0, base = 0;
  kg_sass_listing l;
  kg_lint_report r;
  kg_lint_waivers w = {0};
  int ok = o->lint_module && kg_lint_waivers_read(o->lint_module, &w, err, sizeof err) == 0 &&
           kg_dis_read(o->lint_module, &text, &len, err, sizeof err) == KG_DIS_OK &&
           kg_sass_parse(text, len, &l, err, sizeof err) == 0;
  free(text);
  if (ok && kg_lint_listing(&l, w.w, w.n, &r)) ok = 0, snprintf(err, sizeof err, "out of memory"), kg_sass_free(&l);
  if (ok) {
    unsigned char arch[k_max_arch];
    unsigned sides;
    base = lint_count(&l, &r, NULL, arch, &sides);
  }
  for (size_t i = 0; i < nrows; i++) {
    if (kg_mutants[rows[i].mutant].expect != KG_EXPECT_LINT) continue;
    if (ok) lint_row(&rows[i], &l, &r, base);
    else snprintf(rows[i].observed, sizeof rows[i].observed, "not run: %.180s", err);
  }
  if (ok) kg_lint_report_free(&r), kg_sass_free(&l);
  kg_lint_waivers_free(&w);
}

static int mutant_lookup(const char *name) {
  for (size_t i = 0; i < kg_nmutants; i++)
    if (!strcmp(kg_mutants[i].name, name)) return (int)i;
  return -1;
}

/* The paired rows, all in one set of rounds against reduce7_shuffle from
 * kgate's own module: each slowdown mutant must be SLOWER at its size, the
 * A/A control SAME at both. Fills rows[k] for the selected mutants; 0, or 3
 * when no worker could start. */
static int paired_rows(const kg_st_opts *o, uint64_t mask, kg_st_row **rows_of, char *err, size_t errlen) {
  kg_pair_job jobs[k_npaired];
  int mut[k_npaired];
  size_t nj = 0;
  for (size_t k = 0; k < k_npaired; k++) {
    int m = -1;
    for (size_t i = 0; i < kg_nmutants; i++)
      if (!strcmp(kg_mutants[i].name, k_paired[k].name)) m = (int)i;
    if (m < 0 || !(mask >> m & 1) || !rows_of[m]) continue;
    if (k_paired[k].power && !o->only) {
      rows_of[m]->outcome = KG_STO_SKIPPED;
      snprintf(rows_of[m]->observed, sizeof rows_of[m]->observed,
               "skipped: measures the gate's power at the minimum effect (--only %s runs it)", k_paired[k].name);
      continue;
    }
    jobs[nj] = (kg_pair_job){.variant = kg_mutants[m].variant, .dtype = KG_F32, .n = k_paired[k].n};
    mut[nj++] = m;
  }
  if (!nj) return 0;
  kg_pair_cell cells[k_npaired];
  memset(cells, 0, sizeof cells);
  for (size_t j = 0; j < nj; j++) {
    snprintf(cells[j].variant, sizeof cells[j].variant, "%s", kg_mutants[mut[j]].name);
    cells[j].dtype = jobs[j].dtype, cells[j].n = jobs[j].n;
  }
  kg_run_params p = {.seed = 1, .repeats = 1, .time = {.max_noise = 0.005, .min_samples = 10, .max_seconds = 2},
                     .pair = o->paired.pair};
  p.pair.on = 1, p.pair.module = 0, p.pair.base_variant = kg_variant_find("reduce7_shuffle");
  /* --timeout bounds a worker's start too, as for check and run */
  double timeout = o->timeout_s > 0 ? o->timeout_s : 20;
  kg_super_opts so = {.worker_argv = o->worker_argv, .timeout_s = timeout, .start_timeout_s = timeout};
  kg_super_dev dev = {o->worker_argv, 0};
  kg_device_info info;
  if (!o->quiet) fprintf(stderr, "selftest: paired rows (slower, same)...\n");
  if (kg_pair_rounds(jobs, nj, cells, &o->paired, o->quiet ? NULL : stderr, &p, &so, &dev, 1, &info, NULL, err, errlen))
    return KG_EXIT_ENV;
  for (size_t j = 0; j < nj; j++) {
    kg_st_row *row = rows_of[mut[j]];
    const kg_pair_stat *s = &cells[j].stat;
    kg_expect e = kg_mutants[mut[j]].expect;
    /* a slowdown of m/2 must not be SLOWER; it was timed (SAME, FASTER or UNDECIDED) */
    int ok = e == KG_EXPECT_NOT_SLOWER ? s->verdict == KG_PV_SAME || s->verdict == KG_PV_FASTER ||
                                             s->verdict == KG_PV_UNDECIDED
                                       : s->verdict == (e == KG_EXPECT_SAME ? KG_PV_SAME : KG_PV_SLOWER);
    size_t used = strlen(row->observed);
    snprintf(row->observed + used, sizeof row->observed - used,
             "%s2^%d %s %+.2f%% [%+.2f, %+.2f] (m %.2f%%, delta0 %.2f%%; %d rounds, LLR %.1f)", used ? "; " : "",
             cells[j].n == (size_t)1 << 25 ? 25 : 22, kg_pverdict_name(s->verdict), 100 * (s->ratio - 1),
             100 * (s->lo - 1), 100 * (s->hi - 1), 100 * cells[j].min_effect,
             100 * cells[j].min_effect * KG_SEQ_DELTA0_SHARE, cells[j].rounds, cells[j].llr_slower);
    /* every row of a mutant must come out as wanted */
    if (used == 0 || row->outcome == KG_STO_CAUGHT) row->outcome = ok ? KG_STO_CAUGHT : KG_STO_MISSED;
  }
  return 0;
}

/* Settles the rows the loop of kg_selftest does not run: the paired and
 * fence mutants (paired_rows and lint_rows run them after it), a sanitizer
 * row without compute-sanitizer, the huge tier without --huge. 1 for those. */
static int not_run_here(const kg_st_opts *o, const kg_mutant_info *mi, kg_st_row *row) {
  if (is_paired(mi->expect)) {
    row->outcome = KG_STO_NOT_RUN;
    return 1;
  }
  if (mi->expect == KG_EXPECT_LINT) { /* no GPU: lint_rows below */
    row->outcome = KG_STO_NOT_RUN;
    return 1;
  }
  if (sanitizer_tool_of(mi->expect) >= 0 && !o->sanitizer) {
    row->outcome = KG_STO_NOT_RUN;
    snprintf(row->observed, sizeof row->observed, "not run (compute-sanitizer missing)");
    return 1;
  }
  if (mi->expect == KG_EXPECT_HUGE && !o->huge) {
    row->outcome = KG_STO_SKIPPED;
    if (o->mem_bytes)
      snprintf(row->observed, sizeof row->observed,
               "skipped: needs n > 2^31 (%.0f GiB of device memory), the card has %.1f GiB (--huge forces it)",
               (double)kg_st_huge_bytes() / (1 << 30), (double)o->mem_bytes / (1 << 30));
    else
      snprintf(row->observed, sizeof row->observed, "skipped: needs n > 2^31 (%.0f GiB of device memory) and --huge",
               (double)kg_st_huge_bytes() / (1 << 30));
    return 1;
  }
  return 0;
}

/* A sanitizer row's workers: under compute-sanitizer, reporting into log
 * (made by the first such row, *logfd kept open for the rest), a fresh
 * worker per case. *argv is malloc'ed. 0, or -1 with err when the log
 * cannot be made. */
static int sanitized(const kg_st_opts *o, int tool, char *log, int *logfd, kg_super_opts *so, kg_super_san *san,
                     char ***argv, char *err, size_t errlen) {
  if (*logfd < 0 && (*logfd = mkstemp(log)) < 0) {
    snprintf(err, errlen, "cannot create a sanitizer log in /tmp");
    return -1;
  }
  *argv = kg_san_argv(o->sanitizer, (kg_san_tool)tool, log, o->worker_argv);
  so->worker_argv = *argv;
  *san = (kg_super_san){.log = log, .tool = kg_san_tool_name((kg_san_tool)tool), .exit_code = KG_SAN_EXIT,
                        .fresh_worker = 1, .exact_alloc = 1, .scan = kg_san_scan, .scan_ctx = NULL};
  so->timeout_s = so->start_timeout_s = 600; /* racecheck is slow, and so is a worker's start under it */
  return 0;
}

/* Runs mutant m's cases and its base's controls and judges them into row.
 * 0, or the exit code with err: 2 for a mutant whose cases cannot be made,
 * 3 when the sanitizer log cannot be made or no worker could start (then
 * the log, if made, is closed and removed). */
static int run_mutant(const kg_st_opts *o, int m, kg_st_row *row, char *log, int *logfd, char *err, size_t errlen) {
  const kg_mutant_info *mi = &kg_mutants[m];
  int tool = sanitizer_tool_of(mi->expect);
  kg_case *cases;
  size_t n;
  if (kg_st_cases(m, o->huge, &cases, &n)) {
    snprintf(err, errlen, "mutant %s: base variant '%s' unknown, or out of memory", mi->name, mi->base);
    return KG_EXIT_USAGE;
  }
  kg_result *results = calloc(n, sizeof *results);
  kg_run_params p = {.seed = 1, .repeats = mi->expect == KG_EXPECT_NONDETERMINISTIC ? 5 : 3,
                     .time = {.hot = 0, .max_noise = 0.005, .min_samples = 20, .max_seconds = 3}};
  double timeout = o->timeout_s > 0 ? o->timeout_s : 20;
  kg_super_opts so = {.worker_argv = o->worker_argv, .timeout_s = timeout, .start_timeout_s = timeout};
  char **argv = NULL;
  kg_super_san san = {0};
  if (tool >= 0 && sanitized(o, tool, log, logfd, &so, &san, &argv, err, errlen)) {
    free(cases), free(results);
    return KG_EXIT_ENV;
  }
  if (mi->expect == KG_EXPECT_HUGE) so.timeout_s = 600;
  if (!o->quiet) fprintf(stderr, "selftest: %s (%s)...\n", mi->name, kg_expect_name(mi->expect));
  kg_device_info dev;
  int rc = results && (tool < 0 || argv)
               ? kg_supervise_san(cases, n, &p, &so, tool >= 0 ? &san : NULL, results, &dev, err, errlen)
               : -1;
  free(argv);
  if (rc == 0) kg_st_judge(m, cases, results, n, row);
  free(cases);
  free(results);
  if (rc) { /* no worker could start (no GPU): this row proves nothing */
    row->outcome = KG_STO_NOT_RUN;
    snprintf(row->observed, sizeof row->observed, "not run: %.150s", err);
    if (*logfd >= 0) close(*logfd), unlink(log);
    return KG_EXIT_ENV;
  }
  return 0;
}

int kg_selftest(const kg_st_opts *o, kg_st_row *rows, size_t *nrows, char *err, size_t errlen) {
  uint64_t mask = ~0ull;
  *nrows = 0;
  if (o->only && kg_plan_select(o->only, mutant_lookup, "mutant", &mask, err, errlen)) return KG_EXIT_USAGE;
  char log[] = "/tmp/kgate-sanitizer-XXXXXX";
  int logfd = -1;
  kg_st_row *rows_of[64] = {0}; /* the paired mutants' rows, by mutant index */
  for (size_t m = 0; m < kg_nmutants; m++) {
    if (!(mask >> m & 1)) continue;
    kg_st_row *row = &rows[(*nrows)++];
    memset(row, 0, sizeof *row);
    row->mutant = (int)m;
    if (is_paired(kg_mutants[m].expect) && m < 64) rows_of[m] = row;
    if (not_run_here(o, &kg_mutants[m], row)) continue;
    int code = run_mutant(o, (int)m, row, log, &logfd, err, errlen);
    if (code) return code;
  }
  if (logfd >= 0) close(logfd), unlink(log);
  lint_rows(o, rows, *nrows);
  if (paired_rows(o, mask, rows_of, err, errlen)) {
    for (size_t m = 0; m < 64 && m < kg_nmutants; m++)
      if (rows_of[m]) snprintf(rows_of[m]->observed, sizeof rows_of[m]->observed, "not run: %.150s", err);
    return KG_EXIT_ENV;
  }
  return kg_st_exit_code(rows, *nrows);
}
