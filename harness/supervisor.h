/* The supervisor: runs cases in worker processes and survives their deaths.
 * It never touches CUDA. A worker that crashes, reports a CUDA error or
 * outlives the watchdog fails only the case it was on; a fresh worker goes on
 * with the rest. */
#ifndef KG_SUPERVISOR_H
#define KG_SUPERVISOR_H

#include <stddef.h>

#include "plan.h"
#include "proto.h"

typedef struct kg_super_opts {
  char *const *worker_argv; /* argv[0] is the worker program's path */
  double timeout_s;         /* watchdog for one case */
  double start_timeout_s;   /* watchdog for a worker's hello */
  void (*progress)(void *ctx, size_t done, size_t total, const kg_case *c, const kg_result *r);
  void *progress_ctx;
} kg_super_opts;

/* Runs every supported case and fills results[i] for cases[i] (unsupported
 * ones get KG_ST_UNSUPPORTED without a worker). Returns 0, or -1 when no
 * worker can start (no GPU, missing program): err then holds the worker's
 * one-line reason, and cases not run stay KG_ST_PENDING. */
int kg_supervise(const kg_case *cases, size_t ncases, const kg_run_params *p, const kg_super_opts *o,
                 kg_result *results, kg_device_info *dev, char *err, size_t errlen);

#endif
