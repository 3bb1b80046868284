#include "sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suggest.h"

static const char *const k_tools[KG_NSAN] = {"memcheck", "racecheck", "synccheck", "initcheck"};

const char *kg_san_tool_name(kg_san_tool t) { return (unsigned)t < KG_NSAN ? k_tools[t] : "?"; }

int kg_san_parse_tools(const char *list, unsigned *mask, char *err, size_t errlen) {
  *mask = 0;
  const char *p = list;
  for (;;) {
    size_t len = strcspn(p, ",");
    int found = -1;
    if (len == 3 && !strncmp(p, "all", 3)) {
      *mask = (1u << KG_NSAN) - 1;
      found = 0;
    }
    for (int t = 0; t < KG_NSAN && found < 0; t++)
      if (strlen(k_tools[t]) == len && !strncmp(p, k_tools[t], len)) {
        *mask |= 1u << t;
        found = t;
      }
    if (found < 0) {
      char item[64];
      snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
      kg_suggest near;
      kg_suggest_init(&near, item);
      kg_suggest_add(&near, "all");
      for (int t = 0; t < KG_NSAN; t++) kg_suggest_add(&near, k_tools[t]);
      const char *best = kg_suggest_best(&near);
      snprintf(err, errlen, "unknown sanitizer tool '%.*s'%s%s%s (memcheck, racecheck, synccheck, initcheck)", (int)len,
               p, best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
      return -1;
    }
    if (!p[len]) break;
    p += len + 1;
  }
  return 0;
}

static int executable(const char *path) { return access(path, X_OK) == 0; }

int kg_san_find(char *path, size_t len, char *err, size_t errlen) {
  const char *env = getenv("KGATE_COMPUTE_SANITIZER");
  if (env && *env) {
    if (executable(env)) {
      snprintf(path, len, "%s", env);
      return 0;
    }
    snprintf(err, errlen, "KGATE_COMPUTE_SANITIZER=%s is not an executable program", env);
    return -1;
  }
  const char *dirs = getenv("PATH");
  char *copy = strdup(dirs ? dirs : "");
  if (copy) {
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
      snprintf(path, len, "%s/compute-sanitizer", *d ? d : ".");
      if (executable(path)) {
        free(copy);
        return 0;
      }
    }
    free(copy);
  }
  const char *home = getenv("CUDA_HOME");
  if (home && *home) {
    snprintf(path, len, "%s/bin/compute-sanitizer", home);
    if (executable(path)) return 0;
  }
  snprintf(path, len, "/usr/local/cuda/bin/compute-sanitizer");
  if (executable(path)) return 0;
  snprintf(err, errlen,
           "compute-sanitizer not found (looked in $KGATE_COMPUTE_SANITIZER, $PATH, $CUDA_HOME/bin, "
           "/usr/local/cuda/bin): --sanitize needs the CUDA toolkit's compute-sanitizer");
  path[0] = '\0';
  return -1;
}

char **kg_san_argv(const char *sanitizer, kg_san_tool t, const char *log, char *const *worker_argv) {
  size_t nw = 0;
  while (worker_argv[nw]) nw++;
  char **v = malloc((nw + 14) * sizeof *v);
  if (!v) return NULL;
  size_t k = 0;
  v[k++] = (char *)sanitizer;
  v[k++] = "--tool";
  v[k++] = (char *)kg_san_tool_name(t);
  v[k++] = "--error-exitcode";
  v[k++] = "86"; /* KG_SAN_EXIT */
  v[k++] = "--print-limit";
  v[k++] = "10";
  v[k++] = "--log-file"; /* its reports would otherwise go to stdout: the protocol's pipe */
  v[k++] = (char *)log;
  if (t == KG_SAN_MEMCHECK) {
    v[k++] = "--padding";
    v[k++] = KG_SAN_PADDING;
  }
  for (size_t i = 0; i < nw; i++) v[k++] = worker_argv[i];
  v[k] = NULL;
  return v;
}

static const char k_prefix[] = "=========";

/* Copies the first "path.ext:line" in s[0..len) (basename only) to out. */
static int file_line(const char *s, size_t len, char *out, size_t outlen) {
  static const char *const exts[] = {".cu:", ".cuh:", ".c:", ".h:", ".cpp:", ".hpp:"};
  for (size_t i = 0; i < len; i++)
    for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++) {
      size_t el = strlen(exts[e]);
      if (i + el >= len || strncmp(s + i, exts[e], el) || s[i + el] < '0' || s[i + el] > '9') continue;
      size_t start = i;
      while (start > 0 && s[start - 1] != ' ' && s[start - 1] != '/' && s[start - 1] != '\t') start--;
      size_t end = i + el;
      while (end < len && s[end] >= '0' && s[end] <= '9') end++;
      snprintf(out, outlen, "%.*s", (int)(end - start), s + start);
      return 1;
    }
  return 0;
}

static int starts(const char *s, size_t len, const char *word) {
  size_t w = strlen(word);
  return len >= w && !strncmp(s, word, w);
}

/* A detail line under the first error's headline: its first file:line (not
 * a host frame's, which is kgate's own code) completes the headline. 1 when
 * it did. */
static int add_where(const char *msg, size_t ml, kg_san_report *r) {
  char where[160];
  if (starts(msg, ml, "Host Frame") || !file_line(msg, ml, where, sizeof where)) return 0;
  size_t used = strlen(r->first);
  snprintf(r->first + used, sizeof r->first - used, " at %s", where);
  return 1;
}

/* The error count a summary line states; 1 when msg is one. */
static int summary_line(const char *msg, size_t ml, kg_san_report *r) {
  if (starts(msg, ml, "ERROR SUMMARY:")) {
    r->summary_errors = atoi(msg + strlen("ERROR SUMMARY:"));
    return 1;
  }
  if (starts(msg, ml, "RACECHECK SUMMARY:")) {
    const char *paren = memchr(msg, '(', ml);
    r->summary_errors = paren ? atoi(paren + 1) : 0;
    return 1;
  }
  return 0;
}

/* compute-sanitizer's own banners and notes: no error. */
static int chatter(const char *msg, size_t ml) {
  return starts(msg, ml, "COMPUTE-SANITIZER") || starts(msg, ml, "Warning:") || starts(msg, ml, "Note:") ||
         starts(msg, ml, "LEAK SUMMARY") || starts(msg, ml, "Target application returned") ||
         starts(msg, ml, "Saved host backtrace");
}

/* The first error's headline into r->first. 1 when it names no file:line
 * (a detail line below it may). */
static int first_error(const char *msg, size_t ml, kg_san_report *r) {
  if (starts(msg, ml, "Error: ")) msg += 7, ml -= 7;
  /* racecheck names the second access on the next line; its first suffices */
  snprintf(r->first, sizeof r->first, "%.*s", (int)(ml < 150 ? ml : 150), msg);
  char where[160];
  const char *in = NULL;
  for (size_t i = 0; i + 4 <= ml && !in; i++)
    if (!strncmp(msg + i, " in ", 4)) in = msg + i;
  if (!in || !file_line(in, ml - (size_t)(in - msg), where, sizeof where)) return 1;
  /* the headline itself names the place (racecheck): shorten to "<what> at file:line" */
  const char *at = NULL;
  for (size_t i = 0; i + 4 <= ml && !at; i++)
    if (!strncmp(msg + i, " at ", 4)) at = msg + i;
  size_t keep = at ? (size_t)(at - msg) : ml;
  snprintf(r->first, sizeof r->first, "%.*s at %s", (int)(keep < 150 ? keep : 150), msg, where);
  return 0;
}

void kg_san_parse(const char *text, size_t len, kg_san_report *r) {
  memset(r, 0, sizeof *r);
  r->summary_errors = -1;
  int want_where = 0; /* the first error's headline still lacks its file:line */
  size_t pl = sizeof k_prefix - 1;
  for (size_t at = 0; at < len;) {
    const char *line = text + at;
    const char *nl = memchr(line, '\n', len - at);
    size_t ll = nl ? (size_t)(nl - line) : len - at;
    at += ll + (nl != NULL);
    if (ll && line[ll - 1] == '\r') ll--;
    if (!starts(line, ll, k_prefix)) continue;
    const char *body = line + pl;
    size_t bl = ll - pl;
    size_t indent = 0;
    while (indent < bl && body[indent] == ' ') indent++;
    const char *msg = body + indent;
    size_t ml = bl - indent;
    if (!ml) continue;
    if (indent > 1) { /* detail of the last headline */
      if (want_where && add_where(msg, ml, r)) want_where = 0;
      continue;
    }
    if (summary_line(msg, ml, r) || chatter(msg, ml)) continue;
    r->errors++;
    if (r->errors == 1) want_where = first_error(msg, ml, r);
  }
}

int kg_san_dirty(const kg_san_report *r) { return r->errors > 0 || r->summary_errors > 0; }

int kg_san_scan(const char *text, size_t len, char *first, size_t firstlen) {
  kg_san_report r;
  kg_san_parse(text, len, &r);
  if (firstlen) snprintf(first, firstlen, "%s", r.first);
  return kg_san_dirty(&r);
}
