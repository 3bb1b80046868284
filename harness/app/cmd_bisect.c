/* kgate bisect: the commit behind a nightly finding or a slow range
 * (docs/bisect.md). The command line, its options in one table, and the
 * exit code; the search is bisect.h, the repository's side bisectops.h,
 * the outputs bisectout.h. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect.h"
#include "bisectops.h"
#include "bisectout.h"
#include "detect.h"
#include "escape.h"
#include "exitcode.h"
#include "fileio.h"
#include "history.h"
#include "sizes.h"

int kg_cmd_bisect(int argc, char **argv);

enum { MAX_LIST = 64 };

typedef struct bisect_args {
  const char *history, *ack, *good, *bad, *variant, *dtype, *size, *build, *module, *repo, *work, *good_module,
      *bad_module, *json, *markdown, *kgate, *link, *within;
  const char *source[MAX_LIST], *match[MAX_LIST];
  size_t nsource, nmatch;
  int finding, arch, rounds, max_rounds, device, own, quiet, help;
  double effect_pct;
} bisect_args;

typedef enum { T_STR, T_LIST, T_INT, T_PCT, T_FLAG } opt_type;

/* An option: its names, what it fills, the range of a number, its help. */
typedef struct opt {
  const char *name, *alias;
  opt_type type;
  size_t at, count_at; /* offsets into bisect_args (count_at: a list's count) */
  int min, max;
  const char *arg, *help;
} opt;

#define S(f) T_STR, offsetof(bisect_args, f), 0, 0, 0
#define L(f, n) T_LIST, offsetof(bisect_args, f), offsetof(bisect_args, n), 0, 0
#define I(f, lo, hi) T_INT, offsetof(bisect_args, f), 0, lo, hi
#define F(f) T_FLAG, offsetof(bisect_args, f), 0, 0, 0
static const opt k_opts[] = {
    {"--history", NULL, S(history), "FILE", "the nightly's history: bisect its newest open regression finding"},
    {"--ack", NULL, S(ack), "FILE", "with --history: the acknowledgements (as history check takes them)"},
    {"--finding", NULL, I(finding, 1, 1000), "K", "with --history: the K-th open regression finding (1, the newest)"},
    {"--good", NULL, S(good), "REV", "the last good commit (instead of --history)"},
    {"--bad", NULL, S(bad), "REV", "the last bad commit (instead of --history)"},
    {"--variant", NULL, S(variant), "LIST", "the variants (with --good/--bad; with --history: only these cells)"},
    {"--dtype", NULL, S(dtype), "LIST", "with --good/--bad: the dtypes (default: every dtype the variant has)"},
    {"--size", NULL, S(size), "N", "with --good/--bad: the input size (default 2^25)"},
    {"--effect", NULL, T_PCT, offsetof(bisect_args, effect_pct), 0, 0, 0, "PCT",
     "the step to look for, percent slower (default: the finding's, or what the reproduction measures)"},
    {"--build", NULL, S(build), "CMD", "the build: sh -c CMD in a worktree at the commit ($KGATE_BISECT_BUILD: its build folder)"},
    {"--module", NULL, S(module), "PATH", "the module the build leaves, relative to $KGATE_BISECT_BUILD"},
    {"--source", NULL, L(source, nsource), "PATH", "a path the module is built from (repeatable; default the whole tree): the build cache's key"},
    {"--repo", NULL, S(repo), "DIR", "the repository (default .)"},
    {"--within", NULL, S(within), "REV", "refuse a range that is not in REV's history (the nightly: its branch)"},
    {"--work", NULL, S(work), "DIR", "the bisect's folder: worktree, build, cache, logs (default .kgate-bisect)"},
    {"--own", NULL, F(own), NULL, "the module is kgate's own kernels (--own-kernels), not a team's (--kernels)"},
    {"--kernel-match", NULL, L(match, nmatch), "TEXT", "fingerprint only kernels whose name holds TEXT (repeatable)"},
    {"--arch", NULL, I(arch, 50, 200), "N", "the architecture whose machine code is fingerprinted (90)"},
    {"--rounds", NULL, I(rounds, 2, 64), "N", "rounds of each paired run (4)"},
    {"--max-rounds", NULL, I(max_rounds, 1, 16), "N", "paired runs per comparison at most, while undecided (4)"},
    {"--device", "-d", I(device, 0, 1024), "N", "the GPU (0)"},
    {"--good-module", NULL, S(good_module), "PATH", "the last good night's own module: reproduce with it"},
    {"--bad-module", NULL, S(bad_module), "PATH", "the last bad night's own module: reproduce with it"},
    {"--json", NULL, S(json), "FILE", "the result as JSON (docs/schema/bisect.schema.json; - for stdout)"},
    {"--markdown", NULL, S(markdown), "FILE", "the result as Markdown (the nightly's step summary)"},
    {"--link", NULL, S(link), "URL", "Markdown: link commits as URL<commit>"},
    {"--kgate", NULL, S(kgate), "PATH", "the kgate that runs the paired runs (default this one)"},
    {"--quiet", "-q", F(quiet), NULL, "no progress lines"},
    {"--help", "-h", F(help), NULL, "this text"},
};
#undef S
#undef L
#undef I
#undef F

static void usage(FILE *f) {
  fputs("usage: kgate bisect (--history FILE [--finding K] | --good REV --bad REV --variant LIST)\n"
        "                    --build CMD --module PATH [options]\n"
        "Names the commit behind a nightly finding or a slow range: reproduce, fingerprint every\n"
        "commit's module, bisect over the distinct machine code with paired runs, verify the culprit\n"
        "against its parent (docs/bisect.md). Exit: 0 found (or the cause is outside the module),\n"
        "4 not reproduced, 1 undecided, 2 bad input, 3 environment.\n\n",
        f);
  for (size_t k = 0; k < sizeof k_opts / sizeof *k_opts; k++) {
    char left[64];
    snprintf(left, sizeof left, "%s%s%s%s%s", k_opts[k].alias ? k_opts[k].alias : "", k_opts[k].alias ? ", " : "",
             k_opts[k].name, k_opts[k].arg ? " " : "", k_opts[k].arg ? k_opts[k].arg : "");
    fprintf(f, "  %-24s %s\n", left, k_opts[k].help);
  }
}

/* One option with its value (NULL for a flag) into a. 0, or -1 with err. */
static int set_opt(const opt *o, const char *v, bisect_args *a, char *err, size_t errlen) {
  char *base = (char *)a, *end = NULL;
  switch (o->type) {
  case T_FLAG: *(int *)(base + o->at) = 1; return 0;
  case T_STR: *(const char **)(base + o->at) = v; return 0;
  case T_LIST: {
    size_t *n = (size_t *)(base + o->count_at);
    if (*n == MAX_LIST) return snprintf(err, errlen, "bisect: %s: at most %d", o->name, MAX_LIST), -1;
    ((const char **)(base + o->at))[(*n)++] = v;
    return 0;
  }
  case T_INT: {
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < o->min || x > o->max)
      return snprintf(err, errlen, "bisect: %s: '%.40s' is not an integer from %d to %d", o->name, v, o->min, o->max), -1;
    *(int *)(base + o->at) = (int)x;
    return 0;
  }
  case T_PCT: {
    double x = strtod(v, &end);
    if (end == v || *end || !(x > 0 && x < 100))
      return snprintf(err, errlen, "bisect: %s: '%.40s' is not a percentage above 0 and below 100", o->name, v), -1;
    *(double *)(base + o->at) = x;
    return 0;
  }
  }
  return -1;
}

static int parse(int argc, char **argv, bisect_args *a, char *err, size_t errlen) {
  *a = (bisect_args){.repo = ".", .work = ".kgate-bisect", .finding = 1, .arch = 90, .rounds = 4, .max_rounds = 4};
  for (int i = 1; i < argc; i++) {
    const opt *o = NULL;
    for (size_t k = 0; !o && k < sizeof k_opts / sizeof *k_opts; k++)
      if (!strcmp(argv[i], k_opts[k].name) || (k_opts[k].alias && !strcmp(argv[i], k_opts[k].alias))) o = &k_opts[k];
    if (!o) return snprintf(err, errlen, "bisect: unrecognized argument '%.60s' (try --help)", argv[i]), -1;
    if (o->type != T_FLAG && i + 1 >= argc) return snprintf(err, errlen, "bisect: %s needs a value", o->name), -1;
    if (set_opt(o, o->type == T_FLAG ? NULL : argv[++i], a, err, errlen)) return -1;
    if (a->help) return 0;
  }
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
  for (size_t k = 0; k < a->nsource; k++)
    if (a->source[k][0] == '-' || !a->source[k][0])
      return snprintf(err, errlen, "bisect: --source '%.60s' must be a path (not empty, not starting with '-')", a->source[k]), -1;
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
    if (!len || len > 63) return free(c), snprintf(err, errlen, "bisect: --variant '%.60s': an empty or long name", a->variant), -1;
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
  if (!rc && !k) rc = 2, snprintf(err, errlen, "%s: the finding has no cell of --variant %.60s", a->history, a->variant);
  if (!rc) {
    const char *g = h.runs[f->last_good].commit, *b = h.runs[f->first_bad].commit, *why;
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
  int rc = kg_bisect_range(a->repo, good, bad, a->within, &ids, &n, err, sizeof err);
  if (rc) return fprintf(stderr, "kgate: bisect: %s\n", err), rc;
  const char *kgate = a->kgate;
  if (!kgate) {
    ssize_t got = readlink("/proc/self/exe", self, sizeof self - 1);
    if (got <= 0) return kg_bisect_range_free(ids, n), fprintf(stderr, "kgate: bisect: cannot find its own executable\n"), 3;
    self[got] = '\0', kgate = self;
  }
  if (kg_mkdirs(a->work, err, sizeof err) || !realpath(a->work, work))
    return kg_bisect_range_free(ids, n), fprintf(stderr, "kgate: bisect: --work %s: %s\n", a->work, err), 3;
  kg_bisect_repo repo = {a->repo, work, a->build, a->module, a->source, a->nsource, ids, n,
                         {a->arch, a->match, a->nmatch}, kgate, a->own, a->device, a->rounds, cells, ncells,
                         a->quiet ? NULL : stderr, 0, "", 0, 0};
  if (kg_bisect_repo_open(&repo, err, sizeof err))
    return kg_bisect_range_free(ids, n), fprintf(stderr, "kgate: bisect: %s\n", err), 3;
  if (!a->quiet) fprintf(stderr, "kgate: bisect: %zu commits from %.12s to %.12s\n", n, ids[0], ids[n - 1]);
  kg_bisect_ops ops = kg_bisect_repo_ops(&repo);
  kg_bisect_opts o = {estimate, 0.99, a->max_rounds, {a->good_module, a->bad_module}, a->quiet ? NULL : log_line, stderr};
  kg_bisect_result r;
  kg_bisect_outcome out = kg_bisect_run(n, &ops, &o, &r);
  snprintf(r.changed, sizeof r.changed, "%s", changed);
  kg_bisect_repo_close(&repo);
  kg_bisect_report rep = {&r,     ids,    cells, ncells, repo.fp_how[0] ? repo.fp_how : NULL, a->link,
                          repo.made, repo.cached};
  kg_bisect_print_term(stdout, &rep);
  int code = kg_bisect_exit(out);
  FILE *md = a->markdown ? fopen(a->markdown, "a") : NULL;
  if (a->markdown && !md) fprintf(stderr, "kgate: bisect: --markdown %s: cannot write it\n", a->markdown), code = 2;
  if (md) kg_bisect_print_md(md, &rep), fclose(md);
  if (a->json && kg_bisect_write_json(a->json, &rep, err, sizeof err))
    fprintf(stderr, "kgate: bisect: --json: %s\n", err), code = 2;
  kg_bisect_result_free(&r);
  kg_bisect_range_free(ids, n);
  return code;
}

int kg_cmd_bisect(int argc, char **argv) {
  bisect_args a;
  char err[600], good[256] = "", bad[256] = "", changed[512] = "";
  if (parse(argc, argv, &a, err, sizeof err)) return fprintf(stderr, "kgate: %s\n", err), KG_EXIT_USAGE;
  if (a.help) return usage(stdout), KG_EXIT_OK;
  kg_bisect_cell *cells = NULL;
  size_t ncells = 0;
  double estimate = a.effect_pct > 0 ? log1p(a.effect_pct / 100) : 0, found_estimate = 0;
  int rc = a.history ? from_finding(&a, good, bad, sizeof good, &cells, &ncells, &found_estimate, changed,
                                    sizeof changed, err, sizeof err)
                     : cells_given(&a, &cells, &ncells, err, sizeof err) ? 2 : 0;
  if (rc) return fprintf(stderr, "kgate: %s\n", err), rc;
  if (!a.history) snprintf(good, sizeof good, "%s", a.good), snprintf(bad, sizeof bad, "%s", a.bad);
  if (!estimate) estimate = found_estimate;
  rc = bisect(&a, good, bad, cells, ncells, estimate, changed);
  free(cells);
  return rc;
}
