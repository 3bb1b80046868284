/* The timings in the formats that continuous-benchmarking services read:
 * github-action-benchmark's `customSmallerIsBetter` (an array of
 * {name, unit, value, range, extra}) and Bencher's Metric Format (BMF:
 * {benchmark: {measure: {value, lower_value, upper_value}}}). One entry per
 * timed case that passed, named "variant/dtype/n" (the cell kgate gates);
 * both are written from the report model like every other format. */
#include "export.h"

#include "dtype.h"
#include "fileio.h"
#include "varreg.h"

/* A case these formats carry: checked correct and timed. */
static int timed_pass(const kg_result *r) { return r->status == KG_ST_PASS && r->timing.samples > 0; }

static void bench_name(const kg_case *c, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s/%zu", kg_variants[c->variant].name, kg_dtype_get(c->dtype)->name, c->n);
}

int kg_github_benchmark_any(const kg_rdoc *d) {
  for (size_t i = 0; i < d->run->n; i++)
    if (timed_pass(&d->run->results[i])) return 1;
  return 0;
}

/* One entry a line, as kg_json_put lays out the other JSON files. */
int kg_print_github_benchmark(FILE *f, const kg_rdoc *d) {
  const kg_run *run = d->run;
  int first = 1;
  fputc('[', f);
  for (size_t i = 0; i < run->n; i++) {
    const kg_result *r = &run->results[i];
    if (!timed_pass(r)) continue;
    const kg_timing *t = &r->timing;
    char name[128], range[64], extra[512];
    bench_name(&run->cases[i], name, sizeof name);
    /* range is text in this format: the interquartile half-width around the median */
    snprintf(range, sizeof range, "\u00b1 %.4g", (t->q3_us - t->q1_us) / 2);
    snprintf(extra, sizeof extra, "median of %d samples; q1 %.6g us, q3 %.6g us; %.4g GB/s on %s", t->samples, t->q1_us,
             t->q3_us, d->cases[i].perf.gbps, run->meta.dev.name);
    json_t *o = json_pack("{ss ss so ss ss}", "name", name, "unit", "us", "value", kg_json_real(t->median_us), "range",
                          range, "extra", extra);
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(15)) : NULL;
    json_decref(o);
    if (!text) return -1;
    fprintf(f, "%s\n%s", first ? "" : ",", text);
    free(text);
    first = 0;
  }
  fputs(first ? "]\n" : "\n]\n", f);
  return 0;
}

static json_t *bmf_metric(double value, double lower, double upper) {
  return json_pack("{so so so}", "value", kg_json_real(value), "lower_value", kg_json_real(lower), "upper_value",
                   kg_json_real(upper));
}

/* latency: Bencher's built-in measure, in nanoseconds (median, q1, q3);
 * throughput: its other built-in, operations (elements) per second, at the
 * median and at q3 and q1. */
int kg_print_bencher(FILE *f, const kg_rdoc *d) {
  const kg_run *run = d->run;
  json_t *doc = json_object();
  for (size_t i = 0; doc && i < run->n; i++) {
    const kg_result *r = &run->results[i];
    if (!timed_pass(r)) continue;
    const kg_timing *t = &r->timing;
    char name[128];
    double n = (double)run->cases[i].n;
    bench_name(&run->cases[i], name, sizeof name);
    json_t *measures =
        json_pack("{so so}", "latency", bmf_metric(t->median_us * 1e3, t->q1_us * 1e3, t->q3_us * 1e3), "throughput",
                  bmf_metric(n / t->median_us * 1e6, n / t->q3_us * 1e6, n / t->q1_us * 1e6));
    if (!measures || json_object_set_new(doc, name, measures)) json_decref(doc), doc = NULL;
  }
  if (!doc) return -1;
  int rc = kg_json_put(f, doc, NULL);
  json_decref(doc);
  return rc;
}
