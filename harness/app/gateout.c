#include "gateout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcode.h"
#include "jobs.h"
#include "export.h"
#include "fileio.h"
#include "plan.h"
#include "publish.h"
#include "report.h"
#include "supervisor.h"

int kg_out_reports(const char *const *reports, const kg_rdoc *doc) {
  char err[512];
  int rc = kg_report_files(reports, doc, stderr);
  const char *summary = getenv("GITHUB_STEP_SUMMARY");
  if (summary && *summary) {
    /* The step summary is appended to, never replaced: write, then copy in. */
    char tmp[] = "/tmp/kgate-summary-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd >= 0) close(fd);
    else snprintf(err, sizeof err, "cannot write %s: %s", tmp, strerror(errno));
    if (fd < 0 || kg_report_write(KG_FMT_MD, tmp, doc, err, sizeof err) ||
        kg_append_file(summary, tmp, err, sizeof err))
      rc = -1, fprintf(stderr, "kgate: GITHUB_STEP_SUMMARY: %s\n", err);
    if (fd >= 0) unlink(tmp);
  }
  return rc;
}

/* The session's listener: the check table as soon as it is final (before
 * the paired rounds); in a sanitizer run one per tool, under its name. */
static void checked(void *ctx, const char *tool, const kg_case *cases, const kg_result *res, size_t n,
                    const kg_device_info *dev, double wall_s) {
  const kg_gate_opts *go = ctx;
  if (tool) printf("== compute-sanitizer --tool %s ==\n", tool);
  kg_report_check(stdout, cases, res, n, dev, wall_s, go->verbose);
}

/* A run a signal stopped during its check: the reports of what it has. */
static int print_interrupted(const kg_gate_opts *go, const kg_session *s) {
  kg_out_reports(go->reports, &s->doc);
  kg_counts c = kg_count_results(s->run.results, s->run.n);
  fprintf(stderr,
          "kgate: interrupted by %s: %zu of %zu cases not run; the reports asked for are written, marked "
          "incomplete\n",
          kg_super_signal_name(s->interrupted), c.pending, s->run.n);
  return KG_EXIT_SIGNAL + s->interrupted;
}

/* check --sanitize: the summary, the reports, the verdict. */
static int print_sanitized(const kg_gate_opts *go, const kg_session *s) {
  printf("\nsanitizer summary (variant x tool):\n");
  for (size_t k = 0; k < s->doc.nsan; k++) printf("%s\n", s->doc.san[k]);
  int bad_reports = s->measured && kg_out_reports(go->reports, &s->doc) != 0;
  kg_report_verdict(stdout, &s->doc);
  return kg_rm_exit_code(&s->doc.verdict, bad_reports ? KG_EXIT_USAGE : KG_EXIT_OK);
}

/* The run's tables, the lint's lines, the reports, the verdict, the charts. */
static int print_session(const kg_gate_opts *go, const kg_session *s) {
  const kg_rdoc *doc = &s->doc;
  int timing = go->timing && s->measured;
  if (s->measured) kg_report_lint(stdout, doc);
  if (timing && !doc->oom) {
    kg_report_perf(stdout, doc);
    if (s->run.pair.on) kg_report_pairs(stdout, doc);
  }
  /* a module the lint could not read: its one line on stderr (the verdict counts it) */
  if (!s->env && !s->pair_env) kg_report_lint_unread(stderr, doc);
  int bad_reports = s->measured && kg_out_reports(go->reports, doc) != 0;
  kg_report_verdict(stdout, doc);
  /* Charts come last: without gnuplot every other output is already written. */
  int plots = KG_EXIT_OK;
  if (timing && go->plots) plots = kg_publish_charts(go->plots, &s->run, 1, s->have_cmp ? &s->cmp : NULL, s->baseline);
  return kg_rm_exit_code(&doc->verdict, bad_reports ? KG_EXIT_USAGE : plots);
}

/* --plan: the cases and an estimated time, touching no GPU. */
static int print_plan(const kg_gate_opts *go) {
  kg_run run;
  int code = kg_gate_plan(go, &run, stderr);
  if (code) return code;
  kg_report_plan(stdout, run.cases, run.n, kg_plan_estimate_time(run.cases, run.n, go->time.max_seconds), go->verbose);
  kg_run_free(&run);
  return KG_EXIT_OK;
}

int kg_gate_command(const kg_gate_opts *go) {
  if (go->plan_only) return print_plan(go);
  kg_gate_listener ls = {checked, (void *)go, stderr};
  kg_session s;
  int code = kg_gate_session(go, &ls, &s) ? s.code
             : go->sanitize               ? print_sanitized(go, &s)
             : s.interrupted              ? print_interrupted(go, &s)
                                          : print_session(go, &s);
  kg_session_free(&s);
  if (kg_super_interrupted()) code = KG_EXIT_SIGNAL + kg_super_interrupted();
  kg_super_trap(0);
  return code;
}
