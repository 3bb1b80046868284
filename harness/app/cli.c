#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "lintcmd.h"
#include "nightly.h"
#include "plan.h"
#include "publish.h"
#include "report.h"
#include "sanitize.h"
#include "sizes.h"
#include "suggest.h"

enum {
  C_CHECK = 1, C_RUN = 2, C_COMPARE = 4, C_BASELINE = 8, C_WORKER = 16, C_PLOT = 32, C_HADD = 64, C_HPLOT = 128,
  C_REPORT = 256, C_SELFTEST = 512, C_MERGE = 1024, C_LIST = 2048, C_HCHECK = 4096,
  C_HCAL = 8192, C_REFV = 16384, C_LINT = 32768, C_ALL = 65535
};

/* The options' ids and rows, from options.def; O_FORMAT: an output format's. */
typedef enum opt_id {
#define KG_OPTION(id, name, alias, target, commands, meta, help) id,
#include "options.def"
#undef KG_OPTION
  O_FORMAT
} opt_id;

/* How a row's value is parsed and where it goes: options.def's OPT_* targets. */
typedef enum opt_kind {
  K_FLAG, K_CMDMODE, K_INT, K_U64, K_POS, K_PCT, K_STR, K_CHOICE, K_SIZES, K_MODULES, K_CALLBACK
} opt_kind;

/* A value parser's answer besides 0: BAD, the caller says "bad value 'V' for
 * NAME (see --help)"; SAID, the parser wrote a message of its own into err. */
enum { BAD = -1, SAID = -2 };

/* An OPT_CALLBACK row's parser, for an option with rules of its own. */
typedef int opt_fn(kg_cli *cli, const char *value, char *err, size_t errlen);
static opt_fn set_sanitize, set_output, set_shard, set_devices;

typedef struct opt_row {
  const char *name, *alias;
  unsigned commands;
  opt_id id;
  const char *meta, *help; /* the value's name ("LIST"), NULL for a flag; one line of help */
  opt_kind kind;
  size_t off, count;               /* offsetof the target in kg_cli, and of a list's count */
  unsigned long long lo, hi, idef; /* INT, U64: the range, the default; MODULES: hi, the capacity; CMDMODE: lo */
  double max, ddef;                /* POS, PCT: the range (0, max], the default; both as typed on the command line */
  const char *str;                 /* STR: the default; CHOICE: the word that sets 1 */
  opt_fn *fn;                      /* CALLBACK */
} opt_row;

/* offsetof(kg_cli, m), and a compile error unless m has the type its kind writes. */
#define MEMBER(m, type) _Generic(((kg_cli *)0)->m, type: offsetof(kg_cli, m))
#define OPT_FLAG(m) .kind = K_FLAG, .off = MEMBER(m, int)
#define OPT_CMDMODE(cmd) .kind = K_CMDMODE, .lo = (cmd)
#define OPT_INT(m, low, high, def) .kind = K_INT, .off = MEMBER(m, int), .lo = (low), .hi = (high), .idef = (def)
#define OPT_U64(m, low, high, def) .kind = K_U64, .off = MEMBER(m, uint64_t), .lo = (low), .hi = (high), .idef = (def)
#define OPT_POS(m, top, def) .kind = K_POS, .off = MEMBER(m, double), .max = (top), .ddef = (def)
#define OPT_PCT(m, top, def) .kind = K_PCT, .off = MEMBER(m, double), .max = (top), .ddef = (def)
#define OPT_STR(m, def) .kind = K_STR, .off = MEMBER(m, const char *), .str = (def)
#define OPT_CHOICE(m, word) .kind = K_CHOICE, .off = MEMBER(m, int), .str = (word)
#define OPT_SIZES(m, n) .kind = K_SIZES, .off = MEMBER(m, const size_t *), .count = MEMBER(n, size_t)
#define OPT_MODULES(m, n)                                                                                              \
  .kind = K_MODULES, .off = MEMBER(m, const char **), .count = MEMBER(n, int),                                         \
  .hi = sizeof((kg_cli *)0)->m / sizeof *((kg_cli *)0)->m
#define OPT_CALLBACK(f) .kind = K_CALLBACK, .fn = (f)

static const opt_row k_opts[] = {
#define KG_OPTION(id, name, alias, target, commands, meta, help) {name, alias, commands, id, meta, help, target},
#include "options.def"
#undef KG_OPTION
};

/* Every command: its word and sub-command word, the option bit, the
 * positional arguments it needs (what, in errors), the option it cannot do
 * without, its usage line (errors and help) and what it does (help; NULL: an
 * alias or the hidden worker, left out of the help). */
static const struct {
  const char *name, *sub; /* sub: the word that must follow ("update"), NULL for none */
  kg_command cmd;
  unsigned bit;
  int nargs;
  const char *label, *needs; /* "baseline needs a results file" */
  size_t required;           /* offsetof the kg_cli string the command cannot do without; 0: none */
  const char *required_text; /* how to give it: "--file HISTORY.jsonl" */
  const char *usage, *about;
} k_cmds[] = {
    {"list", NULL, KG_CMD_LIST, C_LIST, 0, NULL, NULL, 0, NULL, "list",
     "the variants: seed, op, flags, dtypes, idea (also --list)"},
    {"--list", NULL, KG_CMD_LIST, C_LIST, 0, NULL, NULL, 0, NULL, NULL, NULL},
    {"check", NULL, KG_CMD_CHECK, C_CHECK, 0, NULL, NULL, 0, NULL, "check",
     "the correctness matrix: variant x dtype x size x pattern"},
    {"run", NULL, KG_CMD_RUN, C_RUN, 0, NULL, NULL, 0, NULL, "run",
     "the gate: check, time the perf sizes, compare with the baseline"},
    {"compare", NULL, KG_CMD_COMPARE, C_COMPARE, 2, "compare", "two files: OLD.json NEW.json", 0, NULL,
     "compare OLD.json NEW.json", "compare two results (or a baseline and a result) offline"},
    {"baseline", "update", KG_CMD_BASELINE, C_BASELINE, 1, "baseline", "a results file", 0, NULL,
     "baseline update RESULTS.json", "write baselines/<gpu>.json from a fully correct run"},
    {"plot", NULL, KG_CMD_PLOT, C_PLOT, 1, "plot", "a results file", 0, NULL, "plot RESULTS.json",
     "charts: bandwidth against size, the ladder (compare with --baseline)"},
    {"history", "add", KG_CMD_HISTORY_ADD, C_HADD, 1, "history add", "a results file",
     offsetof(kg_cli, file), "--file HISTORY.jsonl", "history add RESULTS.json --file HISTORY.jsonl",
     "append the run to a history, one line"},
    {"history", "plot", KG_CMD_HISTORY_PLOT, C_HPLOT, 1, "history plot", "a history file", 0, NULL,
     "history plot HISTORY.jsonl -o DIR", "trend charts, and the step changes between runs"},
    {"history", "check", KG_CMD_HISTORY_CHECK, C_HCHECK, 1, "history check", "a history file", 0, NULL,
     "history check HISTORY.jsonl [--ack FILE]",
     "the nightly's findings against the pinned reference (exit 4: a regression open)"},
    {"reference", "verify", KG_CMD_REFERENCE_VERIFY, C_REFV, 2, "reference verify", "a pin file and a module",
     0, NULL, "reference verify PINS.json MODULE.so",
     "whether the module is a pinned reference (its SHA-256; exit 2: no)"},
    {"history", "calibrate", KG_CMD_HISTORY_CALIBRATE, C_HCAL, 1, "history calibrate", "a history file", 0, NULL,
     "history calibrate NIGHTS.jsonl [--seed N]",
     "the detector's false alarms and power, replaying unchanged nights"},
    {"report", NULL, KG_CMD_REPORT, C_REPORT, 1, "report", "a results file", offsetof(kg_cli, html), "--html DIR",
     "report RESULTS.json --html DIR", "a static page: charts, ladder tables, the result files"},
    {"selftest", NULL, KG_CMD_SELFTEST, C_SELFTEST, 0, NULL, NULL, 0, NULL, "selftest",
     "run the planted-bug mutants through the checks that must catch them"},
    {"lint", NULL, KG_CMD_LINT, C_LINT, KG_CLI_MAXARGS, "lint", "a kernel module, cubin or SASS listing", 0, NULL,
     "lint FILE...", "the fences of last-block tickets in the machine code (exit 1: a finding)"},
    {"merge", NULL, KG_CMD_MERGE, C_MERGE, KG_CLI_MAXARGS, "merge", "two or more results files", offsetof(kg_cli, merge_out),
     "-o ALL.json", "merge A.json B.json ... -o ALL.json", "one results file from several (shards, GPUs, machines)"},
    {"worker", NULL, KG_CMD_WORKER, C_WORKER, 0, NULL, NULL, 0, NULL, NULL, NULL},
    {"help", NULL, KG_CMD_HELP, 0, 0, NULL, NULL, 0, NULL, "help [COMMAND]", "this text, or one command's options"},
    {"--help", NULL, KG_CMD_HELP, 0, 0, NULL, NULL, 0, NULL, NULL, NULL},
    {"-h", NULL, KG_CMD_HELP, 0, 0, NULL, NULL, 0, NULL, NULL, NULL},
    {"--version", NULL, KG_CMD_VERSION, 0, 0, NULL, NULL, 0, NULL, "--version", "version and commit"},
};
enum { NCMDS = (int)(sizeof k_cmds / sizeof k_cmds[0]), NOPTS = (int)(sizeof k_opts / sizeof k_opts[0]) };

static const char k_exit_codes[] =
    "exit codes: 0 pass, 1 correctness failure (wrong result, crash, hang, CUDA error; compare: a failed\n"
    "            or errored case in NEW, or a cell of OLD missing from NEW; lint: a finding),\n"
    "            2 usage or input error (no command too), 3 environment (no GPU, no gnuplot; lint: no\n"
    "            disassembler for machine code),\n"
    "            4 performance regression only, 130/143 stopped by SIGINT/SIGTERM (results so far written)\n";

/* The commands whose bits are in mask, by name ("check, run"), the hidden
 * worker left out. */
static void command_names(unsigned mask, char *out, size_t len) {
  size_t used = 0;
  out[0] = '\0';
  for (int c = 0; c < NCMDS && used < len; c++)
    if (k_cmds[c].about && k_cmds[c].bit & mask)
      used += (size_t)snprintf(out + used, len - used, "%s%s%s%s", used ? ", " : "", k_cmds[c].name,
                               k_cmds[c].sub ? " " : "", k_cmds[c].sub ? k_cmds[c].sub : "");
}

/* One option's help line: "  -d, --device N" padded, then its help. */
static void print_option(FILE *f, const char *name, const char *alias, const char *meta, const char *help,
                         const char *commands) {
  char left[64];
  snprintf(left, sizeof left, "%s%s%s%s%s", alias ? alias : "", alias ? ", " : "", name, meta ? " " : "",
           meta ? meta : "");
  fprintf(f, "  %-22s %s%s%s%s\n", left, help, commands ? " [" : "", commands ? commands : "", commands ? "]" : "");
}

/* The rows that the commands in mask take, from options.def and kg_formats;
 * with_commands: each row says which commands take it. */
static void print_options(FILE *f, unsigned mask, int with_commands) {
  char names[256];
  for (int o = 0; o < NOPTS; o++) {
    unsigned cmds = k_opts[o].commands & ~(unsigned)C_WORKER;
    if (!(cmds & mask)) continue;
    command_names(cmds, names, sizeof names);
    print_option(f, k_opts[o].name, k_opts[o].alias, k_opts[o].meta, k_opts[o].help,
                 with_commands && k_opts[o].id != O_HELP ? names : NULL);
  }
  for (int k = 0; k < KG_NFORMATS; k++) {
    unsigned cmds = C_CHECK | C_RUN | (kg_formats[k].compare ? C_COMPARE : 0);
    if (!(cmds & mask)) continue;
    char help[256];
    snprintf(help, sizeof help, "%s; - for stdout", kg_formats[k].about);
    command_names(cmds, names, sizeof names);
    print_option(f, kg_formats[k].option, NULL, "FILE", help, with_commands ? names : NULL);
  }
}

void kg_cli_usage(FILE *f) {
  fputs("usage: kgate <command> [options]   (kgate help COMMAND, or kgate COMMAND --help: its options)\n\n"
        "commands:\n", f);
  for (int c = 0; c < NCMDS; c++)
    if (k_cmds[c].about) fprintf(f, "  %-47s %s\n", k_cmds[c].usage, k_cmds[c].about);
  fputs("\noptions [the commands that take each]:\n", f);
  print_options(f, ~0u, 1);
  fputs("  charts need gnuplot (scripts: $KGATE_PLOTS, <prefix>/share/kgate/plots, or the source tree's plots/)\n"
        "  short flags bundle (-vq); -- ends the options\n\n", f);
  fputs(k_exit_codes, f);
}

/* The usage of the commands in help_commands (kg_cli's): each one's line and its options only. */
static void command_usage(FILE *f, unsigned commands) {
  for (int c = 0; c < NCMDS; c++) {
    if (!k_cmds[c].about || !(k_cmds[c].bit & commands)) continue;
    fprintf(f, "usage: kgate %s [options]\n  %s\n\noptions:\n", k_cmds[c].usage, k_cmds[c].about);
    print_options(f, k_cmds[c].bit, 0);
    fputc('\n', f);
  }
  fputs(k_exit_codes, f);
}

static int parse_u64(const char *s, unsigned long long max, unsigned long long *v) {
  if (!s || !*s || *s == '-') return -1;
  char *end;
  errno = 0;
  *v = strtoull(s, &end, 10);
  return errno || *end || *v > max ? -1 : 0;
}

/* A finite positive number no larger than max. */
static int parse_pos(const char *s, double max, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return errno || *end || !(*v > 0 && *v <= max) ? -1 : 0;
}

/* The member of cli at offset off (a row's target or count). */
static void *field(kg_cli *cli, size_t off) { return (char *)cli + off; }

/* Every row's default into its target, over a zeroed kg_cli (flags, choices
 * and lists start empty). */
static void set_defaults(kg_cli *cli) {
  /* quads has no option; -o's default is plot's, merge's -o has none (set_output) */
  *cli = (kg_cli){.cmd = KG_CMD_HELP, .gate = {.paired = {.pair = {.quads = 32}}}, .output = "."};
  for (int o = 0; o < NOPTS; o++) {
    const opt_row *op = &k_opts[o];
    void *to = field(cli, op->off);
    if (op->kind == K_INT) *(int *)to = (int)op->idef;
    if (op->kind == K_U64) *(uint64_t *)to = op->idef;
    if (op->kind == K_POS) *(double *)to = op->ddef;
    if (op->kind == K_PCT) *(double *)to = op->ddef / 100; /* as --max-noise 0.5 gives: the same double */
    if (op->kind == K_STR) *(const char **)to = op->str;
  }
}

/* OPT_CHOICE: value must be one of the row's value-name words ("allow|fail");
 * the target is 1 for the row's word, else 0. */
static int set_choice(kg_cli *cli, const opt_row *op, const char *value, char *err, size_t errlen) {
  char expected[128];
  size_t used = 0;
  int found = 0;
  for (const char *w = op->meta; w && used < sizeof expected;) {
    const char *bar = strchr(w, '|');
    size_t len = bar ? (size_t)(bar - w) : strlen(w);
    found |= strlen(value) == len && !strncmp(value, w, len);
    used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%.*s", used ? " or " : "", (int)len, w);
    w = bar ? bar + 1 : NULL;
  }
  if (!found) {
    snprintf(err, errlen, "bad value '%s' for %s (expected %s)", value, op->name, expected);
    return SAID;
  }
  *(int *)field(cli, op->off) = !strcmp(value, op->str);
  return 0;
}

/* OPT_SIZES (--sizes, --perf-sizes): the last one given wins. The plan's
 * lists are const for its readers; kg_cli owns and frees them. */
static int set_sizes(kg_cli *cli, const opt_row *op, const char *value, char *err, size_t errlen) {
  const size_t **list = field(cli, op->off);
  size_t *count = field(cli, op->count), *parsed = NULL;
  free((size_t *)*list);
  *list = NULL, *count = 0;
  int bad = kg_sizes_parse(value, &parsed, count, err, errlen) != 0;
  *list = parsed;
  return bad ? SAID : 0;
}

/* OPT_MODULES (--kernels, --base-kernels): repeatable; the same path twice
 * would define every variant twice. */
static int add_module(kg_cli *cli, const opt_row *op, const char *value, char *err, size_t errlen) {
  const char **list = field(cli, op->off);
  int *n = field(cli, op->count);
  for (int k = 0; k < *n; k++)
    if (!strcmp(list[k], value)) {
      snprintf(err, errlen, "%s %s given twice", op->name, value);
      return SAID;
    }
  if (*n == (int)op->hi) {
    snprintf(err, errlen, "more than %d %s modules", (int)op->hi, op->name);
    return SAID;
  }
  list[(*n)++] = value;
  return 0;
}

/* Applies one option's value as its row says: 0, BAD or SAID. */
static int apply(kg_cli *cli, const opt_row *op, const char *value, char *err, size_t errlen) {
  unsigned long long u;
  double d;
  switch (op->kind) {
  case K_FLAG: *(int *)field(cli, op->off) = 1; return 0;
  case K_CMDMODE: cli->cmd = (kg_command)op->lo; return 0;
  case K_INT:
  case K_U64:
    if (parse_u64(value, op->hi, &u) || u < op->lo) return BAD;
    if (op->kind == K_INT) *(int *)field(cli, op->off) = (int)u;
    else *(uint64_t *)field(cli, op->off) = u;
    return 0;
  case K_POS:
  case K_PCT:
    if (parse_pos(value, op->max, &d)) return BAD;
    *(double *)field(cli, op->off) = op->kind == K_PCT ? d / 100 : d;
    return 0;
  case K_STR: *(const char **)field(cli, op->off) = value; return 0;
  case K_CHOICE: return set_choice(cli, op, value, err, errlen);
  case K_SIZES: return set_sizes(cli, op, value, err, errlen);
  case K_MODULES: return add_module(cli, op, value, err, errlen);
  case K_CALLBACK: return op->fn(cli, value, err, errlen);
  }
  return BAD;
}

/* The OPT_CALLBACK rows' parsers. --sanitize: tools kg_san_parse_tools knows. */
static int set_sanitize(kg_cli *cli, const char *value, char *err, size_t errlen) {
  unsigned mask;
  if (kg_san_parse_tools(value, &mask, err, errlen)) return SAID;
  cli->gate.sanitize = value;
  return 0;
}

/* -o: plot's and history plot's chart folder, merge's merged file. */
static int set_output(kg_cli *cli, const char *value, char *err, size_t errlen) {
  (void)err, (void)errlen;
  *(cli->cmd == KG_CMD_MERGE ? &cli->merge_out : &cli->output) = value;
  return 0;
}

/* --shard i/N. */
static int set_shard(kg_cli *cli, const char *value, char *err, size_t errlen) {
  if (!kg_shard_parse(value, &cli->gate.shard_i, &cli->gate.shard_n)) return 0;
  snprintf(err, errlen, "bad value '%s' for --shard (expected i/N with 1 <= i <= N)", value);
  return SAID;
}

/* --devices all, or a comma list of distinct device numbers. */
static int set_devices(kg_cli *cli, const char *value, char *err, size_t errlen) {
  kg_gate_opts *g = &cli->gate;
  g->devices_all = !strcmp(value, "all");
  g->ndevices = 0;
  if (g->devices_all) return 0;
  const char *p = value;
  for (;;) {
    const char *comma = strchr(p, ',');
    char item[32];
    unsigned long long u;
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
    int dup = 0;
    if (len && len < sizeof item && !parse_u64(item, 1023, &u))
      for (int k = 0; k < g->ndevices; k++) dup |= g->devices[k] == (int)u;
    if (!len || len >= sizeof item || parse_u64(item, 1023, &u) || dup || g->ndevices == KG_GATE_MAXDEVICES) {
      snprintf(err, errlen, "bad value '%s' for --devices (expected all, or distinct device numbers like 0,2)",
               value);
      return SAID;
    }
    g->devices[g->ndevices++] = (int)u;
    if (!comma) return 0;
    p = comma + 1;
  }
}

/* Whether a row takes a value (every kind but a flag's). */
static int takes_value(const opt_row *op) { return op->kind != K_FLAG && op->kind != K_CMDMODE; }

/* The option named by arg's first len characters: a row of k_opts, or an
 * output format's (check and run; compare too when the format says so; its
 * target is its kg_cli.reports entry). A name with several rows (--json)
 * gives the row of the command (bit), else the first; *all gets every
 * command that takes the name, for "is an option of". */
static int find_option(const char *arg, size_t len, unsigned bit, opt_row *op, unsigned *all) {
  int found = 0;
  *all = 0;
  for (int o = 0; o < NOPTS + KG_NFORMATS; o++) {
    opt_row row;
    if (o < NOPTS) {
      const char *al = k_opts[o].alias;
      if ((strlen(k_opts[o].name) != len || strncmp(arg, k_opts[o].name, len)) &&
          (!al || strlen(al) != len || strncmp(arg, al, len)))
        continue;
      row = k_opts[o];
    } else {
      const kg_format *f = &kg_formats[o - NOPTS];
      if (strlen(f->option) != len || strncmp(arg, f->option, len)) continue;
      unsigned commands = C_CHECK | C_RUN | (f->compare ? C_COMPARE : 0);
      row = (opt_row){f->option, NULL, commands, O_FORMAT, "FILE", f->about, .kind = K_STR,
                      .off = offsetof(kg_cli, reports) + (size_t)(o - NOPTS) * sizeof(const char *)};
    }
    *all |= row.commands;
    if (!found || (row.commands & bit && !(op->commands & bit))) *op = row, found = 1;
  }
  return found ? 0 : -1;
}

/* The value of an option: after '=', or the next argument (*i moves past
 * it). 0, or -1 with the message in err. */
static int option_value(const opt_row *op, const char *eq, int argc, char **argv, int *i, const char *name,
                        const char **value, char *err, size_t errlen) {
  *value = NULL;
  if (!takes_value(op) && eq) {
    snprintf(err, errlen, "option '%s' takes no value", name);
    return -1;
  }
  if (takes_value(op)) {
    *value = eq ? eq + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
    if (!*value || !**value) {
      snprintf(err, errlen, "option '%s' needs a value", name);
      return -1;
    }
  }
  return 0;
}

/* "unrecognized argument 'X'", with the nearest command or option when it
 * looks like a typo of one (commands: candidates are the command words). */
static int unrecognized(const char *arg, size_t len, int commands, char *err, size_t errlen) {
  char word[64];
  snprintf(word, sizeof word, "%.*s", (int)(len < sizeof word ? len : sizeof word - 1), arg);
  kg_suggest s;
  kg_suggest_init(&s, word);
  for (int c = 0; commands && c < NCMDS; c++) kg_suggest_add(&s, k_cmds[c].about ? k_cmds[c].name : NULL);
  for (int o = 0; !commands && o < NOPTS; o++)
    if (k_opts[o].commands & ~(unsigned)C_WORKER) kg_suggest_add(&s, k_opts[o].name);
  for (int k = 0; !commands && k < KG_NFORMATS; k++) kg_suggest_add(&s, kg_formats[k].option);
  const char *best = kg_suggest_best(&s);
  if (best) snprintf(err, errlen, "unrecognized argument '%s'; did you mean '%s'? (try --help)", arg, best);
  else snprintf(err, errlen, "unrecognized argument '%s' (try --help)", arg);
  return KG_EXIT_USAGE;
}

/* One option and its value (from '=' or the next argument). 0, or
 * KG_EXIT_USAGE with the message in err. */
static int take_option(kg_cli *cli, int c, const opt_row *op, unsigned all, const char *name, const char *eq,
                       int argc, char **argv, int *i, char *err, size_t errlen) {
  if (!(op->commands & (k_cmds[c].bit ? k_cmds[c].bit : (unsigned)(op->id == O_HELP)))) {
    char names[256];
    command_names(all & ~(unsigned)C_WORKER, names, sizeof names);
    if (!names[0] || k_cmds[c].cmd == KG_CMD_WORKER) return unrecognized(argv[*i], strlen(argv[*i]), 0, err, errlen);
    char self[64];
    snprintf(self, sizeof self, "%s%s%s", k_cmds[c].name, k_cmds[c].sub ? " " : "", k_cmds[c].sub ? k_cmds[c].sub : "");
    snprintf(err, errlen, "'%s' is an option of %s, not of %s (try kgate help %s)", name, names, self, self);
    return KG_EXIT_USAGE;
  }
  const char *value = NULL;
  if (option_value(op, eq, argc, argv, i, name, &value, err, errlen)) return KG_EXIT_USAGE;
  int rc = apply(cli, op, value, err, errlen);
  if (rc == BAD) snprintf(err, errlen, "bad value '%s' for %s (see --help)", value, name);
  return rc ? KG_EXIT_USAGE : 0;
}

/* kgate help [COMMAND [SUB]]: which commands' help to print (0: all). */
static int help_topic(int argc, char **argv, kg_cli *cli, char *err, size_t errlen) {
  if (argc < 3) return 0;
  int found = 0;
  for (int c = 0; c < NCMDS; c++)
    if (k_cmds[c].about && !strcmp(argv[2], k_cmds[c].name) &&
        (argc < 4 || !k_cmds[c].sub || !strcmp(argv[3], k_cmds[c].sub)))
      cli->help_commands |= k_cmds[c].bit, found = 1; /* help, --version: bit 0, the whole usage */
  return found ? 0 : unrecognized(argv[2], strlen(argv[2]), 1, err, errlen);
}

/* The row of k_cmds that argv[1] (and argv[2], a sub-command) names, in *cmd.
 * 0, or KG_EXIT_USAGE with the message in err. */
static int find_command(int argc, char **argv, int *cmd, char *err, size_t errlen) {
  int c = 0, named = -1;
  for (; c < NCMDS; c++) {
    if (strcmp(argv[1], k_cmds[c].name)) continue;
    if (named < 0) named = c;
    if (!k_cmds[c].sub || (argc > 2 && !strcmp(argv[2], k_cmds[c].sub))) break;
  }
  if (c == NCMDS && named < 0) return unrecognized(argv[1], strlen(argv[1]), 1, err, errlen);
  if (c == NCMDS) { /* the command exists, its sub-command does not: name every form */
    size_t used = (size_t)snprintf(err, errlen, "expected");
    for (int k = named; k < NCMDS && used < errlen; k++)
      if (!strcmp(k_cmds[k].name, argv[1]))
        used += (size_t)snprintf(err + used, errlen - used, "%s 'kgate %s'", k == named ? "" : " or", k_cmds[k].usage);
    if (used < errlen) snprintf(err + used, errlen - used, " (try --help)");
    return KG_EXIT_USAGE;
  }
  *cmd = c;
  return 0;
}

/* The arguments after command c's words: options, bundled short flags and
 * positional arguments. 0, or KG_EXIT_USAGE with the message in err. */
static int parse_args(kg_cli *cli, int c, int argc, char **argv, char *err, size_t errlen) {
  int first = k_cmds[c].sub ? 3 : 2, rest = 0; /* rest: after "--", all positional */
  for (int i = first; i < argc; i++) {
    char *arg = argv[i];
    if (!rest && !strcmp(arg, "--")) {
      rest = 1;
      continue;
    }
    if (rest || arg[0] != '-' || !arg[1]) { /* a positional argument ("-" alone too) */
      if (cli->nargs >= k_cmds[c].nargs) return unrecognized(arg, strlen(arg), 0, err, errlen);
      cli->args[cli->nargs++] = arg;
      continue;
    }
    opt_row op;
    int rc;
    unsigned all;
    if (arg[1] != '-' && arg[2]) { /* bundled short flags: -vq; only the last may take a value */
      for (const char *p = arg + 1; *p; p++) {
        char name[3] = {'-', *p, '\0'};
        if (find_option(name, 2, k_cmds[c].bit, &op, &all) || (takes_value(&op) && p[1]))
          return unrecognized(arg, strlen(arg), 0, err, errlen);
        if ((rc = take_option(cli, c, &op, all, name, NULL, argc, argv, &i, err, errlen))) return rc;
      }
      continue;
    }
    /* --name=value or --name value */
    char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (find_option(arg, len, k_cmds[c].bit, &op, &all)) return unrecognized(arg, len, 0, err, errlen);
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)len, arg);
    if ((rc = take_option(cli, c, &op, all, name, eq, argc, argv, &i, err, errlen))) return rc;
  }
  return 0;
}

int kg_cli_parse(int argc, char **argv, kg_cli *cli, char *err, size_t errlen) {
  set_defaults(cli);
  if (argc < 2) { /* `kgate $CMD` with an empty $CMD must not pass as a help request */
    snprintf(err, errlen, "no command given (usage: kgate <command> [options]; try --help)");
    return KG_EXIT_USAGE;
  }
  int c = 0, rc;
  if ((rc = find_command(argc, argv, &c, err, errlen))) return rc;
  cli->cmd = k_cmds[c].cmd;
  if (!strcmp(argv[1], "help")) return help_topic(argc, argv, cli, err, errlen);
  if ((rc = parse_args(cli, c, argc, argv, err, errlen))) return rc;
  if (cli->cmd == KG_CMD_HELP) {
    cli->help_commands = k_cmds[c].bit; /* kgate run --help: run's; kgate --help: 0, all */
    return 0;
  }
  /* merge takes any number of files from two up, lint from one; the others exactly nargs */
  int least = k_cmds[c].cmd == KG_CMD_MERGE ? 2 : k_cmds[c].cmd == KG_CMD_LINT ? 1 : k_cmds[c].nargs;
  if (cli->nargs < least) {
    snprintf(err, errlen, "%s needs %s (try --help)", k_cmds[c].label, k_cmds[c].needs);
    return KG_EXIT_USAGE;
  }
  if (k_cmds[c].required && !*(const char *const *)((const char *)cli + k_cmds[c].required)) {
    snprintf(err, errlen, "%s needs %s (try --help)", k_cmds[c].label, k_cmds[c].required_text);
    return KG_EXIT_USAGE;
  }
  return 0;
}

void kg_cli_free(kg_cli *cli) {
  free((size_t *)cli->gate.plan.sizes);
  free((size_t *)cli->gate.plan.perf_sizes);
  cli->gate.plan.sizes = cli->gate.plan.perf_sizes = NULL;
}

kg_gate_opts kg_cli_gate(const kg_cli *cli) {
  kg_gate_opts go = cli->gate;
  go.timing = cli->cmd == KG_CMD_RUN;
  go.tolerance_pct = cli->tolerance_pct;
  go.baseline_dir = cli->baseline_dir;
  memcpy(go.reports, cli->reports, sizeof go.reports);
  go.plots = cli->plots;
  return go;
}

kg_compare_opts kg_cli_compare(const kg_cli *cli) {
  kg_compare_opts co = {cli->args[0], cli->args[1], cli->tolerance_pct, {0}, cli->plots, cli->allow_missing, cli->json};
  memcpy(co.reports, cli->reports, sizeof co.reports);
  return co;
}

kg_selftest_opts kg_cli_selftest(const kg_cli *cli) {
  const kg_gate_opts *g = &cli->gate;
  return (kg_selftest_opts){g->device, g->timeout_s, g->quiet, cli->only, cli->huge, g->mods, g->paired};
}

kg_publish_opts kg_cli_publish(const kg_cli *cli) {
  return (kg_publish_opts){cli->args[0], cli->output, cli->baseline,      cli->baseline_dir, cli->history,
                           cli->file,    cli->html,   cli->tolerance_pct, cli->control, cli->paired,
                           cli->ack};
}

int kg_cli_run(const kg_cli *cli) {
  const kg_publish_opts po = kg_cli_publish(cli);
  const kg_gate_opts go = kg_cli_gate(cli);
  const kg_compare_opts co = kg_cli_compare(cli);
  const kg_selftest_opts so = kg_cli_selftest(cli);
  const kg_baseline_opts bo = {cli->args[0], cli->baseline_dir};
  const kg_merge_opts mo = {cli->args, cli->nargs, cli->merge_out};
  switch (cli->cmd) {
  case KG_CMD_HELP:
    if (cli->help_commands) command_usage(stdout, cli->help_commands);
    else kg_cli_usage(stdout);
    return KG_EXIT_OK;
  case KG_CMD_VERSION: printf("kgate %s (%s)\n", KG_VERSION, KG_GIT); return KG_EXIT_OK;
  case KG_CMD_LIST: return kg_gate_list(&cli->gate.mods, cli->json);
  case KG_CMD_CHECK:
  case KG_CMD_RUN: return kg_gate_run(&go);
  case KG_CMD_COMPARE: return kg_gate_compare(&co);
  case KG_CMD_BASELINE: return kg_gate_baseline_update(&bo);
  case KG_CMD_PLOT: return kg_publish_plot(&po);
  case KG_CMD_HISTORY_ADD: return kg_publish_history_add(&po);
  case KG_CMD_HISTORY_PLOT: return kg_publish_history_plot(&po);
  case KG_CMD_HISTORY_CHECK: return kg_nightly_check(&(kg_nightly_opts){cli->args[0], cli->ack, cli->summary});
  case KG_CMD_HISTORY_CALIBRATE: return kg_nightly_calibrate(cli->args[0], cli->gate.seed);
  case KG_CMD_REFERENCE_VERIFY: return kg_nightly_verify(cli->args[0], cli->args[1]);
  case KG_CMD_REPORT: return kg_publish_report(&po);
  case KG_CMD_SELFTEST: return kg_gate_selftest(&so);
  case KG_CMD_MERGE: return kg_gate_merge(&mo);
  case KG_CMD_LINT: return kg_lint_main(&(kg_lint_opts){cli->args, cli->nargs, cli->lint_kernel});
  default: return KG_EXIT_USAGE;
  }
}
