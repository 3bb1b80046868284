#include "jobs.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "sass.h"
#include "waiver.h"

/* The analysis of one module in check and run stops after this many seconds
 * (KGATE_LINT_LIMIT_S, default KG_LINT_LIMIT_S): a module not analysed in
 * time was not shown to be fenced, so it is "not run", a failure. 0 when the
 * variable is no positive number. */
static double lint_limit(void) {
  const char *e = getenv("KGATE_LINT_LIMIT_S");
  if (!e || !*e) return KG_LINT_LIMIT_S;
  char *end;
  double v = strtod(e, &end);
  return *end || !(v > 0) ? 0 : v;
}

/* The listing's lint within the limit, summarized into m. 0, or -1 out of memory. */
static int lint_listing(kg_lint_module *m, const kg_sass_listing *l, const kg_lint_waivers *w, double limit) {
  kg_lint_report r;
  int rc = kg_lint_listing_within(l, w->w, w->n, limit, &r);
  if (rc == -2) {
    snprintf(m->why, sizeof m->why, "the lint took over its time limit of %g s (KGATE_LINT_LIMIT_S)", limit);
    rc = 0;
  } else if (!rc) {
    m->ran = 1;
    rc = kg_lint_summarize(l, &r, m);
  }
  kg_lint_report_free(&r);
  return rc;
}

int kg_lint_for_run(kg_lint_module *m) {
  char err[1024], *text = NULL;
  size_t len = 0;
  if (m->why[0]) return 0; /* not linted: why says why */
  double limit = lint_limit();
  if (limit <= 0) return snprintf(m->why, sizeof m->why, "KGATE_LINT_LIMIT_S is not a positive number of seconds"), 0;
  kg_dis_rc dr = kg_dis_read(m->path, &text, &len, err, sizeof err);
  if (dr != KG_DIS_OK) return snprintf(m->why, sizeof m->why, "%.200s", err), 0;
  kg_sass_listing l;
  int prc = kg_sass_parse(text, len, &l, err, sizeof err);
  free(text);
  if (prc) return snprintf(m->why, sizeof m->why, "not a SASS listing: %.180s", err), 0;
  /* the worker refused a module whose table is bad; one changed since is not linted */
  kg_lint_waivers w;
  if (kg_lint_waivers_read(m->path, &w, err, sizeof err)) {
    kg_sass_free(&l);
    return snprintf(m->why, sizeof m->why, "%.220s", err), 0;
  }
  int rc = lint_listing(m, &l, &w, limit);
  kg_sass_free(&l);
  kg_lint_waivers_free(&w);
  return rc;
}

static void *lint_thread(void *arg) {
  kg_lint_job *j = arg;
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

/* kgate's own module that cannot be found is "not run", with why, unless a
 * --worker of its own stands in for kgate's (tests). */
int kg_lint_start(const kg_gate_opts *go, kg_run *run, kg_lint_job *j) {
  char own[PATH_MAX], err[512];
  *j = (kg_lint_job){.run = run};
  if (go->sanitize) return 0;
  const char *self = go->mods.own                                               ? go->mods.own
                     : kg_module_default_path(own, sizeof own, err, sizeof err) ? NULL
                                                                                : own;
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

int kg_lint_join(kg_lint_job *j) {
  if (j->started) pthread_join(j->tid, NULL);
  j->started = 0;
  return j->rc;
}

static void *code_thread(void *arg) {
  kg_code_job *j = arg;
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

void kg_code_start(const kg_gate_opts *go, int paired, int carry, kg_code_job *j) {
  *j = (kg_code_job){.go = go};
  j->proof = paired && !go->paired.time_unchanged && !go->mods.pins && !go->sanitize;
  if (!j->proof && !carry) return;
  j->on = 1;
  j->started = pthread_create(&j->tid, NULL, code_thread, j) == 0;
  if (!j->started) code_thread(j); /* no thread: read them now */
}

int kg_code_join(kg_code_job *j) {
  if (j->started) pthread_join(j->tid, NULL);
  j->started = 0;
  return j->ok;
}

void kg_code_free(kg_code_job *j) {
  kg_code_join(j);
  kg_code_table_free(&j->head);
  kg_code_table_free(&j->base);
}
