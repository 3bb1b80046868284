#include "lint.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

/* ---- what an instruction means for the rule ---- */

/* A fence that orders memory for the whole GPU: MEMBAR.SC.GPU, MEMBAR.ALL.GPU
 * (a release atomic's), the .SYS ones; MEMBAR.GL on older parts. */
static int is_gpu_fence(const kg_sass_insn *in) {
  return kg_sass_is(in, "MEMBAR") &&
         (kg_sass_has_mod(in, "GPU") || kg_sass_has_mod(in, "SYS") || kg_sass_has_mod(in, "GL"));
}

/* What an acquire adds after its load or atomic: the L1 invalidation. */
static int is_acquire(const kg_sass_insn *in) { return is_gpu_fence(in) || (kg_sass_is(in, "CCTL") && kg_sass_has_mod(in, "IVALL")); }

static int is_global_atomic(const kg_sass_insn *in) { return kg_sass_is(in, "ATOM") || kg_sass_is(in, "ATOMG"); }

/* Stores that other blocks can read: global and generic (ST may be global);
 * reductions (RED, REDG) are atomics whose result nobody reads. */
static int is_store(const kg_sass_insn *in) {
  static const char *const k[] = {"STG", "ST", "RED", "REDG", "SUST", "SURED"};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (kg_sass_is(in, k[i])) return 1;
  return 0;
}

/* A load that may see another block's data stale: global or generic, not
 * strong (volatile and relaxed/acquire loads are .STRONG.GPU or .SYS). */
static int is_weak_load(const kg_sass_insn *in) {
  return (kg_sass_is(in, "LDG") || kg_sass_is(in, "LD")) && !kg_sass_has_mod(in, "STRONG");
}

static int is_control(const kg_sass_insn *in) {
  static const char *const k[] = {"BRA", "BRX", "JMP", "JMX", "EXIT", "RET", "KILL"};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (kg_sass_is(in, k[i])) return 1;
  return 0;
}

/* Instructions with no register result (stores, control, fences). */
static int has_no_dest(const kg_sass_insn *in) {
  static const char *const k[] = {"STG", "STS", "STL", "ST", "RED", "REDG", "SUST", "SURED", "BRA", "BRX",
                                  "JMP", "JMX", "CALL", "RET", "EXIT", "BSYNC", "BSSY", "WARPSYNC", "BAR",
                                  "MEMBAR", "CCTL", "ERRBAR", "FENCE", "NOP", "YIELD", "DEPBAR", "KILL", "BPT"};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (kg_sass_is(in, k[i])) return 1;
  return 0;
}

/* The guard as a bit number: predicate * 2 + negated; -1 for none or PT. */
static int guard_bit(const kg_sass_insn *in) {
  return in->guard >= 0 && in->guard < KG_SASS_PT ? in->guard * 2 + in->guard_neg : -1;
}

/* ---- registers: R0..R255, P0..P7, UR0..UR63, UP0..UP7, and shared memory ---- */

enum { RBASE = 0, PBASE = 256, URBASE = 264, UPBASE = 328, SMEM = 336, NLOC = 337, NW = 6 };
typedef struct regset {
  uint64_t w[NW];
} regset;

static void rs_set(regset *s, int b) { s->w[b / 64] |= 1ull << (b % 64); }
static int rs_has(const regset *s, int b) { return (int)(s->w[b / 64] >> (b % 64) & 1); }
static int rs_any(const regset *s) {
  for (int k = 0; k < NW; k++)
    if (s->w[k]) return 1;
  return 0;
}

/* The register an operand names at p ("R12", "UR4", "P3", "UP1"): its
 * location, or -1 (RZ, URZ, PT, SR_*, constants). *len: characters used. */
static int reg_at(const char *p, int *len) {
  int u = *p == 'U';
  const char *q = p + u;
  int kind = *q == 'R' ? 0 : *q == 'P' ? 1 : -1;
  if (kind < 0 || !isdigit((unsigned char)q[1])) return -1;
  int n = atoi(q + 1);
  const char *e = q + 1;
  while (isdigit((unsigned char)*e)) e++;
  if (isalnum((unsigned char)*e) || *e == '_') return -1;
  *len = (int)(e - p);
  if (kind == 0) return u ? (n < 64 ? URBASE + n : -1) : (n < 255 ? RBASE + n : -1);
  return n < 8 ? (u ? UPBASE : PBASE) + n : -1;
}

/* Calls fn for every register in operand o; a ".64" register is a pair. */
static void each_reg(const char *o, void (*fn)(regset *, int), regset *s) {
  for (const char *p = o; *p; p++) {
    int len;
    if (p > o && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
    int r = reg_at(p, &len);
    if (r < 0) continue;
    fn(s, r);
    if (!strncmp(p + len, ".64", 3) && r < PBASE - 1) fn(s, r + 1);
    p += len - 1;
  }
}

static int is_pred_op(const char *o) { return kg_sass_pred(o, NULL) != KG_SASS_NOPRED; }

/* How many leading operands are results: predicates first (ISETP P0, PT;
 * ATOMG PT, R2), then one register, then carry predicates (IADD3 R4, P0). */
static int ndests(const kg_sass_insn *in) {
  if (has_no_dest(in)) return 0;
  size_t b = strcspn(in->op, ".");
  int setp = (b >= 4 && !strncmp(in->op + b - 4, "SETP", 4)) || kg_sass_is(in, "PLOP3");
  int k = 0;
  while (k < in->nops && k < 2 && is_pred_op(in->ops[k])) k++;
  if (setp || (kg_sass_is(in, "VOTE") && k)) return k;
  if (kg_sass_is(in, "VOTE") || kg_sass_is(in, "VOTEU")) return 1;
  if (k < in->nops && (in->ops[k][0] == 'R' || in->ops[k][0] == 'U')) k++;
  while (k < in->nops && is_pred_op(in->ops[k]) && kg_sass_pred(in->ops[k], NULL) != KG_SASS_PT && k < 4 &&
         !strchr(in->ops[k], '!'))
    k++;
  return k;
}

/* The register width of a result: pairs for 64-bit and WIDE, quads for 128. */
static int dest_width(const kg_sass_insn *in) {
  if (kg_sass_has_mod(in, "128")) return 4;
  return kg_sass_has_mod(in, "64") || kg_sass_has_mod(in, "WIDE") || kg_sass_has_mod(in, "F64") ? 2 : 1;
}

static void dests_of(const kg_sass_insn *in, regset *d) {
  memset(d, 0, sizeof *d);
  int nd = ndests(in), w = dest_width(in);
  for (int k = 0; k < nd; k++) {
    int len, r = reg_at(in->ops[k], &len);
    for (int j = 0; r >= 0 && j < (r < PBASE ? w : 1); j++) rs_set(d, r + j);
  }
}

static void srcs_of(const kg_sass_insn *in, regset *s) {
  memset(s, 0, sizeof *s);
  for (int k = ndests(in); k < in->nops; k++) each_reg(in->ops[k], rs_set, s);
  if (in->guard >= 0 && in->guard < KG_SASS_PT) rs_set(s, in->guard < 8 ? PBASE + in->guard : UPBASE + in->guard - 8);
}

static int intersects(const regset *a, const regset *b) {
  for (int k = 0; k < NW; k++)
    if (a->w[k] & b->w[k]) return 1;
  return 0;
}

/* The predicates an instruction writes, as a mask over predicate numbers. */
static unsigned preds_written(const kg_sass_insn *in) {
  regset d;
  dests_of(in, &d);
  unsigned m = 0;
  for (int p = 0; p < 8; p++) {
    if (rs_has(&d, PBASE + p)) m |= 1u << p;
    if (rs_has(&d, UPBASE + p)) m |= 1u << (p + 8);
  }
  return m;
}

/* Clears the guard bits of the predicates in m from a mask of guard bits. */
static uint32_t drop_preds(uint32_t mask, unsigned m) {
  for (int p = 0; p < 16; p++)
    if (m >> p & 1) mask &= ~(3u << (2 * p));
  return mask;
}

/* ---- subroutines: what a call does, summarised ---- */

typedef struct summary {
  int known;     /* the callee is in the listing */
  int fence_all; /* every path through it passes an unguarded GPU-scope fence */
  int store;     /* a store may still be unfenced when it returns */
  int load;      /* a weak load may run before any fence */
} summary;

enum { MAX_CALL_DEPTH = 4, NOFENCE = 1, PEND = 2, REACHED = 4 };

static summary call_summary(const kg_sass_listing *l, const kg_sass_func *f, const kg_sass_insn *in, int depth);

/* The callee of a call: its function and first block; -1 when unknown. */
static int callee(const kg_sass_listing *l, const kg_sass_func *f, const kg_sass_insn *in, const kg_sass_func **cf) {
  if (!kg_sass_is(in, "CALL")) return -1;
  if (in->jump >= 0) return *cf = f, f->block_of[in->jump];
  int k = in->target ? kg_sass_find(l, in->target, f->arch) : -1;
  if (k < 0 || &l->funcs[k] == f) return -1;
  *cf = &l->funcs[k];
  return 0;
}

/* One block of a callee: the state bits NOFENCE and PEND through it. */
static int summary_step(const kg_sass_listing *l, const kg_sass_func *f, int b, int st, summary *s, int depth) {
  for (int i = f->blocks[b].first; i <= f->blocks[b].last; i++) {
    const kg_sass_insn *in = &f->insns[i];
    summary sub = call_summary(l, f, in, depth + 1);
    int unguarded = guard_bit(in) < 0;
    if ((is_gpu_fence(in) && unguarded) || sub.fence_all) st &= ~(NOFENCE | PEND);
    if (is_store(in) || is_global_atomic(in) || sub.store) st |= PEND;
    if ((is_weak_load(in) || sub.load) && (st & NOFENCE)) s->load = 1;
    if (kg_sass_is(in, "RET") || kg_sass_is(in, "EXIT")) {
      if (st & NOFENCE) s->fence_all = 0;
      if (st & PEND) s->store = 1;
    }
  }
  return st;
}

static summary call_summary(const kg_sass_listing *l, const kg_sass_func *f, const kg_sass_insn *in, int depth) {
  summary s = {0, 0, 0, 0};
  const kg_sass_func *cf = NULL;
  int start = depth <= MAX_CALL_DEPTH ? callee(l, f, in, &cf) : -1;
  if (start < 0) return s;
  s.known = 1, s.fence_all = 1;
  int *st = calloc((size_t)cf->nblocks, sizeof *st);
  if (!st) return (summary){0, 0, 0, 0};
  st[start] = NOFENCE | REACHED;
  for (int changed = 1; changed;) {
    changed = 0;
    for (int b = 0; b < cf->nblocks; b++) {
      if (!(st[b] & REACHED)) continue;
      int out = summary_step(l, cf, b, st[b] & ~REACHED, &s, depth) | REACHED;
      for (int k = 0; k < cf->blocks[b].nsucc; k++) {
        int t = cf->blocks[b].succ[k];
        if ((st[t] | out) != st[t]) st[t] |= out, changed = 1;
      }
    }
  }
  free(st);
  return s;
}

/* Every register a callee writes: what a call may pass on from its arguments. */
static void callee_dests(const kg_sass_listing *l, const kg_sass_func *f, const kg_sass_insn *in, regset *out) {
  const kg_sass_func *cf = NULL;
  int start = callee(l, f, in, &cf);
  memset(out, 0, sizeof *out);
  if (start < 0) return;
  for (int i = cf->blocks[start].first; i < cf->ninsns; i++) {
    regset d;
    dests_of(&cf->insns[i], &d);
    for (int k = 0; k < NW; k++) out->w[k] |= d.w[k];
    if (kg_sass_is(&cf->insns[i], "RET") && guard_bit(&cf->insns[i]) < 0) break;
  }
}

/* ---- tickets: does the atomic's result decide a branch? ---- */

typedef struct ctx {
  const kg_sass_listing *l;
  const kg_sass_func *f;
  int func;
  summary *calls;  /* per instruction (known = 0 for non-calls) */
  char *ticket;    /* per instruction */
  int **preds;     /* per block: its predecessors, -1 ended */
  kg_lint_report *r;
} ctx;

/* The taint of the atomic's result through one block: set when it reaches a
 * branch's predicate, or the guard of a global load. */
static int taint_step(const ctx *c, int b, int a, regset *s) {
  const kg_sass_func *f = c->f;
  for (int i = f->blocks[b].first; i <= f->blocks[b].last; i++) {
    const kg_sass_insn *in = &f->insns[i];
    regset src, d;
    dests_of(in, &d);
    if (i == a) {
      for (int k = 0; k < NW; k++) s->w[k] |= d.w[k];
      continue;
    }
    srcs_of(in, &src);
    int t = intersects(s, &src) || (rs_has(s, SMEM) && kg_sass_is(in, "LDS"));
    int guard_t = in->guard >= 0 && in->guard < KG_SASS_PT &&
                  rs_has(s, in->guard < 8 ? PBASE + in->guard : UPBASE + in->guard - 8);
    if ((t && is_control(in)) || (guard_t && (kg_sass_is(in, "LDG") || kg_sass_is(in, "LD")))) return 1;
    if (t && (kg_sass_is(in, "STS") || kg_sass_is(in, "ATOMS"))) rs_set(s, SMEM);
    if (t && kg_sass_is(in, "CALL")) callee_dests(c->l, f, in, &d);
    for (int k = 0; k < NW; k++) s->w[k] = t ? s->w[k] | d.w[k] : guard_bit(in) < 0 ? s->w[k] & ~d.w[k] : s->w[k];
  }
  return 0;
}

static int decides_branch(const ctx *c, int a) {
  const kg_sass_func *f = c->f;
  regset *in = calloc((size_t)f->nblocks, sizeof *in);
  if (!in) return 1; /* out of memory: check it as a ticket rather than miss one */
  int found = 0;
  for (int changed = 1; changed && !found;) {
    changed = 0;
    for (int b = 0; b < f->nblocks && !found; b++) {
      int here = a >= f->blocks[b].first && a <= f->blocks[b].last;
      if (!here && !rs_any(&in[b])) continue;
      regset s = in[b];
      found = taint_step(c, b, a, &s);
      for (int k = 0; k < f->blocks[b].nsucc && rs_any(&s); k++) {
        regset *t = &in[f->blocks[b].succ[k]];
        for (int w = 0; w < NW; w++)
          if ((t->w[w] | s.w[w]) != t->w[w]) t->w[w] |= s.w[w], changed = 1;
      }
    }
  }
  free(in);
  return found;
}

/* The atomic's result register is not RZ: something may read it. */
static int has_result(const kg_sass_insn *in) {
  int k = 0;
  while (k < in->nops && is_pred_op(in->ops[k])) k++;
  return k < in->nops && strcmp(in->ops[k], "RZ") != 0 && in->ops[k][0] == 'R';
}

/* ---- findings ---- */

static void at_of(const kg_sass_insn *in, kg_lint_at *at) {
  at->addr = in->addr, at->line = in->line, at->file = in->file;
  snprintf(at->text, sizeof at->text, "%s", in->text);
}

/* A path of blocks from instruction a to instruction b that no instruction
 * for which stops() holds cuts: "0x0210 -> 0x0380 -> 0x0400". */
static void path_text(const kg_sass_func *f, int a, int b, int (*stops)(const kg_sass_insn *, int), int g,
                      char *out, size_t len) {
  int ba = f->block_of[a], bb = f->block_of[b], *from = malloc((size_t)f->nblocks * sizeof *from);
  int *queue = malloc((size_t)f->nblocks * sizeof *queue), head = 0, tail = 0, found = ba == bb && a < b;
  snprintf(out, len, "0x%04x -> 0x%04x", f->insns[a].addr, f->insns[b].addr);
  if (!from || !queue || found) return free(from), free(queue);
  for (int k = 0; k < f->nblocks; k++) from[k] = -2;
  from[ba] = -1, queue[tail++] = ba;
  while (head < tail && !found) {
    int x = queue[head++], cut = 0;
    for (int i = x == ba ? a + 1 : f->blocks[x].first; i <= f->blocks[x].last && !cut; i++) cut = stops(&f->insns[i], g);
    for (int k = 0; k < f->blocks[x].nsucc && !cut && !found; k++) {
      int y = f->blocks[x].succ[k];
      if (from[y] != -2 && y != ba) continue;
      if (y == ba) continue;
      from[y] = x, queue[tail++] = y, found = y == bb;
    }
  }
  if (found) {
    int chain[64], n = 0;
    for (int x = bb; x != -1 && n < 64; x = from[x]) chain[n++] = x;
    size_t used = (size_t)snprintf(out, len, "0x%04x", f->insns[a].addr);
    for (int k = n - 2; k >= 0 && used < len; k--)
      if (f->blocks[chain[k]].first != b)
        used += (size_t)snprintf(out + used, len - used, " -> 0x%04x", f->insns[f->blocks[chain[k]].first].addr);
    if (used < len) snprintf(out + used, len - used, " -> 0x%04x", f->insns[b].addr);
  }
  free(from), free(queue);
}

static int stops_release(const kg_sass_insn *in, int g) {
  return is_gpu_fence(in) && (guard_bit(in) < 0 || guard_bit(in) == g);
}
static int stops_acquire(const kg_sass_insn *in, int g) {
  return is_acquire(in) && (guard_bit(in) < 0 || guard_bit(in) == g);
}

static int add_finding(ctx *c, kg_lint_side side, int a, int b) {
  kg_lint_report *r = c->r;
  for (size_t k = 0; k < r->nfindings; k++) {
    const kg_lint_finding *x = &r->findings[k];
    if (x->func == c->func && x->side == side && x->from.addr == c->f->insns[a].addr &&
        x->to.addr == c->f->insns[b].addr)
      return 0;
  }
  if (r->nfindings == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 16;
    kg_lint_finding *q = realloc(r->findings, cap * sizeof *q);
    if (!q) return -1;
    r->findings = q, r->cap = cap;
  }
  kg_lint_finding *x = &r->findings[r->nfindings++];
  memset(x, 0, sizeof *x);
  x->side = side, x->func = c->func;
  at_of(&c->f->insns[a], &x->from);
  at_of(&c->f->insns[b], &x->to);
  int g = guard_bit(&c->f->insns[side == KG_LINT_RELEASE ? b : a]);
  if (side != KG_LINT_SCOPE)
    path_text(c->f, a, b, side == KG_LINT_RELEASE ? stops_release : stops_acquire, g, x->path, sizeof x->path);
  return 0;
}

/* ---- the release side: stores to tickets ---- */

typedef struct pend {
  uint32_t fenced; /* guard bits under which a fence ran since the store */
  signed char on;  /* the store may be unfenced here */
  signed char guard; /* the store's guard bit, -1 for none */
} pend;

static int is_source(const ctx *c, int i) {
  const kg_sass_insn *in = &c->f->insns[i];
  return (is_store(in) || is_global_atomic(in) || c->calls[i].store) && !c->ticket[i];
}

static void release_step(ctx *c, int b, pend *st, const int *src, int record) {
  const kg_sass_func *f = c->f;
  for (int i = f->blocks[b].first; i <= f->blocks[b].last; i++) {
    const kg_sass_insn *in = &f->insns[i];
    int g = guard_bit(in), ns = src[f->ninsns];
    if (c->ticket[i] && record)
      for (int s = 0; s < ns; s++)
        if (st[s].on && !(g >= 0 && ((st[s].fenced >> g & 1) || st[s].guard == (g ^ 1))) &&
            add_finding(c, KG_LINT_RELEASE, src[f->ninsns + 1 + s], i))
          return;
    unsigned pw = preds_written(in);
    for (int s = 0; s < ns; s++) {
      if (!st[s].on) continue;
      if (is_gpu_fence(in) || c->calls[i].fence_all) {
        if (g < 0) st[s].on = 0;
        else st[s].fenced |= 1u << g;
      }
      st[s].fenced = drop_preds(st[s].fenced, pw);
      if (st[s].guard >= 0 && (pw >> (st[s].guard / 2) & 1)) st[s].guard = -1;
    }
    if (src[i] >= 0) st[src[i]] = (pend){0, 1, (signed char)g};
  }
}

static int merge_pend(pend *to, const pend *from, int n) {
  int changed = 0;
  for (int s = 0; s < n; s++) {
    if (!from[s].on) continue;
    pend m = from[s];
    if (to[s].on) m.fenced &= to[s].fenced, m.guard = to[s].guard == m.guard ? m.guard : -1;
    if (memcmp(&m, &to[s], sizeof m)) to[s] = m, changed = 1;
  }
  return changed;
}

/* src: per instruction its source number or -1, then the count, then each
 * source's instruction. The states of all blocks flow to a fixpoint, then
 * one more pass records the findings. */
static int release_side(ctx *c) {
  const kg_sass_func *f = c->f;
  int n = f->ninsns, *src = malloc(((size_t)2 * n + 1) * sizeof *src), ns = 0;
  if (!src) return -1;
  for (int i = 0; i < n; i++) src[i] = is_source(c, i) ? (src[n + 1 + ns] = i, ns++) : -1;
  src[n] = ns;
  pend *in = calloc((size_t)f->nblocks * (size_t)(ns ? ns : 1), sizeof *in), *st = malloc((size_t)(ns ? ns : 1) * sizeof *st);
  if (!in || !st) return free(src), free(in), free(st), -1;
  for (int pass = 0, changed = 1; changed || pass == 0; pass++) {
    changed = 0;
    for (int b = 0; b < f->nblocks; b++) {
      memcpy(st, in + (size_t)b * ns, (size_t)ns * sizeof *st);
      release_step(c, b, st, src, 0);
      for (int k = 0; k < f->blocks[b].nsucc; k++)
        changed |= merge_pend(in + (size_t)f->blocks[b].succ[k] * ns, st, ns);
    }
  }
  for (int b = 0; b < f->nblocks; b++) {
    memcpy(st, in + (size_t)b * ns, (size_t)ns * sizeof *st);
    release_step(c, b, st, src, 1);
  }
  free(src), free(in), free(st);
  return 0;
}

/* ---- the acquire side: a ticket to weak loads ---- */

typedef struct acq {
  uint32_t fenced;
  int on; /* the ticket may have been taken with no acquire since */
} acq;

static int acquire_step(ctx *c, int b, int t, acq *st, int record) {
  const kg_sass_func *f = c->f;
  for (int i = f->blocks[b].first; i <= f->blocks[b].last; i++) {
    const kg_sass_insn *in = &f->insns[i];
    int g = guard_bit(in);
    int covered = g >= 0 && (st->fenced >> g & 1);
    if (record && st->on && !covered && (is_weak_load(in) || c->calls[i].load) && add_finding(c, KG_LINT_ACQUIRE, t, i))
      return -1;
    if (is_acquire(in) || c->calls[i].fence_all) {
      if (g < 0) st->on = 0;
      else st->fenced |= 1u << g;
    }
    st->fenced = drop_preds(st->fenced, preds_written(in));
    /* an acquire by the thread that took the ticket, then a block barrier:
     * the whole block reads after it */
    if (kg_sass_is(in, "BAR") && !kg_sass_has_mod(in, "ARV") && st->fenced) st->on = 0;
    if (i == t) *st = (acq){0, 1};
  }
  return 0;
}

static int acquire_side(ctx *c, int t) {
  const kg_sass_func *f = c->f;
  acq *in = calloc((size_t)f->nblocks, sizeof *in);
  if (!in) return -1;
  for (int pass = 0, changed = 1; changed || pass == 0; pass++) {
    changed = 0;
    for (int b = 0; b < f->nblocks; b++) {
      acq st = in[b];
      acquire_step(c, b, t, &st, 0);
      for (int k = 0; k < f->blocks[b].nsucc && st.on; k++) {
        acq *to = &in[f->blocks[b].succ[k]], m = {to->on ? to->fenced & st.fenced : st.fenced, 1};
        if (m.on != to->on || m.fenced != to->fenced) *to = m, changed = 1;
      }
    }
  }
  int rc = 0;
  for (int b = 0; b < f->nblocks && !rc; b++) {
    acq st = in[b];
    rc = acquire_step(c, b, t, &st, 1);
  }
  free(in);
  return rc;
}

/* ---- kernels ---- */

/* Block-scope atomics (.STRONG.SM, .CTA) cannot order other blocks' data. */
static int block_scope(const kg_sass_insn *in) { return kg_sass_has_mod(in, "SM") || kg_sass_has_mod(in, "CTA"); }

static int find_tickets(ctx *c) {
  const kg_sass_func *f = c->f;
  for (int i = 0; i < f->ninsns; i++) {
    const kg_sass_insn *in = &f->insns[i];
    c->calls[i] = call_summary(c->l, f, in, 0);
    if (kg_sass_is(in, "CALL") && !c->calls[i].known) c->r->unknown_calls++;
  }
  for (int i = 0; i < f->ninsns; i++) {
    const kg_sass_insn *in = &f->insns[i];
    if (!is_global_atomic(in) || !has_result(in) || !decides_branch(c, i)) continue;
    c->ticket[i] = 1, c->r->ntickets++;
    if (block_scope(in) && add_finding(c, KG_LINT_SCOPE, i, i)) return -1;
  }
  return 0;
}

static int lint_kernel(const kg_sass_listing *l, int func, kg_lint_report *r) {
  const kg_sass_func *f = &l->funcs[func];
  ctx c = {l, f, func, calloc((size_t)f->ninsns, sizeof(summary)), calloc((size_t)f->ninsns, 1), NULL, r};
  int rc = !c.calls || !c.ticket ? -1 : find_tickets(&c);
  int any = 0;
  for (int i = 0; !rc && i < f->ninsns; i++) any |= c.ticket[i];
  if (!rc && any) rc = release_side(&c);
  for (int i = 0; !rc && i < f->ninsns; i++)
    if (c.ticket[i]) rc = acquire_side(&c, i);
  free(c.calls), free(c.ticket);
  return rc;
}

static const kg_lint_waiver *waiver_of(const char *name, const kg_lint_waiver *w, size_t nw) {
  for (size_t k = 0; k < nw; k++)
    if (kg_lint_waiver_applies(&w[k], name)) return &w[k];
  return NULL;
}

static int use_waiver(kg_lint_report *r, const kg_lint_waiver *w) {
  for (size_t k = 0; k < r->nused; k++)
    if (r->used[k] == w) return 0;
  const kg_lint_waiver **u = realloc(r->used, (r->nused + 1) * sizeof *u);
  if (!u) return -1;
  r->used = u;
  r->used[r->nused++] = w;
  return 0;
}

int kg_lint_listing(const kg_sass_listing *l, const kg_lint_waiver *w, size_t nw, kg_lint_report *r) {
  memset(r, 0, sizeof *r);
  for (int k = 0; k < l->nfuncs; k++) {
    if (l->funcs[k].called) continue;
    size_t before = r->nfindings;
    r->nkernels++;
    if (lint_kernel(l, k, r)) return -1;
    const kg_lint_waiver *wv = waiver_of(l->funcs[k].name, w, nw);
    if (wv && use_waiver(r, wv)) return -1;
    for (size_t i = before; wv && i < r->nfindings; i++) r->findings[i].waived = wv->reason, r->nwaived++;
  }
  return 0;
}

size_t kg_lint_unwaived(const kg_lint_report *r) { return r->nfindings - r->nwaived; }

void kg_lint_report_free(kg_lint_report *r) {
  free(r->findings);
  free(r->used);
  memset(r, 0, sizeof *r);
}

/* ---- the report ---- */

/* Text from a listing goes to a terminal: escaped (kg_esc_term), though
 * kg_dis_read already refused listings with control bytes. */
static void print_at(FILE *f, const char *what, const kg_lint_at *at) {
  char t[300], b[600];
  fprintf(f, "    %-7s 0x%04x  %s", what, at->addr, kg_esc_term(at->text, t, sizeof t));
  if (at->line) {
    const char *base = at->file ? strrchr(at->file, '/') : NULL;
    fprintf(f, "  (%s:%d)", kg_esc_term(base ? base + 1 : at->file ? at->file : "?", b, sizeof b), at->line);
  }
  fputc('\n', f);
}

static void print_finding(FILE *f, const kg_sass_listing *l, const kg_lint_finding *x) {
  const kg_sass_func *fn = &l->funcs[x->func];
  static const char *const why[] = {
      [KG_LINT_RELEASE] = "a store reaches the last-block ticket with no GPU-scope fence or release between",
      [KG_LINT_ACQUIRE] = "after the ticket, a weak load of other blocks' data with no GPU-scope fence, acquire or strong load before it",
      [KG_LINT_SCOPE] = "the ticket is a block-scope atomic: other blocks' stores are not ordered by it"};
  char name[4096];
  fprintf(f, "%s (sm_%d): %s: %s\n", kg_esc_term(fn->name, name, sizeof name), fn->arch, x->side == KG_LINT_RELEASE ? "release" : x->side == KG_LINT_ACQUIRE ? "acquire" : "scope", why[x->side]);
  if (x->side == KG_LINT_RELEASE) print_at(f, "store", &x->from);
  print_at(f, "ticket", x->side == KG_LINT_RELEASE ? &x->to : &x->from);
  if (x->side == KG_LINT_ACQUIRE) print_at(f, "load", &x->to);
  if (x->path[0]) fprintf(f, "    path    %s\n", x->path);
}

void kg_lint_print(FILE *f, const char *name, const kg_sass_listing *l, const kg_lint_report *r) {
  for (size_t k = 0; k < r->nfindings; k++)
    if (!r->findings[k].waived) print_finding(f, l, &r->findings[k]);
  for (size_t k = 0; k < r->nused; k++) {
    size_t n = 0;
    for (size_t i = 0; i < r->nfindings; i++) n += r->findings[i].waived == r->used[k]->reason;
    fprintf(f, "%s: waived: %s (%zu finding%s)\n", r->used[k]->kernel, r->used[k]->reason, n, n == 1 ? "" : "s");
  }
  char shown[4096];
  fprintf(f, "lint %s: %d kernel%s, %d ticket%s, %zu finding%s, %zu waived", kg_esc_term(name, shown, sizeof shown),
          r->nkernels, r->nkernels == 1 ? "" : "s", r->ntickets, r->ntickets == 1 ? "" : "s", kg_lint_unwaived(r),
          kg_lint_unwaived(r) == 1 ? "" : "s", r->nwaived);
  if (r->unknown_calls) fprintf(f, "; %d call%s into code the listing lacks, not followed", r->unknown_calls, r->unknown_calls == 1 ? "" : "s");
  fputc('\n', f);
}

/* "0x0ad0 LDG.E R6, desc[UR6][R6.64] (mut_fence.cuh:69)" */
static void format_at(char *buf, size_t len, const kg_lint_at *at) {
  const char *base = at->file ? strrchr(at->file, '/') : NULL;
  if (at->line)
    snprintf(buf, len, "0x%04x %s (%s:%d)", at->addr, at->text, base ? base + 1 : at->file ? at->file : "?", at->line);
  else snprintf(buf, len, "0x%04x %s", at->addr, at->text);
}

/* Text from a listing is data for JSON, Markdown and XML: printable ASCII only. */
static void plain(char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e) *s = '?';
}

int kg_lint_summarize(const kg_sass_listing *l, const kg_lint_report *r, kg_lint_module *m) {
  m->kernels = r->nkernels, m->tickets = r->ntickets, m->unknown_calls = r->unknown_calls;
  size_t n = kg_lint_unwaived(r);
  m->items = n ? calloc(n, sizeof *m->items) : NULL;
  m->waived = r->nused ? calloc(r->nused, sizeof *m->waived) : NULL;
  if ((n && !m->items) || (r->nused && !m->waived)) return -1;
  for (size_t k = 0; k < r->nfindings; k++) {
    const kg_lint_finding *x = &r->findings[k];
    if (x->waived) continue;
    kg_lint_item *it = &m->items[m->nitems++];
    snprintf(it->kernel, sizeof it->kernel, "%s", l->funcs[x->func].name);
    it->arch = l->funcs[x->func].arch;
    snprintf(it->side, sizeof it->side, "%s", x->side == KG_LINT_RELEASE ? "release" : x->side == KG_LINT_ACQUIRE ? "acquire" : "scope");
    format_at(it->first, sizeof it->first, &x->from);
    format_at(it->second, sizeof it->second, &x->to);
    snprintf(it->path, sizeof it->path, "%s", x->path);
    plain(it->kernel), plain(it->first), plain(it->second), plain(it->path);
  }
  for (size_t k = 0; k < r->nused; k++) {
    kg_lint_waived *w = &m->waived[m->nwaived++];
    snprintf(w->variant, sizeof w->variant, "%s", r->used[k]->kernel);
    snprintf(w->reason, sizeof w->reason, "%s", r->used[k]->reason);
    for (size_t i = 0; i < r->nfindings; i++) w->findings += r->findings[i].waived == r->used[k]->reason;
    plain(w->variant), plain(w->reason);
  }
  return 0;
}

void kg_lint_module_free(kg_lint_module *m) {
  free(m->items);
  free(m->waived);
  m->items = NULL, m->waived = NULL, m->nitems = m->nwaived = 0;
}
