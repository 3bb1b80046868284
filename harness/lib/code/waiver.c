/* The lint's waivers: names, the module's table, its reading (waiver.h). */
#include "waiver.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "kgate/module.h"

/* ---- kernel names ---- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_lower(char c) { return c >= 'a' && c <= 'z'; }
static int ident_start(char c) { return (c >= 'A' && c <= 'Z') || is_lower(c) || c == '_'; }

/* <source-name>: a length, then that many characters. *p moves past it. */
static int source_name(const char **p, const char **name, size_t *n) {
  size_t len = 0;
  if (!is_digit(**p)) return -1;
  for (; is_digit(**p); (*p)++) {
    len = len * 10 + (size_t)(**p - '0');
    if (len > 4096) return -1;
  }
  if (strnlen(*p, len) < len) return -1;
  *name = *p, *n = len, *p += len;
  return 0;
}

/* Skips one bracketed part from an opener (I, N, X, J, Z, L, Ul) to its E,
 * stepping over names by their length. Enough for the template arguments of
 * a nested name; what it cannot follow fails, and the kernel is not waived. */
static int skip_group(const char **pp) {
  const char *p = *pp, *nm;
  size_t n;
  int depth = 0;
  do {
    char c = *p;
    if (!c) return -1;
    if (is_digit(c)) {
      if (source_name(&p, &nm, &n)) return -1;
    } else if (c == 'I' || c == 'N' || c == 'X' || c == 'J' || c == 'Z') {
      depth++, p++;
    } else if (c == 'U' && p[1] == 'l') {
      depth++, p += 2;
    } else if (c == 'L') { /* a literal: its type, then its value up to E; or L_Z, an entity */
      depth++, p++;
      if (p[0] == '_' && p[1] == 'Z') p += 2;
      else {
        if (is_digit(*p) && source_name(&p, &nm, &n)) return -1;
        while (*p && *p != 'E') p++;
      }
    } else if (c == 'E') {
      depth--, p++;
    } else if (c == 'S' || c == 'T' || (c == 'U' && p[1] == 't') || (c == 'D' && p[1] == 'v')) {
      p++; /* a substitution or template parameter (S_, S0_, T_), St, Sa...; Ut_, Dv4_ */
      if (c == 'S' && is_lower(*p)) p++;
      else {
        while (*p && *p != '_') p++;
        if (*p) p++;
      }
    } else if (c == 'D') {
      p += p[1] ? 2 : 1;
    } else {
      p++;
    }
  } while (depth > 0);
  *pp = p;
  return 0;
}

int kg_lint_kernel_name(const char *sym, char *buf, size_t len) {
  const char *name = NULL, *p = sym + 2;
  size_t n = 0;
  if (strncmp(sym, "_Z", 2)) {
    name = sym, n = strlen(sym);
  } else {
    if (*p == 'L') p++; /* internal linkage */
    if (*p == 'N') {    /* a nested name: its last name, before E */
      for (p++; *p && strchr("rVKRO", *p); p++) {
      }
      while (*p && *p != 'E') {
        if (is_digit(*p)) {
          if (source_name(&p, &name, &n)) return -1;
        } else if (*p == 'B') { /* an ABI tag after a name */
          const char *tag;
          size_t tn;
          p++;
          if (source_name(&p, &tag, &tn)) return -1;
        } else if (*p == 'I') {
          if (skip_group(&p)) return -1;
        } else if (*p == 'S' && is_lower(p[1])) { /* St, Sa...: a prefix, not the name */
          p += 2, name = NULL;
        } else if (*p == 'S' || *p == 'T') { /* a substitution: a prefix */
          while (*p && *p != '_') p++;
          if (*p) p++;
          name = NULL;
        } else {
          return -1; /* a constructor, an operator, a local name: no kernel's */
        }
      }
      if (*p != 'E') return -1;
    } else {
      if (p[0] == 'S' && p[1] == 't') p += 2;
      if (source_name(&p, &name, &n)) return -1;
    }
  }
  if (!name || !n || n >= len) return -1;
  memcpy(buf, name, n), buf[n] = '\0';
  return 0;
}

int kg_lint_waiver_applies(const kg_lint_waiver *w, const char *symbol) {
  char name[KG_WAIVER_NAME_MAX + 1];
  return w->kernel && w->kernel[0] && !kg_lint_kernel_name(symbol, name, sizeof name) && !strcmp(name, w->kernel);
}

/* ---- the table ---- */

static const char *why_bad_name(const char *s) {
  size_t n = strlen(s);
  if (!n || n > KG_WAIVER_NAME_MAX || !ident_start(s[0])) return "is not [A-Za-z_][A-Za-z0-9_]*, 1..127 characters";
  for (size_t i = 1; i < n; i++)
    if (!ident_start(s[i]) && !is_digit(s[i])) return "is not [A-Za-z_][A-Za-z0-9_]*, 1..127 characters";
  return NULL;
}

static const char *why_bad_reason(const char *s) {
  size_t n = strlen(s);
  if (!n) return "is missing (every waiver says why)";
  if (n > KG_WAIVER_REASON_MAX) return "is longer than 199 characters";
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e) return "is not printable ASCII";
  return NULL;
}

/* The start of s, cut and escaped, for an error line. */
static const char *shown(const char *s, char *out, size_t len) {
  char head[48];
  snprintf(head, sizeof head, "%s", s);
  return kg_esc_term(head, out, len);
}

/* A module's table (kgate/module.h): tag and NUL, then records of nf strings
 * each until an empty one, then NULs only. The bytes are copied into *text;
 * each record goes to add (1-based k), which stores it, or fills err and
 * returns -1. 0, or -1 with err "<where>: <the field and what is wrong>". */
typedef int (*add_fn)(void *ctx, const char *const *f, size_t k, const char *where, char *err, size_t errlen);
static int walk_table(const char *where, const char *tag, size_t max, int nf, const char *b, size_t len, char **text,
                      add_fn add, void *ctx, char *err, size_t errlen) {
  char s1[200];
  *text = NULL;
  if (!len || b[len - 1]) return snprintf(err, errlen, "%s: does not end in a NUL (cut short?)", where), -1;
  if (strcmp(b, tag))
    return snprintf(err, errlen, "%s: starts '%s', this kgate reads '%s'", where, shown(b, s1, sizeof s1), tag), -1;
  if (!(*text = malloc(len))) return snprintf(err, errlen, "%s: out of memory", where), -1;
  memcpy(*text, b, len);
  size_t at = strlen(b) + 1, k = 0;
  int bad = 0;
  while (!bad && at < len && (*text)[at]) {
    const char *f[4] = {"", "", "", ""};
    for (int j = 0; j < nf && j < 4 && at < len; j++) f[j] = *text + at, at += strlen(f[j]) + 1;
    if (++k > max) snprintf(err, errlen, "%s: more than %zu waivers", where, max), bad = 1;
    else bad = add(ctx, f, k, where, err, errlen) != 0;
  }
  for (size_t i = at; !bad && i < len; i++) /* after the empty name: the array's own NULs only */
    if ((*text)[i])
      snprintf(err, errlen, "%s: bytes after its end ('%s')", where, shown(*text + i, s1, sizeof s1)), bad = 1;
  return bad ? -1 : 0;
}

static int add_lint(void *ctx, const char *const *f, size_t k, const char *where, char *err, size_t errlen) {
  kg_lint_waivers *out = ctx;
  char s1[200];
  const char *why;
  if ((why = why_bad_name(f[0])))
    return snprintf(err, errlen, "%s: waiver %zu: kernel name '%s' %s", where, k, shown(f[0], s1, sizeof s1), why), -1;
  if ((why = why_bad_reason(f[1])))
    return snprintf(err, errlen, "%s: waiver %zu (%s): reason %s", where, k, f[0], why), -1;
  for (size_t i = 0; i < out->n; i++)
    if (!strcmp(out->w[i].kernel, f[0]))
      return snprintf(err, errlen, "%s: waiver %zu: kernel %s is listed twice", where, k, f[0]), -1;
  out->w[out->n++] = (kg_lint_waiver){f[0], f[1]};
  return 0;
}

int kg_lint_waivers_parse(const char *b, size_t len, kg_lint_waivers *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (!(out->w = calloc(KG_MODULE_LINT_WAIVERS_MAX, sizeof *out->w)))
    return snprintf(err, errlen, "kgate_module_lint_waivers: out of memory"), -1;
  if (!walk_table("kgate_module_lint_waivers", KG_MODULE_LINT_WAIVERS_TAG, KG_MODULE_LINT_WAIVERS_MAX, 2, b, len,
                  &out->text, add_lint, out, err, errlen))
    return 0;
  kg_lint_waivers_free(out);
  return -1;
}

void kg_lint_waivers_free(kg_lint_waivers *w) {
  free(w->w);
  free(w->text);
  memset(w, 0, sizeof *w);
}

/* ---- the table in a module's file ---- */

/* More than any module's dynamic symbols or table: past it, the headers lie. */
#define KG_WAIVER_DYN_MAX ((size_t)16 << 20)
#define KG_WAIVER_TABLE_MAX ((size_t)1 << 17)

/* len bytes of fd at off into a new buffer: NULL when they are not all in the file. */
static void *read_at(int fd, uint64_t off, uint64_t len, uint64_t size) {
  if (off > size || len > size - off) return NULL;
  char *b = malloc(len ? len : 1);
  for (uint64_t got = 0; b && got < len;) {
    ssize_t r = pread(fd, b + got, len - got, (off_t)(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) free(b), b = NULL;
    else got += (uint64_t)r;
  }
  return b;
}

/* The table's bytes in *tab (malloc'ed) and their count, or *tab NULL for
 * none. NULL, or why the file's headers are bad. */
static const char *find_table(int fd, uint64_t size, const char *symbol, char **tab, size_t *tlen) {
  Elf64_Ehdr h;
  *tab = NULL;
  if (size < sizeof h || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h) return NULL;
  if (memcmp(h.e_ident, ELFMAG, SELFMAG) || h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_ident[EI_DATA] != ELFDATA2LSB ||
      h.e_machine == 190 /* EM_CUDA: a cubin */ || !h.e_shnum)
    return NULL; /* not a host module of this kgate's kind: no table */
  if (h.e_shentsize != sizeof(Elf64_Shdr)) return "section headers of an unknown size";
  Elf64_Shdr *sh = read_at(fd, h.e_shoff, (uint64_t)h.e_shnum * sizeof *sh, size);
  if (!sh) return "section headers past the end of the file";
  const char *why = NULL;
  Elf64_Sym *sym = NULL;
  char *str = NULL;
  for (unsigned i = 0; i < h.e_shnum && !why && !*tab; i++) {
    if (sh[i].sh_type != SHT_DYNSYM) continue;
    if (sh[i].sh_link >= h.e_shnum || sh[i].sh_size > KG_WAIVER_DYN_MAX || sh[i].sh_entsize != sizeof *sym ||
        sh[sh[i].sh_link].sh_size > KG_WAIVER_DYN_MAX || !sh[sh[i].sh_link].sh_size ||
        !(sym = read_at(fd, sh[i].sh_offset, sh[i].sh_size, size)) ||
        !(str = read_at(fd, sh[sh[i].sh_link].sh_offset, sh[sh[i].sh_link].sh_size, size))) {
      why = "a dynamic symbol table past the end of the file";
      break;
    }
    uint64_t nstr = sh[sh[i].sh_link].sh_size;
    str[nstr - 1] = '\0';
    for (uint64_t k = 0; k < sh[i].sh_size / sizeof *sym && !why && !*tab; k++) {
      const Elf64_Sym *y = &sym[k];
      if (y->st_name >= nstr || strcmp(str + y->st_name, symbol) || y->st_shndx == SHN_UNDEF)
        continue;
      const Elf64_Shdr *s = y->st_shndx < h.e_shnum ? &sh[y->st_shndx] : NULL;
      if (!s || s->sh_type == SHT_NOBITS || y->st_value < s->sh_addr || y->st_size > KG_WAIVER_TABLE_MAX ||
          y->st_value - s->sh_addr > s->sh_size || y->st_size > s->sh_size - (y->st_value - s->sh_addr) ||
          !(*tab = read_at(fd, s->sh_offset + (y->st_value - s->sh_addr), y->st_size, size)))
        why = "its symbol points outside the file, or at more than 128 KiB";
      *tlen = y->st_size;
    }
  }
  free(sym), free(str), free(sh);
  return why;
}

/* The bytes of the table symbol that the module at path exports: *tab NULL
 * for none. 0, or -1 with err naming path and the symbol. */
static int read_table(const char *path, const char *symbol, char **tab, size_t *tlen, char *err, size_t errlen) {
  char name[1024];
  kg_esc_term(path, name, sizeof name);
  *tab = NULL, *tlen = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  if (fd < 0 || fstat(fd, &st)) {
    snprintf(err, errlen, "cannot read %s: %s", name, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  const char *bad = S_ISREG(st.st_mode) ? find_table(fd, (uint64_t)st.st_size, symbol, tab, tlen) : NULL;
  close(fd);
  if (bad) snprintf(err, errlen, "%s: %s: %s", name, symbol, bad);
  return bad ? -1 : 0;
}

int kg_lint_waivers_read(const char *path, kg_lint_waivers *out, char *err, size_t errlen) {
  char *tab, why[600], name[1024];
  size_t tlen;
  memset(out, 0, sizeof *out);
  if (read_table(path, "kgate_module_lint_waivers", &tab, &tlen, err, errlen)) return -1;
  int rc = 0;
  if (tab && kg_lint_waivers_parse(tab, tlen, out, why, sizeof why))
    snprintf(err, errlen, "%s: %s", kg_esc_term(path, name, sizeof name), why), rc = -1;
  free(tab);
  return rc;
}

/* ---- the sanitizer's waivers ---- */

static const char *why_bad_tool(const char *s) {
  static const char *const k[] = {"memcheck", "racecheck", "synccheck", "initcheck"};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (!strcmp(s, k[i])) return NULL;
  return "is not memcheck, racecheck, synccheck or initcheck";
}

/* "reduce.h:283": a file's last part ([A-Za-z0-9_.+-], with a dot), a colon, a line 1..99999999. */
static const char *why_bad_where(const char *s) {
  const char *colon = strrchr(s, ':'), *bad = "is not FILE:LINE (a file's last part, as reduce.h:283)";
  if (!colon || colon == s || colon - s > 120 || !memchr(s, '.', (size_t)(colon - s))) return bad;
  for (const char *p = s; p < colon; p++)
    if (!ident_start(*p) && !is_digit(*p) && !strchr(".+-", *p)) return bad;
  size_t n = strlen(colon + 1);
  if (!n || n > 8 || colon[1] == '0') return bad;
  for (const char *p = colon + 1; *p; p++)
    if (!is_digit(*p)) return bad;
  return NULL;
}

static int add_san(void *ctx, const char *const *f, size_t k, const char *where, char *err, size_t errlen) {
  kg_san_waivers *out = ctx;
  char s1[200];
  const char *why;
  if ((why = why_bad_tool(f[0])))
    return snprintf(err, errlen, "%s: waiver %zu: tool '%s' %s", where, k, shown(f[0], s1, sizeof s1), why), -1;
  if ((why = why_bad_name(f[1])))
    return snprintf(err, errlen, "%s: waiver %zu: kernel name '%s' %s", where, k, shown(f[1], s1, sizeof s1), why), -1;
  if ((why = why_bad_where(f[2])))
    return snprintf(err, errlen, "%s: waiver %zu (%s): place '%s' %s", where, k, f[1], shown(f[2], s1, sizeof s1), why),
           -1;
  if ((why = why_bad_reason(f[3])))
    return snprintf(err, errlen, "%s: waiver %zu (%s): reason %s", where, k, f[1], why), -1;
  if (kg_san_waiver_find(out, f[0], f[1], f[2]))
    return snprintf(err, errlen, "%s: waiver %zu: %s %s at %s is listed twice", where, k, f[0], f[1], f[2]), -1;
  out->w[out->n++] = (kg_san_waiver){f[0], f[1], f[2], f[3]};
  return 0;
}

int kg_san_waivers_parse(const char *b, size_t len, kg_san_waivers *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (!(out->w = calloc(KG_MODULE_SANITIZER_WAIVERS_MAX, sizeof *out->w)))
    return snprintf(err, errlen, "kgate_module_sanitizer_waivers: out of memory"), -1;
  if (!walk_table("kgate_module_sanitizer_waivers", KG_MODULE_SANITIZER_WAIVERS_TAG, KG_MODULE_SANITIZER_WAIVERS_MAX, 4,
                  b, len, &out->text, add_san, out, err, errlen))
    return 0;
  kg_san_waivers_free(out);
  return -1;
}

int kg_san_waivers_read(const char *path, kg_san_waivers *out, char *err, size_t errlen) {
  char *tab, why[600], name[1024];
  size_t tlen;
  memset(out, 0, sizeof *out);
  if (read_table(path, "kgate_module_sanitizer_waivers", &tab, &tlen, err, errlen)) return -1;
  int rc = 0;
  if (tab && kg_san_waivers_parse(tab, tlen, out, why, sizeof why))
    snprintf(err, errlen, "%s: %s", kg_esc_term(path, name, sizeof name), why), rc = -1;
  free(tab);
  return rc;
}

void kg_san_waivers_free(kg_san_waivers *w) {
  free(w->w);
  free(w->text);
  memset(w, 0, sizeof *w);
}

const kg_san_waiver *kg_san_waiver_find(const kg_san_waivers *w, const char *tool, const char *kernel,
                                        const char *where) {
  for (size_t i = 0; w && i < w->n; i++)
    if (!strcmp(w->w[i].tool, tool) && !strcmp(w->w[i].kernel, kernel) && !strcmp(w->w[i].where, where))
      return &w->w[i];
  return NULL;
}
