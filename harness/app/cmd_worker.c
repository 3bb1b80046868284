/* kgate worker: the hidden command the supervisor starts, one process per
 * device, that runs the cases on the GPU (harness/device/worker.c). Its
 * rows are never in the help. */
#include "exitcode.h"
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

static int run(void *settings, const kg_cmd_call *call) {
  return call->worker_main ? call->worker_main(settings) : KG_EXIT_ENV;
}

const kg_cmd cmd_worker = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_worker_opts), .run = run};
