/* supervisor: worker processes, their deaths, and carrying on. A fake worker
 * (fake_worker.c) misbehaves on chosen sizes; see the table there. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "varreg.h"
#include "supervisor.h"
#include "testutil.h"

#ifndef FAKE_WORKER
#error "FAKE_WORKER must name the fake worker program"
#endif

static char *k_fake[] = {FAKE_WORKER, NULL};

static kg_case good(size_t n) { return (kg_case){0, KG_I32, n, KG_PAT_EXACT, 1, 0}; }

static kg_case g_cases_multi[64];

static int run(char **argv, double timeout_s, const kg_case *cases, size_t n, kg_result *results, char *err,
               size_t errlen) {
  kg_super_opts o = {argv, timeout_s, 10.0, NULL, NULL, 0, NULL, NULL};
  kg_run_params p = {1, 3, {0, 0, 0, 0}, {0}};
  kg_device_info dev;
  return kg_supervise(cases, n, &p, &o, results, &dev, err, errlen);
}

/* --- Core: one run of a plan where every other case misbehaves, shared by the
 * tests below (an unchecked fixture runs once, before the forks). */

enum { NCASES = 27 };
static kg_case g_cases[NCASES];
static kg_result g_results[NCASES];
static kg_device_info g_dev;
static int g_rc;
static char g_err[256];
static struct {
  size_t calls, done[NCASES + 1], total;
  int wrong_ctx;
  const kg_case *c[NCASES + 1];
  const kg_result *r[NCASES + 1];
} g_progress;

static void on_progress(void *ctx, size_t done, size_t total, const kg_case *c, const kg_result *r) {
  g_progress.wrong_ctx |= ctx != &g_progress;
  size_t k = g_progress.calls++;
  if (k > NCASES) return;
  g_progress.done[k] = done, g_progress.c[k] = c, g_progress.r[k] = r, g_progress.total = total;
}

static int g_fds_before, g_fds_after, g_children_left;

static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  if (!d) return -1;
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

static void run_misbehaving_plan(void) {
  const size_t ns[NCASES] = {1, 13, 2, 13, 3, 17, 4, 19, 5, 23, 6, 29, 7, 31, 8, 37, 9,
                             59, 10, 61, 11, 67, 12, 71, 14, 79, 15};
  for (int i = 0; i < NCASES; i++) g_cases[i] = good(ns[i]);
  /* Case 1 is unsupported; were it run, the fake worker would crash on n = 13. */
  g_cases[1] = (kg_case){kg_variant_find("neighbored"), KG_F16, 13, KG_PAT_EXACT, 0, 0};
  kg_super_opts o = {k_fake, 1.0, 10.0, on_progress, &g_progress, 0, NULL, NULL};
  kg_run_params p = {1, 3, {0, 0, 0, 0}, {0}};
  g_fds_before = open_fds();
  g_rc = kg_supervise(g_cases, NCASES, &p, &o, g_results, &g_dev, g_err, sizeof g_err);
  g_fds_after = open_fds();
  g_children_left = !(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

static int index_of(size_t n) {
  for (int i = 0; i < NCASES; i++)
    if (g_cases[i].supported && g_cases[i].n == n) return i;
  ck_abort_msg("no case with n = %zu", n);
  return -1;
}

START_TEST(test_supervise_returns_0_with_device) {
  ck_assert_msg(g_rc == 0, "kg_supervise: %s", g_err);
  ck_assert_str_eq(g_dev.name, "fake device");
  ck_assert_int_eq(g_dev.cc_major, 9);
}
END_TEST

static const struct {
  size_t n;
  const char *message;
} k_bad[] = {
    {13, "signal 11"},
    {17, "timeout after 1 s"},
    {19, "CUDA error at fake.cu:19: cudaErrorIllegalAddress"},
    {23, "protocol"},
    {29, "exited with status 0"},
    {31, "answer for another case"},
    /* The protocol's rules (supervisor.h): the case that misbehaved fails, never the next one. */
    {59, "worker broke the protocol: "}, /* answered twice in one write */
    {61, "worker broke the protocol: "}, /* answered again 50 ms later: "answered twice" */
    {67, "worker broke the protocol: NUL byte inside a line"},
    {71, "worker broke the protocol: line longer than 262144 bytes"},
    {79, "worker broke the protocol: 7 bytes after its answer"},
};

/* Each bad case errors with its reason and its kind (a timeout, else a
 * crash); the next case passes on a fresh worker. */
START_TEST(test_supervise_bad_case_isolated) {
  int i = index_of(k_bad[_i].n);
  const kg_result *r = &g_results[i], *next = &g_results[i + 1], *prev = &g_results[i - 1];
  ck_assert_msg(r->status == KG_ST_ERROR, "n=%zu: status %s", k_bad[_i].n, kg_status_name(r->status));
  ck_assert_msg(r->fail == (k_bad[_i].n == 17 ? KG_FK_TIMEOUT : KG_FK_CRASH), "n=%zu: kind '%s'", k_bad[_i].n,
                kg_fail_kind_name(r->fail));
  ck_assert_msg(strstr(r->message, k_bad[_i].message) != NULL, "n=%zu: message '%s' lacks \"%s\"", k_bad[_i].n,
                r->message, k_bad[_i].message);
  ck_assert_int_eq(prev->status, KG_ST_PASS);
  ck_assert_int_eq(next->status, KG_ST_PASS);
  ck_assert_msg(strcmp(prev->got, next->got) != 0, "n=%zu: the same worker (pid %s) went on", k_bad[_i].n, next->got);
}
END_TEST

START_TEST(test_supervise_good_cases_pass) {
  for (int i = 0; i < NCASES; i++) {
    if (!g_cases[i].supported) continue;
    int bad = 0;
    for (size_t k = 0; k < sizeof k_bad / sizeof k_bad[0]; k++) bad |= g_cases[i].n == k_bad[k].n;
    if (bad) continue;
    char n[32];
    snprintf(n, sizeof n, "%zu", g_cases[i].n);
    ck_assert_msg(g_results[i].status == KG_ST_PASS, "case %d (n=%s): %s %s", i, n,
                  kg_status_name(g_results[i].status), g_results[i].message);
    ck_assert_str_eq(g_results[i].expected, n); /* the worker answered this very case */
    ck_assert_str_eq(g_results[i].message, "");
  }
}
END_TEST

/* Healthy workers are kept: no restart around the unsupported case, nor
 * across the answer that came in two pieces. */
START_TEST(test_supervise_worker_reused) {
  ck_assert_str_eq(g_results[0].got, g_results[2].got);
  int i = index_of(37);
  ck_assert_str_eq(g_results[i - 1].got, g_results[i].got);
  ck_assert_str_eq(g_results[i].got, g_results[i + 1].got);
}
END_TEST

START_TEST(test_supervise_unsupported_not_run) {
  ck_assert_int_eq(g_results[1].status, KG_ST_UNSUPPORTED);
  ck_assert_str_eq(g_results[1].message, "");
}
END_TEST

/* Seven workers came and went: no pipe left open, no zombie left behind. */
START_TEST(test_supervise_cleans_up) {
  ck_assert_int_eq(g_fds_after, g_fds_before);
  ck_assert_int_eq(g_children_left, 0);
}
END_TEST

START_TEST(test_supervise_progress_each_case) {
  ck_assert_uint_eq(g_progress.calls, NCASES);
  ck_assert_int_eq(g_progress.wrong_ctx, 0);
  ck_assert_uint_eq(g_progress.total, NCASES);
  for (size_t k = 0; k < NCASES; k++) {
    ck_assert_uint_eq(g_progress.done[k], k + 1);
    ck_assert_ptr_eq(g_progress.c[k], &g_cases[k]);
    ck_assert_ptr_eq(g_progress.r[k], &g_results[k]);
  }
}
END_TEST

/* --- Limits */

START_TEST(test_supervise_timeout_fraction) {
  kg_case c[2] = {good(17), good(1)};
  kg_result r[2];
  char err[256] = "";
  ck_assert_int_eq(run(k_fake, 0.25, c, 2, r, err, sizeof err), 0);
  ck_assert_int_eq(r[0].status, KG_ST_ERROR);
  ck_assert_str_eq(r[0].message, "timeout after 0.25 s");
  ck_assert_int_eq(r[1].status, KG_ST_PASS);
}
END_TEST

/* No supported case, no worker: a missing program does not matter. */
START_TEST(test_supervise_no_worker_needed) {
  char *missing[] = {"/nonexistent/kgate", NULL};
  kg_case c[2] = {good(1), good(2)};
  c[0].supported = c[1].supported = 0;
  kg_result r[2];
  char err[256] = "";
  ck_assert_int_eq(run(missing, 1, c, 0, r, err, sizeof err), 0);
  ck_assert_int_eq(run(missing, 1, c, 2, r, err, sizeof err), 0);
  ck_assert(r[0].status == KG_ST_UNSUPPORTED && r[1].status == KG_ST_UNSUPPORTED);
}
END_TEST

static void on_sigpipe(int sig) { (void)sig; }

START_TEST(test_supervise_restores_sigpipe) {
  signal(SIGPIPE, on_sigpipe);
  kg_case c[1] = {good(1)};
  kg_result r[1];
  char err[256];
  ck_assert_int_eq(run(k_fake, 5, c, 1, r, err, sizeof err), 0);
  ck_assert_ptr_eq(signal(SIGPIPE, SIG_DFL), on_sigpipe);
}
END_TEST

/* HARNESS BUG (supervisor.c:43-44): with fd 0 closed (`kgate check <&-`),
 * pipe2() hands out fd 0 for the worker's stdin; dup2(0, 0) is a no-op that
 * leaves O_CLOEXEC set, so the worker starts with no stdin and every case
 * errors with "worker exited with status 0". */
START_TEST(test_supervise_stdin_closed) {
  int saved = dup(STDIN_FILENO);
  close(STDIN_FILENO);
  kg_case c[2] = {good(1), good(2)};
  kg_result r[2];
  char err[256] = "";
  int rc = run(k_fake, 5, c, 2, r, err, sizeof err);
  dup2(saved, STDIN_FILENO), close(saved);
  ck_assert_msg(rc == 0, "%s", err);
  ck_assert_msg(r[0].status == KG_ST_PASS, "%s: %s", kg_status_name(r[0].status), r[0].message);
  ck_assert_int_eq(r[1].status, KG_ST_PASS);
}
END_TEST

/* --- Errors: no worker can start; nothing runs. */

static const struct {
  const char *mode, *message;
} k_start[] = {
    {"fatal", "no CUDA device: test"},
    {"mute", "worker failed to start"},
    {"sleep", "worker failed to start: no hello in time"},
    {"garbage", "malformed JSON"},
    {NULL, "worker failed to start"}, /* no such program */
};

static size_t g_start_calls;
static void count_progress(void *ctx, size_t done, size_t total, const kg_case *c, const kg_result *r) {
  (void)ctx, (void)done, (void)total, (void)c, (void)r;
  g_start_calls++;
}

START_TEST(test_supervise_start_fails) {
  char *argv[] = {FAKE_WORKER, (char *)k_start[_i].mode, NULL};
  if (!k_start[_i].mode) argv[0] = "/nonexistent/kgate";
  kg_case c[3] = {good(1), good(2), good(3)};
  kg_result r[3];
  char err[256] = "";
  kg_super_opts o = {argv, 1.0, 0.5, count_progress, NULL, 0, NULL, NULL};
  kg_run_params p = {1, 3, {0, 0, 0, 0}, {0}};
  kg_device_info dev;
  g_start_calls = 0;
  fflush(stderr);
  int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY); /* execv's complaint */
  dup2(null, STDERR_FILENO);
  int rc = kg_supervise(c, 3, &p, &o, r, &dev, err, sizeof err);
  dup2(saved, STDERR_FILENO), close(saved), close(null);
  ck_assert_int_eq(rc, -1);
  ck_assert_msg(strstr(err, k_start[_i].message) != NULL, "'%s' lacks \"%s\"", err, k_start[_i].message);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(r[i].status, KG_ST_PENDING);
  ck_assert_uint_eq(g_start_calls, 0);
}
END_TEST

/* HARNESS BUG (supervisor.c:162): after EOF on a starting worker, start()
 * reaps with 0 s grace; the worker has closed its stdout but is often not a
 * zombie yet, so it gets SIGKILLed and the reason reads "worker did not exit
 * and was killed" instead of its exit status (3 here, 127 for a program that
 * cannot be executed). Repeated: it is a race, lost 1 to 2 times in 3 here. */
START_TEST(test_supervise_start_exit_status) {
  char *argv[] = {FAKE_WORKER, "mute", NULL};
  for (int k = 0; k < 100; k++) {
    kg_case c[1] = {good(1)};
    kg_result r[1];
    char err[256] = "";
    ck_assert_int_eq(run(argv, 1, c, 1, r, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "exited with status 3") != NULL, "run %d: %s", k, err);
  }
}
END_TEST

START_TEST(test_supervise_fatal_exact_reason) {
  char *argv[] = {FAKE_WORKER, "fatal", NULL};
  kg_case c[1] = {good(1)};
  kg_result r[1];
  char err[256] = "";
  ck_assert_int_eq(run(argv, 1, c, 1, r, err, sizeof err), -1);
  ck_assert_str_eq(err, "no CUDA device: test");
}
END_TEST

/* --- Devices: two fake workers share one queue of input groups. */

static size_t g_multi_calls, g_multi_seen[64];

static void count_multi(void *ctx, size_t done, size_t total, const kg_case *c, const kg_result *r) {
  (void)ctx, (void)done, (void)total, (void)r;
  g_multi_calls++;
  g_multi_seen[c - g_cases_multi]++;
}

START_TEST(test_supervise_two_devices) {
  enum { NG = 16, PER = 3 }; /* 16 input groups of 3 variants each */
  for (int g = 0; g < NG; g++)
    for (int v = 0; v < PER; v++) {
      kg_case c = good(100 + (size_t)g);
      c.variant = v;
      if (g == 5) c.n = 13; /* the worker that gets this group crashes on each of its cases */
      g_cases_multi[g * PER + v] = c;
    }
  g_cases_multi[7 * PER + 1].supported = 0;
  char *a0[] = {FAKE_WORKER, "worker", "--device", "0", NULL}, *a1[] = {FAKE_WORKER, "worker", "--device", "3", NULL};
  kg_super_dev devs[2] = {{a0, 0}, {a1, 3}};
  kg_device_info info[2];
  kg_result r[NG * PER];
  kg_super_opts o = {NULL, 5.0, 10.0, count_multi, NULL, 1, NULL, NULL};
  kg_run_params p = {1, 3, {0, 0, 0, 0}, {0}};
  char err[256] = "";
  g_multi_calls = 0;
  memset(g_multi_seen, 0, sizeof g_multi_seen);
  ck_assert_msg(kg_supervise_devices(g_cases_multi, NG * PER, &p, &o, devs, 2, r, info, err, sizeof err) == 0, "%s",
                err);
  ck_assert_str_eq(info[0].name, "fake device");
  ck_assert_str_eq(info[1].name, "fake device");
  ck_assert_uint_eq(g_multi_calls, NG * PER);
  size_t on[4] = {0};
  for (int i = 0; i < NG * PER; i++) {
    ck_assert_uint_eq(g_multi_seen[i], 1); /* every case answered once */
    if (i == 7 * PER + 1) {
      ck_assert_int_eq(r[i].status, KG_ST_UNSUPPORTED);
      continue;
    }
    ck_assert_msg(r[i].device == 0 || r[i].device == 3, "case %d on device %d", i, r[i].device);
    on[r[i].device]++;
    if (g_cases_multi[i].n == 13) {
      ck_assert_int_eq(r[i].status, KG_ST_ERROR);
      ck_assert_ptr_nonnull(strstr(r[i].message, "signal 11"));
      continue;
    }
    ck_assert_msg(r[i].status == KG_ST_PASS, "case %d: %s", i, r[i].message);
    char n[32];
    snprintf(n, sizeof n, "%zu", g_cases_multi[i].n);
    ck_assert_str_eq(r[i].expected, n);
  }
  ck_assert_msg(on[0] > 0 && on[3] > 0, "device 0 ran %zu cases, device 3 %zu", on[0], on[3]);
  /* A group stays on one device (one worker, consecutive cases) unless a crash intervened. */
  for (int g = 0; g < NG; g++)
    if (g != 5 && g != 7) ck_assert_int_eq(r[g * PER].device, r[g * PER + 2].device);
}
END_TEST

/* A device whose worker cannot start is dropped; the other runs everything. */
START_TEST(test_supervise_device_down) {
  kg_case c[6];
  for (int i = 0; i < 6; i++) c[i] = good(200 + (size_t)i);
  char *a0[] = {FAKE_WORKER, "fatal", NULL}, *a1[] = {FAKE_WORKER, "worker", "--device", "1", NULL};
  kg_super_dev devs[2] = {{a0, 0}, {a1, 1}};
  kg_device_info info[2];
  kg_result r[6];
  kg_super_opts o = {NULL, 5.0, 10.0, NULL, NULL, 0, NULL, NULL};
  kg_run_params p = {1, 3, {0, 0, 0, 0}, {0}};
  char err[256] = "";
  ck_assert_int_eq(kg_supervise_devices(c, 6, &p, &o, devs, 2, r, info, err, sizeof err), -1);
  ck_assert_str_eq(err, "no CUDA device: test");
  for (int i = 0; i < 6; i++) {
    ck_assert_int_eq(r[i].status, KG_ST_PASS);
    ck_assert_int_eq(r[i].device, 1);
  }
}
END_TEST

/* The start-up as wall time (phases.h): four devices whose workers each take
 * 0.2 s to say hello, side by side, add one worker's start-up, not four; one
 * case on four devices starts one worker and adds its whole start-up. */
START_TEST(test_supervise_startup_side_by_side) {
  char *a[4][5];
  char num[4][4];
  kg_super_dev devs[4];
  for (int k = 0; k < 4; k++) {
    snprintf(num[k], sizeof num[k], "%d", k);
    a[k][0] = FAKE_WORKER, a[k][1] = "worker", a[k][2] = "--device", a[k][3] = num[k], a[k][4] = NULL;
    devs[k] = (kg_super_dev){a[k], k};
  }
  kg_case c[16];
  for (int i = 0; i < 16; i++) c[i] = good(300 + (size_t)i);
  kg_device_info info[4];
  kg_result r[16];
  double startup = 0;
  kg_super_opts o = {NULL, 5.0, 10.0, NULL, NULL, 0, &startup, NULL};
  kg_run_params p = {1, 3, {0, 0, 0, 0}, {0}};
  char err[256] = "";
  setenv("FAKE_HELLO_MS", "200", 1);
  ck_assert_msg(kg_supervise_devices(c, 16, &p, &o, devs, 4, r, info, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(startup >= 0.2 && startup < 0.5, "start-up %.3f s on four devices: not one worker's 0.2 s", startup);
  startup = 0;
  ck_assert_msg(kg_supervise_devices(c, 1, &p, &o, devs, 4, r, info, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(startup >= 0.2 && startup < 0.5, "start-up %.3f s of one worker", startup);
  unsetenv("FAKE_HELLO_MS");
}
END_TEST

/* The memory check: a case too large for the device's memory is skipped, not run. */
START_TEST(test_supervise_too_big_skipped) {
  setenv("FAKE_MEM_BYTES", "1073741824", 1); /* 1 GiB: i32 inputs past 0.8 GiB / 2 do not fit */
  kg_case c[3] = {good(1000), good((size_t)1 << 27), good(1001)};
  kg_result r[3];
  char err[256] = "";
  ck_assert_int_eq(run(k_fake, 1.0, c, 3, r, err, sizeof err), 0);
  ck_assert_int_eq(r[0].status, KG_ST_PASS);
  ck_assert_int_eq(r[1].status, KG_ST_UNSUPPORTED);
  ck_assert_str_eq(r[1].message, "skipped: needs 1.2 GiB of device memory, the device has 1.0 GiB");
  ck_assert_int_eq(r[2].status, KG_ST_PASS);
  unsetenv("FAKE_MEM_BYTES");
}
END_TEST

/* --- Protocol: the sequential (sanitizer) path keeps the same rules. */

START_TEST(test_supervise_san_bad_case_isolated) {
  kg_case c[3] = {good(1), good(k_bad[_i].n), good(2)};
  kg_result r[3];
  kg_super_opts o = {k_fake, 1.0, 10.0, NULL, NULL, 0, NULL, NULL};
  kg_run_params p = {1, 3, {0, 0, 0, 0}, {0}};
  kg_device_info dev;
  char err[256] = "";
  ck_assert_msg(kg_supervise_san(c, 3, &p, &o, NULL, r, &dev, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(r[1].status == KG_ST_ERROR, "n=%zu: status %s", k_bad[_i].n, kg_status_name(r[1].status));
  ck_assert_msg(strstr(r[1].message, k_bad[_i].message) != NULL, "n=%zu: message '%s' lacks \"%s\"", k_bad[_i].n,
                r[1].message, k_bad[_i].message);
  ck_assert_int_eq(r[0].status, KG_ST_PASS);
  ck_assert_msg(r[2].status == KG_ST_PASS, "n=%zu: the next case: %s", k_bad[_i].n, r[2].message);
  ck_assert_str_eq(r[2].expected, "2");
  ck_assert_str_ne(r[0].got, r[2].got);
}
END_TEST

/* A worker writing without newlines, forever: the case fails at the line
 * limit, at once, and the buffer never grows past it. */
START_TEST(test_supervise_endless_line_bounded) {
  kg_case c[3] = {good(1), good(73), good(2)};
  kg_result r[3];
  char err[256] = "";
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  ck_assert_int_eq(run(k_fake, 20.0, c, 3, r, err, sizeof err), 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  getrusage(RUSAGE_SELF, &after);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  ck_assert_int_eq(r[1].status, KG_ST_ERROR);
  ck_assert_str_eq(r[1].message, "worker broke the protocol: line longer than 262144 bytes");
  ck_assert_int_eq(r[2].status, KG_ST_PASS);
  ck_assert_msg(secs < 5, "%.1f s: the limit did not stop the read", secs);
  ck_assert_msg(after.ru_maxrss - before.ru_maxrss < 8192, "peak memory grew by %ld KiB",
                after.ru_maxrss - before.ru_maxrss);
}
END_TEST

/* --- Process groups: a worker that forks leaves nothing running. The checks
 * run in a child that adopts orphans, so a survivor comes back to it. */

typedef struct group_case {
  size_t n;       /* the forking case */
  double timeout; /* the watchdog */
  int status;     /* what the forking case ends as */
  const char *message;
} group_case;

static const group_case k_group[] = {
    {47, 0.5, KG_ST_ERROR, "timeout after 0.5 s"}, /* hangs: killed with its grandchild */
    {53, 10, KG_ST_PASS, ""},                      /* answers; its grandchild outlives it unless the group dies */
};

static void group_body(void *ctx, char *msg, size_t len) {
  const group_case *g = ctx;
  char pids[] = "/tmp/kg_pids_XXXXXX";
  int fd = mkstemp(pids);
  if (fd < 0) return (void)snprintf(msg, len, "mkstemp");
  close(fd), unlink(pids);
  setenv("FAKE_PID_FILE", pids, 1);
  kg_case c[3] = {good(1), good(g->n), good(2)};
  kg_result r[3];
  char err[256] = "";
  int rc = run(k_fake, g->timeout, c, 3, r, err, sizeof err);
  pid_t worker, grandchild;
  int have = kgt_read_pids(pids, &worker, &grandchild) == 0;
  unlink(pids);
  if (rc) snprintf(msg, len, "kg_supervise: %d %s", rc, err);
  else if ((int)r[1].status != g->status || strcmp(r[1].message, g->message))
    snprintf(msg, len, "n=%zu: %s '%s'", g->n, kg_status_name(r[1].status), r[1].message);
  else if (r[0].status != KG_ST_PASS || r[2].status != KG_ST_PASS) snprintf(msg, len, "a healthy case did not pass");
  else if (!have) snprintf(msg, len, "no pid file from the fake worker");
  else if (!kgt_gone(worker, 2.0)) snprintf(msg, len, "the worker %ld still runs", (long)worker);
  else if (!kgt_gone(grandchild, 2.0)) snprintf(msg, len, "its grandchild %ld still runs", (long)grandchild);
}

START_TEST(test_supervise_group_killed) {
  char msg[512];
  int status = kgt_subreaper_child(group_body, (void *)&k_group[_i], msg, sizeof msg);
  ck_assert_msg(msg[0] == '\0', "n=%zu: %s", k_group[_i].n, msg);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

/* --- Signals: SIGINT or SIGTERM to the supervising process while a worker
 * (and the grandchild it forked) hangs. */

static const int k_sigs[] = {SIGINT, SIGTERM};

static void signal_body(void *ctx, char *msg, size_t len) {
  int sig = *(const int *)ctx;
  char pids[] = "/tmp/kg_pids_XXXXXX";
  int fd = mkstemp(pids);
  if (fd < 0) return (void)snprintf(msg, len, "mkstemp");
  close(fd), unlink(pids);
  setenv("FAKE_PID_FILE", pids, 1);
  struct sigaction before, now;
  sigaction(sig, NULL, &before);
  pid_t killer = kgt_signal_when(pids, getpid(), sig);
  kg_case c[4] = {good(1), good(47), good(2), good(3)};
  kg_result r[4];
  char err[256] = "";
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = run(k_fake, 30.0, c, 4, r, err, sizeof err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  waitpid(killer, NULL, 0);
  pid_t worker, grandchild;
  int have = kgt_read_pids(pids, &worker, &grandchild) == 0;
  unlink(pids);
  char want[64];
  snprintf(want, sizeof want, "interrupted by %s", kg_super_signal_name(sig));
  sigaction(sig, NULL, &now);
  kg_result r2[1];
  char err2[256] = "";
  char *missing[] = {"/nonexistent/kgate", NULL};
  int again = run(missing, 1.0, c, 1, r2, err2, sizeof err2);
  if (rc != KG_SUPER_INTERRUPTED || strcmp(err, want)) snprintf(msg, len, "kg_supervise: %d '%s'", rc, err);
  else if (kg_super_interrupted() != sig) snprintf(msg, len, "kg_super_interrupted: %d", kg_super_interrupted());
  else if (r[0].status != KG_ST_PASS) snprintf(msg, len, "the case before: %s", kg_status_name(r[0].status));
  else if (r[1].status != KG_ST_PENDING || r[2].status != KG_ST_PENDING || r[3].status != KG_ST_PENDING)
    snprintf(msg, len, "not pending: %s %s %s", kg_status_name(r[1].status), kg_status_name(r[2].status),
             kg_status_name(r[3].status));
  else if ((double)(t1.tv_sec - t0.tv_sec) > 10) snprintf(msg, len, "it waited for the watchdog");
  else if (!have) snprintf(msg, len, "no pid file from the fake worker");
  else if (!kgt_gone(worker, 2.0)) snprintf(msg, len, "the worker %ld still runs", (long)worker);
  else if (!kgt_gone(grandchild, 2.0)) snprintf(msg, len, "its grandchild %ld still runs", (long)grandchild);
  else if (now.sa_handler != before.sa_handler) snprintf(msg, len, "the signal's disposition was not restored");
  else if (again != KG_SUPER_INTERRUPTED) snprintf(msg, len, "a later call started: %d '%s'", again, err2);
}

START_TEST(test_supervise_signal_stops) {
  char msg[512];
  int status = kgt_subreaper_child(signal_body, (void *)&k_sigs[_i], msg, sizeof msg);
  ck_assert_msg(WIFEXITED(status), "%s killed the supervising process", strsignal(k_sigs[_i]));
  ck_assert_msg(msg[0] == '\0', "%s: %s", strsignal(k_sigs[_i]), msg);
}
END_TEST

/* The same through the sequential path (--sanitize, selftest). */
static void signal_san_body(void *ctx, char *msg, size_t len) {
  int sig = *(const int *)ctx;
  char pids[] = "/tmp/kg_pids_XXXXXX";
  int fd = mkstemp(pids);
  if (fd < 0) return (void)snprintf(msg, len, "mkstemp");
  close(fd), unlink(pids);
  setenv("FAKE_PID_FILE", pids, 1);
  pid_t killer = kgt_signal_when(pids, getpid(), sig);
  kg_case c[3] = {good(1), good(47), good(2)};
  kg_result r[3];
  kg_super_opts o = {k_fake, 30.0, 10.0, NULL, NULL, 0, NULL, NULL};
  kg_run_params p = {1, 3, {0, 0, 0, 0}, {0}};
  kg_device_info dev;
  char err[256] = "";
  int rc = kg_supervise_san(c, 3, &p, &o, NULL, r, &dev, err, sizeof err);
  waitpid(killer, NULL, 0);
  pid_t worker, grandchild;
  int have = kgt_read_pids(pids, &worker, &grandchild) == 0;
  unlink(pids);
  if (rc != KG_SUPER_INTERRUPTED) snprintf(msg, len, "kg_supervise_san: %d '%s'", rc, err);
  else if (r[0].status != KG_ST_PASS || r[1].status != KG_ST_PENDING || r[2].status != KG_ST_PENDING)
    snprintf(msg, len, "statuses %s %s %s", kg_status_name(r[0].status), kg_status_name(r[1].status),
             kg_status_name(r[2].status));
  else if (!have) snprintf(msg, len, "no pid file from the fake worker");
  else if (!kgt_gone(worker, 2.0) || !kgt_gone(grandchild, 2.0)) snprintf(msg, len, "a process still runs");
}

START_TEST(test_supervise_san_signal_stops) {
  char msg[512];
  int status = kgt_subreaper_child(signal_san_body, (void *)&k_sigs[_i], msg, sizeof msg);
  ck_assert_msg(WIFEXITED(status), "%s killed the supervising process", strsignal(k_sigs[_i]));
  ck_assert_msg(msg[0] == '\0', "%s: %s", strsignal(k_sigs[_i]), msg);
}
END_TEST

/* nohup and background jobs start us with SIGINT ignored: it stays ignored. */
static void ignored_body(void *ctx, char *msg, size_t len) {
  (void)ctx;
  signal(SIGINT, SIG_IGN);
  kg_super_trap(1);
  raise(SIGINT);
  int caught = kg_super_interrupted();
  kg_super_trap(0);
  struct sigaction now;
  sigaction(SIGINT, NULL, &now);
  if (caught) snprintf(msg, len, "an ignored SIGINT was caught");
  else if (now.sa_handler != SIG_IGN) snprintf(msg, len, "SIGINT is no longer ignored");
}

START_TEST(test_supervise_trap_keeps_ignored) {
  char msg[512];
  int status = kgt_subreaper_child(ignored_body, NULL, msg, sizeof msg);
  ck_assert(WIFEXITED(status));
  ck_assert_msg(msg[0] == '\0', "%s", msg);
}
END_TEST

Suite *make_supervisor_suite(void) {
  Suite *s = suite_create("supervisor");
  TCase *core = tcase_create("Core");
  tcase_add_unchecked_fixture(core, run_misbehaving_plan, NULL);
  tcase_add_test(core, test_supervise_returns_0_with_device);
  tcase_add_loop_test(core, test_supervise_bad_case_isolated, 0, sizeof k_bad / sizeof k_bad[0]);
  tcase_add_test(core, test_supervise_good_cases_pass);
  tcase_add_test(core, test_supervise_worker_reused);
  tcase_add_test(core, test_supervise_unsupported_not_run);
  tcase_add_test(core, test_supervise_progress_each_case);
  tcase_add_test(core, test_supervise_cleans_up);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_set_timeout(limits, 30);
  tcase_add_test(limits, test_supervise_timeout_fraction);
  tcase_add_test(limits, test_supervise_no_worker_needed);
  tcase_add_test(limits, test_supervise_restores_sigpipe);
  tcase_add_test(limits, test_supervise_stdin_closed);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_set_timeout(errors, 30);
  tcase_add_loop_test(errors, test_supervise_start_fails, 0, sizeof k_start / sizeof k_start[0]);
  tcase_add_test(errors, test_supervise_fatal_exact_reason);
  tcase_add_test(errors, test_supervise_start_exit_status);
  TCase *multi = tcase_create("Devices");
  tcase_add_test(multi, test_supervise_two_devices);
  tcase_add_test(multi, test_supervise_device_down);
  tcase_add_test(multi, test_supervise_startup_side_by_side);
  tcase_add_test(multi, test_supervise_too_big_skipped);
  suite_add_tcase(s, multi);
  suite_add_tcase(s, errors);
  TCase *groups = tcase_create("Groups");
  tcase_set_timeout(groups, 60);
  tcase_add_loop_test(groups, test_supervise_san_bad_case_isolated, 0, sizeof k_bad / sizeof k_bad[0]);
  tcase_add_test(groups, test_supervise_endless_line_bounded);
  tcase_add_loop_test(groups, test_supervise_group_killed, 0, sizeof k_group / sizeof k_group[0]);
  tcase_add_loop_test(groups, test_supervise_signal_stops, 0, sizeof k_sigs / sizeof k_sigs[0]);
  tcase_add_loop_test(groups, test_supervise_san_signal_stops, 0, sizeof k_sigs / sizeof k_sigs[0]);
  tcase_add_test(groups, test_supervise_trap_keeps_ignored);
  suite_add_tcase(s, groups);
  return s;
}
