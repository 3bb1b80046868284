/* The settings that several command files share, and the parsers of the
 * options with rules of their own: check and run take the gate's settings
 * (session.h: kg_gate_opts) through gate_options.def; the settings structs
 * of compare, selftest, baseline update and merge are here too, where the
 * command line's tests read them. Each cmd_<name>.c owns its rows and its
 * one library call. */
#ifndef KG_SETTINGS_H
#define KG_SETTINGS_H

#include <stddef.h>

#include "export.h"
#include "pairrun.h"
#include "session.h"

/* compare OLD NEW. */
typedef struct kg_compare_opts {
  const char *old_path, *new_path;
  double tolerance_pct;
  const char *reports[KG_NFORMATS]; /* the formats whose kg_formats row says compare */
  const char *plots;                /* --plots DIR: the comparison chart */
  int allow_missing;                /* --missing allow: cells of OLD that NEW lacks do not fail */
  const char *json;                 /* --json FILE: the counts and every cell's verdict */
  int only_changed;                 /* --only-changed: the printed table without its SAME rows */
  int all_rows;                     /* --all: every row, also on a terminal (where only the changed are the default) */
  int sort;                         /* --sort: the printed rows' order (kg_cmp_order) */
} kg_compare_opts;

/* selftest. */
typedef struct kg_selftest_opts {
  int device;
  double timeout_s; /* --timeout: its own default, 20 s (the hanging mutant waits this long) */
  int quiet;
  const char *only; /* --only: mutant names */
  int huge;         /* --huge: also the mutant that needs n > 2^31 */
  kg_modules mods;
  kg_pair_settings paired;
} kg_selftest_opts;

/* baseline update RESULTS. */
typedef struct kg_baseline_opts {
  const char *results;
  const char *baseline_dir;
} kg_baseline_opts;

/* merge A B ... -o ALL. */
typedef struct kg_merge_opts {
  const char *const *inputs;
  int ninputs;
  const char *out;
} kg_merge_opts;

/* The quads per block of a paired sample: no option sets it (run, selftest). */
enum { KG_PAIR_QUADS = 32 };

/* The settings of check and run (cmd_check.c, cmd_run.c): the defaults no
 * row states, whether the call needs no GPU (--plan), what the rows
 * allocated; and the parsers of --sanitize, --dtype, --pattern, --shard and
 * --devices (gate_options.def, command.h's kg_opt_fn). */
void kg_gate_opts_init(void *go);
int kg_gate_opts_gpu_free(const void *go);
void kg_gate_opts_free(void *go);
int kg_gate_set_sanitize(void *go, const char *value, char *err, size_t errlen);
int kg_gate_set_dtypes(void *go, const char *value, char *err, size_t errlen);
int kg_gate_set_patterns(void *go, const char *value, char *err, size_t errlen);
int kg_gate_set_shard(void *go, const char *value, char *err, size_t errlen);
int kg_gate_set_devices(void *go, const char *value, char *err, size_t errlen);

#endif
