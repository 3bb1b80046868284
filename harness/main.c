/* kgate: a thin main over the harness library; `kgate worker` is the
 * hidden sub-command the supervisor re-executes for its CUDA workers. */
#include <stdio.h>

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
  kg_worker_opts wo = {cli.device, cli.roofline, cli.kernels, cli.base_kernels, cli.describe};
  int code = cli.cmd == KG_CMD_WORKER ? kg_worker_main(&wo) : kg_cli_run(&cli);
  kg_cli_free(&cli);
  return code;
}
