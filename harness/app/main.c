/* kgate: a thin main over the harness library; `kgate worker` is the
 * hidden sub-command the supervisor re-executes for its CUDA workers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#ifndef KG_HOST_ONLY
#include "worker.h"
#endif

/* What a command printed must have reached standard output: a write that
 * failed there (a full disk, /dev/full, a closed descriptor) is an output
 * that cannot be written, exit 2 (README, exit codes), in one line. A
 * command that already exits 2 has said so for its own output (`--json -`);
 * one that exits 1, 3 or for a signal keeps its code, with the line. */
static int flush_stdout(int code) {
  errno = 0;
  int flushed = fflush(stdout) == 0, e = errno;
  if (flushed && !ferror(stdout)) return code;
  if (code == KG_EXIT_USAGE) return code;
  /* a write that failed while printing left only the stream's error flag, not its errno */
  fprintf(stderr, "kgate: cannot write to standard output: %s\n", !flushed && e ? strerror(e) : "a write failed");
  return code == KG_EXIT_OK || code == KG_EXIT_PERF ? KG_EXIT_USAGE : code;
}

int main(int argc, char **argv) {
  kg_cli cli;
  char err[256];
  if (kg_cli_parse(argc, argv, &cli, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    kg_cli_free(&cli);
    return KG_EXIT_USAGE;
  }
#ifdef KG_HOST_ONLY
  /* The host-only build has no device layer (docs/install.md): commands.def's GPU column. */
  if (kg_cli_needs_gpu(&cli)) {
    fprintf(stderr, "kgate: %s needs a GPU build: this kgate is host-only (built without CUDA)\n", argv[1]);
    kg_cli_free(&cli);
    return KG_EXIT_ENV;
  }
#else
  cli.worker_main = kg_worker_main;
#endif
  int code = kg_cli_run(&cli);
  kg_cli_free(&cli);
  return flush_stdout(code);
}
