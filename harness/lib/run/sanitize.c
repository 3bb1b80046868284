#include "sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suggest.h"
#include "waiver.h"

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

/* The count at s[0 .. len) (the log is not NUL-terminated): digits after
 * spaces, at most 9 of them; 0 when none. */
static int count_at(const char *s, size_t len) {
  size_t i = 0;
  int v = 0;
  while (i < len && s[i] == ' ') i++;
  for (int k = 0; i < len && k < 9 && s[i] >= '0' && s[i] <= '9'; i++, k++) v = v * 10 + (s[i] - '0');
  return v;
}

/* The error count a summary line states; 1 when msg is one. */
static int summary_line(const char *msg, size_t ml, kg_san_report *r) {
  size_t k = strlen("ERROR SUMMARY:");
  if (starts(msg, ml, "ERROR SUMMARY:")) {
    r->summary_errors = count_at(msg + k, ml - k);
    return 1;
  }
  if (starts(msg, ml, "RACECHECK SUMMARY:")) {
    const char *paren = memchr(msg, '(', ml);
    r->summary_errors = paren ? count_at(paren + 1, ml - (size_t)(paren + 1 - msg)) : 0;
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

static const char *find_in(const char *s, size_t len, const char *word) {
  size_t w = strlen(word);
  for (size_t i = 0; i + w <= len; i++)
    if (!strncmp(s + i, word, w)) return s + i;
  return NULL;
}

/* One report while it is read: its headline, then the kernel and the place
 * that it or the first detail line naming a device frame gives ("at void
 * k<int>(int *)+0x2c0 in /src/x.cu:18"). */
typedef struct pending {
  int open;
  char headline[160];
  char kernel[128]; /* the function's name: its identifier before '<' or '(' */
  char where[160];  /* "x.cu:18", "" none */
} pending;

/* The kernel and place of a frame "at FUNCTION+0x.. in FILE:LINE" in s; 1 when it has a place. */
static int frame(const char *s, size_t len, pending *p) {
  const char *at = starts(s, len, "at ") ? s : find_in(s, len, " at ");
  if (!at) return 0;
  at += at == s ? 3 : 4;
  const char *in = find_in(at, len - (size_t)(at - s), " in ");
  char where[160];
  if (!in || !file_line(in, len - (size_t)(in - s), where, sizeof where)) return 0;
  char fn[512];
  snprintf(fn, sizeof fn, "%.*s", (int)(in - at < 511 ? in - at : 511), at);
  for (char *q; (q = strstr(fn, "(anonymous namespace)::"));) memmove(q, q + 23, strlen(q + 23) + 1);
  size_t end = strcspn(fn, "<(+"), start = end;
  while (start > 0 && (fn[start - 1] == '_' || (fn[start - 1] >= '0' && fn[start - 1] <= '9') ||
                       ((fn[start - 1] | 0x20) >= 'a' && (fn[start - 1] | 0x20) <= 'z')))
    start--;
  snprintf(p->kernel, sizeof p->kernel, "%.*s", (int)(end - start), fn + start);
  snprintf(p->where, sizeof p->where, "%s", where);
  return 1;
}

/* A report read whole: waived (its tool, kernel and place have a waiver), or an
 * error, the first of which r->first describes ("<headline> at file:line"). */
static void close_report(pending *p, const char *tool, const kg_san_waivers *w, kg_san_report *r) {
  if (!p->open) return;
  p->open = 0;
  const kg_san_waiver *x = tool && p->where[0] ? kg_san_waiver_find(w, tool, p->kernel, p->where) : NULL;
  if (x) {
    if (!r->waived++) r->waived_reason = x->reason;
    return;
  }
  if (!r->errors++)
    snprintf(r->first, sizeof r->first, "%.150s%s%.90s", p->headline, p->where[0] ? " at " : "", p->where);
}

void kg_san_parse_waived(const char *text, size_t len, const char *tool, const kg_san_waivers *w, kg_san_report *r) {
  memset(r, 0, sizeof *r);
  r->summary_errors = -1;
  pending p = {0};
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
    if (indent > 1) { /* detail of the last headline: its first device frame names the place */
      if (p.open && !p.where[0] && !starts(msg, ml, "Host Frame")) frame(msg, ml, &p);
      continue;
    }
    close_report(&p, tool, w, r);
    if (summary_line(msg, ml, r) || chatter(msg, ml)) continue;
    /* a new report; racecheck's headline names the first access's place, the next line the second's */
    if (starts(msg, ml, "Error: ")) msg += 7, ml -= 7;
    memset(&p, 0, sizeof p), p.open = 1;
    if (frame(msg, ml, &p)) {
      const char *a = find_in(msg, ml, " at ");
      ml = a ? (size_t)(a - msg) : ml;
    }
    snprintf(p.headline, sizeof p.headline, "%.*s", (int)(ml < 150 ? ml : 150), msg);
  }
  close_report(&p, tool, w, r);
}

void kg_san_parse(const char *text, size_t len, kg_san_report *r) { kg_san_parse_waived(text, len, NULL, NULL, r); }

/* Reports past the print limit are counted in the summary but never shown:
 * those cannot be known waived. */
int kg_san_dirty(const kg_san_report *r) { return r->errors > 0 || r->summary_errors > r->waived; }

int kg_san_scan(const void *ctx, int variant, const char *text, size_t len, char *first, size_t firstlen) {
  const kg_san_scope *s = ctx;
  kg_san_report r;
  kg_san_parse_waived(text, len, s ? s->tool : NULL, s && s->waivers_of ? s->waivers_of(s->ctx, variant) : NULL, &r);
  int dirty = kg_san_dirty(&r);
  if (firstlen && dirty) snprintf(first, firstlen, "%s", r.first);
  else if (firstlen && r.waived)
    snprintf(first, firstlen, "waived: %.150s (%d report%s)", r.waived_reason, r.waived, r.waived == 1 ? "" : "s");
  else if (firstlen) first[0] = '\0';
  return dirty;
}
