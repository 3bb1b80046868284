/* The shared option parsers and the defaults of check and run (settings.h). */
#include "settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "dtype.h"
#include "pattern.h"
#include "plan.h"
#include "sanitize.h"
#include "suggest.h"

void kg_gate_opts_init(void *s) {
  kg_gate_opts *go = s;
  go->paired.pair.quads = KG_PAIR_QUADS;
  go->baseline_dir = "baselines"; /* check has no --baseline-dir: the reports name run's default */
}

int kg_gate_opts_gpu_free(const void *s) { return ((const kg_gate_opts *)s)->plan_only; }

void kg_gate_opts_free(void *s) {
  kg_plan_opts *plan = &((kg_gate_opts *)s)->plan;
  free((size_t *)plan->sizes);
  free((size_t *)plan->perf_sizes);
  plan->sizes = plan->perf_sizes = NULL;
}

/* --sanitize: tools kg_san_parse_tools knows. */
int kg_gate_set_sanitize(void *s, const char *value, char *err, size_t errlen) {
  unsigned mask;
  if (kg_san_parse_tools(value, &mask, err, errlen)) return KG_OPT_SAID;
  ((kg_gate_opts *)s)->sanitize = value;
  return 0;
}

static const char *dtype_word(int i) { return kg_dtype_get((kg_dtype)i)->name; }
static const char *pattern_word(int i) { return kg_pattern_name((kg_pattern)i); }

/* --dtype and --pattern: each word of the list checked here, so a typo gets
 * the nearest one (F32: f32) before anything runs. */
int kg_gate_set_dtypes(void *s, const char *value, char *err, size_t errlen) {
  if (kg_suggest_list(value, "dtype", dtype_word, KG_NDTYPES, err, errlen)) return KG_OPT_SAID;
  ((kg_gate_opts *)s)->plan.dtypes = value;
  return 0;
}

int kg_gate_set_patterns(void *s, const char *value, char *err, size_t errlen) {
  if (kg_suggest_list(value, "pattern", pattern_word, KG_NPATTERNS, err, errlen)) return KG_OPT_SAID;
  ((kg_gate_opts *)s)->plan.patterns = value;
  return 0;
}

/* --shard i/N. */
int kg_gate_set_shard(void *s, const char *value, char *err, size_t errlen) {
  kg_gate_opts *go = s;
  if (!kg_shard_parse(value, &go->shard_i, &go->shard_n)) return 0;
  snprintf(err, errlen, "bad value '%s' for --shard (expected i/N with 1 <= i <= N)", value);
  return KG_OPT_SAID;
}

/* One device number of a --devices list, in 0..1023. 0, or -1. */
static int device_number(const char *p, size_t len, int *dev) {
  char item[32];
  if (!len || len >= sizeof item) return -1;
  snprintf(item, sizeof item, "%.*s", (int)len, p);
  if (item[0] == '-') return -1;
  char *end;
  errno = 0;
  unsigned long long u = strtoull(item, &end, 10);
  if (errno || u > 1023 || *end) return -1;
  *dev = (int)u;
  return 0;
}

/* --devices all, or a comma list of distinct device numbers. */
int kg_gate_set_devices(void *s, const char *value, char *err, size_t errlen) {
  kg_gate_opts *g = s;
  g->devices_all = !strcmp(value, "all");
  g->ndevices = 0;
  for (const char *p = value; !g->devices_all;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    int dev = -1, dup = 0;
    if (!device_number(p, len, &dev))
      for (int k = 0; k < g->ndevices; k++) dup |= g->devices[k] == dev;
    if (dev < 0 || dup || g->ndevices == KG_GATE_MAXDEVICES) {
      snprintf(err, errlen, "bad value '%s' for --devices (expected all, or distinct device numbers like 0,2)", value);
      return KG_OPT_SAID;
    }
    g->devices[g->ndevices++] = dev;
    if (!comma) break;
    p = comma + 1;
  }
  return 0;
}
