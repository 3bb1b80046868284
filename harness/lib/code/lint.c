#include "lint.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "escape.h"

/* ---- what an instruction means for the rule ---- */

/* An instruction under @!PT never runs: no fence, no store, no load. */
static int runs(const kg_sass_insn *in) { return !kg_sass_never(in); }

/* A fence that orders memory for the whole GPU: MEMBAR.SC.GPU, MEMBAR.ALL.GPU
 * (a release atomic's), the .SYS ones; MEMBAR.GL on older parts. FENCE.VIEW.ASYNC
 * orders the async proxy only, MEMBAR.*.CTA the block only. */
static int is_gpu_fence(const kg_sass_insn *in) {
  return runs(in) && kg_sass_is(in, "MEMBAR") &&
         (kg_sass_has_mod(in, "GPU") || kg_sass_has_mod(in, "SYS") || kg_sass_has_mod(in, "GL"));
}

/* What an acquire adds after its load or atomic: the L1 invalidation. */
static int is_acquire(const kg_sass_insn *in) {
  return is_gpu_fence(in) || (runs(in) && kg_sass_is(in, "CCTL") && kg_sass_has_mod(in, "IVALL"));
}

/* Where an access's address points (space_of, below): a generic address
 * computed from the shared window is shared memory, one computed from a
 * kernel parameter or a global variable's address is global memory. */
enum { SP_UNKNOWN = 0, SP_SHARED = 1, SP_GLOBAL = 2 };

/* A read-modify-write that memory other blocks see may take: global or
 * generic (ATOMS is shared memory), its address not in the shared window. */
static int is_global_atomic(const kg_sass_insn *in, int sp) {
  return runs(in) && (kg_sass_is(in, "ATOM") || kg_sass_is(in, "ATOMG")) && sp != SP_SHARED;
}

/* Stores that other blocks can read: global and generic (ST may be global,
 * unless its address is in the shared window); reductions (RED, REDG) are
 * atomics whose result nobody reads. */
static int is_store(const kg_sass_insn *in, int sp) {
  static const char *const k[] = {"STG", "ST", "RED", "REDG", "SUST", "SURED"};
  for (size_t i = 0; i < sizeof k / sizeof k[0] && runs(in) && sp != SP_SHARED; i++)
    if (kg_sass_is(in, k[i])) return 1;
  return 0;
}

/* Strong at GPU or system scope (volatile, relaxed, acquire): .STRONG.SM is
 * of block scope. */
static int is_strong_gpu(const kg_sass_insn *in) {
  return kg_sass_has_mod(in, "STRONG") && (kg_sass_has_mod(in, "GPU") || kg_sass_has_mod(in, "SYS"));
}

/* A load that may see another block's data stale: global or generic (not in
 * the shared window), not strong at GPU scope (.STRONG.SM is a block-scope
 * load, weak against another block). */
static int is_weak_load(const kg_sass_insn *in, int sp) {
  return runs(in) && (kg_sass_is(in, "LDG") || kg_sass_is(in, "LD")) && !is_strong_gpu(in) && sp != SP_SHARED;
}

/* A strong load of GPU or system scope: the read of a flag another block raises. */
static int is_flag_load(const kg_sass_insn *in, int sp) {
  return runs(in) && (kg_sass_is(in, "LDG") || kg_sass_is(in, "LD")) && is_strong_gpu(in) && sp != SP_SHARED;
}

/* A strong store of GPU or system scope: a flag raised for another block. */
static int is_flag_store(const kg_sass_insn *in, int sp) {
  return runs(in) && (kg_sass_is(in, "STG") || kg_sass_is(in, "ST")) && is_strong_gpu(in) && sp != SP_SHARED;
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

/* SMEM: the end of the registers (shared memory is splaces'); BRES: a BAR.RED's result, which B2R reads */
enum { RBASE = 0, PBASE = 256, URBASE = 264, UPBASE = 328, SMEM = 336, BRES = 337, NLOC = 338, NW = 6 };
typedef struct regset {
  uint64_t w[NW];
} regset;

static void rs_set(regset *s, int b) { s->w[b / 64] |= 1ull << (b % 64); }
static int rs_has(const regset *s, int b) { return (int)(s->w[b / 64] >> (b % 64) & 1); }

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
  if (kg_sass_is(in, "VOTE") || kg_sass_is(in, "VOTEU")) return in->nops > 0;
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

/* The predicates of P2R's and R2P's mask (P2R R2, PR, RZ, 0x3: P0 and P1). */
static unsigned pr_mask(const kg_sass_insn *in) {
  return in->nops ? (unsigned)strtoul(in->ops[in->nops - 1], NULL, 0) & 0x7f : 0;
}

static void mask_preds(regset *s, unsigned m) {
  for (int p = 0; p < 7; p++)
    if (m >> p & 1) rs_set(s, PBASE + p);
}

static void dests_of(const kg_sass_insn *in, regset *d) {
  memset(d, 0, sizeof *d);
  if (!runs(in)) return;
  if (kg_sass_is(in, "R2P")) return mask_preds(d, pr_mask(in));
  if (kg_sass_is(in, "BAR") && kg_sass_has_mod(in, "RED")) rs_set(d, BRES);
  int nd = ndests(in), w = dest_width(in);
  if (nd > in->nops) nd = in->nops; /* VOTE.ANY with no operands written out */
  for (int k = 0; k < nd; k++) {
    int len, r = reg_at(in->ops[k], &len);
    for (int j = 0; r >= 0 && j < (r < PBASE ? w : 1); j++) rs_set(d, r + j);
  }
}

static void srcs_of(const kg_sass_insn *in, regset *s) {
  memset(s, 0, sizeof *s);
  for (int k = ndests(in); k < in->nops; k++) each_reg(in->ops[k], rs_set, s);
  if (kg_sass_is(in, "P2R")) mask_preds(s, pr_mask(in));
  if (kg_sass_is(in, "B2R")) rs_set(s, BRES);
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

/* ---- worklists: each dataflow visits a block again only when its input grew ---- */

typedef struct wl {
  int *q, head, n, cap;
  char *in;
} wl;

static int wl_init(wl *w, int nblocks) {
  w->cap = nblocks ? nblocks : 1, w->head = w->n = 0;
  w->q = malloc((size_t)w->cap * sizeof *w->q), w->in = calloc((size_t)w->cap, 1);
  return w->q && w->in ? 0 : -1;
}
static void wl_push(wl *w, int b) {
  if (w->in[b]) return;
  w->in[b] = 1, w->q[(w->head + w->n++) % w->cap] = b;
}
static int wl_pop(wl *w) {
  int b = w->q[w->head];
  w->head = (w->head + 1) % w->cap, w->n--, w->in[b] = 0;
  return b;
}
static void wl_free(wl *w) { free(w->q), free(w->in); }

/* ---- address spaces: where a generic address points, on every path ---- */

/* An operand that is the shared window's base: SR_SWINHI/SR_SWINLO, or
 * c[0x0][0x18] (the window as a 64-bit generic address). */
static int op_window(const char *o) {
  return strstr(o, "SR_SWIN") || strstr(o, "c[0x0][0x18]") || strstr(o, "c[0x0][0x1c]");
}

/* An operand that is a global address: a kernel parameter (c[0x0][0x210] on
 * from sm_90, c[0x0][0x160] before; below them the launch's own constants
 * and the memory descriptor), a global variable's address (c[0x4][...], a
 * relocation 32@lo(sym)). A pointer a kernel is given is global memory. */
static int op_global(const char *o, int arch) {
  if (strstr(o, "c[0x4][") || strstr(o, "@lo(") || strstr(o, "@hi(")) return 1;
  const char *c = strstr(o, "c[0x0][0x");
  if (!c) return 0;
  unsigned long x = strtoul(c + 7, NULL, 16);
  return x >= (arch >= 90 || arch == 0 ? 0x210ul : 0x160ul) && !(arch == 0 && x == 0x208);
}

/* Reads memory (the result is data, not an address computed from the
 * operands); LDC reads the constant bank, whose operand op_* judge. */
static int loads_data(const kg_sass_insn *in) {
  static const char *const k[] = {"LD", "LDG", "LDS", "LDL", "LDSM", "ATOM", "ATOMG", "ATOMS", "SULD", "TLD", "TEX"};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (kg_sass_is(in, k[i])) return 1;
  return 0;
}

/* The registers an access's address is made of: those in its last pair of
 * brackets ("desc[UR4][R2.64+0x10]": R2, R3). 0: no address operand. */
static int addr_regs(const kg_sass_insn *in, regset *a) {
  memset(a, 0, sizeof *a);
  for (int k = 0; k < in->nops; k++) {
    const char *b = strrchr(in->ops[k], '[');
    if (!b) continue;
    each_reg(b, rs_set, a);
    return 1;
  }
  return 0;
}

/* Registers derived from the window (sh) or from a global address (gl):
 * address arithmetic keeps where a pointer points; a register may be in one
 * only when every path makes it so (the sets meet by intersection). */
typedef struct spaces {
  regset sh, gl;
  char valid;
} spaces;

static void space_step(const kg_sass_insn *in, int arch, spaces *s) {
  regset d, src;
  dests_of(in, &d);
  if (kg_sass_is(in, "CALL")) { /* what the callee writes is not known here */
    memset(&s->sh, 0, sizeof s->sh), memset(&s->gl, 0, sizeof s->gl);
    return;
  }
  srcs_of(in, &src);
  int w = 0, g = 0;
  for (int k = ndests(in); k < in->nops; k++) w |= op_window(in->ops[k]), g |= op_global(in->ops[k], arch);
  w |= intersects(&src, &s->sh), g |= intersects(&src, &s->gl);
  int data = loads_data(in), to_sh = w && !g && !data, to_gl = g && !w && !data, guarded = guard_bit(in) >= 0;
  for (int k = 0; k < NW; k++) {
    uint64_t keep_sh = guarded ? s->sh.w[k] : 0, keep_gl = guarded ? s->gl.w[k] : 0;
    s->sh.w[k] = (s->sh.w[k] & ~d.w[k]) | (d.w[k] & (to_sh ? (guarded ? keep_sh : ~0ull) : 0));
    s->gl.w[k] = (s->gl.w[k] & ~d.w[k]) | (d.w[k] & (to_gl ? (guarded ? keep_gl : ~0ull) : 0));
  }
}

/* The space of one access, given the registers' spaces before it. */
static char access_space(const kg_sass_insn *in, const spaces *s) {
  static const char *const shared[] = {"LDS", "STS", "ATOMS", "LDSM", "STSM"};
  static const char *const global[] = {"LDG", "STG", "ATOMG", "REDG"};
  regset a;
  for (size_t k = 0; k < sizeof shared / sizeof shared[0]; k++)
    if (kg_sass_is(in, shared[k])) return SP_SHARED;
  for (size_t k = 0; k < sizeof global / sizeof global[0]; k++)
    if (kg_sass_is(in, global[k])) return SP_GLOBAL;
  if (!addr_regs(in, &a)) return SP_UNKNOWN;
  int sh = intersects(&a, &s->sh), gl = intersects(&a, &s->gl);
  return sh && !gl ? SP_SHARED : gl && !sh ? SP_GLOBAL : SP_UNKNOWN;
}

/* Every instruction's space (SP_*) in f, from a forward dataflow over its
 * blocks; NULL out of memory (every access then unknown). */
static char *spaces_of(const kg_sass_func *f) {
  char *sp = calloc((size_t)f->ninsns + 1, 1);
  spaces *in = calloc((size_t)f->nblocks + 1, sizeof *in);
  wl w = {0};
  if (!sp || !in || wl_init(&w, f->nblocks)) return free(sp), free(in), wl_free(&w), NULL;
  if (f->nblocks) in[0].valid = 1, wl_push(&w, 0);
  while (w.n) {
    int b = wl_pop(&w);
    spaces s = in[b];
    for (int i = f->blocks[b].first; i <= f->blocks[b].last; i++) space_step(&f->insns[i], f->arch, &s);
    for (int k = 0; k < f->blocks[b].nsucc; k++) {
      spaces *t = &in[f->blocks[b].succ[k]];
      int changed = !t->valid;
      if (!t->valid) *t = s;
      else
        for (int j = 0; j < NW; j++) {
          uint64_t sh = t->sh.w[j] & s.sh.w[j], gl = t->gl.w[j] & s.gl.w[j];
          changed |= sh != t->sh.w[j] || gl != t->gl.w[j];
          t->sh.w[j] = sh, t->gl.w[j] = gl;
        }
      if (changed) wl_push(&w, f->blocks[b].succ[k]);
    }
  }
  for (int b = 0; b < f->nblocks; b++) {
    spaces s = in[b];
    for (int i = f->blocks[b].first; i <= f->blocks[b].last; i++)
      sp[i] = access_space(&f->insns[i], &s), space_step(&f->insns[i], f->arch, &s);
  }
  free(in), wl_free(&w);
  return sp;
}

/* ---- subroutines: what a call does, summarised once per callee ---- */

typedef struct summary {
  char known;       /* the callee is in the listing */
  char fence_all;   /* every path through it passes an unguarded GPU-scope fence */
  char store;       /* a store may still be unfenced when it returns */
  char load;        /* a weak load may run before any fence */
  char atomic;      /* it takes a global atomic with a result: a call may be a ticket */
  char fence_first; /* every path to that atomic passes a fence first */
  char store_first; /* a store may be unfenced at that atomic */
  char load_after;  /* a weak load may run after that atomic with no acquire */
  char acq_open;    /* it may return with that atomic not acquired */
  char block_scope; /* that atomic is of block scope (on memory proven global) */
  char block_unknown; /* it takes a block-scope atomic on memory not proven global: no ticket, a note */
} summary;

/* The whole listing's analysis: the summaries of its callees, computed once
 * each (at their first call), and the deadline. */
typedef struct lint {
  const kg_sass_listing *l;
  summary **memo;        /* per function, per block: the summary of a call there */
  unsigned char **state; /* 0 not yet, 1 being computed (recursion), 2 done */
  char **space;          /* per function, per instruction: SP_* (spaces_of); NULL: unknown */
  kg_lint_report *r;
  double deadline;       /* seconds of kg_lint_clock(), 0: none */
  int late;
} lint;

static int space_at(const lint *L, const kg_sass_func *f, int i) {
  const char *sp = L->space ? L->space[f - L->l->funcs] : NULL;
  return sp ? sp[i] : SP_UNKNOWN;
}

enum { NOFENCE = 1, PEND = 2, TICK = 4, SEEN = 8 };

static summary call_summary(lint *L, const kg_sass_func *f, const kg_sass_insn *in);

/* The callee of a call: its function and first block; -1 when unknown. */
static int callee(const kg_sass_listing *l, const kg_sass_func *f, const kg_sass_insn *in, const kg_sass_func **cf) {
  if (!kg_sass_is(in, "CALL") || !runs(in)) return -1;
  if (in->jump >= 0) return *cf = f, f->block_of[in->jump];
  int k = in->target ? kg_sass_find(l, in->target, f->unit) : -1;
  if (k < 0 || &l->funcs[k] == f) return -1;
  *cf = &l->funcs[k];
  return 0;
}

static int has_result(const kg_sass_insn *in);

/* One block of a callee: the state bits NOFENCE, PEND and TICK through it. */
static int summary_step(lint *L, const kg_sass_func *f, int b, int st, summary *s) {
  for (int i = f->blocks[b].first; i <= f->blocks[b].last; i++) {
    const kg_sass_insn *in = &f->insns[i];
    summary sub = call_summary(L, f, in);
    int unguarded = guard_bit(in) < 0, sp = space_at(L, f, i);
    int atom = is_global_atomic(in, sp) && has_result(in),
        cta = kg_sass_has_mod(in, "SM") || kg_sass_has_mod(in, "CTA");
    if (atom && cta && sp != SP_GLOBAL) atom = 0, s->block_unknown = 1; /* block scope, memory not proven global */
    if (atom) {
      s->atomic = 1;
      if (st & NOFENCE) s->fence_first = 0;
      if (st & PEND) s->store_first = 1;
      s->block_scope |= cta;
    }
    if ((is_weak_load(in, sp) || sub.load) && (st & TICK)) s->load_after = 1;
    if ((is_gpu_fence(in) && unguarded) || sub.fence_all) st &= ~(NOFENCE | PEND | TICK);
    if (is_acquire(in) && unguarded) st &= ~TICK;
    if (is_store(in, sp) || (is_global_atomic(in, sp) && !has_result(in)) || sub.store) st |= PEND;
    if (atom) st |= TICK;
    if ((is_weak_load(in, sp) || sub.load) && (st & NOFENCE)) s->load = 1;
    if ((kg_sass_is(in, "RET") || kg_sass_is(in, "EXIT")) && runs(in)) {
      if (st & NOFENCE) s->fence_all = 0;
      if (st & PEND) s->store = 1;
      if (st & TICK) s->acq_open = 1;
    }
  }
  return st;
}

static summary compute_summary(lint *L, const kg_sass_func *cf, int start) {
  summary s = {1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0};
  int *st = calloc((size_t)cf->nblocks, sizeof *st);
  wl w = {0};
  if (!st || wl_init(&w, cf->nblocks)) {
    free(st), wl_free(&w);
    return (summary){1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0}; /* out of memory: assume the worst */
  }
  st[start] = NOFENCE | SEEN;
  wl_push(&w, start);
  while (w.n) {
    int b = wl_pop(&w), out = summary_step(L, cf, b, st[b] & ~SEEN, &s) | SEEN;
    for (int k = 0; k < cf->blocks[b].nsucc; k++) {
      int t = cf->blocks[b].succ[k];
      if ((st[t] | out) != st[t]) st[t] |= out, wl_push(&w, t);
    }
  }
  free(st), wl_free(&w);
  return s;
}

static summary call_summary(lint *L, const kg_sass_func *f, const kg_sass_insn *in) {
  const kg_sass_func *cf = NULL;
  int start = callee(L->l, f, in, &cf);
  if (start < 0) return (summary){0};
  int fi = (int)(cf - L->l->funcs);
  if (!L->memo[fi]) {
    L->memo[fi] = calloc((size_t)cf->nblocks, sizeof **L->memo);
    L->state[fi] = calloc((size_t)cf->nblocks, 1);
    if (!L->memo[fi] || !L->state[fi]) {
      free(L->memo[fi]), free(L->state[fi]), L->memo[fi] = NULL, L->state[fi] = NULL;
      return (summary){1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0};
    }
  }
  /* a recursive call: it may store and load, and fences nothing */
  if (L->state[fi][start] == 1) return (summary){1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0};
  if (L->state[fi][start] == 0) {
    L->state[fi][start] = 1;
    L->memo[fi][start] = compute_summary(L, cf, start);
    L->state[fi][start] = 2;
  }
  return L->memo[fi][start];
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

/* ---- tickets: does the atomic's result decide a last-block branch? ---- */

typedef struct ctx {
  lint *L;
  const kg_sass_func *f;
  int func;
  summary *calls; /* per instruction (known = 0 for non-calls) */
  char *ticket;   /* per instruction */
  int *decide;    /* per ticket: the compare of its result, -1 none */
  int **preds;    /* per block: its predecessors, -1 ended */
  size_t first;   /* the kernel's first finding */
  kg_lint_report *r;
  regset cmp_src; /* the sources of the ticket's compare, while its acquire side is walked */
} ctx;

/* Places in shared memory that a taint reached: each access's byte range
 * at its address's constant offset ([UR4+0x7200] and [UR6+0x7200] are one
 * place: the base registers of a block's shared window differ by name only;
 * [R41+0x400] another). More places than it holds: all of shared memory. */
enum { NSPLACE = 8 };
typedef struct splaces {
  int32_t off[NSPLACE];
  unsigned char len[NSPLACE], n, all;
} splaces;

static int is_zero_op(const char *o) { return !strcmp(o, "RZ") || !strcmp(o, "URZ") || !strcmp(o, "0x0"); }

/* The constant that the block adds to register r before instruction i:
 * -O0 code folds a variable's offset into its address register
 * (IADD3 R0, R0, 0x7200, RZ; STS [R0]), through copies. */
static long added_in_block(const kg_sass_func *f, int i, int r) {
  long sum = 0;
  for (int j = i - 1; j >= f->blocks[f->block_of[i]].first; j--) {
    const kg_sass_insn *in = &f->insns[j];
    regset d;
    dests_of(in, &d);
    if (!rs_has(&d, r)) continue;
    int len, a = in->nops > 1 ? reg_at(in->ops[1], &len) : -1;
    if (guard_bit(in) >= 0) return sum;
    /* an address that is a constant: IADD3 R0, RZ, 0x7e00, RZ; MOV R0, 0x7e00 */
    if ((kg_sass_is(in, "IADD3") || kg_sass_is(in, "UIADD3")) && in->nops == 4 && is_zero_op(in->ops[1]) &&
        !strncmp(in->ops[2], "0x", 2) && is_zero_op(in->ops[3]))
      return sum + strtol(in->ops[2], NULL, 16);
    if ((kg_sass_is(in, "MOV") || kg_sass_is(in, "UMOV")) && in->nops == 2 && !strncmp(in->ops[1], "0x", 2))
      return sum + strtol(in->ops[1], NULL, 16);
    if (a < 0 || in->ops[1][len]) return sum;
    if ((kg_sass_is(in, "IADD3") || kg_sass_is(in, "UIADD3")) && in->nops == 4 && !strncmp(in->ops[2], "0x", 2) &&
        is_zero_op(in->ops[3]) && !kg_sass_has_mod(in, "X"))
      sum += strtol(in->ops[2], NULL, 16);
    else if (kg_sass_is(in, "VIADD") && in->nops == 3 && !strncmp(in->ops[2], "0x", 2))
      sum += strtol(in->ops[2], NULL, 16);
    else if (!((kg_sass_is(in, "MOV") || kg_sass_is(in, "UMOV")) && in->nops == 2))
      return sum;
    r = a;
  }
  return sum;
}

/* The shared-memory operand of instruction i ("[UR4+0x7200]"): its byte
 * range, the constant in the brackets (0 when none) plus what the block
 * added to its one register, and the access's width. */
static int splace_of(const kg_sass_func *f, int i, int32_t *off, int *len) {
  const kg_sass_insn *in = &f->insns[i];
  const char *o = NULL;
  for (int k = 0; k < in->nops && !o; k++)
    if (in->ops[k][0] == '[') o = in->ops[k];
  if (!o) return -1;
  const char *x = strstr(o, "0x");
  long v = x ? strtol(x, NULL, 16) : 0;
  if (x && x > o && x[-1] == '-') v = -v;
  int rl, r = reg_at(o + 1, &rl);
  if (r >= 0 && r != PBASE && (o[1 + rl] == ']' || o[1 + rl] == '+' || o[1 + rl] == '-') && !strstr(o + 1 + rl, "R"))
    v += added_in_block(f, i, r);
  *off = (int32_t)v;
  *len = kg_sass_has_mod(in, "128")                                 ? 16
         : kg_sass_has_mod(in, "64")                                ? 8
         : kg_sass_has_mod(in, "U8") || kg_sass_has_mod(in, "S8")   ? 1
         : kg_sass_has_mod(in, "U16") || kg_sass_has_mod(in, "S16") ? 2
                                                                    : 4;
  return 0;
}

static int sp_has(const splaces *s, int32_t off, int len) {
  if (s->all) return 1;
  for (int k = 0; k < s->n; k++)
    if (off < s->off[k] + s->len[k] && s->off[k] < off + len) return 1;
  return 0;
}

static int sp_add(splaces *s, int32_t off, int len) { /* 1: it grew */
  if (s->all) return 0;
  for (int k = 0; k < s->n; k++)
    if (s->off[k] == off && s->len[k] >= len) return 0;
  if (s->n == NSPLACE) return s->all = 1;
  s->off[s->n] = off, s->len[s->n++] = (unsigned char)len;
  return 1;
}

static int sp_merge(splaces *to, const splaces *from) {
  int changed = 0;
  if (from->all && !to->all) to->all = 1, changed = 1;
  for (int k = 0; k < from->n; k++) changed |= sp_add(to, from->off[k], from->len[k]);
  return changed;
}

/* The taint of an atomic's result: v holds the result itself (copied, plus a
 * constant, through shared memory or a shuffle), d a decision made from it (a
 * comparison of v, and whatever is computed from that: flags, P2R, SEL, a
 * BAR.RED), a anything computed from it (addresses, loop bounds). */
typedef struct taint {
  regset v, d, a;
  splaces sv, sd, sa; /* the same for shared memory, place by place */
} taint;

static int is_compare(const kg_sass_insn *in) {
  size_t b = strcspn(in->op, ".");
  return b >= 4 && !strncmp(in->op + b - 4, "SETP", 4);
}

static int keeps_value(const kg_sass_insn *in) {
  /* copies, plus or minus a constant, a field masked out (a count in the low bits) */
  static const char *const k[] = {"MOV",  "UMOV", "MOV32I", "IADD3", "UIADD3", "IADD", "IADD32I", "VIADD",
                                  "R2UR", "SHFL", "LDS",    "LOP3",  "ULOP3",  "LOP",  "LOP32I"};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (kg_sass_is(in, k[i])) return 1;
  return kg_sass_is(in, "IMAD") && (kg_sass_has_mod(in, "MOV") || kg_sass_has_mod(in, "IADD"));
}

/* IMAD R8, R13, R15, R8: the value plus a product (a warp-aggregated
 * atomic's share of its lane), not the value times something (a tile's offset). */
static int adds_to(const kg_sass_insn *in, const regset *v) {
  if (!kg_sass_is(in, "IMAD") || in->nops != 4) return 0;
  regset m = {{0}}, a = {{0}};
  each_reg(in->ops[1], rs_set, &m);
  each_reg(in->ops[2], rs_set, &m);
  each_reg(in->ops[3], rs_set, &a);
  return intersects(&a, v) && !intersects(&m, v);
}

/* A read of global memory, weak or strong (a strong one reads other blocks'
 * data as well, and needs no acquire). */
static int is_guarded_load(const ctx *c, int i) {
  const kg_sass_insn *in = &c->f->insns[i];
  return (runs(in) && (kg_sass_is(in, "LDG") || kg_sass_is(in, "LD")) && space_at(c->L, c->f, i) != SP_SHARED) ||
         c->calls[i].load;
}

static int guard_loc(const kg_sass_insn *in) {
  return in->guard >= 0 && in->guard < KG_SASS_PT ? (in->guard < 8 ? PBASE + in->guard : UPBASE + in->guard - 8) : -1;
}

/* One instruction: the taint through it. *decides: it is a branch or a
 * guarded load that a decision decides; *addr_t: its sources are tainted. */
static void taint_insn(const ctx *c, int i, int a, taint *t, int *decides, int *addr_t, int *compare) {
  const kg_sass_insn *in = &c->f->insns[i];
  regset src, d;
  dests_of(in, &d);
  *decides = *addr_t = *compare = 0;
  if (i == a) { /* a ticket in a callee: what the callee writes is its result */
    if (kg_sass_is(in, "CALL")) callee_dests(c->L->l, c->f, in, &d);
    for (int k = 0; k < NW; k++) t->v.w[k] |= d.w[k], t->a.w[k] |= d.w[k];
    return;
  }
  if (!runs(in)) return;
  srcs_of(in, &src);
  int lds = kg_sass_is(in, "LDS"), g = guard_loc(in);
  regset addr = src; /* the sources but the guard: what an address is computed from */
  if (g >= 0) addr.w[g / 64] &= ~(1ull << (g % 64));
  int32_t off = 0;
  int len = 0;
  if ((lds || kg_sass_is(in, "STS") || kg_sass_is(in, "ATOMS")) && splace_of(c->f, i, &off, &len)) lds = 0;
  *addr_t = intersects(&t->a, &addr) || (lds && sp_has(&t->sa, off, len));
  int sv = intersects(&t->v, &src) || (lds && sp_has(&t->sv, off, len));
  int sd = intersects(&t->d, &src) || (lds && sp_has(&t->sd, off, len));
  int sa = intersects(&t->a, &src) || (lds && sp_has(&t->sa, off, len));
  int gd = g >= 0 && rs_has(&t->d, g);
  if ((is_control(in) && (sd || gd)) || (gd && is_guarded_load(c, i))) *decides = 1;
  *compare = sv && is_compare(in);
  if (kg_sass_is(in, "STS") || kg_sass_is(in, "ATOMS")) {
    if (len && sv) sp_add(&t->sv, off, len);
    if (len && sd) sp_add(&t->sd, off, len);
    if (len && sa) sp_add(&t->sa, off, len);
    return;
  }
  if ((sv || sd || sa) && kg_sass_is(in, "CALL")) callee_dests(c->L->l, c->f, in, &d);
  int nv = sv && (keeps_value(in) || adds_to(in, &t->v)), nd = sd || *compare || (gd && !is_control(in)),
      na = sv || sd || sa;
  for (int k = 0; k < NW; k++) {
    uint64_t keep = guard_bit(in) < 0 ? ~d.w[k] : ~0ull;
    t->v.w[k] = (t->v.w[k] & keep) | (nv ? d.w[k] : 0);
    t->d.w[k] = (t->d.w[k] & keep) | (nd ? d.w[k] : 0);
    t->a.w[k] = (t->a.w[k] & keep) | (na ? d.w[k] : 0);
  }
}

static int taint_merge(taint *to, const taint *from) {
  int changed = 0;
  for (int k = 0; k < NW; k++) {
    uint64_t v = to->v.w[k] | from->v.w[k], d = to->d.w[k] | from->d.w[k], x = to->a.w[k] | from->a.w[k];
    changed |= v != to->v.w[k] || d != to->d.w[k] || x != to->a.w[k];
    to->v.w[k] = v, to->d.w[k] = d, to->a.w[k] = x;
  }
  changed |= sp_merge(&to->sv, &from->sv);
  changed |= sp_merge(&to->sd, &from->sd);
  changed |= sp_merge(&to->sa, &from->sa);
  return changed;
}

/* The blocks reachable from block s without passing block cut. */
static void reach(const kg_sass_func *f, int s, int cut, char *seen, int *stack) {
  int n = 0;
  if (s < 0 || s == cut) return;
  seen[s] = 1, stack[n++] = s;
  while (n) {
    int b = stack[--n];
    for (int k = 0; k < f->blocks[b].nsucc; k++) {
      int t = f->blocks[b].succ[k];
      if (t != cut && !seen[t]) seen[t] = 1, stack[n++] = t;
    }
  }
}

/* Whether the branch (or EXIT) at instruction i guards a load that reads
 * other blocks' data: a weak load (its address not computed from the result)
 * that one side of the branch reaches and the other does not. */
static int guards_read(const ctx *c, int i, const char *addr_t) {
  const kg_sass_func *f = c->f;
  const kg_sass_insn *in = &f->insns[i];
  int b = f->block_of[i], branch = kg_sass_is(in, "BRA") || kg_sass_is(in, "JMP"), found = 0;
  if (kg_sass_is(in, "BRX") || kg_sass_is(in, "JMX") || (branch && in->jump < 0)) return 1; /* goes anywhere */
  char *s1 = calloc((size_t)f->nblocks, 1), *s2 = calloc((size_t)f->nblocks, 1);
  int *stack = malloc((size_t)f->nblocks * sizeof *stack);
  if (!s1 || !s2 || !stack) return free(s1), free(s2), free(stack), 1;
  if (branch) {
    int taken = f->block_of[in->jump], fall = -1;
    for (int k = 0; k < f->blocks[b].nsucc; k++)
      if (f->blocks[b].succ[k] == b + 1 && b + 1 != taken) fall = b + 1;
    reach(f, taken, b, s1, stack);
    reach(f, fall, b, s2, stack);
  } else { /* EXIT, RET, KILL: one side goes nowhere, the other on */
    for (int k = i + 1; k <= f->blocks[b].last && !found; k++) found = is_guarded_load(c, k) && !addr_t[k];
    for (int k = 0; k < f->blocks[b].nsucc; k++) reach(f, f->blocks[b].succ[k], b, s1, stack);
  }
  for (int x = 0; x < f->nblocks && !found; x++)
    if (s1[x] != s2[x])
      for (int k = f->blocks[x].first; k <= f->blocks[x].last && !found; k++)
        found = is_guarded_load(c, k) && !addr_t[k];
  free(s1), free(s2), free(stack);
  return found;
}

/* A ticket: the atomic's result, compared, decides a branch (or the guard of a
 * load) that guards a read of other blocks' data. Returns the compare (the
 * first of the result, -1 when the decision came through a callee), -2 when
 * it is no ticket. */
static int decides_branch(const ctx *c, int a) {
  const kg_sass_func *f = c->f;
  taint *in = calloc((size_t)f->nblocks, sizeof *in);
  char *addr_t = calloc((size_t)f->ninsns, 1), *dec = calloc((size_t)f->ninsns, 1);
  wl w = {0};
  int rc = -2, cmp = -1;
  if (!in || !addr_t || !dec || wl_init(&w, f->nblocks)) {
    free(in), free(addr_t), free(dec), wl_free(&w);
    return -1; /* out of memory: check it as a ticket rather than miss one */
  }
  wl_push(&w, f->block_of[a]);
  while (w.n) {
    int b = wl_pop(&w), d, at, cp;
    taint t = in[b];
    for (int i = f->blocks[b].first; i <= f->blocks[b].last; i++) {
      taint_insn(c, i, a, &t, &d, &at, &cp);
      addr_t[i] |= (char)at, dec[i] |= (char)d;
      if (cp && (cmp < 0 || i < cmp)) cmp = i;
    }
    for (int k = 0; k < f->blocks[b].nsucc; k++)
      if (taint_merge(&in[f->blocks[b].succ[k]], &t)) wl_push(&w, f->blocks[b].succ[k]);
  }
  for (int i = 0; i < f->ninsns && rc == -2; i++) {
    if (!dec[i]) continue;
    if (!is_control(&f->insns[i])) rc = addr_t[i] ? -2 : cmp; /* a guarded load */
    else if (guards_read(c, i, addr_t)) rc = cmp;
  }
  free(in), free(addr_t), free(dec), wl_free(&w);
  return rc;
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
    for (int i = x == ba ? a + 1 : f->blocks[x].first; i <= f->blocks[x].last && !cut; i++)
      cut = stops(&f->insns[i], g);
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
  for (size_t k = c->first; k < r->nfindings; k++) {
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

/* ---- where a predicate's value is held: saved and restored through registers ---- */

/* A literal: a predicate or register (loc), which bit of a register holds it
 * (bit + 1; 0: the register is nonzero), negated or not. 0: not known. */
static int lit_make(int loc, int bit, int neg) { return 1 + ((loc * 9 + bit) * 2 + neg); }
static void lit_parts(int lit, int *loc, int *bit, int *neg) {
  int x = lit - 1;
  *neg = x & 1, x >>= 1, *bit = x % 9, *loc = x / 9;
}
static int lit_not(int lit) { return lit ? ((lit - 1) ^ 1) + 1 : 0; }
static int guard_lit(const kg_sass_insn *in) {
  int g = guard_loc(in);
  return g < 0 ? 0 : lit_make(g, 0, in->guard_neg);
}
static int single_bit(unsigned m) {
  for (int k = 0; k < 32; k++)
    if (m == 1u << k) return k;
  return -1;
}
static int op_loc(const kg_sass_insn *in, int k) {
  int len;
  return k < in->nops ? reg_at(in->ops[k], &len) : -1;
}
/* ISETP.NE.AND P0, PT, R5, RZ, PT: P0 is whether R5 is nonzero (EQ: zero);
 * the register, -1 for another compare. */
static int test_of(const kg_sass_insn *in, int *eq) {
  if (!is_compare(in) || in->nops != 5 || strcmp(in->ops[1], "PT") || strcmp(in->ops[4], "PT") ||
      !is_zero_op(in->ops[3]))
    return -1;
  *eq = kg_sass_has_mod(in, "EQ");
  return kg_sass_has_mod(in, "NE") || *eq ? op_loc(in, 2) : -1;
}

/* The literal before instruction in, given it after: follows the copies that
 * save and restore a predicate (P2R, R2P, a test against zero, SEL, MOV); 0
 * when in writes its place otherwise. */
static int lit_before(const kg_sass_insn *in, int lit) {
  regset d;
  dests_of(in, &d);
  int loc, bit, neg, eq, r;
  if (!lit) return 0;
  lit_parts(lit, &loc, &bit, &neg);
  if (!rs_has(&d, loc)) return lit;
  if (guard_bit(in) >= 0) return 0; /* it may or may not have run */
  unsigned m = pr_mask(in);
  if ((r = test_of(in, &eq)) >= 0 && op_loc(in, 0) == loc) return lit_make(r, 0, neg ^ eq);
  if (kg_sass_is(in, "R2P") && loc >= PBASE && loc < PBASE + 7 && (r = op_loc(in, 1)) >= 0)
    return lit_make(r, loc - PBASE + 1, neg);
  if (kg_sass_is(in, "P2R") && in->nops == 4 && op_loc(in, 0) == loc) {
    if (!bit && is_zero_op(in->ops[2]) && single_bit(m) >= 0) return lit_make(PBASE + single_bit(m), 0, neg);
    if (bit && (m >> (bit - 1) & 1)) return lit_make(PBASE + bit - 1, 0, neg);
    return bit && (r = op_loc(in, 2)) >= 0 ? lit_make(r, bit, neg) : 0;
  }
  if (kg_sass_is(in, "SEL") && in->nops == 4 && bit <= 1 && (r = op_loc(in, 3)) >= PBASE && !strchr(in->ops[3], '!')) {
    if (is_zero_op(in->ops[1]) && !strcmp(in->ops[2], "0x1")) return lit_make(r, 0, neg ^ 1);
    if (is_zero_op(in->ops[2]) && !strcmp(in->ops[1], "0x1")) return lit_make(r, 0, neg);
  }
  if ((kg_sass_is(in, "MOV") && in->nops == 2 && (r = op_loc(in, 1)) >= 0) ||
      (kg_sass_is(in, "IMAD") && kg_sass_has_mod(in, "MOV") && in->nops == 4 && (r = op_loc(in, 3)) >= 0))
    return lit_make(r, bit, neg);
  return 0;
}

/* ---- the release side: back from each ticket to the stores before it ---- */

/* What an instruction is to the rule (ctx's ticket), find_tickets says. */
enum { TICKET = 1, WAIT = 2, RAISE = 3 };

/* The address an access names, as written in its last brackets, its width
 * suffix aside ("desc[UR4][R4.64+0x8]": "R4+0x8"); 0 when it has none. */
static int word_text(const kg_sass_insn *in, char *out, size_t len) {
  for (int k = 0; k < in->nops; k++) {
    const char *b = strrchr(in->ops[k], '[');
    if (!b) continue;
    size_t n = 0;
    for (const char *q = b + 1; *q && *q != ']' && n + 1 < len; q++) {
      if (!strncmp(q, ".64", 3)) q += 2;
      else out[n++] = *q;
    }
    out[n] = '\0';
    return n > 0;
  }
  return 0;
}

/* Whether instruction i reaches instruction j on some path (j after i in
 * its block, or j's block reachable from i's). */
static int reaches(const kg_sass_func *f, int i, int j) {
  int bi = f->block_of[i], bj = f->block_of[j];
  if (bi == bj && j > i) return 1;
  char *seen = calloc((size_t)f->nblocks, 1);
  int *stack = malloc((size_t)f->nblocks * sizeof *stack), n = 0, found = 0;
  if (!seen || !stack) return free(seen), free(stack), 1; /* out of memory: assume it does */
  for (int k = 0; k < f->blocks[bi].nsucc; k++)
    if (!seen[f->blocks[bi].succ[k]]) seen[f->blocks[bi].succ[k]] = 1, stack[n++] = f->blocks[bi].succ[k];
  while (n && !found) {
    int b = stack[--n];
    found = b == bj;
    for (int k = 0; k < f->blocks[b].nsucc; k++)
      if (!seen[f->blocks[b].succ[k]]) seen[f->blocks[b].succ[k]] = 1, stack[n++] = f->blocks[b].succ[k];
  }
  free(seen), free(stack);
  return found;
}

/* Whether access j reads or writes the very word ticket t takes: the same
 * address as written, from registers no instruction the ticket reaches
 * writes (so one value wherever they are read). A CAS loop's retry, a
 * semaphore's count or a barrier's phase read back is that word, not data
 * of other blocks the ticket orders. */
static int same_word(const ctx *c, int j, int t) {
  char a[64], b[64];
  const kg_sass_func *f = c->f;
  if (!word_text(&f->insns[j], a, sizeof a) || !word_text(&f->insns[t], b, sizeof b) || strcmp(a, b)) return 0;
  regset r, d;
  if (!addr_regs(&f->insns[t], &r)) return 0;
  for (int k = 0; k < f->ninsns; k++) {
    dests_of(&f->insns[k], &d);
    if (intersects(&d, &r) && (reaches(f, t, k) || kg_sass_is(&f->insns[k], "CALL"))) return 0;
  }
  return 1;
}

/* What must be ordered before t: for a ticket every store and atomic but
 * the tickets; for a raised flag the data, written by weak stores (a strong
 * store or an atomic before it is another flag, or a counter: the other
 * side reads it by itself, needing no order). */
static int is_source(const ctx *c, int i, int t) {
  const kg_sass_insn *in = &c->f->insns[i];
  int sp = space_at(c->L, c->f, i);
  if (c->ticket[t] == RAISE)
    return (is_store(in, sp) && !is_strong_gpu(in) && !kg_sass_is(in, "RED") && !kg_sass_is(in, "REDG") &&
            !kg_sass_is(in, "SURED")) ||
           c->calls[i].store;
  return (is_store(in, sp) || is_global_atomic(in, sp) || c->calls[i].store) && c->ticket[i] != TICKET;
}

/* A set of (block, literal) pairs: where the backward walk has been. */
typedef struct seen_set {
  uint64_t *k;
  size_t n, cap;
} seen_set;

static int seen_add(seen_set *s, uint64_t key) { /* 1: new, 0: there, -1: out of memory */
  if (2 * (s->n + 1) > s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    uint64_t *k = calloc(cap, sizeof *k);
    if (!k) return -1;
    for (size_t i = 0; i < s->cap; i++)
      if (s->k[i]) {
        size_t h = (size_t)(s->k[i] * 0x9e3779b97f4a7c15ull) & (cap - 1);
        while (k[h]) h = (h + 1) & (cap - 1);
        k[h] = s->k[i];
      }
    free(s->k), s->k = k, s->cap = cap;
  }
  key++; /* 0 marks a free slot */
  size_t h = (size_t)(key * 0x9e3779b97f4a7c15ull) & (s->cap - 1);
  for (; s->k[h]; h = (h + 1) & (s->cap - 1))
    if (s->k[h] == key) return 0;
  s->k[h] = key, s->n++;
  return 1;
}

/* Walks back from ticket t, block by block, carrying where the ticket's
 * guard is held: a fence under it (or none) ends the walk, a store met first
 * is a finding, unless it runs under the opposite guard. */
static int release_side(ctx *c, int t) {
  const kg_sass_func *f = c->f;
  const summary *ts = &c->calls[t];
  if (ts->atomic && ts->store_first && add_finding(c, KG_LINT_RELEASE, t, t)) return -1;
  if (ts->atomic && ts->fence_first) return 0;
  seen_set seen = {0};
  int *stack = NULL, n = 0, cap = 0, rc = 0;
  /* (block, literal, from which instruction down) */
  int b0 = f->block_of[t], lit = guard_lit(&f->insns[t]), from = t - 1;
  for (;;) {
    int stop = 0;
    for (int j = from; j >= f->blocks[b0].first && !stop && !rc; j--) {
      const kg_sass_insn *in = &f->insns[j];
      int gl = guard_lit(in);
      if (is_gpu_fence(in) || c->calls[j].fence_all) stop = !gl || (lit && gl == lit);
      if (!stop && is_source(c, j, t) && !(lit && gl && gl == lit_not(lit)) && !same_word(c, j, t))
        rc = add_finding(c, KG_LINT_RELEASE, j, t);
      lit = lit_before(in, lit);
    }
    for (int k = 0; !stop && !rc && c->preds[b0][k] >= 0; k++) {
      int p = c->preds[b0][k], isnew = seen_add(&seen, (uint64_t)p << 32 | (uint32_t)lit);
      if (isnew < 0) rc = -1;
      if (isnew <= 0) continue;
      if (n + 2 > cap) {
        int *q = realloc(stack, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *q);
        if (!q) rc = -1;
        else stack = q;
      }
      if (!rc) stack[n++] = p, stack[n++] = lit;
    }
    if (rc || !n) break;
    lit = stack[--n], b0 = stack[--n], from = f->blocks[b0].last;
  }
  free(stack), free(seen.k);
  return rc;
}

/* ---- the acquire side: a ticket to weak loads, in two worlds ---- */

/* The walk from a ticket follows two worlds: one where its compare came out
 * true, one where it came out false. Each knows which places hold zero or
 * nonzero (predicates, registers, shared-memory flags at one address, a
 * BAR.RED's result), so that a path the compare rules out (the last-block
 * flag read back after the barrier says "not last") is not followed. */
enum { NSLOT = 4 };
typedef struct slot {
  uint32_t addr; /* the place's key (place_key), 0 free */
  int32_t off;   /* the place: splace_of's bytes */
  unsigned char len;
  signed char val;
  unsigned char bit;
} slot;

typedef struct world {
  unsigned char live, on;
  unsigned char decided; /* the compare has run on every path here */
  unsigned char same;    /* and none of its sources was written since: the same compare again gives its result */
  signed char bres;      /* the BAR.RED result: 1, 0, -1 not known */
  uint32_t fenced;       /* guard bits under which an acquire ran */
  regset kt, kf;         /* places known nonzero, known zero */
  unsigned char bit[PBASE]; /* of a register known nonzero: its one bit set, 255 any */
  slot s[NSLOT];
} world;

static int known(const world *w, int loc) {
  return loc < 0 ? -1 : rs_has(&w->kt, loc) ? 1 : rs_has(&w->kf, loc) ? 0 : -1;
}
static void forget(world *w, int loc) {
  if (loc < 0) return;
  w->kt.w[loc / 64] &= ~(1ull << (loc % 64)), w->kf.w[loc / 64] &= ~(1ull << (loc % 64));
  if (loc < PBASE) w->bit[loc] = 255;
}
static void learn(world *w, int loc, int val, int bit) {
  forget(w, loc);
  if (loc < 0 || val < 0) return;
  rs_set(val ? &w->kt : &w->kf, loc);
  if (loc < PBASE) w->bit[loc] = val ? (unsigned char)bit : 255;
}
/* An operand's value: 1 nonzero, 0 zero, -1 not known; *bit its one bit */
static int value_of(const world *w, const char *o, int *bit) {
  int len, r = reg_at(o, &len);
  *bit = 255;
  if (is_zero_op(o)) return 0;
  if (!strncmp(o, "0x", 2)) {
    unsigned long v = strtoul(o, NULL, 16);
    *bit = single_bit((unsigned)v) >= 0 ? (unsigned char)single_bit((unsigned)v) : 255;
    return v != 0;
  }
  if (r < 0 || o[len]) return -1;
  *bit = r < PBASE ? w->bit[r] : 255;
  return known(w, r);
}
/* A shared-memory place as a slot's key: the same place as the taint's. */
static uint32_t place_key(const kg_sass_func *f, int i, int32_t *off, int *len) {
  if (splace_of(f, i, off, len)) return 0;
  uint32_t h = ((uint32_t)*off * 2654435761u) ^ (uint32_t)*len;
  return h ? h : 1;
}
static slot *slot_of(world *w, uint32_t h) {
  for (int k = 0; k < NSLOT; k++)
    if (w->s[k].addr == h) return &w->s[k];
  return NULL;
}

/* PLOP3.LUT P0, PT, P1, PT, PT, 0x80, 0x0: the table of three predicates
 * (a 0xf0, b 0xcc, c 0xaa as for LOP3), known (0 or 1) when every value
 * the unknown inputs allow gives one result; else -1. */
static int plop3_value(const world *s, const kg_sass_insn *in) {
  unsigned lut = (unsigned)strtoul(in->ops[5], NULL, 16);
  int val[3], res = -1;
  for (int k = 0; k < 3; k++) {
    int pn, p = kg_sass_pred(in->ops[2 + k], &pn);
    val[k] = p == KG_SASS_PT ? !pn : p >= 0 && p < KG_SASS_PT ? known(s, p < 8 ? PBASE + p : UPBASE + p - 8) : -1;
    if (val[k] >= 0 && p != KG_SASS_PT) val[k] ^= pn;
  }
  for (int m = 0; m < 8 && res != 2; m++) {
    int a = m >> 2 & 1, b = m >> 1 & 1, cc = m & 1;
    if ((val[0] >= 0 && val[0] != a) || (val[1] >= 0 && val[1] != b) || (val[2] >= 0 && val[2] != cc)) continue;
    int r = (int)(lut >> (a * 4 + b * 2 + cc) & 1);
    res = res < 0 ? r : res == r ? r : 2;
  }
  return res == 2 ? -1 : res;
}

/* What an instruction that surely runs tells of the value it writes: read
 * in s (before it), learnt in w (after it, its results forgotten). */
static void learn_from(const world *s, world *w, const kg_sass_func *f, int i) {
  const kg_sass_insn *in = &f->insns[i];
  int eq, r, bit = 255, v, d0 = op_loc(in, 0);
  unsigned m = pr_mask(in);
  if ((r = test_of(in, &eq)) >= 0) {
    v = known(s, r);
    learn(w, d0, v < 0 ? -1 : v ^ eq, 0);
  } else if (is_compare(in) && in->nops >= 3 && (kg_sass_has_mod(in, "OR") || kg_sass_has_mod(in, "AND"))) {
    /* ISETP.GE.U32.OR P0, PT, R0, c[..], !P0: a compare joined with a
     * predicate that decides it alone (true for OR, false for AND) */
    int pn, p = kg_sass_pred(in->ops[in->nops - 1], &pn), or = kg_sass_has_mod(in, "OR");
    int pv = p >= 0 && p < KG_SASS_PT ? known(s, p < 8 ? PBASE + p : UPBASE + p - 8) : -1;
    if (pv >= 0 && (pv ^ pn) == or) learn(w, d0, or, 0);
  } else if (kg_sass_is(in, "P2R") && in->nops == 4 && is_zero_op(in->ops[2])) {
    int any = 0, all0 = 1, k1 = -1;
    for (int p = 0; p < 7; p++)
      if (m >> p & 1) {
        v = known(s, PBASE + p);
        any |= v == 1, all0 &= v == 0;
        if (v == 1) k1 = p;
      }
    learn(w, d0, any ? 1 : all0 ? 0 : -1, single_bit(m) >= 0 ? k1 : 255);
  } else if (kg_sass_is(in, "R2P") && (r = op_loc(in, 1)) >= 0) {
    v = known(s, r);
    for (int p = 0; p < 7; p++)
      if (m >> p & 1) learn(w, PBASE + p, v == 0 ? 0 : v == 1 && s->bit[r] == p && single_bit(m) == p ? 1 : -1, 0);
  } else if (kg_sass_is(in, "SEL") && in->nops == 4) {
    int pn, p = kg_sass_pred(in->ops[3], &pn),
            pv = p >= 0 && p < KG_SASS_PT ? known(s, p < 8 ? PBASE + p : UPBASE + p - 8) : -1;
    v = pv < 0 ? -1 : value_of(s, in->ops[(pv ^ pn) ? 1 : 2], &bit);
    learn(w, d0, v, bit);
  } else if ((kg_sass_is(in, "MOV") && in->nops == 2) ||
             (kg_sass_is(in, "IMAD") && kg_sass_has_mod(in, "MOV") && in->nops == 4)) {
    v = value_of(s, in->ops[in->nops - 1], &bit);
    learn(w, d0, v, bit);
  } else if (kg_sass_is(in, "PLOP3") && in->nops == 7) {
    learn(w, d0, plop3_value(s, in), 0);
  } else if (kg_sass_is(in, "PRMT") && in->nops == 4 && is_zero_op(in->ops[3]) && !strncmp(in->ops[2], "0x", 2)) {
    /* bytes of a flag moved or sign-extended (-O0 code of a bool): zero
     * stays zero; byte 0 kept in place keeps a bit of byte 0 */
    unsigned sel = (unsigned)strtoul(in->ops[2], NULL, 16);
    v = value_of(s, in->ops[1], &bit);
    learn(w, d0, v == 0 ? 0 : v == 1 && bit < 8 && (sel & 0xf) == 0 ? 1 : -1, bit);
  } else if (kg_sass_is(in, "LDS") && in->nops == 2) {
    int32_t off;
    int len;
    uint32_t h = place_key(f, i, &off, &len);
    const slot *sl = h ? slot_of((world *)s, h) : NULL;
    learn(w, d0, sl ? sl->val : -1, sl ? sl->bit : 255);
  } else if (kg_sass_is(in, "B2R")) {
    for (int k = 0; k < in->nops; k++) learn(w, op_loc(in, k), s->bres, 0);
  }
}

/* The same compare as cmp (ptxas recomputes one rather than keep its
 * predicate): the same opcode, sources and guard. */
static int same_compare(const kg_sass_insn *in, const kg_sass_insn *cmp) {
  if (!is_compare(in) || strcmp(in->op, cmp->op) || in->nops != cmp->nops || in->guard != cmp->guard ||
      in->guard_neg != cmp->guard_neg)
    return 0;
  for (int k = 1; k < in->nops; k++) { /* R6.reuse is R6: a hint to the operand cache */
    size_t a = strlen(in->ops[k]), b = strlen(cmp->ops[k]);
    a -= a > 6 && !strcmp(in->ops[k] + a - 6, ".reuse") ? 6 : 0;
    b -= b > 6 && !strcmp(cmp->ops[k] + b - 6, ".reuse") ? 6 : 0;
    if (a != b || strncmp(in->ops[k], cmp->ops[k], a)) return 0;
  }
  return 1;
}

/* What the recording walk marks at each instruction, per world x: */
enum { LOAD_DECIDED = 1, LOAD_UNDECIDED = 4, REACHED_DECIDED = 16 };

static void world_step(ctx *c, int i, int cmp, int x, world *w, unsigned char *mark) {
  const kg_sass_insn *in = &c->f->insns[i];
  if (!w->live || !runs(in)) return;
  int g = guard_loc(in), gv = g < 0 ? 1 : known(w, g), gb = guard_bit(in);
  if (g >= 0 && gv >= 0) gv ^= in->guard_neg;
  if (gv == 0) return; /* it does not run in this world */
  int sure = gv == 1;
  if (mark && w->on && (is_weak_load(in, space_at(c->L, c->f, i)) || c->calls[i].load) &&
      !(!sure && gb >= 0 && (w->fenced >> gb & 1)))
    mark[i] |= (unsigned char)((w->decided ? LOAD_DECIDED : LOAD_UNDECIDED) << x);
  if (mark && w->decided) mark[i] |= (unsigned char)(REACHED_DECIDED << x);
  if (is_acquire(in) || c->calls[i].fence_all) {
    if (sure) w->on = 0;
    else if (gb >= 0) w->fenced |= 1u << gb;
  }
  /* an acquire by the thread that took the ticket, then a block barrier:
   * the whole block reads after it */
  if (kg_sass_is(in, "BAR") && !kg_sass_has_mod(in, "ARV") && w->fenced) w->on = 0;
  if (kg_sass_is(in, "STS") && in->nops == 2) {
    int bit, v = sure ? value_of(w, in->ops[1], &bit) : -1;
    int32_t off = 0;
    int len = 0;
    uint32_t h = place_key(c->f, i, &off, &len);
    for (int k = 0; k < NSLOT; k++) /* what it overwrites is no longer known */
      if (w->s[k].addr && (!h || (off < w->s[k].off + w->s[k].len && w->s[k].off < off + len))) w->s[k] = (slot){0};
    slot *s = NULL;
    for (int k = 0; k < NSLOT && !s && h && v >= 0; k++)
      if (!w->s[k].addr) s = &w->s[k];
    if (s) *s = (slot){h, off, (unsigned char)len, (signed char)v, (unsigned char)bit};
  } else if (kg_sass_is(in, "BAR") && kg_sass_has_mod(in, "RED")) {
    int pn, p = in->nops ? kg_sass_pred(in->ops[in->nops - 1], &pn) : -1;
    int v = p >= 0 && p < KG_SASS_PT ? known(w, p < 8 ? PBASE + p : UPBASE + p - 8) : -1;
    /* OR and POPC: the ticket's thread alone sets the flag it reduces */
    w->bres = sure && v >= 0 && (kg_sass_has_mod(in, "OR") || kg_sass_has_mod(in, "POPC")) ? (signed char)(v ^ pn) : -1;
  } else {
    world before = *w;
    regset d;
    dests_of(in, &d);
    for (int loc = 0; loc < SMEM; loc++)
      if (rs_has(&d, loc)) forget(w, loc);
    if (sure) learn_from(&before, w, c->f, i);
  }
  w->fenced = drop_preds(w->fenced, preds_written(in));
  regset d;
  dests_of(in, &d);
  if (w->same && intersects(&d, &c->cmp_src)) w->same = 0;
  if (i == cmp) learn(w, op_loc(in, 0), x == 0, 0), w->decided = w->same = 1;
  else if (cmp >= 0 && w->same && sure && same_compare(in, &c->f->insns[cmp])) learn(w, op_loc(in, 0), x == 0, 0);
  if ((kg_sass_is(in, "EXIT") || kg_sass_is(in, "RET") || kg_sass_is(in, "KILL")) &&
      i != c->f->blocks[c->f->block_of[i]].last) {
    if (sure) w->live = 0; /* it left */
    else learn(w, g, in->guard_neg, 0); /* it went on: the guard was false */
  }
}

typedef struct astate {
  world w[2];
} astate;

static void ticket_start(ctx *c, int t, astate *st) {
  memset(st, 0, sizeof *st);
  for (int x = 0; x < 2; x++) {
    world *w = &st->w[x];
    w->live = 1, w->on = c->calls[t].atomic ? c->calls[t].acq_open : 1, w->bres = -1;
    memset(w->bit, 255, sizeof w->bit);
    learn(w, guard_loc(&c->f->insns[t]), !c->f->insns[t].guard_neg, 0); /* it ran: its guard held */
  }
}

static void acq_block(ctx *c, int b, int t, int cmp, astate *st, unsigned char *mark) {
  for (int i = c->f->blocks[b].first; i <= c->f->blocks[b].last; i++) {
    if (i == t) {
      ticket_start(c, t, st);
      continue;
    }
    for (int x = 0; x < 2; x++) world_step(c, i, cmp, x, &st->w[x], mark);
  }
}

static int world_merge(world *to, const world *from) {
  if (!from->live) return 0;
  if (!to->live) return *to = *from, 1;
  world m = *to;
  m.on |= from->on, m.fenced &= from->fenced, m.decided &= from->decided, m.same &= from->same;
  for (int k = 0; k < NW; k++) m.kt.w[k] &= from->kt.w[k], m.kf.w[k] &= from->kf.w[k];
  for (int r = 0; r < PBASE; r++)
    if (m.bit[r] != from->bit[r]) m.bit[r] = 255;
  for (int k = 0; k < NSLOT; k++) {
    const slot *s = slot_of((world *)from, m.s[k].addr);
    if (m.s[k].addr && (!s || s->val != m.s[k].val || s->bit != m.s[k].bit)) m.s[k] = (slot){0};
  }
  if (m.bres != from->bres) m.bres = -1;
  if (!memcmp(&m, to, sizeof m)) return 0;
  *to = m;
  return 1;
}

/* Into successor s of block b: the worlds where the branch ending b can go
 * there, each knowing the branch's guard from the way it went. */
static int acq_edge(const ctx *c, int b, int s, const astate *st, astate *to) {
  const kg_sass_insn *in = &c->f->insns[c->f->blocks[b].last];
  int g = guard_loc(in), cond = -1, changed = 0;
  int branch = (kg_sass_is(in, "BRA") || kg_sass_is(in, "JMP")) && in->jump >= 0;
  if (g >= 0 && branch && c->f->block_of[in->jump] != b + 1) cond = s == c->f->block_of[in->jump];
  if (g >= 0 && !branch && (kg_sass_is(in, "EXIT") || kg_sass_is(in, "RET") || kg_sass_is(in, "KILL"))) cond = 0;
  for (int x = 0; x < 2; x++) {
    world w = st->w[x];
    int v = known(&w, g);
    if (cond >= 0 && v >= 0 && (v ^ in->guard_neg) != cond) continue; /* not this way in this world */
    if (cond >= 0) learn(&w, g, cond ^ in->guard_neg, 0);
    changed |= world_merge(&to->w[x], &w);
  }
  return changed;
}

static int acquire_side(ctx *c, int t) {
  const kg_sass_func *f = c->f;
  if (c->calls[t].atomic && c->calls[t].load_after && add_finding(c, KG_LINT_ACQUIRE, t, t)) return -1;
  astate *in = calloc((size_t)f->nblocks, sizeof *in), st;
  unsigned char *mark = calloc((size_t)f->ninsns, 1);
  wl w = {0};
  if (!in || !mark || wl_init(&w, f->nblocks)) return free(in), free(mark), wl_free(&w), -1;
  int cmp = c->decide[t];
  if (cmp >= 0) srcs_of(&f->insns[cmp], &c->cmp_src);
  wl_push(&w, f->block_of[t]);
  while (w.n) {
    int b = wl_pop(&w);
    st = in[b];
    acq_block(c, b, t, cmp, &st, NULL);
    for (int k = 0; k < f->blocks[b].nsucc; k++)
      if (acq_edge(c, b, f->blocks[b].succ[k], &st, &in[f->blocks[b].succ[k]])) wl_push(&w, f->blocks[b].succ[k]);
  }
  for (int b = 0; b < f->nblocks; b++) {
    st = in[b];
    if (st.w[0].live || st.w[1].live || b == f->block_of[t]) acq_block(c, b, t, cmp, &st, mark);
  }
  /* A load counts when a world reaches it before the compare has decided,
   * or one world reaches it and the other, decided, does not: a load both
   * reach once decided is one every block makes (fresh input), not a read
   * the ticket guards. */
  int rc = 0;
  for (int i = 0; i < f->ninsns && !rc; i++)
    for (int x = 0; x < 2 && !rc; x++)
      if (((mark[i] >> x & LOAD_UNDECIDED) ||
           ((mark[i] >> x & LOAD_DECIDED) && !(mark[i] >> (1 - x) & REACHED_DECIDED))) &&
          !same_word(c, i, t))
        rc = add_finding(c, KG_LINT_ACQUIRE, t, i);
  free(in), free(mark), wl_free(&w);
  return rc;
}

/* ---- kernels ---- */

/* Block-scope atomics (.STRONG.SM, .CTA) cannot order other blocks' data. */
static int block_scope(const kg_sass_insn *in) { return kg_sass_has_mod(in, "SM") || kg_sass_has_mod(in, "CTA"); }

static int add_note(ctx *c, int i, const char *why) {
  kg_lint_report *r = c->r;
  if (r->nnotes == r->notecap) {
    size_t cap = r->notecap ? 2 * r->notecap : 8;
    kg_lint_note *q = realloc(r->notes, cap * sizeof *q);
    if (!q) return -1;
    r->notes = q, r->notecap = cap;
  }
  kg_lint_note *x = &r->notes[r->nnotes++];
  memset(x, 0, sizeof *x);
  x->func = c->func, x->why = why;
  at_of(&c->f->insns[i], &x->at);
  return 0;
}

/* What an instruction is to the rule (c->ticket): a TICKET is a GPU- or
 * system-scope read-modify-write on memory that can be global whose result
 * decides a read of other blocks' data (both sides checked); a WAIT a strong
 * GPU-scope load of a flag that decides one (the acquire side); a RAISE a
 * strong GPU-scope store in a kernel that waits on a flag (the release side:
 * the flag another block waits on). Shared memory (ATOMS, a generic address
 * from the shared window) is the block's own and never any of them; a
 * block-scope atomic is a ticket of too narrow a scope only on memory proven
 * global, and a note where the lint cannot tell. */
static int find_tickets(ctx *c) {
  const kg_sass_func *f = c->f;
  int waits = 0;
  for (int i = 0; i < f->ninsns; i++) {
    const kg_sass_insn *in = &f->insns[i];
    c->calls[i] = call_summary(c->L, f, in);
    if (kg_sass_is(in, "CALL") && runs(in) && !c->calls[i].known) c->r->unknown_calls++;
  }
  for (int i = 0; i < f->ninsns; i++) {
    const kg_sass_insn *in = &f->insns[i];
    int sp = space_at(c->L, f, i), atom = is_global_atomic(in, sp) && has_result(in);
    int flag = is_flag_load(in, sp) && has_result(in), call = c->calls[i].atomic || c->calls[i].block_unknown;
    if (!atom && !flag && !call) continue;
    int d = decides_branch(c, i);
    if (d == -2) continue;
    int cta = (atom && block_scope(in)) || c->calls[i].block_scope;
    if ((atom && block_scope(in) && sp != SP_GLOBAL) || (!atom && !flag && !c->calls[i].atomic)) {
      if (add_note(c, i, "a block-scope atomic decides a read, on memory the lint cannot tell global or shared: "
                         "synchronisation inside one block, or a ticket of too narrow a scope"))
        return -1;
      continue;
    }
    c->ticket[i] = (char)(flag ? WAIT : TICKET), c->decide[i] = d, c->r->ntickets++, waits += flag;
    if (cta && add_finding(c, KG_LINT_SCOPE, i, i)) return -1;
  }
  for (int i = 0; waits && i < f->ninsns; i++)
    if (is_flag_store(&f->insns[i], space_at(c->L, f, i)) && !c->ticket[i]) c->ticket[i] = RAISE;
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int late(lint *L) {
  if (L->deadline > 0 && now_s() > L->deadline) L->late = 1;
  return L->late;
}

/* Each block's predecessors, -1 ended, in one allocation. */
static int **preds_of(const kg_sass_func *f) {
  size_t ne = 0;
  for (int b = 0; b < f->nblocks; b++) ne += (size_t)f->blocks[b].nsucc;
  int **p = malloc((size_t)(f->nblocks ? f->nblocks : 1) * sizeof *p + (ne + (size_t)f->nblocks) * sizeof **p);
  int *cnt = calloc((size_t)f->nblocks + 1, sizeof *cnt);
  if (!p || !cnt) return free(p), free(cnt), NULL;
  int *cell = (int *)(p + (f->nblocks ? f->nblocks : 1));
  for (int b = 0; b < f->nblocks; b++)
    for (int k = 0; k < f->blocks[b].nsucc; k++) cnt[f->blocks[b].succ[k]]++;
  for (int b = 0; b < f->nblocks; b++) p[b] = cell, cell += cnt[b] + 1, p[b][cnt[b]] = -1, cnt[b] = 0;
  for (int b = 0; b < f->nblocks; b++)
    for (int k = 0; k < f->blocks[b].nsucc; k++) {
      int s = f->blocks[b].succ[k];
      p[s][cnt[s]++] = b;
    }
  free(cnt);
  return p;
}

static int lint_kernel(lint *L, int func) {
  const kg_sass_func *f = &L->l->funcs[func];
  ctx c = {L, f, func, calloc((size_t)f->ninsns, sizeof(summary)), calloc((size_t)f->ninsns, 1),
           malloc((size_t)f->ninsns * sizeof(int)), preds_of(f), L->r->nfindings, L->r, {{0}}};
  int rc = !c.calls || !c.ticket || !c.decide || !c.preds ? -1 : find_tickets(&c);
  for (int i = 0; !rc && i < f->ninsns; i++)
    if (c.ticket[i]) {
      rc = late(L) ? -2 : c.ticket[i] != WAIT ? release_side(&c, i) : 0;
      if (!rc && c.ticket[i] != RAISE) rc = acquire_side(&c, i);
    }
  free(c.calls), free(c.ticket), free(c.decide), free(c.preds);
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

int kg_lint_listing_within(const kg_sass_listing *l, const kg_lint_waiver *w, size_t nw, double limit_s,
                           kg_lint_report *r) {
  memset(r, 0, sizeof *r);
  lint L = {l, calloc((size_t)l->nfuncs + 1, sizeof(summary *)), calloc((size_t)l->nfuncs + 1, sizeof(unsigned char *)),
            calloc((size_t)l->nfuncs + 1, sizeof(char *)), r, limit_s > 0 ? now_s() + limit_s : 0, 0};
  int rc = !L.memo || !L.state || !L.space ? -1 : 0;
  for (int k = 0; !rc && k < l->nfuncs; k++)
    if (!(L.space[k] = spaces_of(&l->funcs[k]))) rc = -1;
  for (int k = 0; k < l->nfuncs && !rc; k++) {
    if (l->funcs[k].called) continue;
    size_t before = r->nfindings;
    r->nkernels++;
    if (late(&L) || (rc = lint_kernel(&L, k))) break;
    const kg_lint_waiver *wv = waiver_of(l->funcs[k].name, w, nw);
    if (wv && (rc = use_waiver(r, wv))) break;
    for (size_t i = before; wv && i < r->nfindings; i++) r->findings[i].waived = wv->reason, r->nwaived++;
  }
  if (!rc && L.late) rc = -2;
  for (int k = 0; L.memo && L.state && k < l->nfuncs; k++) free(L.memo[k]), free(L.state[k]);
  for (int k = 0; L.space && k < l->nfuncs; k++) free(L.space[k]);
  free(L.memo), free(L.state), free(L.space);
  return rc;
}

int kg_lint_listing(const kg_sass_listing *l, const kg_lint_waiver *w, size_t nw, kg_lint_report *r) {
  return kg_lint_listing_within(l, w, nw, 0, r);
}

size_t kg_lint_unwaived(const kg_lint_report *r) { return r->nfindings - r->nwaived; }

void kg_lint_report_free(kg_lint_report *r) {
  free(r->findings);
  free(r->notes);
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
  static const char *const why[] =
      {[KG_LINT_RELEASE] = "a store reaches the last-block ticket with no GPU-scope fence or release between",
       [KG_LINT_ACQUIRE] = "after the ticket, a weak load of other blocks' data with no GPU-scope fence, acquire or "
                           "strong load before it",
       [KG_LINT_SCOPE] = "the ticket is a block-scope atomic: other blocks' stores are not ordered by it"};
  char name[4096];
  fprintf(f, "%s (sm_%d): %s: %s\n", kg_esc_term(fn->name, name, sizeof name), fn->arch,
          x->side == KG_LINT_RELEASE   ? "release"
          : x->side == KG_LINT_ACQUIRE ? "acquire"
                                       : "scope",
          why[x->side]);
  if (x->side == KG_LINT_RELEASE) print_at(f, "store", &x->from);
  print_at(f, "ticket", x->side == KG_LINT_RELEASE ? &x->to : &x->from);
  if (x->side == KG_LINT_ACQUIRE) print_at(f, "load", &x->to);
  if (x->path[0]) fprintf(f, "    path    %s\n", x->path);
}

void kg_lint_print(FILE *f, const char *name, const kg_sass_listing *l, const kg_lint_report *r) {
  for (size_t k = 0; k < r->nfindings; k++)
    if (!r->findings[k].waived) print_finding(f, l, &r->findings[k]);
  for (size_t k = 0; k < r->nnotes; k++) {
    char shown[4096];
    fprintf(f, "%s (sm_%d): note (not a failure): %s\n",
            kg_esc_term(l->funcs[r->notes[k].func].name, shown, sizeof shown), l->funcs[r->notes[k].func].arch,
            r->notes[k].why);
    print_at(f, "at", &r->notes[k].at);
  }
  for (size_t k = 0; k < r->nused; k++) {
    size_t n = 0;
    for (size_t i = 0; i < r->nfindings; i++) n += r->findings[i].waived == r->used[k]->reason;
    fprintf(f, "%s: waived: %s (%zu finding%s)\n", r->used[k]->kernel, r->used[k]->reason, n, n == 1 ? "" : "s");
  }
  char shown[4096];
  fprintf(f, "lint %s: %d kernel%s, %d ticket%s, %zu finding%s, %zu waived", kg_esc_term(name, shown, sizeof shown),
          r->nkernels, r->nkernels == 1 ? "" : "s", r->ntickets, r->ntickets == 1 ? "" : "s", kg_lint_unwaived(r),
          kg_lint_unwaived(r) == 1 ? "" : "s", r->nwaived);
  if (r->nnotes) fprintf(f, ", %zu note%s", r->nnotes, r->nnotes == 1 ? "" : "s");
  if (r->unknown_calls)
    fprintf(f, "; %d call%s into code the listing lacks, not followed", r->unknown_calls,
            r->unknown_calls == 1 ? "" : "s");
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
  m->notes = r->nnotes ? calloc(r->nnotes, sizeof *m->notes) : NULL;
  if ((n && !m->items) || (r->nused && !m->waived) || (r->nnotes && !m->notes)) return -1;
  for (size_t k = 0; k < r->nnotes; k++) {
    const kg_lint_note *x = &r->notes[k];
    kg_lint_item *it = &m->notes[m->nnotes++];
    snprintf(it->kernel, sizeof it->kernel, "%s", l->funcs[x->func].name);
    it->arch = l->funcs[x->func].arch;
    snprintf(it->side, sizeof it->side, "note");
    format_at(it->first, sizeof it->first, &x->at);
    snprintf(it->second, sizeof it->second, "%s", x->why);
    plain(it->kernel), plain(it->first), plain(it->second);
  }
  for (size_t k = 0; k < r->nfindings; k++) {
    const kg_lint_finding *x = &r->findings[k];
    if (x->waived) continue;
    kg_lint_item *it = &m->items[m->nitems++];
    snprintf(it->kernel, sizeof it->kernel, "%s", l->funcs[x->func].name);
    it->arch = l->funcs[x->func].arch;
    snprintf(it->side, sizeof it->side, "%s",
             x->side == KG_LINT_RELEASE   ? "release"
             : x->side == KG_LINT_ACQUIRE ? "acquire"
                                          : "scope");
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
  free(m->notes);
  m->items = NULL, m->waived = NULL, m->notes = NULL, m->nitems = m->nwaived = m->nnotes = 0;
}
