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
enum { SOLO = 0, VALUE = 1 };

/* The options' ids and rows, from options.def; O_FORMAT: an output format's. */
typedef enum opt_id {
#define KG_OPTION(id, name, alias, value, commands, meta, help) id,
#include "options.def"
#undef KG_OPTION
  O_FORMAT
} opt_id;

typedef struct opt_row {
  const char *name, *alias;
  int value;
  unsigned commands;
  opt_id id;
  const char *meta, *help; /* the value's name ("LIST"), NULL for SOLO; one line of help */
} opt_row;
static const opt_row k_opts[] = {
#define KG_OPTION(id, name, alias, value, commands, meta, help) {name, alias, value, commands, id, meta, help},
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

void kg_cli_command_usage(FILE *f, unsigned commands) {
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

/* --devices all, or a comma list of distinct device numbers. */
static int parse_devices(kg_gate_opts *g, const char *value, char *err, size_t errlen, int *custom) {
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
      *custom = 1;
      return -1;
    }
    g->devices[g->ndevices++] = (int)u;
    if (!comma) return 0;
    p = comma + 1;
  }
}

/* --kernels (kernels) or --base-kernels: repeatable; the same path twice
 * would define every variant twice. -1 with the message in err. */
static int add_module(kg_modules *m, int kernels, const char *value, char *err, size_t errlen, int *custom) {
  const char **list = kernels ? m->kernels : m->base_kernels;
  int *n = kernels ? &m->nkernels : &m->nbase;
  const char *name = kernels ? "--kernels" : "--base-kernels";
  for (int k = 0; k < *n; k++)
    if (!strcmp(list[k], value)) {
      snprintf(err, errlen, "%s %s given twice", name, value);
      *custom = 1;
      return -1;
    }
  if (*n == KG_MODULES_MAX) {
    snprintf(err, errlen, "more than %d %s modules", KG_MODULES_MAX, name);
    *custom = 1;
    return -1;
  }
  list[(*n)++] = value;
  return 0;
}

/* --sizes (perf 0) or --perf-sizes: the last one given wins. The plan's
 * lists are const for its readers; kg_cli owns and frees them. */
static int set_sizes(kg_plan_opts *plan, int perf, const char *value, char *err, size_t errlen, int *sizes_err) {
  const size_t **list = perf ? &plan->perf_sizes : &plan->sizes;
  size_t *count = perf ? &plan->nperf : &plan->nsizes, *parsed = NULL;
  free((size_t *)*list);
  *list = NULL, *count = 0;
  *sizes_err = kg_sizes_parse(value, &parsed, count, err, errlen) != 0;
  *list = parsed;
  return *sizes_err ? -1 : 0;
}

/* Applies one option's value; -1 when the value is bad (err set by caller). */
static int apply(kg_cli *cli, opt_id id, const char *value, char *err, size_t errlen, int *sizes_err) {
  kg_gate_opts *g = &cli->gate;
  kg_paired_opts *p = &g->paired;
  unsigned long long u;
  double d;
  switch (id) {
  case O_HELP: cli->cmd = KG_CMD_HELP; return 0;
  case O_FORMAT: return -1; /* kg_cli_parse sets the report path */
  case O_VERBOSE: g->verbose = 1; return 0;
  case O_QUIET: g->quiet = 1; return 0;
  case O_PLAN: g->plan_only = 1; return 0;
  case O_HOT: g->time.hot = 1; return 0;
  case O_ROOF: cli->roofline = 1; return 0;
  case O_DESCRIBE: cli->describe = 1; return 0;
  case O_OWNK: cli->own_kernels = g->mods.own = value; return 0;
  case O_REFERENCE: g->mods.pins = value; return 0;
  case O_CONTROL: cli->control = value; return 0;
  case O_PAIRED: cli->paired = value; return 0;
  case O_ACK: cli->ack = value; return 0;
  case O_SUMMARY: cli->summary = value; return 0;
  case O_LINTKERNEL: cli->lint_kernel = value; return 0;
  case O_LISTJSON:
  case O_CMPJSON: cli->json = value; return 0;
  case O_KERNELS:
  case O_BASEK: return add_module(&g->mods, id == O_KERNELS, value, err, errlen, sizes_err);
  case O_MINEFF: return parse_pos(value, 100, &p->min_effect_pct);
  case O_ROUNDS: return parse_u64(value, 64, &u) || u < 2 ? -1 : (p->rounds = (int)u, 0);
  case O_MAXROUNDS: return parse_u64(value, 64, &u) || u < 2 ? -1 : (p->max_rounds = (int)u, 0);
  case O_PAIRSEC: return parse_pos(value, 86400, &p->budget_s);
  case O_CELLSEC: return parse_pos(value, 60, &p->pair.max_seconds);
  case O_COPIES: return parse_u64(value, KG_PAIR_MAX_COPIES, &u) || u < 1 ? -1 : (p->pair.copies = (int)u, 0);
  case O_TIMEUNCH: p->time_unchanged = 1; return 0;
  case O_HUGE: cli->huge = 1; return 0;
  case O_ONLY: cli->only = value; return 0;
  case O_SANITIZE: {
    unsigned mask;
    if (kg_san_parse_tools(value, &mask, err, errlen)) {
      *sizes_err = 1; /* the message is already in err */
      return -1;
    }
    g->sanitize = value;
    return 0;
  }
  case O_VARIANT: g->plan.variants = value; return 0;
  case O_DTYPE: g->plan.dtypes = value; return 0;
  case O_PATTERN: g->plan.patterns = value; return 0;
  case O_WORKER: g->mods.worker = value; return 0;
  case O_BASEDIR: cli->baseline_dir = value; return 0;
  case O_OUTPUT: *(cli->cmd == KG_CMD_MERGE ? &cli->merge_out : &cli->output) = value; return 0;
  case O_SHARD:
    if (kg_shard_parse(value, &g->shard_i, &g->shard_n)) {
      snprintf(err, errlen, "bad value '%s' for --shard (expected i/N with 1 <= i <= N)", value);
      *sizes_err = 1;
      return -1;
    }
    return 0;
  case O_TIER:
    if (strcmp(value, "huge")) {
      snprintf(err, errlen, "bad value '%s' for --tier (expected huge)", value);
      *sizes_err = 1;
      return -1;
    }
    g->tier_huge = 1;
    return 0;
  case O_DEVICES: return parse_devices(g, value, err, errlen, sizes_err);
  case O_PLOTS: cli->plots = value; return 0;
  case O_BASELINE: cli->baseline = value; return 0;
  case O_HISTORY: cli->history = value; return 0;
  case O_FILE: cli->file = value; return 0;
  case O_HTML: cli->html = value; return 0;
  case O_MISSING:
    if (strcmp(value, "allow") && strcmp(value, "fail")) {
      snprintf(err, errlen, "bad value '%s' for --missing (expected allow or fail)", value);
      *sizes_err = 1;
      return -1;
    }
    cli->allow_missing = !strcmp(value, "allow");
    return 0;
  case O_SIZES:
  case O_PERF: return set_sizes(&g->plan, id == O_PERF, value, err, errlen, sizes_err);
  case O_SEED: return parse_u64(value, ~0ull, &u) ? -1 : (g->seed = u, 0);
  case O_REPEAT: return parse_u64(value, 100, &u) || u < 1 ? -1 : (g->repeats = (int)u, 0);
  case O_DEVICE: return parse_u64(value, 1023, &u) ? -1 : (g->device = (int)u, 0);
  case O_MINS: return parse_u64(value, 4096, &u) || u < 3 ? -1 : (g->time.min_samples = (int)u, 0);
  case O_TIMEOUT: return parse_pos(value, 86400, &g->timeout_s);
  case O_MAXS: return parse_pos(value, 3600, &g->time.max_seconds);
  case O_NOISE: return parse_pos(value, 100, &d) ? -1 : (g->time.max_noise = d / 100, 0);
  case O_TOL: return parse_pos(value, 1000, &cli->tolerance_pct);
  }
  return -1;
}

/* The option named by arg's first len characters: a row of k_opts, or an
 * output format's (check and run; compare too when the format says so), its
 * kg_format_id in *format. A name with several rows (--json) gives the row
 * of the command (bit), else the first; *all gets every command that takes
 * the name, for "is an option of". */
static int find_option(const char *arg, size_t len, unsigned bit, opt_row *op, int *format, unsigned *all) {
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
      row = (opt_row){f->option, NULL, VALUE, commands, O_FORMAT, "FILE", f->about};
    }
    *all |= row.commands;
    if (!found || (row.commands & bit && !(op->commands & bit))) {
      *op = row, found = 1;
      if (o >= NOPTS) *format = o - NOPTS;
    }
  }
  return found ? 0 : -1;
}

/* The value of an option: after '=', or the next argument (*i moves past
 * it). 0, or -1 with the message in err. */
static int option_value(const opt_row *op, const char *eq, int argc, char **argv, int *i, const char *name,
                        const char **value, char *err, size_t errlen) {
  *value = NULL;
  if (op->value == SOLO && eq) {
    snprintf(err, errlen, "option '%s' takes no value", name);
    return -1;
  }
  if (op->value == VALUE) {
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
static int take_option(kg_cli *cli, int c, const opt_row *op, unsigned all, int format, const char *name,
                       const char *eq, int argc, char **argv, int *i, char *err, size_t errlen) {
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
  int sizes_err = 0;
  if (op->id == O_FORMAT) cli->reports[format] = value;
  else if (apply(cli, op->id, value, err, errlen, &sizes_err)) {
    if (!sizes_err) snprintf(err, errlen, "bad value '%s' for %s (see --help)", value, name);
    return KG_EXIT_USAGE;
  }
  return 0;
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

int kg_cli_parse(int argc, char **argv, kg_cli *cli, char *err, size_t errlen) {
  *cli = (kg_cli){.cmd = KG_CMD_HELP,
                  .gate = {.seed = 1, .repeats = 3, .timeout_s = 60,
                           .time = {.hot = 0, .max_noise = 0.005, .min_samples = 10, .max_seconds = 2},
                           .paired = {.pair = {.copies = 4, .quads = 32, .max_seconds = 0.1}, .rounds = 2,
                                      .max_rounds = 6, .budget_s = 10}},
                  .baseline_dir = "baselines", .output = "."};
  if (argc < 2) { /* `kgate $CMD` with an empty $CMD must not pass as a help request */
    snprintf(err, errlen, "no command given (usage: kgate <command> [options]; try --help)");
    return KG_EXIT_USAGE;
  }
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
  cli->cmd = k_cmds[c].cmd;
  if (!strcmp(argv[1], "help")) return help_topic(argc, argv, cli, err, errlen);
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
    int format = 0, rc;
    unsigned all;
    if (arg[1] != '-' && arg[2]) { /* bundled short flags: -vq; only the last may take a value */
      for (const char *p = arg + 1; *p; p++) {
        char name[3] = {'-', *p, '\0'};
        if (find_option(name, 2, k_cmds[c].bit, &op, &format, &all) || (op.value == VALUE && p[1]))
          return unrecognized(arg, strlen(arg), 0, err, errlen);
        if ((rc = take_option(cli, c, &op, all, format, name, NULL, argc, argv, &i, err, errlen))) return rc;
      }
      continue;
    }
    /* --name=value or --name value */
    char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (find_option(arg, len, k_cmds[c].bit, &op, &format, &all)) return unrecognized(arg, len, 0, err, errlen);
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)len, arg);
    if ((rc = take_option(cli, c, &op, all, format, name, eq, argc, argv, &i, err, errlen))) return rc;
  }
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
    if (cli->help_commands) kg_cli_command_usage(stdout, cli->help_commands);
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
