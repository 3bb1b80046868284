/* kgate worker: the hidden command the supervisor starts, one process per
 * device, that runs the cases on the GPU (harness/device/worker.c). Its
 * rows are never in the help. */
#include <stdio.h>
#include <stdlib.h>

#include "exitcode.h"
#include "modload.h"
#include "proto.h"
#include "options.h"

#define KG_SETTINGS kg_worker_opts
static const kg_opt k_rows[] = {
    KG_OPTION("--device", "-d", OPT_INT(device, 0, 1023, 0), "N", NULL),
    KG_OPTION("--roofline", NULL, OPT_FLAG(roofline), NULL, NULL),
    KG_OPTION("--kernels", NULL, OPT_MODULES(kernels, nkernels), "PATH.so", NULL),
    KG_OPTION("--own-kernels", NULL, OPT_STR(own_kernels, NULL), "PATH", NULL),
    KG_OPTION("--mutant-kernels", NULL, OPT_STR(mutant_kernels, NULL), "PATH", NULL),
    KG_OPTION("--describe", NULL, OPT_FLAG(describe), NULL, NULL),
    KG_OPTION("--base-kernels", NULL, OPT_MODULES(base_kernels, nbase), "PATH", NULL),
};

/* --describe touches no GPU: the host-only build describes the --kernels and
 * --base-kernels modules itself (kgate's own module is not there), so
 * `list --kernels` and a team's load test run on a machine without CUDA. */
static int describe(const kg_worker_opts *o) {
  kg_module_set set;
  char err[1024], *line = NULL;
  int loaded = kg_module_set_load(&set, NULL, o->kernels, o->nkernels, o->base_kernels, o->nbase, err, sizeof err) == 0;
  line = loaded ? kg_module_describe(set.mod, set.role, (size_t)set.nmods) : kg_proto_encode_fatal(err);
  int code = loaded && line ? KG_EXIT_OK : KG_EXIT_USAGE;
  if (line) puts(line);
  free(line);
  kg_module_set_close(&set);
  return code;
}

static int run(void *settings, const kg_cmd_call *call) {
  const kg_worker_opts *o = settings;
  if (call->worker_main) return call->worker_main(o);
  return o->describe ? describe(o) : KG_EXIT_ENV;
}

static int gpu_free(const void *settings) { return ((const kg_worker_opts *)settings)->describe; }

const kg_cmd cmd_worker = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_worker_opts), .run = run, .gpu_free = gpu_free};
