#include "gate.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "baseline.h"
#include "carry.h"
#include "command.h"
#include "dtype.h"
#include "escape.h"
#include "exitcode.h"
#include "export.h"
#include "fileio.h"
#include "label.h"
#include "lintcmd.h"
#include "merge.h"
#include "module.h"
#include "pairrun.h"
#include "plan.h"
#include "pattern.h"
#include "phases.h"
#include "progress.h"
#include "refpin.h"
#include "publish.h"
#include "registry.h"
#include "report.h"
#include "results.h"
#include "sanitize.h"
#include "selftest.h"
#include "kg_harness.h"
#include "sizes.h"
#include "suggest.h"
#include "supervisor.h"
#include "verdict.h"
#include "waiver.h"


/* The supervisor's progress callback: progress.h draws it, on a terminal or in a log. */
/* The first worker said hello: the held phase line (check_pass). */
static void progress_started(void *ctx) { kg_progress_start(ctx); }

static void show_progress(void *ctx, size_t done, size_t total, const kg_case *c, const kg_result *r) {
  char label[160];
  kg_case_label(c, label, sizeof label);
  kg_progress_case(ctx, done, total, label, r->status == KG_ST_FAIL || r->status == KG_ST_ERROR);
}

/* The reports asked for on the command line; GITHUB_STEP_SUMMARY gets the
 * Markdown too. 0, or -1 after printing what failed. */
/* The workers' own sums of what the cases cost (model.h), for the phase clock (phases.h). */
static void add_case_phases(const kg_run *run, kg_phase_passes *ph) {
  for (size_t i = 0; i < run->n; i++) {
    ph->inputs_sum += run->results[i].input_us * 1e-6;
    ph->check_sum += run->results[i].check_us * 1e-6;
    ph->timing_sum += run->results[i].time_us * 1e-6;
  }
}

/* The report files asked for and the step summary, from one report model. */
static int write_reports(const char *const *reports, const kg_rdoc *doc) {
  char err[512];
  int rc = kg_report_files(reports, doc, stderr);
  const char *summary = getenv("GITHUB_STEP_SUMMARY");
  if (summary && *summary) {
    /* The step summary is appended to, never replaced: write, then copy in. */
    char tmp[] = "/tmp/kgate-summary-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd >= 0) close(fd);
    else snprintf(err, sizeof err, "cannot write %s: %s", tmp, strerror(errno));
    if (fd < 0 || kg_report_write(KG_FMT_MD, tmp, doc, err, sizeof err) || kg_append_file(summary, tmp, err, sizeof err))
      rc = -1, fprintf(stderr, "kgate: GITHUB_STEP_SUMMARY: %s\n", err);
    if (fd >= 0) unlink(tmp);
  }
  return rc;
}

/* The same, building the model of run and cmp (NULL: no baseline) for it;
 * with say, its verdict line there and in *verdict (whose words are gone). */
static int write_run_reports(const char *const *reports, const kg_run *run, const kg_comparison *cmp,
                             const kg_rm_gate *gate, FILE *say, kg_rm_verdict *verdict) {
  kg_rdoc doc;
  kg_rdoc_build_gate(&doc, run, cmp, gate); /* out of memory: each write says so */
  int rc = write_reports(reports, &doc);
  if (say) kg_report_verdict(say, &doc), *verdict = doc.verdict;
  kg_rdoc_free(&doc);
  return rc;
}

static void fill_meta(const kg_gate_opts *go, const kg_device_info *dev, double wall, kg_run_meta *m) {
  memset(m, 0, sizeof *m);
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  snprintf(m->version, sizeof m->version, "%s", KG_VERSION);
  snprintf(m->commit, sizeof m->commit, "%s", KG_GIT);
  m->dev = *dev;
  m->seed = go->seed;
  m->repeats = go->repeats;
  m->time = go->time;
  m->tolerance = go->tolerance_pct;
  m->wall_s = wall;
  if (go->shard_n) snprintf(m->shard, sizeof m->shard, "%u/%u", go->shard_i, go->shard_n);
  kg_provenance_from_env(&m->prov); /* the CI run and runner, for merge's cross-check and the reader's trust */
}

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

/* Compares the run with DIR/<slug>.json. 0 with *have set when a comparison
 * was made; -1 (input error, printed) when the baseline is unusable. */
static int compare_with_baseline(const kg_gate_opts *go, const kg_run *run, kg_comparison *cmp, int *have) {
  char path[PATH_MAX], err[512];
  *have = 0;
  kg_baseline_path(go->baseline_dir, run->meta.dev.name, path, sizeof path);
  kg_baseline base, now;
  int rc = kg_baseline_load(path, &base, err, sizeof err);
  if (rc == 1) {
    fprintf(stderr, "kgate: no baseline %s for %s: every timed case is NEW (kgate baseline update writes one)\n", path,
            run->meta.dev.name);
    memset(&base, 0, sizeof base);
    base.dev = run->meta.dev;
  } else if (rc) {
    fprintf(stderr, "kgate: %s\n", err);
    return -1;
  }
  restrict_to_run(&base, run);
  if (kg_baseline_from_run(run, &now)) {
    kg_baseline_free(&base);
    fprintf(stderr, "kgate: out of memory\n");
    return -1;
  }
  drop_untimed_unchanged(&base, run);
  drop_untimed_unchanged(&now, run);
  rc = kg_compare(&base, &now, go->tolerance_pct, cmp, err, sizeof err);
  kg_baseline_free(&base);
  kg_baseline_free(&now);
  if (rc) {
    fprintf(stderr, "kgate: %s\n", err);
    return -1;
  }
  *have = 1;
  return 0;
}

/* The worker program: --worker, or this executable. NULL after printing why. */
static const char *worker_path(const kg_modules *mods, char *buf, size_t len) {
  if (mods->worker) return mods->worker;
  ssize_t got = readlink("/proc/self/exe", buf, len - 1);
  if (got <= 0) {
    fprintf(stderr, "kgate: cannot find its own executable to start workers\n");
    return NULL;
  }
  buf[got] = '\0';
  return buf;
}

enum { ARGV_MAX = 10 + 4 * KG_MODULES_MAX }; /* worker, "worker", --device N, --roofline, modules, --describe, NULL */

/* A worker's command line: `kgate worker [--device N] [--roofline]
 * [--own-kernels PATH] [--mutant-kernels PATH] [--kernels PATH]... [--base-kernels PATH]...
 * [--describe]`; device < 0: none. The one place that knows its shape. */
typedef struct worker_cmd {
  char *argv[ARGV_MAX];
  char device[16];
} worker_cmd;

static char *const *worker_cmd_make(worker_cmd *w, const char *worker, int device, int roofline,
                                    const kg_modules *mods, int with_base, int describe) {
  int a = 0;
  w->argv[a++] = (char *)worker, w->argv[a++] = "worker";
  if (device >= 0) {
    snprintf(w->device, sizeof w->device, "%d", device);
    w->argv[a++] = "--device", w->argv[a++] = w->device;
  }
  if (roofline) w->argv[a++] = "--roofline";
  if (mods->own) w->argv[a++] = "--own-kernels", w->argv[a++] = (char *)mods->own;
  if (mods->mutants) w->argv[a++] = "--mutant-kernels", w->argv[a++] = (char *)mods->mutants;
  for (int k = 0; k < mods->nkernels; k++) w->argv[a++] = "--kernels", w->argv[a++] = (char *)mods->kernels[k];
  for (int k = 0; with_base && k < mods->nbase; k++)
    w->argv[a++] = "--base-kernels", w->argv[a++] = (char *)mods->base_kernels[k];
  if (describe) w->argv[a++] = "--describe";
  w->argv[a] = NULL;
  return w->argv;
}

/* Appends sep (when buf is not empty) and s to buf, cut at a character
 * boundary: a version cut inside a UTF-8 sequence could not be written. */
static void join(char *buf, size_t len, const char *sep, const char *s) {
  size_t n = strlen(buf) + strlen(sep) + strlen(s) + 1;
  char *t = malloc(n);
  if (!t) return; /* out of memory: the list stays as it was */
  snprintf(t, n, "%s%s%s", buf, *buf ? sep : "", s);
  kg_copy_text(buf, len, t);
  free(t);
}

/* --kernels and --base-kernels: one worker, started with --describe (no
 * GPU), loads every module and says what it holds; a module that cannot be
 * loaded, or a variant name defined twice, is its one-line reason (exit 2).
 * The --kernels modules' variants join the registry here, as they do in each
 * worker. *base (when not NULL) gets the union of the base modules, for
 * pairing by name. 0, or -1 after printing why. */
/* With --reference, the base modules, each read once into sealed memory
 * (module.h): the workers load the sealed bytes, so the SHA-256 checked
 * against the pins and recorded is that of the code that runs, whatever
 * happens at the path meanwhile. Reports and messages name the paths given. */
static struct {
  kg_module_image im[KG_MODULES_MAX];
  const char *given[KG_MODULES_MAX];
  int n;
} g_sealed;

/* The path given for a module path a worker was handed. */
static const char *given_path(const char *path) {
  for (int k = 0; k < g_sealed.n; k++)
    if (!strcmp(path, g_sealed.im[k].load_path)) return g_sealed.given[k];
  return path;
}

/* A worker's message with the paths given in place of the images'. */
static const char *given_text(const char *text, char *buf, size_t len) {
  kg_module_image_names(g_sealed.im, g_sealed.given, g_sealed.n, text, buf, len);
  return buf;
}

static void unseal_bases(void) {
  for (int k = 0; k < g_sealed.n; k++) kg_module_image_close(&g_sealed.im[k]);
  g_sealed.n = 0;
}

/* Seals m's base modules into out (a copy of m whose base paths are the
 * images'); with pins, a module of a hash no pin has is refused here, before
 * anything of it is loaded. 0, or -1 printed. */
static int seal_bases(const kg_modules *m, kg_modules *out) {
  char err[1024];
  kg_pins pins;
  *out = *m;
  if (m->pins && kg_pins_read(m->pins, &pins, err, sizeof err)) return fprintf(stderr, "kgate: %s\n", err), -1;
  for (int k = 0; k < m->nbase; k++) {
    kg_module_image *im = &g_sealed.im[g_sealed.n];
    if (kg_module_image_open(m->base_kernels[k], im, err, sizeof err) ||
        (m->pins && !kg_pin_by_sha(&pins, m->base_kernels[k], im->sha256, err, sizeof err))) {
      fprintf(stderr, "kgate: %s%s%s\n", m->pins && im->fd >= 0 ? m->pins : "", m->pins && im->fd >= 0 ? ": " : "",
              err);
      kg_module_image_close(im);
      return unseal_bases(), -1;
    }
    g_sealed.given[g_sealed.n++] = m->base_kernels[k];
    out->base_kernels[k] = im->load_path;
  }
  return 0;
}

/* A base module's identity in pm: its SHA-256 and, with pins (--reference),
 * the commit of its pin; a module that is not a pinned reference is refused
 * (refpin.h). 0, or -1 printed. */
static int identify_base(const kg_modinfo *mi, const kg_pins *pins, const char *pins_path, kg_pair_meta *pm) {
  char err[512], sha[65];
  const kg_pin *pin = NULL;
  if (kg_sha256_file(mi->path, sha, err, sizeof err) ||
      (pins && !(pin = kg_pin_match(pins, mi->name, sha, err, sizeof err)))) {
    fprintf(stderr, "kgate: %s%s%s\n", pins ? pins_path : "", pins ? ": " : "", err);
    return -1;
  }
  size_t s = strlen(pm->base_sha256), c = strlen(pm->base_commit);
  snprintf(pm->base_sha256 + s, sizeof pm->base_sha256 - s, "%s%s", s ? "+" : "", sha);
  if (pin) snprintf(pm->base_commit + c, sizeof pm->base_commit - c, "%s%s", c ? "+" : "", pin->commit);
  if (pin && kg_pin_has_ptx(pin))
    fprintf(stderr, "kgate: warning: %s: the pinned reference of '%s' carries PTX (architectures %s): on a newer GPU "
            "the driver would JIT it; re-pin a build with -real architectures (docs/nightly.md)\n", pins_path, pin->module,
            pin->architectures);
  return 0;
}

static int load_modules(const kg_modules *m, const char *worker, kg_modinfo *base, kg_pair_meta *ident) {
  char err[1024];
  if (base) memset(base, 0, sizeof *base);
  if (!m->nkernels && !(base && m->nbase)) return 0;
  kg_pins pins;
  if (ident && m->pins && kg_pins_read(m->pins, &pins, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return -1;
  }
  worker_cmd cmd;
  kg_modinfo mods[1 + 2 * KG_MODULES_MAX];
  int n = kg_module_query(worker_cmd_make(&cmd, worker, -1, 0, m, base != NULL, 1), mods, sizeof mods / sizeof mods[0],
                          err, sizeof err);
  if (n < 0) {
    char shown[2048];
    fprintf(stderr, "kgate: %s\n", given_text(err, shown, sizeof shown));
    return -1;
  }
  int rc = 0;
  size_t nbase = 0;
  for (int k = 0; k < n; k++) nbase += mods[k].role == KG_MOD_BASE ? mods[k].n : 0;
  if (base && !(base->v = calloc(nbase + 1, sizeof *base->v))) rc = -1, fprintf(stderr, "kgate: out of memory\n");
  for (int k = 0; !rc && k < n; k++) {
    const kg_modinfo *mi = &mods[k];
    if (mi->role == KG_MOD_BASE && base) { /* the worker refused a name two base modules define */
      join(base->path, sizeof base->path, ",", given_path(mi->path));
      join(base->name, sizeof base->name, "+", mi->name);
      join(base->version, sizeof base->version, "+", mi->version);
      memcpy(base->v + base->n, mi->v, mi->n * sizeof *mi->v);
      base->n += mi->n;
      if (ident && identify_base(mi, m->pins ? &pins : NULL, m->pins, ident)) rc = -1;
    }
    if (mi->role != KG_MOD_KERNELS) continue;
    int num = kg_registry_add_module(mi->path);
    if (num < 0) rc = -1, fprintf(stderr, "kgate: too many kernel modules\n");
    for (size_t i = 0; !rc && i < mi->n; i++) {
      const kg_modvariant *v = &mi->v[i];
      kg_variant_info vi = {v->name, v->seed, v->idea, v->flags, v->dtypes, v->op, v->nan, num, 1};
      if (kg_registry_add(&vi, err, sizeof err) < 0) rc = -1, fprintf(stderr, "kgate: %s\n", err);
    }
  }
  for (int k = 0; k < n; k++) kg_modinfo_free(&mods[k]);
  if (rc && base) kg_modinfo_free(base);
  return rc;
}

int kg_gate_list(const kg_modules *mods, const char *json) {
  char self[PATH_MAX], err[512];
  const char *worker = mods->nkernels ? worker_path(mods, self, sizeof self) : "";
  if (!worker) return KG_EXIT_ENV;
  if (load_modules(mods, worker, NULL, NULL)) return KG_EXIT_USAGE;
  if (!json || strcmp(json, "-")) kg_report_list(stdout); /* --json -: stdout is the JSON alone */
  if (json && kg_variants_write(json, err, sizeof err)) return fprintf(stderr, "kgate: %s\n", err), KG_EXIT_USAGE;
  return KG_EXIT_OK;
}


int kg_gate_san_cell(const kg_case *cases, const kg_result *res, size_t n, int variant, char *out, size_t len) {
  const kg_result *bad = NULL, *waived = NULL;
  size_t cases_v = 0, ran = 0, nbad = 0, nwaived = 0;
  for (size_t i = 0; i < n; i++) {
    if (cases[i].variant != variant || !cases[i].supported) continue;
    cases_v++;
    kg_status st = res[i].status;
    if (st != KG_ST_PASS && st != KG_ST_FAIL && st != KG_ST_ERROR) continue; /* pending: never reached */
    ran++;
    if (st != KG_ST_PASS) nbad++, bad = bad ? bad : &res[i];
    else if (strstr(res[i].message, "): waived: ")) nwaived++, waived = waived ? waived : &res[i];
  }
  if (!cases_v) return 0;
  size_t used = 0;
  if (!ran) used = (size_t)snprintf(out, len, "not run");
  else if (nbad) used = (size_t)snprintf(out, len, "FAIL (%zu of %zu cases; first: %.200s)", nbad, ran, bad->message);
  else if (ran == cases_v && nwaived)
    used = (size_t)snprintf(out, len, "clean, WAIVED in %zu of %zu cases (%.200s)", nwaived, ran,
                            strstr(waived->message, "waived: ") + 8);
  else if (ran == cases_v) used = (size_t)snprintf(out, len, "clean");
  if (ran && ran < cases_v && used < len)
    snprintf(out + used, len - used, "%sincomplete (%zu of %zu run)", used ? ", " : "", ran, cases_v);
  return 1;
}

/* The sanitizer waivers of each --kernels module, by the registry's module
 * number (kgate's own, 0, has none). */
typedef struct san_waivers {
  kg_san_waivers *m;
  int n;
} san_waivers;

static const struct kg_san_waivers *waivers_of(const void *ctx, int variant) {
  const san_waivers *s = ctx;
  int m = variant >= 0 && (size_t)variant < kg_nvariants ? kg_variants[variant].module : -1;
  return m > 0 && m < s->n ? &s->m[m] : NULL;
}

static void san_waivers_free(san_waivers *s) {
  for (int k = 0; s->m && k < s->n; k++) kg_san_waivers_free(&s->m[k]);
  free(s->m);
}

/* 0, or -1 with err naming the module and the waiver (a malformed table). */
static int read_san_waivers(san_waivers *s, char *err, size_t errlen) {
  int most = 0;
  for (size_t v = 0; v < kg_nvariants; v++)
    if (kg_variants[v].module > most) most = kg_variants[v].module;
  s->n = most + 1;
  if (!(s->m = calloc((size_t)s->n, sizeof *s->m))) return snprintf(err, errlen, "out of memory"), -1;
  for (int k = 1; k < s->n; k++)
    if (kg_san_waivers_read(kg_registry_module_path(k), &s->m[k], err, errlen)) return -1;
  return 0;
}

/* check --sanitize: the whole plan once per tool under compute-sanitizer,
 * then one line per variant and tool: clean (and what a module's waivers
 * covered), or the first error. */
static int run_sanitized(const kg_gate_opts *go, kg_run *run, const kg_super_opts *so, const kg_run_params *rp) {
  char san[PATH_MAX], err[512];
  unsigned mask = 0;
  if (kg_san_find(san, sizeof san, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_ENV;
  }
  san_waivers sw = {0};
  if (read_san_waivers(&sw, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    san_waivers_free(&sw);
    return KG_EXIT_USAGE;
  }
  kg_san_parse_tools(go->sanitize, &mask, err, sizeof err);
  kg_result *res[KG_NSAN] = {0};
  int code = KG_EXIT_OK;
  for (int t = 0; t < KG_NSAN && code != KG_EXIT_ENV && !kg_super_interrupted(); t++) {
    if (!(mask >> t & 1)) continue;
    char log[] = "/tmp/kgate-sanitizer-XXXXXX";
    int fd = mkstemp(log);
    char **argv = fd >= 0 ? kg_san_argv(san, (kg_san_tool)t, log, so->worker_argv) : NULL;
    res[t] = calloc(run->n, sizeof *res[t]);
    if (fd >= 0) close(fd);
    if (!argv || !res[t]) {
      fprintf(stderr, "kgate: cannot prepare the %s run\n", kg_san_tool_name((kg_san_tool)t));
      free(argv);
      if (fd >= 0) unlink(log);
      code = KG_EXIT_ENV;
      break;
    }
    kg_super_opts o = *so;
    o.worker_argv = argv;
    kg_san_scope scope = {kg_san_tool_name((kg_san_tool)t), waivers_of, &sw};
    kg_super_san ss = {log, kg_san_tool_name((kg_san_tool)t), KG_SAN_EXIT, 0, 1, kg_san_scan, &scope};
    kg_device_info dev = {0};
    double t0 = kg_now_s();
    printf("== compute-sanitizer --tool %s ==\n", kg_san_tool_name((kg_san_tool)t));
    char phase[48], detail[64];
    snprintf(phase, sizeof phase, "compute-sanitizer %s", kg_san_tool_name((kg_san_tool)t));
    snprintf(detail, sizeof detail, "%zu cases", run->n);
    kg_progress_phase(so->progress_ctx, phase, detail);
    int env = kg_supervise_san(run->cases, run->n, rp, &o, &ss, res[t], &dev, err, sizeof err);
    kg_report_check(stdout, run->cases, res[t], run->n, &dev, kg_now_s() - t0, go->verbose);
    kg_counts c = kg_count_results(res[t], run->n);
    if (env == KG_SUPER_INTERRUPTED)
      fprintf(stderr, "kgate: %s: the summary below says what ran\n", err), code = KG_EXIT_SIGNAL + kg_super_interrupted();
    else if (env) fprintf(stderr, "kgate: %s\n", err), code = KG_EXIT_ENV;
    else if (c.failed || c.errored) code = KG_EXIT_FAIL;
    free(argv);
    unlink(log);
  }
  printf("\nsanitizer summary (variant x tool):\n");
  for (size_t v = 0; v < kg_nvariants; v++) {
    for (int t = 0; t < KG_NSAN; t++) {
      char cell[320];
      if (res[t] && kg_gate_san_cell(run->cases, res[t], run->n, (int)v, cell, sizeof cell))
        printf("  %-24s %-9s %s\n", kg_variants[v].name, kg_san_tool_name((kg_san_tool)t), cell);
    }
  }
  for (int t = 0; t < KG_NSAN; t++) free(res[t]);
  san_waivers_free(&sw);
  return code;
}

/* The run's device: the first that said hello (devs[0] when none did). */
static kg_device_info first_hello(const kg_device_info *devs, int ndev) {
  kg_device_info dev = devs[0];
  for (int k = ndev - 1; k >= 0; k--)
    if (devs[k].name[0]) dev = devs[k];
  return dev;
}

/* SIGINT/SIGTERM stopped the run: the results it has go to the check table
 * and every report asked for, marked incomplete (run.incomplete, cases not
 * reached "pending"); no baseline comparison or charts, which would read the
 * missing cases as regressions. Returns 128 + the signal. */
static int write_interrupted(const kg_gate_opts *go, kg_run *run, const kg_device_info *devs, int ndev, double wall,
                             const kg_progress *prog) {
  int sig = kg_super_interrupted();
  kg_progress_clear(prog);
  kg_device_info dev = first_hello(devs, ndev);
  if (!dev.name[0]) { /* no worker said hello: no device to name, nothing ran */
    fprintf(stderr, "kgate: interrupted by %s before any worker started: no results to write\n",
            kg_super_signal_name(sig));
    kg_run_free(run);
    return KG_EXIT_SIGNAL + sig;
  }
  fill_meta(go, &dev, wall, &run->meta);
  snprintf(run->meta.incomplete, sizeof run->meta.incomplete, "%s", kg_super_signal_name(sig));
  kg_counts c = kg_count_results(run->results, run->n);
  kg_report_check(stdout, run->cases, run->results, run->n, &dev, wall, go->verbose);
  write_run_reports(go->reports, run, NULL, NULL, NULL, NULL);
  fprintf(stderr, "kgate: interrupted by %s: %zu of %zu cases not run; the reports asked for are written, marked incomplete\n",
          kg_super_signal_name(sig), c.pending, run->n);
  kg_run_free(run);
  return KG_EXIT_SIGNAL + sig;
}

static int gate_selftest(const kg_selftest_opts *so) {
  char self[PATH_MAX], san[PATH_MAX], err[512];
  const char *worker = worker_path(&so->mods, self, sizeof self);
  if (!worker) return KG_EXIT_ENV;
  /* --kernels: the controls run with the modules loaded beside kgate's own */
  if (load_modules(&so->mods, worker, NULL, NULL)) return KG_EXIT_USAGE;
  /* the planted bugs: their own module, which no other command loads */
  char mutants[PATH_MAX];
  kg_modules mods = so->mods;
  if (!mods.mutants && kg_module_default_path_of(KG_SELFTEST_MODULE_FILE, mutants, sizeof mutants, err, sizeof err)) {
    fprintf(stderr, "kgate: selftest needs the planted bugs' module: %s (build kgate with -DKGATE_SELFTEST=ON, or "
            "give --mutant-kernels)\n", err);
    return KG_EXIT_ENV;
  }
  if (!mods.mutants) mods.mutants = mutants;
  worker_cmd cmd;
  char *const *argv = worker_cmd_make(&cmd, worker, so->device, 0, &mods, 0, 0);
  char why[512] = "";
  int have_san = kg_san_find(san, sizeof san, why, sizeof why) == 0;
  if (!have_san) fprintf(stderr, "kgate: %s: the sanitizer mutants will not run\n", why);
  /* --timeout keeps its meaning; its default (60 s) is long for the hanging mutant. */
  /* the fence mutants: the lint of their module */
  kg_st_opts o = {.worker_argv = argv, .sanitizer = have_san ? san : NULL, .only = so->only, .huge = so->huge,
                  .timeout_s = so->timeout_s == 60 ? 20 : so->timeout_s, .quiet = so->quiet, .paired = so->paired,
                  .lint_module = mods.mutants};
  /* the huge tier runs by default where the card has its memory */
  kg_device_info dev = {0};
  if (!o.huge && kg_supervise_probe(argv, 60, &dev, err, sizeof err) == 0)
    o.mem_bytes = dev.mem_bytes > 0 ? (uint64_t)dev.mem_bytes : 0, o.huge = o.mem_bytes >= kg_st_huge_bytes();
  err[0] = '\0';
  kg_st_row *rows = calloc(kg_nmutants ? kg_nmutants : 1, sizeof *rows);
  size_t n = 0;
  if (!rows) return KG_EXIT_ENV;
  int code = kg_selftest(&o, rows, &n, err, sizeof err);
  if (err[0] && (code == KG_EXIT_USAGE || n == 0)) fprintf(stderr, "kgate: %s\n", err);
  if (n) kg_st_print(stdout, rows, n);
  free(rows);
  return code;
}

/* The cases the check is sent: in a paired run, the timed cases that the
 * base has go untimed, the paired rounds time them (a malloc'ed copy; NULL
 * out of memory). */
static kg_case *cases_to_check(const kg_run *run, const kg_modinfo *base, int paired) {
  kg_case *sent = malloc((run->n + 1) * sizeof *sent);
  if (!sent) return NULL;
  memcpy(sent, run->cases, run->n * sizeof *sent);
  for (size_t i = 0; paired && i < run->n; i++)
    if (sent[i].timed && kg_pair_in_base(base, sent[i].variant, sent[i].dtype)) sent[i].timed = 0;
  return sent;
}

/* The lint of the run's modules (kgate's own, each --kernels one), on a
 * thread of its own while the matrix runs: it needs the disassembler's
 * processes and the CPU, not the GPU. */
typedef struct lint_job {
  kg_run *run;
  int rc;
  pthread_t tid;
  int started;
} lint_job;

static void *lint_thread(void *arg) {
  lint_job *j = arg;
  for (size_t k = 0; !j->rc && k < j->run->nlint; k++) j->rc = kg_lint_for_run(&j->run->lint[k]);
  return NULL;
}

/* A module to lint; one whose path does not fit is reported "not run", with
 * why; with --lint off each is recorded as off, not linted. */
static void lint_module(kg_run *run, const char *path, int off) {
  kg_lint_module *m = &run->lint[run->nlint++];
  size_t len = strlen(path);
  if (len < sizeof m->path) memcpy(m->path, path, len + 1);
  else snprintf(m->path, sizeof m->path, "%.*s...", (int)(sizeof m->path - 4), path);
  if (off) m->off = 1, snprintf(m->why, sizeof m->why, "--lint off");
  else if (len >= sizeof m->path)
    snprintf(m->why, sizeof m->why, "its path is longer than %zu bytes", sizeof m->path - 1);
}

/* Starts the lint (not under a sanitizer: that run checks memory, not
 * ordering). kgate's own module that cannot be found is "not run", with
 * why, unless a --worker of its own stands in for kgate's (tests). 0, or -1
 * out of memory. */
static int lint_start(const kg_gate_opts *go, kg_run *run, lint_job *j) {
  char own[PATH_MAX], err[512];
  *j = (lint_job){.run = run};
  if (go->sanitize) return 0;
  const char *self = go->mods.own ? go->mods.own : kg_module_default_path(own, sizeof own, err, sizeof err) ? NULL : own;
  run->lint = calloc((size_t)go->mods.nkernels + 1, sizeof *run->lint);
  if (!run->lint) return -1;
  if (self) lint_module(run, self, go->lint_off);
  else if (!go->mods.worker) {
    lint_module(run, KG_MODULE_FILE, go->lint_off);
    if (!go->lint_off) snprintf(run->lint[0].why, sizeof run->lint[0].why, "%.200s", err);
  }
  for (int k = 0; k < go->mods.nkernels; k++) lint_module(run, go->mods.kernels[k], go->lint_off);
  if (go->lint_off) return 0;
  j->started = pthread_create(&j->tid, NULL, lint_thread, j) == 0;
  if (!j->started) lint_thread(j); /* no thread: lint first, then the matrix */
  return 0;
}

int kg_gate_lint_code(const kg_run *run, FILE *err) {
  size_t findings = 0, unrun = 0;
  char a[200], b[260];
  for (size_t k = 0; k < run->nlint; k++) {
    const kg_lint_module *m = &run->lint[k];
    findings += m->ran ? m->nitems : 0;
    if (m->ran || m->off) continue;
    unrun++;
    /* a module's path and why come from the command line or a results file: escaped */
    fprintf(err, "kgate: lint: %s was not linted: %s (a failure, exit 3; --lint off runs without the lint)\n",
            kg_esc_term(m->path, a, sizeof a), kg_esc_term(m->why[0] ? m->why : "no reason recorded", b, sizeof b));
  }
  return findings ? KG_EXIT_FAIL : unrun ? KG_EXIT_ENV : KG_EXIT_OK;
}

static int lint_join(lint_job *j) {
  if (j->started) pthread_join(j->tid, NULL);
  j->started = 0;
  return j->rc;
}

/* The machine code of the head's and the base's kernels (unchanged.h), read
 * on a thread of its own while the workers start: cuobjdump and the CPU, no
 * GPU. For the unchanged proof (off with --time-unchanged and for the
 * nightly, --reference, whose series and control need every cell timed) and
 * for the check record (carry.h). */
typedef struct code_job {
  const kg_gate_opts *go;
  kg_code_table head, base;
  int on, ok, proof; /* proof: for the unchanged proof (else for a check record alone) */
  pthread_t tid;
  int started;
} code_job;

static void *code_thread(void *arg) {
  code_job *j = arg;
  const kg_modules *m = &j->go->mods;
  char own[PATH_MAX], err[512];
  const char *self = m->own ? m->own : kg_module_default_path(own, sizeof own, err, sizeof err) ? NULL : own;
  /* a module that cannot be read leaves its kernels unproven (kg_code_same says why), not the others */
  if (self) kg_code_table_add_module(&j->head, self);
  else snprintf(j->head.why, sizeof j->head.why, "%.290s", err);
  for (int k = 0; k < m->nkernels; k++) kg_code_table_add_module(&j->head, m->kernels[k]);
  for (int k = 0; k < m->nbase; k++) kg_code_table_add_module(&j->base, m->base_kernels[k]);
  j->ok = j->head.units > 0 && j->base.units > 0;
  return NULL;
}

static void code_start(const kg_gate_opts *go, int paired, int carry, code_job *j) {
  *j = (code_job){.go = go};
  j->proof = paired && !go->paired.time_unchanged && !go->mods.pins && !go->sanitize;
  if (!j->proof && !carry) return;
  j->on = 1;
  j->started = pthread_create(&j->tid, NULL, code_thread, j) == 0;
  if (!j->started) code_thread(j); /* no thread: read them now */
}

/* Joins the thread; 1 when the tables were read. */
static int code_join(code_job *j) {
  if (j->started) pthread_join(j->tid, NULL);
  j->started = 0;
  return j->ok;
}

static void code_free(code_job *j) {
  code_join(j);
  kg_code_table_free(&j->head);
  kg_code_table_free(&j->base);
}

/* --devices: the device numbers to run on, one worker each (-d's device
 * alone by default; all: as many as the worker sees). 0, or -1 after
 * printing why. */
static int device_list(const kg_gate_opts *go, const char *worker, int *list, int *ndev) {
  char err[512];
  *ndev = 1, list[0] = go->device;
  if (go->ndevices) {
    *ndev = go->ndevices;
    memcpy(list, go->devices, (size_t)*ndev * sizeof *list);
  } else if (go->devices_all) {
    worker_cmd probe;
    kg_device_info d0 = {0};
    if (kg_supervise_probe(worker_cmd_make(&probe, worker, 0, 0, &(kg_modules){0}, 0, 0), go->timeout_s, &d0, err,
                           sizeof err) &&
        !kg_super_interrupted()) {
      fprintf(stderr, "kgate: %s\n", err);
      return -1;
    }
    *ndev = d0.count > 0 ? (d0.count < KG_GATE_MAXDEVICES ? d0.count : KG_GATE_MAXDEVICES) : 1;
    for (int k = 0; k < *ndev; k++) list[k] = k;
  }
  return 0;
}

/* The end of check and run, once the cases ran: the baseline comparison,
 * the reports, the charts, and the exit code from all that was found. */
static int gate_finish(const kg_gate_opts *go, kg_run *run, kg_counts c, int env, int pair_env, const char *err) {
  int timing = go->timing, measured = c.passed + c.failed + c.errored > 0;
  double t0 = kg_now_s();
  kg_comparison cmp = {0};
  int have_cmp = 0, bad_baseline = 0;
  char base[PATH_MAX];
  kg_baseline_path(go->baseline_dir, run->meta.dev.name, base, sizeof base);
  if (timing && measured) bad_baseline = compare_with_baseline(go, run, &cmp, &have_cmp) != 0;
  run->meta.phases.reports_s = kg_now_s() - t0; /* the model below says it: the terminal's lines take no more */
  /* What the results cannot say: the environment that stopped the run (its
   * one line, said before the reports phase), a baseline that could not be used. The verdict, and so
   * the exit code, is the report model's (rmodel.h). */
  kg_rm_gate gate = {.baseline = base,
                     .environment = env ? err : pair_env ? "the paired rounds could not run (the log says why)" : NULL,
                     .refused = bad_baseline ? "the baseline could not be used (the log says why)" : NULL};
  kg_rdoc doc;
  kg_rdoc_build_gate(&doc, run, have_cmp ? &cmp : NULL, &gate); /* out of memory: each write says so */
  if (measured) kg_report_lint(stdout, run);
  if (timing && measured && !doc.oom) {
    kg_report_perf(stdout, &doc);
    if (run->pair.on) kg_report_pairs(stdout, &doc);
  }
  /* a module the lint could not read: its one line on stderr (the verdict counts it) */
  if (!env && !pair_env) kg_gate_lint_code(run, stderr);
  int bad_reports = measured && write_reports(go->reports, &doc) != 0;
  kg_report_verdict(stdout, &doc);
  kg_rm_verdict verdict = doc.verdict;
  kg_rdoc_free(&doc);
  /* Charts come last: without gnuplot every other output is already written. */
  int plots = KG_EXIT_OK;
  if (timing && measured && go->plots) plots = kg_publish_charts(go->plots, run, 1, have_cmp ? &cmp : NULL, base);
  kg_comparison_free(&cmp);
  kg_run_free(run);
  return kg_rm_exit_code(&verdict, bad_reports ? KG_EXIT_USAGE : plots);
}

/* The workers of a run, one per device: the run's own (the roofline when
 * timing), and the paired rounds' (the base modules too, no roofline). */
typedef struct workers {
  worker_cmd run[KG_GATE_MAXDEVICES], paired[KG_GATE_MAXDEVICES];
  char *const *pargv[KG_GATE_MAXDEVICES];
  kg_super_dev sdev[KG_GATE_MAXDEVICES];
} workers;

static void worker_argvs(const kg_gate_opts *go, const char *worker, const int *list, int ndev, workers *w) {
  for (int k = 0; k < ndev; k++) {
    w->sdev[k] = (kg_super_dev){worker_cmd_make(&w->run[k], worker, list[k], go->timing, &go->mods, 0, 0), list[k]};
    w->pargv[k] = worker_cmd_make(&w->paired[k], worker, list[k], 0, &go->mods, 1, 0);
  }
}

/* The cases of check or run: the selection, the size policy (plan.h) and
 * --shard. 0, or the exit code after printing why. */
static int plan_run(const kg_gate_opts *go, kg_run *run) {
  char err[512];
  kg_plan_opts po = go->plan; /* the policy fills in its defaults */
  /* A team's module alone by default: its gate is its variants (docs/modules.md, step 4). */
  po.modules_only = go->mods.nkernels > 0 && !go->with_kgate;
  size_t *huge; /* the sizes with the huge tier's, when --tier huge */
  if (kg_plan_policy(&po, go->sanitize != NULL, go->timing, go->tier_huge, &huge))
    return fprintf(stderr, "kgate: out of memory\n"), KG_EXIT_ENV;
  int planned = kg_plan_build(&po, &run->cases, &run->n, err, sizeof err);
  free(huge);
  if (planned) return fprintf(stderr, "kgate: %s\n", err), KG_EXIT_USAGE;
  if (!go->shard_n) return 0;
  size_t groups = kg_plan_groups(run->cases, run->n, NULL);
  run->n = kg_plan_shard(run->cases, run->n, go->shard_i, go->shard_n);
  if (run->n) return 0;
  fprintf(stderr, "kgate: shard %u/%u is empty: the plan has only %zu input groups\n", go->shard_i, go->shard_n,
          groups);
  kg_run_free(run);
  return KG_EXIT_USAGE;
}

/* --plan: the cases and an estimated time. Only a --kernels module needs the
 * worker, and only for its describe, which touches no GPU. */
static int gate_plan(const kg_gate_opts *go) {
  char self[PATH_MAX];
  const char *worker = go->mods.nkernels ? worker_path(&go->mods, self, sizeof self) : "";
  if (!worker) return KG_EXIT_ENV;
  if (load_modules(&go->mods, worker, NULL, NULL)) return KG_EXIT_USAGE;
  kg_run run = {0};
  int planned = plan_run(go, &run);
  if (planned) return planned;
  kg_report_plan(stdout, run.cases, run.n, kg_plan_estimate_time(run.cases, run.n, go->time.max_seconds), go->verbose);
  kg_run_free(&run);
  return KG_EXIT_OK;
}

/* What a run of check or run holds; gate_end releases whatever was reached
 * (each part is safe to release when never started, or twice). */
typedef struct gate {
  kg_run run;
  kg_modinfo base;
  lint_job lj;
  code_job cj;
  int ndev, list[KG_GATE_MAXDEVICES];
  kg_device_info devs[KG_GATE_MAXDEVICES];
  kg_progress prog;
  double startup_s;
  kg_phase_passes passes; /* where the time went (phases.h) */
} gate;

static int gate_end(gate *g, int code) {
  lint_join(&g->lj); /* the lint writes into the run: it ends first */
  code_free(&g->cj);
  kg_modinfo_free(&g->base);
  kg_run_free(&g->run);
  return code;
}

/* The check (and, unpaired, the timing): every case once on the run's
 * devices. Returns the supervisor's code, its reason in err. */
static int check_pass(gate *g, const kg_case *sent, const kg_run_params *rp, const kg_super_opts *so,
                      const workers *w, char *err, size_t errlen) {
  char detail[160];
  /* One pass: each timed case is checked, then timed once it passes (in a
   * paired run, only those that the base lacks: the rounds time the rest).
   * Cases carried over (carry.h) are not sent. */
  size_t n = 0, ntimed = 0;
  size_t *at = malloc((g->run.n + 1) * sizeof *at);
  kg_case *cases = malloc((g->run.n + 1) * sizeof *cases);
  kg_result *res = calloc(g->run.n + 1, sizeof *res);
  if (!at || !cases || !res) {
    free(at), free(cases), free(res);
    return snprintf(err, errlen, "out of memory"), -1;
  }
  for (size_t i = 0; i < g->run.n; i++)
    if (!g->run.results[i].carried) at[n] = i, cases[n++] = sent[i], ntimed += sent[i].timed && sent[i].supported;
  const char *s = g->ndev == 1 ? "" : "s";
  if (ntimed) snprintf(detail, sizeof detail, "%zu cases, %zu of them timed, on %d device%s", n, ntimed, g->ndev, s);
  else snprintf(detail, sizeof detail, "%zu cases on %d device%s", n, g->ndev, s);
  /* said once a worker says hello: a worker that cannot start says why first */
  kg_progress_phase_held(&g->prog, ntimed ? "check and timing" : "check", detail);
  kg_phase_clock clock = kg_phase_start(&g->startup_s, kg_now_s());
  int env = kg_supervise_devices(cases, n, rp, so, w->sdev, (size_t)g->ndev, res, g->devs, err, errlen);
  g->passes.check = kg_phase_stop(&clock, kg_now_s());
  for (size_t k = 0; k < n; k++) g->run.results[at[k]] = res[k];
  free(at), free(cases), free(res);
  return env;
}

/* carry_pass: the baseline --carry-from names cannot be read (said). */
enum { CARRY_REFUSED = -10 };

/* The check record (carry.h): the groups probed, their digests; then, with
 * --carry-from DIR, the cases DIR's baseline's record covers carried over.
 * DIR is trusted data: the gate passes the merge base's baselines, never the
 * head's, which a pull request could edit. Without cuobjdump nothing is
 * recorded and nothing carried. Returns the supervisor's code (an
 * interrupt, no device) with err, or CARRY_REFUSED for a baseline that is
 * there but cannot be read; a missing one carries nothing. */
static int carry_pass(const kg_gate_opts *go, gate *g, const kg_case *sent, const kg_run_params *rp,
                      const kg_super_opts *so, const workers *w, char *err, size_t errlen) {
  kg_carry_probes pr;
  kg_phase_clock clock = kg_phase_start(&g->startup_s, kg_now_s());
  kg_progress_phase_held(&g->prog, "check record", "the groups of 2^20 elements and more, probed untimed");
  int env = kg_carry_probe(&g->run, rp, so, w->sdev, (size_t)g->ndev, g->devs, &pr, err, errlen);
  if (!env && pr.n) {
    code_join(&g->cj); /* the kernels' machine code, read while the probes ran */
    int arch = g->devs[0].cc_major * 10 + g->devs[0].cc_minor;
    if (g->cj.head.units > 0) kg_carry_record(&g->run, &pr, &g->cj.head, KG_HARNESS_SHA256, arch, rp);
  }
  kg_carry_probes_free(&pr);
  g->passes.probe = kg_phase_stop(&clock, kg_now_s());
  if (env || !go->carry_from) return env;
  char path[PATH_MAX], why[512], shown[PATH_MAX];
  kg_baseline b;
  kg_baseline_path(go->carry_from, g->devs[0].name, path, sizeof path);
  int rc = kg_baseline_load(path, &b, why, sizeof why);
  if (rc < 0) return fprintf(stderr, "kgate: --carry-from: %s\n", why), CARRY_REFUSED;
  kg_esc_term(path, shown, sizeof shown);
  if (rc > 0 || !g->run.check.on) {
    if (!go->quiet)
      fprintf(stderr, "kgate: %s %s: every case is run\n", rc > 0 ? "no baseline" : "no check record made to compare with",
              shown);
    if (!rc) kg_baseline_free(&b);
    return 0;
  }
  size_t n = b.check.on ? kg_carry_apply(&g->run, sent, &b.check, path, go->quiet ? NULL : stderr) : 0;
  if (!go->quiet)
    fprintf(stderr, "kgate: %zu cases carried over from %s's check record (same kgate check code, machine code and "
                    "launches), not run\n",
            n, shown);
  kg_baseline_free(&b);
  return 0;
}

/* The paired rounds after the check, and their phase times. */
static int paired_pass(const kg_gate_opts *go, gate *g, const kg_run_params *rp, const kg_super_opts *so,
                       const workers *w) {
  char detail[160];
  snprintf(detail, sizeof detail, "against %s %s", g->base.name, g->base.version);
  kg_progress_phase(&g->prog, "paired rounds", detail);
  g->prog.counts = 0; /* each round is a pass of the supervisor; pairrun logs a line per round */
  double unchanged_s = 0;
  kg_super_dev sdev[KG_GATE_MAXDEVICES];
  for (int k = 0; k < g->ndev; k++) sdev[k] = (kg_super_dev){w->pargv[k], g->list[k]};
  int proof = g->cj.proof && code_join(&g->cj); /* the machine code of head and base, for the unchanged proof */
  const char *no_proof = !g->cj.proof || proof || go->quiet ? NULL : g->cj.head.why[0] ? g->cj.head.why : g->cj.base.why;
  kg_pair_settings ps = go->paired;
  ps.sequential = !go->mods.pins; /* the nightly's detector is calibrated on the interval of every round */
  kg_pair_gate_in in = {&g->base, &ps, go->plan.variants == NULL, rp, so, sdev, (size_t)g->ndev,
                        proof ? &g->cj.head : NULL, proof ? &g->cj.base : NULL, no_proof, go->quiet ? NULL : stderr};
  kg_phase_clock clock = kg_phase_start(&g->startup_s, kg_now_s());
  int pair_env = kg_pair_gate(&g->run, &in, &unchanged_s) != 0;
  g->passes.paired = kg_phase_stop(&clock, kg_now_s()), g->passes.unchanged_s = unchanged_s;
  g->run.meta.wall_s = kg_now_s() - g->prog.t0;
  kg_phases_of(&g->run.meta.phases, &g->passes);
  return pair_env;
}

static int gate_run(const kg_gate_opts *go) {
  char err[512] = "", self[PATH_MAX];
  const char *worker = worker_path(&go->mods, self, sizeof self);
  if (!worker) return KG_EXIT_ENV;
  /* --kernels and --base-kernels: a module that cannot be loaded is an input
   * error, found before the matrix runs (the describe touches no GPU); the
   * modules' variants must be in the registry before the plan names them. */
  int paired = go->timing && go->mods.nbase;
  if (go->mods.pins && !paired)
    return fprintf(stderr, "kgate: --reference needs --base-kernels: the modules it pins\n"), KG_EXIT_USAGE;
  static gate g; /* the devices' tables: not on the stack */
  static workers w;
  g = (gate){0};
  if (load_modules(&go->mods, worker, paired ? &g.base : NULL, &g.run.pair)) return gate_end(&g, KG_EXIT_USAGE);
  int planned = plan_run(go, &g.run);
  if (planned) return gate_end(&g, planned);
  worker_cmd cmd;
  kg_progress_init(&g.prog, go->quiet ? NULL : stderr, isatty(STDERR_FILENO), NULL);
  /* --timeout bounds the hello too: CUDA start-up and the roofline take seconds, not minutes. */
  kg_super_opts so = {worker_cmd_make(&cmd, worker, go->device, go->timing, &go->mods, 0, 0), go->timeout_s,
                      go->timeout_s, show_progress, &g.prog, go->timing, &g.startup_s, progress_started};
  kg_run_params rp = {go->seed, go->repeats, go->time, go->paired.pair};
  rp.pair.on = 0, rp.pair.module = 1, rp.pair.base_variant = -1; /* paired rounds: the same name in the base module */
  if (!(g.run.results = calloc(g.run.n, sizeof *g.run.results)) || lint_start(go, &g.run, &g.lj))
    return fprintf(stderr, "kgate: out of memory\n"), gate_end(&g, KG_EXIT_ENV);
  if (go->sanitize) {
    rp.repeats = 1; /* determinism is not what a sanitizer run checks */
    return gate_end(&g, run_sanitized(go, &g.run, &so, &rp));
  }
  /* --devices: one worker per device, the same argv but for the device. */
  g.ndev = 1, g.list[0] = go->device;
  if (device_list(go, worker, g.list, &g.ndev)) return gate_end(&g, KG_EXIT_ENV);
  worker_argvs(go, worker, g.list, g.ndev, &w);
  int carry = go->timing && !go->mods.pins; /* the nightly checks every case: its record of a night is whole */
  code_start(go, paired, carry, &g.cj);
  kg_case *sent = cases_to_check(&g.run, &g.base, paired);
  int env = sent ? 0 : (snprintf(err, sizeof err, "out of memory"), -1);
  if (!env && carry) env = carry_pass(go, &g, sent, &rp, &so, &w, err, sizeof err);
  if (!env) env = check_pass(&g, sent, &rp, &so, &w, err, sizeof err);
  free(sent);
  if (env == CARRY_REFUSED) return gate_end(&g, KG_EXIT_USAGE);
  if (env == KG_SUPER_INTERRUPTED) { /* the lint ends before the partial results are written */
    lint_join(&g.lj);
    return gate_end(&g, write_interrupted(go, &g.run, g.devs, g.ndev, kg_now_s() - g.prog.t0, &g.prog));
  }
  if (env == KG_SUPER_MODELS) /* run: devices of different models */
    return fprintf(stderr, "kgate: %s\n", err), gate_end(&g, KG_EXIT_USAGE);
  kg_device_info dev = first_hello(g.devs, g.ndev);
  fill_meta(go, &dev, kg_now_s() - g.prog.t0, &g.run.meta);
  add_case_phases(&g.run, &g.passes);
  kg_phases_of(&g.run.meta.phases, &g.passes); /* proving what to carry over is part of the check */
  kg_counts c = kg_count_results(g.run.results, g.run.n);
  int measured = c.passed + c.failed + c.errored > 0;
  /* Whatever was measured before an environment failure is still reported. */
  if (!env || measured)
    kg_report_check(stdout, g.run.cases, g.run.results, g.run.n, &dev, g.run.meta.wall_s, go->verbose);
  int pair_env = paired && measured && !env ? paired_pass(go, &g, &rp, &so, &w) : 0;
  code_free(&g.cj);
  if (lint_join(&g.lj) && !env) env = -1, snprintf(err, sizeof err, "lint: out of memory");
  if (env) fprintf(stderr, "kgate: %s\n", err); /* no driver, no device: said before the reports */
  if (!env || measured) kg_progress_phase(&g.prog, "reports", NULL); /* after a bare stop: its line alone */
  return gate_end(&g, gate_finish(go, &g.run, c, env, pair_env, err));
}

int kg_gate_selftest(const kg_selftest_opts *so) {
  kg_super_trap(1);
  int code = gate_selftest(so);
  if (kg_super_interrupted()) code = KG_EXIT_SIGNAL + kg_super_interrupted();
  kg_super_trap(0);
  return code;
}

int kg_gate_run(const kg_gate_opts *go) {
  if (go->plan_only) return gate_plan(go);
  kg_gate_opts sealed = *go; /* --reference: the base modules loaded from sealed memory (seal_bases) */
  if (go->mods.pins && go->timing && go->mods.nbase && seal_bases(&go->mods, &sealed.mods)) return KG_EXIT_USAGE;
  kg_super_trap(1); /* held until the reports are written: a signal meanwhile is recorded, not fatal */
  int code = gate_run(&sealed);
  if (kg_super_interrupted()) code = KG_EXIT_SIGNAL + kg_super_interrupted();
  kg_super_trap(0);
  unseal_bases();
  return code;
}

/* NEW's own paired cells (its run against its base build): the verdict
 * counts their SLOWER as the run did, though OLD against NEW found none, so
 * compare says so in a line, and names the slower cells (ten at most). */
static void print_paired_of_new(FILE *out, const kg_run *run, const char *path) {
  if (!run->pair.on || !run->npairs) return;
  size_t count[KG_NPVERDICTS];
  kg_pair_count(run->pairs, run->npairs, count);
  char name[72], version[72], variant[72];
  fprintf(out, "paired: %s carries its own run against its base build (%s %s): %zu SLOWER, %zu FASTER, %zu SAME, "
               "%zu UNDECIDED of %zu cells%s\n",
          path, kg_esc_term(run->pair.base_name, name, sizeof name),
          kg_esc_term(run->pair.base_version, version, sizeof version), count[KG_PV_SLOWER], count[KG_PV_FASTER],
          count[KG_PV_SAME], count[KG_PV_UNDECIDED], run->npairs,
          count[KG_PV_SLOWER] ? "; its SLOWER cells decide the verdict, as in that run:" : "");
  size_t shown = 0;
  for (size_t i = 0; i < run->npairs && shown < 10; i++) {
    const kg_pair_cell *c = &run->pairs[i];
    if (c->stat.verdict != KG_PV_SLOWER) continue;
    shown++;
    fprintf(out, "  SLOWER %s %s n=%zu: %+.2f%% [%+.2f%%, %+.2f%%] against the base (min effect %.1f%%)\n",
            kg_esc_term(c->variant, variant, sizeof variant), kg_dtype_get(c->dtype)->name, c->n,
            100 * (c->stat.ratio - 1), 100 * (c->stat.lo - 1), 100 * (c->stat.hi - 1), 100 * c->min_effect);
  }
  if (count[KG_PV_SLOWER] > shown)
    fprintf(out, "  and %zu more SLOWER cells (kgate report %s --html DIR shows every one)\n", count[KG_PV_SLOWER] - shown,
            path);
}

/* compare's table: its rows in --sort's order, the SAME ones left out
 * with --only-changed and counted in a line of their own. */
static void print_comparison(FILE *out, const kg_comparison *cmp, const kg_compare_opts *co) {
  kg_comparison view;
  /* On a terminal a person reads it: the changed rows (asv continuous); a
   * pipe or a file gets every row unless --only-changed. */
  int only = co->only_changed || (!co->all_rows && isatty(fileno(out)));
  if (kg_comparison_view(cmp, (kg_cmp_order)co->sort, only, &view)) {
    fprintf(stderr, "kgate: out of memory for the comparison's table\n");
    return;
  }
  kg_report_compare(out, &view);
  size_t left = cmp->n - view.n;
  if (only)
    fprintf(out, "only changed: %zu SAME cell%s of %zu left out of the table (%s--json keeps every cell)\n", left,
            left == 1 ? "" : "s", cmp->n, co->only_changed ? "" : "--all prints them; ");
  kg_comparison_free(&view);
}

int kg_gate_compare(const kg_compare_opts *co) {
  char err[512];
  kg_baseline old, now;
  kg_run run = {0};
  int rc = kg_baseline_load(co->old_path, &old, err, sizeof err);
  if (rc) {
    fprintf(stderr, "kgate: %s\n", err); /* names the file, also when it does not exist */
    return KG_EXIT_USAGE;
  }
  if (kg_results_read(co->new_path, &run, err, sizeof err) || kg_baseline_from_run(&run, &now)) {
    fprintf(stderr, "kgate: %s\n", err);
    kg_baseline_free(&old);
    kg_run_free(&run);
    return KG_EXIT_USAGE;
  }
  kg_comparison cmp = {0};
  rc = kg_compare(&old, &now, co->tolerance_pct, &cmp, err, sizeof err);
  kg_baseline_free(&old);
  kg_baseline_free(&now);
  int code = KG_EXIT_USAGE;
  if (rc) {
    fprintf(stderr, "kgate: %s\n", err);
  } else {
    FILE *out = co->json && !strcmp(co->json, "-") ? stderr : stdout; /* --json -: stdout is the JSON alone */
    print_comparison(out, &cmp, co);
    /* A cell OLD has and NEW lacks was not shown to pass (a crash, a lost
     * shard, a narrower run): a correctness failure unless --missing allow. */
    size_t missing = cmp.count[KG_V_MISSING];
    kg_counts k = kg_count_results(run.results, run.n);
    fprintf(out, "missing: %zu of the cells in %s are not in %s%s\n", missing, co->old_path, co->new_path,
            !missing ? "" : co->allow_missing ? " (--missing allow: not a failure)" : " (a failure; --missing allow accepts them)");
    if (k.failed || k.errored)
      fprintf(out, "failed: %s has %zu failed and %zu errored cases\n", co->new_path, k.failed, k.errored);
    print_paired_of_new(out, &run, co->new_path);
    /* NEW's lint as it did in the run: a module not linted says so here */
    kg_gate_lint_code(&run, stderr);
    /* The verdict is the report model's, as the run's was (rmodel.h). */
    kg_rm_gate gate = {.baseline = co->old_path, .missing_fails = !co->allow_missing};
    kg_rm_verdict verdict;
    /* the reports' tables in --sort's order too, every row (the Markdown's lists no SAME one) */
    kg_comparison sorted;
    int bad_reports = kg_comparison_view(&cmp, (kg_cmp_order)co->sort, 0, &sorted) ||
                      write_run_reports(co->reports, &run, &sorted, &gate, out, &verdict) != 0;
    kg_comparison_free(&sorted);
    if (co->json && kg_comparison_write(co->json, &cmp, co->old_path, co->new_path, !co->allow_missing, err, sizeof err))
      bad_reports = 1, fprintf(stderr, "kgate: %s\n", err);
    int plots = co->plots ? kg_publish_charts(co->plots, &run, 0, &cmp, co->old_path) : KG_EXIT_OK;
    code = kg_rm_exit_code(&verdict, bad_reports ? KG_EXIT_USAGE : plots);
  }
  kg_comparison_free(&cmp);
  kg_run_free(&run);
  return code;
}

int kg_gate_baseline_update(const kg_baseline_opts *bo) {
  char err[512], path[PATH_MAX];
  kg_run run = {0};
  if (kg_results_read(bo->results, &run, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  kg_baseline_path(bo->baseline_dir, run.meta.dev.name, path, sizeof path);
  int rc = kg_baseline_update(path, &run, err, sizeof err);
  if (rc) fprintf(stderr, "kgate: %s\n", err);
  else printf("kgate: wrote %s from %s\n", path, bo->results);
  kg_run_free(&run);
  return rc ? KG_EXIT_USAGE : KG_EXIT_OK;
}

int kg_gate_merge(const kg_merge_opts *mo) {
  char err[1024];
  kg_run run;
  if (kg_merge_runs(mo->inputs, (size_t)mo->ninputs, &run, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  /* a variant's dtypes pooled: its cells came from several shards, so pooled again as one run pools them */
  int rc = kg_pair_pools(run.pairs, run.npairs, &run.pair, &run.pools, &run.npools);
  if (rc) snprintf(err, sizeof err, "out of memory");
  else rc = kg_results_write(mo->out, &run, err, sizeof err);
  if (rc) fprintf(stderr, "kgate: %s\n", err);
  else if (strcmp(mo->out, "-"))
    printf("kgate: merged %zu cases from %d files into %s\n", run.n, mo->ninputs, mo->out);
  kg_run_free(&run);
  return rc ? KG_EXIT_USAGE : KG_EXIT_OK;
}

void kg_gate_opts_init(void *s) {
  kg_gate_opts *go = s;
  go->paired.pair.quads = 32;     /* no option: the quads per block of a paired sample */
  go->baseline_dir = "baselines"; /* check has no --baseline-dir: the reports name run's default */
}

int kg_gate_opts_gpu_free(const void *s) { return ((const kg_gate_opts *)s)->plan_only; }

void kg_gate_opts_free(void *s) {
  kg_plan_opts *plan = &((kg_gate_opts *)s)->plan;
  free((size_t *)plan->sizes);
  free((size_t *)plan->perf_sizes);
  plan->sizes = plan->perf_sizes = NULL;
}

/* --sanitize: tools kg_san_parse_tools knows. */
int kg_gate_set_sanitize(void *s, const char *value, char *err, size_t errlen) {
  unsigned mask;
  if (kg_san_parse_tools(value, &mask, err, errlen)) return KG_OPT_SAID;
  ((kg_gate_opts *)s)->sanitize = value;
  return 0;
}

static const char *dtype_word(int i) { return kg_dtype_get((kg_dtype)i)->name; }
static const char *pattern_word(int i) { return kg_pattern_name((kg_pattern)i); }

/* --dtype and --pattern: each word of the list checked here, so a typo gets
 * the nearest one (F32: f32) before anything runs. */
int kg_gate_set_dtypes(void *s, const char *value, char *err, size_t errlen) {
  if (kg_suggest_list(value, "dtype", dtype_word, KG_NDTYPES, err, errlen)) return KG_OPT_SAID;
  ((kg_gate_opts *)s)->plan.dtypes = value;
  return 0;
}

int kg_gate_set_patterns(void *s, const char *value, char *err, size_t errlen) {
  if (kg_suggest_list(value, "pattern", pattern_word, KG_NPATTERNS, err, errlen)) return KG_OPT_SAID;
  ((kg_gate_opts *)s)->plan.patterns = value;
  return 0;
}

/* --shard i/N. */
int kg_gate_set_shard(void *s, const char *value, char *err, size_t errlen) {
  kg_gate_opts *go = s;
  if (!kg_shard_parse(value, &go->shard_i, &go->shard_n)) return 0;
  snprintf(err, errlen, "bad value '%s' for --shard (expected i/N with 1 <= i <= N)", value);
  return KG_OPT_SAID;
}

/* One device number of a --devices list, in 0..1023. 0, or -1. */
static int device_number(const char *p, size_t len, int *dev) {
  char item[32];
  if (!len || len >= sizeof item) return -1;
  snprintf(item, sizeof item, "%.*s", (int)len, p);
  if (item[0] == '-') return -1;
  char *end;
  errno = 0;
  unsigned long long u = strtoull(item, &end, 10);
  if (errno || u > 1023 || *end) return -1;
  *dev = (int)u;
  return 0;
}

/* --devices all, or a comma list of distinct device numbers. */
int kg_gate_set_devices(void *s, const char *value, char *err, size_t errlen) {
  kg_gate_opts *g = s;
  g->devices_all = !strcmp(value, "all");
  g->ndevices = 0;
  for (const char *p = value; !g->devices_all;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    int dev = -1, dup = 0;
    if (!device_number(p, len, &dev))
      for (int k = 0; k < g->ndevices; k++) dup |= g->devices[k] == dev;
    if (dev < 0 || dup || g->ndevices == KG_GATE_MAXDEVICES) {
      snprintf(err, errlen, "bad value '%s' for --devices (expected all, or distinct device numbers like 0,2)",
               value);
      return KG_OPT_SAID;
    }
    g->devices[g->ndevices++] = dev;
    if (!comma) break;
    p = comma + 1;
  }
  return 0;
}
