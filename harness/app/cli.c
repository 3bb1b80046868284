#include "cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "sizes.h"
#include "suggest.h"

/* Every command of commands.def, in its order. */
static const struct cmd_row {
  const char *word, *sub; /* sub: the word that must follow ("update"), NULL for none */
  const kg_cmd *entry;
  const char *usage, *about; /* about NULL: hidden from the help (the worker) */
  int gpu;
} k_cmds[] = {
#define KG_COMMAND(id, word, sub, entry, usage, about, gpu) {word, sub, &entry, usage, about, gpu},
#include "commands.def"
#undef KG_COMMAND
};
enum { NCMDS = KG_NCOMMANDS };

/* Other words for a command: kgate --list, kgate --help, kgate -h. */
static const struct {
  const char *alias;
  kg_command cmd;
} k_aliases[] = {{"--list", KG_CMD_LIST}, {"--help", KG_CMD_HELP}, {"-h", KG_CMD_HELP}};

/* The option every command takes: its help. */
static const kg_opt k_help = {"--help", "-h", NULL, "this text (kgate help COMMAND: one command's options)", .kind =
                              KG_OPT_FLAG};

static const char k_exit_codes[] =
    "exit codes: 0 pass, 1 correctness failure (wrong result, crash, hang, CUDA error; compare: a failed\n"
    "            or errored case in NEW, or a cell of OLD missing from NEW; lint: a finding),\n"
    "            2 usage or input error (no command too), 3 environment (no GPU, no gnuplot; lint: no\n"
    "            disassembler for machine code),\n"
    "            4 performance regression only, 130/143 stopped by SIGINT/SIGTERM (results so far written)\n";

/* One command's help ends with the codes it exits with: these, and its row
 * of k_exit_notes (the whole help keeps every command's note: k_exit_codes). */
static const char k_exit_common[] =
    "exit codes: 0 pass, 1 correctness failure (wrong result, crash, hang, CUDA error),\n"
    "            2 usage or input error, 3 environment (no GPU, no gnuplot),\n"
    "            4 performance regression only, 130/143 stopped by SIGINT/SIGTERM (results so far written)\n";
static const struct {
  kg_command cmd;
  const char *text; /* NULL: k_exit_common and no more */
  int own;          /* 1: text replaces k_exit_common (the command has codes of its own) */
} k_exit_notes[] = {
    {KG_CMD_COMPARE,
     "            compare: 1 also for a failed or errored case in NEW, or a cell of OLD missing from NEW\n", 0},
    {KG_CMD_LINT, "exit codes: 0 no finding, 1 a finding, 2 usage or input error, 3 no disassembler for machine code\n",
     1},
    {KG_CMD_BISECT,
     "exit codes: 0 the culprit found (or the cause outside the module), 1 undecided, 2 bad input,\n"
     "            3 environment, 4 the step not reproduced (docs/bisect.md)\n",
     1},
    {KG_CMD_HISTORY_CHECK, "            history check: 4 a regression finding open\n", 0},
    {KG_CMD_REFERENCE_VERIFY, "            reference verify: 2 also when the module is not a pinned reference\n", 0},
};

static void command_exit_codes(FILE *f, int c) {
  for (size_t k = 0; k < sizeof k_exit_notes / sizeof k_exit_notes[0]; k++)
    if ((int)k_exit_notes[k].cmd == c) {
      if (!k_exit_notes[k].own) fputs(k_exit_common, f);
      fputs(k_exit_notes[k].text, f);
      return;
    }
  fputs(k_exit_common, f);
}

/* An option's help in one command's own help, where the row that several
 * commands share carries notes for the others (the whole help keeps the
 * shared text, each option once with the commands that take it). */
static const struct {
  kg_command cmd;
  const char *name, *help;
} k_leaf_help[] = {
    {KG_CMD_COMPARE, "--plots", "draw the comparison chart into DIR"},
    {KG_CMD_RUN, "--plots", "draw the run's charts into DIR"},
    {KG_CMD_PLOT, "--output", "where charts go (default .)"},
    {KG_CMD_HISTORY_PLOT, "--output", "where charts go (default .)"},
    {KG_CMD_MERGE, "--output", "the merged file"},
    {KG_CMD_PLOT, "--baseline", "compare with a baseline or results file (default <baseline-dir>/<gpu-slug>.json)"},
    {KG_CMD_HISTORY_PLOT, "--baseline",
     "the band: a baseline or results file (default <baseline-dir>/<gpu-slug>.json)"},
    {KG_CMD_CHECK, "--devices", "one worker per device at once, e.g. 0,2 (default: -d's device)"},
    {KG_CMD_RUN, "--devices", "one worker per device at once, e.g. 0,2, all of one GPU model (default: -d's device)"},
    {KG_CMD_CHECK, "--timeout", "watchdog per case in seconds, and for a worker's start (default 60)"},
    {KG_CMD_RUN, "--timeout", "watchdog per case in seconds, and for a worker's start (default 60)"},
    {KG_CMD_SELFTEST, "--timeout", "watchdog per case in seconds, and for a worker's start (default 20)"},
    {KG_CMD_CHECK, "--seed", "input seed (default 1)"},
    {KG_CMD_RUN, "--seed", "input seed (default 1)"},
    {KG_CMD_HISTORY_CALIBRATE, "--seed", "the replays' seed (default 1)"},
};

/* Command c's option number k: its rows first, then its output formats'
 * (export.h; their target is the settings' reports[k]). 0 past the end. */
static int cmd_option(int c, size_t k, kg_opt *op) {
  const kg_cmd *e = k_cmds[c].entry;
  if (k < e->nopts) return *op = e->opts[k], 1;
  for (size_t f = 0, j = e->nopts; e->formats && f < KG_NFORMATS; f++) {
    if (e->formats == KG_FORMATS_COMPARE && !kg_formats[f].compare) continue;
    if (j++ < k) continue;
    static char help[KG_NFORMATS][320]; /* the format's about, and where "-" writes */
    if (!help[f][0]) snprintf(help[f], sizeof help[f], "%s; - for stdout", kg_formats[f].about);
    *op =
        (kg_opt){kg_formats[f].option, NULL, "FILE", help[f], KG_OPT_STR, .off = e->reports + f * sizeof(const char *)};
    return 1;
  }
  return 0;
}

/* Whether a and b are one option in the help: the same name and help. */
static int same_option(const kg_opt *a, const kg_opt *b) {
  return !strcmp(a->name, b->name) && !strcmp(a->help, b->help);
}

/* Whether command c has an option named by arg's first len characters
 * (its name or alias); like, when not NULL: the same name and help. */
static int cmd_has(int c, const char *arg, size_t len, const kg_opt *like, kg_opt *found) {
  kg_opt op;
  for (size_t k = 0; cmd_option(c, k, &op); k++) {
    int named = (strlen(op.name) == len && !strncmp(arg, op.name, len)) ||
                (op.alias && strlen(op.alias) == len && !strncmp(arg, op.alias, len));
    if (named && (!like || same_option(&op, like))) return found ? (*found = op, 1) : 1;
  }
  return 0;
}

/* The command's words, "history add". */
static void cmd_words(int c, char *out, size_t len) {
  snprintf(out, len, "%s%s%s", k_cmds[c].word, k_cmds[c].sub ? " " : "", k_cmds[c].sub ? k_cmds[c].sub : "");
}

/* The commands in the help with an option named by arg (like: the same
 * help too), by words: "check, run". */
static void option_commands(const char *arg, size_t len, const kg_opt *like, char *out, size_t outlen) {
  size_t used = 0;
  out[0] = '\0';
  for (int c = 0; c < NCMDS && used < outlen; c++) {
    if (!k_cmds[c].about || !cmd_has(c, arg, len, like, NULL)) continue;
    char words[64];
    cmd_words(c, words, sizeof words);
    used += (size_t)snprintf(out + used, outlen - used, "%s%s", used ? ", " : "", words);
  }
}

/* An option's left column: "-d, --device N". Its width. */
static int option_left(const kg_opt *op, char *left, size_t len) {
  return snprintf(left, len, "%s%s%s%s%s", op->alias ? op->alias : "", op->alias ? ", " : "", op->name,
                  op->meta ? " " : "", op->meta ? op->meta : "");
}

/* One option's help line: its left column padded to width (the longest of
 * the list it is in), then its help. */
static void print_option(FILE *f, const kg_opt *op, const char *commands, int width) {
  char left[128];
  option_left(op, left, sizeof left);
  fprintf(f, "  %-*s %s%s%s%s\n", width, left, op->help, commands ? " [" : "", commands ? commands : "",
          commands ? "]" : "");
}

/* Whether an option the same as op (name and help) comes before command c's
 * option k in the whole usage. */
static int shown_before(int c, size_t k, const kg_opt *op) {
  kg_opt o;
  for (int d = 0; d <= c; d++)
    for (size_t j = 0; (d < c || j < k) && cmd_option(d, j, &o); j++)
      if (k_cmds[d].about && same_option(&o, op)) return 1;
  return 0;
}

/* The widest left column of the options command c shows (c < 0: every
 * command's), --help's included. */
static int options_width(int only) {
  char left[128];
  int w = option_left(&k_help, left, sizeof left);
  kg_opt op;
  for (int c = 0; c < NCMDS; c++)
    for (size_t k = 0; (only < 0 ? k_cmds[c].about != NULL : c == only) && cmd_option(c, k, &op); k++) {
      int n = option_left(&op, left, sizeof left);
      if (n > w) w = n;
    }
  return w;
}

/* Every option once, each with the commands that take it. */
static void print_all_options(FILE *f) {
  char names[256];
  int width = options_width(-1);
  print_option(f, &k_help, NULL, width);
  kg_opt op;
  for (int c = 0; c < NCMDS; c++)
    for (size_t k = 0; k_cmds[c].about && cmd_option(c, k, &op); k++) {
      if (shown_before(c, k, &op)) continue;
      option_commands(op.name, strlen(op.name), &op, names, sizeof names);
      print_option(f, &op, names, width);
    }
}

void kg_cli_usage(FILE *f) {
  fputs("usage: kgate <command> [options]   (kgate help COMMAND, or kgate COMMAND --help: its options)\n\n"
        "commands:\n", f);
  int width = 0; /* the longest usage */
  for (int c = 0; c < NCMDS; c++)
    if (k_cmds[c].about && (int)strlen(k_cmds[c].usage) > width) width = (int)strlen(k_cmds[c].usage);
  for (int c = 0; c < NCMDS; c++)
    if (k_cmds[c].about) fprintf(f, "  %-*s %s\n", width, k_cmds[c].usage, k_cmds[c].about);
  fputs("\noptions [the commands that take each]:\n", f);
  print_all_options(f);
  fputs("  charts need gnuplot (scripts: $KGATE_PLOTS, <prefix>/share/kgate/plots, or the source tree's plots/)\n"
        "  short flags bundle (-vq); -- ends the options\n\n", f);
  fputs(k_exit_codes, f);
}

/* Whether command c is one help's topic names: its word, and its sub-word
 * unless the topic has none. */
static int is_topic(int c, const kg_help_opts *h) {
  return k_cmds[c].about && !strcmp(h->word, k_cmds[c].word) &&
         (!h->sub || !k_cmds[c].sub || !strcmp(h->sub, k_cmds[c].sub));
}

/* The usage of the topic's commands: each one's line and its options only;
 * help's and --version's topic is the whole usage. */
static void command_usage(FILE *f, const kg_help_opts *h) {
  for (int c = 0; c < NCMDS; c++)
    if (is_topic(c, h) && (c == KG_CMD_HELP || c == KG_CMD_VERSION)) {
      kg_cli_usage(f);
      return;
    }
  int topics = 0, last = 0;
  for (int c = 0; c < NCMDS; c++) topics += is_topic(c, h);
  for (int c = 0; c < NCMDS; c++) {
    if (!is_topic(c, h)) continue;
    fprintf(f, "usage: kgate %s [options]\n  %s\n\noptions:\n", k_cmds[c].usage, k_cmds[c].about);
    int width = options_width(c);
    print_option(f, &k_help, NULL, width);
    kg_opt op;
    for (size_t k = 0; cmd_option(c, k, &op); k++) {
      for (size_t j = 0; j < sizeof k_leaf_help / sizeof k_leaf_help[0]; j++)
        if ((int)k_leaf_help[j].cmd == c && !strcmp(k_leaf_help[j].name, op.name)) op.help = k_leaf_help[j].help;
      print_option(f, &op, NULL, width);
    }
    fputc('\n', f);
    last = c;
  }
  if (topics == 1) command_exit_codes(f, last);
  else fputs(k_exit_codes, f); /* kgate help history: its forms, every note */
}

static int run_help(void *settings, const kg_cmd_call *call) {
  (void)call;
  const kg_help_opts *h = settings;
  if (h->word) command_usage(stdout, h);
  else kg_cli_usage(stdout);
  return KG_EXIT_OK;
}

const kg_cmd cmd_help = {.size = sizeof(kg_help_opts), .run = run_help};

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

/* The member of settings at offset off (a row's target or count). */
static void *field(void *settings, size_t off) { return (char *)settings + off; }

/* A command's settings: zeroed, every row's default, then its init, so a
 * command's own default for a shared row wins. NULL out of memory. */
static void *new_settings(const kg_cmd *e) {
  void *s = calloc(1, e->size ? e->size : 1);
  if (!s) return NULL;
  for (size_t o = 0; o < e->nopts; o++) {
    const kg_opt *op = &e->opts[o];
    void *to = field(s, op->off);
    if (op->kind == KG_OPT_INT) *(int *)to = (int)op->idef;
    if (op->kind == KG_OPT_U64) *(uint64_t *)to = op->idef;
    if (op->kind == KG_OPT_POS) *(double *)to = op->ddef;
    if (op->kind == KG_OPT_PCT) *(double *)to = op->ddef / 100; /* as --max-noise 0.5 gives: the same double */
    if (op->kind == KG_OPT_STR) *(const char **)to = op->str;
  }
  if (e->init) e->init(s);
  return s;
}

/* OPT_CHOICE: value must be one of the row's value-name words ("allow|fail");
 * the target is 1 for the row's word, else 0. */
static int set_choice(void *s, const kg_opt *op, const char *value, char *err, size_t errlen) {
  char expected[128], words[8][32];
  size_t used = 0;
  int found = 0;
  kg_suggest near;
  kg_suggest_init(&near, value);
  for (int k = 0, n = 0; op->meta[k] && n < 8 && used < sizeof expected; n++) {
    size_t len = strcspn(op->meta + k, "|");
    snprintf(words[n], sizeof words[n], "%.*s", (int)len, op->meta + k);
    found |= !strcmp(value, words[n]);
    kg_suggest_add(&near, words[n]);
    used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%s", used ? " or " : "", words[n]);
    k += (int)len + (op->meta[k + (int)len] == '|');
  }
  if (!found) {
    const char *best = kg_suggest_best(&near);
    snprintf(err, errlen, "bad value '%s' for %s%s%s%s (expected %s)", value, op->name, best ? "; did you mean '" : "",
             best ? best : "", best ? "'?" : "", expected);
    return KG_OPT_SAID;
  }
  *(int *)field(s, op->off) = !strcmp(value, op->str);
  return 0;
}

/* OPT_SIZES (--sizes, --perf-sizes): the last one given wins. The lists
 * are const for their readers; the command's free releases them. */
static int set_sizes(void *s, const kg_opt *op, const char *value, char *err, size_t errlen) {
  const size_t **list = field(s, op->off);
  size_t *count = field(s, op->count), *parsed = NULL;
  free((size_t *)*list);
  *list = NULL, *count = 0;
  int bad = kg_sizes_parse(value, &parsed, count, err, errlen) != 0;
  *list = parsed;
  return bad ? KG_OPT_SAID : 0;
}

/* OPT_MODULES (--kernels, --base-kernels): repeatable; the same path twice
 * would define every variant twice. */
static int add_module(void *s, const kg_opt *op, const char *value, char *err, size_t errlen) {
  const char **list = field(s, op->off);
  int *n = field(s, op->count);
  for (int k = 0; k < *n; k++)
    if (!strcmp(list[k], value)) {
      snprintf(err, errlen, "%s %s given twice", op->name, value);
      return KG_OPT_SAID;
    }
  if (*n == (int)op->hi) {
    snprintf(err, errlen, "more than %d %s modules", (int)op->hi, op->name);
    return KG_OPT_SAID;
  }
  list[(*n)++] = value;
  return 0;
}

/* Applies one option's value as its row says: 0, KG_OPT_BAD or KG_OPT_SAID. */
static int apply(void *s, const kg_opt *op, const char *value, char *err, size_t errlen) {
  unsigned long long u;
  double d;
  switch (op->kind) {
  case KG_OPT_FLAG: *(int *)field(s, op->off) = 1; return 0;
  case KG_OPT_INT:
  case KG_OPT_U64:
    if (parse_u64(value, op->hi, &u) || u < op->lo) return KG_OPT_BAD;
    if (op->kind == KG_OPT_INT) *(int *)field(s, op->off) = (int)u;
    else *(uint64_t *)field(s, op->off) = u;
    return 0;
  case KG_OPT_POS:
  case KG_OPT_PCT:
    if (parse_pos(value, op->max, &d)) return KG_OPT_BAD;
    *(double *)field(s, op->off) = op->kind == KG_OPT_PCT ? d / 100 : d;
    return 0;
  case KG_OPT_STR: *(const char **)field(s, op->off) = value; return 0;
  case KG_OPT_CHOICE: return set_choice(s, op, value, err, errlen);
  case KG_OPT_SIZES: return set_sizes(s, op, value, err, errlen);
  case KG_OPT_MODULES: return add_module(s, op, value, err, errlen);
  case KG_OPT_CALLBACK: return op->fn(s, value, err, errlen);
  }
  return KG_OPT_BAD;
}

/* Whether a row takes a value (every kind but a flag's). */
static int takes_value(const kg_opt *op) { return op->kind != KG_OPT_FLAG; }

/* The option named by arg's first len characters: --help, else command c's
 * row, else the first row of another command that has it (for "is an
 * option of", and whether it takes a value); *own: c's (or --help). */
static int find_option(const char *arg, size_t len, int c, kg_opt *op, int *own) {
  *own = 1;
  if ((len == 6 && !strncmp(arg, "--help", 6)) || (len == 2 && !strncmp(arg, "-h", 2))) return *op = k_help, 0;
  if (cmd_has(c, arg, len, NULL, op)) return 0;
  /* A unique prefix of one of c's long options is that option (git's
   * parse-options: --only for compare's --only-changed); two or more: none. */
  if (len > 2 && !strncmp(arg, "--", 2)) {
    kg_opt o, hit;
    int hits = 0;
    for (size_t k = 0; cmd_option(c, k, &o); k++)
      if (strlen(o.name) > len && !strncmp(o.name, arg, len)) hit = o, hits++;
    if (strlen(k_help.name) > len && !strncmp(k_help.name, arg, len)) hit = k_help, hits++;
    if (hits == 1) return *op = hit, 0;
  }
  *own = 0;
  for (int d = 0; d < NCMDS; d++)
    if (cmd_has(d, arg, len, NULL, op)) return 0;
  return -1;
}

/* The value of an option: after '=', or the next argument (*i moves past
 * it). 0, or -1 with the message in err. */
static int option_value(const kg_opt *op, const char *eq, int argc, char **argv, int *i, const char *name,
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

/* The option of command c (or --help) nearest to word when it looks like a
 * typo of one, else NULL. */
static const char *own_option_like(int c, const char *word) {
  kg_suggest s;
  kg_suggest_init(&s, word);
  kg_suggest_add(&s, k_help.name);
  kg_opt op;
  for (size_t k = 0; cmd_option(c, k, &op); k++) kg_suggest_add(&s, op.name);
  return kg_suggest_best(&s);
}

/* "unrecognized argument 'X'", with the nearest command or option when it
 * looks like a typo of one (commands: candidates are the command words;
 * options: command c's first, then every command's). */
static int unrecognized(const char *arg, size_t len, int commands, int c, char *err, size_t errlen) {
  char word[64];
  snprintf(word, sizeof word, "%.*s", (int)(len < sizeof word ? len : sizeof word - 1), arg);
  kg_suggest s;
  kg_suggest_init(&s, word);
  kg_opt op;
  for (int d = 0; commands && d < NCMDS; d++) kg_suggest_add(&s, k_cmds[d].about ? k_cmds[d].word : NULL);
  const char *best = commands ? kg_suggest_best(&s) : own_option_like(c, word);
  for (int d = 0; !commands && !best && d < NCMDS; d++)
    for (size_t k = 0; k_cmds[d].about && cmd_option(d, k, &op); k++) kg_suggest_add(&s, op.name);
  if (!best) best = kg_suggest_best(&s);
  if (best) snprintf(err, errlen, "unrecognized argument '%s'; did you mean '%s'? (try --help)", arg, best);
  else snprintf(err, errlen, "unrecognized argument '%s' (try --help)", arg);
  return KG_EXIT_USAGE;
}

/* Where the parse is: the command (c, and its words as typed), its settings. */
typedef struct parse {
  kg_cli *cli;
  int c;
  char self[64]; /* "history add", "--list" */
  int help;      /* --help was given */
} parse;

/* One option and its value (from '=' or the next argument). 0, or
 * KG_EXIT_USAGE with the message in err. */
static int take_option(parse *p, const kg_opt *op, int own, const char *name, const char *eq, int argc, char **argv,
                       int *i, char *err, size_t errlen) {
  if (!own) {
    char names[256];
    option_commands(name, strlen(name), NULL, names, sizeof names);
    if (!names[0] || p->c == KG_CMD_WORKER) return unrecognized(argv[*i], strlen(argv[*i]), 0, p->c, err, errlen);
    /* list --kernel: list's own --kernels before lint's --kernel (a short name is never a typo) */
    if (own_option_like(p->c, name)) return unrecognized(argv[*i], strlen(name), 0, p->c, err, errlen);
    snprintf(err, errlen, "'%s' is an option of %s, not of %s (try kgate help %s)", name, names, p->self, p->self);
    return KG_EXIT_USAGE;
  }
  if (op->name == k_help.name) return p->help = 1, 0;
  const char *value = NULL;
  if (option_value(op, eq, argc, argv, i, name, &value, err, errlen)) return KG_EXIT_USAGE;
  int rc = apply(p->cli->settings, op, value, err, errlen);
  if (rc == KG_OPT_BAD) snprintf(err, errlen, "bad value '%s' for %s (see --help)", value, name);
  return rc ? KG_EXIT_USAGE : 0;
}

/* A prefix of two or more of the command's long options (--m: --missing,
 * --max-...): the error names them. 1 when so. */
static int ambiguous(const char *arg, size_t len, const parse *p, char *err, size_t errlen) {
  if (len < 3 || strncmp(arg, "--", 2)) return 0;
  size_t used = 0;
  int hits = 0;
  kg_opt o;
  for (size_t k = 0; cmd_option(p->c, k, &o) && used < errlen; k++)
    if (!strncmp(o.name, arg, len))
      used += (size_t)snprintf(err + used, errlen - used, "%s%s", hits++ ? ", " : "", o.name);
  if (hits < 2) return 0;
  char names[256];
  snprintf(names, sizeof names, "%s", err);
  snprintf(err, errlen, "ambiguous option '%.*s': %s (try kgate help %s)", (int)len, arg, names, p->self);
  return 1;
}

/* Bundled short flags, -vq: only the last may take a value. */
static int take_bundle(parse *p, int argc, char **argv, int *i, char *err, size_t errlen) {
  const char *arg = argv[*i];
  for (const char *q = arg + 1; *q; q++) {
    char name[3] = {'-', *q, '\0'};
    kg_opt op;
    int own, rc;
    if (find_option(name, 2, p->c, &op, &own) || (takes_value(&op) && q[1]))
      return unrecognized(arg, strlen(arg), 0, p->c, err, errlen);
    if ((rc = take_option(p, &op, own, name, NULL, argc, argv, i, err, errlen))) return rc;
  }
  return 0;
}

/* The arguments after the command's words: options, bundled short flags and
 * positional arguments. 0, or KG_EXIT_USAGE with the message in err. */
static int parse_args(parse *p, int argc, char **argv, char *err, size_t errlen) {
  int rest = 0, rc; /* rest: after "--", all positional */
  kg_cli *cli = p->cli;
  for (int i = k_cmds[p->c].sub ? 3 : 2; i < argc; i++) {
    char *arg = argv[i];
    if (!rest && !strcmp(arg, "--")) {
      rest = 1;
      continue;
    }
    if (rest || arg[0] != '-' || !arg[1]) { /* a positional argument ("-" alone too) */
      if (cli->nargs >= k_cmds[p->c].entry->most) return unrecognized(arg, strlen(arg), 0, p->c, err, errlen);
      cli->args[cli->nargs++] = arg;
      continue;
    }
    if (arg[1] != '-' && arg[2]) {
      if ((rc = take_bundle(p, argc, argv, &i, err, errlen))) return rc;
      continue;
    }
    /* --name=value or --name value */
    char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    kg_opt op;
    int own;
    if (find_option(arg, len, p->c, &op, &own))
      return ambiguous(arg, len, p, err, errlen) ? KG_EXIT_USAGE : unrecognized(arg, len, 0, p->c, err, errlen);
    char name[32]; /* as typed, or the whole name it is a prefix of */
    int prefix = own && !strncmp(arg, "--", 2) && strlen(op.name) > len && !strncmp(op.name, arg, len);
    if (prefix) snprintf(name, sizeof name, "%s", op.name);
    else snprintf(name, sizeof name, "%.*s", (int)len, arg);
    if ((rc = take_option(p, &op, own, name, eq, argc, argv, &i, err, errlen))) return rc;
  }
  return 0;
}

/* kgate history chek: "did you mean 'check'?" among the sub-words of the
 * commands whose word is argv[1] (named: the first); 0 when none is close. */
static int unknown_sub(int argc, char **argv, int named, char *err, size_t errlen) {
  if (argc < 3 || argv[2][0] == '-') return 0;
  kg_suggest s;
  kg_suggest_init(&s, argv[2]);
  const char *prefix_of = NULL; /* history ad: the one sub-word it begins (too short for an edit distance) */
  int prefixes = 0;
  for (int k = named; k < NCMDS; k++)
    if (k_cmds[k].about && !strcmp(k_cmds[k].word, argv[1])) {
      kg_suggest_add(&s, k_cmds[k].sub);
      if (k_cmds[k].sub && !strncmp(k_cmds[k].sub, argv[2], strlen(argv[2]))) prefix_of = k_cmds[k].sub, prefixes++;
    }
  const char *best = prefixes == 1 ? prefix_of : kg_suggest_best(&s);
  if (best)
    snprintf(err, errlen, "unrecognized argument '%s'; did you mean '%s'? (try kgate %s --help)", argv[2], best,
             argv[1]);
  return best != NULL;
}

/* The command that argv[1] (and argv[2], a sub-command) names, in *cmd;
 * kgate history --help: help, and *group the first history command.
 * 0, or KG_EXIT_USAGE with the message in err. */
static int find_command(int argc, char **argv, int *cmd, int *group, char *err, size_t errlen) {
  for (size_t a = 0; a < sizeof k_aliases / sizeof k_aliases[0]; a++)
    if (!strcmp(argv[1], k_aliases[a].alias)) return *cmd = (int)k_aliases[a].cmd, 0;
  int c = 0, named = -1;
  for (; c < NCMDS; c++) {
    if (strcmp(argv[1], k_cmds[c].word)) continue;
    if (named < 0) named = c;
    if (!k_cmds[c].sub || (argc > 2 && !strcmp(argv[2], k_cmds[c].sub))) break;
  }
  if (c == NCMDS && named < 0) return unrecognized(argv[1], strlen(argv[1]), 1, 0, err, errlen);
  if (c == NCMDS && argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")))
    return *cmd = KG_CMD_HELP, *group = named, 0;
  if (c == NCMDS && unknown_sub(argc, argv, named, err, errlen)) return KG_EXIT_USAGE;
  if (c == NCMDS) { /* the command exists, its sub-command does not: name every form */
    size_t used = (size_t)snprintf(err, errlen, "expected");
    for (int k = named; k < NCMDS && used < errlen; k++)
      if (!strcmp(k_cmds[k].word, argv[1]))
        used += (size_t)snprintf(err + used, errlen - used, "%s 'kgate %s'", k == named ? "" : " or", k_cmds[k].usage);
    if (used < errlen) snprintf(err + used, errlen - used, " (try --help)");
    return KG_EXIT_USAGE;
  }
  *cmd = c;
  return 0;
}

/* Makes cli command c with fresh settings (the old ones freed). 0, or -1 out of memory. */
static int become(kg_cli *cli, int c) {
  const kg_cmd *e = k_cmds[cli->cmd].entry;
  if (cli->settings && e->free) e->free(cli->settings);
  free(cli->settings);
  cli->cmd = (kg_command)c;
  cli->settings = new_settings(k_cmds[c].entry);
  return cli->settings ? 0 : -1;
}

/* kgate help [COMMAND [SUB]]: whose help to print (none: all). */
static int help_topic(int argc, char **argv, kg_help_opts *h, char *err, size_t errlen) {
  if (argc < 3) return 0;
  if (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) /* help's own help (git help --help): all of it */
    return *h = (kg_help_opts){"help", NULL}, 0;
  kg_help_opts topic = {argv[2], argc > 3 ? argv[3] : NULL};
  for (int c = 0; c < NCMDS; c++)
    if (is_topic(c, &topic)) return *h = topic, 0;
  return unrecognized(argv[2], strlen(argv[2]), 1, 0, err, errlen);
}

/* What the command cannot do without: its positional arguments, an option it names. */
static int check_required(const kg_cli *cli, char *err, size_t errlen) {
  const kg_cmd *e = k_cmds[cli->cmd].entry;
  if (cli->nargs < e->least) {
    snprintf(err, errlen, "%s needs %s (try --help)", e->label, e->needs);
    return KG_EXIT_USAGE;
  }
  if (e->required_text && !*(const char *const *)((const char *)cli->settings + e->required)) {
    snprintf(err, errlen, "%s needs %s (try --help)", e->label, e->required_text);
    return KG_EXIT_USAGE;
  }
  return 0;
}

int kg_cli_parse(int argc, char **argv, kg_cli *cli, char *err, size_t errlen) {
  *cli = (kg_cli){.cmd = KG_CMD_HELP};
  if (argc < 2) { /* `kgate $CMD` with an empty $CMD must not pass as a help request */
    snprintf(err, errlen, "no command given (usage: kgate <command> [options]; try --help)");
    return KG_EXIT_USAGE;
  }
  parse p = {cli, 0, "", 0};
  int rc, group = -1;
  if ((rc = find_command(argc, argv, &p.c, &group, err, errlen))) return rc;
  if (become(cli, p.c)) return snprintf(err, errlen, "out of memory"), KG_EXIT_USAGE;
  if (group >= 0) return *(kg_help_opts *)cli->settings = (kg_help_opts){k_cmds[group].word, NULL}, 0;
  if (!strcmp(argv[1], "help")) return help_topic(argc, argv, cli->settings, err, errlen);
  if (k_cmds[p.c].sub) cmd_words(p.c, p.self, sizeof p.self);
  else snprintf(p.self, sizeof p.self, "%s", argv[1]);
  if ((rc = parse_args(&p, argc, argv, err, errlen))) return rc;
  if (p.help || p.c == KG_CMD_HELP) { /* kgate run --help: run's usage; kgate --help: all */
    int c = p.c;
    if (become(cli, KG_CMD_HELP)) return snprintf(err, errlen, "out of memory"), KG_EXIT_USAGE;
    if (c != KG_CMD_HELP) *(kg_help_opts *)cli->settings = (kg_help_opts){k_cmds[c].word, k_cmds[c].sub};
    return 0;
  }
  return check_required(cli, err, errlen);
}

void kg_cli_free(kg_cli *cli) {
  const kg_cmd *e = k_cmds[cli->cmd].entry;
  if (cli->settings && e->free) e->free(cli->settings);
  free(cli->settings);
  cli->settings = NULL;
}

int kg_cli_needs_gpu(const kg_cli *cli) {
  const kg_cmd *e = k_cmds[cli->cmd].entry;
  return k_cmds[cli->cmd].gpu && !(e->gpu_free && e->gpu_free(cli->settings));
}

int kg_cli_run(const kg_cli *cli) {
  kg_cmd_call call = {cli->args, cli->nargs, cli->worker_main};
  return k_cmds[cli->cmd].entry->run(cli->settings, &call);
}
