/* The phase clock (phases.h). */
#include "phases.h"

double kg_phase_startup(double sum, size_t devices) { return devices ? sum / (double)devices : 0; }

kg_phase_clock kg_phase_start(const double *startup_s, double now) {
  return (kg_phase_clock){now, startup_s ? *startup_s : 0, startup_s};
}

kg_phase_span kg_phase_stop(const kg_phase_clock *c, double now) {
  double wall = now - c->t0, startup = c->startup_s ? *c->startup_s - c->startup0 : 0;
  if (wall < 0) wall = 0;
  if (startup < 0) startup = 0;
  if (startup > wall) startup = wall;
  return (kg_phase_span){startup, wall - startup};
}

void kg_phases_of(kg_phases *ph, const kg_phase_passes *p) {
  ph->known = 1;
  ph->startup_s = p->probe.startup_s + p->check.startup_s + p->paired.startup_s;
  double sum = p->inputs_sum + p->check_sum + p->timing_sum, work = p->check.work_s;
  /* the workers' sums say how the check's work divides, not how long it took */
  ph->inputs_s = sum > 0 ? work * p->inputs_sum / sum : 0;
  ph->timing_s = sum > 0 ? work * p->timing_sum / sum : 0;
  ph->check_s = (sum > 0 ? work * p->check_sum / sum : work) + p->probe.work_s;
  double unchanged = p->unchanged_s < 0 ? 0 : p->unchanged_s > p->paired.work_s ? p->paired.work_s : p->unchanged_s;
  ph->timing_s += unchanged;
  ph->paired_s = p->paired.work_s - unchanged;
}
