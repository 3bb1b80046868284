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

/* --sanitize: worker_argv runs the worker under compute-sanitizer, which
 * writes its reports to log (--log-file; its default, stdout, is the
 * protocol's pipe). The file is emptied before each worker starts and read
 * after every case: errors that appeared meanwhile fail that case as
 * "sanitizer (<tool>): <first error> at file:line". Reports that only show up
 * when the worker exits (exit status exit_code) fail the last case it ran. */
typedef struct kg_super_san {
  const char *log;
  const char *tool;  /* the tool's name, for messages */
  int exit_code;     /* compute-sanitizer's --error-exitcode */
  int fresh_worker;  /* one worker per case: exact attribution, slower */
  int exact_alloc;   /* ask the worker for exact-size device buffers (proto.h) */
  /* Reads len bytes of the log: 1 with the first error in first when they
   * report errors, else 0 (kg_san_scan in sanitize.h). */
  int (*scan)(const char *text, size_t len, char *first, size_t firstlen);
} kg_super_san;

/* Runs every supported case and fills results[i] for cases[i] (unsupported
 * ones get KG_ST_UNSUPPORTED without a worker). Returns 0, or -1 when no
 * worker can start (no GPU, missing program): err then holds the worker's
 * one-line reason, and cases not run stay KG_ST_PENDING. */
int kg_supervise(const kg_case *cases, size_t ncases, const kg_run_params *p, const kg_super_opts *o,
                 kg_result *results, kg_device_info *dev, char *err, size_t errlen);
/* The same, sanitized (san may be NULL: then exactly kg_supervise). */
int kg_supervise_san(const kg_case *cases, size_t ncases, const kg_run_params *p, const kg_super_opts *o,
                     const kg_super_san *san, kg_result *results, kg_device_info *dev, char *err, size_t errlen);

#endif
