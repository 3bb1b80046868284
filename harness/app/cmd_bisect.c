/* kgate bisect: the commit behind a nightly finding or a slow range
 * (docs/bisect.md). Its option rows, the rules between them, and the exit
 * code; the search is bisect.h, the repository's side bisectops.h, the
 * outputs bisectout.h and bisectjson.h. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect.h"
#include "bisectops.h"
#include "bisectjson.h"
#include "cli.h"
#include "detect.h"
#include "escape.h"
#include "exitcode.h"
#include "fileio.h"
#include "history.h"
#include "label.h"
#include "sizes.h"

enum { MAX_LIST = 64 };

/* bisect's settings: its rows' targets. */
typedef struct bisect_args {
  const char *history, *ack, *good, *bad, *variant, *dtype, *size, *build, *module, *repo, *work, *good_module,
      *bad_module, *json, *markdown, *kgate, *link, *within;
  const char *source[MAX_LIST], *match[MAX_LIST];
  int nsource, nmatch;
  int finding, arch, rounds, max_runs, device, own, quiet, enter_merges;
  double effect; /* a fraction (--effect 1.2: 0.012); 0: none given */
} bisect_args;

#define KG_SETTINGS bisect_args
static const kg_opt k_rows[] = {
    KG_OPTION("--history", NULL, OPT_STR(history, NULL), "FILE",
              "the nightly's history: bisect its newest open regression finding"),
    KG_OPTION("--ack", NULL, OPT_STR(ack, NULL), "FILE",
              "with --history: the acknowledgements (as history check takes them)"),
    KG_OPTION("--finding", NULL, OPT_INT(finding, 1, 1000, 1), "K",
              "with --history: the K-th open regression finding (default 1, the newest)"),
    KG_OPTION("--good", NULL, OPT_STR(good, NULL), "REV", "the last good commit (instead of --history)"),
    KG_OPTION("--bad", NULL, OPT_STR(bad, NULL), "REV", "the last bad commit (instead of --history)"),
    KG_OPTION("--variant", NULL, OPT_STR(variant, NULL), "LIST",
              "the variants (with --good/--bad; with --history: only these cells)"),
    KG_OPTION("--dtype", NULL, OPT_STR(dtype, NULL), "LIST",
              "with --good/--bad: the dtypes (default: every dtype the variant has)"),
    KG_OPTION("--size", NULL, OPT_STR(size, NULL), "N", "with --good/--bad: the input size (default 2^25)"),
    KG_OPTION("--effect", NULL, OPT_PCT(effect, 100, 0), "PCT",
              "the step to look for, percent slower (default: the finding's, or what the reproduction measures)"),
    KG_OPTION("--build", NULL, OPT_STR(build, NULL), "CMD",
              "the build: sh -c CMD in a worktree at the commit ($KGATE_BISECT_BUILD: its build folder)"),
    KG_OPTION("--module", NULL, OPT_STR(module, NULL), "PATH",
              "the module the build leaves, relative to $KGATE_BISECT_BUILD"),
    KG_OPTION("--source", NULL, OPT_MODULES(source, nsource), "PATH",
              "a path the module is built from (repeatable; default the whole tree): the build cache's key"),
    KG_OPTION("--repo", NULL, OPT_STR(repo, "."), "DIR", "the repository (default .)"),
    KG_OPTION("--within", NULL, OPT_STR(within, NULL), "REV",
              "refuse a range that is not in REV's history (the nightly: its branch)"),
    KG_OPTION("--enter-merges", NULL, OPT_FLAG(enter_merges), NULL,
              "also the commits merges brought in (a merged pull request's own, never reviewed one by one): "
              "only on an untrusted, ephemeral runner with no token"),
    KG_OPTION("--work", NULL, OPT_STR(work, ".kgate-bisect"), "DIR",
              "the bisect's folder: worktree, build, cache, logs (default .kgate-bisect)"),
    KG_OPTION("--own", NULL, OPT_FLAG(own), NULL,
              "the module is kgate's own kernels (--own-kernels), not a team's (--kernels)"),
    KG_OPTION("--kernel-match", NULL, OPT_MODULES(match, nmatch), "TEXT",
              "fingerprint only kernels whose name holds TEXT (repeatable)"),
    KG_OPTION("--arch", NULL, OPT_INT(arch, 50, 200, 90), "N",
              "the architecture whose machine code is fingerprinted (default 90)"),
    KG_OPTION("--rounds", NULL, OPT_INT(rounds, 2, 64, 4), "N", "rounds of each paired run (2-64, default 4)"),
    KG_OPTION("--max-runs", NULL, OPT_INT(max_runs, 1, 16, 4), "N",
              "paired runs per comparison at most, while undecided (1-16, default 4)"),
    KG_OPTION("--device", "-d", OPT_INT(device, 0, 1023, 0), "N", "the GPU of the paired runs (default 0)"),
    KG_OPTION("--good-module", NULL, OPT_STR(good_module, NULL), "PATH",
              "the last good night's own module: reproduce with it"),
    KG_OPTION("--bad-module", NULL, OPT_STR(bad_module, NULL), "PATH",
              "the last bad night's own module: reproduce with it"),
    KG_OPTION("--json", NULL, OPT_STR(json, NULL), "FILE",
              "the result as JSON (docs/schema/bisect.schema.json; - for stdout)"),
    KG_OPTION("--markdown", NULL, OPT_STR(markdown, NULL), "FILE",
              "the result as Markdown, appended (the nightly's step summary)"),
    KG_OPTION("--link", NULL, OPT_STR(link, NULL), "URL", "Markdown: link commits as URL<commit>"),
    KG_OPTION("--kgate", NULL, OPT_STR(kgate, NULL), "PATH",
              "the kgate that runs the paired runs (default this one; the host-only build needs one)"),
    KG_OPTION("--quiet", "-q", OPT_FLAG(quiet), NULL, "no progress lines"),
};

/* What the rows cannot say: which options go together, and commits and
 * paths that git would take for options. 0, or -1 with err. */
static int validate(const bisect_args *a, char *err, size_t errlen) {
  const char *need = !a->build ? "--build" : !a->module ? "--module" : NULL;
  if (!a->history && !(a->good && a->bad))
    return snprintf(err, errlen, "bisect: give --history FILE, or --good REV and --bad REV"), -1;
  if (a->history && (a->good || a->bad))
    return snprintf(err, errlen, "bisect: --good/--bad: not with --history (the finding names the range)"), -1;
  if (!a->history && !a->variant) return snprintf(err, errlen, "bisect: --good/--bad need --variant"), -1;
  if (need) return snprintf(err, errlen, "bisect: %s is required", need), -1;
  const char *revs[] = {a->good, a->bad, a->within}, *names[] = {"--good", "--bad", "--within"};
  for (int k = 0; k < 3; k++) {
    const char *why = revs[k] ? kg_bisect_why_bad_rev(revs[k]) : NULL;
    if (why) return snprintf(err, errlen, "bisect: %s '%.60s' %s", names[k], revs[k], why), -1;
  }
  for (int k = 0; k < a->nsource; k++)
    if (a->source[k][0] == '-' || !a->source[k][0])
      return snprintf(err, errlen, "bisect: --source '%.60s' must be a path (not empty, not starting with '-')",
                      a->source[k]),
             -1;
  return 0;
}

/* Whether name is in the comma-separated list (NULL: any). */
static int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
    if (strcspn(p, ",") == n && !strncmp(p, name, n)) return 1;
  return list == NULL;
}

/* The cells of --good/--bad: each variant x dtype at the size. */
static int cells_given(const bisect_args *a, kg_bisect_cell **out, size_t *n, char *err, size_t errlen) {
  size_t size = (size_t)1 << 25, *sizes = NULL, ns = 0;
  if (a->size) {
    if (kg_sizes_parse(a->size, &sizes, &ns, err, errlen) || ns != 1 || !sizes[0]) {
      free(sizes);
      return snprintf(err, errlen, "bisect: --size '%.40s' is not one size above 0", a->size), -1;
    }
    size = sizes[0];
    free(sizes);
  }
  kg_dtype dts[KG_NDTYPES + 1];
  size_t nd = 0;
  for (const char *p = a->dtype; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
    char name[16];
    snprintf(name, sizeof name, "%.*s", (int)(strcspn(p, ",") < 15 ? strcspn(p, ",") : 15), p);
    if (nd == KG_NDTYPES || kg_dtype_parse(name, &dts[nd++]))
      return snprintf(err, errlen, "bisect: --dtype '%.40s': no dtype '%s'", a->dtype, name), -1;
  }
  if (!nd) dts[nd++] = KG_NDTYPES; /* every dtype the variant has */
  size_t cap = 8, k = 0;
  kg_bisect_cell *c = malloc(cap * sizeof *c);
  for (const char *p = a->variant; c && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
    size_t len = strcspn(p, ",");
    if (!len || len > 63)
      return free(c), snprintf(err, errlen, "bisect: --variant '%.60s': an empty or long name", a->variant), -1;
    for (size_t d = 0; d < nd; d++) {
      if (k == cap) {
        kg_bisect_cell *w = realloc(c, (cap *= 2) * sizeof *c);
        if (!w) return free(c), snprintf(err, errlen, "out of memory"), -1;
        c = w;
      }
      c[k] = (kg_bisect_cell){.dtype = dts[d], .n = size};
      snprintf(c[k].variant, sizeof c[k].variant, "%.*s", (int)len, p);
      k++;
    }
  }
  if (!c) return snprintf(err, errlen, "out of memory"), -1;
  *out = c, *n = k;
  return 0;
}

/* The K-th open regression finding of the history: its range, cells,
 * estimate and what the toolchain record says changed. 0, 2 bad input or 3 out of memory. */
static int from_finding(const bisect_args *a, char *good, char *bad, size_t revlen, kg_bisect_cell **out, size_t *n,
                        double *estimate, char *changed, size_t chlen, char *err, size_t errlen) {
  kg_history h;
  kg_acks acks = {0};
  if (kg_history_read(a->history, &h, err, errlen)) return 2;
  if (a->ack && kg_acks_read(a->ack, &acks, err, errlen)) return kg_history_free(&h), 2;
  kg_detect_opts o = kg_detect_defaults();
  kg_detection d = {0};
  int rc = kg_detect(&h, &acks, &o, &d) ? (snprintf(err, errlen, "out of memory"), 3) : 0;
  const kg_finding *f = NULL;
  for (size_t i = 0, k = 0; !rc && i < d.nfind && !f; i++)
    if (d.find[i].kind == KG_FIND_REGRESSION && !d.find[i].acknowledged && ++k == (size_t)a->finding) f = &d.find[i];
  if (!rc && !f) rc = 2, snprintf(err, errlen, "%s: no open regression finding %d", a->history, a->finding);
  if (!rc && f->last_good == f->first_bad)
    rc = 2, snprintf(err, errlen, "%s: the finding has no good night before it: no range to bisect", a->history);
  kg_bisect_cell *c = rc ? NULL : calloc(f->ncells + 1, sizeof *c);
  if (!rc && !c) rc = 3, snprintf(err, errlen, "out of memory");
  double sum = 0;
  size_t k = 0;
  for (size_t i = 0; !rc && i < f->ncells; i++) {
    if (!listed(a->variant, f->cells[i].variant) || !(f->cells[i].before > 0) || !(f->cells[i].after > 0)) continue;
    snprintf(c[k].variant, sizeof c[k].variant, "%s", f->cells[i].variant);
    c[k].dtype = f->cells[i].dtype, c[k].n = f->cells[i].n;
    sum += log(f->cells[i].after / f->cells[i].before), k++;
  }
  if (!rc && !k)
    rc = 2, snprintf(err, errlen, "%s: the finding has no cell of --variant %.60s", a->history, a->variant);
  /* A team's nights name its commits only in their provenance: kgate_commit is kgate's own. */
  const kg_hist_run *ends[2] = {rc ? NULL : &h.runs[f->last_good], rc ? NULL : &h.runs[f->first_bad]};
  const kg_hist_run *blind = rc || a->own            ? NULL
                             : !ends[0]->prov.sha[0] ? ends[0]
                             : !ends[1]->prov.sha[0] ? ends[1]
                                                     : NULL;
  if (blind) {
    char date[48];
    kg_date_label(blind->date, date, sizeof date);
    rc = 2, snprintf(err, errlen,
                     "%s: the night of %s records no commit of the repository it built (no provenance: a line of an "
                     "older kgate, or a night outside CI; its kgate_commit is kgate's): give --good and --bad",
                     a->history, date);
  }
  if (!rc) {
    const char *g = kg_hist_commit(ends[0]), *b = kg_hist_commit(ends[1]), *why;
    if ((why = kg_bisect_why_bad_rev(g)) || (why = kg_bisect_why_bad_rev(b)))
      rc = 2, snprintf(err, errlen, "%s: a night's commit %s", a->history, why);
    snprintf(good, revlen, "%s", g), snprintf(bad, revlen, "%s", b);
    *estimate = sum / (double)k;
    kg_hist_what_changed(&h, f->last_good, f->first_bad, changed, chlen);
  }
  if (rc) free(c);
  else *out = c, *n = k;
  kg_detection_free(&d);
  kg_acks_free(&acks);
  kg_history_free(&h);
  return rc;
}

static void log_line(void *ctx, const char *line) {
  char buf[700];
  fprintf(ctx, "kgate: bisect: %s\n", kg_esc_term(line, buf, sizeof buf));
}

/* The search over the repository, and the outputs. */
static int bisect(const bisect_args *a, const char *good, const char *bad, kg_bisect_cell *cells, size_t ncells,
                  double estimate, const char *changed) {
  char err[600], self[PATH_MAX], work[PATH_MAX];
  char **ids = NULL;
  size_t n = 0;
  int rc = kg_bisect_range(a->repo, good, bad, a->within, a->enter_merges, &ids, &n, err, sizeof err);
  if (rc) return fprintf(stderr, "kgate: bisect: %s\n", err), rc;
  const char *kgate = a->kgate;
  if (!kgate) {
    ssize_t got = readlink("/proc/self/exe", self, sizeof self - 1);
    if (got <= 0)
      return kg_bisect_range_free(ids, n), fprintf(stderr, "kgate: bisect: cannot find its own executable\n"), 3;
    self[got] = '\0', kgate = self;
  }
  if (kg_mkdirs(a->work, err, sizeof err) || !realpath(a->work, work))
    return kg_bisect_range_free(ids, n), fprintf(stderr, "kgate: bisect: --work %s: %s\n", a->work, err), 3;
  kg_bisect_repo repo = {a->repo, work, a->build, a->module, a->source, (size_t)a->nsource, ids, n,
                         {a->arch, a->match, (size_t)a->nmatch}, kgate, a->own, a->device, a->rounds, cells, ncells,
                         a->quiet ? NULL : stderr, 0, "", 0, 0};
  if (kg_bisect_repo_open(&repo, err, sizeof err))
    return kg_bisect_range_free(ids, n), fprintf(stderr, "kgate: bisect: %s\n", err), 3;
  if (!a->quiet) fprintf(stderr, "kgate: bisect: %zu commits from %.12s to %.12s\n", n, ids[0], ids[n - 1]);
  kg_bisect_ops ops = kg_bisect_repo_ops(&repo);
  kg_bisect_opts o = {estimate, 0.99, a->max_runs, {a->good_module, a->bad_module}, a->quiet ? NULL : log_line, stderr};
  kg_bisect_result r;
  kg_bisect_outcome out = kg_bisect_run(n, &ops, &o, &r);
  snprintf(r.changed, sizeof r.changed, "%s", changed);
  kg_bisect_repo_close(&repo);
  kg_bisect_report rep = {&r,     ids,    cells, ncells, repo.fp_how[0] ? repo.fp_how : NULL, a->link,
                          repo.made, repo.cached};
  kg_bisect_print_term(stdout, &rep);
  /* A merge named as the culprit: its own commits are the next, separate step. */
  char note[400] = "";
  if (out == KG_BISECT_FOUND && !a->enter_merges && kg_bisect_is_merge(a->repo, ids[r.culprit]) == 1)
    snprintf(note, sizeof note,
             "the culprit %s is a merge: to look inside it, bisect its own commits (--good the merge base of its "
             "parents --bad %.12s^2 --enter-merges) on an untrusted, ephemeral runner with no token (docs/bisect.md)",
             ids[r.culprit], ids[r.culprit]);
  if (note[0]) printf("note: %s\n", note);
  int code = kg_bisect_exit(out);
  FILE *md = a->markdown ? fopen(a->markdown, "a") : NULL;
  if (a->markdown && !md) fprintf(stderr, "kgate: bisect: --markdown %s: cannot write it\n", a->markdown), code = 2;
  if (md) {
    kg_bisect_print_md(md, &rep);
    if (note[0]) fprintf(md, "\n*Note:* %s\n", note);
    fclose(md);
  }
  if (a->json && kg_bisect_write_json(a->json, &rep, err, sizeof err))
    fprintf(stderr, "kgate: bisect: --json: %s\n", err), code = 2;
  kg_bisect_result_free(&r);
  kg_bisect_range_free(ids, n);
  return code;
}

/* The name of an OIDC request variable in the environment, or NULL: a job
 * that can mint an identity token must not build (docs/threat-model.md). */
static const char *oidc_in_env(void) {
  static const char *const k_names[] = {"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL"};
  for (size_t k = 0; k < sizeof k_names / sizeof *k_names; k++)
    if (getenv(k_names[k])) return k_names[k];
  return NULL;
}

static int run(void *settings, const kg_cmd_call *call) {
  (void)call;
  const bisect_args *a = settings;
  char err[600], good[256] = "", bad[256] = "", changed[512] = "";
  if (validate(a, err, sizeof err)) return fprintf(stderr, "kgate: %s\n", err), KG_EXIT_USAGE;
  const char *oidc = oidc_in_env();
  if (oidc)
    return fprintf(stderr,
                   "kgate: bisect: the environment holds %s: this job can mint an OIDC token, and bisect builds "
                   "code; run it in a job without id-token: write (docs/bisect.md)\n",
                   oidc),
           KG_EXIT_ENV;
  kg_bisect_cell *cells = NULL;
  size_t ncells = 0;
  double estimate = a->effect > 0 ? log1p(a->effect) : 0, found_estimate = 0;
  int rc = a->history ? from_finding(a, good, bad, sizeof good, &cells, &ncells, &found_estimate, changed,
                                     sizeof changed, err, sizeof err)
                      : cells_given(a, &cells, &ncells, err, sizeof err) ? 2 : 0;
  if (rc) return fprintf(stderr, "kgate: %s\n", err), rc;
  if (!a->history) snprintf(good, sizeof good, "%s", a->good), snprintf(bad, sizeof bad, "%s", a->bad);
  if (!estimate) estimate = found_estimate;
  rc = bisect(a, good, bad, cells, ncells, estimate, changed);
  free(cells);
  return rc;
}

/* The paired runs are a kgate run's: another kgate's (--kgate) leaves this
 * one no device work, so the host-only build can drive a GPU build's. */
static int gpu_free(const void *settings) { return ((const bisect_args *)settings)->kgate != NULL; }

const kg_cmd cmd_bisect = {KG_CMD_ROWS(k_rows), .size = sizeof(bisect_args), .run = run, .gpu_free = gpu_free};
