/* kgate: a thin main over the harness library; `kgate worker` is the
 * hidden sub-command the supervisor re-executes for its CUDA workers. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "worker.h"

int main(int argc, char **argv) {
  kg_cli cli;
  char err[256];
  if (kg_cli_parse(argc, argv, &cli, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    kg_cli_free(&cli);
    return KG_EXIT_USAGE;
  }
  kg_worker_opts wo = {.device = cli.device, .roofline = cli.roofline, .own_kernels = cli.own_kernels,
                       .nkernels = cli.nkernels, .nbase = cli.nbase, .describe = cli.describe};
  memcpy(wo.kernels, cli.kernels, sizeof wo.kernels);
  memcpy(wo.base_kernels, cli.base_kernels, sizeof wo.base_kernels);
  int code = cli.cmd == KG_CMD_WORKER ? kg_worker_main(&wo) : kg_cli_run(&cli);
  kg_cli_free(&cli);
  return code;
}
