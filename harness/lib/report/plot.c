/* Running gnuplot. kgate never links a plotting library: gnuplot is a child
 * process, fed the scripts of plots/ and the data the chart writers wrote (chart.h), so charts
 * are optional at run time (no gnuplot: everything else still works) and a
 * person can restyle a chart by editing a script, without a rebuild. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "svg.h"

#ifndef KG_SOURCE_DIR
#define KG_SOURCE_DIR "."
#endif

/* Every script a chart kind uses must be there, and the shared one. */
static const char k_common_script[] = "common.gp";

int kg_gnuplot_find(char *path, size_t len) {
  const char *p = getenv("PATH");
  if (!p || !*p) return -1;
  while (*p) {
    size_t n = strcspn(p, ":");
    /* An empty PATH element means the current folder. */
    int w = snprintf(path, len, "%.*s%sgnuplot", (int)n, n ? p : ".", "/");
    if (w > 0 && (size_t)w < len && access(path, X_OK) == 0) {
      struct stat st;
      if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) return 0;
    }
    p += n + (p[n] == ':');
  }
  return -1;
}

static int is_scripts_dir(const char *dir) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s/%s", dir, k_common_script) >= (int)sizeof path) return 0;
  return access(path, R_OK) == 0;
}

int kg_plot_scripts(char *dir, size_t len, char *err, size_t errlen) {
  char cand[3][PATH_MAX];
  int ncand = 0;
  const char *env = getenv("KGATE_PLOTS");
  if (env && *env) snprintf(cand[ncand++], PATH_MAX, "%s", env);
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    snprintf(cand[ncand++], PATH_MAX, "%.*s/../share/kgate/plots", PATH_MAX - 32, exe);
  }
  snprintf(cand[ncand++], PATH_MAX, "%.*s/plots", PATH_MAX - 16, KG_SOURCE_DIR);
  /* $KGATE_PLOTS is a promise: when it is set, it is the only place looked at. */
  for (int i = 0; i < (env && *env ? 1 : ncand); i++) {
    char real[PATH_MAX];
    if (is_scripts_dir(cand[i]) && realpath(cand[i], real) && strlen(real) < len) {
      snprintf(dir, len, "%s", real);
      return 0;
    }
  }
  if (env && *env)
    snprintf(err, errlen, "KGATE_PLOTS=%s holds no gnuplot scripts (%s): point it at kgate's plots folder", env,
             k_common_script);
  else
    snprintf(err, errlen, "cannot find kgate's gnuplot scripts (looked in %s and %s): set KGATE_PLOTS to the plots "
             "folder", ncand > 1 ? cand[0] : "", cand[ncand - 1]);
  return -1;
}

/* Appends s to buf as a gnuplot single-quoted string. */
static void quote_into(char *buf, size_t len, const char *s) {
  size_t o = strlen(buf);
  if (o + 1 < len) buf[o++] = '\'';
  for (; *s && o + 2 < len; s++) {
    if (*s == '\'') buf[o++] = '\'';
    buf[o++] = *s;
  }
  if (o + 1 < len) buf[o++] = '\'';
  buf[o] = '\0';
}

/* The -e command for one format: "plots='..'; vars='..'; fmt='png'; out='..'". */
static void settings(char *buf, size_t len, const char *scripts, const char *name, const char *fmt, const char *out) {
  char vars[256];
  snprintf(vars, sizeof vars, "%s.vars", name);
  snprintf(buf, len, "plots=");
  quote_into(buf, len, scripts);
  strncat(buf, "; vars=", len - strlen(buf) - 1);
  quote_into(buf, len, vars);
  strncat(buf, "; fmt=", len - strlen(buf) - 1);
  quote_into(buf, len, fmt);
  strncat(buf, "; out=", len - strlen(buf) - 1);
  quote_into(buf, len, out);
}

/* The last non-empty line gnuplot wrote to its stderr (f), or "". */
static void last_message(FILE *f, char *buf, size_t len) {
  char line[512];
  buf[0] = '\0';
  rewind(f);
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[strspn(line, " \t^")]) snprintf(buf, len, "%s", line + strspn(line, " \t"));
  }
}

static int nonempty(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* The SVG finished (svg.h), then both images (tmp[0] PNG, tmp[1] SVG) take their names. */
static kg_plot_status finish(char tmp[2][PATH_MAX], char fin[2][PATH_MAX], const kg_chart *c, char *err,
                             size_t errlen) {
  if (kg_svg_finish(tmp[1], c->caption, err, errlen)) {
    unlink(tmp[0]), unlink(tmp[1]);
    return KG_PLOT_IO;
  }
  for (int k = 0; k < 2; k++)
    if (rename(tmp[k], fin[k]) != 0) {
      snprintf(err, errlen, "cannot write %s: %s", fin[k], strerror(errno));
      unlink(tmp[0]), unlink(tmp[1]);
      return KG_PLOT_IO;
    }
  return KG_PLOT_OK;
}

/* Runs gnuplot once for both formats of one chart, in dir. */
static kg_plot_status render_one(const char *gnuplot, const char *scripts, const char *dir, const kg_chart *c,
                                 char *err, size_t errlen) {
  const char *kind = kg_chart_kind_get(c->kind)->name;
  char script[PATH_MAX], tmp[2][300], fin[2][PATH_MAX], set[2][PATH_MAX + 600];
  static const char *const fmt[2] = {"png", "svg"};
  if (snprintf(script, sizeof script, "%s/%s.gp", scripts, kind) >= (int)sizeof script || access(script, R_OK) != 0) {
    snprintf(err, errlen, "cannot read the gnuplot script %s: %s", script, strerror(errno));
    return KG_PLOT_NO_SCRIPTS;
  }
  for (int k = 0; k < 2; k++) {
    snprintf(tmp[k], sizeof tmp[k], ".%s.%ld.tmp.%s", c->name, (long)getpid(), fmt[k]);
    snprintf(fin[k], sizeof fin[k], "%s/%s.%s", dir, c->name, fmt[k]);
    settings(set[k], sizeof set[k], scripts, c->name, fmt[k], tmp[k]);
  }
  FILE *log = tmpfile();
  if (!log) {
    snprintf(err, errlen, "cannot start gnuplot: %s", strerror(errno));
    return KG_PLOT_IO;
  }
  fflush(NULL);
  /* In the output folder, so the settings name the data files relatively. */
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  char *argv[] = {(char *)gnuplot, "-e", set[0], script, "-e", set[1], script, NULL};
  const kg_spawn_opts so = {.fd = {null, null, fileno(log)}, .dir = dir};
  pid_t pid = null < 0 ? -1 : kg_spawn(argv, &so);
  if (null >= 0) close(null);
  if (pid < 0) {
    snprintf(err, errlen, "cannot start gnuplot: %s", strerror(errno));
    fclose(log);
    return KG_PLOT_FAILED;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  char msg[400];
  last_message(log, msg, sizeof msg);
  fclose(log);
  char tpath[2][PATH_MAX];
  int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  for (int k = 0; k < 2; k++) {
    snprintf(tpath[k], sizeof tpath[k], "%s/%s", dir, tmp[k]);
    ok &= nonempty(tpath[k]);
  }
  if (ok) return finish(tpath, fin, c, err, errlen);
  unlink(tpath[0]), unlink(tpath[1]);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 126)
    snprintf(err, errlen, "cannot run gnuplot in %s", dir);
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    snprintf(err, errlen, "cannot run %s", gnuplot);
  else
    snprintf(err, errlen, "gnuplot failed on %s for %s%s%s", script, c->name, msg[0] ? ": " : " (no image written)",
             msg);
  return KG_PLOT_FAILED;
}

kg_plot_status kg_plot_render(const char *dir, const kg_charts *charts, char *err, size_t errlen) {
  char gnuplot[PATH_MAX], scripts[PATH_MAX];
  if (kg_gnuplot_find(gnuplot, sizeof gnuplot)) {
    snprintf(err, errlen, "%s", KG_NO_GNUPLOT);
    return KG_PLOT_NO_GNUPLOT;
  }
  if (kg_plot_scripts(scripts, sizeof scripts, err, errlen)) return KG_PLOT_NO_SCRIPTS;
  for (size_t i = 0; i < charts->n; i++) {
    kg_plot_status s = render_one(gnuplot, scripts, dir, &charts->c[i], err, errlen);
    if (s) return s;
  }
  return KG_PLOT_OK;
}
