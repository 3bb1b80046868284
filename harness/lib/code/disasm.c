#include "disasm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"
#include "fileio.h"
#include "child.h"

enum { EM_CUDA = 190 };
#define KG_DIS_MAX ((size_t)1 << 31) /* 2 GiB of text: past any module */

static int read_all(FILE *f, char **text, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *b = malloc(cap + 1);
  for (size_t got; b && (got = fread(b + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      char *q = cap < KG_DIS_MAX ? realloc(b, 2 * cap + 1) : NULL;
      if (!q) return free(b), -1;
      b = q, cap *= 2;
    }
  }
  if (!b || ferror(f)) return free(b), -1;
  b[n] = '\0';
  *text = b, *len = n;
  return 0;
}

/* The tool's path in out: the environment's choice, PATH, then the toolkit's usual homes. */
static int find_tool(const char *name, const char *env, char *out, size_t len) {
  const char *e = getenv(env);
  if (e && *e) return snprintf(out, len, "%s", e), access(out, X_OK);
  char dirs[8192];
  const char *cuda = getenv("CUDA_HOME");
  snprintf(dirs, sizeof dirs, "%s:%s%s/usr/local/cuda/bin", getenv("PATH") ? getenv("PATH") : "",
           cuda ? cuda : "", cuda ? "/bin:" : "");
  for (char *d = strtok(dirs, ":"); d; d = strtok(NULL, ":")) {
    snprintf(out, len, "%s/%s", *d ? d : ".", name);
    if (!access(out, X_OK)) return 0;
  }
  return -1;
}

/* Starts argv in dir (NULL: here) with its standard output on out, below the
 * gate's own priority: in check and run the lint goes on beside the paired
 * rounds, whose timing thread must not wait for a CPU. */
static pid_t start(char *const argv[], const char *dir, int out) {
  const kg_spawn_opts o = {.fd = {-1, out, -1}, .dir = dir, .nice = 10};
  return kg_spawn(argv, &o);
}

static int exited_ok(pid_t pid) {
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Runs tool with its arguments; its standard output becomes the text. */
static kg_dis_rc run_tool(char *const argv[], const char *path, char **text, size_t *len, char *err, size_t errlen) {
  int fd[2];
  if (pipe(fd)) return snprintf(err, errlen, "%s: cannot run %s: %s", path, argv[0], strerror(errno)), KG_DIS_BAD;
  pid_t pid = start(argv, NULL, fd[1]);
  close(fd[1]);
  FILE *f = pid > 0 ? fdopen(fd[0], "r") : NULL;
  int rc = f ? read_all(f, text, len) : -1, status = 0;
  if (f) fclose(f);
  else close(fd[0]);
  if (pid > 0) waitpid(pid, &status, 0);
  if (rc || !WIFEXITED(status) || WEXITSTATUS(status)) {
    if (!rc) free(*text);
    snprintf(err, errlen, "%s: %s failed on it (exit %d): not a cubin or a file with CUDA code?", path, argv[0],
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return KG_DIS_BAD;
  }
  return KG_DIS_OK;
}

/* Appends the file at path to the text, then removes it. */
static int append_file(const char *path, char **text, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *t = NULL;
  size_t n = 0;
  int rc = f ? read_all(f, &t, &n) : -1;
  if (f) fclose(f);
  unlink(path);
  char *q = rc ? NULL : realloc(*text, *len + n + 1);
  if (!q) return free(t), -1;
  memcpy(q + *len, t, n + 1);
  *text = q, *len += n;
  free(t);
  return 0;
}

/* nvdisasm -c -g over the cubins in dir, as many at once as there are
 * processors (one at a time, a module of 135 cubins took tens of seconds),
 * each next one started as soon as one ends, their listings joined in name
 * order. */
static int nvdisasm_all(const char *nvd, const char *dir, struct dirent **e, int n, char **text, size_t *len) {
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  int width = ncpu < 1 ? 1 : ncpu > 64 ? 64 : (int)ncpu, ok = 1, running = 0;
  pid_t pids[64] = {0};
  for (int next = 0; next < n || running > 0;) {
    for (int k = 0; k < width && next < n; k++) {
      if (pids[k] > 0) continue;
      char out[PATH_MAX + 300];
      snprintf(out, sizeof out, "%s/%s.sass", dir, e[next]->d_name);
      int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      char *argv[] = {(char *)nvd, "-c", "-g", e[next++]->d_name, NULL};
      pids[k] = fd < 0 ? -1 : start(argv, dir, fd);
      if (fd >= 0) close(fd);
      if (pids[k] > 0) running++;
      else ok = 0, pids[k] = 0;
    }
    /* Each of ours by its pid (never wait(): another child of this process is not ours to reap). */
    int reaped = 0;
    for (int k = 0; k < width; k++) {
      int status = 0;
      if (pids[k] <= 0 || waitpid(pids[k], &status, WNOHANG) != pids[k]) continue;
      pids[k] = 0, running--, reaped++;
      ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    if (!reaped && running > 0) usleep(1000);
  }
  for (int k = 0; k < n; k++) {
    char out[PATH_MAX + 300];
    snprintf(out, sizeof out, "%s/%s.sass", dir, e[k]->d_name);
    if (append_file(out, text, len)) ok = 0;
  }
  return ok ? 0 : -1;
}

static int is_cubin(const struct dirent *d) {
  size_t n = strlen(d->d_name);
  return n > 6 && !strcmp(d->d_name + n - 6, ".cubin");
}

/* cuobjdump -xelf all: a host binary's cubins, taken out into a scratch
 * folder (*dir, made here) and listed in name order in *e (*n of them). 0, or
 * -1 (the folder is removed then). */
static int extract_cubins(const char *cuo, const char *path, char *dir, struct dirent ***e, int *n) {
  char abs[PATH_MAX];
  *e = NULL, *n = -1;
  if (!realpath(path, abs) || !mkdtemp(dir)) return -1;
  char *argv[] = {(char *)cuo, "-xelf", "all", abs, NULL};
  int null = open("/dev/null", O_WRONLY), ok = exited_ok(start(argv, dir, null));
  if (null >= 0) close(null);
  *n = ok ? scandir(dir, e, is_cubin, alphasort) : -1;
  return *n >= 0 ? 0 : (rmdir(dir), -1);
}

/* Removes the cubins and their folder. */
static void remove_cubins(const char *dir, struct dirent **e, int n) {
  for (int k = 0; k < n; k++) {
    char f[PATH_MAX + 300];
    snprintf(f, sizeof f, "%s/%s", dir, e[k]->d_name);
    unlink(f), free(e[k]);
  }
  free(e);
  rmdir(dir);
}

/* A host binary: its cubins taken out, nvdisasm lists them with their source
 * lines. cuobjdump -sass of the whole file says the same without lines, but
 * took 41-45 s for kgate's module on an H200 machine, where extracting and
 * listing in parallel took under 3 s. */
static kg_dis_rc host_binary(const char *cuo, const char *nvd, const char *path, char **text, size_t *len, char *err,
                             size_t errlen) {
  char dir[] = "/tmp/kgate-lint-XXXXXX";
  struct dirent **e = NULL;
  int n = 0;
  if (extract_cubins(cuo, path, dir, &e, &n))
    return snprintf(err, errlen, "%s: cuobjdump -xelf failed on it", path), KG_DIS_BAD;
  *text = calloc(1, 1), *len = 0;
  int rc = n > 0 && *text ? nvdisasm_all(nvd, dir, e, n, text, len) : -1;
  remove_cubins(dir, e, n);
  if (rc) {
    free(*text);
    snprintf(err, errlen, "%s: %s", path, n == 0 ? "no cubin in it (no CUDA machine code, or PTX only)"
                                          : "cuobjdump -xelf or nvdisasm failed on it");
    return KG_DIS_BAD;
  }
  return KG_DIS_OK;
}

kg_dis_rc kg_dis_cubins(const char *path, kg_dis_cubin_fn each, void *ctx, char *err, size_t errlen) {
  char cuo[4096], dir[] = "/tmp/kgate-code-XXXXXX";
  if (find_tool("cuobjdump", "KGATE_CUOBJDUMP", cuo, sizeof cuo))
    return snprintf(err, errlen, "%s: reading its cubins needs cuobjdump from the CUDA toolkit (not found)", path),
           KG_DIS_NO_TOOL;
  struct dirent **e = NULL;
  int n = 0, rc = 0;
  if (extract_cubins(cuo, path, dir, &e, &n))
    return snprintf(err, errlen, "%s: cuobjdump -xelf failed on it", path), KG_DIS_BAD;
  for (int k = 0; !rc && k < n; k++) {
    char f[PATH_MAX + 300];
    snprintf(f, sizeof f, "%s/%s", dir, e[k]->d_name);
    FILE *in = fopen(f, "rb");
    char *data = NULL;
    size_t len = 0;
    rc = in ? read_all(in, &data, &len) : -1;
    if (in) fclose(in);
    if (rc) snprintf(err, errlen, "%s: cannot read its cubin %s", path, e[k]->d_name);
    else if ((rc = each(e[k]->d_name, data, len, ctx))) snprintf(err, errlen, "%s: its cubin %s", path, e[k]->d_name);
    free(data);
  }
  remove_cubins(dir, e, n);
  return rc ? KG_DIS_BAD : KG_DIS_OK;
}

static kg_dis_rc disassemble(const char *path, int cubin, char **text, size_t *len, char *err, size_t errlen) {
  char tool[4096], nvd[4096];
  int have_nvd = !find_tool("nvdisasm", "KGATE_NVDISASM", nvd, sizeof nvd);
  if (cubin && have_nvd) {
    char *argv[] = {nvd, "-c", "-g", (char *)path, NULL};
    return run_tool(argv, path, text, len, err, errlen);
  }
  if (!cubin && have_nvd && !find_tool("cuobjdump", "KGATE_CUOBJDUMP", tool, sizeof tool))
    return host_binary(tool, nvd, path, text, len, err, errlen);
  if (!find_tool("cuobjdump", "KGATE_CUOBJDUMP", tool, sizeof tool)) {
    char *argv[] = {tool, "-sass", (char *)path, NULL};
    return run_tool(argv, path, text, len, err, errlen);
  }
  snprintf(err, errlen,
           "%s is machine code (%s): reading it needs %s from the CUDA toolkit, not found on PATH, in $CUDA_HOME/bin "
           "or /usr/local/cuda/bin; give kgate lint the text that cuobjdump -sass or nvdisasm -c printed instead",
           path, cubin ? "a cubin" : "a host binary", cubin ? "nvdisasm or cuobjdump" : "cuobjdump");
  return KG_DIS_NO_TOOL;
}

/* The text is what kgate prints and stores, so it must be text: a control
 * byte (ESC and its sequences, a carriage return, NUL) or a byte that is not
 * UTF-8 is refused, naming the line; tabs and line ends are a listing's own.
 * No disassembler prints either, so such a file is no listing of theirs. */
static kg_dis_rc text_only(const char *path, char *t, size_t len, char *err, size_t errlen) {
  char *line = NULL;
  size_t cap = 0;
  int lineno = 1, bad = 0;
  for (size_t at = 0; at < len && !bad; lineno++) {
    const char *nl = memchr(t + at, '\n', len - at);
    size_t n = nl ? (size_t)(nl - (t + at)) : len - at;
    if (n + 1 > cap) {
      char *q = realloc(line, n + 1);
      if (!q) return free(line), snprintf(err, errlen, "%s: out of memory", path), KG_DIS_BAD;
      line = q, cap = n + 1;
    }
    unsigned char first = 0;
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)t[at + i];
      if ((c < 0x20 && c != '\t') || c == 0x7f) first = first ? first : c, bad = 1;
      line[i] = c == '\t' ? ' ' : (char)c; /* kg_has_control takes a tab for a control character */
    }
    line[n] = '\0';
    if (bad || kg_has_control(line)) {
      if (bad)
        snprintf(err, errlen, "%s: line %d holds the control byte 0x%02x: not a SASS listing", path, lineno, first);
      else
        snprintf(err, errlen,
                 "%s: line %d holds a C1 control character or bytes that are not UTF-8: not a SASS listing", path,
                 lineno);
      bad = 1;
    }
    at += n + 1;
  }
  free(line);
  return bad ? KG_DIS_BAD : KG_DIS_OK;
}

/* The file or the tool's output, whichever path names, then judged as text. */
static kg_dis_rc read_any(const char *path, char **text, size_t *len, char *err, size_t errlen) {
  /* kg_in_open: a FIFO, a device or a directory is refused before any read,
   * and opening a FIFO with no writer does not block (O_NONBLOCK). */
  int fd;
  if (kg_in_open(path, KG_DIS_MAX, &fd, err, errlen)) return KG_DIS_BAD;
  unsigned char head[20] = {0};
  ssize_t got;
  while ((got = read(fd, head, sizeof head)) < 0 && errno == EINTR) {
  }
  if (got <= 0) {
    snprintf(err, errlen, got ? "%s: cannot read it: %s" : "%s: empty file", path, strerror(errno));
    return close(fd), KG_DIS_BAD;
  }
  if ((size_t)got >= sizeof head && !memcmp(head, "\177ELF", 4)) {
    close(fd);
    return disassemble(path, (head[18] | head[19] << 8) == EM_CUDA, text, len, err, errlen);
  }
  FILE *f = lseek(fd, 0, SEEK_SET) == 0 ? fdopen(fd, "rb") : NULL;
  int rc = f ? read_all(f, text, len) : -1;
  if (f) fclose(f);
  else close(fd);
  if (rc) return snprintf(err, errlen, "%s: cannot read it (or out of memory)", path), KG_DIS_BAD;
  return KG_DIS_OK;
}

kg_dis_rc kg_dis_read(const char *path, char **text, size_t *len, char *err, size_t errlen) {
  kg_dis_rc rc = read_any(path, text, len, err, errlen);
  if (rc == KG_DIS_OK && (rc = text_only(path, *text, *len, err, errlen)) != KG_DIS_OK) free(*text), *text = NULL;
  return rc;
}
