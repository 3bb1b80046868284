/* The nightly pages: plain HTML 4-compatible markup (validates with
 * `xmllint --html`), inline CSS, no script, so it works from any static host
 * and from a folder on disk. Images and links are checked against the
 * folder before they are written: a chart gnuplot could not draw, or a file
 * that was not produced, is left out rather than linked broken. */
#include "html.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dtype.h"
#include "escape.h"
#include "export.h"
#include "fileio.h"
#include "label.h"
#include "plot.h"
#include "varreg.h"
#include "severity.h"
#include "site.h"
#include "svg.h"

enum { KG_HTML_MAX_FAILED = 50 };

/* Layout only: the colours of severity are written from severity.h (style()). */
static const char k_style[] =
    ":root{color-scheme:light dark}\n"
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;background:#fff;max-width:1540px;"
    "margin:1.5em auto;padding:0 1em;line-height:1.4}\n"
    "h1{margin:0 0 0.2em}h2{margin-top:1.8em;border-bottom:1px solid #ccc}\n"
    ".meta{color:#555;margin-top:0}.box{padding:0.5em 1em;margin:0.5em 0}\n"
    "table{border-collapse:collapse;margin:0.4em 0 1.4em;font-variant-numeric:tabular-nums}\n"
    "th,td{padding:0.15em 0.7em;border-bottom:1px solid #e2e2e2;text-align:right}\n"
    "th{background:#f4f4f4}th.l,td.l{text-align:left}\n"
    ".caption{color:#555;margin:0.2em 0}.toc a{margin-right:1em}\n"
    ".verdict{font-size:1.3em;font-weight:bold;padding:0.5em 0.8em;border-radius:4px;margin:0.4em 0}\n"
    "td.c{text-align:center}\n"
    /* The headline charts: the SVG (its points' tooltips work with no
     * script), one a row, so a 1500 px figure is drawn near its own size on
     * a desktop (two a row drew it at 45 %: 5 px text at 1400 px); each in a
     * box that scrolls sideways when the chart is wider than the screen. */
    ".shots{display:flex;flex-wrap:wrap;gap:1%}.shot{flex:0 0 100%;min-width:0}\n"
    ".scroll{overflow-x:auto}.scroll object{display:block;box-sizing:border-box;width:100%;height:auto;border:1px "
    "solid #eee}\n"
    ".scroll img{display:block;max-width:100%;height:auto;border:1px solid #eee}.shot .caption{font-size:0.9em}\n"
    ".swipe{display:none}\n"
    /* A phone: one column; a chart at its own size (gnuplot's 13 px text at
     * 1:1, as on a desktop at full size), a swipe across its panels, since
     * at 390 px a 1500 px figure of eight panels scaled down is unreadable;
     * wide tables scroll in their own box, the page never does, and their
     * cells stay one line (wrapped, a paired row was 95 px tall). */
    "@media (max-width:700px){body{margin:0.6em auto;padding:0 0.6em}h1{font-size:1.5em}.shot{flex:0 0 100%}\n"
    ".scroll object{width:var(--w);max-width:none}.swipe{display:inline}\n"
    "table{display:block;overflow-x:auto;max-width:100%}th,td{white-space:nowrap}\n"
    ".verdict{font-size:1.1em}}\n"
    /* Dark: the page's own colours, and the charts (PNG links open as they
     * are; an SVG darkens itself, svg.h) with lightness inverted, hues kept. */
    "@media (prefers-color-scheme:dark){body{color:#ddd;background:#15171a}a{color:#8ab4f8}a:visited{color:#c29ffa}\n"
    "h2{border-bottom-color:#444}.meta,.caption{color:#aaa}th{background:#24272c}th,td{border-bottom-color:#33363b}\n"
    ".scroll object{border-color:#333}}\n";

/* ---- text ------------------------------------------------------------------- */

/* Every string on the page goes through here, whether it came from a file
 * (GPU name, date, commit, variant names, messages) or from kgate: a page
 * built from another machine's results must not run anything. */
static void esc(FILE *f, const char *s) { kg_esc_html(f, s); }

/* An href or src: the names kgate writes are plain, but escape anyway. */
static void attr(FILE *f, const char *name, const char *value) {
  fprintf(f, " %s=\"", name);
  esc(f, value);
  fputc('"', f);
}




static int exists_in(const char *dir, const char *name) {
  char path[4096];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}


/* ---- versions and links ----------------------------------------------------- */

void kg_cuda_version_label(int v, char *buf, size_t len) {
  if (v <= 0) snprintf(buf, len, "unknown");
  else snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
}

int kg_html_url_ok(const char *url) {
  const char *p = !strncmp(url, "https://", 8) ? url + 8 : !strncmp(url, "http://", 7) ? url + 7 : NULL;
  if (!p || !isalnum((unsigned char)*p) || strlen(url) > 200 || strstr(url, "..")) return 0;
  for (; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("._~-/:", *p)) return 0;
  return 1;
}

/* A commit as a link to repo/commit/<hex> when both are safe to link; text otherwise. */
static void commit_link(FILE *f, const char *repo, const char *commit) {
  char hex[48], href[300];
  if (repo && kg_rm_commit_hex(commit, hex, sizeof hex)) {
    snprintf(href, sizeof href, "%s/commit/%s", repo, hex);
    fputs("<a", f);
    attr(f, "href", href);
    fputc('>', f);
    esc(f, commit);
    fputs("</a>", f);
  } else {
    esc(f, commit[0] ? commit : "unknown");
  }
}

/* The night before this run in the history: the latest earlier run with another commit. NULL: none. */
static const kg_hist_run *previous_night(const kg_html_page *p) {
  const kg_history *h = p->history;
  if (!h || !h->n) return NULL;
  size_t end = h->n;
  for (size_t i = h->n; i-- > 0;)
    if (!strcmp(h->runs[i].date, p->run->meta.date) && !strcmp(h->runs[i].commit, p->run->meta.commit)) {
      end = i;
      break;
    }
  for (size_t i = end; i-- > 0;)
    if (strcmp(h->runs[i].commit, p->run->meta.commit)) return &h->runs[i];
  return NULL;
}

/* "<a>old...new</a>": the commits from one night to another, a compare link when both can be linked. */
static void range_link(FILE *f, const char *repo, const char *from, const char *to) {
  char a[48], b[48], href[400];
  if (repo && kg_rm_commit_hex(from, a, sizeof a) && kg_rm_commit_hex(to, b, sizeof b)) {
    snprintf(href, sizeof href, "%s/compare/%s...%s", repo, a, b);
    fputs("<a", f);
    attr(f, "href", href);
    fprintf(f, ">%.12s...%.12s</a>", a, b); /* hex: nothing to escape; 12 digits name a commit */
  } else {
    esc(f, from[0] ? from : "unknown");
    fputs("...", f);
    esc(f, to[0] ? to : "unknown");
  }
}

/* "changes since the night of DATE: <a>old...new</a>" when both commits can be linked. */
static void compare_range(FILE *f, const kg_html_page *p) {
  const kg_hist_run *prev = previous_night(p);
  char date[48];
  if (!prev) return;
  kg_date_label(prev->date, date, sizeof date);
  fputs(" &middot; since the night of ", f);
  esc(f, date);
  fputs(": ", f);
  range_link(f, p->repo_url, prev->commit, p->run->meta.commit);
}

/* ---- sections ----------------------------------------------------------------- */

/* The layout, then a class per level of severity.h: .failure, .regression, ...
 * for a box and tr.<level> for a table row, so every colour of the page comes
 * from the one scale. .muted: an acknowledged finding, kept but quiet. */
static void style(FILE *f) {
  fprintf(f, "<style>\n%s", k_style);
  for (int i = 0; i < KG_NSEVERITIES; i++) {
    const kg_severity_info *v = kg_severity_get((kg_severity)i);
    fprintf(f, ".%s{background:#%06x;border:1px solid #%06x}tr.%s td{background:#%06x}.%s .tag{color:#%06x}\n",
            v->name, v->fill, v->edge, v->name, v->fill, v->name, v->ink);
  }
  /* Dark: a level's box and row tinted with its ink (a quarter), the text the page's. */
  fputs("@media (prefers-color-scheme:dark){\n", f);
  for (int i = 0; i < KG_NSEVERITIES; i++) {
    const kg_severity_info *v = kg_severity_get((kg_severity)i);
    fprintf(f, ".%s{background:#%06x40;border-color:#%06x}tr.%s td{background:#%06x33}.%s .tag{color:#%06x}\n",
            v->name, v->ink, v->edge, v->name, v->ink, v->name, v->edge);
  }
  fputs("}\n.muted{opacity:0.6}\n</style>\n", f);
}

/* The class of a level: "regression". */
static const char *sev(kg_severity s) { return kg_severity_get(s)->name; }

/* A table row coloured by its level (KG_NSEVERITIES: plain), up to its first cell's text. */
static void row_open(FILE *f, kg_severity s) {
  if (s < KG_NSEVERITIES) fprintf(f, "<tr class=\"%s\"><td class=\"l\">", sev(s));
  else fputs("<tr><td class=\"l\">", f);
}

/* A cell of the report model: everything escaped, a ratio with its sign. */
static void cell(FILE *f, const kg_rm_cell *c) {
  if (!c->text) return;
  esc(f, c->text);
  if (c->flags & KG_RM_TIMES) fputs("&times;", f);
}

/* A nightly's page has a history; a one-off report (report RESULTS.json
 * --html DIR alone) is titled as one, its run not called a night. */
static void head(FILE *f, const kg_run *run, int nightly) {
  char date[48];
  kg_date_label(run->meta.date, date, sizeof date);
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        f);
  fputs(nightly ? KG_SITE_TITLE : KG_SITE_TITLE_REPORT, f);
  esc(f, run->meta.dev.name[0] ? run->meta.dev.name : "unknown GPU");
  fputs(", ", f);
  esc(f, date);
  fputs("</title>\n", f);
  style(f);
  fputs("</head>\n<body>\n", f);
}

/* The headline, as the report model words it. On a nightly page (a history
 * the detector read) the page's night (kg_rdoc_nights: the night's verdict
 * as the archive, the charts' night markers and `history check` say it, the
 * run's own failed cases first). Otherwise the run's verdict, as every
 * format and the exit code say it (rmodel.h). */
static void verdict(FILE *f, const kg_rdoc *doc) {
  const kg_rm_night *n = &doc->findings.page;
  if (n->word) {
    fprintf(f, "<p class=\"verdict %s\" id=\"verdict\">%s: ", sev(n->sev), n->word);
    esc(f, n->why);
    fputs("</p>\n", f);
    return;
  }
  const kg_rm_verdict *v = &doc->verdict; /* the run's gate, as every format says it */
  fprintf(f, "<p class=\"verdict %s\" id=\"verdict\">%s: ", sev(v->sev), v->word);
  for (size_t k = 0; k < v->nwhy; k++) cell(f, &v->why[k]);
  fputs("</p>\n", f);
}

static void findings(FILE *f, const kg_html_page *p, const kg_rdoc *doc);
static void headline(FILE *f, const char *dir, const kg_html_page *p);

/* "History: 12 nights: 10 PASS, 2 REGRESSION": each night's verdict (kg_rdoc_nights), counted. */
static void history_item(FILE *f, const kg_history *h, const kg_rdoc *doc) {
  size_t count[KG_NNIGHT_VERDICTS] = {0};
  for (size_t i = 0; doc->findings.night && i < h->n; i++) count[doc->findings.night[i].v.verdict]++;
  fprintf(f, "<li>History: %zu night%s", h->n, h->n == 1 ? "" : "s");
  for (int v = 0, shown = 0; v < KG_NNIGHT_VERDICTS; v++)
    if (count[v]) fprintf(f, "%s %zu %s", shown++ ? "," : ":", count[v], kg_night_verdict_name((kg_night_verdict)v));
  fputs("</li>\n", f);
}

static int same_counts(const kg_counts *a, const kg_counts *b) {
  return a->cases == b->cases && a->passed == b->passed && a->failed == b->failed && a->errored == b->errored &&
         a->unsupported == b->unsupported && a->pending == b->pending;
}

/* The Checks line. A nightly page counts its night as the archive does: the
 * cases of the night's line in the history (history add wrote it from the
 * night's results). Where the page's results file holds other cases (a
 * paired run's file beside the line of the night's sweep), its own counts
 * follow, named as its, so no number on the page contradicts the archive. */
static void checks_item(FILE *f, const kg_html_page *p, const kg_rdoc *doc) {
  size_t i = kg_rm_night_find(p->history, p->run->meta.date, p->run->meta.commit);
  const kg_counts *c = p->history && i < p->history->n ? &p->history->runs[i].checks : NULL;
  kg_counts k = kg_count_results(p->run->results, p->run->n);
  fputs("<li>Checks: ", f);
  if (c && !same_counts(c, &k)) {
    fprintf(f, "the night's %zu cases, %zu passed, %zu failed, %zu errors, %zu unsupported", c->cases, c->passed,
            c->failed, c->errored, c->unsupported);
    if (c->pending) fprintf(f, ", %zu not run", c->pending);
    fputs(" (its line of the history, as <a href=\"archive.html\">every night</a> counts them); this page's "
          "results file: ", f);
  }
  esc(f, doc->checks);
  fputs("</li>\n", f);
}

/* The run in a list: the GPU, the checks, each comparison's counts, the history. */
static void summary_list(FILE *f, const kg_html_page *p, const kg_rdoc *doc) {
  const kg_device_info *d = &p->run->meta.dev;
  char l2[32], drv[16], rt[16];
  kg_bytes_label((double)d->l2_bytes, l2, sizeof l2);
  kg_cuda_version_label(d->driver_version, drv, sizeof drv);
  kg_cuda_version_label(d->runtime_version, rt, sizeof rt);
  fprintf(f, "<ul>\n<li>GPU: compute capability %d.%d, %d SMs, L2 %s", d->cc_major, d->cc_minor, d->sms, l2);
  if (d->peak_gbps > 0) fprintf(f, ", theoretical peak %.0f GB/s", d->peak_gbps);
  if (d->roofline_gbps > 0) fprintf(f, ", measured roofline %.0f GB/s", d->roofline_gbps);
  fprintf(f, ", driver %s, CUDA runtime %s</li>\n", drv, rt);
  checks_item(f, p, doc);
  if (doc->cold) {
    fputs("<li>Cold L2: ", f);
    esc(f, doc->cold);
    if (doc->cold_cells) fputs("; <strong>could not be verified</strong> for ", f), esc(f, doc->cold_cells);
    fputs("</li>\n", f);
  }
  if (p->cmp) {
    fputs("<li>Performance against ", f);
    esc(f, p->baseline ? p->baseline : "the baseline");
    fputs(p->run->pair.on ? " (advisory: the paired gate decides): " : ": ", f);
    esc(f, doc->perf_counts);
    fputs("</li>\n", f);
  } else if (!p->run->pair.on) {
    fputs("<li>Performance: no baseline to compare with</li>\n", f);
  }
  if (p->run->pair.on) {
    /* A nightly's run is paired with the pinned reference: one night's
     * intervals, which decide nothing (the detector does), so no verdict
     * counts here to read beside the headline. */
    fputs(p->detect ? "<li>Tonight against the pinned reference " : "<li>Paired gate against ", f);
    for (size_t k = 0; k < doc->paired.module.nparts; k++) cell(f, &doc->paired.module.parts[k]);
    if (p->detect) {
      fprintf(f, ": %zu cell%s, one night's intervals (<a href=\"#paired\">the table</a>); the detector over the "
                 "nights decides</li>\n", p->run->npairs, p->run->npairs == 1 ? "" : "s");
    } else {
      fputs(": ", f);
      esc(f, doc->paired.counts);
      fputs("</li>\n", f);
    }
  }
  if (p->history) history_item(f, p->history, doc);
  fputs("</ul>\n", f);
}

static void summary(FILE *f, const char *dir, const kg_html_page *p, const kg_rdoc *doc) {
  const kg_run_meta *m = &p->run->meta;
  const kg_device_info *d = &m->dev;
  char date[48];
  kg_date_label(m->date, date, sizeof date);
  fputs(p->history ? "<h1>kgate nightly: " : "<h1>kgate report: ", f);
  esc(f, d->name[0] ? d->name : "unknown GPU");
  fputs("</h1>\n", f);
  verdict(f, doc);
  fputs(p->history ? "<p class=\"meta\">night of " : "<p class=\"meta\">run of ", f);
  esc(f, date);
  fputs(" &middot; commit ", f);
  commit_link(f, p->repo_url, m->commit);
  compare_range(f, p);
  fputs(" &middot; kgate ", f);
  esc(f, m->version);
  fprintf(f, " &middot; %s L2 &middot; seed %llu &middot; %.0f s", m->time.hot ? "warm" : "cold",
          (unsigned long long)m->seed, m->wall_s);
  if (p->history) fputs(" &middot; <a href=\"archive.html\">every night</a>", f);
  fputs("</p>\n", f);
  if (p->note) {
    fprintf(f, "<p class=\"box %s\">", sev(KG_SEV_NOTICE));
    esc(f, p->note);
    fputs("</p>\n", f);
  }
  /* The first screen: the open findings and the charts themselves; the details after them. */
  findings(f, p, doc);
  headline(f, dir, p);
  summary_list(f, p, doc);
  if (doc->warning) {
    fprintf(f, "<p class=\"box %s\">", sev(KG_SEV_NOTICE)); /* another card, driver: routine */
    esc(f, doc->warning);
    fputs("</p>\n", f);
  }
}

/* ---- the nightly's findings (detect.h) ---------------------------------------- */

enum { KG_HTML_FINDING_CELLS = 6 }; /* cells named in a finding's box; the table of findings has them all */

static const char *const k_find_tag[KG_NFIND_KINDS] = {
    [KG_FIND_REGRESSION] = "REGRESSION", [KG_FIND_ENVIRONMENT] = "ENVIRONMENT",
    [KG_FIND_HEALTH] = "RUNNER HEALTH", [KG_FIND_IMPROVEMENT] = "IMPROVEMENT"};

/* A finding's level of severity.h; acknowledged ones keep it, drawn muted. */
static kg_severity find_sev(const kg_finding *fd) { return kg_find_severity(fd->kind); }

static const char *find_tag(const kg_finding *fd) {
  return (unsigned)fd->kind < KG_NFIND_KINDS ? k_find_tag[fd->kind] : "FINDING";
}

/* The date of history run i, or "unknown". */
static void night_label(const kg_history *h, size_t i, char *buf, size_t len) {
  if (h && i < h->n) kg_date_label(h->runs[i].date, buf, len);
  else snprintf(buf, len, "unknown");
}

/* A cell as a finding's box names it: "reduce7_shuffle f32 2²⁵ +0.61 %". */
static void find_cell(FILE *f, const kg_rm_row *r) {
  const kg_find_cell *c = r->src;
  char label[32];
  kg_size_label(c->n, label, sizeof label);
  esc(f, c->variant);
  fprintf(f, " %s %s", kg_dtype_get(c->dtype)->name, label);
  if (r->cells[5].text) fprintf(f, " %s", r->cells[5].text);
}

/* A commit kgate bisect named: its first 12 hex digits, linked to the repository's page of it when known. */
static void bisect_commit(FILE *f, const kg_rm_commit *c) {
  char hex[13];
  snprintf(hex, sizeof hex, "%.12s", c->hex);
  if (c->url) {
    fputs("<a", f);
    attr(f, "href", c->url);
    fputc('>', f);
  }
  esc(f, hex);
  if (c->url) fputs("</a>", f);
}

/* kgate bisect's answer in a finding's box, as the model words it (kg_rm_bisect). */
static void finding_bisect(FILE *f, const kg_rm_bisect *b) {
  fputs("<br>", f);
  for (size_t k = 0; k < b->n; k++) {
    const kg_rm_cell *c = &b->line[k].cell;
    if (!c->text) {
      bisect_commit(f, &b->line[k].commit);
      continue;
    }
    if (c->flags & KG_RM_STRONG) fputs("<strong>", f);
    esc(f, c->text);
    if (c->flags & KG_RM_STRONG) fputs("</strong>", f);
  }
}

static void finding(FILE *f, const kg_html_page *p, const kg_rm_finding *x) {
  fprintf(f, "<p class=\"box %s%s\"><span class=\"tag\"><strong>%s</strong>%s</span> ", sev(x->sev),
          x->src->acknowledged ? " muted" : "", x->tag, x->src->acknowledged ? " (acknowledged)" : "");
  if (x->cells.nrows) fprintf(f, "%zu cell%s ", x->cells.nrows, x->cells.nrows == 1 ? "" : "s");
  if (x->what) fprintf(f, "%s ", x->what);
  fputs("from the night of ", f);
  esc(f, x->first_bad);
  if (x->alarm) {
    fputs(" (flagged on ", f);
    esc(f, x->alarm);
    fputc(')', f);
  }
  if (x->good[0] && x->bad[0] && x->src->last_good != x->src->first_bad) {
    fputs("; commits ", f);
    range_link(f, p->repo_url, x->good, x->bad);
    fputs(" (last good...first bad)", f);
  }
  if (x->bisect) finding_bisect(f, x->bisect);
  if (x->src->note[0]) {
    fputs(": ", f);
    esc(f, x->src->note);
  }
  if (x->changed) {
    fputs("<br>Toolchain and machine: ", f);
    esc(f, x->changed);
  }
  for (size_t i = 0; i < x->cells.shown; i++) {
    fputs(i ? ", " : "<br>", f);
    find_cell(f, &x->cells.rows[i]);
  }
  if (x->cells.shown < x->cells.nrows)
    fprintf(f, " and %zu more (<a href=\"#findings-cells\">every cell</a>)", x->cells.nrows - x->cells.shown);
  fputs("</p>\n", f);
}

static void findings(FILE *f, const kg_html_page *p, const kg_rdoc *doc) {
  const kg_rm_findings *fs = &doc->findings;
  if (!fs->on) return;
  fputs("<div id=\"findings\">\n", f);
  if (!fs->n)
    fprintf(f,
            "<p class=\"box %s\"><strong>No findings</strong> across %zu paired night%s and %zu cell%s: every cell "
            "within its "
            "accepted level against the pinned reference.</p>\n",
            sev(KG_SEV_GOOD), fs->nights, fs->nights == 1 ? "" : "s", fs->nseries, fs->nseries == 1 ? "" : "s");
  for (size_t i = 0; i < fs->n; i++) finding(f, p, &fs->find[i]);
  fputs("</div>\n", f);
}

/* Every cell of every finding in one table, when a box could not name them all. */
static void findings_cells(FILE *f, const kg_rdoc *doc) {
  const kg_rm_findings *fs = &doc->findings;
  int any = 0;
  for (size_t i = 0; i < fs->n; i++) any |= fs->find[i].cells.shown < fs->find[i].cells.nrows;
  if (!any) return;
  fputs("<h2 id=\"findings-cells\">Findings: every cell</h2>\n<table>\n<tr><th class=\"l\">finding</th>"
        "<th class=\"l\">first bad night</th>", f);
  const kg_rm_table *t0 = &fs->find[0].cells;
  for (size_t k = 0; k < t0->ncols; k++)
    fprintf(f, t0->cols[k].left ? "<th class=\"l\">%s</th>" : "<th>%s</th>", t0->cols[k].name);
  fputs("</tr>\n", f);
  for (size_t i = 0; i < fs->n; i++) {
    const kg_rm_finding *x = &fs->find[i];
    for (size_t r = 0; r < x->cells.nrows; r++) {
      const kg_rm_row *row = &x->cells.rows[r];
      row_open(f, row->sev);
      fprintf(f, "%s</td><td class=\"l\">", x->tag);
      esc(f, x->first_bad);
      for (size_t k = 0; k < x->cells.ncols; k++) {
        fputs(x->cells.cols[k].left ? "</td><td class=\"l\">" : "</td><td>", f);
        cell(f, &row->cells[k]);
      }
      fputs("</td></tr>\n", f);
    }
  }
  fputs("</table>\n", f);
}

/* The lint of the run's modules (lint.h) as the report model's lines say it:
 * a list item per module, its findings and the waivers in use under it. */
static void lint(FILE *f, const kg_rdoc *d) {
  if (!d->lint.nlines) return;
  fputs("<h2 id=\"lint\">Memory ordering (kgate lint)</h2>\n<ul>\n", f);
  for (size_t k = 0; k < d->lint.nlines; k++) {
    const kg_rm_line *l = &d->lint.lines[k];
    if (l->level == 0 && k) fputs("</ul></li>\n", f);
    fputs(l->sev < KG_NSEVERITIES ? "<li class=\"" : "<li", f);
    if (l->sev < KG_NSEVERITIES) fprintf(f, "%s\"", sev(l->sev));
    fputc('>', f);
    for (size_t i = 0; i < l->nparts; i++) {
      if (l->parts[i].flags & KG_RM_CODE) fputs("<code>", f);
      cell(f, &l->parts[i]);
      if (l->parts[i].flags & KG_RM_CODE) fputs("</code>", f);
    }
    fputs(l->level == 0 ? "\n<ul>\n" : "</li>\n", f);
  }
  fputs("</ul></li>\n</ul>\n", f);
}

/* The chart of kind k for dtype d, drawn (its PNG is in dir), or NULL. */
static const kg_chart *chart_of(const char *dir, const kg_charts *c, int k, int d) {
  char name[64], png[80];
  snprintf(name, sizeof name, "%s-%s", kg_chart_kind_get(k)->name, kg_dtype_get((kg_dtype)d)->name);
  for (size_t i = 0; c && i < c->n; i++) {
    if ((int)c->c[i].kind != k || strcmp(c->c[i].name, name)) continue;
    snprintf(png, sizeof png, "%s.png", name);
    return exists_in(dir, png) ? &c->c[i] : NULL;
  }
  return NULL;
}

/* 1 when a finding that is not acknowledged names a cell of dtype dt. */
static int open_in_dtype(const kg_detection *d, int dt) {
  for (size_t i = 0; d && i < d->nfind; i++)
    for (size_t c = 0; !d->find[i].acknowledged && c < d->find[i].ncells; c++)
      if ((int)d->find[i].cells[c].dtype == dt) return 1;
  return 0;
}

/* Under a ratio chart: the change points it marks, each with its commit range. */
static void chart_findings(FILE *f, const kg_html_page *p, int dt) {
  const kg_detection *d = p->detect;
  int shown = 0;
  for (size_t i = 0; d && i < d->nfind; i++) {
    const kg_finding *fd = &d->find[i];
    int has = 0;
    for (size_t c = 0; c < fd->ncells && !has; c++) has = (int)fd->cells[c].dtype == dt;
    if (!has) continue;
    char first[48];
    night_label(p->history, fd->first_bad, first, sizeof first);
    fputs(shown++ ? "; " : "<br>Change points: ", f);
    fprintf(f, "<span class=\"%s%s\">%s</span> from ", sev(find_sev(fd)), fd->acknowledged ? " muted" : "",
            find_tag(fd));
    esc(f, first);
    if (p->history && fd->last_good < p->history->n && fd->first_bad < p->history->n &&
        fd->last_good != fd->first_bad) {
      fputs(", ", f);
      range_link(f, p->repo_url, kg_hist_commit(&p->history->runs[fd->last_good]),
                 kg_hist_commit(&p->history->runs[fd->first_bad]));
    }
  }
}

/* A headline chart: its SVG, as an <object> so that its points' tooltips
 * show (an SVG in an <img> gets no events), at its own size in a box that
 * scrolls on a phone (--w, the page's style); the PNG where there is no
 * SVG. Then links to both at full size. */
static void shot(FILE *f, const char *dir, const kg_chart *ch) {
  char png[80], svg[80], path[4200];
  int w, h;
  snprintf(png, sizeof png, "%s.png", ch->name);
  snprintf(svg, sizeof svg, "%s.svg", ch->name);
  snprintf(path, sizeof path, "%s/%s", dir, svg);
  if (exists_in(dir, svg) && !kg_svg_size(path, &w, &h)) {
    fprintf(f, "<div class=\"scroll\"><object type=\"image/svg+xml\" style=\"--w:%dpx;aspect-ratio:%d/%d\"", w, w, h);
    attr(f, "data", svg);
    attr(f, "title", ch->caption);
    fputs("></object></div>", f);
  } else {
    fputs("<div class=\"scroll\"><a", f);
    attr(f, "href", png);
    fputs("><img", f);
    attr(f, "src", png);
    attr(f, "alt", ch->caption);
    fputs("></a></div>", f);
  }
  fputs("<p class=\"caption\"><span class=\"swipe\">Swipe sideways for every panel. </span>Full size: <a", f);
  attr(f, "href", png);
  fputs(">png</a>", f);
  if (exists_in(dir, svg)) {
    fputs(" &middot; <a", f);
    attr(f, "href", svg);
    fputs(">svg</a> (hover a point for its numbers)", f);
  }
  fputs("</p>", f);
}

/* The first screen's charts, as images: the ratio to the reference when
 * there is a paired history (dtypes with open findings first), else the
 * paired gate, else the comparison, else the ladder; each image links to
 * its full size. Every chart stays one click away in the table below. */
static void headline(FILE *f, const char *dir, const kg_html_page *p) {
  static const char *const order[] = {"ratio", "paired", "compare", "ladder"};
  for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
    int k = kg_chart_kind_find(order[o]), any = 0;
    for (int d = 0; d < KG_NDTYPES && k >= 0 && !any; d++) any = chart_of(dir, p->charts, k, d) != NULL;
    if (!any) continue;
    fputs("<h2 id=\"headline\">", f);
    esc(f, kg_chart_kind_get(k)->heading);
    fputs("</h2>\n<div class=\"shots\">\n", f);
    for (int pass = 0; pass < 2; pass++)
      for (int d = 0; d < KG_NDTYPES; d++) {
        const kg_chart *ch = chart_of(dir, p->charts, k, d);
        if (!ch || open_in_dtype(p->detect, d) != !pass) continue;
        fputs("<div class=\"shot\">", f);
        shot(f, dir, ch);
        fputs("<p class=\"caption\">", f);
        esc(f, ch->caption);
        if (!strcmp(order[o], "ratio")) chart_findings(f, p, d);
        fputs("</p></div>\n", f);
      }
    fputs("</div>\n", f);
    return;
  }
}

static void links(FILE *f, const char *dir, const kg_html_page *p) {
  size_t shown = 0;
  for (size_t i = 0; i < p->nlinks; i++) {
    if (!exists_in(dir, p->links[i].href)) continue;
    fputs(shown++ ? "" : "<h2 id=\"files\">Files</h2>\n<ul>\n", f);
    fputs("<li><a", f);
    attr(f, "href", p->links[i].href);
    fputc('>', f);
    esc(f, p->links[i].href);
    fputs("</a>: ", f);
    esc(f, p->links[i].label);
    fputs("</li>\n", f);
  }
  if (shown) fputs("</ul>\n", f);
}

/* A table of the report model, coloured by each row's level. */
static void table(FILE *f, const kg_rm_table *t, size_t rows) {
  fputs("<table>\n<tr>", f);
  for (size_t k = 0; k < t->ncols; k++) {
    fputs(t->cols[k].left ? "<th class=\"l\">" : "<th>", f);
    esc(f, t->cols[k].name);
    if (t->cols[k].unit) fprintf(f, " (%s)", strcmp(t->cols[k].unit, "us") ? t->cols[k].unit : "&micro;s");
    fputs("</th>", f);
  }
  fputs("</tr>\n", f);
  for (size_t i = 0; i < t->nrows && i < rows; i++) {
    const kg_rm_row *r = &t->rows[i];
    row_open(f, r->sev);
    cell(f, &r->cells[0]);
    for (size_t k = 1; k < t->ncols; k++) {
      fputs(t->cols[k].left ? "</td><td class=\"l\">" : "</td><td>", f);
      cell(f, &r->cells[k]);
    }
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n", f);
}

static void regressions(FILE *f, const kg_rdoc *d) {
  if (!d->regressions.nrows) return;
  fputs("<h2 id=\"regressions\">", f);
  esc(f, d->regressions_title);
  fputs("</h2>\n", f);
  table(f, &d->regressions, d->regressions.nrows);
}

/* The paired gate's cells, every one, in the report model's order (SLOWER
 * first, whatever order the file had); the section comes before the baseline
 * comparison's. On a nightly page they are one night's intervals against the
 * pinned reference, which decide nothing (the detector does). */
static void paired(FILE *f, const kg_rdoc *d) {
  const kg_rm_paired *p = &d->paired;
  if (!d->run->pair.on) return;
  if (d->findings.on)
    fputs("<h2 id=\"paired\">Tonight against the pinned reference</h2>\n<p class=\"caption\">One night's intervals "
          "of tonight's build against the pinned reference: the detector over the nights decides (the findings "
          "above).</p>\n", f);
  else fputs("<h2 id=\"paired\">Paired gate</h2>\n", f);
  if (!d->run->npairs) {
    fputs("<p>", f);
    esc(f, p->state);
    fputs("</p>\n", f);
    return;
  }
  fputs("<p class=\"caption\">", f);
  if (d->findings.on) /* the model's head and base are tonight and the reference here */
    fprintf(f, "Change is tonight/reference - 1 (positive: tonight is slower), from blocks timed side by side in one "
               "process; the interval is its %.3g %% confidence interval over blocks.",
            100 * d->run->pair.confidence);
  else esc(f, p->method);
  fputc(' ', f);
  esc(f, p->setting);
  fputs(".</p>\n", f);
  kg_rm_table t = p->cells;
  kg_rm_col cols[16];
  if (d->findings.on && t.ncols <= sizeof cols / sizeof cols[0]) {
    for (size_t k = 0; k < t.ncols; k++) {
      cols[k] = t.cols[k];
      if (!strcmp(cols[k].name, "head")) cols[k].name = "tonight";
      if (!strcmp(cols[k].name, "base")) cols[k].name = "reference";
    }
    t.cols = cols;
  }
  table(f, &t, t.nrows);
}

static void failed(FILE *f, const kg_rdoc *d) {
  if (!d->failed.nrows) return;
  fputs("<h2 id=\"failed\">Failed cases</h2>\n", f);
  table(f, &d->failed, d->failed.shown);
  if (d->failed.nrows > d->failed.shown)
    fprintf(f, "<p>... and %zu more (see the results files).</p>\n", d->failed.nrows - d->failed.shown);
}

/* The charts as a table, a row per chart, a column per dtype: each cell links
 * to the image (and its SVG), so the page stays short and every chart is one
 * click away; the caption is the link's title. */
static void charts(FILE *f, const char *dir, const kg_charts *c) {
  int cols[KG_NDTYPES] = {0}, ncols = 0;
  for (int k = 0; k < kg_chart_nkinds(); k++)
    for (int d = 0; d < KG_NDTYPES; d++)
      if (chart_of(dir, c, k, d)) {
        ncols += !cols[d];
        cols[d] = 1;
      }
  if (!ncols) return;
  fputs("<h2 id=\"charts\">Charts</h2>\n<p class=\"caption\">A row per chart, a column per dtype: each link opens "
        "the chart (PNG; SVG beside it).</p>\n<table>\n<tr><th class=\"l\">chart</th>",
        f);
  for (int d = 0; d < KG_NDTYPES; d++)
    if (cols[d]) fprintf(f, "<th class=\"c\">%s</th>", kg_dtype_get((kg_dtype)d)->name);
  fputs("</tr>\n", f);
  for (int k = 0; k < kg_chart_nkinds(); k++) {
    int drawn = 0;
    for (int d = 0; d < KG_NDTYPES && !drawn; d++) drawn = chart_of(dir, c, k, d) != NULL;
    if (!drawn) continue;
    fputs("<tr><td class=\"l\">", f);
    esc(f, kg_chart_kind_get(k)->heading);
    fputs("</td>", f);
    for (int d = 0; d < KG_NDTYPES; d++) {
      if (!cols[d]) continue;
      const kg_chart *ch = chart_of(dir, c, k, d);
      fputs("<td class=\"c\">", f);
      if (ch) {
        char png[80], svg[80];
        snprintf(png, sizeof png, "%s.png", ch->name);
        snprintf(svg, sizeof svg, "%s.svg", ch->name);
        fputs("<a", f);
        attr(f, "href", png);
        attr(f, "title", ch->caption);
        fprintf(f, ">%s</a>", kg_dtype_get((kg_dtype)d)->name);
        if (exists_in(dir, svg)) {
          fputs(" <a", f);
          attr(f, "href", svg);
          fputs(">svg</a>", f);
        }
      }
      fputs("</td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

/* One Harris-style ladder of the report model, titled the page's way. */
static void ladder_table(FILE *f, const kg_rm_ladder *l) {
  char label[32], bytes[32];
  kg_size_label(l->n, label, sizeof label);
  kg_bytes_label((double)l->n * (double)kg_dtype_get(l->dtype)->size, bytes, sizeof bytes);
  fprintf(f, "<h3>%s, n = %s (%s)</h3>\n", kg_dtype_get(l->dtype)->name, label, bytes);
  table(f, &l->table, l->table.nrows);
}

/* Two sizes of each dtype (kg_chart_pick_sizes), where the Markdown has every one. */
static void ladders(FILE *f, const kg_rdoc *d) {
  int any = 0;
  size_t *all = malloc((d->nladders + 1) * sizeof *all);
  if (!all) {
    fputs("<p>Ladder tables left out: out of memory.</p>\n", f);
    return;
  }
  for (int dt = 0; dt < KG_NDTYPES; dt++) {
    size_t nall = 0, picked[2];
    for (size_t k = 0; k < d->nladders; k++)
      if (d->ladders[k].dtype == (kg_dtype)dt) all[nall++] = d->ladders[k].n;
    size_t np = kg_chart_pick_sizes(all, nall, picked, 2);
    if (np && !any++) fputs("<h2 id=\"ladder\">Ladder tables</h2>\n", f);
    for (size_t j = 0; j < np; j++)
      for (size_t k = 0; k < d->nladders; k++)
        if (d->ladders[k].dtype == (kg_dtype)dt && d->ladders[k].n == picked[j]) ladder_table(f, &d->ladders[k]);
  }
  free(all);
}

/* The contents line links only to the sections this page has. */
static void toc(FILE *f, const char *dir, const kg_html_page *p, const kg_rdoc *d) {
  int any_chart = 0, any_link = 0, any_timed = 0;
  for (size_t i = 0; p->charts && i < p->charts->n && !any_chart; i++) {
    char png[80];
    snprintf(png, sizeof png, "%s.png", p->charts->c[i].name);
    any_chart = exists_in(dir, png);
  }
  for (size_t i = 0; i < p->nlinks && !any_link; i++) any_link = exists_in(dir, p->links[i].href);
  for (size_t i = 0; i < p->run->n && !any_timed; i++) any_timed = p->run->cases[i].timed;
  int any_regression = d->regressions.nrows > 0, any_failed = d->failed.nrows > 0;
  const struct {
    int present;
    const char *anchor, *title;
  } sections[] = {
      {p->run->pair.on, "#paired", d->findings.on ? "Tonight against the reference" : "Paired gate"},
      {any_regression, "#regressions", "Regressions"},
      {any_failed, "#failed", "Failed cases"},
      {d->lint.n > 0, "#lint", "Memory ordering"},
      {any_chart, "#charts", "Charts"},
      {any_timed, "#ladder", "Ladder tables"},
      {any_link, "#files", "Files"},
      {p->history != NULL, "archive.html", "Every night"},
  };
  int shown = 0;
  for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
    if (!sections[i].present) continue;
    fprintf(f, "%s<a href=\"%s\">%s</a>", shown++ ? "" : "<p class=\"toc\">Contents: ", sections[i].anchor,
            sections[i].title);
  }
  if (shown) fputs("</p>\n", f);
}

static void write_page(FILE *f, const char *dir, const kg_html_page *p, const kg_rdoc *d) {
  head(f, p->run, p->history != NULL);
  summary(f, dir, p, d);
  toc(f, dir, p, d);
  findings_cells(f, d);
  paired(f, d);
  regressions(f, d);
  failed(f, d);
  lint(f, d);
  charts(f, dir, p->charts);
  ladders(f, d);
  links(f, dir, p);
  fputs("<p class=\"meta\">Made by kgate: a regression test and CI gate for CUDA reduction kernels.</p>\n"
        "</body>\n</html>\n",
        f);
}

/* archive.html: every night of the history, newest first, with its verdict
 * and why as the report model says it (kg_rdoc_nights: the detector's
 * findings and the night's checks), the verdict the index and `history
 * check` give that night. The baseline comparison of an old night is not in
 * the history; its checks and paired cells are. */
static void write_archive(FILE *f, const char *dir, const kg_html_page *p, const kg_rdoc *doc) {
  const kg_history *h = p->history;
  const kg_device_info *d = h->n ? &h->runs[h->n - 1].dev : &p->run->meta.dev;
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>kgate nightly archive: ",
        f);
  esc(f, d->name[0] ? d->name : "unknown GPU");
  fputs("</title>\n", f);
  style(f);
  fputs("</head>\n<body>\n<h1>kgate nightly archive: ", f);
  esc(f, d->name[0] ? d->name : "unknown GPU");
  fprintf(f, "</h1>\n<p class=\"meta\">%zu night%s, newest first &middot; <a href=\"index.html\">the latest night</a>",
          h->n, h->n == 1 ? "" : "s");
  if (exists_in(dir, "history.jsonl")) fputs(" &middot; <a href=\"history.jsonl\">history.jsonl</a>", f);
  fputs("</p>\n", f);
  fputs("<p class=\"caption\">FAIL: a case failed or errored. REGRESSION: an open finding of the nightly's detector "
        "holds the night (cells slower than the reference's accepted level, from the finding's first bad night "
        "until it is acknowledged). RUNNER HEALTH, ENVIRONMENT: the reference's own time or the control moved (the "
        "machine, not a commit). PASS: none of these. Cases: the night's cases from its line of the history, each "
        "counted once (passed + failed + errors + unsupported, and any not run), as the night's page counts them."
        "</p>\n<table>\n<tr><th class=\"l\">night</th>"
        "<th class=\"l\">commit</th><th class=\"l\">verdict</th><th class=\"l\">why</th><th>cases</th>"
        "<th>passed</th><th>failed</th><th>errors</th><th>unsupported</th><th class=\"l\">kgate</th><th "
        "class=\"l\">driver / runtime</th>"
        "</tr>\n",
        f);
  for (size_t i = h->n; doc->findings.night && i-- > 0;) {
    const kg_hist_run *r = &h->runs[i];
    const kg_rm_night *n = &doc->findings.night[i];
    char drv[16], rt[16];
    kg_cuda_version_label(r->dev.driver_version, drv, sizeof drv);
    kg_cuda_version_label(r->dev.runtime_version, rt, sizeof rt);
    row_open(f, n->v.verdict == KG_NIGHT_PASS ? KG_NSEVERITIES : n->sev);
    esc(f, n->label);
    fputs("</td><td class=\"l\">", f);
    commit_link(f, p->repo_url, r->commit);
    fprintf(f, "</td><td class=\"l\">%s</td><td class=\"l\">", n->word);
    esc(f, n->why);
    /* every case counted once: cases = passed + failed + errors + unsupported (+ not run), as checks_item */
    fprintf(f, "</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td class=\"l\">", r->checks.cases,
            r->checks.passed, r->checks.failed, r->checks.errored, r->checks.unsupported);
    esc(f, r->version);
    fprintf(f, "</td><td class=\"l\">%s / %s</td></tr>\n", drv, rt);
  }
  fputs("</table>\n</body>\n</html>\n", f);
}

/* Where the page goes and what it shows: the context of its file writers. */
typedef struct page_at {
  const char *dir;
  const kg_html_page *page;
  const kg_rdoc *doc;
} page_at;

static void index_fill(FILE *f, const void *at) {
  const page_at *a = at;
  write_page(f, a->dir, a->page, a->doc);
}

static void archive_fill(FILE *f, const void *at) {
  const page_at *a = at;
  write_archive(f, a->dir, a->page, a->doc);
}

int kg_html_doc(kg_rdoc *doc, const kg_html_page *page) {
  kg_rm_gate gate = {.baseline = page->baseline};
  if (kg_rdoc_build_gate(doc, page->run, page->cmp, &gate) ||
      (page->detect && kg_rdoc_findings(doc, page->history, page->detect, page->repo_url)) ||
      (page->detect && page->bisect && kg_rdoc_bisect(doc, page->history, page->bisect, page->repo_url) < 0) ||
      kg_rdoc_nights(doc, page->history, page->detect)) {
    kg_rdoc_free(doc);
    return -1;
  }
  return 0;
}

int kg_html_write(const char *dir, const kg_html_page *page, char *err, size_t errlen) {
  kg_rdoc own;
  page_at at = {dir, page, page->doc ? page->doc : &own};
  char path[4096];
  snprintf(path, sizeof path, "%s/index.html", dir);
  if (!page->doc && kg_html_doc(&own, page)) {
    snprintf(err, errlen, "cannot write %s: out of memory", path);
    return -1;
  }
  /* The archive first: index.html links to it. */
  snprintf(path, sizeof path, "%s/archive.html", dir);
  int rc = page->history ? kg_out_write(path, archive_fill, &at, err, errlen) : 0;
  snprintf(path, sizeof path, "%s/index.html", dir);
  if (!rc) rc = kg_out_write(path, index_fill, &at, err, errlen);
  if (!page->doc) kg_rdoc_free(&own);
  return rc;
}
