/* The results JSON (docs/results-schema.md): the whole run, written once at
 * the end, atomically, one case per line. Reading is strict about what it
 * needs and names the file, the case and the field when something is off,
 * since a results file may come from another machine or another kgate. */
#include "results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "fileio.h"
#include "registry.h"

#define R kg_json_real

json_t *kg_device_to_json(const kg_device_info *d) {
  return json_pack("{ss si si si sI sI si si so so si si}", "name", d->name, "cc_major", d->cc_major, "cc_minor",
                   d->cc_minor, "sms", d->sms, "l2_bytes", (json_int_t)d->l2_bytes, "mem_bytes",
                   (json_int_t)d->mem_bytes, "mem_clock_khz", d->mem_clock_khz, "bus_width_bits", d->bus_width_bits,
                   "peak_gbps", R(d->peak_gbps), "roofline_gbps", R(d->roofline_gbps), "driver_version",
                   d->driver_version, "runtime_version", d->runtime_version);
}

int kg_device_from_json(json_t *o, kg_device_info *d, char *err, size_t errlen) {
  kg_jrd r = {.err = err, .errlen = errlen};
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "%s", kg_jrd_str(&r, o, "name"));
  d->cc_major = (int)kg_jrd_int(&r, o, "cc_major");
  d->cc_minor = (int)kg_jrd_int(&r, o, "cc_minor");
  d->sms = (int)kg_jrd_int(&r, o, "sms");
  d->l2_bytes = kg_jrd_int(&r, o, "l2_bytes");
  d->mem_bytes = kg_jrd_int(&r, o, "mem_bytes");
  d->mem_clock_khz = (int)kg_jrd_int(&r, o, "mem_clock_khz");
  d->bus_width_bits = (int)kg_jrd_int(&r, o, "bus_width_bits");
  d->peak_gbps = kg_jrd_num(&r, o, "peak_gbps");
  d->roofline_gbps = kg_jrd_num(&r, o, "roofline_gbps");
  d->driver_version = (int)kg_jrd_int(&r, o, "driver_version");
  d->runtime_version = (int)kg_jrd_int(&r, o, "runtime_version");
  return r.failed ? -1 : 0;
}

kg_perf kg_perf_of(const kg_run *run, size_t i) {
  kg_perf p = {0};
  const kg_case *c = &run->cases[i];
  double t = run->results[i].timing.median_us;
  if (run->results[i].timing.samples <= 0 || !(t > 0)) return p;
  const kg_device_info *d = &run->meta.dev;
  p.gbps = (double)c->n * (double)kg_dtype_get(c->dtype)->size / (t * 1e3); /* bytes/us = 1e6 B/s */
  p.pct_peak = d->peak_gbps > 0 ? 100 * p.gbps / d->peak_gbps : 0;
  p.pct_roofline = d->roofline_gbps > 0 ? 100 * p.gbps / d->roofline_gbps : 0;
  int cub = kg_variant_find("cub_sum");
  for (size_t j = 0; j < run->n; j++) {
    const kg_case *o = &run->cases[j];
    const kg_timing *ot = &run->results[j].timing;
    if (o->variant == cub && o->dtype == c->dtype && o->n == c->n && o->timed && ot->samples > 0) {
      p.vs_cub = ot->median_us / t;
      break;
    }
  }
  return p;
}

static json_t *timing_json(const kg_timing *t, kg_perf p) {
  if (t->samples == 0) return json_null();
  return json_pack("{si so so so so so so so sb so so so so}", "samples", t->samples, "median_us", R(t->median_us),
                   "q1_us", R(t->q1_us), "q3_us", R(t->q3_us), "min_us", R(t->min_us), "noise", R(t->noise),
                   "graph_us", R(t->graph_us), "sm_clock_mhz", R(t->sm_clock_mhz), "throttled", t->throttled, "gbps",
                   R(p.gbps), "pct_peak", R(p.pct_peak), "pct_roofline", R(p.pct_roofline), "vs_cub", R(p.vs_cub));
}

static json_t *case_json(const kg_run *run, size_t i) {
  const kg_case *c = &run->cases[i];
  const kg_result *r = &run->results[i];
  const char *variant = c->variant >= 0 && (size_t)c->variant < kg_nvariants ? kg_variants[c->variant].name : "?";
  return json_pack("{ss ss sI ss sb sb ss ss ss so so so so si sb sb ss so si}", "variant", variant, "dtype",
                   kg_dtype_get(c->dtype)->name, "n", (json_int_t)c->n, "pattern", kg_pattern_name(c->pattern),
                   "supported", c->supported, "timed", c->timed, "status", kg_status_name(r->status), "got", r->got,
                   "expected", r->expected, "abs_err", R(r->abs_err), "bound", R(r->bound), "ratio", R(r->ratio),
                   "depth", R(r->depth), "repeats", r->repeats, "nondeterministic", r->nondeterministic,
                   "input_modified", r->input_modified, "message", r->message, "timing",
                   timing_json(&r->timing, kg_perf_of(run, i)), "device", r->device);
}

static json_t *run_json(const kg_run_meta *m) {
  json_t *o = json_pack("{ss ss ss so s{sI si sb so si so so} so}", "date", m->date, "kgate_version", m->version,
                   "kgate_commit", m->commit, "wall_s", R(m->wall_s), "options", "seed", (json_int_t)m->seed,
                   "repeats", m->repeats, "hot", m->time.hot, "max_noise", R(m->time.max_noise), "min_samples",
                   m->time.min_samples, "max_seconds", R(m->time.max_seconds), "tolerance_pct", R(m->tolerance),
                   "device", kg_device_to_json(&m->dev));
  if (o && m->shard[0]) json_object_set_new(json_object_get(o, "options"), "shard", json_string(m->shard));
  if (o && m->incomplete[0]) { /* interrupted: cases not reached are "pending" */
    json_object_set_new(o, "incomplete", json_true());
    json_object_set_new(o, "signal", json_string(m->incomplete));
  }
  return o;
}

int kg_results_write(const char *path, const kg_run *run, char *err, size_t errlen) {
  json_t *cases = json_array();
  for (size_t i = 0; cases && i < run->n; i++)
    if (json_array_append_new(cases, case_json(run, i))) json_decref(cases), cases = NULL;
  json_t *doc = json_pack("{ss si so so}", "kind", "kgate-results", "schema_version", KG_RESULTS_SCHEMA, "run",
                          run_json(&run->meta), "cases", cases);
  int rc = kg_json_write(path, doc, "cases", err, errlen);
  json_decref(doc);
  return rc;
}

static void read_meta(kg_jrd *r, json_t *doc, kg_run_meta *m) {
  json_t *o = kg_jrd_obj(r, doc, "run", 0);
  snprintf(r->where, sizeof r->where, "run");
  snprintf(m->date, sizeof m->date, "%s", kg_jrd_str(r, o, "date"));
  snprintf(m->version, sizeof m->version, "%s", kg_jrd_str(r, o, "kgate_version"));
  snprintf(m->commit, sizeof m->commit, "%s", kg_jrd_str(r, o, "kgate_commit"));
  m->wall_s = kg_jrd_num(r, o, "wall_s");
  json_t *opt = kg_jrd_obj(r, o, "options", 0), *dev = kg_jrd_obj(r, o, "device", 0);
  snprintf(r->where, sizeof r->where, "run.options");
  m->seed = (uint64_t)kg_jrd_int(r, opt, "seed");
  m->repeats = (int)kg_jrd_int(r, opt, "repeats");
  m->time.hot = kg_jrd_bool(r, opt, "hot");
  m->time.max_noise = kg_jrd_num(r, opt, "max_noise");
  m->time.min_samples = (int)kg_jrd_int(r, opt, "min_samples");
  m->time.max_seconds = kg_jrd_num(r, opt, "max_seconds");
  m->tolerance = kg_jrd_num(r, opt, "tolerance_pct");
  json_t *shard = json_object_get(opt, "shard"); /* optional: only sharded runs have it */
  if (json_is_string(shard)) snprintf(m->shard, sizeof m->shard, "%s", json_string_value(shard));
  json_t *inc = json_object_get(o, "incomplete"), *sig = json_object_get(o, "signal"); /* optional */
  const char *signame = json_is_string(sig) ? json_string_value(sig) : "";
  snprintf(r->where, sizeof r->where, "run");
  if (inc && !json_is_boolean(inc)) kg_jrd_fail(r, "field 'incomplete' should be true or false");
  else if (json_is_true(inc) && strcmp(signame, "SIGINT") && strcmp(signame, "SIGTERM"))
    kg_jrd_fail(r, "field 'signal' should be \"SIGINT\" or \"SIGTERM\" in an incomplete run");
  else if (json_is_true(inc)) snprintf(m->incomplete, sizeof m->incomplete, "%s", signame);
  snprintf(r->where, sizeof r->where, "run.device");
  char e[200];
  if (!r->failed && kg_device_from_json(dev, &m->dev, e, sizeof e)) kg_jrd_fail(r, "%s", e);
}

static void read_timing(kg_jrd *r, json_t *o, kg_timing *t) {
  t->samples = (int)kg_jrd_int(r, o, "samples");
  t->median_us = kg_jrd_num(r, o, "median_us");
  t->q1_us = kg_jrd_num(r, o, "q1_us");
  t->q3_us = kg_jrd_num(r, o, "q3_us");
  t->min_us = kg_jrd_num(r, o, "min_us");
  t->noise = kg_jrd_num(r, o, "noise");
  t->graph_us = kg_jrd_num(r, o, "graph_us");
  t->sm_clock_mhz = kg_jrd_num(r, o, "sm_clock_mhz");
  t->throttled = kg_jrd_bool(r, o, "throttled");
  if (t->samples < 0) kg_jrd_fail(r, "negative samples");
}

static void read_case(kg_jrd *r, json_t *o, kg_case *c, kg_result *res) {
  const char *variant = kg_jrd_str(r, o, "variant"), *dtype = kg_jrd_str(r, o, "dtype");
  long long n = kg_jrd_int(r, o, "n");
  const char *pattern = kg_jrd_str(r, o, "pattern"), *status = kg_jrd_str(r, o, "status");
  c->supported = kg_jrd_bool(r, o, "supported");
  c->timed = kg_jrd_bool(r, o, "timed");
  snprintf(res->got, sizeof res->got, "%s", kg_jrd_str(r, o, "got"));
  snprintf(res->expected, sizeof res->expected, "%s", kg_jrd_str(r, o, "expected"));
  res->abs_err = kg_jrd_num(r, o, "abs_err");
  res->bound = kg_jrd_num(r, o, "bound");
  res->ratio = kg_jrd_num(r, o, "ratio");
  res->depth = kg_jrd_num(r, o, "depth");
  res->repeats = (int)kg_jrd_int(r, o, "repeats");
  res->nondeterministic = kg_jrd_bool(r, o, "nondeterministic");
  res->input_modified = kg_jrd_bool(r, o, "input_modified");
  snprintf(res->message, sizeof res->message, "%s", kg_jrd_str(r, o, "message"));
  json_t *t = kg_jrd_obj(r, o, "timing", 1);
  json_t *device = json_object_get(o, "device"); /* optional: files before --devices lack it */
  res->device = json_is_integer(device) ? (int)json_integer_value(device) : 0;
  res->status = KG_NSTATUS;
  for (int s = 0; s < KG_NSTATUS; s++)
    if (strcmp(status, kg_status_name((kg_status)s)) == 0) res->status = (kg_status)s;
  c->n = (size_t)n;
  if (r->failed) return;
  if ((c->variant = kg_variant_find(variant)) < 0) kg_jrd_fail(r, "unknown variant '%s'", variant);
  else if (kg_dtype_parse(dtype, &c->dtype)) kg_jrd_fail(r, "unknown dtype '%s'", dtype);
  else if (kg_pattern_parse(pattern, &c->pattern)) kg_jrd_fail(r, "unknown pattern '%s'", pattern);
  else if (res->status == KG_NSTATUS) kg_jrd_fail(r, "unknown status '%s'", status);
  else if (n < 0) kg_jrd_fail(r, "negative n");
  if (t && !r->failed) {
    size_t len = strlen(r->where);
    snprintf(r->where + len, sizeof r->where - len, ".timing");
    read_timing(r, t, &res->timing);
  }
}

int kg_results_read(const char *path, kg_run *run, char *err, size_t errlen) {
  memset(run, 0, sizeof *run);
  json_t *doc;
  if (kg_json_load(path, &doc, err, errlen)) return -1;
  kg_jrd r = {.file = path, .err = err, .errlen = errlen};
  const char *kind = kg_jrd_str(&r, doc, "kind");
  if (!r.failed && strcmp(kind, "kgate-results") != 0) kg_jrd_fail(&r, "not a kgate results file (kind '%s')", kind);
  long long version = kg_jrd_int(&r, doc, "schema_version");
  if (!r.failed && version != KG_RESULTS_SCHEMA)
    kg_jrd_fail(&r, "schema_version %lld is not supported (this kgate reads %d)", version, KG_RESULTS_SCHEMA);
  read_meta(&r, doc, &run->meta);
  r.where[0] = '\0';
  json_t *cases = kg_jrd_arr(&r, doc, "cases");
  size_t n = json_array_size(cases);
  if (!r.failed) {
    run->cases = calloc(n ? n : 1, sizeof *run->cases);
    run->results = calloc(n ? n : 1, sizeof *run->results);
    if (!run->cases || !run->results) kg_jrd_fail(&r, "out of memory");
  }
  for (size_t i = 0; i < n && !r.failed; i++) {
    json_t *o = json_array_get(cases, i);
    snprintf(r.where, sizeof r.where, "cases[%zu]", i);
    if (!json_is_object(o)) kg_jrd_fail(&r, "not an object");
    else read_case(&r, o, &run->cases[i], &run->results[i]);
  }
  run->n = n;
  json_decref(doc);
  if (r.failed) kg_run_free(run);
  return r.failed ? -1 : 0;
}

void kg_run_free(kg_run *run) {
  free(run->cases);
  free(run->results);
  run->cases = NULL;
  run->results = NULL;
  run->n = 0;
}
