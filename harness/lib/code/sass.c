#include "sass.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A label of nvdisasm's (".L_x_3:") and the address of the instruction after it. */
typedef struct label {
  char *name;
  unsigned addr;
} label;

typedef struct parser {
  kg_sass_listing *l;
  int arch;
  int unit, fresh; /* the cubin's number; fresh: its heading seen, no function yet */
  const char *file; /* the last "//## File" seen: the next instructions' source */
  int line;
  label *labels; /* the current function's */
  int nlabels, cap, pending; /* pending: labels not yet given an address */
  char *err;
  size_t errlen;
} parser;

static int grow(void **p, int *cap, int need, size_t size) {
  if (need <= *cap) return 0;
  int c = *cap ? *cap * 2 : 16;
  while (c < need) c *= 2;
  void *q = realloc(*p, (size_t)c * size);
  if (!q) return -1;
  *p = q, *cap = c;
  return 0;
}

static char *dup_n(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n), d[n] = '\0';
  return d;
}

int kg_sass_pred(const char *o, int *neg) {
  int n = 0;
  if (*o == '!') n = 1, o++;
  if (neg) *neg = n;
  if (!strcmp(o, "PT") || !strcmp(o, "UPT")) return KG_SASS_PT;
  int u = *o == 'U';
  if (u) o++;
  if (o[0] != 'P' || !isdigit((unsigned char)o[1]) || o[2]) return KG_SASS_NOPRED;
  return (o[1] - '0') + (u ? 8 : 0);
}

int kg_sass_is(const kg_sass_insn *in, const char *base) {
  size_t n = strlen(base);
  return !strncmp(in->op, base, n) && (in->op[n] == '\0' || in->op[n] == '.');
}

int kg_sass_has_mod(const kg_sass_insn *in, const char *mod) {
  size_t n = strlen(mod);
  for (const char *p = strchr(in->op, '.'); p; p = strchr(p + 1, '.'))
    if (!strncmp(p + 1, mod, n) && (p[1 + n] == '\0' || p[1 + n] == '.')) return 1;
  return 0;
}

/* Interns a source file name: instructions share one copy. */
static const char *intern_file(kg_sass_listing *l, const char *s, size_t n) {
  for (int i = 0; i < l->nfiles; i++)
    if (strlen(l->files[i]) == n && !strncmp(l->files[i], s, n)) return l->files[i];
  char **f = realloc(l->files, (size_t)(l->nfiles + 1) * sizeof *f);
  if (!f) return NULL;
  l->files = f;
  if (!(f[l->nfiles] = dup_n(s, n))) return NULL;
  return f[l->nfiles++];
}

static kg_sass_func *cur_func(parser *p) { return p->l->nfuncs ? &p->l->funcs[p->l->nfuncs - 1] : NULL; }

static void resolve_jumps(parser *p);

static int new_func(parser *p, const char *name, size_t n) {
  resolve_jumps(p);
  kg_sass_listing *l = p->l;
  if (grow((void **)&l->funcs, &l->cap, l->nfuncs + 1, sizeof *l->funcs)) return -1;
  kg_sass_func *f = &l->funcs[l->nfuncs];
  memset(f, 0, sizeof *f);
  if (!(f->name = dup_n(name, n))) return -1;
  f->arch = p->arch, f->unit = p->unit;
  p->fresh = 0;
  l->nfuncs++;
  p->line = 0, p->file = NULL;
  return 0;
}

/* "0x1f0" or "`(.L_x_3)" as a target; NULL for other operands. */
static char *target_of(const char *o) {
  if (!strncmp(o, "0x", 2)) return dup_n(o, strlen(o));
  const char *b = strstr(o, "`(");
  if (!b) return NULL;
  const char *e = strchr(b + 2, ')');
  return e ? dup_n(b + 2, (size_t)(e - b - 2)) : NULL;
}

static int takes_target(const kg_sass_insn *in) {
  static const char *const k[] = {"BRA", "JMP", "CALL", "CAL", "JCAL", "SSY", "PBK", "BRX", "JMX"};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (kg_sass_is(in, k[i])) return 1;
  return 0;
}

/* Splits "OPCODE a, b, c" into op and operands (in ops_buf). */
static int split_operands(kg_sass_insn *in, const char *body) {
  if (!(in->ops_buf = dup_n(body, strlen(body)))) return -1;
  char *s = in->ops_buf;
  in->op = s;
  while (*s && !isspace((unsigned char)*s)) s++;
  if (!*s) return 0;
  *s++ = '\0';
  while (*s && in->nops < KG_SASS_MAXOPS) {
    while (isspace((unsigned char)*s)) s++;
    if (!*s) break;
    char *c = strchr(s, ',');
    if (c) *c = '\0';
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    in->ops[in->nops++] = s;
    if (!c) break;
    s = c + 1;
  }
  return 0;
}

/* One instruction: its address in a comment, a guard, the opcode, the
 * operands up to the semicolon, and maybe its encoding in a comment. */
static int parse_insn(parser *p, const char *s) {
  kg_sass_func *f = cur_func(p);
  char *end;
  unsigned long addr = strtoul(s + 2, &end, 16);
  if (!f || strncmp(end, "*/", 2)) {
    snprintf(p->err, p->errlen, "an instruction before any function: %.60s", s);
    return -1;
  }
  const char *b = end + 2, *semi = strchr(b, ';');
  while (isspace((unsigned char)*b) || *b == '{') b++;
  size_t n = semi ? (size_t)(semi - b) : strcspn(b, "}");
  while (n && isspace((unsigned char)b[n - 1])) n--;
  if (!n) {
    snprintf(p->err, p->errlen, "an empty instruction at /*%04lx*/ in %s", addr, f->name);
    return -1;
  }
  if (grow((void **)&f->insns, &f->cap, f->ninsns + 1, sizeof *f->insns)) return -1;
  kg_sass_insn *in = &f->insns[f->ninsns];
  memset(in, 0, sizeof *in);
  in->addr = (unsigned)addr, in->line = p->line, in->file = p->file, in->guard = KG_SASS_NOPRED, in->jump = -1;
  if (!(in->text = dup_n(b, n))) return -1;
  const char *body = in->text;
  if (*body == '@') {
    size_t g = strcspn(body, " \t");
    char pred[16];
    snprintf(pred, sizeof pred, "%.*s", (int)(g < 15 ? g - 1 : 14), body + 1);
    in->guard = kg_sass_pred(pred, &in->guard_neg);
    body += g;
    while (isspace((unsigned char)*body)) body++;
  }
  if (split_operands(in, body)) return -1;
  if (takes_target(in) && in->nops && !(in->target = target_of(in->ops[in->nops - 1])) &&
      (kg_sass_is(in, "BRA") || kg_sass_is(in, "CALL")))
    in->target = NULL; /* BRA to a register (BRX-like), or CALL.ABS 0x0: no known target */
  for (; p->pending > 0; p->pending--) p->labels[p->nlabels - p->pending].addr = in->addr;
  f->ninsns++;
  return 0;
}

static int add_label(parser *p, const char *s, size_t n) {
  if (grow((void **)&p->labels, &p->cap, p->nlabels + 1, sizeof *p->labels)) return -1;
  if (!(p->labels[p->nlabels].name = dup_n(s, n))) return -1;
  p->labels[p->nlabels++].addr = ~0u;
  p->pending++;
  return 0;
}

static int label_cmp(const void *a, const void *b) {
  return strcmp(((const label *)a)->name, ((const label *)b)->name);
}

static int index_of_addr(const kg_sass_func *f, unsigned addr) {
  int lo = 0, hi = f->ninsns - 1;
  while (lo <= hi) { /* addresses rise through a function */
    int mid = (lo + hi) / 2;
    if (f->insns[mid].addr == addr) return mid;
    if (f->insns[mid].addr < addr) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* The current function's targets as instruction indices; frees its labels. */
static void resolve_jumps(parser *p) {
  kg_sass_func *f = cur_func(p);
  /* sorted, so that each target is found in log time: a function may have thousands */
  if (p->nlabels > 1) qsort(p->labels, (size_t)p->nlabels, sizeof *p->labels, label_cmp);
  for (int i = 0; f && i < f->ninsns; i++) {
    kg_sass_insn *in = &f->insns[i];
    if (!in->target) continue;
    /* CALL.ABS 0x0: a relocation the disassembler did not resolve, no place here */
    if (!strncmp(in->target, "0x", 2) && !kg_sass_has_mod(in, "ABS"))
      in->jump = index_of_addr(f, (unsigned)strtoul(in->target, NULL, 16));
    label key = {in->target, 0};
    const label *k =
        in->jump < 0 && p->nlabels ? bsearch(&key, p->labels, (size_t)p->nlabels, sizeof key, label_cmp) : NULL;
    if (k && k->addr != ~0u) in->jump = index_of_addr(f, k->addr);
  }
  for (int k = 0; k < p->nlabels; k++) free(p->labels[k].name);
  p->nlabels = p->pending = 0;
}

/* nvdisasm -g: //## File "/src/x.cu", line 37 (inlined at ...): the first place is the code's own. */
static int parse_line_info(parser *p, const char *s) {
  const char *q = strchr(s, '"'), *e = q ? strchr(q + 1, '"') : NULL;
  const char *ln = e ? strstr(e, "line ") : NULL;
  if (!ln) return 0;
  if (!(p->file = intern_file(p->l, q + 1, (size_t)(e - q - 1)))) return -1;
  p->line = atoi(ln + 5);
  return 0;
}

/* cuobjdump: "code for sm_90", ".headerflags @"... EF_CUDA_SM90 ..."";
 * nvdisasm: ".target sm_90". "code for" and ".target" start a cubin (a unit;
 * cuobjdump prints both, one after the other). */
static void parse_arch(parser *p, const char *s) {
  if ((strstr(s, "code for sm_") || !strncmp(s, ".target", 7)) && !p->fresh) p->unit++, p->fresh = 1;
  const char *a = strstr(s, "EF_CUDA_SM");
  if (a && isdigit((unsigned char)a[10])) p->arch = atoi(a + 10);
  else if ((a = strstr(s, "code for sm_"))) p->arch = atoi(a + 12);
  else if (!strncmp(s, ".target", 7) && (a = strstr(s, "sm_"))) p->arch = atoi(a + 3);
}

static int is_label_line(const char *s, size_t *n) {
  size_t k = 0;
  while (s[k] && (isalnum((unsigned char)s[k]) || strchr("._$", s[k]))) k++;
  if (k == 0 || s[k] != ':') return 0;
  const char *r = s + k + 1;
  while (isspace((unsigned char)*r)) r++;
  *n = k;
  return *r == '\0';
}

static int parse_one(parser *p, char *s) {
  while (isspace((unsigned char)*s)) s++;
  const char *fn;
  size_t n;
  if (!strncmp(s, "/*", 2) && isxdigit((unsigned char)s[2])) {
    char *e = s + 2;
    while (isxdigit((unsigned char)*e)) e++;
    if (!strncmp(e, "*/", 2)) return parse_insn(p, s);
    return 0;
  }
  if ((fn = strstr(s, "Function : "))) {
    fn += 11;
    n = strcspn(fn, " \t\r");
    return new_func(p, fn, n);
  }
  if (!strncmp(s, "//---", 5) && (fn = strstr(s, " .text."))) {
    fn += 7;
    return new_func(p, fn, strcspn(fn, " \t\r"));
  }
  if (!strncmp(s, "//## File", 9)) return parse_line_info(p, s);
  if (strstr(s, "EF_CUDA_SM") || strstr(s, "code for sm_") || !strncmp(s, ".target", 7)) parse_arch(p, s);
  if (cur_func(p) && is_label_line(s, &n)) return add_label(p, s, n);
  return 0;
}

/* Where control goes after instruction i: whether it falls through, and
 * whether it jumps (to in->jump, or anywhere for an indirect branch). */
static void flow_of(const kg_sass_insn *in, int *falls, int *jumps, int *anywhere) {
  *falls = 1, *jumps = 0, *anywhere = 0;
  if (kg_sass_never(in)) return;
  int cond = in->guard != KG_SASS_NOPRED && in->guard != KG_SASS_PT;
  for (int k = 0; k + 1 < in->nops; k++)
    cond |= kg_sass_pred(in->ops[k], NULL) >= 0 && kg_sass_pred(in->ops[k], NULL) != KG_SASS_PT;
  cond |= kg_sass_has_mod(in, "DIV");
  if (kg_sass_is(in, "BRA") || kg_sass_is(in, "JMP")) {
    *jumps = in->jump >= 0, *anywhere = in->jump < 0, *falls = cond;
  } else if (kg_sass_is(in, "BRX") || kg_sass_is(in, "JMX")) {
    *anywhere = 1, *falls = cond;
  } else if (kg_sass_is(in, "EXIT") || kg_sass_is(in, "RET") || kg_sass_is(in, "KILL")) {
    *falls = cond;
  }
}

static int add_succ(kg_sass_block *b, int s) {
  for (int k = 0; k < b->nsucc; k++)
    if (b->succ[k] == s) return 0;
  int *q = realloc(b->succ, (size_t)(b->nsucc + 1) * sizeof *q);
  if (!q) return -1;
  b->succ = q;
  b->succ[b->nsucc++] = s;
  return 0;
}

static int block_succs(kg_sass_func *f, int b) {
  kg_sass_block *bl = &f->blocks[b];
  int falls, jumps, anywhere;
  flow_of(&f->insns[bl->last], &falls, &jumps, &anywhere);
  if (falls && b + 1 < f->nblocks && add_succ(bl, b + 1)) return -1;
  if (jumps && add_succ(bl, f->block_of[f->insns[bl->last].jump])) return -1;
  for (int k = 0; anywhere && k < f->nblocks; k++)
    if (add_succ(bl, k)) return -1;
  return 0;
}

/* Basic blocks: a block starts at the first instruction, at every target
 * (calls' too: a subroutine inside the function starts a block) and after
 * every instruction that can leave the straight line. */
static int build_cfg(kg_sass_func *f) {
  char *lead = calloc((size_t)f->ninsns + 1, 1);
  f->block_of = malloc(((size_t)f->ninsns + 1) * sizeof *f->block_of);
  if (!lead || !f->block_of) return free(lead), -1;
  lead[0] = 1;
  for (int i = 0; i < f->ninsns; i++) {
    int falls, jumps, anywhere;
    flow_of(&f->insns[i], &falls, &jumps, &anywhere);
    if (f->insns[i].jump >= 0) lead[f->insns[i].jump] = 1;
    if (!falls || jumps || anywhere) lead[i + 1] = 1;
  }
  int nb = 0;
  for (int i = 0; i < f->ninsns; i++) nb += lead[i];
  f->blocks = calloc((size_t)nb + 1, sizeof *f->blocks);
  if (!f->blocks) return free(lead), -1;
  for (int i = 0, b = -1; i < f->ninsns; i++) {
    if (lead[i]) f->blocks[++b].first = i;
    f->blocks[b].last = i;
    f->block_of[i] = b;
  }
  f->nblocks = nb;
  free(lead);
  for (int b = 0; b < nb; b++)
    if (block_succs(f, b)) return -1;
  return 0;
}

int kg_sass_never(const kg_sass_insn *in) { return in->guard == KG_SASS_PT && in->guard_neg; }

static unsigned name_hash(const char *name, int unit) {
  unsigned h = 2166136261u ^ (unsigned)unit;
  for (; *name; name++) h = (h ^ (unsigned char)*name) * 16777619u;
  return h;
}

int kg_sass_find(const kg_sass_listing *l, const char *name, int unit) {
  for (unsigned h = name_hash(name, unit), k = 0; l->nbyname && k < (unsigned)l->nbyname; k++) {
    int i = l->byname[(h + k) & (unsigned)(l->nbyname - 1)] - 1;
    if (i < 0) return -1;
    if (l->funcs[i].unit == unit && !strcmp(l->funcs[i].name, name)) return i;
  }
  return -1;
}

/* The hash of kg_sass_find: open addressing, at most half full. The first
 * function of a name in a unit is the one found. */
static int index_names(kg_sass_listing *l) {
  int n = 16;
  while (n < 2 * l->nfuncs) n *= 2;
  if (!(l->byname = calloc((size_t)n, sizeof *l->byname))) return -1;
  l->nbyname = n;
  for (int i = 0; i < l->nfuncs; i++) {
    if (kg_sass_find(l, l->funcs[i].name, l->funcs[i].unit) >= 0) continue;
    unsigned h = name_hash(l->funcs[i].name, l->funcs[i].unit);
    while (l->byname[h & (unsigned)(n - 1)]) h++;
    l->byname[h & (unsigned)(n - 1)] = i + 1;
  }
  return 0;
}

/* Marks the functions another one calls: subroutines, analysed at their calls. */
static void mark_called(kg_sass_listing *l) {
  for (int i = 0; i < l->nfuncs; i++)
    for (int k = 0; k < l->funcs[i].ninsns; k++) {
      const kg_sass_insn *in = &l->funcs[i].insns[k];
      int c = in->target && kg_sass_is(in, "CALL") && in->jump < 0 ? kg_sass_find(l, in->target, l->funcs[i].unit) : -1;
      if (c >= 0 && c != i) l->funcs[c].called = 1;
    }
}

static int finish(kg_sass_listing *l, char *err, size_t errlen) {
  int kept = 0;
  for (int i = 0; i < l->nfuncs; i++) {
    kg_sass_func *f = &l->funcs[i];
    if (!f->ninsns) { /* a heading with no code (cuobjdump prints some): nothing to analyse */
      free(f->name), free(f->insns);
      continue;
    }
    l->funcs[kept++] = *f;
    if (build_cfg(&l->funcs[kept - 1])) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
  }
  l->nfuncs = kept;
  if (!kept) {
    snprintf(err, errlen, "no SASS functions found (expected the text of cuobjdump -sass or nvdisasm -c)");
    return -1;
  }
  if (index_names(l)) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  mark_called(l);
  return 0;
}

int kg_sass_parse(const char *text, size_t len, kg_sass_listing *l, char *err, size_t errlen) {
  memset(l, 0, sizeof *l);
  parser p = {.l = l, .err = err, .errlen = errlen};
  err[0] = '\0';
  int rc = 0, lineno = 0;
  for (size_t at = 0; at < len && !rc; lineno++) {
    const char *nl = memchr(text + at, '\n', len - at);
    size_t n = nl ? (size_t)(nl - text - at) : len - at;
    char *s = dup_n(text + at, n);
    if (!s || memchr(s, '\0', n)) {
      snprintf(err, errlen, s ? "line %d: a NUL byte (not text)" : "out of memory", lineno + 1);
      rc = -1;
    } else if ((rc = parse_one(&p, s)) && !err[0]) {
      snprintf(err, errlen, "line %d: out of memory", lineno + 1);
    }
    free(s);
    at += n + 1;
  }
  resolve_jumps(&p);
  free(p.labels);
  if (!rc) rc = finish(l, err, errlen);
  if (rc) kg_sass_free(l);
  return rc;
}

void kg_sass_free(kg_sass_listing *l) {
  for (int i = 0; i < l->nfuncs; i++) {
    kg_sass_func *f = &l->funcs[i];
    for (int k = 0; k < f->ninsns; k++) free(f->insns[k].text), free(f->insns[k].ops_buf), free(f->insns[k].target);
    for (int b = 0; b < f->nblocks; b++) free(f->blocks[b].succ);
    free(f->insns), free(f->blocks), free(f->block_of), free(f->name);
  }
  for (int i = 0; i < l->nfiles; i++) free(l->files[i]);
  free(l->funcs), free(l->files), free(l->byname);
  memset(l, 0, sizeof *l);
}
