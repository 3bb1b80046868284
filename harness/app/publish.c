/* plot, history add, history plot and report: thin commands over chart,
 * plot, history and html. Each writes what it can before it draws, so a
 * missing gnuplot (exit 3) costs the charts and nothing else. */
#include "publish.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "chart.h"
#include "dtype.h"
#include "export.h"
#include "fileio.h"
#include "label.h"
#include "history.h"
#include "detect.h"
#include "bisectjson.h"
#include "html.h"
#include "site.h"
#include "plot.h"

/* What each drawing outcome means for the exit code. */
static const int k_plot_exit[] = {
    [KG_PLOT_OK] = KG_EXIT_OK,      [KG_PLOT_NO_GNUPLOT] = KG_EXIT_ENV, [KG_PLOT_NO_SCRIPTS] = KG_EXIT_ENV,
    [KG_PLOT_FAILED] = KG_EXIT_ENV, [KG_PLOT_IO] = KG_EXIT_USAGE,
};


/* "OLD.json (2026-11-21 08:52 UTC, commit 42cbd2a78d3c)" */
static void base_label(const char *path, const kg_baseline *b, char *buf, size_t len) {
  char date[48];
  kg_date_label(b->date, date, sizeof date);
  snprintf(buf, len, "%s (%s, commit %s)", path, date, b->commit[0] ? b->commit : "unknown");
}

/* Compares run with path (a baseline or a results file), as `kgate compare`
 * does. 0, or -1 after printing why. */
static int compare_file(const char *path, const kg_run *run, double tol_pct, kg_comparison *cmp, char *label,
                        size_t len) {
  char err[512];
  kg_baseline old, now;
  int rc = kg_baseline_load(path, &old, err, sizeof err);
  if (rc) {
    fprintf(stderr, "kgate: %s\n", err);
    return -1;
  }
  base_label(path, &old, label, len);
  if (kg_baseline_from_run(run, &now)) {
    kg_baseline_free(&old);
    fprintf(stderr, "kgate: out of memory\n");
    return -1;
  }
  rc = kg_compare(&old, &now, tol_pct, cmp, err, sizeof err);
  kg_baseline_free(&old);
  kg_baseline_free(&now);
  /* a page compares like with like: a sweep's sizes the baseline lacks are left out, and said */
  if (!rc && kg_comparison_common_sizes(cmp)) rc = -1, snprintf(err, sizeof err, "out of memory");
  if (rc) fprintf(stderr, "kgate: %s\n", err);
  if (!rc && cmp->warning[0]) fprintf(stderr, "kgate: warning: %s\n", cmp->warning);
  return rc ? -1 : 0;
}

static int has_timed(const kg_run *run) {
  for (size_t i = 0; i < run->n; i++)
    if (run->cases[i].timed && run->results[i].timing.samples > 0) return 1;
  return 0;
}

/* Renders the charts listed and says what happened. Returns the exit code. */
static int draw(const char *dir, const kg_charts *charts, char *why, size_t whylen) {
  char err[1024];
  kg_plot_status s = kg_plot_render(dir, charts, err, sizeof err);
  if (s) {
    fprintf(stderr, "kgate: %s\n", err);
    if (why) snprintf(why, whylen, "No charts: %s", err);
    return k_plot_exit[s];
  }
  printf("kgate: drew %zu chart%s in %s (PNG and SVG)\n", charts->n, charts->n == 1 ? "" : "s", dir);
  return KG_EXIT_OK;
}

int kg_publish_charts(const char *dir, const kg_run *run, int with_run, const kg_comparison *cmp,
                      const char *base) {
  char err[1024];
  static kg_charts charts; /* 64 charts of 250 bytes: not on the stack */
  charts.n = 0;
  if (!has_timed(run)) {
    fprintf(stderr, "kgate: the run timed no case: no chart to draw\n");
    return KG_EXIT_OK;
  }
  kg_chart_src src = {.run = run, .with_run = with_run, .cmp = cmp, .base_label = base};
  if (kg_mkdirs(dir, err, sizeof err) || kg_chart_write(dir, &src, NULL, &charts, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  return draw(dir, &charts, NULL, 0);
}

int kg_publish_plot(const kg_publish_opts *po) {
  char err[512], label[600];
  kg_run run;
  if (kg_results_read(po->input, &run, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  kg_comparison cmp = {0};
  int code = KG_EXIT_USAGE;
  if (!has_timed(&run))
    fprintf(stderr, "kgate: %s timed no case: nothing to plot (kgate run times the perf sizes)\n", po->input);
  else if (!po->baseline || compare_file(po->baseline, &run, po->tolerance_pct, &cmp, label, sizeof label) == 0)
    code = kg_publish_charts(po->output, &run, 1, po->baseline ? &cmp : NULL, label);
  kg_comparison_free(&cmp);
  kg_run_free(&run);
  return code;
}

int kg_publish_history_add(const kg_publish_opts *po) {
  char err[512];
  kg_run run;
  if (kg_results_read(po->input, &run, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  kg_run control = {0}, paired = {0};
  int rc = 0;
  if ((po->control && kg_results_read(po->control, &control, err, sizeof err)) ||
      (po->paired && kg_results_read(po->paired, &paired, err, sizeof err)))
    rc = -1;
  else if (po->paired && (!paired.pair.on || strcmp(paired.meta.commit, run.meta.commit) ||
                          !kg_same_gpu(&paired.meta.dev, &run.meta.dev)))
    rc = -1, snprintf(err, sizeof err, "%s: not the same night as %s: a paired run of the same commit and GPU model "
                      "is expected", po->paired, po->input);
  char date[48];
  kg_date_label(run.meta.date, date, sizeof date);
  if (!rc)
    rc = kg_history_add(po->file, &run, po->paired ? &paired : NULL, po->control ? &control : NULL, err, sizeof err);
  if (rc < 0) fprintf(stderr, "kgate: %s\n", err);
  else if (rc == 1)
    printf("kgate: %s already holds the run of %s (%s, commit %s): nothing appended\n", po->file, date,
           run.meta.dev.name, run.meta.commit);
  else
    printf("kgate: appended the run of %s (%s, commit %s) to %s\n", date, run.meta.dev.name, run.meta.commit,
           po->file);
  kg_run_free(&run);
  kg_run_free(&control);
  kg_run_free(&paired);
  return rc < 0 ? KG_EXIT_USAGE : KG_EXIT_OK;
}

/* The baseline of a history's band: --baseline, or <baseline-dir>/<slug>.json
 * when it exists. 0 with *have; -1 after printing why. */
static int band_baseline(const kg_publish_opts *po, const kg_history *h, kg_baseline *b, int *have) {
  char path[PATH_MAX], err[512];
  const kg_device_info *dev = &h->runs[h->n - 1].dev;
  *have = 0;
  if (po->baseline) snprintf(path, sizeof path, "%s", po->baseline);
  else kg_baseline_path(po->baseline_dir, dev->name, path, sizeof path);
  int rc = kg_baseline_load(path, b, err, sizeof err);
  if (rc == 1 && !po->baseline) {
    fprintf(stderr, "kgate: no baseline %s: the trend charts have no band\n", path);
    return 0;
  }
  if (rc) {
    fprintf(stderr, "kgate: %s\n", err);
    return -1;
  }
  if (!kg_same_gpu(&b->dev, dev)) {
    fprintf(stderr, "kgate: baseline %s is for %s, the history is of %s\n", path, b->dev.name, dev->name);
    kg_baseline_free(b);
    return -1;
  }
  *have = 1;
  return 0;
}

static void print_steps(const kg_history *h, const kg_step *steps, size_t n) {
  if (!n) {
    printf("kgate: no step change across %zu run%s\n", h->n, h->n == 1 ? "" : "s");
    return;
  }
  printf("kgate: %zu step change%s between runs (beyond the tolerance, quartiles apart):\n", n, n == 1 ? "" : "s");
  for (size_t i = 0; i < n; i++) {
    const kg_step *s = &steps[i];
    char date[48];
    kg_date_label(h->runs[s->run].date, date, sizeof date);
    printf("  run %zu (%s, commit %s) vs run %zu: %-7s %s %s n=%zu  %.4g -> %.4g us (%+.1f %%, tolerance %.3g %%)\n",
           s->run + 1, date, h->runs[s->run].commit, s->prev + 1, kg_verdict_name(s->verdict), s->variant,
           kg_dtype_get(s->dtype)->name, s->n, s->before_us, s->after_us, (s->after_us / s->before_us - 1) * 100,
           s->tol * 100);
  }
}

int kg_publish_history_plot(const kg_publish_opts *po) {
  char err[1024];
  kg_history h;
  if (kg_history_read(po->input, &h, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  if (!h.n) {
    fprintf(stderr, "kgate: %s holds no run: nothing to draw\n", po->input);
    return KG_EXIT_USAGE;
  }
  kg_baseline base;
  int have = 0, code = KG_EXIT_USAGE;
  kg_step *steps = NULL;
  size_t nsteps = 0;
  static kg_charts charts;
  charts.n = 0;
  if (band_baseline(po, &h, &base, &have)) goto out;
  if (kg_history_steps(&h, po->tolerance_pct, &steps, &nsteps)) {
    fprintf(stderr, "kgate: out of memory\n");
    goto out;
  }
  print_steps(&h, steps, nsteps);
  kg_chart_src src = {.history = &h, .band = have ? &base : NULL, .tol_pct = po->tolerance_pct};
  if (kg_mkdirs(po->output, err, sizeof err) || kg_chart_write(po->output, &src, NULL, &charts, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    goto out;
  }
  code = draw(po->output, &charts, NULL, 0);
out:
  if (have) kg_baseline_free(&base);
  free(steps);
  kg_history_free(&h);
  return code;
}

/* Copies a history into the page's folder, atomically: a regular file within
 * the history's size limit (kg_in_open), every read and write checked. */
static int copy_file(const char *from, const char *to, char *err, size_t errlen) {
  int fd;
  if (kg_in_open(from, KG_HISTORY_MAX, &fd, err, errlen)) return -1;
  kg_outfile o;
  if (kg_out_open(&o, to, err, errlen)) {
    close(fd);
    return -1;
  }
  kg_lines l;
  kg_lines_init(&l, fd, from, KG_HISTORY_MAX);
  char *line;
  size_t len;
  int nl, rc = 0, bad = 0;
  while (!bad && (rc = kg_lines_next(&l, &line, &len, &nl, err, errlen)) == 1)
    bad = fwrite(line, 1, len, o.f) != len || (nl && fputc('\n', o.f) == EOF);
  kg_lines_free(&l);
  close(fd);
  if (bad || rc < 0) {
    if (bad) snprintf(err, errlen, "cannot write %.900s: %s", to, strerror(errno ? errno : EIO));
    kg_out_abort(&o);
    return -1;
  }
  return kg_out_commit(&o, err, errlen);
}

/* The page's files, in the order the page lists them: every output format,
 * then the history. */
static const kg_html_link k_history_file = {"history.jsonl",
                                            "the history this page's trends come from, one run per line"};

static void nightly_summary(FILE *f, const void *doc) { kg_print_nightly_markdown(f, doc); }

/* On a nightly page the Markdown summary is the night's, in the nightly's
 * words (what `history check --summary` writes), not the gate's paired
 * report. 0, or -1 after printing why. */
static int nightly_md(const char *path, const kg_rdoc *doc) {
  char err[1024];
  int rc = kg_out_write(path, nightly_summary, doc, err, sizeof err);
  if (rc) fprintf(stderr, "kgate: %s\n", err);
  return rc ? -1 : 0;
}

/* The output formats' files and history.jsonl into dir, from the page's
 * document; links gets the page's list. */
static int report_files(const kg_publish_opts *po, const char *dir, const kg_rdoc *doc, int nightly,
                        kg_html_link *links) {
  char err[1024], path[PATH_MAX + 64], paths[KG_NFORMATS][PATH_MAX + 64];
  const char *to[KG_NFORMATS];
  for (int f = 0; f < KG_NFORMATS; f++) {
    links[f] = (kg_html_link){kg_formats[f].file, kg_formats[f].about};
    snprintf(paths[f], sizeof paths[f], "%s/%s", dir, kg_formats[f].file);
    to[f] = paths[f];
  }
  if (kg_report_files(to, doc, stderr) || (nightly && nightly_md(paths[KG_FMT_MD], doc))) return -1;
  if (nightly)
    links[KG_FMT_MD].label = "the night's summary: its verdict, the nights that did not pass and the findings";
  links[KG_NFORMATS] = k_history_file;
  snprintf(path, sizeof path, "%s/%s", dir, k_history_file.href);
  if (po->history && copy_file(po->history, path, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return -1;
  }
  return 0;
}

/* Commits become links when the repository is known: $KGATE_REPO_URL, or
 * what GitHub Actions sets. A URL that is not plainly safe is not used:
 * repo is left empty. */
void kg_publish_repo_url(char *repo, size_t len) {
  const char *ru = getenv("KGATE_REPO_URL"), *gs = getenv("GITHUB_SERVER_URL"), *gr = getenv("GITHUB_REPOSITORY");
  repo[0] = 0;
  if (ru && ru[0]) snprintf(repo, len, "%s", ru);
  else if (gs && gr && gs[0] && gr[0]) snprintf(repo, len, "%s/%s", gs, gr);
  if (repo[0] && !kg_html_url_ok(repo)) {
    fprintf(stderr, "kgate: warning: repository URL '%s' is not a plain http(s) URL: commits are not linked\n", repo);
    repo[0] = 0;
  }
}

/* The detector over the history's paired nights, as `history check` runs
 * it (the calibrated defaults, the acknowledgements of --ack): the page's
 * findings and ratio charts. *have stays 0 when no night is paired. 0, or
 * -1 after printing why. */
static int report_detect(const kg_publish_opts *po, const kg_history *h, kg_acks *acks, kg_detection *d, int *have) {
  char err[1024];
  int paired = 0;
  for (size_t i = 0; i < h->n && !paired; i++) paired = h->runs[i].paired.has;
  if (!paired) return 0;
  if (po->ack && kg_acks_read(po->ack, acks, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return -1;
  }
  kg_detect_opts opts = kg_detect_defaults();
  if (kg_detect(h, po->ack ? acks : NULL, &opts, d)) {
    fprintf(stderr, "kgate: out of memory\n");
    return -1;
  }
  *have = 1;
  return 0;
}

/* What a report shows: the run, its comparison with --baseline, and with
 * --history the history's band, its nights and the detector's findings. */
typedef struct report_src {
  kg_run run;
  kg_comparison cmp;
  char label[600]; /* names the baseline */
  kg_history h;
  kg_baseline base;
  int have_base; /* base is the band of the trends */
  kg_acks acks;
  kg_detection det;
  int have_detect;
  kg_bisect_doc bisect; /* --bisect's, when it is of a finding of the history (else not shown) */
  int have_bisect;
} report_src;

/* --bisect: the file read as data from elsewhere (kg_bisect_read: refused,
 * -1 after printing why), then shown only where it is an answer about a
 * finding of the history (its range and cells): else a warning, and the
 * page without it. 0 or -1. */
static int report_bisect(const kg_publish_opts *po, report_src *rs) {
  char err[1024], shown[80];
  if (kg_bisect_read(po->bisect, &rs->bisect, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return -1;
  }
  const kg_bisect_doc *b = &rs->bisect;
  size_t of = 0;
  for (size_t i = 0; rs->have_detect && i < rs->det.nfind; i++) of += kg_bisect_doc_of(b, &rs->h, &rs->det.find[i]);
  snprintf(shown, sizeof shown, "%.12s..%.12s", b->commits[0], b->commits[b->ncommits - 1]);
  if (!kg_bisect_doc_answers(b))
    fprintf(stderr, "kgate: warning: %s: the bisect of %s is no answer (outcome %s): not shown\n", po->bisect, shown,
            kg_bisect_outcome_name(b->outcome));
  else if (!of)
    fprintf(stderr, "kgate: warning: %s: the bisect of %s is of no finding of %s (not its range or cells): not shown\n",
            po->bisect, shown, po->history);
  else
    rs->have_bisect = 1;
  return 0;
}

/* The history's part of the report: the detector over its paired nights
 * (the nights' verdicts, rmodel.h), and the band of the trends. 0, or -1
 * after printing why. */
static int report_history(const kg_publish_opts *po, report_src *rs) {
  char err[1024];
  if (kg_history_read(po->history, &rs->h, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return -1;
  }
  if (report_detect(po, &rs->h, &rs->acks, &rs->det, &rs->have_detect)) return -1;
  if (po->bisect && report_bisect(po, rs)) return -1;
  /* The band of the trends: the baseline the run is compared with. */
  rs->have_base = po->baseline && kg_baseline_load(po->baseline, &rs->base, err, sizeof err) == 0 && rs->h.n &&
                  kg_same_gpu(&rs->base.dev, &rs->h.runs[rs->h.n - 1].dev);
  return 0;
}

/* The charts into dir, drawn when the run timed a case; note says why
 * there are none. draw's exit code, or -1 after printing why when the
 * charts' data could not be written (then no page is made). */
static int report_charts(const kg_publish_opts *po, const char *dir, const report_src *rs, kg_charts *charts,
                         char *note, size_t notelen) {
  char err[1024];
  kg_chart_src src = {.run = &rs->run, .with_run = 1, .cmp = po->baseline ? &rs->cmp : NULL,
                      .base_label = rs->label, .history = po->history ? &rs->h : NULL,
                      .band = rs->have_base ? &rs->base : NULL, .tol_pct = po->tolerance_pct,
                      .detect = rs->have_detect ? &rs->det : NULL};
  if (!has_timed(&rs->run)) {
    snprintf(note, notelen, "No charts: the run timed no case (kgate run times the perf sizes).");
    return KG_EXIT_OK;
  }
  if (kg_chart_write(dir, &src, NULL, charts, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return -1;
  }
  return draw(dir, charts, note, notelen);
}

/* The page into the site's folder, which then goes in place. code: what
 * the charts gave. Without gnuplot (exit 3) the page is whole but for its
 * images: it goes in place; a file that could not be written (exit 2)
 * keeps the old one. The exit code. */
static int report_page(const kg_publish_opts *po, kg_site *site, const kg_html_page *page, int code) {
  char err[1024];
  if (code == KG_EXIT_USAGE || kg_html_write(site->tmp, page, err, sizeof err) ||
      kg_site_commit(site, err, sizeof err)) {
    if (code != KG_EXIT_USAGE) fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  printf("kgate: wrote %s/index.html%s\n", po->html, po->history ? " and archive.html" : "");
  return code;
}

/* Everything the report read; base also when it loaded but was no band
 * (a baseline of another GPU). */
static void report_free(report_src *rs) {
  kg_bisect_doc_free(&rs->bisect);
  if (rs->have_detect) kg_detection_free(&rs->det);
  kg_acks_free(&rs->acks);
  kg_history_free(&rs->h);
  if (rs->have_base || rs->base.entries) kg_baseline_free(&rs->base);
  kg_comparison_free(&rs->cmp);
  kg_run_free(&rs->run);
}

/* The page of what the report read, and its document: what the page, the
 * files and the night's summary print, built once (page->doc). 0, or -1
 * after saying why. The charts, the note and the links come later. */
static int report_doc(const kg_publish_opts *po, const report_src *rs, const char *repo, kg_html_page *page,
                      kg_rdoc *doc) {
  *page = (kg_html_page){.run = &rs->run,
                         .cmp = po->baseline ? &rs->cmp : NULL,
                         .baseline = po->baseline ? rs->label : NULL,
                         .history = po->history ? &rs->h : NULL,
                         .nlinks = KG_NFORMATS + 1,
                         .repo_url = repo[0] ? repo : NULL,
                         .detect = rs->have_detect ? &rs->det : NULL,
                         .bisect = rs->have_bisect ? &rs->bisect : NULL,
                         .doc = doc};
  if (!kg_html_doc(doc, page)) return 0;
  fprintf(stderr, "kgate: out of memory for the report\n");
  return -1;
}

int kg_publish_report(const kg_publish_opts *po) {
  char err[1024], note[1200] = "", repo[256];
  kg_html_link links[KG_NFORMATS + 1];
  report_src rs = {0};
  int code = KG_EXIT_USAGE, have_doc = 0;
  kg_html_page page;
  kg_rdoc doc;
  static kg_charts charts;
  charts.n = 0;
  kg_site site = {.tmp = ""};
  if (po->bisect && !po->history) {
    fprintf(stderr, "kgate: report: --bisect needs --history (the findings a bisect is of)\n");
    return KG_EXIT_USAGE;
  }
  if (kg_results_read(po->input, &rs.run, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  if (po->baseline && compare_file(po->baseline, &rs.run, po->tolerance_pct, &rs.cmp, rs.label, sizeof rs.label))
    goto out;
  if (po->history && report_history(po, &rs)) goto out;
  /* Rendered into a fresh folder beside DIR and renamed into place: a full
   * disk or a crash keeps the old site and leaves no partial DIR. */
  if (kg_site_begin(&site, po->html, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    goto out;
  }
  kg_publish_repo_url(repo, sizeof repo);
  if (report_doc(po, &rs, repo, &page, &doc)) goto out;
  have_doc = 1;
  if (report_files(po, site.tmp, &doc, rs.have_detect, links)) goto out;
  int drawn = report_charts(po, site.tmp, &rs, &charts, note, sizeof note);
  page.charts = &charts, page.note = note[0] ? note : NULL, page.links = links;
  code = drawn < 0 ? KG_EXIT_USAGE : report_page(po, &site, &page, drawn);
  /* The run's verdict decides, as it did the run's exit; a nightly page's
   * verdict is the night's, which `history check` exits with. */
  if (!po->history) code = kg_rm_exit_code(&doc.verdict, code);
out:
  if (have_doc) kg_rdoc_free(&doc);
  kg_site_abort(&site);
  report_free(&rs);
  return code;
}
