/* The two threads a check runs beside its workers, on the CPU and the
 * disassembler, never the GPU: the lint of the run's modules, and the
 * machine code of head and base (for the unchanged proof and the check
 * record). Each part is safe to end when never started, or twice. */
#ifndef KG_JOBS_H
#define KG_JOBS_H

#include <pthread.h>
#include <stdio.h>

#include "lint.h"
#include "model.h"
#include "gateset.h"
#include "unchanged.h"

/* The default time limit of one module's analysis in check and run, seconds. */
#define KG_LINT_LIMIT_S 60.0

/* The lint of one module of a check or run (m->path set by the caller, or
 * m->why when it cannot be linted), with the module's own waivers. A module
 * it cannot read, or no disassembler here, leaves m->ran 0 with why: the run
 * goes on. 0, or -1 out of memory. */
int kg_lint_for_run(kg_lint_module *m);

typedef struct kg_lint_job {
  kg_run *run;
  int rc;
  pthread_t tid;
  int started;
} kg_lint_job;

/* The run's modules into run->lint (kgate's own, each --kernels one), then
 * their lint on a thread (not under a sanitizer: that run checks memory, not
 * ordering). 0, or -1 out of memory. */
int kg_lint_start(const kg_gate_opts *go, kg_run *run, kg_lint_job *j);
/* Waits for it: 0, or -1 when it ran out of memory. */
int kg_lint_join(kg_lint_job *j);

typedef struct kg_code_job {
  const kg_gate_opts *go;
  kg_code_table head, base;
  int on, ok, proof; /* proof: for the unchanged proof (else for a check record alone) */
  pthread_t tid;
  int started;
} kg_code_job;

/* Starts reading the machine code when the unchanged proof (paired, and not
 * --time-unchanged, --reference or a sanitizer run) or the check record
 * (carry) needs it. */
void kg_code_start(const kg_gate_opts *go, int paired, int carry, kg_code_job *j);
/* Waits for it; 1 when both tables were read. */
int kg_code_join(kg_code_job *j);
void kg_code_free(kg_code_job *j);

#endif
