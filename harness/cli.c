#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plan.h"
#include "registry.h"
#include "report.h"
#include "sizes.h"
#include "supervisor.h"

#ifndef KG_VERSION
#define KG_VERSION "0.0.0"
#endif
#ifndef KG_GIT
#define KG_GIT "unknown"
#endif

void kg_cli_usage(FILE *f) {
  fputs("usage: kgate <command> [options]\n"
        "\n"
        "commands:\n"
        "  list                 the variants: seed, flags, dtypes, idea (also --list)\n"
        "  check                the correctness matrix: variant x dtype x size x pattern\n"
        "\n"
        "check options:\n"
        "  --variant LIST       comma-separated variant names (default: all)\n"
        "  --dtype LIST         i32,i64,f32,f64,f16,bf16 (default: all)\n"
        "  --pattern LIST       exact,wrap,uniform,cancel,nan,inf,inf_minus_inf (default: all that apply)\n"
        "  --sizes LIST         e.g. 0,1,33,1000003,2^22,2^22-1,32M (default: the edge list)\n"
        "  --seed N             input seed (default 1)\n"
        "  --repeat K           runs per float case for the determinism check (default 3)\n"
        "  --timeout S          watchdog per case in seconds (default 60)\n"
        "  -d, --device N       CUDA device (default 0)\n"
        "  -v, --verbose        print every case, not only failures\n"
        "  -q, --quiet          no progress line\n"
        "\n"
        "  -h, --help           this text\n"
        "  --version            version and commit\n"
        "\n"
        "exit codes: 0 pass, 1 correctness failure (wrong result, crash, hang, CUDA error),\n"
        "            2 usage or input error, 3 environment (no GPU), 4 performance regression\n",
        f);
}

static int parse_u64(const char *s, unsigned long long max, unsigned long long *v) {
  if (!s || !*s || *s == '-') return -1;
  char *end;
  errno = 0;
  *v = strtoull(s, &end, 10);
  return errno || *end || *v > max ? -1 : 0;
}

int kg_cli_parse(int argc, char **argv, kg_cli *cli, char *err, size_t errlen) {
  *cli = (kg_cli){.cmd = KG_CMD_HELP, .seed = 1, .repeats = 3, .timeout_s = 60};
  int i = 1;
  if (argc < 2) return 0;
  const char *cmd = argv[1];
  if (!strcmp(cmd, "list") || !strcmp(cmd, "--list")) cli->cmd = KG_CMD_LIST;
  else if (!strcmp(cmd, "check")) cli->cmd = KG_CMD_CHECK;
  else if (!strcmp(cmd, "worker")) cli->cmd = KG_CMD_WORKER;
  else if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) cli->cmd = KG_CMD_HELP;
  else if (!strcmp(cmd, "--version")) cli->cmd = KG_CMD_VERSION;
  else {
    snprintf(err, errlen, "unrecognized argument '%s' (try --help)", cmd);
    return KG_EXIT_USAGE;
  }
  for (i = 2; i < argc; i++) {
    char *arg = argv[i];
    const char *value = NULL;
    char name[32];
    /* --name=value or --name value */
    char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
    int takes = !strcmp(name, "--variant") || !strcmp(name, "--dtype") || !strcmp(name, "--pattern") ||
                !strcmp(name, "--sizes") || !strcmp(name, "--seed") || !strcmp(name, "--repeat") ||
                !strcmp(name, "--timeout") || !strcmp(name, "-d") || !strcmp(name, "--device") ||
                !strcmp(name, "--worker");
    int flag = !strcmp(name, "-v") || !strcmp(name, "--verbose") || !strcmp(name, "-q") ||
               !strcmp(name, "--quiet") || !strcmp(name, "-h") || !strcmp(name, "--help");
    int allowed = cli->cmd == KG_CMD_CHECK || (cli->cmd == KG_CMD_WORKER && (!strcmp(name, "-d") || !strcmp(name, "--device")));
    if ((!takes && !flag) || (takes && !allowed) || (flag && cli->cmd != KG_CMD_CHECK && strcmp(name, "-h") && strcmp(name, "--help"))) {
      snprintf(err, errlen, "unrecognized argument '%s' (try --help)", arg);
      return KG_EXIT_USAGE;
    }
    if (flag && eq) {
      snprintf(err, errlen, "option '%s' takes no value", name);
      return KG_EXIT_USAGE;
    }
    if (takes) {
      value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
      if (!value || !*value) {
        snprintf(err, errlen, "option '%s' needs a value", name);
        return KG_EXIT_USAGE;
      }
    }
    unsigned long long u;
    if (!strcmp(name, "-h") || !strcmp(name, "--help")) cli->cmd = KG_CMD_HELP;
    else if (!strcmp(name, "-v") || !strcmp(name, "--verbose")) cli->verbose = 1;
    else if (!strcmp(name, "-q") || !strcmp(name, "--quiet")) cli->quiet = 1;
    else if (!strcmp(name, "--variant")) cli->variants = value;
    else if (!strcmp(name, "--dtype")) cli->dtypes = value;
    else if (!strcmp(name, "--pattern")) cli->patterns = value;
    else if (!strcmp(name, "--worker")) cli->worker = value;
    else if (!strcmp(name, "--sizes")) {
      free(cli->sizes);
      if (kg_sizes_parse(value, &cli->sizes, &cli->nsizes, err, errlen)) return KG_EXIT_USAGE;
    } else if (!strcmp(name, "--seed")) {
      if (parse_u64(value, ~0ull, &u)) goto bad;
      cli->seed = u;
    } else if (!strcmp(name, "--repeat")) {
      if (parse_u64(value, 100, &u) || u < 1) goto bad;
      cli->repeats = (int)u;
    } else if (!strcmp(name, "--timeout")) {
      char *end;
      errno = 0;
      cli->timeout_s = strtod(value, &end);
      if (errno || *end || !(cli->timeout_s > 0 && cli->timeout_s <= 86400)) goto bad;
    } else if (!strcmp(name, "-d") || !strcmp(name, "--device")) {
      if (parse_u64(value, 1023, &u)) goto bad;
      cli->device = (int)u;
    }
    continue;
  bad:
    snprintf(err, errlen, "bad value '%s' for %s (see --help)", value, name);
    return KG_EXIT_USAGE;
  }
  return 0;
}

void kg_cli_free(kg_cli *cli) {
  free(cli->sizes);
  cli->sizes = NULL;
}

typedef struct progress {
  int tty;
  double t0;
} progress;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void show_progress(void *ctx, size_t done, size_t total, const kg_case *c, const kg_result *r) {
  progress *p = ctx;
  (void)r;
  if (!p->tty) return;
  char label[160];
  kg_case_label(c, label, sizeof label);
  fprintf(stderr, "\r\033[K[%zu/%zu %.0f s] %s", done, total, now_s() - p->t0, label);
  if (done == total) fputs("\r\033[K", stderr);
  fflush(stderr);
}

static int run_check(const kg_cli *cli) {
  char err[256];
  kg_plan_opts po = {cli->variants, cli->dtypes, cli->patterns, cli->sizes, cli->nsizes};
  kg_case *cases;
  size_t n;
  if (kg_plan_build(&po, &cases, &n, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  char self[PATH_MAX];
  const char *worker = cli->worker;
  if (!worker) {
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
      fprintf(stderr, "kgate: cannot find its own executable to start workers\n");
      free(cases);
      return KG_EXIT_ENV;
    }
    self[len] = '\0';
    worker = self;
  }
  char device[16];
  snprintf(device, sizeof device, "%d", cli->device);
  char *argv[] = {(char *)worker, "worker", "--device", device, NULL};
  progress prog = {.tty = !cli->quiet && isatty(STDERR_FILENO), .t0 = now_s()};
  kg_super_opts so = {argv, cli->timeout_s, 120.0, show_progress, &prog};
  kg_run_params rp = {cli->seed, cli->repeats};
  kg_result *results = calloc(n, sizeof *results);
  kg_device_info dev = {0};
  if (!results) {
    fprintf(stderr, "kgate: out of memory\n");
    free(cases);
    return KG_EXIT_ENV;
  }
  int env = kg_supervise(cases, n, &rp, &so, results, &dev, err, sizeof err);
  int code;
  kg_counts c = kg_count_results(results, n);
  /* Whatever was measured before an environment failure is still reported. */
  if (!env || c.passed + c.failed + c.errored)
    kg_report_check(stdout, cases, results, n, &dev, now_s() - prog.t0, cli->verbose);
  if (env) fprintf(stderr, "kgate: %s\n", err);
  code = env ? KG_EXIT_ENV : c.failed || c.errored ? KG_EXIT_FAIL : KG_EXIT_OK;
  free(results);
  free(cases);
  return code;
}

int kg_cli_run(const kg_cli *cli) {
  switch (cli->cmd) {
  case KG_CMD_HELP: kg_cli_usage(stdout); return KG_EXIT_OK;
  case KG_CMD_VERSION: printf("kgate %s (%s)\n", KG_VERSION, KG_GIT); return KG_EXIT_OK;
  case KG_CMD_LIST: kg_report_list(stdout); return KG_EXIT_OK;
  case KG_CMD_CHECK: return run_check(cli);
  default: return KG_EXIT_USAGE;
  }
}
