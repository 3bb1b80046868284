#include "sanrun.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcode.h"
#include "label.h"
#include "progress.h"
#include "varreg.h"
#include "sanitize.h"
#include "waiver.h"

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

/* How bad a case's outcome is, for the worst over the tools: a failure, then
 * a case some tool left unrun, then a pass. */
static int badness(kg_status st) {
  return st == KG_ST_FAIL || st == KG_ST_ERROR ? 4 : st == KG_ST_PENDING ? 3 : st == KG_ST_PASS ? 2 : 1;
}

static void keep_worst(kg_run *run, const kg_result *res, int first) {
  for (size_t i = 0; i < run->n; i++)
    if (first || badness(res[i].status) > badness(run->results[i].status)) run->results[i] = res[i];
}

/* One tool's pass over the plan into res. 0; 1 when the run stops here
 * (the environment, a signal: out says which). */
static int one_tool(const char *san, kg_san_tool t, kg_run *run, const kg_super_opts *so, const kg_run_params *rp,
                    const san_waivers *sw, kg_result *res, kg_san_outcome *out, FILE *log) {
  const char *name = kg_san_tool_name(t);
  char log_path[] = "/tmp/kgate-sanitizer-XXXXXX", err[512], phase[48], detail[64];
  int fd = mkstemp(log_path);
  char **argv = fd >= 0 ? kg_san_argv(san, t, log_path, so->worker_argv) : NULL;
  if (fd >= 0) close(fd);
  if (!argv) {
    snprintf(out->env, sizeof out->env, "cannot prepare the %s run", name);
    if (fd >= 0) unlink(log_path);
    return fprintf(log, "kgate: %s\n", out->env), 1;
  }
  kg_super_opts o = *so;
  o.worker_argv = argv;
  kg_san_scope scope = {name, waivers_of, sw};
  kg_super_san ss = {log_path, name, KG_SAN_EXIT, 0, 1, kg_san_scan, &scope};
  snprintf(phase, sizeof phase, "compute-sanitizer %s", name);
  snprintf(detail, sizeof detail, "%zu cases", run->n);
  kg_progress_phase(so->progress_ctx, phase, detail);
  int env = kg_supervise_san(run->cases, run->n, rp, &o, &ss, res, &out->dev, err, sizeof err);
  free(argv);
  unlink(log_path);
  if (env == KG_SUPER_INTERRUPTED)
    fprintf(log, "kgate: %s: the summary below says what ran\n", err), out->interrupted = kg_super_interrupted();
  else if (env) fprintf(log, "kgate: %s\n", err), snprintf(out->env, sizeof out->env, "%s", err);
  return env != 0;
}

/* The summary's lines, variant by variant, tool by tool. */
static void summary(const kg_run *run, kg_result *const *res, kg_san_outcome *out) {
  out->lines = calloc(kg_nvariants * KG_NSAN + 1, sizeof *out->lines);
  for (size_t v = 0; out->lines && v < kg_nvariants; v++) {
    for (int t = 0; t < KG_NSAN; t++) {
      char cell[320], line[400];
      if (!res[t] || !kg_gate_san_cell(run->cases, res[t], run->n, (int)v, cell, sizeof cell)) continue;
      snprintf(line, sizeof line, "  %-24s %-9s %s", kg_variants[v].name, kg_san_tool_name((kg_san_tool)t), cell);
      if ((out->lines[out->nlines] = strdup(line))) out->nlines++;
    }
  }
}

int kg_gate_sanitize(const kg_gate_opts *go, kg_run *run, const kg_super_opts *so, const kg_run_params *rp,
                     const kg_gate_listener *ls, kg_san_outcome *out, FILE *log) {
  char san[PATH_MAX], err[512];
  unsigned mask = 0;
  memset(out, 0, sizeof *out);
  if (kg_san_find(san, sizeof san, err, sizeof err)) return fprintf(log, "kgate: %s\n", err), KG_EXIT_ENV;
  san_waivers sw = {0};
  if (read_san_waivers(&sw, err, sizeof err)) {
    san_waivers_free(&sw);
    return fprintf(log, "kgate: %s\n", err), KG_EXIT_USAGE;
  }
  kg_san_parse_tools(go->sanitize, &mask, err, sizeof err);
  kg_result *res[KG_NSAN] = {0};
  int stop = 0, first = 1;
  for (int t = 0; t < KG_NSAN && !stop && !kg_super_interrupted(); t++) {
    if (!(mask >> t & 1)) continue;
    if (!(res[t] = calloc(run->n + 1, sizeof *res[t]))) {
      snprintf(out->env, sizeof out->env, "cannot prepare the %s run", kg_san_tool_name((kg_san_tool)t));
      fprintf(log, "kgate: %s\n", out->env);
      break;
    }
    double t0 = kg_now_s();
    stop = one_tool(san, (kg_san_tool)t, run, so, rp, &sw, res[t], out, log);
    if (ls && ls->checked)
      ls->checked(ls->ctx, kg_san_tool_name((kg_san_tool)t), run->cases, res[t], run->n, &out->dev, kg_now_s() - t0);
    keep_worst(run, res[t], first), first = 0;
  }
  summary(run, res, out);
  for (int t = 0; t < KG_NSAN; t++) free(res[t]);
  san_waivers_free(&sw);
  return KG_EXIT_OK;
}

void kg_san_outcome_free(kg_san_outcome *out) {
  for (size_t k = 0; k < out->nlines; k++) free(out->lines[k]);
  free(out->lines);
  out->lines = NULL, out->nlines = 0;
}
