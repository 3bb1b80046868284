/* kgate check --sanitize: the workers run under NVIDIA compute-sanitizer.
 * This module knows the tools, finds the program, builds the worker argv and
 * reads compute-sanitizer's text reports. CUDA-free; the supervisor reads the
 * report file after every case (supervisor.h: kg_super_san). */
#ifndef KG_SANITIZE_H
#define KG_SANITIZE_H

#include <stddef.h>

typedef enum kg_san_tool { KG_SAN_MEMCHECK, KG_SAN_RACECHECK, KG_SAN_SYNCCHECK, KG_SAN_INITCHECK, KG_NSAN } kg_san_tool;

/* compute-sanitizer's exit status when it saw errors (--error-exitcode). */
#define KG_SAN_EXIT 86
/* Bytes of padding after every allocation under memcheck (--padding), so an
 * over-read just past a buffer lands in no other allocation. */
#define KG_SAN_PADDING "256"

const char *kg_san_tool_name(kg_san_tool t);
/* "memcheck,racecheck,..." (or "all") to a bit mask over kg_san_tool.
 * 0, or -1 with "unknown sanitizer tool 'x' (memcheck, racecheck, synccheck, initcheck)". */
int kg_san_parse_tools(const char *list, unsigned *mask, char *err, size_t errlen);


/* Finds compute-sanitizer: $KGATE_COMPUTE_SANITIZER if set, else the first
 * compute-sanitizer on $PATH, else $CUDA_HOME/bin and /usr/local/cuda/bin.
 * 0 with the path, or -1 with a one-line environment error in err. */
int kg_san_find(char *path, size_t len, char *err, size_t errlen);

/* argv for a sanitized worker: {sanitizer, --tool, T, --error-exitcode, 86,
 * --print-limit, 10, --log-file, log, [memcheck: --padding, 256,]
 * worker_argv...}, NULL-terminated. The array is malloc'ed (free() it); the
 * strings are the arguments' or static. NULL when out of memory. */
char **kg_san_argv(const char *sanitizer, kg_san_tool t, const char *log, char *const *worker_argv);

/* What a stretch of compute-sanitizer output says. */
typedef struct kg_san_report {
  int errors;         /* error reports seen and not waived (headlines; racecheck warnings not counted) */
  int summary_errors; /* from "ERROR SUMMARY: N errors" or racecheck's "(N errors, ...)"; -1 if none */
  char first[256];    /* the first unwaived error's headline, then " at file:line" when it names one */
  int waived;         /* reports a module's sanitizer waiver covers (waiver.h) */
  const char *waived_reason; /* the first of those waivers' reason, NULL when none */
} kg_san_report;

/* Parses len bytes of output (not NUL-terminated). */
void kg_san_parse(const char *text, size_t len, kg_san_report *r);
/* The same, a report of tool whose kernel and place a waiver of w names
 * counted in r->waived rather than r->errors (tool or w NULL: none waived). */
struct kg_san_waivers;
void kg_san_parse_waived(const char *text, size_t len, const char *tool, const struct kg_san_waivers *w,
                         kg_san_report *r);
/* Whether the report shows any error that is not waived. */
int kg_san_dirty(const kg_san_report *r);

/* What kg_san_scan needs of a run: the tool, and the waivers of the module
 * of a case's variant (NULL: none). */
typedef struct kg_san_scope {
  const char *tool;
  const struct kg_san_waivers *(*waivers_of)(const void *ctx, int variant);
  const void *ctx;
} kg_san_scope;

/* kg_super_san.scan: parses with the waivers of scope ctx (a kg_san_scope,
 * or NULL for none); 1 with the first error copied to first when dirty, else
 * 0 with first "waived: reason (N reports)" when reports were waived, or "". */
int kg_san_scan(const void *ctx, int variant, const char *text, size_t len, char *first, size_t firstlen);

#endif
