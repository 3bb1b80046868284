/* A run checked before it is written where others will read it (validate.h). */
#include "validate.h"

#include <stdio.h>

#include "dtype.h"
#include "escape.h"
#include "fields.h"
#include "varreg.h"

int kg_run_check(const kg_run *run, char *why, size_t len) {
  const kg_run_meta *m = &run->meta;
  const struct {
    const char *field, *value, *why;
  } text[] = {
      {"run.date", m->date, kg_why_bad_date(m->date)},
      {"run.kgate_commit", m->commit, kg_why_bad_commit(m->commit)},
      {"run.kgate_version", m->version, kg_why_bad_commit(m->version)},
      {"run.device.name", m->dev.name, kg_why_bad_gpu_name(m->dev.name)},
  };
  for (size_t k = 0; k < sizeof text / sizeof text[0]; k++)
    if (text[k].why) {
      char v[56];
      snprintf(why, len, "%s is '%s': %s", text[k].field, kg_esc_term(text[k].value, v, sizeof v), text[k].why);
      return -1;
    }
  char bad[200];
  if (kg_toolchain_check(&m->dev.toolchain, bad, sizeof bad)) return snprintf(why, len, "run.%s", bad), -1;
  for (size_t i = 0; i < run->n; i++) {
    const kg_case *c = &run->cases[i];
    const kg_timing *t = &run->results[i].timing;
    if (!c->timed || t->samples == 0) continue; /* not timed: nothing is claimed */
    if (kg_timing_check(t, 1, bad, sizeof bad) == 0) continue;
    const char *variant = c->variant >= 0 && (size_t)c->variant < kg_nvariants ? kg_variants[c->variant].name : "?";
    snprintf(why, len, "cases[%zu] (%s %s %zu %s): timing: %s", i, variant, kg_dtype_get(c->dtype)->name, c->n,
             kg_pattern_name(c->pattern), bad);
    return -1;
  }
  return 0;
}
