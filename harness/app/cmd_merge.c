/* kgate merge A B ... -o ALL: one results file from several (merge.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "exitcode.h"
#include "merge.h"
#include "options.h"
#include "pairrun.h"
#include "results.h"
#include "settings.h"

#define KG_SETTINGS kg_merge_opts
static const kg_opt k_rows[] = {KG_ROW_OUTPUT(out, NULL)};

static int run(void *settings, const kg_cmd_call *call) {
  kg_merge_opts *mo = settings;
  mo->inputs = call->args, mo->ninputs = call->nargs;
  char err[1024];
  kg_run r;
  if (kg_merge_runs(mo->inputs, (size_t)mo->ninputs, &r, err, sizeof err))
    return fprintf(stderr, "kgate: %s\n", err), KG_EXIT_USAGE;
  /* a variant's dtypes pooled: its cells came from several shards, so pooled again as one run pools them */
  int rc = kg_pair_pools(r.pairs, r.npairs, &r.pair, &r.pools, &r.npools);
  if (rc) snprintf(err, sizeof err, "out of memory");
  else rc = kg_results_write(mo->out, &r, err, sizeof err);
  if (rc) fprintf(stderr, "kgate: %s\n", err);
  else if (strcmp(mo->out, "-")) printf("kgate: merged %zu cases from %d files into %s\n", r.n, mo->ninputs, mo->out);
  kg_run_free(&r);
  return rc ? KG_EXIT_USAGE : KG_EXIT_OK;
}

const kg_cmd cmd_merge = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_merge_opts), .least = 2, .most = KG_CLI_MAXARGS,
                          .label = "merge", .needs = "two or more results files",
                          .required = offsetof(kg_merge_opts, out), .required_text = "-o ALL.json", .run = run};
