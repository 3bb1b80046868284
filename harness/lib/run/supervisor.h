/* The supervisor: runs cases in worker processes and survives their deaths.
 * It never touches CUDA. A worker that crashes, reports a CUDA error or
 * outlives the watchdog fails only the case it was on; a fresh worker goes on
 * with the rest.
 *
 * Process groups. Each worker runs in its own process group (setpgid in the
 * child), and is always ended as a group (kill(-pgid, SIGKILL)): on timeout,
 * on SIGINT/SIGTERM, when it exits by itself and at exit of this process. A
 * worker that forks (compute-sanitizer under --sanitize, a wrapper script)
 * leaves nothing running behind it.
 *
 * The protocol rule (proto.h has the line format and its length limit). A
 * worker speaks only when spoken to: one hello at start, then exactly one
 * line per case it is sent. So:
 *  - a line longer than KG_PROTO_MAX_LINE, or holding a NUL byte, fails the
 *    case in flight ("worker broke the protocol: ...") and ends the worker;
 *  - bytes the worker sent after its answer and before it was sent the next
 *    case (an answer sent twice, trailing junk; found in the buffer or
 *    waiting in the pipe just before the next case goes out) fail the case
 *    that answered, which keeps its place; the worker is ended and the next
 *    case goes to a fresh one;
 *  - a second answer for that case arriving later, while the next case runs,
 *    fails it too ("answered twice"); the case in flight is then run again on
 *    a fresh worker, so a healthy case is never failed for its neighbour;
 *  - any other stray line while a case runs fails that case (it cannot be
 *    told apart from a wrong answer).
 * A worker that exits right after an answer it was not asked to exit after
 * fails that answered case the same way, when its exit is seen before the
 * next case goes out.
 *
 * Interruption. While a supervise call runs, SIGINT and SIGTERM only set a
 * flag and wake the supervisor through a self-pipe (a signal ignored when the
 * call starts stays ignored). The supervisor then stops handing out cases,
 * kills every worker's group, leaves the case in flight and those not reached
 * KG_ST_PENDING, and returns KG_SUPER_INTERRUPTED with "interrupted by
 * SIGINT" in err. The signal stays recorded (kg_super_interrupted): later
 * supervise calls return KG_SUPER_INTERRUPTED at once, starting nothing. */
#ifndef KG_SUPERVISOR_H
#define KG_SUPERVISOR_H

#include <stddef.h>

#include "plan.h"
#include "proto.h"

/* The supervise calls' failures other than -1 (no worker could start):
 * devices of two GPU models in a run that needs one (kg_super_opts.one_model),
 * and SIGINT or SIGTERM. */
enum { KG_SUPER_MODELS = -2, KG_SUPER_INTERRUPTED = -3 };

typedef struct kg_super_opts {
  char *const *worker_argv; /* argv[0] is the worker program's path */
  double timeout_s;         /* watchdog for one case */
  double start_timeout_s;   /* watchdog for a worker's hello (the gate passes --timeout) */
  void (*progress)(void *ctx, size_t done, size_t total, const kg_case *c, const kg_result *r);
  void *progress_ctx;
  /* kg_supervise_devices: refuse devices of different GPU models (run: one
   * baseline, one set of reports); return KG_SUPER_MODELS once a second model says hello. */
  int one_model;
  /* Adds the workers' start-up, each one's spawn to its hello (CUDA, the
   * modules, the roofline), as wall time: a call's sum over the devices that
   * started a worker in it, side by side (kg_phase_startup), in seconds, for
   * the phase times; NULL: not counted. */
  double *startup_s;
  /* kg_supervise_devices: called with progress_ctx once, when the first
   * worker says hello (the gate's phase line waits for it); NULL: none. */
  void (*started)(void *ctx);
} kg_super_opts;

/* One device of a multi-GPU run: its worker's argv and its CUDA index. */
typedef struct kg_super_dev {
  char *const *worker_argv;
  int device; /* recorded in kg_result.device of every case it answers */
} kg_super_dev;

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
  /* Reads len bytes of the log written while a case of variant ran: 1 with
   * the first error in first when they report errors, else 0 with first
   * saying what was waived, or empty (kg_san_scan in sanitize.h). */
  int (*scan)(const void *ctx, int variant, const char *text, size_t len, char *first, size_t firstlen);
  const void *scan_ctx; /* scan's first argument */
} kg_super_san;

/* Runs every supported case and fills results[i] for cases[i] (unsupported
 * ones get KG_ST_UNSUPPORTED without a worker). Returns 0, or -1 when no
 * worker can start (no GPU, missing program): err then holds the worker's
 * one-line reason, and cases not run stay KG_ST_PENDING; KG_SUPER_INTERRUPTED
 * after SIGINT/SIGTERM (above). */
int kg_supervise(const kg_case *cases, size_t ncases, const kg_run_params *p, const kg_super_opts *o,
                 kg_result *results, kg_device_info *dev, char *err, size_t errlen);
/* Several devices at once, one worker each (so a case is never timed while
 * another runs on its GPU). Input groups (plan.h) are handed out in plan
 * order from one queue to whichever worker is free, so no GPU idles behind a
 * slow variant and each worker still gets consecutive cases that share an
 * input. A worker that crashes, errs or hangs fails its case and a fresh one
 * on the same device goes on with its group; a device whose worker cannot
 * start is dropped and its cases go to the others. A case whose input and
 * pristine copy need more than 80 % of a device's memory (hello mem_bytes)
 * is not run there: KG_ST_UNSUPPORTED with "skipped: needs X GiB of device
 * memory, the device has Y GiB". devs[k] gets device k's hello.
 * Returns 0; -1 when some device's worker could not start (err: the reason;
 * cases no device ran stay KG_ST_PENDING); KG_SUPER_MODELS when o->one_model and two
 * devices are different models (err names both; nothing more is run);
 * KG_SUPER_INTERRUPTED after SIGINT/SIGTERM. */
int kg_supervise_devices(const kg_case *cases, size_t ncases, const kg_run_params *p, const kg_super_opts *o,
                         const kg_super_dev *workers, size_t nworkers, kg_result *results, kg_device_info *devs,
                         char *err, size_t errlen);

/* Starts argv's worker, reads its hello into *dev and ends it: 0, or -1 with
 * the reason in err (KG_SUPER_INTERRUPTED after a signal). --devices all uses
 * dev->count. */
int kg_supervise_probe(char *const *argv, double start_timeout_s, kg_device_info *dev, char *err, size_t errlen);

/* The same, sanitized (san may be NULL: then exactly kg_supervise). */
int kg_supervise_san(const kg_case *cases, size_t ncases, const kg_run_params *p, const kg_super_opts *o,
                     const kg_super_san *san, kg_result *results, kg_device_info *dev, char *err, size_t errlen);

/* Catches SIGINT and SIGTERM (as above) from on=1 until the matching on=0;
 * calls nest, and each supervise call makes one pair itself. A command holds
 * the trap around its whole run so that a signal while it writes its reports
 * is recorded, not fatal. */
void kg_super_trap(int on);
/* The signal caught (SIGINT or SIGTERM), 0 when none. */
int kg_super_interrupted(void);
/* "SIGINT", "SIGTERM", or "signal" for any other. */
const char *kg_super_signal_name(int sig);

#endif
