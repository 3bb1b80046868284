/* kgate list: the variants, kgate's own and the --kernels modules'. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "exitcode.h"
#include "options.h"
#include "varreg.h"
#include "report.h"
#include "settings.h"
#include "workers.h"

typedef struct list_opts {
  kg_modules mods;
  const char *json; /* --json FILE ("-" for stdout) */
} list_opts;

#define KG_SETTINGS list_opts
static const kg_opt k_rows[] = {
#define KG_GATE_OPTION(check, run, selftest, list, ...) KG_IF(list, __VA_ARGS__)
#include "gate_options.def"
#undef KG_GATE_OPTION
};

static int run(void *settings, const kg_cmd_call *call) {
  (void)call;
  const list_opts *o = settings;
  char self[PATH_MAX], err[512];
  const char *worker = o->mods.nkernels ? kg_worker_path(&o->mods, self, sizeof self, stderr) : "";
  if (!worker) return KG_EXIT_ENV;
  if (kg_load_modules(&o->mods, worker, NULL, NULL, NULL, stderr)) return KG_EXIT_USAGE;
  if (!o->json || strcmp(o->json, "-")) kg_report_list(stdout); /* --json -: stdout is the JSON alone */
  if (o->json && kg_variants_write(o->json, err, sizeof err)) return fprintf(stderr, "kgate: %s\n", err), KG_EXIT_USAGE;
  return KG_EXIT_OK;
}

const kg_cmd cmd_list = {KG_CMD_ROWS(k_rows), .size = sizeof(list_opts), .run = run};
