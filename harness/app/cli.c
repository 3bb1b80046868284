#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "nightly.h"
#include "plan.h"
#include "publish.h"
#include "report.h"
#include "sanitize.h"
#include "sizes.h"

void kg_cli_usage(FILE *f) {
  fputs("usage: kgate <command> [options]\n"
        "\n"
        "commands:\n"
        "  list                       the variants: seed, op, flags, dtypes, idea (also --list; --kernels too)\n"
        "  check                      the correctness matrix: variant x dtype x size x pattern\n"
        "  run                        the gate: check, time the perf sizes, compare with the baseline\n"
        "  compare OLD.json NEW.json  compare two results (or a baseline and a result) offline\n"
        "  baseline update RESULTS.json  write baselines/<gpu>.json from a fully correct run\n"
        "  plot RESULTS.json          charts: bandwidth against size, the ladder (compare with --baseline)\n"
        "  history add RESULTS.json --file HISTORY.jsonl   append the run to a history, one line\n"
        "  history plot HISTORY.jsonl  trend charts, and the step changes between runs\n"
        "  history check HISTORY.jsonl  the nightly's findings against the pinned reference (exit 4: a regression open)\n"
        "  history calibrate NIGHTS.jsonl  the detector's false alarms and power, replaying unchanged nights (--seed)\n"
        "  reference verify PINS.json MODULE.so   whether the module is a pinned reference (its SHA-256; exit 2: no)\n"
        "  report RESULTS.json --html DIR   a static page: charts, ladder tables, the result files\n"
        "  selftest                   run the planted-bug mutants through the checks that must catch them\n"
        "  merge A.json B.json ... -o ALL.json   one results file from several (shards, GPUs, machines)\n"
        "\n"
        "check and run options:\n"
        "  --variant LIST       comma-separated variant names (default: all)\n"
        "  --dtype LIST         i32,i64,f32,f64,f16,bf16 (default: all)\n"
        "  --pattern LIST       exact,wrap,uniform,cancel,nan,inf,inf_minus_inf,tiny,huge (default: all that apply)\n"
        "  --sizes LIST         e.g. 0,1,33,1000003,2^22,2^22-1,32M (default: the edge list)\n"
        "  --seed N             input seed (default 1)\n"
        "  --repeat K           runs per float case for the determinism check (default 3)\n"
        "  --timeout S          watchdog per case in seconds, and for a worker's start (default 60)\n"
        "  -d, --device N       CUDA device (default 0)\n"
        "  --devices all|LIST   one worker per device at once, e.g. 0,2 (default: -d's device; run: one GPU model)\n"
        "  --shard i/N          only input groups g with g % N == i-1 (join the shards with kgate merge)\n"
        "  --tier huge          also n = 2^31+1 and 2^32+3 where the device has the memory\n"
        "  -v, --verbose        print every case, not only failures\n"
        "  -q, --quiet          no progress line\n"
        "  --json FILE          results JSON (docs/results-schema.md); - for stdout\n"
        "  --kernels PATH.so    also the variants of this kernel module (repeatable; also list, selftest)\n"
        "  --sanitize TOOLS     check only: run the workers under compute-sanitizer\n"
        "                       (memcheck,racecheck,synccheck,initcheck or all; default sizes: short tails)\n"
        "  --csv FILE, --junit FILE, --markdown FILE   reports (also for compare)\n"
        "\n"
        "run options:\n"
        "  --perf-sizes LIST    sizes to time (default 2^22,2^25; uniform/wrap pattern)\n"
        "  --hot                back-to-back samples (default: cold L2 before each sample)\n"
        "  --max-noise PCT      sample until the median's relative error is below (default 0.5)\n"
        "  --min-samples N      at least N samples (default 10)\n"
        "  --max-seconds S      sampling cap per case (default 2)\n"
        "  --tolerance PCT      slowdown tolerance for all sizes (default 20/15/3 % by size; also compare)\n"
        "  --baseline-dir DIR   where <gpu-slug>.json baselines live (default baselines; also baseline update)\n"
        "  --plots DIR          draw the run's charts into DIR (also compare: the comparison chart)\n"
        "  --missing allow|fail compare: whether cells of OLD that NEW lacks fail (exit 1, the default) or not\n"
        "  --base-kernels PATH  the paired gate: time each timed cell against the variant of its name in this\n"
        "                       base build's kernel module (repeatable: kgate's base and each --kernels' base)\n"
        "  --min-effect PCT     paired: smallest change worth a verdict (default 5/1/0.5 % by input size)\n"
        "  --rounds N, --max-rounds N   paired: rounds for every cell (2), at most for undecided ones (6)\n"
        "  --pair-seconds S     paired: time the extra rounds may take (10); --copies K input copies (4)\n"
        "  --cell-seconds S     paired: sampling time of one cell in one round, all copies (0.1)\n"
        "  --reference PINS.json  nightly: each --base-kernels module must be a pinned reference (its SHA-256)\n"
        "  --own-kernels PATH   kgate's own module (default: beside kgate; the nightly's control pairs a copy\n"
        "                       of the reference with the reference)\n"
        "\n"
        "selftest options:\n"
        "  --only LIST          these mutants only (default: all but the huge-tier one)\n"
        "  --huge               also the mutant that needs n > 2^31 (8 GiB+ of device memory)\n"
        "  --timeout S, -d N    as for check (the hanging mutant waits --timeout; default 20)\n"
        "\n"
        "plot, history and report options:\n"
        "  -o, --output DIR     where charts go (plot, history plot; default .)\n"
        "  --baseline FILE      compare with a baseline or results file (plot, report; history plot: the band,\n"
        "                       default <baseline-dir>/<gpu-slug>.json)\n"
        "  --file FILE          the history file to append to (history add)\n"
        "  --control FILE       history add: the control run (the reference paired with a second load of itself)\n"
        "  --paired FILE        history add: the night's run against the reference, when it is not RESULTS.json's\n"
        "  --ack FILE           history check, report: acknowledged findings (default: none)\n"
        "  --summary FILE       history check: the findings as Markdown (- for stdout)\n"
        "  --html DIR           the folder of the page (report)\n"
        "  --history FILE       add the trend charts and step changes of a history (report)\n"
        "  charts need gnuplot (scripts: $KGATE_PLOTS, <prefix>/share/kgate/plots, or the source tree's plots/)\n"
        "\n"
        "  -h, --help           this text\n"
        "  --version            version and commit\n"
        "\n"
        "exit codes: 0 pass, 1 correctness failure (wrong result, crash, hang, CUDA error; compare: a failed\n"
        "            or errored case in NEW, or a cell of OLD missing from NEW),\n"
        "            2 usage or input error (no command too), 3 environment (no GPU, no gnuplot),\n"
        "            4 performance regression only, 130/143 stopped by SIGINT/SIGTERM (results so far written)\n",
        f);
}

enum {
  C_CHECK = 1, C_RUN = 2, C_COMPARE = 4, C_BASELINE = 8, C_WORKER = 16, C_PLOT = 32, C_HADD = 64, C_HPLOT = 128,
  C_REPORT = 256, C_SELFTEST = 512, C_MERGE = 1024, C_LIST = 2048, C_HCHECK = 4096,
  C_HCAL = 8192, C_REFV = 16384, C_ALL = 32767
};
enum { SOLO = 0, VALUE = 1 };

/* The options' ids and rows, from options.def; O_FORMAT: an output format's. */
typedef enum opt_id {
#define KG_OPTION(id, name, alias, value, commands) id,
#include "options.def"
#undef KG_OPTION
  O_FORMAT
} opt_id;

typedef struct opt_row {
  const char *name, *alias;
  int value;
  unsigned commands;
  opt_id id;
} opt_row;
static const opt_row k_opts[] = {
#define KG_OPTION(id, name, alias, value, commands) {name, alias, value, commands, id},
#include "options.def"
#undef KG_OPTION
};

/* Every command: its word and sub-command word, the option bit, the
 * positional arguments it needs (what, in errors), the option it cannot do
 * without, and its usage line for errors. */
static const struct {
  const char *name, *sub; /* sub: the word that must follow ("update"), NULL for none */
  kg_command cmd;
  unsigned bit;
  int nargs;
  const char *label, *needs; /* "baseline needs a results file" */
  size_t required;           /* offsetof the kg_cli string the command cannot do without; 0: none */
  const char *required_text; /* how to give it: "--file HISTORY.jsonl" */
  const char *usage;
} k_cmds[] = {
    {"list", NULL, KG_CMD_LIST, C_LIST, 0, NULL, NULL, 0, NULL, NULL},
    {"--list", NULL, KG_CMD_LIST, C_LIST, 0, NULL, NULL, 0, NULL, NULL},
    {"check", NULL, KG_CMD_CHECK, C_CHECK, 0, NULL, NULL, 0, NULL, NULL},
    {"run", NULL, KG_CMD_RUN, C_RUN, 0, NULL, NULL, 0, NULL, NULL},
    {"compare", NULL, KG_CMD_COMPARE, C_COMPARE, 2, "compare", "two files: OLD.json NEW.json", 0, NULL, NULL},
    {"baseline", "update", KG_CMD_BASELINE, C_BASELINE, 1, "baseline", "a results file", 0, NULL,
     "baseline update RESULTS.json"},
    {"plot", NULL, KG_CMD_PLOT, C_PLOT, 1, "plot", "a results file", 0, NULL, NULL},
    {"history", "add", KG_CMD_HISTORY_ADD, C_HADD, 1, "history add", "a results file",
     offsetof(kg_cli, file), "--file HISTORY.jsonl", "history add RESULTS.json --file HISTORY.jsonl"},
    {"history", "plot", KG_CMD_HISTORY_PLOT, C_HPLOT, 1, "history plot", "a history file", 0, NULL,
     "history plot HISTORY.jsonl -o DIR"},
    {"history", "check", KG_CMD_HISTORY_CHECK, C_HCHECK, 1, "history check", "a history file", 0, NULL,
     "history check HISTORY.jsonl [--ack FILE]"},
    {"reference", "verify", KG_CMD_REFERENCE_VERIFY, C_REFV, 2, "reference verify", "a pin file and a module",
     0, NULL, "reference verify PINS.json MODULE.so"},
    {"history", "calibrate", KG_CMD_HISTORY_CALIBRATE, C_HCAL, 1, "history calibrate", "a history file", 0, NULL,
     "history calibrate NIGHTS.jsonl [--seed N]"},
    {"report", NULL, KG_CMD_REPORT, C_REPORT, 1, "report", "a results file", offsetof(kg_cli, html), "--html DIR",
     NULL},
    {"selftest", NULL, KG_CMD_SELFTEST, C_SELFTEST, 0, NULL, NULL, 0, NULL, NULL},
    {"merge", NULL, KG_CMD_MERGE, C_MERGE, KG_CLI_MAXARGS, "merge", "two or more results files", offsetof(kg_cli, merge_out),
     "-o ALL.json", NULL},
    {"worker", NULL, KG_CMD_WORKER, C_WORKER, 0, NULL, NULL, 0, NULL, NULL},
    {"help", NULL, KG_CMD_HELP, 0, 0, NULL, NULL, 0, NULL, NULL},
    {"--help", NULL, KG_CMD_HELP, 0, 0, NULL, NULL, 0, NULL, NULL},
    {"-h", NULL, KG_CMD_HELP, 0, 0, NULL, NULL, 0, NULL, NULL},
    {"--version", NULL, KG_CMD_VERSION, 0, 0, NULL, NULL, 0, NULL, NULL},
};

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
  case O_HOT: g->time.hot = 1; return 0;
  case O_ROOF: cli->roofline = 1; return 0;
  case O_DESCRIBE: cli->describe = 1; return 0;
  case O_OWNK: cli->own_kernels = g->mods.own = value; return 0;
  case O_REFERENCE: g->mods.pins = value; return 0;
  case O_CONTROL: cli->control = value; return 0;
  case O_PAIRED: cli->paired = value; return 0;
  case O_ACK: cli->ack = value; return 0;
  case O_SUMMARY: cli->summary = value; return 0;
  case O_KERNELS:
  case O_BASEK: return add_module(&g->mods, id == O_KERNELS, value, err, errlen, sizes_err);
  case O_MINEFF: return parse_pos(value, 100, &p->min_effect_pct);
  case O_ROUNDS: return parse_u64(value, 64, &u) || u < 2 ? -1 : (p->rounds = (int)u, 0);
  case O_MAXROUNDS: return parse_u64(value, 64, &u) || u < 2 ? -1 : (p->max_rounds = (int)u, 0);
  case O_PAIRSEC: return parse_pos(value, 86400, &p->budget_s);
  case O_CELLSEC: return parse_pos(value, 60, &p->pair.max_seconds);
  case O_COPIES: return parse_u64(value, KG_PAIR_MAX_COPIES, &u) || u < 1 ? -1 : (p->pair.copies = (int)u, 0);
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
 * kg_format_id in *format. */
static int find_option(const char *arg, size_t len, opt_row *op, int *format) {
  for (size_t o = 0; o < sizeof k_opts / sizeof k_opts[0]; o++) {
    const char *al = k_opts[o].alias;
    if ((strlen(k_opts[o].name) == len && !strncmp(arg, k_opts[o].name, len)) ||
        (al && strlen(al) == len && !strncmp(arg, al, len)))
      return *op = k_opts[o], 0;
  }
  for (int f = 0; f < KG_NFORMATS; f++)
    if (strlen(kg_formats[f].option) == len && !strncmp(arg, kg_formats[f].option, len)) {
      unsigned commands = C_CHECK | C_RUN | (kg_formats[f].compare ? C_COMPARE : 0);
      *format = f;
      return *op = (opt_row){kg_formats[f].option, NULL, VALUE, commands, O_FORMAT}, 0;
    }
  return -1;
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
  int c = 0, ncmds = (int)(sizeof k_cmds / sizeof k_cmds[0]), named = -1;
  for (; c < ncmds; c++) {
    if (strcmp(argv[1], k_cmds[c].name)) continue;
    if (named < 0) named = c;
    if (!k_cmds[c].sub || (argc > 2 && !strcmp(argv[2], k_cmds[c].sub))) break;
  }
  if (c == ncmds && named < 0) {
    snprintf(err, errlen, "unrecognized argument '%s' (try --help)", argv[1]);
    return KG_EXIT_USAGE;
  }
  if (c == ncmds) { /* the command exists, its sub-command does not: name every form */
    size_t used = (size_t)snprintf(err, errlen, "expected");
    for (int k = named; k < ncmds && used < errlen; k++)
      if (!strcmp(k_cmds[k].name, argv[1]))
        used += (size_t)snprintf(err + used, errlen - used, "%s 'kgate %s'", k == named ? "" : " or", k_cmds[k].usage);
    if (used < errlen) snprintf(err + used, errlen - used, " (try --help)");
    return KG_EXIT_USAGE;
  }
  cli->cmd = k_cmds[c].cmd;
  int first = k_cmds[c].sub ? 3 : 2;
  for (int i = first; i < argc; i++) {
    char *arg = argv[i];
    if (arg[0] != '-' || !arg[1]) { /* a positional argument ("-" alone too) */
      if (cli->nargs >= k_cmds[c].nargs) {
        snprintf(err, errlen, "unrecognized argument '%s' (try --help)", arg);
        return KG_EXIT_USAGE;
      }
      cli->args[cli->nargs++] = arg;
      continue;
    }
    /* --name=value or --name value */
    char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    opt_row op;
    int format = 0;
    if (find_option(arg, len, &op, &format) || !(op.commands & (k_cmds[c].bit ? k_cmds[c].bit : (unsigned)(op.id == O_HELP)))) {
      snprintf(err, errlen, "unrecognized argument '%s' (try --help)", arg);
      return KG_EXIT_USAGE;
    }
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)len, arg);
    const char *value = NULL;
    if (option_value(&op, eq, argc, argv, &i, name, &value, err, errlen)) return KG_EXIT_USAGE;
    int sizes_err = 0;
    if (op.id == O_FORMAT) cli->reports[format] = value;
    else if (apply(cli, op.id, value, err, errlen, &sizes_err)) {
      if (!sizes_err) snprintf(err, errlen, "bad value '%s' for %s (see --help)", value, name);
      return KG_EXIT_USAGE;
    }
  }
  if (cli->cmd == KG_CMD_HELP) return 0;
  /* merge takes any number of files from two up; the others exactly nargs */
  if (cli->nargs < (k_cmds[c].cmd == KG_CMD_MERGE ? 2 : k_cmds[c].nargs)) {
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
  kg_compare_opts co = {cli->args[0], cli->args[1], cli->tolerance_pct, {0}, cli->plots, cli->allow_missing};
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
  case KG_CMD_HELP: kg_cli_usage(stdout); return KG_EXIT_OK;
  case KG_CMD_VERSION: printf("kgate %s (%s)\n", KG_VERSION, KG_GIT); return KG_EXIT_OK;
  case KG_CMD_LIST: return kg_gate_list(&cli->gate.mods);
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
  default: return KG_EXIT_USAGE;
  }
}
