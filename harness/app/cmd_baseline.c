/* kgate baseline update RESULTS: the baseline of its GPU from a fully correct run. */
#include <limits.h>
#include <stdio.h>

#include "baseline.h"
#include "exitcode.h"
#include "options.h"
#include "results.h"
#include "settings.h"

#define KG_SETTINGS kg_baseline_opts
static const kg_opt k_rows[] = {KG_ROW_BASELINE_DIR(baseline_dir)};

/* Merges a fully correct run into DIR/<gpu-slug>.json. */
static int run(void *settings, const kg_cmd_call *call) {
  kg_baseline_opts *bo = settings;
  bo->results = call->args[0];
  char err[512], path[PATH_MAX];
  kg_run r = {0};
  if (kg_results_read(bo->results, &r, err, sizeof err)) return fprintf(stderr, "kgate: %s\n", err), KG_EXIT_USAGE;
  kg_baseline_path(bo->baseline_dir, r.meta.dev.name, path, sizeof path);
  int rc = kg_baseline_update(path, &r, err, sizeof err);
  if (rc) fprintf(stderr, "kgate: %s\n", err);
  else printf("kgate: wrote %s from %s\n", path, bo->results);
  kg_run_free(&r);
  return rc ? KG_EXIT_USAGE : KG_EXIT_OK;
}

const kg_cmd cmd_baseline = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_baseline_opts), .least = 1, .most = 1,
                             .label = "baseline", .needs = "a results file", .run = run};
