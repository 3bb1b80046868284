/* The run model (model.h): status names, counts and labels, and the JSON of
 * its objects, one encoder and decoder each for the wire and the file. */
#include "model.h"

#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "registry.h"

static const char *const k_status[KG_NSTATUS] = {"pending", "pass", "fail", "unsupported", "error"};

const char *kg_status_name(kg_status s) { return (unsigned)s < KG_NSTATUS ? k_status[s] : "?"; }

int kg_status_parse(const char *s, kg_status *out) {
  for (int i = 0; i < KG_NSTATUS; i++)
    if (s && strcmp(s, k_status[i]) == 0) {
      *out = (kg_status)i;
      return 0;
    }
  return -1;
}

kg_counts kg_count_results(const kg_result *results, size_t n) {
  kg_counts c = {.cases = n};
  for (size_t i = 0; i < n; i++) {
    switch (results[i].status) {
    case KG_ST_PASS: c.passed++; break;
    case KG_ST_FAIL: c.failed++; break;
    case KG_ST_ERROR: c.errored++; break;
    case KG_ST_UNSUPPORTED: c.unsupported++; break;
    default: c.pending++; break;
    }
    c.nondeterministic += results[i].nondeterministic != 0;
  }
  return c;
}

void kg_case_label(const kg_case *c, char *buf, size_t len) {
  snprintf(buf, len, "%s %s n=%zu %s", kg_variants[c->variant].name, kg_dtype_get(c->dtype)->name, c->n,
           kg_pattern_name(c->pattern));
}
