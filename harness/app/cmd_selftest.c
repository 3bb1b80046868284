/* kgate selftest: the planted bugs through the checks that must catch them
 * (selftest.c). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "exitcode.h"
#include "options.h"
#include "sanitize.h"
#include "selftest.h"
#include "settings.h"
#include "supervisor.h"
#include "workers.h"

#define KG_SETTINGS kg_selftest_opts
static const kg_opt k_rows[] = {
#define KG_GATE_OPTION(check, run, selftest, list, ...) KG_IF(selftest, __VA_ARGS__)
#include "gate_options.def"
#undef KG_GATE_OPTION
};

/* Its own defaults, after the rows': --timeout 20 s (check's 60 is long for
 * the hanging mutant), and the sequential decision of the pull-request gate. */
static void init(void *settings) {
  kg_selftest_opts *o = settings;
  o->timeout_s = 20;
  o->paired.pair.quads = KG_PAIR_QUADS;
  o->paired.sequential = 1;
}

/* The worker's command line with the planted bugs' module (their own, which
 * no other command loads). NULL after saying why. */
static char *const *mutant_worker(const kg_selftest_opts *so, const char *worker, kg_modules *mods, char *mutants,
                                  kg_worker_cmd *cmd) {
  char err[512];
  *mods = so->mods;
  if (!mods->mutants && kg_module_default_path_of(KG_SELFTEST_MODULE_FILE, mutants, PATH_MAX, err, sizeof err)) {
    fprintf(stderr, "kgate: selftest needs the planted bugs' module: %s (build kgate with -DKGATE_SELFTEST=ON, or "
            "give --mutant-kernels)\n", err);
    return NULL;
  }
  if (!mods->mutants) mods->mutants = mutants;
  return kg_worker_cmd_make(cmd, worker, so->device, 0, mods, 0, 0);
}

static int selftest(const kg_selftest_opts *so) {
  char self[PATH_MAX], san[PATH_MAX], mutants[PATH_MAX], err[512], why[512] = "";
  const char *worker = kg_worker_path(&so->mods, self, sizeof self, stderr);
  if (!worker) return KG_EXIT_ENV;
  /* --kernels: the controls run with the modules loaded beside kgate's own */
  if (kg_load_modules(&so->mods, worker, NULL, NULL, NULL, stderr)) return KG_EXIT_USAGE;
  kg_modules mods;
  kg_worker_cmd cmd;
  char *const *argv = mutant_worker(so, worker, &mods, mutants, &cmd);
  if (!argv) return KG_EXIT_ENV;
  int have_san = kg_san_find(san, sizeof san, why, sizeof why) == 0;
  if (!have_san) fprintf(stderr, "kgate: %s: the sanitizer mutants will not run\n", why);
  /* the fence mutants: the lint of their module */
  kg_st_opts o = {.worker_argv = argv, .sanitizer = have_san ? san : NULL, .only = so->only, .huge = so->huge,
                  .timeout_s = so->timeout_s, .quiet = so->quiet, .paired = so->paired, .lint_module = mods.mutants};
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

static int run(void *settings, const kg_cmd_call *call) {
  (void)call;
  kg_super_trap(1);
  int code = selftest(settings);
  if (kg_super_interrupted()) code = KG_EXIT_SIGNAL + kg_super_interrupted();
  kg_super_trap(0);
  return code;
}

const kg_cmd cmd_selftest = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_selftest_opts), .init = init, .run = run};
