/* The Markdown printers: the report model (rmodel.h) as the summary that
 * $GITHUB_STEP_SUMMARY gets, and as the pull-request comment. Short: a
 * no-change row is counted, not listed, and long tables stop at the model's
 * count. */
#include "export.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"

/* Text and table cells (kg_esc_md): a GPU name, date, commit or message from
 * a file must not become a link, an image, HTML or a new table cell. */
static void md_put(FILE *f, const char *s) { kg_esc_md(f, s); }

/* A code span: nothing inside is Markdown but a backquote, which (with a
 * control character, which would end the line) becomes '?'. */
static void md_code(FILE *f, const char *s) {
  fputc('`', f);
  for (; *s; s++) fputc(*s == '`' || (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
  fputc('`', f);
}

static void md_text(FILE *f, const kg_rm_cell *c) {
  if (c->flags & KG_RM_STRONG) fputs("**", f);
  if (c->flags & KG_RM_CODE) md_code(f, c->text);
  else if (c->flags & KG_RM_DATA) md_put(f, c->text);
  else fputs(c->text, f);
  if (c->flags & KG_RM_TIMES) fputc('x', f);
  if (c->flags & KG_RM_STRONG) fputs("**", f);
}

/* "- **Label** (note): parts", then more (kgate's words) when it is not NULL. */
static void md_item(FILE *f, const kg_rm_item *it, const char *more) {
  fprintf(f, "- **%s**%s%s: ", it->label, it->note ? " " : "", it->note ? it->note : "");
  for (size_t k = 0; k < it->nparts; k++) md_text(f, &it->parts[k]);
  fprintf(f, "%s%s\n", more ? ", " : "", more ? more : "");
}

/* A table's header and its first `rows` rows that are not quiet. */
static void md_table(FILE *f, const kg_rm_table *t, size_t rows) {
  for (size_t k = 0; k < t->ncols; k++) {
    fprintf(f, "%s%s", k ? " | " : "| ", t->cols[k].name);
    if (t->cols[k].unit) fprintf(f, " (%s)", t->cols[k].unit);
  }
  fputs(" |\n|", f);
  for (size_t k = 0; k < t->ncols; k++) fputs(t->cols[k].left ? "---|" : "---:|", f);
  fputc('\n', f);
  for (size_t i = 0, shown = 0; i < t->nrows && shown < rows; i++) {
    const kg_rm_row *r = &t->rows[i];
    if (r->quiet) continue;
    shown++;
    fputc('|', f);
    for (size_t k = 0; k < t->ncols; k++) {
      /* an absent value is an empty cell; an empty text is one too, spaced as a value */
      if (r->cells[k].text) fputc(' ', f), md_text(f, &r->cells[k]);
      fputs(" |", f);
    }
    fputc('\n', f);
  }
}

static size_t loud_rows(const kg_rm_table *t) {
  size_t n = 0;
  for (size_t i = 0; i < t->nrows; i++) n += !t->rows[i].quiet;
  return n;
}

/* The run's verdict and why: "**FAIL**: 1 lint finding (memory ordering)". */
static void md_why(FILE *f, const kg_rm_verdict *v) {
  for (size_t k = 0; k < v->nwhy; k++) md_text(f, &v->why[k]);
}

static void md_summary(FILE *f, const kg_rdoc *d) {
  fprintf(f, "# kgate report\n\n**%s**: ", d->verdict.word);
  md_why(f, &d->verdict);
  fputs("\n\n", f);
  for (size_t k = 0; k < d->nitems; k++) md_item(f, &d->items[k], NULL);
  if (d->warning) {
    fputs("\n> **Warning:** ", f);
    md_put(f, d->warning);
    fputc('\n', f);
  }
}

/* The paired gate first: it decides the exit code when it ran (rmodel.c, slower_cells). */
static void md_paired(FILE *f, const kg_rdoc *d) {
  const kg_rm_paired *p = &d->paired;
  if (!d->run->pair.on) return;
  fputs("\n## Paired gate\n\n", f);
  md_item(f, &p->module, p->setting);
  md_item(f, &p->verdicts, NULL);
  if (p->state) {
    fprintf(f, "\n%s\n", p->state);
  } else {
    fprintf(f, "\n%s\n\n", p->method);
    md_table(f, &p->cells, p->cells.shown);
    size_t more = loud_rows(&p->cells) - p->cells.shown;
    if (more) fprintf(f, "\n... and %zu more (see the results JSON)\n", more);
  }
  if (p->same_line) fprintf(f, "\n%s\n", p->same_line);
  if (p->unchanged_line) fprintf(f, "\n%s\n", p->unchanged_line);
}

static void md_regressions(FILE *f, const kg_rdoc *d) {
  if (!d->regressions.nrows) return;
  fprintf(f, "\n## %s\n\n", d->regressions_title);
  md_table(f, &d->regressions, d->regressions.nrows);
}

static void md_failed(FILE *f, const kg_rdoc *d) {
  if (!d->failed.nrows) return;
  fputs("\n## Failed cases\n\n", f);
  md_table(f, &d->failed, d->failed.shown);
  if (d->failed.nrows > d->failed.shown) fprintf(f, "\n... and %zu more\n", d->failed.nrows - d->failed.shown);
}

static void md_ladders(FILE *f, const kg_rdoc *d) {
  for (size_t k = 0; k < d->nladders; k++) {
    const kg_rm_ladder *l = &d->ladders[k];
    fprintf(f, "\n## Ladder: %s, n = %zu (%s)\n\n", kg_dtype_get(l->dtype)->name, l->n, l->bytes);
    md_table(f, &l->table, l->table.nrows);
  }
}

/* The lint of each module: its findings, or clean, and every waiver in use. */
static void md_lint(FILE *f, const kg_rdoc *d) {
  if (!d->lint.nlines) return;
  fputs("\n## Memory ordering (kgate lint)\n\n", f);
  for (size_t k = 0; k < d->lint.nlines; k++) {
    const kg_rm_line *l = &d->lint.lines[k];
    fputs(l->level ? "  - " : "- ", f);
    for (size_t i = 0; i < l->nparts; i++) md_text(f, &l->parts[i]);
    fputc('\n', f);
  }
}

int kg_print_markdown(FILE *f, const kg_rdoc *d) {
  md_summary(f, d);
  md_lint(f, d);
  md_paired(f, d);
  md_regressions(f, d);
  md_failed(f, d);
  md_ladders(f, d);
  return 0;
}

/* ---- the pull-request comment ------------------------------------------------- */

/* GitHub refuses a comment over 65536 characters; the action adds its
 * marker line and the run's link. */
enum { KG_COMMENT_MAX = 60000 };

/* The paired cells that changed (no SAME, no UNCHANGED: those are counted). */
static void comment_paired(FILE *f, const kg_rdoc *d) {
  const kg_rm_paired *p = &d->paired;
  if (!d->run->pair.on) {
    fputs("\nNot paired: no base module to time against, so no paired verdicts.\n", f);
    return;
  }
  fputc('\n', f);
  md_item(f, &p->module, NULL);
  md_item(f, &p->verdicts, NULL);
  if (p->state) fprintf(f, "\n%s\n", p->state);
  if (!p->state || loud_rows(&p->cells)) {
    fputc('\n', f);
    md_table(f, &p->cells, p->cells.shown);
    size_t more = loud_rows(&p->cells) - p->cells.shown;
    if (more) fprintf(f, "\n... and %zu more (see the results JSON)\n", more);
  }
}

/* The comment, whole, into f: the verdict first, then what decides it. */
static void comment_body(FILE *f, const kg_rdoc *d) {
  const kg_rm_verdict *v = &d->verdict;
  fprintf(f, "### kgate: %s (exit %d)\n\n", v->word, v->exit_code);
  md_why(f, v);
  fputs("\n\n", f);
  for (size_t k = 0; k < d->nitems; k++)
    if (!strcmp(d->items[k].label, "GPU") || !strcmp(d->items[k].label, "Run") || !strcmp(d->items[k].label, "Checks"))
      md_item(f, &d->items[k], NULL);
  md_lint(f, d);
  comment_paired(f, d);
  md_failed(f, d);
}

int kg_print_comment(FILE *f, const kg_rdoc *d) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m) return -1;
  comment_body(m, d);
  if (fclose(m)) return free(buf), -1;
  if (len > KG_COMMENT_MAX) { /* cut at a line's end: never inside a character or a table row */
    const char *cut = buf + KG_COMMENT_MAX - 200;
    while (cut > buf && cut[-1] != '\n') cut--;
    len = (size_t)(cut - buf);
  }
  fwrite(buf, 1, len, f);
  if (len < strlen(buf)) fputs("\n... (cut at GitHub's comment limit: the results JSON has everything)\n", f);
  free(buf);
  return 0;
}

/* ---- the nightly's summary (history check --summary) ------------------------ */

/* A commit kgate bisect named: a code span of 12 hex digits, a link when
 * the repository is known (40 hex after a URL that passed kg_html_url_ok). */
static void md_commit(FILE *f, const kg_rm_commit *c) {
  char hex[13];
  snprintf(hex, sizeof hex, "%.12s", c->hex);
  if (c->url) fputc('[', f);
  md_code(f, hex);
  if (c->url) fprintf(f, "](%s)", c->url);
}

/* kgate bisect's answer under a finding's heading, as the model words it (kg_rm_bisect). */
static void md_bisect(FILE *f, const kg_rm_bisect *b) {
  for (size_t k = 0; k < b->n; k++) {
    if (b->line[k].cell.text) md_text(f, &b->line[k].cell);
    else md_commit(f, &b->line[k].commit);
  }
  fputs("\n\n", f);
}

static void md_finding(FILE *f, const kg_rm_finding *x) {
  char range[160];
  snprintf(range, sizeof range, "%s..%s", x->good[0] ? x->good : "unknown", x->bad[0] ? x->bad : "unknown");
  fprintf(f, "### %s: first bad night %s, commits ", x->title, x->first_bad);
  md_code(f, range);
  /* commits are validated names (kg_why_bad_commit); the URL passed kg_html_url_ok */
  if (x->compare) fprintf(f, " ([compare](%s))", x->compare);
  fputs("\n\n", f);
  if (x->bisect) md_bisect(f, x->bisect);
  if (x->src->note[0]) {
    md_put(f, x->src->note);
    fputs("\n\n", f);
  }
  if (x->changed) {
    fputs("Toolchain and machine: ", f);
    md_put(f, x->changed);
    fputs("\n\n", f);
  }
  if (!x->cells.nrows) return;
  md_table(f, &x->cells, x->cells.nrows);
  fputc('\n', f);
}

/* The latest night's verdict first (the report model's, as the page and the
 * terminal say it), then the nights that were not PASS, then the findings. */
int kg_print_nightly_markdown(FILE *f, const kg_rdoc *d) {
  const kg_rm_findings *fs = &d->findings;
  const kg_rm_night *last = fs->night && fs->runs ? &fs->night[fs->runs - 1] : NULL;
  if (last) {
    fprintf(f, "## kgate nightly: %s\n\n**%s**: ", last->word, last->word);
    md_put(f, last->why);
    fprintf(f, " (%zu open regression finding%s)\n\n", fs->open, fs->open == 1 ? "" : "s");
  } else {
    fprintf(f, "## kgate nightly: %zu open regression finding%s\n\n", fs->open, fs->open == 1 ? "" : "s");
  }
  if (fs->last.nparts) {
    fputs("Last night: ", f);
    for (size_t k = 0; k < fs->last.nparts; k++) md_text(f, &fs->last.parts[k]);
    fprintf(f, ". %zu nights, %zu cells watched by a CUSUM each (docs/nightly.md).\n\n", fs->runs, fs->nseries);
  }
  if (loud_rows(&fs->spans)) {
    md_table(f, &fs->spans, fs->spans.nrows); /* the nights not PASS; a PASS night is counted in the line below */
    fputc('\n', f);
  }
  if (fs->spans.nrows) {
    size_t pass = 0;
    for (size_t i = 0; i < fs->runs; i++) pass += fs->night[i].v.verdict == KG_NIGHT_PASS;
    fprintf(f, "%zu of %zu nights PASS.\n\n", pass, fs->runs);
  }
  if (!fs->n) fputs("No finding: every watched cell is at its accepted level.\n", f);
  for (size_t i = 0; i < fs->n; i++) md_finding(f, &fs->find[i]);
  return 0;
}
