/* history check (nightly.h). */
#include "nightly.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "detect.h"
#include "dtype.h"
#include "escape.h"
#include "exitcode.h"
#include "fileio.h"
#include "label.h"
#include "publish.h"
#include "refpin.h"
#include "replay.h"
#include "fields.h"

static const char *finding_title(const kg_finding *f) {
  switch (f->kind) {
  case KG_FIND_REGRESSION: return f->acknowledged ? "regression (acknowledged)" : "regression (open)";
  case KG_FIND_ENVIRONMENT: return "environment";
  case KG_FIND_HEALTH: return "runner health";
  default: return "improvement";
  }
}

/* One cell as "variant dtype n: +0.52 % (1.0003 -> 1.0055)". */
static void cell_text(const kg_find_cell *c, char *buf, size_t len) {
  char label[96];
  kg_entry_label(c->variant, kg_dtype_get(c->dtype)->name, (long long)c->n, label, sizeof label);
  snprintf(buf, len, "%s: %+.2f %% (ratio %.4f -> %.4f)", label, 100 * (c->after / c->before - 1), c->before,
           c->after);
}

static void print_terminal(const kg_history *h, const kg_detection *d) {
  char shown[160], date[48];
  for (size_t i = 0; i < d->nfind; i++) {
    const kg_finding *f = &d->find[i];
    const kg_hist_run *bad = &h->runs[f->first_bad], *good = &h->runs[f->last_good];
    kg_date_label(bad->date, date, sizeof date);
    printf("kgate: %s since the night of %s (commits %s..%s)%s%s\n", finding_title(f), date, good->commit,
           bad->commit, f->note[0] ? ": " : "", kg_esc_term(f->note, shown, sizeof shown));
    for (size_t k = 0; k < f->ncells; k++) {
      cell_text(&f->cells[k], shown, sizeof shown);
      printf("  %s\n", shown);
    }
  }
  printf("kgate: history check: %zu nights, %zu cells watched: %zu open regression finding(s)\n", h->n, d->nseries,
         d->open_regressions);
}

static void md_range(FILE *f, const char *repo, const char *good, const char *bad) {
  fputc('`', f);
  kg_esc_md(f, good);
  fputs("..", f);
  kg_esc_md(f, bad);
  fputc('`', f);
  /* commits are validated names (kg_why_bad_commit); the URL passed kg_html_url_ok */
  if (repo[0] && strcmp(good, bad)) fprintf(f, " ([compare](%s/compare/%s...%s))", repo, good, bad);
}

typedef struct md_ctx {
  const kg_history *h;
  const kg_detection *d;
  const char *repo;
} md_ctx;

static void write_markdown(FILE *f, const void *ctx) {
  const md_ctx *m = ctx;
  const kg_history *h = m->h;
  const kg_detection *d = m->d;
  const char *repo = m->repo;
  fprintf(f, "## kgate nightly: %zu open regression finding%s\n\n", d->open_regressions,
          d->open_regressions == 1 ? "" : "s");
  if (h->n) {
    const kg_hist_run *last = &h->runs[h->n - 1];
    char date[48];
    kg_date_label(last->date, date, sizeof date);
    fprintf(f, "Last night: %s, commit `", date);
    kg_esc_md(f, last->commit);
    fputs("`, ", f);
    kg_esc_md(f, last->dev.name);
    if (last->paired.has) {
      fputs(", reference `", f);
      kg_esc_md(f, last->paired.ref_commit[0] ? last->paired.ref_commit : last->paired.ref_version);
      fputc('`', f);
    }
    fprintf(f, ". %zu nights, %zu cells watched by a CUSUM each (docs/nightly.md).\n\n", h->n, d->nseries);
  }
  if (!d->nfind) fputs("No finding: every watched cell is at its accepted level.\n", f);
  for (size_t i = 0; i < d->nfind; i++) {
    const kg_finding *x = &d->find[i];
    const kg_hist_run *bad = &h->runs[x->first_bad], *good = &h->runs[x->last_good];
    char date[48];
    kg_date_label(bad->date, date, sizeof date);
    fprintf(f, "### %s: first bad night %s, commits ", finding_title(x), date);
    md_range(f, repo, good->commit, bad->commit);
    fputs("\n\n", f);
    if (x->note[0]) {
      kg_esc_md(f, x->note);
      fputs("\n\n", f);
    }
    if (!x->ncells) continue;
    fputs("| cell | ratio before | ratio since | change |\n|---|---:|---:|---:|\n", f);
    for (size_t k = 0; k < x->ncells; k++) {
      const kg_find_cell *c = &x->cells[k];
      char label[96];
      kg_entry_label(c->variant, kg_dtype_get(c->dtype)->name, (long long)c->n, label, sizeof label);
      fputs("| ", f);
      kg_esc_md(f, label);
      fprintf(f, " | %.4f | %.4f | %+.2f %% |\n", c->before, c->after, 100 * (c->after / c->before - 1));
    }
    fputc('\n', f);
  }
}

int kg_nightly_check(const kg_nightly_opts *o) {
  char err[1024];
  kg_history h;
  if (kg_history_read(o->history, &h, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  kg_acks acks = {0};
  if (o->ack && kg_acks_read(o->ack, &acks, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    kg_history_free(&h);
    return KG_EXIT_USAGE;
  }
  kg_detect_opts opts = kg_detect_defaults();
  kg_detection d;
  int code = KG_EXIT_ENV;
  if (kg_detect(&h, &acks, &opts, &d)) {
    fprintf(stderr, "kgate: out of memory\n");
  } else {
    print_terminal(&h, &d);
    code = d.open_regressions ? KG_EXIT_PERF : KG_EXIT_OK;
    if (o->summary) {
      char repo[256];
      kg_publish_repo_url(repo, sizeof repo);
      md_ctx m = {&h, &d, repo};
      if (kg_out_write(o->summary, write_markdown, &m, err, sizeof err)) {
        fprintf(stderr, "kgate: %s\n", err);
        code = KG_EXIT_USAGE;
      }
    }
    kg_detection_free(&d);
  }
  kg_acks_free(&acks);
  kg_history_free(&h);
  return code;
}

int kg_nightly_calibrate(const char *nights, unsigned long long seed) {
  char err[1024];
  kg_history h;
  if (kg_history_read(nights, &h, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  kg_replay_opts o = kg_replay_defaults();
  o.seed = seed;
  static kg_replay_result r;
  int code = KG_EXIT_OK;
  if (kg_replay(&h, &o, &r, err, sizeof err)) {
    fprintf(stderr, "kgate: %s: %s\n", nights, err);
    code = KG_EXIT_USAGE;
  } else {
    kg_replay_markdown(stdout, &o, &r);
  }
  kg_history_free(&h);
  return code;
}

int kg_nightly_verify(const char *pins, const char *module) {
  char err[1024], sha[65];
  kg_pins p;
  if (kg_pins_read(pins, &p, err, sizeof err) || kg_sha256_file(module, sha, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  for (size_t i = 0; i < p.n; i++)
    if (!strcmp(p.pins[i].sha256, sha)) {
      printf("kgate: %s is the pinned reference of module '%s' (commit %s, nvcc %s, %s, pinned %s)\n", module,
             p.pins[i].module, p.pins[i].commit, p.pins[i].nvcc, p.pins[i].architectures, p.pins[i].pinned);
      return KG_EXIT_OK;
    }
  fprintf(stderr, "kgate: %s: sha256 %.12s is not pinned in %s\n", module, sha, pins);
  return KG_EXIT_USAGE;
}
