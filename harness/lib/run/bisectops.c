/* kgate bisect on a real repository (bisectops.h). */
#include "bisectops.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "fileio.h"
#include "paired.h"
#include "results.h"

enum { OUT_LIMIT = 64 << 20, MODULE_LIMIT = 1 << 30 };

extern char **environ;

const char *kg_bisect_why_bad_rev(const char *s) {
  size_t n = strlen(s);
  if (!n || n > 200) return "must be 1 to 200 characters";
  if (s[0] == '-') return "must not start with '-'";
  if (strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/~^-") != n)
    return "may hold only letters, digits and ._/~^-";
  if (strstr(s, "..")) return "must be one commit, not a range";
  return NULL;
}

/* The program name on PATH, into out. 0 or -1. */
static int which(const char *name, char *out, size_t len) {
  const char *path = getenv("PATH");
  for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
    size_t k = strcspn(p, ":");
    snprintf(out, len, "%.*s/%s", (int)k, p, name);
    if (k && access(out, X_OK) == 0) return 0;
    p += k + (p[k] == ':');
  }
  return -1;
}

/* Runs argv in dir (NULL: here) with stdin from /dev/null, stderr to logfd
 * (-1: this process's), stdout captured into *out (malloc'ed,
 * NUL-terminated) when out, else to logfd, and this process's environment
 * without a token or a secret (kg_env_scrubbed): git, the builds and the
 * paired runs, which load the built modules, alike. The exit status, or -1
 * when it could not start or died of a signal. */
static int run_prog(char *const argv[], const char *dir, int logfd, char **out) {
  char **env = kg_env_scrubbed(environ);
  if (!env) return -1;
  int fds[2] = {-1, -1}, null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out && pipe2(fds, O_CLOEXEC)) return close(null), free(env), -1;
  kg_spawn_opts so = {{null, out ? fds[1] : logfd, logfd}, dir, 0, 1, "bisect", env};
  pid_t pid = kg_spawn(argv, &so);
  free(env);
  if (null >= 0) close(null);
  if (out) close(fds[1]);
  size_t len = 0, cap = 4096;
  char *buf = out ? malloc(cap) : NULL;
  while (out && buf && pid > 0) {
    if (len + 1 == cap) {
      char *b = cap < OUT_LIMIT ? realloc(buf, cap *= 2) : NULL;
      if (!b) break;
      buf = b;
    }
    ssize_t got = read(fds[0], buf + len, cap - 1 - len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    len += (size_t)got;
  }
  if (out) close(fds[0]);
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (out) {
    if (buf) buf[len] = '\0';
    *out = buf;
  }
  if (pid <= 0 || (out && !buf)) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* git with args in repo: its stdout in *out when out; its exit status, or -1 (no git). */
static int git(const char *repo, const char *const *args, int logfd, char **out) {
  char prog[PATH_MAX], *argv[24];
  size_t a = 0;
  if (which("git", prog, sizeof prog)) return -1;
  argv[a++] = prog, argv[a++] = "-C", argv[a++] = (char *)repo;
  for (size_t k = 0; args[k] && a < sizeof argv / sizeof *argv - 1; k++) argv[a++] = (char *)args[k];
  argv[a] = NULL;
  return run_prog(argv, NULL, logfd, out);
}

/* The full id git gives rev (rev^{commit}), into id. 0, 2 unknown, 3 no git. */
static int resolve(const char *repo, const char *rev, char id[41], char *err, size_t errlen) {
  char spec[256], *out = NULL;
  snprintf(spec, sizeof spec, "%s^{commit}", rev);
  const char *args[] = {"rev-parse", "--verify", "--quiet", spec, NULL};
  int rc = git(repo, args, -1, &out);
  if (rc < 0) return free(out), snprintf(err, errlen, "cannot run git (not on PATH)"), 3;
  int ok = rc == 0 && out && strspn(out, "0123456789abcdef") == 40;
  if (ok) memcpy(id, out, 40), id[40] = '\0';
  free(out);
  if (!ok) return snprintf(err, errlen, "%s: no commit '%s' in this repository", repo, rev), 2;
  return 0;
}

/* Whether older (40 hex) is on newer's first-parent history: newer itself,
 * or the first parent of the oldest commit of `rev-list --first-parent
 * --ancestry-path older..newer`. 1, 0, or -1 (git failed). */
static int on_first_parents(const char *repo, const char *older, const char *newer) {
  char range[90], spec[48], parent[41], err[300], *out = NULL;
  if (!strcmp(older, newer)) return 1;
  snprintf(range, sizeof range, "%s..%s", older, newer);
  const char *args[] = {"rev-list", "--reverse", "--first-parent", "--ancestry-path", range, NULL};
  if (git(repo, args, -1, &out) != 0 || !out) return free(out), -1;
  int ok = strspn(out, "0123456789abcdef") == 40;
  if (ok) snprintf(spec, sizeof spec, "%.40s^1", out);
  free(out);
  if (!ok) return 0; /* nothing between: older is no ancestor of newer */
  if (resolve(repo, spec, parent, err, sizeof err)) return 0;
  return !strcmp(parent, older);
}

int kg_bisect_is_merge(const char *repo, const char *commit) {
  char spec[48], id[41], err[300];
  if (kg_bisect_why_bad_rev(commit)) return -1;
  snprintf(spec, sizeof spec, "%.40s^2", commit);
  return resolve(repo, spec, id, err, sizeof err) == 0;
}

void kg_bisect_range_free(char **ids, size_t n) {
  for (size_t i = 0; ids && i < n; i++) free(ids[i]);
  free(ids);
}

int kg_bisect_range(const char *repo, const char *good, const char *bad, const char *within, int enter_merges,
                    char ***ids, size_t *n, char *err, size_t errlen) {
  char g[41], b[41], w[41], range[90], *out = NULL;
  int rc = resolve(repo, good, g, err, errlen);
  if (!rc) rc = resolve(repo, bad, b, err, errlen);
  if (!rc && within) rc = resolve(repo, within, w, err, errlen);
  if (rc) return rc;
  const char *anc[] = {"merge-base", "--is-ancestor", b, w, NULL};
  if (within && (enter_merges ? git(repo, anc, -1, NULL) != 0 : on_first_parents(repo, b, w) != 1))
    return snprintf(err, errlen, "%s is not in the %shistory of %s (--within)", bad,
                    enter_merges ? "" : "first-parent ", within),
           2;
  snprintf(range, sizeof range, "%s..%s", g, b);
  /* The first parents: each commit of the protected branch, a reviewed merge or squash, never a merged
   * branch's own commits, which nobody reviewed one by one (unless enter_merges). */
  const char *args[] = {"rev-list", "--reverse", "--ancestry-path", enter_merges ? range : "--first-parent",
                        enter_merges ? NULL : range, NULL};
  if (git(repo, args, -1, &out) != 0) return free(out), snprintf(err, errlen, "git rev-list %s failed", range), 3;
  size_t cap = 16, k = 0;
  char **v = malloc(cap * sizeof *v);
  if (v) v[k++] = strdup(g);
  for (char *p = out; v && *p;) {
    size_t len = strcspn(p, "\n");
    if (len != 40 || strspn(p, "0123456789abcdef") < 40) break;
    if (k == cap) {
      char **w = realloc(v, (cap *= 2) * sizeof *v);
      if (!w) break;
      v = w;
    }
    v[k++] = strndup(p, 40);
    p += len + (p[len] == '\n');
  }
  free(out);
  if (!v) return snprintf(err, errlen, "out of memory"), 3;
  for (size_t i = 0; i < k; i++)
    if (!v[i]) return kg_bisect_range_free(v, k), snprintf(err, errlen, "out of memory"), 3;
  const char *desc[] = {"merge-base", "--is-ancestor", g, b, NULL};
  if (strcmp(v[k - 1], b) && (enter_merges || git(repo, desc, -1, NULL) != 0)) {
    kg_bisect_range_free(v, k);
    return snprintf(err, errlen, "--bad %s is not a descendant of --good %s", bad, good), 2;
  }
  if (!enter_merges && (strcmp(v[k - 1], b) || (k > 1 && on_first_parents(repo, g, b) != 1))) {
    kg_bisect_range_free(v, k);
    return snprintf(err, errlen,
                    "--good %s is not on the first-parent history of --bad %s (a merged branch's own commit: "
                    "--enter-merges, on an untrusted runner with no token, docs/bisect.md)",
                    good, bad),
           2;
  }
  *ids = v, *n = k;
  return 0;
}

/* work/what into buf. */
static const char *in_work(const kg_bisect_repo *r, const char *what, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s", r->work, what);
  return buf;
}

/* A log file in work/logs, opened for appending: its descriptor or -1. */
static int open_log(const kg_bisect_repo *r, const char *name) {
  char p[PATH_MAX + 64], f[128];
  snprintf(f, sizeof f, "logs/%s.log", name);
  return open(in_work(r, f, p, sizeof p), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

int kg_bisect_repo_open(kg_bisect_repo *r, char *err, size_t errlen) {
  static const char *const k_dirs[] = {"cache", "logs", "build", "runs"};
  char p[PATH_MAX + 64];
  for (size_t k = 0; k < sizeof k_dirs / sizeof *k_dirs; k++)
    if (kg_mkdirs(in_work(r, k_dirs[k], p, sizeof p), err, errlen)) return -1;
  int log = open_log(r, "worktree");
  const char *rm[] = {"worktree", "remove", "--force", in_work(r, "tree", p, sizeof p), NULL};
  const char *prune[] = {"worktree", "prune", NULL};
  git(r->repo, rm, log, NULL), git(r->repo, prune, log, NULL);
  const char *add[] = {"worktree", "add", "--detach", "--force", p, r->ids[0], NULL};
  int rc = git(r->repo, add, log, NULL);
  if (log >= 0) close(log);
  if (rc) return snprintf(err, errlen, "git worktree add %s failed (see %s/logs/worktree.log)", p, r->work), -1;
  return 0;
}

void kg_bisect_repo_close(kg_bisect_repo *r) {
  char p[PATH_MAX + 64];
  const char *rm[] = {"worktree", "remove", "--force", in_work(r, "tree", p, sizeof p), NULL};
  git(r->repo, rm, -1, NULL);
}

/* The cache key of commit id: SHA-256 of the build command, the module's
 * path and the listing of the sources' blobs at id. 0 or -1 (why). */
static int cache_key(const kg_bisect_repo *r, const char *id, char hex[65], char *why, size_t wlen) {
  const char *args[8 + 64] = {"ls-tree", "-r", "--full-tree", id, "--"};
  size_t a = 5;
  for (size_t k = 0; k < r->nsource && a < sizeof args / sizeof *args - 1; k++) args[a++] = r->source[k];
  args[a] = NULL;
  char *out = NULL;
  if (git(r->repo, args, -1, &out) != 0 || !out)
    return free(out), snprintf(why, wlen, "git ls-tree %.12s failed", id), -1;
  struct sha256_ctx c;
  sha256_init(&c);
  sha256_update(&c, strlen(r->build_cmd) + 1, (const uint8_t *)r->build_cmd);
  sha256_update(&c, strlen(r->module) + 1, (const uint8_t *)r->module);
  sha256_update(&c, strlen(out), (const uint8_t *)out);
  free(out);
  unsigned char d[SHA256_DIGEST_SIZE];
  sha256_digest(&c, sizeof d, d);
  for (size_t i = 0; i < sizeof d; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
  return 0;
}

/* Copies from to to through a temporary beside it and a rename. 0 or -1. */
static int copy_in(const char *from, const char *to, char *why, size_t wlen) {
  char *data = NULL, tmp[2 * PATH_MAX + 200];
  size_t len = 0;
  if (kg_read_file(from, MODULE_LIMIT, &data, &len, why, wlen)) return -1;
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", to, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  int ok = f && fwrite(data, 1, len, f) == len;
  ok = f && fclose(f) == 0 && ok && rename(tmp, to) == 0;
  free(data);
  if (!ok) remove(tmp), snprintf(why, wlen, "cannot write %s: %s", to, strerror(errno));
  return ok ? 0 : -1;
}

static int build(void *ctx, size_t i, char *module, size_t len, char *why, size_t wlen) {
  kg_bisect_repo *r = ctx;
  const char *id = r->ids[i];
  char key[65], cached[PATH_MAX + 128], failed[PATH_MAX + 128], tree[PATH_MAX + 64], bdir[PATH_MAX + 64];
  if (cache_key(r, id, key, why, wlen)) return -1;
  snprintf(cached, sizeof cached, "%s/cache/%s.so", r->work, key);
  snprintf(failed, sizeof failed, "%s/cache/%s.failed", r->work, key);
  snprintf(module, len, "%s", cached);
  if (access(cached, R_OK) == 0) {
    r->cached++;
    if (r->log) fprintf(r->log, "kgate: bisect: %.12s: built before (cache %.12s)\n", id, key);
    return 0;
  }
  if (access(failed, F_OK) == 0)
    return snprintf(why, wlen, "%.12s: its sources failed to build before (cache %.12s)", id, key), 1;
  char logname[64];
  snprintf(logname, sizeof logname, "build-%.12s", id);
  int log = open_log(r, logname);
  const char *co[] = {"checkout", "--quiet", "--detach", "--force", id, NULL};
  in_work(r, "tree", tree, sizeof tree), in_work(r, "build", bdir, sizeof bdir);
  if (git(tree, co, log, NULL) != 0) {
    if (log >= 0) close(log);
    return snprintf(why, wlen, "git checkout %.12s failed (see %s/logs/%s.log)", id, r->work, logname), -1;
  }
  setenv("KGATE_BISECT_COMMIT", id, 1), setenv("KGATE_BISECT_BUILD", bdir, 1), setenv("KGATE_BISECT_WORKTREE", tree, 1);
  char *argv[] = {"/bin/sh", "-c", (char *)r->build_cmd, NULL};
  if (r->log) fprintf(r->log, "kgate: bisect: %.12s: building\n", id);
  r->made++;
  int rc = run_prog(argv, tree, log, NULL);
  if (log >= 0) close(log);
  if (rc < 0) return snprintf(why, wlen, "cannot run /bin/sh for the build"), -1;
  char built[2 * PATH_MAX + 128];
  if (r->module[0] == '/') snprintf(built, sizeof built, "%s", r->module);
  else snprintf(built, sizeof built, "%s/%s", bdir, r->module);
  if (rc == 0 && access(built, R_OK)) rc = -2;
  if (rc) { /* remembered, so a later bisect of the same sources skips it at once */
    FILE *f = fopen(failed, "w");
    if (f) fclose(f);
    if (rc == -2) return snprintf(why, wlen, "%.12s: the build left no %s", id, built), 1;
    return snprintf(why, wlen, "%.12s: the build exited %d (see %s/logs/%s.log)", id, rc, r->work, logname), 1;
  }
  return copy_in(built, cached, why, wlen) ? -1 : 0;
}

static int fingerprint(void *ctx, const char *module, char hex[65], char *why, size_t wlen) {
  kg_bisect_repo *r = ctx;
  return kg_fprint_module(module, &r->fp, hex, r->fp_how, sizeof r->fp_how, why, wlen);
}

static int wanted(const kg_bisect_repo *r, const kg_pair_cell *c) {
  for (size_t k = 0; k < r->ncells; k++) {
    const kg_bisect_cell *w = &r->cells[k];
    if (!strcmp(w->variant, c->variant) && (w->dtype == KG_NDTYPES || w->dtype == c->dtype) && (!w->n || w->n == c->n))
      return 1;
  }
  return 0;
}

/* "a,b,c" of the cells' distinct values into buf: variants (what 0), dtypes (1), sizes (2); "" when one is any. */
static void cell_list(const kg_bisect_repo *r, int what, char *buf, size_t len) {
  buf[0] = '\0';
  for (size_t k = 0; k < r->ncells; k++) {
    const kg_bisect_cell *c = &r->cells[k];
    char v[72];
    if ((what == 1 && c->dtype == KG_NDTYPES) || (what == 2 && !c->n)) return (void)(buf[0] = '\0');
    if (what == 0) snprintf(v, sizeof v, "%s", c->variant);
    else if (what == 1) snprintf(v, sizeof v, "%s", kg_dtype_get(c->dtype)->name);
    else snprintf(v, sizeof v, "%zu", c->n);
    size_t vl = strlen(v), at = 0, have = 0;
    for (const char *p = buf; *p && !have; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
      have = strcspn(p, ",") == vl && !strncmp(p, v, vl);
    at = strlen(buf);
    if (!have) snprintf(buf + at, len - at, "%s%s", at ? "," : "", v);
  }
}

static int measure(void *ctx, const char *head, const char *base, kg_bisect_pool *pool, char *why, size_t wlen) {
  kg_bisect_repo *r = ctx;
  char json[PATH_MAX + 64], name[32], dev[16], rounds[16], variants[1024], dtypes[128], sizes[512];
  int k = ++r->runs;
  snprintf(name, sizeof name, "runs/%d.json", k);
  in_work(r, name, json, sizeof json);
  snprintf(dev, sizeof dev, "%d", r->device), snprintf(rounds, sizeof rounds, "%d", r->rounds);
  cell_list(r, 0, variants, sizeof variants), cell_list(r, 1, dtypes, sizeof dtypes),
      cell_list(r, 2, sizes, sizeof sizes);
  char *argv[32] = {(char *)r->kgate, "run", "--lint", "off", "-q", "-d", dev, "--rounds", rounds,
                    r->own ? "--own-kernels" : "--kernels", (char *)head, "--base-kernels", (char *)base,
                    "--variant", variants, "--sizes", "1", "--json", json};
  int a = 19;
  if (dtypes[0]) argv[a++] = "--dtype", argv[a++] = dtypes;
  if (sizes[0]) argv[a++] = "--perf-sizes", argv[a++] = sizes;
  argv[a] = NULL;
  snprintf(name, sizeof name, "run-%d", k);
  int logfd = open_log(r, name);
  remove(json);
  int rc = run_prog(argv, NULL, logfd, NULL);
  if (logfd >= 0) close(logfd);
  kg_run run;
  char err[512];
  if (kg_results_read(json, &run, err, sizeof err))
    return snprintf(why, wlen, "paired run %d exited %d with no results (see %s/logs/%s.log): %.200s", k, rc, r->work,
                    name, err),
           -1;
  int before = pool->cells;
  for (size_t i = 0; i < run.npairs; i++) {
    const kg_pair_cell *c = &run.pairs[i];
    const kg_pair_stat *s = &c->stat;
    if (!wanted(r, c)) continue;
    if (s->verdict == KG_PV_UNCHANGED) kg_bisect_pool_add(pool, 0, 0, 0);
    else if (s->verdict <= KG_PV_UNDECIDED && s->blocks >= 2 && s->lo > 0 && s->hi > s->lo)
      kg_bisect_pool_add(pool, log(s->ratio),
                         (log(s->hi) - log(s->lo)) / (2 * kg_student_t(run.pair.confidence, s->blocks - 1)),
                         s->blocks - 1);
  }
  kg_run_free(&run);
  if (r->log) fprintf(r->log, "kgate: bisect: paired run %d: %d cells\n", k, pool->cells - before);
  if (pool->cells == before)
    return snprintf(why, wlen, "paired run %d timed none of the cells (see %s/logs/%s.log)", k, r->work, name), -1;
  return 0;
}

kg_bisect_ops kg_bisect_repo_ops(kg_bisect_repo *r) { return (kg_bisect_ops){r, build, fingerprint, measure}; }
