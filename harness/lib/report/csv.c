/* The CSV printer: one row per case with named columns, every number at
 * full precision (gnuplot and spreadsheets read it), joined to its
 * comparison row and paired cell by the report model (rmodel.h). */
#include "export.h"

#include "dtype.h"
#include "escape.h"
#include "pattern.h"
#include "varreg.h"

static const char k_csv_header[] =
    "variant,seed,dtype,n,pattern,status,got,expected,abs_err,bound,err_ratio,nondeterministic,"
    "median_us,q1_us,q3_us,min_us,samples,noise,graph_us,gbps,pct_peak,pct_roofline,vs_cub,verdict,change,message,"
    "paired_verdict,paired_ratio,paired_lo,paired_hi,paired_min_effect";

/* An absent value is an empty field, so plotting tools skip it rather than plot a 0. */
static void csv_num(FILE *f, int present, double v) {
  fputc(',', f);
  if (present) fprintf(f, "%.9g", v);
}

/* RFC 4180 (kg_esc_csv): text from a results file (got, expected, the
 * message) may hold commas, quotes, line breaks, control characters or a
 * spreadsheet formula. */
static void csv_str(FILE *f, const char *s) {
  fputc(',', f);
  kg_esc_csv(f, s);
}

static void csv_timing(FILE *f, const kg_timing *t) {
  int timed = t->samples > 0;
  csv_num(f, timed, t->median_us);
  csv_num(f, timed, t->q1_us);
  csv_num(f, timed, t->q3_us);
  csv_num(f, timed, t->min_us);
  csv_num(f, timed, t->samples);
  csv_num(f, timed, t->noise);
  csv_num(f, timed && t->graph_us > 0, t->graph_us);
}

static void csv_check(FILE *f, const kg_case *c, const kg_result *r) {
  int num = r->status == KG_ST_PASS || r->status == KG_ST_FAIL;
  /* Every text column is quoted per RFC 4180 when it needs it: a module's
   * seed is free text ("Harris, 2007"), and the names cost nothing to pass. */
  kg_esc_csv(f, kg_variants[c->variant].name);
  csv_str(f, kg_variants[c->variant].seed);
  csv_str(f, kg_dtype_get(c->dtype)->name);
  fprintf(f, ",%zu", c->n);
  csv_str(f, kg_pattern_name(c->pattern));
  csv_str(f, kg_status_name(r->status));
  csv_str(f, num ? r->got : "");
  csv_str(f, num ? r->expected : "");
  csv_num(f, num, r->abs_err);
  csv_num(f, num, r->bound);
  csv_num(f, num, r->ratio);
  csv_num(f, num, r->nondeterministic != 0);
}

static void csv_row(FILE *f, const kg_rdoc *d, size_t i) {
  const kg_result *r = &d->run->results[i];
  const kg_rm_case *j = &d->cases[i];
  csv_check(f, &d->run->cases[i], r);
  csv_timing(f, &r->timing);
  csv_num(f, j->perf.gbps > 0, j->perf.gbps);
  csv_num(f, j->perf.pct_peak > 0, j->perf.pct_peak);
  csv_num(f, j->perf.pct_roofline > 0, j->perf.pct_roofline);
  csv_num(f, j->perf.vs_cub > 0, j->perf.vs_cub);
  const kg_cmp_row *row = j->cmp;
  csv_str(f, row ? kg_verdict_name(row->verdict) : "");
  csv_num(f, row && row->base_us > 0 && row->now_us > 0, row ? row->change : 0);
  csv_str(f, r->message);
  /* The paired columns come last, so readers that count columns keep working. */
  const kg_pair_cell *pc = j->pair;
  int pnum = pc && pc->stat.blocks > 0; /* NEW, MISSING, UNKNOWN and UNCHANGED have no numbers */
  csv_str(f, pc ? kg_pverdict_name(pc->stat.verdict) : "");
  csv_num(f, pnum, pnum ? pc->stat.ratio : 0);
  csv_num(f, pnum, pnum ? pc->stat.lo : 0);
  csv_num(f, pnum, pnum ? pc->stat.hi : 0);
  csv_num(f, pnum, pnum ? pc->min_effect : 0);
  fputc('\n', f);
}

int kg_print_csv(FILE *f, const kg_rdoc *d) {
  fprintf(f, "%s\n", k_csv_header);
  for (size_t i = 0; i < d->run->n; i++) csv_row(f, d, i);
  return 0;
}
