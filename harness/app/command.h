/* What a command is to the command line: its option rows and its entry
 * (kg_cmd), which each app/cmd_<name>.c defines and commands.def names. The
 * parsing, the help and the dispatch that read them are cli.c's. */
#ifndef KG_COMMAND_H
#define KG_COMMAND_H

#include <stddef.h>
#include <stdint.h>

#include "exitcode.h" /* what a run returns */
#include "worker.h"

/* How a row's value is parsed and where it goes (the OPT_* targets below). */
typedef enum kg_opt_kind {
  KG_OPT_FLAG, KG_OPT_INT, KG_OPT_U64, KG_OPT_POS, KG_OPT_PCT, KG_OPT_STR, KG_OPT_CHOICE, KG_OPT_SIZES,
  KG_OPT_MODULES, KG_OPT_CALLBACK
} kg_opt_kind;

/* A value parser's answer besides 0: KG_OPT_BAD, the caller says "bad value
 * 'V' for NAME (see --help)"; KG_OPT_SAID, the parser wrote its own message. */
enum { KG_OPT_BAD = -1, KG_OPT_SAID = -2 };

/* An OPT_CALLBACK row's parser: an option with rules of its own. */
typedef int kg_opt_fn(void *settings, const char *value, char *err, size_t errlen);

/* One option: its names, value name (NULL for a flag), help line and target. */
typedef struct kg_opt {
  const char *name, *alias, *meta, *help;
  kg_opt_kind kind;
  size_t off, count;               /* offsetof the target in the settings, and of a list's count */
  unsigned long long lo, hi, idef; /* INT, U64: the range, the default; MODULES: hi, the capacity */
  double max, ddef;                /* POS, PCT: the range (0, max], the default; both as typed */
  const char *str;                 /* STR: the default; CHOICE: the word that sets 1 */
  kg_opt_fn *fn;                   /* CALLBACK */
} kg_opt;

/* A row: KG_OPTION(name, alias, target, value name, help). The target says
 * where the value goes in the command's settings struct (KG_SETTINGS, which
 * the file defines before its rows; m: a member path such as paired.rounds,
 * whose type must be the one the kind writes, else the file does not
 * compile) and how it is parsed; a value it refuses exits 2 with "bad value
 * 'V' for NAME (see --help)" unless the kind words its own message:
 *   OPT_FLAG(m)                 no value; int m = 1
 *   OPT_INT(m, lo, hi, def)     int m: a decimal in lo..hi
 *   OPT_U64(m, lo, hi, def)     uint64_t m: the same
 *   OPT_POS(m, max, def)        double m: a finite number in (0, max] (def 0: none given, the command decides)
 *   OPT_PCT(m, max, def)        the same in percent, kept as a fraction (0.5 -> 0.005; def in percent)
 *   OPT_STR(m, def)             const char *m: the argument itself
 *   OPT_CHOICE(m, word)         one of the value name's words (allow|fail), else "expected allow or fail";
 *                               int m = 1 for word, 0 for the others
 *   OPT_SIZES(m, n)             a size list (lib/basics/sizes.h) into m, its count into n; the last one given wins
 *   OPT_MODULES(m, n)           repeatable: appends to the array m (n in it); a path twice or past the
 *                               array's end is an error naming the option
 *   OPT_CALLBACK(fn)            fn(settings, value, err, errlen): an option with rules of its own
 * The parser sets every def before it reads argv (flags, choices and lists
 * start at 0), then the command's init, whose defaults win over a shared
 * row's; the help's "(default ...)" is the row's text (or cli.c's per-command
 * text) and must agree. */
#define KG_OPTION(name, alias, target, meta, help) {name, alias, meta, help, target}
#define KG_MEMBER(m, type) _Generic(((KG_SETTINGS *)0)->m, type: offsetof(KG_SETTINGS, m))
#define OPT_FLAG(m) .kind = KG_OPT_FLAG, .off = KG_MEMBER(m, int)
#define OPT_INT(m, low, high, def)                                                                                     \
  .kind = KG_OPT_INT, .off = KG_MEMBER(m, int), .lo = (low), .hi = (high), .idef = (def)
#define OPT_U64(m, low, high, def)                                                                                     \
  .kind = KG_OPT_U64, .off = KG_MEMBER(m, uint64_t), .lo = (low), .hi = (high), .idef = (def)
#define OPT_POS(m, top, def) .kind = KG_OPT_POS, .off = KG_MEMBER(m, double), .max = (top), .ddef = (def)
#define OPT_PCT(m, top, def) .kind = KG_OPT_PCT, .off = KG_MEMBER(m, double), .max = (top), .ddef = (def)
#define OPT_STR(m, def) .kind = KG_OPT_STR, .off = KG_MEMBER(m, const char *), .str = (def)
#define OPT_CHOICE(m, word) .kind = KG_OPT_CHOICE, .off = KG_MEMBER(m, int), .str = (word)
#define OPT_SIZES(m, n) .kind = KG_OPT_SIZES, .off = KG_MEMBER(m, const size_t *), .count = KG_MEMBER(n, size_t)
#define OPT_MODULES(m, n)                                                                                              \
  .kind = KG_OPT_MODULES, .off = KG_MEMBER(m, const char **), .count = KG_MEMBER(n, int),                              \
  .hi = sizeof((KG_SETTINGS *)0)->m / sizeof *((KG_SETTINGS *)0)->m
#define OPT_CALLBACK(f) .kind = KG_OPT_CALLBACK, .fn = (f)

/* A row only where a flag is 1: KG_IF(1, row) is the row and a comma,
 * KG_IF(0, row) nothing (gate_options.def's columns). */
#define KG_IF(flag, ...) KG_IF_##flag(__VA_ARGS__)
#define KG_IF_1(...) __VA_ARGS__,
#define KG_IF_0(...)

/* What a command's run gets besides its settings. */
typedef struct kg_cmd_call {
  const char *const *args; /* the positional arguments, nargs of them */
  int nargs;
  int (*worker_main)(const kg_worker_opts *o); /* the device layer's worker (NULL in the host-only build) */
} kg_cmd_call;

/* Which output formats (lib/report/formats.def) a command takes as options,
 * into its settings' reports[KG_NFORMATS] at offset reports. */
enum { KG_FORMATS_NONE, KG_FORMATS_ALL, KG_FORMATS_COMPARE };

/* A command's entry: app/cmd_<name>.c defines one, commands.def names it. */
typedef struct kg_cmd {
  const kg_opt *opts; /* its option rows, in the order its help lists them */
  size_t nopts;
  size_t size;                     /* sizeof its settings struct, which the parser allocates zeroed */
  void (*init)(void *settings);    /* defaults after the rows' (NULL: none): a command's own default wins */
  int least, most;                 /* positional arguments */
  const char *label, *needs;       /* "%s needs %s (try --help)" when fewer than least */
  size_t required;                 /* offsetof the string option it cannot do without, with */
  const char *required_text;       /* how to give it ("--file HISTORY.jsonl"); NULL: none */
  int formats;                     /* KG_FORMATS_*, into the const char *[KG_NFORMATS] at: */
  size_t reports;
  /* Runs the command: the exit code (exitcode.h). */
  int (*run)(void *settings, const kg_cmd_call *call);
  int (*gpu_free)(const void *settings); /* a GPU command that needs none for these settings (--plan); NULL */
  void (*free)(void *settings);          /* what the rows allocated (size lists); NULL: nothing */
} kg_cmd;

#define KG_CMD_ROWS(rows) .opts = (rows), .nopts = sizeof(rows) / sizeof(rows)[0]

/* The commands' entries and their ids (KG_CMD_LIST, ...), from commands.def. */
#define KG_COMMAND(id, word, sub, entry, usage, about, gpu) extern const kg_cmd entry;
#include "commands.def"
#undef KG_COMMAND

typedef enum kg_command {
#define KG_COMMAND(id, word, sub, entry, usage, about, gpu) KG_CMD_##id,
#include "commands.def"
#undef KG_COMMAND
  KG_NCOMMANDS
} kg_command;

#endif
