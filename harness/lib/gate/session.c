#include "session.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basecmp.h"
#include "carry.h"
#include "escape.h"
#include "exitcode.h"
#include "label.h"
#include "phases.h"
#include "jobs.h"
#include "kg_harness.h"
#include "progress.h"
#include "varreg.h"
#include "sanrun.h"
#include "supervisor.h"
#include "workers.h"

/* The workers of a run, one per device: the run's own (the roofline when
 * timing), and the paired rounds' (the base modules too, no roofline). */
typedef struct workers {
  kg_worker_cmd run[KG_GATE_MAXDEVICES], paired[KG_GATE_MAXDEVICES];
  char *const *pargv[KG_GATE_MAXDEVICES];
  kg_super_dev sdev[KG_GATE_MAXDEVICES];
} workers;

/* What a session holds while it runs (on the heap: the devices' tables);
 * gate_end releases whatever was reached (each part is safe to release
 * when never started, or twice). */
typedef struct gate {
  const kg_gate_opts *go;
  const kg_gate_listener *ls;
  FILE *log;
  kg_session *s;
  kg_run *run; /* &s->run */
  kg_modinfo base;
  kg_lint_job lj;
  kg_code_job cj;
  int ndev, list[KG_GATE_MAXDEVICES];
  kg_device_info devs[KG_GATE_MAXDEVICES];
  kg_progress prog;
  double startup_s;
  kg_phase_passes passes; /* where the time went (phases.h) */
  kg_worker_cmd cmd;
  workers w;
  kg_super_opts so;
  kg_run_params rp;
  kg_sealed sealed;
} gate;

/* The supervisor's progress callback: progress.h draws it, on a terminal or in a log. */
static void show_progress(void *ctx, size_t done, size_t total, const kg_case *c, const kg_result *r) {
  char label[160];
  kg_case_label(c, label, sizeof label);
  kg_progress_case(ctx, done, total, label, r->status == KG_ST_FAIL || r->status == KG_ST_ERROR);
}

/* The first worker said hello: the held phase line (check_pass). */
static void progress_started(void *ctx) { kg_progress_start(ctx); }

/* The workers' own sums of what the cases cost (model.h), for the phase clock (phases.h). */
static void add_case_phases(const kg_run *run, kg_phase_passes *ph) {
  for (size_t i = 0; i < run->n; i++) {
    ph->inputs_sum += run->results[i].input_us * 1e-6;
    ph->check_sum += run->results[i].check_us * 1e-6;
    ph->timing_sum += run->results[i].time_us * 1e-6;
  }
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

/* The run's device: the first that said hello (devs[0] when none did). */
static kg_device_info first_hello(const kg_device_info *devs, int ndev) {
  kg_device_info dev = devs[0];
  for (int k = ndev - 1; k >= 0; k--)
    if (devs[k].name[0]) dev = devs[k];
  return dev;
}

static void tell_checked(const gate *g, const char *tool, const kg_result *res, const kg_device_info *dev,
                         double wall) {
  if (g->ls && g->ls->checked) g->ls->checked(g->ls->ctx, tool, g->run->cases, res, g->run->n, dev, wall);
}

/* The cases of check or run: the selection, the size policy (plan.h) and
 * --shard. 0, or the exit code after saying why. */
static int plan_run(const kg_gate_opts *go, kg_run *run, FILE *log) {
  char err[512];
  kg_plan_opts po = go->plan; /* the policy fills in its defaults */
  /* A team's module alone by default: its gate is its variants (docs/modules.md, step 4). */
  po.modules_only = go->mods.nkernels > 0 && !go->with_kgate;
  size_t *huge; /* the sizes with the huge tier's, when --tier huge */
  if (kg_plan_policy(&po, go->sanitize != NULL, go->timing, go->tier_huge, &huge))
    return fprintf(log, "kgate: out of memory\n"), KG_EXIT_ENV;
  int planned = kg_plan_build(&po, &run->cases, &run->n, err, sizeof err);
  free(huge);
  if (planned) return fprintf(log, "kgate: %s\n", err), KG_EXIT_USAGE;
  if (!go->shard_n) return 0;
  size_t groups = kg_plan_groups(run->cases, run->n, NULL);
  run->n = kg_plan_shard(run->cases, run->n, go->shard_i, go->shard_n);
  if (run->n) return 0;
  fprintf(log, "kgate: shard %u/%u is empty: the plan has only %zu input groups\n", go->shard_i, go->shard_n, groups);
  kg_run_free(run);
  return KG_EXIT_USAGE;
}

int kg_gate_plan(const kg_gate_opts *go, kg_run *run, FILE *log) {
  char self[PATH_MAX];
  memset(run, 0, sizeof *run);
  const char *worker = go->mods.nkernels ? kg_worker_path(&go->mods, self, sizeof self, log) : "";
  if (!worker) return KG_EXIT_ENV;
  if (kg_load_modules(&go->mods, worker, NULL, NULL, NULL, log)) return KG_EXIT_USAGE;
  int code = plan_run(go, run, log);
  if (code) kg_run_free(run);
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

/* --devices: the device numbers to run on, one worker each (-d's device
 * alone by default; all: as many as the worker sees). 0, or -1 after
 * saying why. */
static int device_list(const kg_gate_opts *go, const char *worker, int *list, int *ndev, FILE *log) {
  char err[512];
  *ndev = 1, list[0] = go->device;
  if (go->ndevices) {
    *ndev = go->ndevices;
    memcpy(list, go->devices, (size_t)*ndev * sizeof *list);
  } else if (go->devices_all) {
    kg_worker_cmd probe;
    kg_device_info d0 = {0};
    if (kg_supervise_probe(kg_worker_cmd_make(&probe, worker, 0, 0, &(kg_modules){0}, 0, 0), go->timeout_s, &d0, err,
                           sizeof err) &&
        !kg_super_interrupted()) {
      fprintf(log, "kgate: %s\n", err);
      return -1;
    }
    *ndev = d0.count > 0 ? (d0.count < KG_GATE_MAXDEVICES ? d0.count : KG_GATE_MAXDEVICES) : 1;
    for (int k = 0; k < *ndev; k++) list[k] = k;
  }
  return 0;
}

static void worker_argvs(const kg_gate_opts *go, const char *worker, const int *list, int ndev, workers *w) {
  for (int k = 0; k < ndev; k++) {
    w->sdev[k] = (kg_super_dev){kg_worker_cmd_make(&w->run[k], worker, list[k], go->timing, &go->mods, 0, 0), list[k]};
    w->pargv[k] = kg_worker_cmd_make(&w->paired[k], worker, list[k], 0, &go->mods, 1, 0);
  }
}

/* The check (and, unpaired, the timing): every case once on the run's
 * devices. Returns the supervisor's code, its reason in err. */
static int check_pass(gate *g, const kg_case *sent, char *err, size_t errlen) {
  char detail[160];
  /* One pass: each timed case is checked, then timed once it passes (in a
   * paired run, only those that the base lacks: the rounds time the rest).
   * Cases carried over (carry.h) are not sent. */
  size_t n = 0, ntimed = 0;
  size_t *at = malloc((g->run->n + 1) * sizeof *at);
  kg_case *cases = malloc((g->run->n + 1) * sizeof *cases);
  kg_result *res = calloc(g->run->n + 1, sizeof *res);
  if (!at || !cases || !res) {
    free(at), free(cases), free(res);
    return snprintf(err, errlen, "out of memory"), -1;
  }
  for (size_t i = 0; i < g->run->n; i++)
    if (!g->run->results[i].carried) at[n] = i, cases[n++] = sent[i], ntimed += sent[i].timed && sent[i].supported;
  const char *s = g->ndev == 1 ? "" : "s";
  if (ntimed) snprintf(detail, sizeof detail, "%zu cases, %zu of them timed, on %d device%s", n, ntimed, g->ndev, s);
  else snprintf(detail, sizeof detail, "%zu cases on %d device%s", n, g->ndev, s);
  /* said once a worker says hello: a worker that cannot start says why first */
  kg_progress_phase_held(&g->prog, ntimed ? "check and timing" : "check", detail);
  kg_phase_clock clock = kg_phase_start(&g->startup_s, kg_now_s());
  int env = kg_supervise_devices(cases, n, &g->rp, &g->so, g->w.sdev, (size_t)g->ndev, res, g->devs, err, errlen);
  g->passes.check = kg_phase_stop(&clock, kg_now_s());
  for (size_t k = 0; k < n; k++) g->run->results[at[k]] = res[k];
  free(at), free(cases), free(res);
  return env;
}

/* carry_pass: the baseline --carry-from names cannot be read (said). */
enum { CARRY_REFUSED = -10 };

/* With --carry-from DIR, the cases DIR's baseline's record covers carried over. */
static int carry_apply(gate *g, const kg_case *sent) {
  const kg_gate_opts *go = g->go;
  char path[PATH_MAX], why[512], shown[PATH_MAX];
  kg_baseline b;
  kg_baseline_path(go->carry_from, g->devs[0].name, path, sizeof path);
  int rc = kg_baseline_load(path, &b, why, sizeof why);
  if (rc < 0) return fprintf(g->log, "kgate: --carry-from: %s\n", why), CARRY_REFUSED;
  kg_esc_term(path, shown, sizeof shown);
  if (rc > 0 || !g->run->check.on) {
    if (!go->quiet)
      fprintf(g->log, "kgate: %s %s: every case is run\n",
              rc > 0 ? "no baseline" : "no check record made to compare with", shown);
    if (!rc) kg_baseline_free(&b);
    return 0;
  }
  size_t n = b.check.on ? kg_carry_apply(g->run, sent, &b.check, path, go->quiet ? NULL : g->log) : 0;
  if (!go->quiet)
    fprintf(g->log, "kgate: %zu cases carried over from %s's check record (same kgate check code, machine code and "
                    "launches), not run\n",
            n, shown);
  kg_baseline_free(&b);
  return 0;
}

/* The check record (carry.h): the groups probed, their digests; then, with
 * --carry-from DIR, the cases DIR's baseline's record covers carried over.
 * DIR is trusted data: the gate passes the merge base's baselines, never the
 * head's, which a pull request could edit. Without cuobjdump nothing is
 * recorded and nothing carried. Returns the supervisor's code (an
 * interrupt, no device) with err, or CARRY_REFUSED for a baseline that is
 * there but cannot be read; a missing one carries nothing. */
static int carry_pass(gate *g, const kg_case *sent, char *err, size_t errlen) {
  kg_carry_probes pr;
  kg_phase_clock clock = kg_phase_start(&g->startup_s, kg_now_s());
  kg_progress_phase_held(&g->prog, "check record", "the groups of 2^20 elements and more, probed untimed");
  int env = kg_carry_probe(g->run, &g->rp, &g->so, g->w.sdev, (size_t)g->ndev, g->devs, &pr, err, errlen);
  if (!env && pr.n) {
    kg_code_join(&g->cj); /* the kernels' machine code, read while the probes ran */
    int arch = g->devs[0].cc_major * 10 + g->devs[0].cc_minor;
    if (g->cj.head.units > 0) kg_carry_record(g->run, &pr, &g->cj.head, KG_HARNESS_SHA256, arch, &g->rp);
  }
  kg_carry_probes_free(&pr);
  g->passes.probe = kg_phase_stop(&clock, kg_now_s());
  if (env || !g->go->carry_from) return env;
  return carry_apply(g, sent);
}

/* The paired rounds after the check, and their phase times. */
static int paired_pass(gate *g) {
  const kg_gate_opts *go = g->go;
  char detail[160];
  snprintf(detail, sizeof detail, "against %s %s", g->base.name, g->base.version);
  kg_progress_phase(&g->prog, "paired rounds", detail);
  g->prog.counts = 0; /* each round is a pass of the supervisor; pairrun logs a line per round */
  double unchanged_s = 0;
  kg_super_dev sdev[KG_GATE_MAXDEVICES];
  for (int k = 0; k < g->ndev; k++) sdev[k] = (kg_super_dev){g->w.pargv[k], g->list[k]};
  int proof = g->cj.proof && kg_code_join(&g->cj); /* the machine code of head and base, for the unchanged proof */
  const char *no_proof = !g->cj.proof || proof || go->quiet ? NULL
                         : g->cj.head.why[0]                ? g->cj.head.why
                                                            : g->cj.base.why;
  kg_pair_settings ps = go->paired;
  ps.sequential = !go->mods.pins; /* the nightly's detector is calibrated on the interval of every round */
  kg_pair_gate_in in = {&g->base, &ps, go->plan.variants == NULL, &g->rp, &g->so, sdev, (size_t)g->ndev,
                        proof ? &g->cj.head : NULL, proof ? &g->cj.base : NULL, no_proof, go->quiet ? NULL : g->log};
  kg_phase_clock clock = kg_phase_start(&g->startup_s, kg_now_s());
  int pair_env = kg_pair_gate(g->run, &in, &unchanged_s) != 0;
  g->passes.paired = kg_phase_stop(&clock, kg_now_s()), g->passes.unchanged_s = unchanged_s;
  g->run->meta.wall_s = kg_now_s() - g->prog.t0;
  kg_phases_of(&g->run->meta.phases, &g->passes);
  return pair_env;
}

/* The end of a run whose cases ran: the baseline comparison and the
 * document, with what the results cannot say (the environment that stopped
 * the run, a baseline that could not be used). */
static int finish(gate *g) {
  const kg_gate_opts *go = g->go;
  kg_session *s = g->s;
  double t0 = kg_now_s();
  int bad_baseline = 0;
  kg_baseline_path(go->baseline_dir, s->run.meta.dev.name, s->baseline, sizeof s->baseline);
  if (go->timing && s->measured)
    bad_baseline = kg_gate_compare_baseline(s->baseline, go->tolerance_pct, &s->run, &s->cmp, &s->have_cmp, g->log);
  s->run.meta.phases.reports_s = kg_now_s() - t0; /* the document says it: the terminal's lines take no more */
  kg_rm_gate rg = {.baseline = s->baseline,
                   .environment = s->env        ? s->why
                                  : s->pair_env ? "the paired rounds could not run (the log says why)"
                                                : NULL,
                   .refused = bad_baseline ? "the baseline could not be used (the log says why)" : NULL};
  kg_rdoc_build_gate(&s->doc, &s->run, s->have_cmp ? &s->cmp : NULL, &rg); /* out of memory: each write says so */
  return 0;
}

/* SIGINT/SIGTERM stopped the run: the document of the results it has,
 * marked incomplete (run.incomplete, cases not reached "pending"); no
 * baseline comparison, which would read the missing cases as regressions. */
static int interrupted(gate *g, double wall) {
  kg_session *s = g->s;
  s->interrupted = kg_super_interrupted();
  kg_progress_clear(&g->prog);
  kg_device_info dev = first_hello(g->devs, g->ndev);
  if (!dev.name[0]) { /* no worker said hello: no device to name, nothing ran */
    fprintf(g->log, "kgate: interrupted by %s before any worker started: no results to write\n",
            kg_super_signal_name(s->interrupted));
    return s->code = KG_EXIT_SIGNAL + s->interrupted, -1;
  }
  fill_meta(g->go, &dev, wall, &s->run.meta);
  snprintf(s->run.meta.incomplete, sizeof s->run.meta.incomplete, "%s", kg_super_signal_name(s->interrupted));
  tell_checked(g, NULL, s->run.results, &dev, wall);
  kg_rdoc_build_gate(&s->doc, &s->run, NULL, NULL);
  return 0;
}

/* check --sanitize: the sanitizer mode, ending in the same document. */
static int sanitized(gate *g) {
  kg_session *s = g->s;
  kg_san_outcome out;
  g->rp.repeats = 1; /* determinism is not what a sanitizer run checks */
  int code = kg_gate_sanitize(g->go, &s->run, &g->so, &g->rp, g->ls, &out, g->log);
  if (code) return s->code = code, -1;
  s->san = out.lines, s->nsan = out.nlines;
  fill_meta(g->go, &out.dev, kg_now_s() - g->prog.t0, &s->run.meta);
  s->interrupted = kg_super_interrupted();
  if (s->interrupted)
    snprintf(s->run.meta.incomplete, sizeof s->run.meta.incomplete, "%s", kg_super_signal_name(s->interrupted));
  kg_counts c = kg_count_results(s->run.results, s->run.n);
  s->measured = c.passed + c.failed + c.errored > 0;
  s->env = out.env[0] != 0;
  snprintf(s->why, sizeof s->why, "%s", out.env);
  kg_rm_gate rg = {.environment = s->env ? s->why : NULL};
  kg_rdoc_build_gate(&s->doc, &s->run, NULL, &rg);
  s->doc.san = (const char *const *)s->san, s->doc.nsan = s->nsan;
  return 0;
}

/* The workers, the modules, the plan, the supervisor's settings and the
 * lint's start. 0, or -1 with s->code. */
static int prepare(gate *g, const char **worker, char *self, size_t len) {
  const kg_gate_opts *go = g->go;
  kg_session *s = g->s;
  if (!(*worker = kg_worker_path(&go->mods, self, len, g->log))) return s->code = KG_EXIT_ENV, -1;
  /* --kernels and --base-kernels: a module that cannot be loaded is an input
   * error, found before the matrix runs (the describe touches no GPU); the
   * modules' variants must be in the registry before the plan names them. */
  int paired = go->timing && go->mods.nbase;
  if (go->mods.pins && !paired)
    return fprintf(g->log, "kgate: --reference needs --base-kernels: the modules it pins\n"), s->code = KG_EXIT_USAGE,
                                                                                              -1;
  if (kg_load_modules(&go->mods, *worker, paired ? &g->base : NULL, &s->run.pair, &g->sealed, g->log))
    return s->code = KG_EXIT_USAGE, -1;
  if ((s->code = plan_run(go, &s->run, g->log))) return -1;
  kg_progress_init(&g->prog, go->quiet ? NULL : g->log, isatty(fileno(g->log)), NULL);
  /* --timeout bounds the hello too: CUDA start-up and the roofline take seconds, not minutes. */
  g->so = (kg_super_opts){kg_worker_cmd_make(&g->cmd, *worker, go->device, go->timing, &go->mods, 0, 0),
                          go->timeout_s, go->timeout_s, show_progress, &g->prog, go->timing, &g->startup_s,
                          progress_started};
  g->rp = (kg_run_params){go->seed, go->repeats, go->time, go->paired.pair};
  g->rp.pair.on = 0, g->rp.pair.module = 1, g->rp.pair.base_variant = -1; /* paired rounds: the same name in the base */
  if (!(s->run.results = calloc(s->run.n, sizeof *s->run.results)) || kg_lint_start(go, &s->run, &g->lj))
    return fprintf(g->log, "kgate: out of memory\n"), s->code = KG_EXIT_ENV, -1;
  return 0;
}

/* The check record, then the check; 0, or the supervisor's code with s->why. */
static int checks(gate *g, int paired) {
  const kg_gate_opts *go = g->go;
  kg_session *s = g->s;
  int carry = go->timing && !go->mods.pins; /* the nightly checks every case: its record of a night is whole */
  kg_code_start(go, paired, carry, &g->cj);
  kg_case *sent = cases_to_check(&s->run, &g->base, paired);
  int env = sent ? 0 : (snprintf(s->why, sizeof s->why, "out of memory"), -1);
  if (!env && carry) env = carry_pass(g, sent, s->why, sizeof s->why);
  if (!env) env = check_pass(g, sent, s->why, sizeof s->why);
  free(sent);
  return env;
}

/* After the check: the run's facts, the check's table told, the paired rounds. */
static void after_check(gate *g, int paired) {
  kg_session *s = g->s;
  kg_device_info dev = first_hello(g->devs, g->ndev);
  fill_meta(g->go, &dev, kg_now_s() - g->prog.t0, &s->run.meta);
  add_case_phases(&s->run, &g->passes);
  kg_phases_of(&s->run.meta.phases, &g->passes); /* proving what to carry over is part of the check */
  kg_counts c = kg_count_results(s->run.results, s->run.n);
  s->measured = c.passed + c.failed + c.errored > 0;
  /* Whatever was measured before an environment failure is still reported. */
  if (!s->env || s->measured) tell_checked(g, NULL, s->run.results, &dev, s->run.meta.wall_s);
  s->pair_env = paired && s->measured && !s->env ? paired_pass(g) : 0;
  kg_code_free(&g->cj);
  if (kg_lint_join(&g->lj) && !s->env) s->env = 1, snprintf(s->why, sizeof s->why, "lint: out of memory");
  if (s->env) fprintf(g->log, "kgate: %s\n", s->why); /* no driver, no device: said before the reports */
  if (!s->env || s->measured) kg_progress_phase(&g->prog, "reports", NULL); /* after a bare stop: its line alone */
}

static int session(gate *g) {
  const kg_gate_opts *go = g->go;
  kg_session *s = g->s;
  char self[PATH_MAX];
  const char *worker;
  if (prepare(g, &worker, self, sizeof self)) return -1;
  if (go->sanitize) return sanitized(g);
  /* --devices: one worker per device, the same argv but for the device. */
  if (device_list(go, worker, g->list, &g->ndev, g->log)) return s->code = KG_EXIT_ENV, -1;
  worker_argvs(go, worker, g->list, g->ndev, &g->w);
  int paired = go->timing && go->mods.nbase;
  int env = checks(g, paired);
  if (env == CARRY_REFUSED) return s->code = KG_EXIT_USAGE, -1;
  if (env == KG_SUPER_INTERRUPTED) { /* the lint ends before the partial results are written */
    kg_lint_join(&g->lj);
    return interrupted(g, kg_now_s() - g->prog.t0);
  }
  if (env == KG_SUPER_MODELS) /* run: devices of different models */
    return fprintf(g->log, "kgate: %s\n", s->why), s->code = KG_EXIT_USAGE, -1;
  s->env = env != 0;
  after_check(g, paired);
  return finish(g);
}

int kg_gate_session(const kg_gate_opts *go, const kg_gate_listener *listener, kg_session *s) {
  memset(s, 0, sizeof *s);
  FILE *log = listener && listener->log ? listener->log : stderr;
  kg_super_trap(1); /* held until the reports are written: a signal meanwhile is recorded, not fatal */
  gate *g = calloc(1, sizeof *g);
  if (!g) return fprintf(log, "kgate: out of memory\n"), s->code = KG_EXIT_ENV, -1;
  kg_gate_opts sealed = *go; /* --reference: the base modules loaded from sealed memory (kg_seal_bases) */
  *g = (gate){.go = &sealed, .ls = listener, .log = log, .s = s, .run = &s->run, .ndev = 1};
  g->list[0] = go->device;
  int rc = -1;
  if (go->mods.pins && go->timing && go->mods.nbase && kg_seal_bases(&go->mods, &sealed.mods, &g->sealed, log))
    s->code = KG_EXIT_USAGE;
  else rc = session(g);
  kg_lint_join(&g->lj); /* the lint writes into the run: it ends first */
  kg_code_free(&g->cj);
  kg_modinfo_free(&g->base);
  kg_unseal_bases(&g->sealed);
  free(g);
  if (rc) kg_run_free(&s->run);
  return rc;
}

void kg_session_free(kg_session *s) {
  kg_rdoc_free(&s->doc);
  kg_comparison_free(&s->cmp);
  kg_run_free(&s->run);
  for (size_t k = 0; k < s->nsan; k++) free(s->san[k]);
  free(s->san);
  memset(s, 0, sizeof *s);
}
