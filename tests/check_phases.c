/* phases: the phase clock (phases.h). A gate run is simulated on 1, 2 and
 * 4 devices with the same work (the same workers' sums): the phases must
 * add up to the passes' wall time, the start-up must be one worker's (not
 * the devices' sum), and the paired phase the rounds' work, on any number of
 * devices. */
#include <check.h>

#include "phases.h"

/* The simulated run: every device starts its worker in START s at each
 * pass; the work of a pass is split evenly, so it takes WORK / ndev. */
enum { ROUNDS = 3 };
#define START 0.5
#define PROBE_WORK 0.8                      /* worker-seconds of the check record's probe */
#define INPUTS 0.4                          /* the check's workers' sums */
#define CHECK 6.0
#define TIMING 1.6
#define UNCHANGED 1.2                       /* --absolute-unchanged: its timing pass */
#define ROUND_WORK 4.0                      /* a paired round's worker-seconds */

/* One pass on ndev devices from *now: each device's worker starts (the
 * supervisor adds their sum over the devices), then the work. */
static kg_phase_span pass(double *now, double *startup, size_t ndev, int calls, double work) {
  kg_phase_clock c = kg_phase_start(startup, *now);
  for (int k = 0; k < calls; k++) {
    *startup += kg_phase_startup(START * (double)ndev, ndev);
    *now += START + work / calls / (double)ndev;
  }
  return kg_phase_stop(&c, *now);
}

static const size_t k_devices[] = {1, 2, 4};

START_TEST(test_phases_add_up_on_devices) {
  size_t ndev = k_devices[_i];
  double now = 100, startup = 0, t0 = now;
  kg_phase_passes p = {0};
  p.probe = pass(&now, &startup, ndev, 1, PROBE_WORK);
  now += 0.25; /* between passes (the terminal's table): no phase's */
  p.check = pass(&now, &startup, ndev, 1, INPUTS + CHECK + TIMING);
  p.inputs_sum = INPUTS, p.check_sum = CHECK, p.timing_sum = TIMING;
  double before_paired = now;
  /* the paired pass: the probe, the unchanged cells' timing, ROUNDS rounds (fresh workers each) */
  kg_phase_clock c = kg_phase_start(&startup, now);
  (void)pass(&now, &startup, ndev, 1, 0.4);
  kg_phase_span unchanged = pass(&now, &startup, ndev, 1, UNCHANGED);
  (void)pass(&now, &startup, ndev, ROUNDS, ROUNDS * ROUND_WORK);
  p.paired = kg_phase_stop(&c, now);
  p.unchanged_s = unchanged.work_s;
  kg_phases ph = {0};
  ph.reports_s = 0.125;
  kg_phases_of(&ph, &p);
  double d = (double)ndev, sum = ph.startup_s + ph.inputs_s + ph.check_s + ph.timing_s + ph.paired_s;
  ck_assert(ph.known);
  ck_assert_double_eq_tol(sum, now - t0 - 0.25, 1e-9);
  ck_assert_double_eq_tol(ph.startup_s, START * (4 + ROUNDS), 1e-9); /* one worker's a call: 4 + the rounds */
  ck_assert_double_eq_tol(ph.inputs_s, INPUTS / d, 1e-9);
  ck_assert_double_eq_tol(ph.check_s, (CHECK + PROBE_WORK) / d, 1e-9);
  ck_assert_double_eq_tol(ph.timing_s, (TIMING + UNCHANGED) / d, 1e-9);
  ck_assert_double_eq_tol(ph.paired_s, (0.4 + ROUNDS * ROUND_WORK) / d, 1e-9);
  ck_assert_double_eq_tol(ph.paired_s + ph.timing_s - TIMING / d + START * (2 + ROUNDS), now - before_paired, 1e-9);
  ck_assert(ph.reports_s == 0.125); /* after the wall time: not the clock's */
  /* twice (after the check, then after the paired pass): the same phases */
  kg_phases again = ph;
  kg_phases_of(&again, &p);
  ck_assert_double_eq(again.check_s, ph.check_s);
  ck_assert_double_eq(again.paired_s, ph.paired_s);
}
END_TEST

/* The start-up of one call is one worker's when the devices start side by
 * side; a device that started two workers (a restart) counts both. */
START_TEST(test_phase_startup_share) {
  ck_assert_double_eq(kg_phase_startup(2.0, 1), 2.0);
  ck_assert_double_eq(kg_phase_startup(2.0, 4), 0.5);
  ck_assert_double_eq(kg_phase_startup(1.5, 2), 0.75); /* 0.5 and 0.5 + a restart's 0.5 */
  ck_assert_double_eq(kg_phase_startup(0, 0), 0);
  ck_assert_double_eq(kg_phase_startup(3.0, 0), 0);
}
END_TEST

START_TEST(test_phase_stop_limits) {
  double startup = 10;
  kg_phase_clock c = kg_phase_start(&startup, 5.0);
  startup += 3; /* more start-up than the pass took: cut to it */
  kg_phase_span s = kg_phase_stop(&c, 7.0);
  ck_assert_double_eq(s.startup_s, 2.0);
  ck_assert_double_eq(s.work_s, 0);
  s = kg_phase_stop(&c, 4.0); /* the clock went back */
  ck_assert(s.startup_s == 0 && s.work_s == 0);
  kg_phase_clock none = kg_phase_start(NULL, 1.0); /* start-up not counted: all work */
  s = kg_phase_stop(&none, 3.5);
  ck_assert(s.startup_s == 0 && s.work_s == 2.5);
}
END_TEST

/* Workers that report no sums (a fake one, an old one): the check's work
 * is the check's. An unchanged pass said to be longer than the paired pass
 * is cut to it: no phase is negative. */
START_TEST(test_phases_no_sums) {
  kg_phase_passes p = {.probe = {0.5, 0.25}, .check = {0.5, 3.0}, .paired = {1.0, 2.0}, .unchanged_s = 5.0};
  kg_phases ph = {0};
  kg_phases_of(&ph, &p);
  ck_assert_double_eq(ph.check_s, 3.25);
  ck_assert(ph.inputs_s == 0);
  ck_assert_double_eq(ph.timing_s, 2.0);
  ck_assert(ph.paired_s == 0);
  ck_assert_double_eq(ph.startup_s, 2.0);
  p.unchanged_s = -1;
  kg_phases_of(&ph, &p);
  ck_assert(ph.timing_s == 0 && ph.paired_s == 2.0);
}
END_TEST

Suite *make_phases_suite(void) {
  Suite *s = suite_create("phases");
  TCase *core = tcase_create("Core"), *limits = tcase_create("Limits");
  tcase_add_loop_test(core, test_phases_add_up_on_devices, 0, (int)(sizeof k_devices / sizeof k_devices[0]));
  tcase_add_test(core, test_phase_startup_share);
  tcase_add_test(limits, test_phase_stop_limits);
  tcase_add_test(limits, test_phases_no_sums);
  suite_add_tcase(s, core);
  suite_add_tcase(s, limits);
  return s;
}
