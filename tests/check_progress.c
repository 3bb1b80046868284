/* progress: the live line on a terminal; phase lines and count lines at most
 * one per interval, with an ETA, in a CI log (a clock the test moves). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"

static double g_now;
static double fake_now(void) { return g_now; }

/* What was written to the log, from a tmpfile. */
static char *contents(FILE *f) {
  long n = ftell(f);
  char *text = calloc((size_t)n + 1, 1);
  rewind(f);
  ck_assert_uint_eq(fread(text, 1, (size_t)n, f), (size_t)n);
  return text;
}

/* The count lines (those with an ETA) and the times they were printed at. */
static int count_lines(const char *text, const char *prefix) {
  int n = 0;
  for (const char *l = text; (l = strstr(l, prefix)); l++)
    if (strstr(l, "ETA") && strchr(l, '\n') > strstr(l, "ETA")) n++;
  return n;
}

/* 1000 cases, one every 0.1 s (100 s): the log gets the phase line, a count
 * line each 10 s and no more, the done line; never a "\r". */
START_TEST(test_progress_log_at_most_one_line_per_interval) {
  FILE *f = tmpfile();
  kg_progress p;
  g_now = 5;
  kg_progress_init(&p, f, 0, fake_now);
  kg_progress_phase(&p, "check", "1000 cases, 0 of them timed, on 1 device");
  double last = -1;
  int lines = 0;
  for (size_t i = 1; i <= 1000; i++) {
    g_now = 5 + 0.1 * (double)i;
    long before = ftell(f);
    kg_progress_case(&p, i, 1000, "cub_sum i32 n=1 random", i % 100 == 0);
    if (ftell(f) != before && i < 1000) {
      ck_assert_msg(last < 0 || g_now - last >= 10 - 1e-9, "two count lines %.1f s apart", g_now - last);
      last = g_now, lines++;
    }
  }
  char *text = contents(f);
  ck_assert_ptr_null(strchr(text, '\r'));
  ck_assert_msg(strncmp(text, "kgate: check: 1000 cases, 0 of them timed, on 1 device\n", 55) == 0, "%s", text);
  ck_assert_int_eq(lines, 9); /* at 10, 20, ... 90 s; the 100th second is the done line */
  ck_assert_int_eq(count_lines(text, "kgate: check: "), 9);
  /* at 10 s: 100 done of 1000 in 10 s, so 900 more take 90 s; one failure so far */
  ck_assert_msg(strstr(text, "kgate: check: 100/1000 cases, 1 failed, 10 s, ETA 90 s\n") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "kgate: check: 500/1000 cases, 5 failed, 50 s, ETA 50 s\n") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "kgate: check: done, 1000 cases, 10 failed, in 100 s\n") != NULL, "%s", text);
  free(text);
  fclose(f);
}
END_TEST

/* A phase restarts the interval, the counts and the ETA's rate. */
START_TEST(test_progress_phases) {
  FILE *f = tmpfile();
  kg_progress p;
  g_now = 0;
  kg_progress_init(&p, f, 0, fake_now);
  kg_progress_phase(&p, "check", NULL);
  g_now = 1;
  kg_progress_case(&p, 1, 2, "a", 1);
  g_now = 2;
  kg_progress_case(&p, 2, 2, "b", 0);
  kg_progress_phase(&p, "paired rounds", "against team 1.0");
  g_now = 11; /* 9 s into the phase: no line yet */
  kg_progress_case(&p, 1, 4, "c", 0);
  g_now = 12;
  kg_progress_case(&p, 2, 4, "d", 0);
  kg_progress_phase(&p, "reports", NULL);
  char *text = contents(f);
  ck_assert_str_eq(text, "kgate: check\n"
                         "kgate: check: done, 2 cases, 1 failed, in 2 s\n"
                         "kgate: paired rounds: against team 1.0\n"
                         "kgate: paired rounds: 2/4 cases, 0 failed, 10 s, ETA 10 s\n"
                         "kgate: reports\n");
  free(text);
  fclose(f);
}
END_TEST

/* A held phase's line waits for kg_progress_start (the first worker's
 * hello), and its clock starts then; a phase started before it drops it
 * (the worker never said hello); start with nothing held says nothing. */
START_TEST(test_progress_held_phase) {
  FILE *f = tmpfile();
  kg_progress p;
  g_now = 0;
  kg_progress_init(&p, f, 0, fake_now);
  kg_progress_phase_held(&p, "check", "2 cases on 1 device");
  g_now = 5; /* the worker's start-up */
  ck_assert_int_eq(ftell(f), 0);
  kg_progress_start(&p);
  kg_progress_start(&p);
  g_now = 7;
  kg_progress_case(&p, 2, 2, "b", 0);
  kg_progress_phase_held(&p, "check", "2 cases on 1 device");
  kg_progress_phase(&p, "reports", NULL);
  kg_progress_start(&p);
  char *text = contents(f);
  ck_assert_str_eq(text, "kgate: check: 2 cases on 1 device\n"
                         "kgate: check: done, 2 cases, 0 failed, in 2 s\n"
                         "kgate: reports\n");
  free(text);
  fclose(f);
}
END_TEST

/* A stalled phase still logs each interval; with nothing done the ETA is unknown. */
START_TEST(test_progress_eta_unknown) {
  FILE *f = tmpfile();
  kg_progress p;
  g_now = 0;
  kg_progress_init(&p, f, 0, fake_now);
  kg_progress_phase(&p, "check", NULL);
  g_now = 10;
  kg_progress_case(&p, 0, 5, "a", 0);
  char *text = contents(f);
  ck_assert_str_eq(text, "kgate: check\nkgate: check: 0/5 cases, 0 failed, 10 s, ETA unknown\n");
  free(text);
  fclose(f);
}
END_TEST

/* A terminal: the live line, redrawn, cleared at the end; no phase lines. */
START_TEST(test_progress_tty_live_line) {
  FILE *f = tmpfile();
  kg_progress p;
  g_now = 0;
  kg_progress_init(&p, f, 1, fake_now);
  kg_progress_phase(&p, "check", "2 cases");
  g_now = 3;
  kg_progress_case(&p, 1, 2, "a", 0);
  kg_progress_case(&p, 2, 2, "b", 0);
  char *text = contents(f);
  ck_assert_str_eq(text, "\r\033[K[1/2 3 s] a\r\033[K[2/2 3 s] b\r\033[K");
  free(text);
  fclose(f);
}
END_TEST

/* A phase that logs itself (the paired rounds: a line per round): no count or
 * done lines from the passes inside it; the terminal still gets its live line. */
START_TEST(test_progress_phase_logs_itself) {
  for (int tty = 0; tty < 2; tty++) {
    FILE *f = tmpfile();
    kg_progress p;
    g_now = 0;
    kg_progress_init(&p, f, tty, fake_now);
    kg_progress_phase(&p, "paired rounds", NULL);
    p.counts = 0;
    for (int round = 0; round < 3; round++)
      for (size_t i = 1; i <= 4; i++) {
        g_now += 10;
        kg_progress_case(&p, i, 4, "c", 0);
      }
    char *text = contents(f);
    if (tty) ck_assert_msg(strstr(text, "\r\033[K[4/4 120 s] c") != NULL, "%s", text);
    else ck_assert_str_eq(text, "kgate: paired rounds\n");
    free(text);
    fclose(f);
  }
}
END_TEST

/* -q: nothing at all. */
START_TEST(test_progress_quiet) {
  kg_progress p;
  g_now = 0;
  kg_progress_init(&p, NULL, 0, fake_now);
  kg_progress_phase(&p, "check", NULL);
  g_now = 100;
  kg_progress_case(&p, 1, 2, "a", 1);
  kg_progress_case(&p, 2, 2, "b", 0);
  kg_progress_clear(&p);
  ck_assert_uint_eq(p.failed, 1); /* counted, not printed */
}
END_TEST

Suite *make_progress_suite(void) {
  Suite *s = suite_create("progress");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_progress_log_at_most_one_line_per_interval);
  tcase_add_test(core, test_progress_phases);
  tcase_add_test(core, test_progress_held_phase);
  tcase_add_test(core, test_progress_eta_unknown);
  tcase_add_test(core, test_progress_tty_live_line);
  tcase_add_test(core, test_progress_phase_logs_itself);
  tcase_add_test(core, test_progress_quiet);
  suite_add_tcase(s, core);
  return s;
}
