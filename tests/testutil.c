/* testutil: see testutil.h. */
#include "testutil.h"
#include "varreg.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void kgt_mkscratch(char *dir, size_t len, const char *tag) {
  snprintf(dir, len, "/tmp/kg_%s_XXXXXX", tag);
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

int kgt_rmtree(const char *dir) {
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd);
}

int kgt_count_files(const char *dir, const char *keep) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)))
    n += e->d_name[0] != '.' && (!keep || strcmp(e->d_name, keep) != 0);
  closedir(d);
  return n;
}

char *kgt_slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  char *s = malloc((size_t)len + 1);
  ck_assert_uint_eq(fread(s, 1, (size_t)len, f), (size_t)len);
  s[len] = '\0';
  fclose(f);
  return s;
}

void kgt_spit(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

void kgt_edit(const char *path, const char *from, const char *to) {
  char *text = kgt_slurp(path);
  ck_assert_ptr_nonnull(text);
  const char *at = strstr(text, from);
  ck_assert_msg(at != NULL, "no '%s' in %s", from, path);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  fclose(f);
  free(text);
}

int kgt_parse(char *const *args, kg_cli *cli, char *err, size_t errlen) {
  char *argv[KGT_MAXARGS + 2] = {"kgate"};
  int argc = 1;
  while (argc <= KGT_MAXARGS && args[argc - 1]) argv[argc] = args[argc - 1], argc++;
  err[0] = '\0';
  return kg_cli_parse(argc, argv, cli, err, errlen);
}

void kgt_assert_rejected(char *const *args, const char *message) {
  kg_cli cli;
  char err[256] = "";
  ck_assert_int_eq(kgt_parse(args, &cli, err, sizeof err), KG_EXIT_USAGE);
  ck_assert_msg(strstr(err, message) != NULL, "'%s' lacks '%s'", err, message);
  kg_cli_free(&cli);
}

int kgt_run_quiet(const kg_cli *cli) {
  fflush(stdout), fflush(stderr);
  int out = dup(STDOUT_FILENO), errfd = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);
  dup2(null, STDOUT_FILENO), dup2(null, STDERR_FILENO);
  int code = kg_cli_run(cli);
  fflush(stdout), fflush(stderr);
  dup2(out, STDOUT_FILENO), dup2(errfd, STDERR_FILENO);
  close(out), close(errfd), close(null);
  return code;
}

int kgt_run_cli(char **args) {
  int n = 0;
  while (args[n]) n++;
  ck_assert(n < 23); /* room for "kgate" and the args in kgt_parse */
  kg_cli cli;
  char err[256];
  int code = kgt_parse(args, &cli, err, sizeof err);
  if (code == 0) code = kgt_run_quiet(&cli);
  kg_cli_free(&cli);
  return code;
}

int kgt_run_capture(char **args, char *out, size_t len) {
  char path[] = "/tmp/kg_cli_out_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  kg_cli cli;
  char err[256];
  int code = kgt_parse(args, &cli, err, sizeof err);
  if (code) {
    snprintf(out, len, "%s", err);
  } else {
    fflush(stdout), fflush(stderr);
    int o = dup(STDOUT_FILENO), e = dup(STDERR_FILENO);
    dup2(fd, STDOUT_FILENO), dup2(fd, STDERR_FILENO);
    code = kg_cli_run(&cli);
    fflush(stdout), fflush(stderr);
    dup2(o, STDOUT_FILENO), dup2(e, STDERR_FILENO);
    close(o), close(e);
    char *text = kgt_slurp(path);
    size_t n = strlen(text);
    snprintf(out, len, "%s", n >= len ? text + n - (len - 1) : text);
    free(text);
  }
  close(fd);
  unlink(path);
  kg_cli_free(&cli);
  return code;
}

kg_timing kgt_timing(double med) {
  return (kg_timing){.samples = 12, .median_us = med, .q1_us = med * 0.995, .q3_us = med * 1.005, .min_us = med * 0.99};
}

void kgt_stamp(kg_run_meta *m, const char *commit) {
  snprintf(m->date, sizeof m->date, "2026-11-21T08:30:00Z");
  snprintf(m->version, sizeof m->version, "0.1.0");
  snprintf(m->commit, sizeof m->commit, "%s", commit);
}

kg_device_info kgt_h200(void) {
  return (kg_device_info){.name = "NVIDIA H200", .cc_major = 9, .sms = 132, .l2_bytes = 62914560,
                          .peak_gbps = 4814.304, .roofline_gbps = 4434.3, .driver_version = 13000,
                          .runtime_version = 13000};
}

int kgt_subreaper_child(void (*body)(void *ctx, char *msg, size_t len), void *ctx, char *msg, size_t len) {
  int fds[2];
  ck_assert_int_eq(pipe(fds), 0);
  fflush(stdout), fflush(stderr);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    char text[512] = "";
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) snprintf(text, sizeof text, "PR_SET_CHILD_SUBREAPER failed");
    else body(ctx, text, sizeof text);
    ssize_t put = write(fds[1], text, strlen(text) + 1);
    _exit(put > 0 ? 0 : 1);
  }
  close(fds[1]);
  size_t got = 0;
  ssize_t r;
  while (got + 1 < len && (r = read(fds[0], msg + got, len - 1 - got)) != 0)
    if (r > 0) got += (size_t)r;
    else if (errno != EINTR) break;
  close(fds[0]);
  msg[got] = '\0';
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!got) snprintf(msg, len, "child died before reporting");
  return status;
}

pid_t kgt_signal_when(const char *path, pid_t target, int sig) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  for (int k = 0; k < 3000 && access(path, F_OK) != 0; k++) nanosleep(&(struct timespec){0, 10000000}, NULL);
  kill(target, sig);
  _exit(0);
}

int kgt_gone(pid_t pid, double wait_s) {
  for (int k = 0; k <= (int)(wait_s * 100); k++) {
    pid_t r = waitpid(pid, NULL, WNOHANG);
    if (r == pid) return 1;
    if (r < 0 && kill(pid, 0) != 0 && errno == ESRCH) return 1;
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return 0;
}

int kgt_read_pids(const char *path, pid_t *a, pid_t *b) {
  FILE *f = fopen(path, "r");
  long x = 0, y = 0;
  int n = f ? fscanf(f, "%ld %ld", &x, &y) : 0;
  if (f) fclose(f);
  *a = (pid_t)x, *b = (pid_t)y;
  return n == 2 && x > 0 && y > 0 ? 0 : -1;
}

/* ---- a nightly's detection -------------------------------------------------- */

void kgt_nightly(kg_history **h, kg_detection **d) {
  static kg_hist_run runs[KGT_NIGHTS];
  static kg_history hist;
  static kg_series series[KGT_NSERIES];
  static double num[KGT_NSERIES][5][KGT_NIGHTS];
  static kg_find_cell reg_cells[1], imp_cells[1];
  static kg_finding find[3];
  static kg_detection det;
  memset(runs, 0, sizeof runs);
  for (int j = 0; j < KGT_NIGHTS; j++) {
    kg_hist_run *r = &runs[j];
    snprintf(r->date, sizeof r->date, "2026-11-%02dT02:00:00Z", 20 + j);
    snprintf(r->commit, sizeof r->commit, "c0ffee%d", j + 1);
    snprintf(r->version, sizeof r->version, "0.1.0");
    r->dev = kgt_h200();
    r->paired.has = 1;
    snprintf(r->paired.ref_name, sizeof r->paired.ref_name, "kgate");
    snprintf(r->paired.ref_version, sizeof r->paired.ref_version, "v0.1.0");
    r->paired.confidence = 0.99;
  }
  hist = (kg_history){KGT_NIGHTS, runs};
  for (int i = 0; i < KGT_NSERIES; i++) {
    kg_series *s = &series[i];
    memset(s, 0, sizeof *s);
    snprintf(s->variant, sizeof s->variant, "%s", kg_variants[i].name);
    s->dtype = KG_F32;
    s->n = (size_t)1 << 25;
    s->sigma = 0.001;
    s->level = 1.0;
    s->h = 5, s->k = 0.5;
    double *v[5] = {num[i][0], num[i][1], num[i][2], num[i][3], num[i][4]};
    s->ratio = v[0], s->lo = v[1], s->hi = v[2], s->up = v[3], s->down = v[4];
    for (int j = 0; j < KGT_NIGHTS; j++) {
      double r = 1 + 0.0005 * ((j + i) % 3 - 1) + (i == 0 && j >= 3 ? 0.02 : 0);
      s->ratio[j] = r, s->lo[j] = r - 0.002, s->hi[j] = r + 0.002;
      s->up[j] = i == 0 && j >= 3 ? 4.0 * (j - 2) : 0.1 * i, s->down[j] = 0;
    }
  }
  reg_cells[0] = (kg_find_cell){"", KG_F32, (size_t)1 << 25, 1.0, 1.02};
  snprintf(reg_cells[0].variant, sizeof reg_cells[0].variant, "%s", series[0].variant);
  imp_cells[0] = (kg_find_cell){"", KG_F32, (size_t)1 << 25, 1.0, 0.99};
  snprintf(imp_cells[0].variant, sizeof imp_cells[0].variant, "%s", series[1].variant);
  find[0] = (kg_finding){.kind = KG_FIND_REGRESSION, .first_bad = 3, .last_good = 2, .alarm = 4, .ncells = 1,
                         .cells = reg_cells};
  find[1] = (kg_finding){.kind = KG_FIND_ENVIRONMENT, .first_bad = 1, .last_good = 0, .alarm = 1};
  snprintf(find[1].note, sizeof find[1].note, "the control cell moved +1.2 %% <on> another card");
  find[2] = (kg_finding){.kind = KG_FIND_IMPROVEMENT, .first_bad = 4, .last_good = 3, .alarm = 5, .acknowledged = 1,
                         .ncells = 1, .cells = imp_cells};
  det = (kg_detection){.nfind = 3, .find = find, .nseries = KGT_NSERIES, .series = series,
                       .open_regressions = 1};
  *h = &hist;
  *d = &det;
}

void kgt_add_case(kg_run *run, size_t cap, const char *variant, kg_dtype dt, size_t n, kg_pattern p, int timed,
                  kg_status st) {
  ck_assert_uint_lt(run->n, cap);
  int v = kg_variant_find(variant);
  ck_assert_int_ge(v, 0);
  run->cases[run->n] = (kg_case){v, dt, n, p, 1, timed};
  run->results[run->n] = (kg_result){.status = st};
  run->n++;
}

/* The byte of line (len bytes) at display column col, or -1. */
static long byte_at_column(const char *line, size_t len, size_t col) {
  size_t c = 0;
  for (size_t i = 0; i < len; i++) {
    if (((unsigned char)line[i] & 0xC0) == 0x80) continue;
    if (c++ == col) return (long)i;
  }
  return -1;
}

int kgt_column_aligned(const char *text, const char *head, const char *heading, size_t nrows, char *why, size_t len) {
  why[0] = '\0';
  const char *h = text;
  while (h && strncmp(h, head, strlen(head))) h = strchr(h, '\n'), h = h ? h + 1 : NULL;
  if (!h) return snprintf(why, len, "no line starts with '%s'", head), 0;
  size_t hlen = strcspn(h, "\n");
  const char *at = strstr(h, heading);
  if (!at || at >= h + hlen) return snprintf(why, len, "no heading '%s'", heading), 0;
  size_t col = 0;
  for (const char *p = h; p < at; p++) col += ((unsigned char)*p & 0xC0) != 0x80;
  const char *line = h + hlen + (h[hlen] ? 1 : 0);
  for (size_t r = 0; r < nrows; r++) {
    size_t n = strcspn(line, "\n");
    long b = byte_at_column(line, n, col);
    if (b < 1 || line[b - 1] != ' ' || line[b] == ' ')
      return snprintf(why, len, "row %zu: '%.*s': column '%s' does not start at %zu", r, (int)n, line, heading, col), 0;
    line += n + (line[n] ? 1 : 0);
  }
  return 1;
}
