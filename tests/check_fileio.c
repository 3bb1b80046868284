/* fileio: what writers do to the path they are given (symbolic links, mode,
 * FIFOs, devices, descriptors, stale temp files, kill -9), the writers' lock,
 * and the loaders' refusal of files that are not regular or too large. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "baseline.h"
#include "fileio.h"
#include "history.h"
#include "merge.h"
#include "results.h"
#include "testutil.h"

static char g_dir[64], g_path[128];

static void setup(void) {
  kgt_mkscratch(g_dir, sizeof g_dir, "fileio");
  snprintf(g_path, sizeof g_path, "%s/target.json", g_dir);
}

static void teardown(void) { kgt_rmtree(g_dir); }

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Writes text to path through kg_out_*: 0, or -1 with err. */
static int write_text(const char *path, const char *text, char *err, size_t errlen) {
  kg_outfile o;
  if (kg_out_open(&o, path, err, errlen)) return -1;
  fputs(text, o.f);
  return kg_out_commit(&o, err, errlen);
}

static void write_ok(const char *path, const char *text) {
  char err[512] = "";
  ck_assert_msg(write_text(path, text, err, sizeof err) == 0, "%s", err);
}

static void assert_file(const char *path, const char *text) {
  char *got = kgt_slurp(path);
  ck_assert_ptr_nonnull(got);
  ck_assert_str_eq(got, text);
  free(got);
}

/* Names in g_dir holding ".tmp.": temp files, live or stale. */
static int count_temps(void) {
  char cmd[160];
  snprintf(cmd, sizeof cmd, "exit $(ls -A '%s' | grep -c '\\.tmp\\.')", g_dir);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A pid that no process has: a child that has exited and been reaped. */
static pid_t dead_pid(void) {
  pid_t p = fork();
  ck_assert_int_ge(p, 0);
  if (p == 0) _exit(0);
  ck_assert_int_eq(waitpid(p, NULL, 0), p);
  return p;
}

/* ---- Core: writers --------------------------------------------------------- */

/* A link (relative, across folders, two hops) stays a link; the file at its
 * end gets the new bytes; the temp file went beside that file. */
START_TEST(test_out_symlink_kept) {
  char sub[128], real[160], hop[160];
  snprintf(sub, sizeof sub, "%s/shared", g_dir);
  ck_assert_int_eq(mkdir(sub, 0755), 0);
  snprintf(real, sizeof real, "%s/real.json", sub);
  snprintf(hop, sizeof hop, "%s/hop.json", sub);
  write_ok(real, "old\n");
  ck_assert_int_eq(symlink("real.json", hop), 0);
  ck_assert_int_eq(symlink("shared/hop.json", g_path), 0);
  write_ok(g_path, "new\n");
  struct stat st;
  ck_assert_int_eq(lstat(g_path, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_int_eq(lstat(hop, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  char link[64] = "";
  ck_assert_int_gt(readlink(g_path, link, sizeof link - 1), 0);
  ck_assert_str_eq(link, "shared/hop.json");
  assert_file(real, "new\n");
  ck_assert_int_eq(kgt_count_files(sub, NULL), 2); /* real.json, hop.json: no temp */
  ck_assert_int_eq(count_temps(), 0);
}
END_TEST

/* A link to a file that does not exist yet: the file is made there. */
START_TEST(test_out_symlink_dangling) {
  char real[160];
  snprintf(real, sizeof real, "%s/later.json", g_dir);
  ck_assert_int_eq(symlink("later.json", g_path), 0);
  write_ok(g_path, "first\n");
  struct stat st;
  ck_assert_int_eq(lstat(g_path, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  assert_file(real, "first\n");
}
END_TEST

START_TEST(test_out_mode_kept) {
  write_ok(g_path, "old\n");
  ck_assert_int_eq(chmod(g_path, 0640), 0);
  int root = geteuid() == 0;
  if (root) ck_assert_int_eq(chown(g_path, 4321, 4322), 0);
  write_ok(g_path, "new\n");
  struct stat st;
  ck_assert_int_eq(stat(g_path, &st), 0);
  ck_assert_int_eq(st.st_mode & 07777, 0640);
  if (root) {
    ck_assert_int_eq(st.st_uid, 4321);
    ck_assert_int_eq(st.st_gid, 4322);
  }
  assert_file(g_path, "new\n");
}
END_TEST

/* A new file gets what fopen would give it, not mkstemp's 0600. */
START_TEST(test_out_new_file_mode) {
  mode_t old = umask(022);
  write_ok(g_path, "x");
  umask(old);
  struct stat st;
  ck_assert_int_eq(stat(g_path, &st), 0);
  ck_assert_int_eq(st.st_mode & 07777, 0644);
}
END_TEST

/* A FIFO is written into, and is still a FIFO afterwards. */
START_TEST(test_out_fifo_in_place) {
  ck_assert_int_eq(mkfifo(g_path, 0600), 0);
  int rfd = open(g_path, O_RDONLY | O_NONBLOCK); /* a reader, so the writer's open does not wait */
  ck_assert_int_ge(rfd, 0);
  write_ok(g_path, "through the fifo\n");
  char buf[64] = "";
  ck_assert_int_eq(read(rfd, buf, sizeof buf - 1), 17);
  ck_assert_str_eq(buf, "through the fifo\n");
  close(rfd);
  struct stat st;
  ck_assert_int_eq(lstat(g_path, &st), 0);
  ck_assert(S_ISFIFO(st.st_mode));
  ck_assert_int_eq(count_temps(), 0);
}
END_TEST

/* A character device node of our own (as root: mknod 1,3 and 1,7, i.e.
 * /dev/null and /dev/full, in the scratch folder so a writer that renames
 * over it harms nothing), else the system's. */
static void device_node(const char *name, unsigned minor, char *path, size_t len) {
  snprintf(path, len, "%s/%s", g_dir, name);
  if (mknod(path, S_IFCHR | 0666, makedev(1, minor)) != 0) snprintf(path, len, "/dev/%s", name);
}

START_TEST(test_out_device_in_place) {
  char null[160];
  device_node("null", 3, null, sizeof null);
  write_ok(null, "gone\n");
  struct stat st;
  ck_assert_int_eq(lstat(null, &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  ck_assert_uint_eq(st.st_rdev, makedev(1, 3));
  ck_assert_int_eq(count_temps(), 0);
}
END_TEST

/* `--json /dev/full`: a clear write error naming the path; the node stays. */
START_TEST(test_out_dev_full_error) {
  char full[160], err[512] = "", want[256];
  device_node("full", 7, full, sizeof full);
  ck_assert_int_eq(write_text(full, "{}\n", err, sizeof err), -1);
  snprintf(want, sizeof want, "cannot write %s: %s", full, strerror(ENOSPC));
  ck_assert_str_eq(err, want);
  struct stat st;
  ck_assert_int_eq(lstat(full, &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  ck_assert_uint_eq(st.st_rdev, makedev(1, 7));
  ck_assert_int_eq(count_temps(), 0);
  /* And through the JSON writer every report uses. */
  json_t *doc = json_pack("{ss}", "kind", "kgate-results");
  ck_assert_int_eq(kg_json_write(full, doc, NULL, err, sizeof err), -1);
  ck_assert_str_eq(err, want);
  json_decref(doc);
}
END_TEST

/* "/dev/fd/N" (and /dev/stdout, /dev/stderr) write through the descriptor:
 * a file the shell opened for appending is appended to, not replaced. */
START_TEST(test_out_descriptor_in_place) {
  char log[160], path[64];
  snprintf(log, sizeof log, "%s/log.txt", g_dir);
  kgt_spit(log, "before\n");
  int fd = open(log, O_WRONLY | O_APPEND);
  ck_assert_int_ge(fd, 0);
  snprintf(path, sizeof path, "/dev/fd/%d", fd);
  write_ok(path, "report\n");
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  write_ok(path, "again\n");
  close(fd);
  assert_file(log, "before\nreport\nagain\n");
  /* /dev/stdout is standard output itself. */
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  fd = open(log, O_WRONLY | O_APPEND);
  dup2(fd, STDOUT_FILENO);
  close(fd);
  char err[512] = "";
  int rc = write_text("/dev/stdout", "stdout\n", err, sizeof err);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  ck_assert_msg(rc == 0, "%s", err);
  assert_file(log, "before\nreport\nagain\nstdout\n");
  ck_assert_int_eq(count_temps(), 0);
}
END_TEST

/* Temp files of this target whose writer is gone are removed by the next
 * writer; a live writer's, another target's and a young pid-less one stay. */
START_TEST(test_out_stale_temp_swept) {
  write_ok(g_path, "old\n");
  pid_t dead = dead_pid();
  char stale[200], legacy_old[200], legacy_new[200], live[200], other[200];
  snprintf(stale, sizeof stale, "%s.tmp.%ld.Ab3dE9", g_path, (long)dead);
  snprintf(legacy_old, sizeof legacy_old, "%s.tmp.Zx81Qw", g_path);
  snprintf(legacy_new, sizeof legacy_new, "%s.tmp.Yy71Pp", g_path);
  snprintf(live, sizeof live, "%s.tmp.%ld.Qq1234", g_path, (long)getppid());
  snprintf(other, sizeof other, "%s/other.json.tmp.%ld.Ab3dE9", g_dir, (long)dead);
  const char *all[] = {stale, legacy_old, legacy_new, live, other};
  for (int i = 0; i < 5; i++) kgt_spit(all[i], "partial");
  struct timeval two_hours_ago[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
  ck_assert_int_eq(utimes(legacy_old, two_hours_ago), 0);
  write_ok(g_path, "new\n");
  ck_assert_int_eq(access(stale, F_OK), -1);
  ck_assert_int_eq(access(legacy_old, F_OK), -1);
  ck_assert_int_eq(access(legacy_new, F_OK), 0);
  ck_assert_int_eq(access(live, F_OK), 0);
  ck_assert_int_eq(access(other, F_OK), 0);
  assert_file(g_path, "new\n");
}
END_TEST

/* ---- Core: loaders ---------------------------------------------------------- */

/* The layout of a written JSON file: each top-level key a line, the list
 * under list_key an element a line, and so a top-level object's "groups" (a
 * check record's): a baseline update reads as a short diff. */
START_TEST(test_json_write_layout) {
  json_t *doc = json_pack("{s[ii] s{ss s[[s][s]]} s{s[i]}}", "entries", 1, 2, "check_record", "harness", "h", "groups",
                          "a", "b", "other", "list", 3);
  char err[256];
  ck_assert_int_eq(kg_json_write(g_path, doc, "entries", err, sizeof err), 0);
  json_decref(doc);
  char *text = kgt_slurp(g_path);
  ck_assert_ptr_nonnull(text);
  ck_assert_str_eq(text, "{\"entries\":[\n1,\n2\n],\n\"check_record\":{\"harness\":\"h\",\"groups\":[\n[\"a\"],\n[\"b\"]\n]},\n"
                         "\"other\":{\"list\":[3]}}\n");
  free(text);
}
END_TEST

START_TEST(test_lines_split) {
  /* A line longer than a read chunk, CRLF kept, no final newline. */
  size_t big = 200000;
  char *text = malloc(big + 32);
  memset(text, 'x', big);
  strcpy(text + big, "\nsecond\r\n\nlast");
  kgt_spit(g_path, text);
  int fd;
  char err[256] = "", *line;
  size_t len;
  int nl;
  ck_assert_int_eq(kg_in_open(g_path, 1 << 20, &fd, err, sizeof err), 0);
  kg_lines l;
  kg_lines_init(&l, fd, g_path, 1 << 20);
  ck_assert_int_eq(kg_lines_next(&l, &line, &len, &nl, err, sizeof err), 1);
  ck_assert_uint_eq(len, big);
  ck_assert(nl && line[0] == 'x' && line[big - 1] == 'x' && line[big] == '\0');
  ck_assert_int_eq(kg_lines_next(&l, &line, &len, &nl, err, sizeof err), 1);
  ck_assert_str_eq(line, "second\r");
  ck_assert_int_eq(kg_lines_next(&l, &line, &len, &nl, err, sizeof err), 1);
  ck_assert(len == 0 && nl);
  ck_assert_int_eq(kg_lines_next(&l, &line, &len, &nl, err, sizeof err), 1);
  ck_assert_str_eq(line, "last");
  ck_assert(!nl);
  ck_assert_int_eq(kg_lines_next(&l, &line, &len, &nl, err, sizeof err), 0);
  kg_lines_free(&l);
  close(fd);
  free(text);
  /* An empty file: no line, no buffer ever touched. */
  kgt_spit(g_path, "");
  ck_assert_int_eq(kg_in_open(g_path, 1 << 20, &fd, err, sizeof err), 0);
  kg_lines_init(&l, fd, g_path, 1 << 20);
  ck_assert_int_eq(kg_lines_next(&l, &line, &len, &nl, err, sizeof err), 0);
  ck_assert_int_eq(kg_lines_next(&l, &line, &len, &nl, err, sizeof err), 0);
  kg_lines_free(&l);
  close(fd);
}
END_TEST

/* ---- Limits ------------------------------------------------------------------ */

START_TEST(test_read_file_limit) {
  char *text, err[256] = "";
  size_t len;
  char body[1001];
  memset(body, '{', 1000);
  body[1000] = '\0';
  kgt_spit(g_path, body);
  ck_assert_int_eq(kg_read_file(g_path, 1000, &text, &len, err, sizeof err), 0);
  ck_assert_uint_eq(len, 1000);
  ck_assert_int_eq(text[1000], '\0');
  free(text);
  ck_assert_int_eq(kg_read_file(g_path, 999, &text, &len, err, sizeof err), -1);
  ck_assert_ptr_null(text);
  ck_assert_msg(strstr(err, g_path) && strstr(err, "1000 bytes, over kgate's limit"), "%s", err);
}
END_TEST

/* A file that grows past the limit after fstat judged it is cut off at
 * limit + 1 bytes read, not read to its end. */
START_TEST(test_lines_grew_past_limit) {
  kgt_spit(g_path, "0123456789\n");
  int fd;
  char err[256] = "", *line;
  size_t len;
  int nl;
  ck_assert_int_eq(kg_in_open(g_path, 15, &fd, err, sizeof err), 0);
  FILE *f = fopen(g_path, "a");
  fputs("0123456789\n", f);
  fclose(f);
  kg_lines l;
  kg_lines_init(&l, fd, g_path, 15);
  int rc;
  while ((rc = kg_lines_next(&l, &line, &len, &nl, err, sizeof err)) == 1) continue;
  ck_assert_int_eq(rc, -1);
  ck_assert_uint_eq(l.total, 16);
  ck_assert_msg(strstr(err, "grew past kgate's limit"), "%s", err);
  kg_lines_free(&l);
  close(fd);
}
END_TEST

/* kill -9 at random moments of a writer of a 2 MiB file: the target is
 * always the old or the new file, whole; stale temp files never pile up
 * (at most the last killed writer's), and none remain after a write that
 * completes. KGATE_KILL_ROUNDS sets the number of rounds (default 300). */
enum { KILL_SIZE = 2 << 20 };

static void fill_version(char *buf, unsigned v) {
  memset(buf, 'A' + (int)(v % 26), KILL_SIZE);
  snprintf(buf, 16, "version %06u", v);
  buf[15] = '\n';
}

static void write_version(const char *path, char *buf, unsigned v) {
  fill_version(buf, v);
  kg_outfile o;
  char err[256];
  if (kg_out_open(&o, path, err, sizeof err)) _exit(3);
  for (size_t at = 0; at < KILL_SIZE; at += 65536) fwrite(buf + at, 1, 65536, o.f);
  if (kg_out_commit(&o, err, sizeof err)) _exit(4);
}

/* The version the target holds, asserting it is whole. */
static unsigned target_version(char *want) {
  char *got = kgt_slurp(g_path);
  ck_assert_ptr_nonnull(got);
  unsigned v = 0;
  ck_assert_int_eq(sscanf(got, "version %06u", &v), 1);
  fill_version(want, v);
  ck_assert_msg(memcmp(got, want, KILL_SIZE) == 0 && got[KILL_SIZE] == '\0', "version %u is not whole", v);
  free(got);
  return v;
}

START_TEST(test_out_kill_never_partial) {
  const char *env = getenv("KGATE_KILL_ROUNDS");
  int rounds = env ? atoi(env) : 300, kills = 0, completed = 0;
  char *buf = malloc(KILL_SIZE + 1), *want = malloc(KILL_SIZE + 1);
  write_version(g_path, buf, 0);
  double t0 = now_s();
  write_version(g_path, buf, 1);
  double write_s = now_s() - t0;
  unsigned v = 1, seed = 12345;
  for (int r = 0; r < rounds; r++) {
    /* A moment anywhere in the writer's life, and a little past it. */
    seed = seed * 1103515245u + 12345u;
    long delay_ns = (long)((double)(seed >> 8) / (double)(1u << 24) * 1.5 * write_s * 1e9);
    pid_t p = fork();
    ck_assert_int_ge(p, 0);
    if (p == 0) {
      write_version(g_path, buf, v + 1);
      _exit(0);
    }
    struct timespec t = {delay_ns / 1000000000L, delay_ns % 1000000000L};
    nanosleep(&t, NULL);
    kill(p, SIGKILL);
    int st;
    ck_assert_int_eq(waitpid(p, &st, 0), p);
    if (WIFSIGNALED(st)) kills++;
    else completed += WIFEXITED(st) && WEXITSTATUS(st) == 0;
    unsigned now = target_version(want);
    ck_assert_msg(now == v || now == v + 1, "round %d: version %u after %u", r, now, v);
    v = now;
    ck_assert_int_le(count_temps(), 1);
  }
  write_version(g_path, buf, v + 1);
  ck_assert_uint_eq(target_version(want), v + 1);
  ck_assert_int_eq(count_temps(), 0);
  fprintf(stderr,
          "fileio kill test: %d rounds: %d writers killed mid-write on purpose, %d finished first, the file whole "
          "after each (a write %.1f ms)\n",
          rounds, kills, completed, write_s * 1e3);
  ck_assert_int_gt(kills, rounds / 4); /* the kills did land mid-write */
  free(buf);
  free(want);
}
END_TEST

/* ---- the lock ----------------------------------------------------------------- */

/* A child that holds path's lock until killed; returns once it holds it. */
static pid_t hold_lock(const char *path) {
  int p[2];
  ck_assert_int_eq(pipe(p), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    kg_lock lk;
    char err[256];
    if (kg_lock_take(&lk, path, err, sizeof err)) _exit(1);
    if (write(p[1], "L", 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  close(p[1]);
  char c;
  ck_assert_int_eq(read(p[0], &c, 1), 1);
  close(p[0]);
  return pid;
}

static void stop(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

static void assert_lock_times_out(const char *path) {
  kg_lock lk;
  char err[512] = "";
  kg_lock_wait_s = 0.3;
  double t0 = now_s();
  ck_assert_int_eq(kg_lock_take(&lk, path, err, sizeof err), -1);
  double waited = now_s() - t0;
  ck_assert_msg(waited >= 0.3 && waited < 3, "waited %.2f s", waited);
  char want[300];
  snprintf(want, sizeof want, "cannot write %s: another kgate has been writing it for 0.3 s (its lock is held)", path);
  ck_assert_str_eq(err, want);
}

/* A writer waits for the lock, then gives up with a message naming the file;
 * once the holder is gone the lock is free at once. */
START_TEST(test_lock_times_out) {
  write_ok(g_path, "x");
  pid_t holder = hold_lock(g_path);
  assert_lock_times_out(g_path);
  stop(holder);
  kg_lock lk;
  char err[512] = "";
  kg_lock_wait_s = 1;
  ck_assert_msg(kg_lock_take(&lk, g_path, err, sizeof err) == 0, "%s", err);
  ck_assert_int_ge(lk.fd, 0);
  kg_lock_drop(&lk);
  ck_assert_int_eq(lk.fd, -1);
}
END_TEST

/* While the target does not exist its folder stands for it; a link is
 * locked at its end, so two names of one file share one lock. */
START_TEST(test_lock_absent_and_linked) {
  pid_t holder = hold_lock(g_path);
  assert_lock_times_out(g_path);
  stop(holder);
  write_ok(g_path, "x");
  char link[160];
  snprintf(link, sizeof link, "%s/link.json", g_dir);
  ck_assert_int_eq(symlink("target.json", link), 0);
  holder = hold_lock(link);
  assert_lock_times_out(g_path);
  stop(holder);
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), 2); /* no lock file left */
}
END_TEST

/* A FIFO or "-" is never renamed over: nothing to lock, no wait. */
START_TEST(test_lock_none_for_special) {
  ck_assert_int_eq(mkfifo(g_path, 0600), 0);
  kg_lock lk;
  char err[256] = "";
  ck_assert_int_eq(kg_lock_take(&lk, g_path, err, sizeof err), 0);
  ck_assert_int_eq(lk.fd, -1);
  ck_assert_int_eq(kg_lock_take(&lk, "-", err, sizeof err), 0);
  ck_assert_int_eq(lk.fd, -1);
  kg_lock_drop(&lk);
}
END_TEST

/* ---- Errors: writers ------------------------------------------------------------ */

START_TEST(test_out_directory_refused) {
  char err[512] = "", want[256];
  ck_assert_int_eq(write_text(g_dir, "x", err, sizeof err), -1);
  snprintf(want, sizeof want, "cannot write %s: it is a directory", g_dir);
  ck_assert_str_eq(err, want);
  ck_assert_int_eq(kgt_count_files(g_dir, NULL), 0);
}
END_TEST

/* `kgate compare ... --junit FULL` (a report to /dev/full, as root): one
 * line naming the path, exit 2, and the device node is still the device. */
START_TEST(test_cli_report_to_full) {
  char full[160], null[160], run1[512], run2[512];
  const char *slash = strrchr(__FILE__, '/');
  int dirlen = slash ? (int)(slash - __FILE__) : 1;
  snprintf(run1, sizeof run1, "%.*s/data/h200-run1.json", dirlen, slash ? __FILE__ : ".");
  snprintf(run2, sizeof run2, "%.*s/data/h200-run2.json", dirlen, slash ? __FILE__ : ".");
  device_node("full", 7, full, sizeof full);
  device_node("null", 3, null, sizeof null);
  char *to_full[] = {"compare", run1, run2, "--junit", full, NULL};
  char *to_null[] = {"compare", run1, run2, "--junit", null, "--csv", null, NULL};
  ck_assert_int_eq(kgt_run_cli(to_full), KG_EXIT_USAGE);
  int code = kgt_run_cli(to_null);
  ck_assert_msg(code == KG_EXIT_OK || code == KG_EXIT_PERF, "exit %d", code);
  const char *nodes[] = {full, null};
  for (int i = 0; i < 2; i++) {
    struct stat st;
    ck_assert_int_eq(lstat(nodes[i], &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
    ck_assert_uint_eq(st.st_rdev, makedev(1, i ? 3 : 7));
  }
  ck_assert_int_eq(count_temps(), 0);
}
END_TEST

/* ---- Errors: loaders ------------------------------------------------------------ */

/* Each loader of files from elsewhere, as kgate calls it: -1 with err. */
static int load_results(const char *path, char *err, size_t errlen) {
  kg_run run;
  int rc = kg_results_read(path, &run, err, errlen);
  if (rc == 0) kg_run_free(&run);
  return rc;
}

static int load_baseline(const char *path, char *err, size_t errlen) {
  kg_baseline b;
  int rc = kg_baseline_load(path, &b, err, errlen);
  if (rc == 0) kg_baseline_free(&b);
  return rc;
}

static int load_history(const char *path, char *err, size_t errlen) {
  kg_history h;
  int rc = kg_history_read(path, &h, err, errlen);
  if (rc == 0) kg_history_free(&h);
  return rc;
}

static int load_merge(const char *path, char *err, size_t errlen) {
  const char *paths[2] = {path, path};
  kg_run run;
  int rc = kg_merge_runs(paths, 2, &run, err, errlen);
  if (rc == 0) kg_run_free(&run);
  return rc;
}

static const struct {
  const char *name;
  int (*load)(const char *, char *, size_t);
  size_t limit;
} k_loaders[] = {
    {"results", load_results, KG_JSON_MAX},
    {"baseline", load_baseline, KG_JSON_MAX},
    {"history", load_history, KG_HISTORY_MAX},
    {"merge", load_merge, KG_JSON_MAX},
};

enum { BAD_FIFO, BAD_ZERO, BAD_DIR, BAD_HUGE, NBAD };
static const char *const k_bad_why[NBAD] = {"it is a FIFO, not a regular file",
                                            "it is a character device, not a regular file",
                                            "it is a directory, not a regular file", "bytes, over kgate's limit of"};

/* Every loader refuses every kind of bad file before reading it: promptly,
 * with one line naming the file and why. */
START_TEST(test_loader_refuses) {
  int li = _i / NBAD, bad = _i % NBAD;
  char path[160], err[512] = "";
  snprintf(path, sizeof path, "%s/input", g_dir);
  if (bad == BAD_FIFO) ck_assert_int_eq(mkfifo(path, 0600), 0); /* and no writer, ever */
  else if (bad == BAD_ZERO) snprintf(path, sizeof path, "/dev/zero");
  else if (bad == BAD_DIR) ck_assert_int_eq(mkdir(path, 0700), 0);
  else {
    /* One byte over the limit, sparse: nothing is allocated on disk. */
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)k_loaders[li].limit + 1), 0);
    close(fd);
  }
  double t0 = now_s();
  ck_assert_int_eq(k_loaders[li].load(path, err, sizeof err), -1);
  ck_assert_msg(now_s() - t0 < 2, "%s took %.1f s", k_loaders[li].name, now_s() - t0);
  char want[256];
  snprintf(want, sizeof want, "cannot read %s: ", path);
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0 && strstr(err, k_bad_why[bad]) && !strchr(err, '\n'),
                "%s: %s", k_loaders[li].name, err);
}
END_TEST

#define N(a) (int)(sizeof a / sizeof a[0])

Suite *make_fileio_suite(void) {
  Suite *s = suite_create("fileio");
  TCase *core = tcase_create("Core");
  tcase_add_checked_fixture(core, setup, teardown);
  tcase_add_test(core, test_out_symlink_kept);
  tcase_add_test(core, test_out_symlink_dangling);
  tcase_add_test(core, test_out_mode_kept);
  tcase_add_test(core, test_out_new_file_mode);
  tcase_add_test(core, test_out_fifo_in_place);
  tcase_add_test(core, test_out_device_in_place);
  tcase_add_test(core, test_out_descriptor_in_place);
  tcase_add_test(core, test_out_stale_temp_swept);
  tcase_add_test(core, test_lines_split);
  tcase_add_test(core, test_json_write_layout);
  tcase_add_test(core, test_lock_times_out);
  tcase_add_test(core, test_lock_absent_and_linked);
  tcase_add_test(core, test_lock_none_for_special);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_checked_fixture(limits, setup, teardown);
  tcase_set_timeout(limits, 300);
  tcase_add_test(limits, test_read_file_limit);
  tcase_add_test(limits, test_lines_grew_past_limit);
  tcase_add_test(limits, test_out_kill_never_partial);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_checked_fixture(errors, setup, teardown);
  tcase_add_test(errors, test_out_dev_full_error);
  tcase_add_test(errors, test_out_directory_refused);
  tcase_add_test(errors, test_cli_report_to_full);
  tcase_add_loop_test(errors, test_loader_refuses, 0, N(k_loaders) * NBAD);
  suite_add_tcase(s, errors);
  return s;
}
