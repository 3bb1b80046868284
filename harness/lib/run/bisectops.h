/* kgate bisect on a real repository: the range's commits from git, each
 * commit's module built in one git worktree by the caller's build command
 * (a cache keyed by the module's sources), its fingerprint (fprint.h), and
 * two modules paired by a child `kgate run` whose results file gives each
 * cell's interval (bisect.h's kg_bisect_ops, docs/bisect.md).
 *
 * Text from the finding or the repository is data: commit ids go to git as
 * single arguments after validation and to the build through the
 * environment (KGATE_BISECT_COMMIT), never through a shell; only the build
 * command itself, the caller's own, is given to sh -c. */
#ifndef KG_BISECTOPS_H
#define KG_BISECTOPS_H

#include <stddef.h>
#include <stdio.h>

#include "bisect.h"
#include "dtype.h"
#include "fprint.h"

/* A cell to pair (variant, dtype, n); dtype KG_NDTYPES and n 0 match any. */
typedef struct kg_bisect_cell {
  char variant[64];
  kg_dtype dtype;
  size_t n;
} kg_bisect_cell;

typedef struct kg_bisect_repo {
  const char *repo;      /* the repository's folder */
  const char *work;      /* the bisect's folder: the worktree, the build folder, the cache, logs */
  const char *build_cmd; /* sh -c text, run in the worktree at the commit */
  const char *module;    /* the module the build leaves: relative to the build folder, or absolute */
  const char *const *source; /* paths whose content keys the cache (NULL: the whole tree) */
  size_t nsource;
  char **ids;            /* the range, oldest first: 40 hex digits each (kg_bisect_range) */
  size_t n;
  kg_fprint_opts fp;
  /* the paired runs */
  const char *kgate;     /* the kgate that runs them */
  int own;               /* the module is kgate's own (--own-kernels), not a team's (--kernels) */
  int device, rounds;    /* -d, --rounds of each run */
  const kg_bisect_cell *cells;
  size_t ncells;
  FILE *log;             /* a line per build and run, or NULL */
  int runs;              /* paired runs made (their logs are numbered) */
  char fp_how[64];       /* how the modules were fingerprinted (kg_fprint_module's how) */
  int made, cached;      /* builds run, and modules the cache had */
} kg_bisect_repo;

/* Whether s can name a commit to git: 1..200 of [A-Za-z0-9._/~^-], not
 * starting with '-' (not an option), no "..". NULL, or why not. */
const char *kg_bisect_why_bad_rev(const char *s);

/* The commits from good to bad, oldest first, both included: good, then
 * `git rev-list --reverse --first-parent --ancestry-path good..bad` (good
 * alone when it is bad): the protected branch's own commits, each a reviewed
 * merge or squash, never the commits a merge brought in; good must be on
 * bad's first-parent history. enter_merges: the whole ancestry path, a merged
 * branch's own commits included (code nobody reviewed: an untrusted runner's
 * step). With within (NULL: any), bad must be in within's history (the
 * nightly: its default branch, so no other branch's code is built). 0 with
 * *ids (n of them, kg_bisect_range_free), 2 bad input (a commit git does not
 * know, bad not after good, good off bad's first parents, bad outside within)
 * or 3 environment (no git), with a one-line err. */
int kg_bisect_range(const char *repo, const char *good, const char *bad, const char *within, int enter_merges,
                    char ***ids, size_t *n, char *err, size_t errlen);

/* Whether commit (40 hex) has more than one parent: 1, 0, or -1 (git failed). */
int kg_bisect_is_merge(const char *repo, const char *commit);
void kg_bisect_range_free(char **ids, size_t n);

/* Prepares work (the worktree at ids[0], the folders): 0, or -1 with err. */
int kg_bisect_repo_open(kg_bisect_repo *r, char *err, size_t errlen);
/* Removes the worktree (the cache stays for the next bisect). */
void kg_bisect_repo_close(kg_bisect_repo *r);

/* The ops over r (ctx = r). */
kg_bisect_ops kg_bisect_repo_ops(kg_bisect_repo *r);

#endif
