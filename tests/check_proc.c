/* proc: child processes in their own group, bounded lines, reaping; and
 * kg_spawn (child.h) beneath them. The children are /bin/sh one-liners. */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "label.h"
#include "proc.h"

static int spawn_sh(kg_proc *w, const char *script, size_t max_line) {
  char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
  return kg_proc_spawn(w, argv, max_line);
}

/* --- Core */

START_TEST(test_proc_lines_in_order) {
  kg_proc w;
  ck_assert_int_eq(spawn_sh(&w, "printf 'one\\ntwo\\n'; read x; echo \"got $x\"", 64), 0);
  char *line;
  ck_assert_int_eq(kg_proc_read_line(&w, kg_now_s() + 10, &line), KG_LINE_OK);
  ck_assert_str_eq(line, "one");
  kg_proc_consume(&w);
  ck_assert_int_eq(kg_proc_read_line(&w, kg_now_s() + 10, &line), KG_LINE_OK);
  ck_assert_str_eq(line, "two");
  kg_proc_consume(&w);
  ck_assert_int_eq(kg_proc_send(&w, "ping"), 0);
  ck_assert_int_eq(kg_proc_read_line(&w, kg_now_s() + 10, &line), KG_LINE_OK);
  ck_assert_str_eq(line, "got ping");
  kg_proc_consume(&w);
  char why[160];
  ck_assert_int_eq(kg_proc_reap(&w, 10, why, sizeof why), 0);
  ck_assert_str_eq(why, "worker exited with status 0");
  ck_assert_int_eq(w.pid, -1);
}
END_TEST

/* The exit status and the signal are told apart. */
static const struct {
  const char *script;
  int code;
  const char *why;
} k_ends[] = {
    {"exit 3", 3, "worker exited with status 3"},
    {"kill -KILL $$", -1, "worker killed by signal 9"},
    {"exec sleep 30", -1, "worker did not exit and was killed"},
};

START_TEST(test_proc_reap_says_how) {
  kg_proc w;
  ck_assert_int_eq(spawn_sh(&w, k_ends[_i].script, 64), 0);
  if (k_ends[_i].code >= 0 || _i == 1) {
    char *line;
    ck_assert_int_eq(kg_proc_read_line(&w, kg_now_s() + 10, &line), KG_LINE_EOF);
  }
  char why[160];
  ck_assert_int_eq(kg_proc_reap(&w, _i == 2 ? 0.2 : 10, why, sizeof why), k_ends[_i].code);
  ck_assert_msg(strstr(why, k_ends[_i].why) != NULL, "%s", why);
}
END_TEST

/* Killing the group also ends what the child started. */
START_TEST(test_proc_kill_ends_group) {
  kg_proc w;
  ck_assert_int_eq(spawn_sh(&w, "sleep 30 & echo $!; wait", 64), 0);
  char *line;
  ck_assert_int_eq(kg_proc_read_line(&w, kg_now_s() + 10, &line), KG_LINE_OK);
  pid_t grandchild = (pid_t)atol(line);
  ck_assert_int_gt(grandchild, 0);
  kg_proc_kill(&w);
  kg_proc_reap(&w, 0.0, NULL, 0);
  int gone = 0;
  for (int k = 0; k < 200 && !gone; k++) {
    gone = kill(grandchild, 0) != 0;
    if (!gone) usleep(10000);
  }
  ck_assert_msg(gone, "the child's child outlived its group");
}
END_TEST

START_TEST(test_proc_capture_output) {
  char *argv[] = {"/bin/sh", "-c", "echo described; sleep 30", NULL}, *out = NULL, err[128] = "";
  size_t len = 0;
  ck_assert_int_eq(kg_proc_capture(argv, 9, 5000, &out, &len, err, sizeof err), 0); /* cap: stops reading */
  ck_assert_uint_eq(len, 9);
  ck_assert_str_eq(out, "described");
  free(out);
}
END_TEST

/* --- Limits */

START_TEST(test_proc_line_at_limit) {
  kg_proc w;
  ck_assert_int_eq(spawn_sh(&w, "printf '%016d\\n' 7", 16), 0);
  char *line;
  ck_assert_int_eq(kg_proc_read_line(&w, kg_now_s() + 10, &line), KG_LINE_OK);
  ck_assert_uint_eq(strlen(line), 16);
  kg_proc_reap(&w, 10, NULL, 0);
}
END_TEST

START_TEST(test_proc_line_over_limit) {
  kg_proc w;
  ck_assert_int_eq(spawn_sh(&w, "printf '%017d\\n' 7; sleep 30", 16), 0);
  char *line;
  ck_assert_int_eq(kg_proc_read_line(&w, kg_now_s() + 10, &line), KG_LINE_BAD);
  ck_assert_str_eq(w.bad, "line longer than 16 bytes");
  ck_assert_uint_le(w.cap, 17); /* the buffer never grew past the limit */
  kg_proc_kill(&w);
  kg_proc_reap(&w, 0.0, NULL, 0);
}
END_TEST

/* --- Errors */

START_TEST(test_proc_nul_in_line) {
  kg_proc w;
  ck_assert_int_eq(spawn_sh(&w, "printf 'a\\000b\\n'; sleep 30", 64), 0);
  char *line;
  ck_assert_int_eq(kg_proc_read_line(&w, kg_now_s() + 10, &line), KG_LINE_BAD);
  ck_assert_str_eq(w.bad, "NUL byte inside a line");
  kg_proc_kill(&w);
  kg_proc_reap(&w, 0.0, NULL, 0);
}
END_TEST

START_TEST(test_proc_read_timeout) {
  kg_proc w;
  ck_assert_int_eq(spawn_sh(&w, "printf 'half'; sleep 30", 64), 0);
  char *line;
  double t0 = kg_now_s();
  ck_assert_int_eq(kg_proc_read_line(&w, t0 + 0.2, &line), KG_LINE_TIMEOUT);
  ck_assert_double_lt(kg_now_s() - t0, 5.0);
  ck_assert_int_eq(kg_proc_leftover(&w), 4); /* "half" waits in the buffer */
  kg_proc_kill(&w);
  kg_proc_reap(&w, 0.0, NULL, 0);
}
END_TEST

START_TEST(test_proc_capture_missing_program) {
  char *argv[] = {"/nonexistent/kgate-worker", NULL}, *out = NULL, err[160] = "";
  size_t len = 0;
  ck_assert_int_eq(kg_proc_capture(argv, 64, 1000, &out, &len, err, sizeof err), -1);
  ck_assert_str_eq(err, "cannot run worker /nonexistent/kgate-worker: No such file or directory");
}
END_TEST

/* --- kg_spawn: what the child gets before its program runs */

/* Runs argv with o, its stdout or stderr on one pipe where o.fd[1] or o.fd[2]
 * is -2: the exit status, what came out in out, and whether it led a process
 * group of its own in *leads_group (may be NULL). */
static int spawn_read(char *const argv[], kg_spawn_opts o, char *out, size_t cap, int *leads_group) {
  int p[2];
  ck_assert_int_eq(pipe(p), 0);
  for (int i = 1; i < 3; i++)
    if (o.fd[i] == -2) o.fd[i] = p[1];
  pid_t pid = kg_spawn(argv, &o);
  ck_assert_int_gt(pid, 0);
  close(p[1]);
  if (leads_group) *leads_group = getpgid(pid) == pid; /* before the reap: a zombie keeps its group */
  size_t n = 0;
  for (ssize_t got; n + 1 < cap && (got = read(p[0], out + n, cap - 1 - n)) > 0;) n += (size_t)got;
  out[n] = '\0';
  close(p[0]);
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status));
  return WEXITSTATUS(status);
}

START_TEST(test_spawn_folder_descriptors_group) {
  char *argv[] = {"/bin/sh", "-c", "pwd; echo to-stderr >&2", NULL}, out[256];
  int own = 0;
  kg_spawn_opts o = {.fd = {-1, -2, -2}, .dir = "/", .own_group = 1};
  ck_assert_int_eq(spawn_read(argv, o, out, sizeof out, &own), 0);
  ck_assert_str_eq(out, "/\nto-stderr\n");
  ck_assert_int_eq(own, 1); /* a group of its own */
  int shared = 1;
  o.own_group = 0;
  ck_assert_int_eq(spawn_read(argv, o, out, sizeof out, &shared), 0);
  ck_assert_int_eq(shared, 0); /* this process's group */
}
END_TEST

START_TEST(test_spawn_missing_folder) {
  char *argv[] = {"/bin/sh", "-c", "echo ran", NULL}, out[64];
  kg_spawn_opts o = {.fd = {-1, -2, -2}, .dir = "/nonexistent/kgate-folder"};
  ck_assert_int_eq(spawn_read(argv, o, out, sizeof out, NULL), KG_SPAWN_NO_DIR);
  ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_spawn_missing_program) {
  char *argv[] = {"/nonexistent/kgate-tool", NULL}, out[160];
  kg_spawn_opts o = {.fd = {-1, -1, -2}, .what = "tool"};
  ck_assert_int_eq(spawn_read(argv, o, out, sizeof out, NULL), KG_SPAWN_NO_EXEC);
  ck_assert_str_eq(out, "kgate: cannot run tool /nonexistent/kgate-tool: No such file or directory\n");
  o.what = NULL; /* silent: the caller says what failed */
  ck_assert_int_eq(spawn_read(argv, o, out, sizeof out, NULL), KG_SPAWN_NO_EXEC);
  ck_assert_str_eq(out, "");
}
END_TEST

/* kg_env_secret: the runner's and the clouds' tokens and any secret-like name, not a build's settings. */
static const struct {
  const char *name;
  int secret;
} k_env_names[] = {
    {"GITHUB_TOKEN", 1}, {"ACTIONS_ID_TOKEN_REQUEST_URL", 1}, {"ACTIONS_ID_TOKEN_REQUEST_TOKEN", 1},
    {"ACTIONS_RUNTIME_TOKEN", 1}, {"GITHUB_ENV", 1}, {"GITHUB_PATH", 1}, {"INPUT_GITHUB-TOKEN", 1},
    {"GH_TOKEN", 1}, {"AWS_SECRET_ACCESS_KEY", 1}, {"KGATE_REFCACHE_KEY", 1}, {"npm_config_authToken", 1},
    {"Deploy_Password", 1}, {"SSH_AUTH_SOCK", 1}, {"VAULT_ADDR", 1}, {"ci_job_jwt", 1},
    {"PATH", 0}, {"HOME", 0}, {"CUDA_VISIBLE_DEVICES", 0}, {"CMAKE_PREFIX_PATH", 0}, {"CC", 0},
    {"KGATE_BISECT_BUILD", 0}, {"KGATE_CUDA_ARCHITECTURES", 0}, {"LANG", 0}, {"KEYBOARD", 0},
};

START_TEST(test_env_secret_names) {
  ck_assert_msg(kg_env_secret(k_env_names[_i].name) == k_env_names[_i].secret, "%s", k_env_names[_i].name);
}
END_TEST

/* The scrubbed environment reaches the child: a token is gone, the rest kept. */
START_TEST(test_spawn_scrubbed_env) {
  char *env[] = {"PATH=/usr/bin:/bin", "GITHUB_TOKEN=ghs_x", "KEEP=1", "ACTIONS_ID_TOKEN_REQUEST_URL=u", NULL};
  char **clean = kg_env_scrubbed(env), out[256];
  ck_assert_ptr_nonnull(clean);
  char *argv[] = {"/usr/bin/env", NULL};
  kg_spawn_opts o = {.fd = {-1, -2, -1}, .env = clean};
  ck_assert_int_eq(spawn_read(argv, o, out, sizeof out, NULL), 0);
  ck_assert_str_eq(out, "PATH=/usr/bin:/bin\nKEEP=1\n");
  free(clean);
}
END_TEST

Suite *make_proc_suite(void) {
  Suite *s = suite_create("proc");
  TCase *core = tcase_create("Core");
  tcase_add_test(core, test_proc_lines_in_order);
  tcase_add_loop_test(core, test_proc_reap_says_how, 0, sizeof k_ends / sizeof k_ends[0]);
  tcase_add_test(core, test_proc_kill_ends_group);
  tcase_add_test(core, test_proc_capture_output);
  tcase_add_test(core, test_spawn_folder_descriptors_group);
  tcase_add_loop_test(core, test_env_secret_names, 0, sizeof k_env_names / sizeof k_env_names[0]);
  tcase_add_test(core, test_spawn_scrubbed_env);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("Limits");
  tcase_add_test(limits, test_proc_line_at_limit);
  tcase_add_test(limits, test_proc_line_over_limit);
  suite_add_tcase(s, limits);
  TCase *errors = tcase_create("Errors");
  tcase_add_test(errors, test_proc_nul_in_line);
  tcase_add_test(errors, test_proc_read_timeout);
  tcase_add_test(errors, test_proc_capture_missing_program);
  tcase_add_test(errors, test_spawn_missing_folder);
  tcase_add_test(errors, test_spawn_missing_program);
  suite_add_tcase(s, errors);
  return s;
}
