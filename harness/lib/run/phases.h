#ifndef KG_PHASES_H
#define KG_PHASES_H
/* The phase clock: where a gate run's wall time went (results.h's
 * kg_phases), the same way on one device and on several.
 *
 * A run is passes of workers (the check record's probe, the check, the
 * paired rounds), each over all of the run's devices at once. A pass's wall
 * time is its workers' start-up, then its work. The workers' own sums of
 * what they did (start-up, inputs, check, timing) add up to about the wall
 * time on one device, and to as many times it as devices worked on several,
 * so each sum is turned into wall time here, once: start-up by the number of
 * devices that started a worker (the supervisor's count), the check's parts
 * by sharing its work in proportion to the workers' sums. The phases then add
 * up to the passes' wall time on any number of devices. */

#include <stddef.h>

#include "results.h"

/* One supervise call's start-ups as wall time: their sum over the devices
 * that started a worker (side by side; a device whose worker restarted adds
 * both). 0 when none did. */
double kg_phase_startup(double sum, size_t devices);

/* One pass, from its start: the time then and the start-up so far (the
 * supervisor's kg_super_opts.startup_s; NULL: none counted). */
typedef struct kg_phase_clock {
  double t0, startup0;
  const double *startup_s;
} kg_phase_clock;

/* A pass's wall time, split: its workers' start-up, the rest its work. */
typedef struct kg_phase_span {
  double startup_s, work_s;
} kg_phase_span;

kg_phase_clock kg_phase_start(const double *startup_s, double now);
/* The pass of c, ended at now. Neither part is below 0: a start-up larger
 * than the pass (a clock step) is cut to it. */
kg_phase_span kg_phase_stop(const kg_phase_clock *c, double now);

/* A gate run's passes, as its phases come from them. */
typedef struct kg_phase_passes {
  kg_phase_span probe, check, paired;
  /* the check's workers' own sums (kg_result input_us, check_us, time_us), in seconds */
  double inputs_sum, check_sum, timing_sum;
  /* of paired.work_s: timing the cells proven unchanged (--absolute-unchanged) */
  double unchanged_s;
} kg_phase_passes;

/* Sets ph's start-up, inputs, check, timing and paired phases from p, and
 * known; reports_s is left as it is. The check's work is shared among
 * inputs, check and timing in proportion to the workers' sums (all 0: it is
 * the check's); the probe's work is check; the unchanged cells' timing is
 * timing; the rest of the paired pass is paired. */
void kg_phases_of(kg_phases *ph, const kg_phase_passes *p);

#endif
