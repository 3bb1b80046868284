/* testutil: see testutil.h. */
#include "testutil.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
