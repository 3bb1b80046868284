/* What the chart kinds share (chart_io.h): the pair of files, the values
 * written into them, the families' styles, the cases and their order. */
#include "chart_io.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "label.h"
#include "varreg.h"
#include "severity.h"

int kg__oom(const kg__job *j) {
  snprintf(j->err, j->errlen, "out of memory");
  return -1;
}

/* Line colours by variant family (the registry's seed): one hue per family,
 * lighter to darker along the ladder within it, so a family reads as a group
 * and its later, faster rungs stand out. CUB is black: the reference. */
static const struct {
  const char *seed, *label;
  unsigned light, dark;
} k_families[] = {
    {"002", "Harris ladder", 0x6baed6, 0x08306b},
    {"003", "in place, pairs", 0xfd8d3c, 0x8c2d04},
    {"001", "in place, unrolled", 0x74c476, 0x00441b},
    {"004", "atomics, two-pass", 0xb39ddb, 0x4a1486},
    {"cub", "CUB", 0x000000, 0x000000},
    {"kgate", "kgate", 0xe31a1c, 0xe31a1c},
    {NULL, "other", 0xa0a0a0, 0x404040}, /* any seed not above */
};
_Static_assert(sizeof k_families / sizeof k_families[0] == KG__NFAMILIES, "KG__NFAMILIES is the table's length");

/* Point types that pngcairo and svg both draw distinctly, in the order the
 * members of one family get them. */
static const int k_points[] = {7, 5, 9, 11, 13, 6, 4, 8, 10, 12, 1, 2, 3};

/* Text reaches gnuplot one way only: as a single-quoted string literal
 * assigned to a variable in the .vars file (kg_esc_gp), which the scripts
 * use as a value. gnuplot expands no backquote, macro or escape inside
 * single quotes, and no script builds a command out of text to evaluate it,
 * so a GPU name, date, commit or variant name from a file stays text. */
void kg__gp_str(FILE *f, const char *key, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(f, "%s = ", key);
  kg_esc_gp(f, buf);
  fputc('\n', f);
}

void kg__gp_item(FILE *f, const char *key, size_t k, const char *s) {
  fprintf(f, "%s%zu = ", key, k);
  kg_esc_gp(f, s);
  fputc('\n', f);
}

void kg__tic_add(kg__tics *t, const char *label, const char *sub, double pos) {
  char key[16];
  t->n++;
  snprintf(key, sizeof key, "%stic_label", t->axis);
  kg__gp_item(t->f, key, t->n, label);
  snprintf(key, sizeof key, "%stic_sub", t->axis);
  kg__gp_item(t->f, key, t->n, sub);
  fprintf(t->f, "%stic_pos%zu = %.10g\n", t->axis, t->n, pos);
}

void kg__tics_end(const kg__tics *t) { fprintf(t->f, "n%stics = %zu\n", t->axis, t->n); }

void kg__dat_comment(FILE *f, const char *s) {
  char buf[128];
  fprintf(f, "# %s\n", kg_esc_term(s, buf, sizeof buf));
}

void kg__gp_num(FILE *f, const char *key, double v) {
  if (isfinite(v)) fprintf(f, "%s = %.10g\n", key, v);
  else fprintf(f, "%s = NaN\n", key);
}

void kg__dat_num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, " %.6g", v);
  else fputs(" ?", f);
}

void kg__dat_tip(FILE *f, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fputs(" \"", f);
  for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
    if (*p == '\n') fputs("\\n", f);
    else if (*p < 0x20 || *p == 0x7f || strchr("\"\\'<>&#", *p)) fputc('?', f);
    else fputc(*p, f);
  fputc('"', f);
}

void kg__case_tip(FILE *f, const kg_run *run, size_t i) {
  kg_perf pf = kg_perf_of(run, i);
  const kg_timing *t = &run->results[i].timing;
  char label[32];
  kg_size_label(run->cases[i].n, label, sizeof label);
  kg__dat_tip(f,
              "%s, n = %s\n%.1f GB/s, %.1f %% of peak\nmedian %.4g \u00b5s, quartiles %.4g to %.4g \u00b5s\ncommit %s",
              kg_variants[run->cases[i].variant].name, label, pf.gbps, pf.pct_peak, t->median_us, t->q1_us, t->q3_us,
              run->meta.commit[0] ? run->meta.commit : "unknown");
}

static void rgb_lerp(unsigned a, unsigned b, double t, char *buf, size_t len) {
  unsigned c = 0;
  for (int sh = 0; sh <= 16; sh += 8) {
    double x = ((a >> sh) & 0xff) * (1 - t) + ((b >> sh) & 0xff) * t;
    c |= (unsigned)lround(x) << sh;
  }
  snprintf(buf, len, "#%06x", c);
}

size_t kg__family_of(const char *seed) {
  size_t k = 0;
  while (k_families[k].seed && strcmp(k_families[k].seed, seed)) k++;
  return k;
}

const char *kg__family_label(size_t fam) { return k_families[fam].label; }

unsigned kg__family_ink(size_t fam) { return k_families[fam].dark; }

int kg__is_reference(size_t fam) {
  return k_families[fam].seed && (!strcmp(k_families[fam].seed, "cub") || !strcmp(k_families[fam].seed, "kgate"));
}

/* Colour and point type of series s among the selected variants
 * (sel[0..count), registry indices): by family, darker along the ladder. */
static void series_style(const int *sel, size_t count, size_t s, char *rgb, size_t len, int *pt) {
  size_t fam = kg__family_of(kg_variants[sel[s]].seed), members = 0, rank = 0;
  for (size_t k = 0; k < count; k++)
    if (kg__family_of(kg_variants[sel[k]].seed) == fam) rank += k < s, members++;
  rgb_lerp(k_families[fam].light, k_families[fam].dark, members > 1 ? (double)rank / (double)(members - 1) : 1, rgb,
           len);
  *pt = k_points[rank % (sizeof k_points / sizeof k_points[0])];
}

void kg__series_styles(FILE *g, const int *sel, size_t count) {
  char c[16];
  int pt;
  fputs("colors = '", g);
  for (size_t s = 0; s < count; s++) {
    series_style(sel, count, s, c, sizeof c, &pt);
    fprintf(g, "%s%s", s ? " " : "", c);
  }
  fputs("'\npoints = '", g);
  for (size_t s = 0; s < count; s++) {
    series_style(sel, count, s, c, sizeof c, &pt);
    fprintf(g, "%s%d", s ? " " : "", pt);
  }
  fputs("'\n", g);
}

void kg__run_subtitle(const kg_run_meta *m, char *buf, size_t len) {
  char date[48];
  kg_date_label(m->date, date, sizeof date);
  snprintf(buf, len, "%s \u00b7 %s \u00b7 commit %s \u00b7 %s L2", m->dev.name[0] ? m->dev.name : "unknown GPU", date,
           m->commit[0] ? m->commit : "unknown", m->time.hot ? "warm" : "cold");
}

/* ---- the pair of files ------------------------------------------------------ */

int kg__pair_open(kg__pair *p, const kg__job *j, const char *dtype, const char *fmt, ...) {
  kg_charts *out = j->out;
  char *err = j->err;
  size_t errlen = j->errlen;
  if (out->n == KG_MAX_CHARTS) {
    snprintf(err, errlen, "too many charts (at most %d)", KG_MAX_CHARTS);
    return -1;
  }
  kg_chart *c = &out->c[out->n];
  memset(c, 0, sizeof *c);
  c->kind = j->kind;
  snprintf(c->name, sizeof c->name, "%s-%s", j->name, dtype);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.dat", j->dir, c->name);
  if (kg_out_open(&p->dat, path, err, errlen)) return -1;
  snprintf(path, sizeof path, "%s/%s.vars", j->dir, c->name);
  if (kg_out_open(&p->vars, path, err, errlen)) {
    kg_out_abort(&p->dat);
    return -1;
  }
  p->chart = c;
  fprintf(p->vars.f, "# kgate: settings for plots/%s.gp (kgate writes this file)\n", j->name);
  /* Relative: gnuplot runs in the output folder, which can move as a whole. */
  kg__gp_str(p->vars.f, "data", "%s.dat", c->name);
  /* The page's severity scale (severity.h), for the scripts' markers: sev_regression = '#e07000', ... */
  for (int v = 0; v < KG_NSEVERITIES; v++) {
    char key[32];
    snprintf(key, sizeof key, "sev_%s", kg_severity_get((kg_severity)v)->name);
    kg__gp_str(p->vars.f, key, "#%06x", kg_severity_get((kg_severity)v)->ink);
  }
  va_list ap;
  va_start(ap, fmt);
  vfprintf(p->dat.f, fmt, ap);
  va_end(ap);
  return 0;
}

void kg__pair_abort(kg__pair *p) {
  kg_out_abort(&p->dat);
  kg_out_abort(&p->vars);
}

int kg__pair_commit(kg__pair *p, const kg__job *j) {
  if (kg_out_commit(&p->dat, j->err, j->errlen)) {
    kg_out_abort(&p->vars);
    return -1;
  }
  if (kg_out_commit(&p->vars, j->err, j->errlen)) return -1;
  j->out->n++;
  return 0;
}

/* ---- which cases ---------------------------------------------------------- */

int kg__timed(const kg_run *run, size_t i) { return run->cases[i].timed && run->results[i].timing.samples > 0; }

long kg__timed_case(const kg_run *run, int v, kg_dtype dt, size_t n) {
  for (size_t i = 0; i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    if (c->variant == v && c->dtype == dt && c->n == n && kg__timed(run, i)) return (long)i;
  }
  return -1;
}

/* Adds n to the set of sizes set[0..*k) unless there; the caller made room for every candidate. */
static void size_add(size_t *set, size_t *k, size_t n) {
  size_t j = 0;
  while (j < *k && set[j] != n) j++;
  if (j == *k) set[(*k)++] = n;
}

void kg__sort_sizes(size_t *a, size_t k) {
  for (size_t i = 1; i < k; i++)
    for (size_t b = i; b > 0 && a[b - 1] > a[b]; b--) {
      size_t t = a[b];
      a[b] = a[b - 1], a[b - 1] = t;
    }
}

long kg__timed_sizes(const kg_run *run, kg_dtype dt, size_t **ns) {
  size_t k = 0;
  if (!(*ns = malloc((run->n + 1) * sizeof **ns))) return -1;
  for (size_t i = 0; i < run->n; i++)
    if (run->cases[i].dtype == dt && kg__timed(run, i)) size_add(*ns, &k, run->cases[i].n);
  kg__sort_sizes(*ns, k);
  return (long)k;
}

size_t kg__rank_of(const char *variant) {
  int v = kg_variant_find(variant);
  return v >= 0 ? (size_t)v : kg_nvariants;
}

/* Ladder order of (variant, n) rows: registry position, unknown names
 * after it by name, then n. */
static int ladder_before(const char *xv, size_t xn, const char *yv, size_t yn) {
  size_t rx = kg__rank_of(xv), ry = kg__rank_of(yv);
  int c = rx != ry ? (rx < ry ? -1 : 1) : strcmp(xv, yv);
  return c < 0 || (c == 0 && xn < yn);
}

void kg__ladder_sort(size_t *idx, size_t k, const void *items, size_t size, size_t variant_at, size_t n_at) {
  const char *base = items;
  for (size_t a = 1; a < k; a++)
    for (size_t b = a; b > 0; b--) {
      const char *x = base + idx[b - 1] * size, *y = base + idx[b] * size;
      if (!ladder_before(y + variant_at, *(const size_t *)(y + n_at), x + variant_at, *(const size_t *)(x + n_at)))
        break;
      size_t t = idx[b];
      idx[b] = idx[b - 1], idx[b - 1] = t;
    }
}

int kg__ladder_cmp(const void *pa, const void *pb) {
  const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
  size_t ra = kg__rank_of(a), rb = kg__rank_of(b);
  return ra != rb ? (ra < rb ? -1 : 1) : strcmp(a, b);
}
