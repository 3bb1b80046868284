/* The worker's case loop (device layer). For each case: make the input and
 * its reference once per (dtype, n, pattern, seed), poison the output, run the
 * variant (restoring its input first if it reduces in place), read the result
 * back, judge it against the reference, repeat floats to catch
 * nondeterminism, and check that variants not declared in place left their
 * input alone. */
#include "worker.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "dtype.h"
#include "cold.h"
#include "fileio.h"
#include "guard.h"
#include "input.h"
#include "label.h"
#include "launches.h"
#include "modload.h"
#include "paired.h"
#include "proof.h"
#include "proto.h"
#include "recheck.h"
#include "reference.h"
#include "refcache.h"
#include "roofcache.h"
#include "varreg.h"
#include "stats.h"
#include "timing.h"

/* The modules: [0] kgate's own, then the --kernels modules, then the base
 * modules of a paired run (modload.h); beside them, for selftest, the planted
 * bugs' module (--mutant-kernels). fns[v]: the entry for registry index v in
 * the module that defines it (NULL for a mutant when no mutants' module is
 * loaded). */
enum { MOD_OWN };
enum { KG_MAX_RUNS = 128 }; /* --repeat allows 100 */

typedef struct modules {
  kg_module_set set;
  kg_loaded_module mutants; /* mutants.m NULL: none loaded */
  const kg_module_variant **fns;
} modules;

typedef struct state {
  cudaStream_t stream;
  /* the current input: host copy, reference, device pristine and working copies */
  int valid;
  kg_dtype dt;
  size_t n;
  kg_pattern pattern;
  uint64_t seed;
  void *host;
  size_t host_cap;
  kg_ref ref;
  void *d_pristine, *d_in;
  size_t dev_cap;
  int dirty; /* an in-place variant left d_in clobbered */
  void *d_scratch;
  size_t scratch_cap;
  void *d_out;
  /* the check's runs of one case: each its own 16-byte output (an
   * allocation of its own, so memcheck sees a write past it), read back
   * together into pinned memory after one wait; d_flag: the input compare */
  void *d_outs[KG_MAX_RUNS];
  int nouts;
  unsigned char *h_outs; /* pinned: KG_MAX_RUNS * 16 bytes, then the flag */
  int *d_flag;
  long long l2_bytes;
  kg_timer *timer; /* made on the first timed case (or at hello for the roofline) */
  char error[200]; /* the CUDA error that ends this worker */
  modules *mods;
  /* paired cases: the separately allocated copies of the current input,
   * kept for every cell of its input group (gen: prepare_input's count) */
  unsigned long long gen, pcopy_gen;
  void *pcopy[KG_PAIR_MAX_COPIES];
  int npcopy, pcopy_dirty;
  double input_us; /* what the last prepare_input spent making an input (0: it reused one) */
  int has_ref;     /* the current input's reference is known (a paired case needs none) */
  /* cached references (refcache.h): kgate's shipped table and the user's cache */
  int refs_loaded, cache_dirty;
  kg_refcache shipped, cache;
  char cache_path[PATH_MAX];
  kg_refkey key; /* MACs the user's cache (refkey.h) */
  unsigned long long *d_fp, *h_fp; /* the GPU input's fingerprint, and its pinned copy */
  /* the re-check after timing (recheck.h): each sample's edit and result,
   * pinned, KG_TIMER_MAX_SAMPLES + 1 slots of 8 bytes each; the edits'
   * secret, drawn once per worker */
  unsigned char *h_edits, *h_results;
  uint64_t secret;
  /* the cold-L2 verdict per input size on this card (cold.h), probed once */
  struct cold_seen {
    size_t bytes;
    kg_guard g;
  } *cold;
  size_t ncold;
} state;

/* One message shape for every CUDA failure, in st->error: "CUDA error at
 * file:line: name (code) / expr". 1 when e is a failure. */
static int cu_fail(state *st, cudaError_t e, const char *file, int line, const char *expr) {
  if (e == cudaSuccess) return 0;
  snprintf(st->error, sizeof st->error, "CUDA error at %s:%d: %s (%d) / %s", file, line, cudaGetErrorName(e), (int)e,
           expr);
  return 1;
}

/* cu_fail on a call, naming its place and its text (only a macro can);
 * the caller returns on it: if (CU_FAILED(st, cudaFree(p))) return -1; */
#define CU_FAILED(st, expr) cu_fail((st), (expr), __FILE_NAME__, __LINE__, #expr)

/* exact: under compute-sanitizer, a buffer is exactly the case's size (a
 * reused larger one would hide an over-read from memcheck). */
static int grow_to(state *st, void **p, size_t *cap, size_t want, int exact) {
  if (*p && (exact ? want == *cap : want <= *cap)) return 0;
  if (*p && CU_FAILED(st, cudaFree(*p))) return -1;
  *p = NULL;
  *cap = 0;
  if (CU_FAILED(st, cudaMalloc(p, want ? want : 1))) return -1;
  *cap = want;
  return 0;
}


/* The references kgate ships (the default seed) and the user's cache,
 * loaded on the first input that needs a reference. */
static void load_refs(state *st) {
  char err[600];
  st->refs_loaded = 1;
  char path[PATH_MAX];
  if (kg_refcache_table_path(path, sizeof path) == 0 && kg_refcache_load(&st->shipped, path, NULL, err, sizeof err))
    fprintf(stderr, "kgate worker: %s\n", err);
  if (kg_refcache_default_path(st->cache_path, sizeof st->cache_path)) st->cache_path[0] = '\0';
  /* No key, no cache: every reference is then computed on the CPU. */
  int nokey = st->cache_path[0] && kg_refkey_path(path, sizeof path);
  if (nokey) snprintf(err, sizeof err, "no place for the reference cache's key (set KGATE_REFCACHE_KEY or HOME)");
  if (nokey || (st->cache_path[0] && kg_refkey_open(&st->key, path, st->cache_path, err, sizeof err))) {
    fprintf(stderr, "kgate worker: %s; the reference cache is not used\n", err);
    st->cache_path[0] = '\0';
  }
  if (st->cache_path[0] && kg_refcache_load(&st->cache, st->cache_path, &st->key, err, sizeof err))
    fprintf(stderr, "kgate worker: %s\n", err);
}

static const kg_refcache_entry *find_ref(state *st, const kg_case *c, uint64_t seed) {
  if (!st->refs_loaded) load_refs(st);
  const kg_refcache_entry *e = kg_refcache_find(&st->shipped, c->dtype, c->n, c->pattern, seed, KG_GEN_VERSION);
  return e ? e : kg_refcache_find(&st->cache, c->dtype, c->n, c->pattern, seed, KG_GEN_VERSION);
}

/* The input made on the GPU into d_pristine; with want (a cached
 * reference's fingerprint), whether the GPU's input is the one it was
 * computed from: 1 yes, 0 no, -1 a CUDA error. */
static int gpu_input(state *st, const kg_case *c, uint64_t seed, size_t bytes, const uint64_t *want) {
  if (CU_FAILED(st, (cudaError_t)kg_dev_fill(c->dtype, (int)c->pattern, seed, c->n, st->d_pristine, st->stream)))
    return -1;
  if (want) {
    if (CU_FAILED(st, (cudaError_t)kg_dev_fingerprint(st->d_pristine, bytes, st->d_fp, st->stream))) return -1;
    if (CU_FAILED(st, cudaMemcpyAsync(st->h_fp, st->d_fp, sizeof *st->h_fp, cudaMemcpyDeviceToHost, st->stream)))
      return -1;
  }
  if (CU_FAILED(st, cudaStreamSynchronize(st->stream))) return -1;
  return !want || *st->h_fp == *want;
}

/* The input made on the CPU with its reference, copied to d_pristine, and
 * kept in the user's cache. bad: a cached entry whose fingerprint the GPU's
 * input did not match (NULL: none), said on stderr with which side was wrong. */
static int cpu_input(state *st, const kg_case *c, uint64_t seed, size_t bytes, const kg_refcache_entry *bad) {
  if (bytes > st->host_cap || !st->host) {
    free(st->host);
    st->host = malloc(bytes ? bytes : 1);
    st->host_cap = st->host ? bytes : 0;
    if (!st->host) {
      snprintf(st->error, sizeof st->error, "out of host memory for %zu bytes of input", bytes);
      return -1;
    }
  }
  kg_input_make(c->dtype, c->pattern, seed, c->n, st->host, &st->ref, 0);
  uint64_t fp = kg_gen_fingerprint(st->host, bytes);
  if (bad)
    fprintf(stderr, "kgate worker: %s %s n=%zu seed %llu: %s; the CPU's input and reference are used\n",
            kg_dtype_get(c->dtype)->name, kg_pattern_name(c->pattern), c->n, (unsigned long long)seed,
            fp == bad->fingerprint ? "the GPU made other data than the CPU (a generator fault)"
                                   : "the cached reference belongs to other data (dropped from the cache)");
  kg_refcache_entry e = {c->dtype, c->pattern, c->n, seed, KG_GEN_VERSION, fp, st->ref};
  char err[200];
  if (st->cache_path[0] && kg_refcache_put(&st->cache, &e, err, sizeof err) == 0) st->cache_dirty = 1;
  if (CU_FAILED(st, cudaMemcpyAsync(st->d_pristine, st->host, bytes, cudaMemcpyHostToDevice, st->stream))) return -1;
  return 0;
}

/* The case's input in d_pristine and d_in, made once per (dtype, n,
 * pattern, seed). The GPU makes it; with want_ref its reference comes from
 * the shipped table or the user's cache, trusted only when the GPU's input
 * has the fingerprint the reference was computed from; otherwise the CPU
 * makes both (and the cache keeps the reference). Paired cases need no
 * reference. */
static int prepare_input(state *st, const kg_case *c, const kg_run_params *p, int exact, int want_ref) {
  st->input_us = 0;
  if (st->valid && st->dt == c->dtype && st->n == c->n && st->pattern == c->pattern && st->seed == p->seed &&
      (st->has_ref || !want_ref))
    return 0;
  double t0 = kg_now_s();
  st->valid = 0;
  size_t bytes = c->n * kg_dtype_get(c->dtype)->size;
  if (bytes > st->dev_cap || !st->d_in || (exact && bytes != st->dev_cap)) {
    size_t cap = st->dev_cap;
    if (grow_to(st, &st->d_pristine, &cap, bytes, exact) ||
        grow_to(st, &st->d_in, &st->dev_cap, bytes, exact))
      return -1;
  }
  const kg_refcache_entry *e = want_ref ? find_ref(st, c, p->seed) : NULL;
  int ok = 0;
  if (!want_ref || e) ok = gpu_input(st, c, p->seed, bytes, e ? &e->fingerprint : NULL);
  if (ok < 0) return -1;
  if (ok && e) st->ref = e->ref;
  if (!ok && cpu_input(st, c, p->seed, bytes, e)) return -1;
  /* Stream-ordered copies: the variants run on a non-blocking stream. */
  if (CU_FAILED(st, cudaMemcpyAsync(st->d_in, st->d_pristine, bytes, cudaMemcpyDeviceToDevice, st->stream))) return -1;
  if (CU_FAILED(st, cudaStreamSynchronize(st->stream))) return -1;
  st->dt = c->dtype, st->n = c->n, st->pattern = c->pattern, st->seed = p->seed, st->valid = 1;
  st->has_ref = want_ref;
  st->gen++;
  st->dirty = 0;
  st->input_us = (kg_now_s() - t0) * 1e6;
  return 0;
}

/* A poison byte whose result value the check would reject, so a variant that
 * writes nothing fails. */
static int poison_byte(const kg_case *c, const kg_module_variant *fn, const kg_ref *ref) {
  unsigned char acc[8];
  memset(acc, 0x5a, sizeof acc);
  kg_judgement j;
  kg_judge_op(fn->op, fn->nan, c->dtype, c->pattern, ref, kg_value_from_acc(c->dtype, acc), 1.0, &j);
  return j.pass ? 0xa5 : 0x5a;
}

/* A min or max is the same when the value is (-0 and +0 are one value: see
 * kg_judge_op); a sum must repeat its bits. */
static int same_result(kg_dtype dt, unsigned op, kg_value a, kg_value b) {
  if (!kg_dtype_get(dt)->is_float) return a.bits == b.bits;
  if (a.f != a.f && b.f != b.f) return 1; /* NaN payloads may differ */
  if (op != KG_OP_SUM) return a.f == b.f;
  return memcmp(&a.f, &b.f, sizeof a.f) == 0;
}

/* One side of a timing: a variant on an input buffer. */
typedef struct step_ctx {
  state *st;
  const kg_module_variant *fn;
  const kg_case *c;
  void *in;
} step_ctx;

/* A call of a module's variant, under the timer's guard (guard.h). */
static int guarded_run(state *st, const kg_module_variant *fn, const kg_case *c, void *in, void *out) {
  kg_guard_enter(st->stream);
  int rc = fn->run(c->dtype, in, c->n, out, st->d_scratch, st->stream);
  kg_guard_leave();
  return rc;
}

static int run_step(void *ctx) {
  step_ctx *x = ctx;
  return guarded_run(x->st, x->fn, x->c, x->in, x->st->d_out);
}

/* A probe's call: captured, never run, so not guarded. */
static int probe_step(void *ctx) {
  step_ctx *x = ctx;
  return x->fn->run(x->c->dtype, x->in, x->c->n, x->st->d_out, x->st->d_scratch, x->st->stream);
}

static int restore_step(void *ctx) {
  step_ctx *x = ctx;
  return (int)cudaMemcpyAsync(x->in, x->st->d_pristine, x->c->n * kg_dtype_get(x->c->dtype)->size,
                              cudaMemcpyDeviceToDevice, x->st->stream);
}

static int make_timer(state *st) {
  if (!st->timer) st->timer = kg_timer_create(st->stream, st->l2_bytes, st->error, sizeof st->error);
  return st->timer ? 0 : -1;
}

/* The re-check of one input buffer over a timed block (recheck.h): its
 * samples in the order they were queued, taken by one variant, or by a
 * paired case's head and base in turn (one schedule of edits: kg_recheck_pair). */
typedef struct recheck_block {
  kg_recheck rc[2]; /* [0] the variant's or the head's (the edits are its), [1] the base's */
  int judged[2];    /* a side whose results are judged (the base: where its operation is the head's) */
  size_t done;      /* samples whose result was copied; warm-up runs copy none */
  unsigned char side[KG_TIMER_MAX_SAMPLES]; /* who took sample i: 0 the variant or head, 1 the base */
} recheck_block;

/* One side's samples of a timed block: before each its edit of the input
 * (after the whole input given back, where a variant of the block reduces
 * in place), after it a copy of its result into a pinned slot. */
typedef struct timed_ctx {
  step_ctx x;
  int clobbers, side;
  recheck_block *b;
} timed_ctx;

/* Writes the edit in slot (a pinned 8 bytes) over element place of the input. */
static int put_edit(timed_ctx *t, size_t slot, size_t place, const unsigned char *value) {
  state *st = t->x.st;
  size_t size = kg_dtype_get(t->x.c->dtype)->size;
  unsigned char *h = st->h_edits + 8 * slot;
  memcpy(h, value, size);
  return (int)cudaMemcpyAsync((char *)t->x.in + place * size, h, size, cudaMemcpyHostToDevice, st->stream);
}

static int timed_prepare(void *ctx) {
  timed_ctx *t = ctx;
  size_t place, done = t->b->done;
  unsigned char v[8];
  int e = t->clobbers ? restore_step(&t->x) : 0;
  if (!e && done < KG_TIMER_MAX_SAMPLES && kg_recheck_edit(&t->b->rc[0], done, &place, v))
    e = put_edit(t, done, place, v);
  return e;
}

static int timed_after(void *ctx) {
  timed_ctx *t = ctx;
  state *st = t->x.st;
  recheck_block *b = t->b;
  if (b->done >= KG_TIMER_MAX_SAMPLES) return 0;
  size_t acc = kg_dtype_get(t->x.c->dtype)->acc_size;
  b->side[b->done] = (unsigned char)t->side;
  return (int)cudaMemcpyAsync(st->h_results + 8 * b->done++, st->d_out, acc, cudaMemcpyDeviceToHost, st->stream);
}

/* The pinned slots of the re-check, and the worker's secret for its edits. */
static int recheck_buffers(state *st) {
  size_t bytes = 8 * (KG_TIMER_MAX_SAMPLES + 1);
  if (!st->h_edits && CU_FAILED(st, cudaHostAlloc((void **)&st->h_edits, bytes, cudaHostAllocDefault))) return -1;
  if (!st->h_results && CU_FAILED(st, cudaHostAlloc((void **)&st->h_results, bytes, cudaHostAllocDefault))) return -1;
  if (!st->secret && getrandom(&st->secret, sizeof st->secret, 0) != (ssize_t)sizeof st->secret)
    st->secret = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32); /* no entropy source: still unknown to a module */
  st->secret |= 1;
  return 0;
}

/* What a timed block's re-check found, per side: samples judged, and the
 * first wrong one's message (wrong[s] 1). */
typedef struct recheck_found {
  int judged[2], wrong[2];
  char msg[2][sizeof ((kg_result *)0)->message];
} recheck_found;

/* After a timed block (t: any side of it): every judged sample's result
 * against the reference of the input it read, at its side's depth; then
 * the input given back. 0, or -1 with st->error. */
static int recheck_after(state *st, timed_ctx *t, recheck_found *f) {
  recheck_block *b = t->b;
  memset(f, 0, sizeof *f);
  if (CU_FAILED(st, cudaStreamSynchronize(st->stream))) return -1;
  for (size_t i = 0; i < b->done; i++) {
    int s = b->side[i];
    if (!b->judged[s] || b->rc[s].kind == KG_RECHECK_NONE) continue;
    f->judged[s]++;
    if (!f->wrong[s] && !kg_recheck_judge(&b->rc[s], i, b->done, st->h_results + 8 * i, f->msg[s], sizeof f->msg[s]))
      f->wrong[s] = 1;
  }
  size_t place;
  unsigned char v[8];
  if (!t->clobbers && kg_recheck_restore(&b->rc[0], b->done, &place, v)) {
    if (CU_FAILED(st, (cudaError_t)put_edit(t, KG_TIMER_MAX_SAMPLES, place, v))) return -1;
    if (CU_FAILED(st, cudaStreamSynchronize(st->stream))) return -1;
  }
  return 0;
}

/* A block's key for its edits' places: the worker's secret, the case and
 * the input copy (0 for an absolute timing). */
static uint64_t recheck_key(const state *st, const kg_case *c, int copy) {
  return kg_gen_hash(st->secret ^ c->n, ((uint64_t)c->variant << 8 | (uint64_t)c->dtype) ^ ((uint64_t)copy << 40));
}

/* The cold-L2 verdict of this card at the case's input size: probed on the
 * case's input the first time the size is timed, then remembered. */
static int cold_of(state *st, size_t bytes, int hot, kg_guard *g) {
  for (size_t k = 0; k < st->ncold; k++)
    if (st->cold[k].bytes == bytes && (st->cold[k].g.cold == KG_COLD_HOT) == hot) {
      const kg_guard *seen = &st->cold[k].g;
      g->cold = seen->cold, g->flushed_us = seen->flushed_us, g->unflushed_us = seen->unflushed_us;
      memcpy(g->cold_why, seen->cold_why, sizeof g->cold_why);
      return 0;
    }
  double f[KG_COLD_READS], u[KG_COLD_READS];
  if (!hot && !kg_cold_too_large(bytes, st->l2_bytes) &&
      CU_FAILED(st, (cudaError_t)kg_timer_cold_probe(st->timer, st->d_in, bytes, f, u)))
    return -1;
  kg_cold_judge(bytes, st->l2_bytes, hot, f, KG_COLD_READS, u, KG_COLD_READS, g);
  void *grown = realloc(st->cold, (st->ncold + 1) * sizeof *st->cold);
  if (!grown) return 0; /* not remembered: probed again next time */
  st->cold = grown;
  st->cold[st->ncold].bytes = bytes, st->cold[st->ncold++].g = *g;
  return 0;
}

/* Times a case that passed, under the timer's guard: the L2 reset before
 * the block, the module's allocations and streams counted, every sample's
 * result re-checked after it with the input changed between samples, and
 * the cold L2's evidence. A refusal or a wrong result fails the case and
 * drops its timing. */
static int time_case(state *st, const kg_case *c, const kg_run_params *p, kg_result *r) {
  if (make_timer(st) || recheck_buffers(st)) return -1;
  const kg_module_variant *fn = st->mods->fns[c->variant];
  size_t bytes = c->n * kg_dtype_get(c->dtype)->size;
  recheck_block b = {.judged = {1, 0}};
  timed_ctx t = {{st, fn, c, st->d_in}, (kg_variants[c->variant].flags & KG_CLOBBERS) != 0, 0, &b};
  kg_recheck_init(&b.rc[0], c->dtype, c->pattern, fn->op, fn->nan, p->seed, c->n, r->depth, &st->ref,
                  recheck_key(st, c, 0));
  kg_sample_step step = {run_step, timed_prepare, &t, timed_after};
  if (CU_FAILED(st, (cudaError_t)kg_guard_reset_l2(st->stream))) return -1;
  kg_guard_count(1);
  int e = kg_timer_measure(st->timer, &step, bytes, &p->time, &r->timing);
  kg_guard_count(0);
  recheck_found f;
  if (CU_FAILED(st, (cudaError_t)e) || recheck_after(st, &t, &f)) return -1;
  if (f.wrong[0]) {
    r->status = KG_ST_FAIL, r->fail = KG_FK_WRONG_AFTER_TIMING;
    snprintf(r->message, sizeof r->message, "%s", f.msg[0]);
  }
  r->guard.on = 1, r->guard.recheck = b.rc[0].kind, r->guard.rechecked = f.judged[0];
  snprintf(r->guard.recheck_why, sizeof r->guard.recheck_why, "%s", b.rc[0].why);
  kg_guard_counts(&r->guard.allocs, &r->guard.alloc_bytes, &r->guard.streams);
  if (cold_of(st, bytes, p->time.hot, &r->guard)) return -1;
  if (kg_guard_refused()) {
    r->status = KG_ST_FAIL, r->fail = KG_FK_REFUSED;
    snprintf(r->message, sizeof r->message, "%s", kg_guard_refused());
  }
  if (r->status != KG_ST_PASS) r->timing = (kg_timing){0};
  return 0;
}

/* The outputs of runs check runs, and the pinned memory they are read into. */
static int check_buffers(state *st, int runs) {
  if (runs > KG_MAX_RUNS) {
    snprintf(st->error, sizeof st->error, "%d runs per case: at most %d", runs, KG_MAX_RUNS);
    return -1;
  }
  if (!st->h_outs &&
      CU_FAILED(st, cudaHostAlloc((void **)&st->h_outs, 16 * KG_MAX_RUNS + sizeof(int), cudaHostAllocDefault)))
    return -1;
  if (!st->d_flag && CU_FAILED(st, cudaMalloc((void **)&st->d_flag, sizeof(int)))) return -1;
  for (; st->nouts < runs; st->nouts++)
    if (CU_FAILED(st, cudaMalloc(&st->d_outs[st->nouts], 16))) return -1;
  return 0;
}

/* What a case's runs need: its input (given back if the last variant
 * reduced it in place; an in-place variant gets it before each run),
 * scratch, r->depth and the outputs of its runs. 0, or -1 with st->error. */
static int case_setup(state *st, const kg_case *c, const kg_run_params *p, int exact, const kg_module_variant *fn,
                      int runs, kg_result *r) {
  unsigned flags = kg_variants[c->variant].flags;
  const kg_dtype_info *di = kg_dtype_get(c->dtype);
  if (prepare_input(st, c, p, exact, 1)) return -1;
  r->input_us = st->input_us;
  if (st->dirty && !(flags & KG_CLOBBERS)) { /* untimed: the last variant reduced in place */
    if (CU_FAILED(st, cudaMemcpyAsync(st->d_in, st->d_pristine, c->n * di->size, cudaMemcpyDeviceToDevice, st->stream)))
      return -1;
    st->dirty = 0;
  }
  size_t scratch = fn->scratch(c->dtype, c->n);
  if (grow_to(st, &st->d_scratch, &st->scratch_cap, scratch, exact)) return -1;
  r->depth = fn->depth(c->n);
  return check_buffers(st, runs);
}

/* After check_buffers: the input compare's flag, behind the runs' outputs. */
static int *input_flag(state *st) { return (int *)(st->h_outs + 16 * KG_MAX_RUNS); }

/* The case's runs, each into its poisoned output read back into h_outs,
 * and (for a variant not declared in place) the compare of its input
 * with the pristine copy into the input flag. Every run queued, then one
 * wait: a wait per run cost more than the kernels of most cases. 0, or -1
 * with st->error. */
static int queue_runs(state *st, const kg_case *c, const kg_module_variant *fn, int runs) {
  unsigned flags = kg_variants[c->variant].flags;
  const kg_dtype_info *di = kg_dtype_get(c->dtype);
  int poison = poison_byte(c, fn, &st->ref);
  for (int k = 0; k < runs; k++) {
    if ((flags & KG_CLOBBERS) &&
        CU_FAILED(st, cudaMemcpyAsync(st->d_in, st->d_pristine, c->n * di->size, cudaMemcpyDeviceToDevice, st->stream)))
      return -1;
    if (CU_FAILED(st, cudaMemsetAsync(st->d_outs[k], poison, di->acc_size, st->stream))) return -1;
    int rc = guarded_run(st, fn, c, st->d_in, st->d_outs[k]);
    if (rc == KG_ERR_UNSUPPORTED) {
      snprintf(st->error, sizeof st->error, "variant refused dtype %s that the registry lists", di->name);
      return -1;
    }
    if (CU_FAILED(st, (cudaError_t)rc)) return -1;
    if (CU_FAILED(st, cudaMemcpyAsync(st->h_outs + 16 * k, st->d_outs[k], di->acc_size, cudaMemcpyDeviceToHost,
                                      st->stream)))
      return -1;
  }
  int *h_flag = input_flag(st);
  *h_flag = 0;
  if (!(flags & KG_CLOBBERS)) {
    if (CU_FAILED(st, (cudaError_t)kg_dev_differ_async(st->d_in, st->d_pristine, c->n * di->size, st->d_flag,
                                                       st->stream)))
      return -1;
    if (CU_FAILED(st, cudaMemcpyAsync(h_flag, st->d_flag, sizeof *h_flag, cudaMemcpyDeviceToHost, st->stream)))
      return -1;
  }
  if (CU_FAILED(st, cudaStreamSynchronize(st->stream))) return -1;
  return 0;
}

/* Judges the runs read back: the worst of them (the first failing, else
 * the one farthest from the reference) in *worst and r's values, whether
 * they differ, and whether the input flag says the input was written. */
static void judge_runs(state *st, const kg_case *c, const kg_module_variant *fn, int runs, kg_judgement *worst,
                       kg_result *r) {
  kg_value first = {0, 0};
  kg_value worst_value = {0, 0};
  *worst = (kg_judgement){.pass = 1};
  for (int k = 0; k < runs; k++) {
    kg_value v = kg_value_from_acc(c->dtype, st->h_outs + 16 * k);
    kg_judgement j;
    kg_judge_op(fn->op, fn->nan, c->dtype, c->pattern, &st->ref, v, r->depth, &j);
    if (k == 0) first = v;
    else if (!same_result(c->dtype, fn->op, first, v)) r->nondeterministic = 1;
    if (k == 0 || (worst->pass && (!j.pass || j.ratio > worst->ratio))) *worst = j, worst_value = v;
  }
  r->repeats = runs;
  if (kg_variants[c->variant].flags & KG_CLOBBERS) st->dirty = 1;
  kg_value_format(c->dtype, worst_value, r->got, sizeof r->got);
  kg_ref_format_op(fn->op, fn->nan, c->dtype, &st->ref, r->expected, sizeof r->expected);
  r->abs_err = worst->abs_err, r->bound = worst->bound, r->ratio = worst->ratio;
  if (*input_flag(st)) r->input_modified = 1;
}

/* The case's status and message from its judged runs. */
static void case_verdict(const kg_case *c, const kg_judgement *worst, int runs, kg_result *r) {
  r->status = KG_ST_FAIL;
  if (!worst->pass) r->fail = KG_FK_WRONG_RESULT, snprintf(r->message, sizeof r->message, "%s", worst->why);
  else if (r->input_modified)
    r->fail = KG_FK_INPUT_MODIFIED,
    snprintf(r->message, sizeof r->message, "wrote its input but is not declared in-place");
  else if (r->nondeterministic && !kg_variant_nondeterministic(c->variant, c->dtype))
    r->fail = KG_FK_NONDETERMINISTIC,
    snprintf(r->message, sizeof r->message, "results differ across %d runs but the variant claims determinism", runs);
  else r->status = KG_ST_PASS;
}

/* Runs one case; -1 on a CUDA error (st->error says which), which ends the worker. */
static int run_case(state *st, const kg_case *c, const kg_run_params *p, int exact, kg_result *r) {
  const kg_module_variant *fn = st->mods->fns[c->variant];
  const kg_dtype_info *di = kg_dtype_get(c->dtype);
  memset(r, 0, sizeof *r);
  if (!fn) {
    snprintf(st->error, sizeof st->error, "%s: no mutants' module loaded (%s, --mutant-kernels)",
             kg_variants[c->variant].name,
             KG_SELFTEST_MODULE_FILE);
    return -1;
  }
  double t0 = kg_now_s();
  /* floats repeat to catch nondeterminism; a variant that declares float
   * atomics is nondeterministic by its own word, so one run, as integers */
  int runs = di->is_float && !kg_variant_nondeterministic(c->variant, c->dtype) ? p->repeats : 1;
  kg_guard_clear(); /* and no persisting L2 left by the case before */
  if (CU_FAILED(st, (cudaError_t)kg_guard_reset_l2(st->stream))) return -1;
  if (case_setup(st, c, p, exact, fn, runs, r) || queue_runs(st, c, fn, runs)) return -1;
  kg_judgement worst;
  judge_runs(st, c, fn, runs, &worst, r);
  if (r->input_modified) { /* the input back for the next case */
    if (CU_FAILED(st, cudaMemcpyAsync(st->d_in, st->d_pristine, c->n * di->size, cudaMemcpyDeviceToDevice, st->stream)))
      return -1;
    if (CU_FAILED(st, cudaStreamSynchronize(st->stream))) return -1;
  }
  case_verdict(c, &worst, runs, r);
  if (kg_guard_refused()) { /* what the module did explains a wrong result too */
    r->status = KG_ST_FAIL, r->fail = KG_FK_REFUSED;
    snprintf(r->message, sizeof r->message, "%s", kg_guard_refused());
  }
  double t1 = kg_now_s();
  r->check_us = (t1 - t0) * 1e6 - r->input_us;
  if (r->status != KG_ST_PASS || !c->timed) return 0;
  int rc = time_case(st, c, p, r);
  r->time_us = (kg_now_s() - t1) * 1e6;
  return rc;
}

static void free_copies(state *st) {
  for (int k = 0; k < st->npcopy; k++) cudaFree(st->pcopy[k]);
  st->npcopy = 0;
}

/* The base kernel of a paired case: from the base modules (the one that
 * defines the name) or from kgate's own. NULL with st->error when it, or the
 * head, is missing or lacks the dtype. */
static const kg_module_variant *pair_base(state *st, const kg_case *c, const kg_run_params *p) {
  const kg_module_variant *head = st->mods->fns[c->variant], *base = NULL;
  const char *bname = kg_variants[p->pair.base_variant].name;
  if (p->pair.module == 1) { /* the base modules: the one that defines the name */
    const kg_module_set *ms = &st->mods->set;
    for (int k = 0; !base && k < ms->nmods; k++) {
      const kg_module *bm = ms->mod[k].m;
      int b = ms->role[k] == KG_MOD_BASE ? kg_module_find(bm, bname) : -1;
      base = b >= 0 ? &bm->variants[b] : NULL;
    }
  } else {
    base = st->mods->fns[p->pair.base_variant];
  }
  if (!head || !base || !(base->dtypes & KG_DT_BIT(c->dtype))) {
    snprintf(st->error, sizeof st->error, "paired case %s against %s: not in the %s module for %s",
             kg_variants[c->variant].name, bname, p->pair.module == 1 ? "base" : "own",
             kg_dtype_get(c->dtype)->name);
    return NULL;
  }
  return base;
}

/* The copies of this input group: all allocated at once, so each is a
 * different allocation; made again for the next input (or more copies),
 * restored after an in-place variant wrote them. 0, or -1 with st->error. */
static int pair_copies(state *st, size_t bytes, int copies, int clobbers) {
  int rc = 0;
  if (st->pcopy_gen != st->gen || st->npcopy < copies) {
    free_copies(st);
    for (int k = 0; !rc && k < copies; k++) {
      cudaError_t e = cudaMalloc(&st->pcopy[k], bytes ? bytes : 1);
      if (e) {
        snprintf(st->error, sizeof st->error, "CUDA error at %s:%d: %s (%d) / paired input copy %d", __FILE_NAME__,
                 __LINE__, cudaGetErrorName(e), (int)e, k);
        rc = -1;
      }
      st->npcopy += !e;
    }
    st->pcopy_gen = st->gen, st->pcopy_dirty = 1;
  }
  for (int k = 0; !rc && st->pcopy_dirty && k < st->npcopy; k++) {
    cudaError_t e = cudaMemcpyAsync(st->pcopy[k], st->d_pristine, bytes, cudaMemcpyDeviceToDevice, st->stream);
    if (e) {
      snprintf(st->error, sizeof st->error, "CUDA error at %s:%d: %s (%d) / paired input copy %d", __FILE_NAME__,
               __LINE__, cudaGetErrorName(e), (int)e, k);
      rc = -1;
    }
  }
  if (!rc) st->pcopy_dirty = clobbers;
  return rc;
}

/* The head's samples of a paired case as its absolute timing: the same
 * cold-L2 samples that the absolute pass takes, so a paired run times each
 * cell once (samples 0 when none was kept). */
static void head_timing(const double *h, size_t n, kg_result *r) {
  kg_stats s;
  kg_stats_compute(h, n, &s);
  if (!n || !(s.median > 0)) return;
  r->timing = (kg_timing){.samples = (int)n, .median_us = s.median, .q1_us = s.q1, .q3_us = s.q3, .min_us = s.min,
                          .noise = s.noise};
}

/* What a paired case needs before either side runs: both kernels, the input
 * and its reference (the re-check's), the timer (allocated before the
 * copies, as the A/A measurements were taken), the re-check's slots,
 * scratch for the larger side and its input copies. 0, or -1 with st->error. */
static int pair_setup(state *st, const kg_case *c, const kg_run_params *p, int copies, const kg_module_variant **head,
                      const kg_module_variant **base) {
  *head = st->mods->fns[c->variant], *base = pair_base(st, c, p);
  if (!*base || prepare_input(st, c, p, 0, 1) || make_timer(st) || recheck_buffers(st)) return -1;
  size_t sh = (*head)->scratch(c->dtype, c->n), sb = (*base)->scratch(c->dtype, c->n);
  if (grow_to(st, &st->d_scratch, &st->scratch_cap, sh > sb ? sh : sb, 0)) return -1;
  int clobbers = (((*head)->flags | (*base)->flags) & KG_CLOBBERS) != 0;
  return pair_copies(st, c->n * kg_dtype_get(c->dtype)->size, copies, clobbers);
}

/* A paired case's work over its copies: the head's samples of every copy
 * side by side (its absolute timing), one copy's base samples, and per side
 * (0 head, 1 base) the samples re-checked and the first wrong one's message. */
typedef struct pair_work {
  const kg_module_variant *fn[2];
  int copies, quads;
  double *h, *b;
  size_t nhead, first_pairs;
  kg_recheck_kind kind; /* the head's re-check */
  char why[80];
  int judged[2], wrong[2];
  char msg[2][sizeof ((kg_result *)0)->message];
} pair_work;

/* One copy's block (k): ABBA quads of head and base on copy k behind the
 * same L2 flush (timing.h), every sample's input edited before it and its
 * result re-checked after the block, one schedule for both sides, each
 * judged at its own depth (kg_recheck_pair; the base only where its
 * operation is the head's). The block joins r's. 0, or -1 with st->error. */
static int pair_block(state *st, const kg_case *c, const kg_run_params *p, pair_work *w, int k, kg_result *r) {
  const kg_module_variant *hf = w->fn[0], *bf = w->fn[1];
  recheck_block b = {.judged = {1, hf->op == bf->op && hf->nan == bf->nan}};
  kg_recheck_init(&b.rc[0], c->dtype, c->pattern, hf->op, hf->nan, p->seed, c->n, hf->depth(c->n), &st->ref,
                  recheck_key(st, c, k + 1));
  kg_recheck_pair(&b.rc[0], &b.rc[1], bf->depth(c->n));
  int clobbers = ((hf->flags | bf->flags) & KG_CLOBBERS) != 0; /* either side: both get the copy back */
  timed_ctx th = {{st, hf, c, st->pcopy[k]}, clobbers, 0, &b}, tb = {{st, bf, c, st->pcopy[k]}, clobbers, 1, &b};
  kg_sample_step sh = {run_step, timed_prepare, &th, timed_after}, sb = {run_step, timed_prepare, &tb, timed_after};
  size_t npairs = 0;
  /* Half the blocks open their quads with the base (BAAB): which half
   * alternates by copy and by round, so neither the orientation nor a copy's
   * placement leans the cell (timing.c). */
  int flip = (k + p->pair.round) & 1;
  int e = kg_timer_pairs(st->timer, &sh, &sb, (size_t)w->quads, p->pair.max_seconds / w->copies, p->time.hot, k == 0,
                         flip, w->h + w->nhead, w->b, &npairs, &r->pair_set_aside);
  if (e) {
    snprintf(st->error, sizeof st->error, "CUDA error at %s:%d: %s (%d) / paired timing of %s", __FILE_NAME__,
             __LINE__, cudaGetErrorName((cudaError_t)e), e, kg_variants[c->variant].name);
    return -1;
  }
  recheck_found f;
  if (recheck_after(st, &th, &f)) return -1;
  for (int s = 0; s < 2; s++) {
    w->judged[s] += f.judged[s];
    if (f.wrong[s] && !w->wrong[s]) w->wrong[s] = 1, snprintf(w->msg[s], sizeof w->msg[s], "copy %d, %.180s", k + 1,
                                                              f.msg[s]);
  }
  w->kind = b.rc[0].kind;
  snprintf(w->why, sizeof w->why, "%s", b.rc[0].why);
  if (k == 0) w->first_pairs = npairs;
  if (kg_pblock_from_pairs(w->h + w->nhead, w->b, npairs, &r->blocks[r->nblocks]) == 0) r->nblocks++;
  w->nhead += npairs;
  return 0;
}

/* A paired case's guard (as a timed case's: the head's re-check, what both
 * modules made while timed, the cold L2's evidence) and its verdict on the
 * re-check: a side wrong after timing (the head first) fails the case with
 * no blocks and no timing, naming the side. 0, or -1 with st->error. */
static int pair_judged(state *st, const kg_case *c, const kg_run_params *p, const pair_work *w, kg_result *r) {
  r->guard.on = 1, r->guard.recheck = w->kind, r->guard.rechecked = w->judged[0];
  snprintf(r->guard.recheck_why, sizeof r->guard.recheck_why, "%s", w->why);
  kg_guard_counts(&r->guard.allocs, &r->guard.alloc_bytes, &r->guard.streams);
  if (cold_of(st, c->n * kg_dtype_get(c->dtype)->size, p->time.hot, &r->guard)) return -1;
  int s = w->wrong[0] ? 0 : w->wrong[1] ? 1 : -1;
  if (s < 0) return 0;
  r->status = KG_ST_FAIL, r->fail = KG_FK_WRONG_AFTER_TIMING, r->pair_wrong = s ? KG_SIDE_BASE : KG_SIDE_HEAD;
  snprintf(r->message, sizeof r->message, "%s", w->msg[s]);
  r->nblocks = 0, r->timing = (kg_timing){0};
  return 0;
}

/* A paired case: the variant and its base (pair_variant, from kgate's own
 * module or the same name from the base module) on the same inputs, one
 * block per separately allocated copy (pair_block). Checked before (the
 * gate only pairs cases that passed their check) and after timing (the
 * re-check of every sample of both sides). */
static int pair_case(state *st, const kg_case *c, const kg_run_params *p, kg_result *r) {
  memset(r, 0, sizeof *r);
  pair_work w = {.copies = p->pair.copies, .quads = p->pair.quads};
  kg_guard_clear();
  if (pair_setup(st, c, p, w.copies, &w.fn[0], &w.fn[1])) return -1;
  if (CU_FAILED(st, (cudaError_t)kg_guard_reset_l2(st->stream))) return -1;
  w.h = malloc(2 * (size_t)w.quads * (size_t)w.copies * sizeof *w.h), w.b = malloc(2 * (size_t)w.quads * sizeof *w.b);
  int rc = w.h && w.b ? 0 : -1;
  if (rc) snprintf(st->error, sizeof st->error, "out of host memory for %d sample pairs", 2 * w.quads);
  /* The cell's time cap is split over the copies. A kernel so slow that its
   * first copy's share held only one quad keeps two copies: the fewest that
   * still make a spread within this worker visible. */
  kg_guard_count(1);
  for (int k = 0; !rc && k < w.copies; k++) {
    if (k == 1 && w.copies > 2 && w.first_pairs <= 2) w.copies = 2; /* one quad filled the first copy's share */
    rc = pair_block(st, c, p, &w, k, r);
  }
  kg_guard_count(0);
  if (!rc) head_timing(w.h, w.nhead, r);
  free(w.h);
  free(w.b);
  if (rc) return -1;
  r->status = KG_ST_PASS;
  r->repeats = 0;
  r->timing.sm_clock_mhz = kg_timer_sm_clock(st->timer);
  r->timing.set_aside = r->pair_set_aside;
  if (pair_judged(st, c, p, &w, r)) return -1;
  if (kg_guard_refused()) { /* head or base did what the timer forbids: no verdict from these pairs */
    memset(r, 0, sizeof *r);
    r->status = KG_ST_FAIL, r->fail = KG_FK_REFUSED;
    snprintf(r->message, sizeof r->message, "%s", kg_guard_refused());
  }
  return 0;
}

/* What a probe needs: both kernels, an input buffer of the case's size and
 * scratch for the larger side. The graphs never run, so the input's values
 * do not matter: none is made (a buffer grown here holds no input). 0, or
 * -1 with st->error. */
static int probe_setup(state *st, const kg_case *c, const kg_run_params *p, const kg_module_variant **head,
                       const kg_module_variant **base) {
  *head = st->mods->fns[c->variant], *base = pair_base(st, c, p);
  if (!*base) return -1;
  size_t bytes = c->n * kg_dtype_get(c->dtype)->size, cap = st->dev_cap;
  if (bytes > st->dev_cap || !st->d_in) {
    st->valid = 0;
    if (grow_to(st, &st->d_pristine, &cap, bytes, 0) || grow_to(st, &st->d_in, &st->dev_cap, bytes, 0)) return -1;
  }
  size_t sh = (*head)->scratch(c->dtype, c->n), sb = (*base)->scratch(c->dtype, c->n);
  return grow_to(st, &st->d_scratch, &st->scratch_cap, sh > sb ? sh : sb, 0);
}

/* The digest a check record keeps for a case's group (checkrec.h): the
 * head's call captured twice on kgate's buffers, both calls described alike
 * and only with what the proof compares (proof.h), then SHA-256 over that
 * description and the variant's declared facts, which steer the check
 * (in place, float atomics, dtypes, the operation, its scratch and the
 * summation depth behind the error bound). The answer names the kernels,
 * whose machine code the supervisor adds. */
static int probe_head(state *st, const kg_case *c, const kg_module_variant *head, kg_result *r) {
  step_ctx x = {st, head, c, st->d_in};
  const kg_launch_buf bufs[] = {
      {st->d_in, c->n * kg_dtype_get(c->dtype)->size}, {st->d_out, 16}, {st->d_scratch, st->scratch_cap}};
  kg_launches l[2];
  int failed = -1;
  for (int k = 0; k < 2 && failed < 0; k++)
    if (kg_launches_capture(probe_step, &x, st->stream, bufs, 3, &l[k])) failed = k;
  r->status = KG_ST_PASS, r->probed = 1, r->launch_same = -1;
  if (failed >= 0) {
    snprintf(r->message, sizeof r->message, "not proven: %s", l[failed].why);
  } else if (kg_proof_check(l[0].desc, r->message, sizeof r->message) &&
             kg_proof_check(l[1].desc, r->message, sizeof r->message)) {
    if (strcmp(l[0].desc, l[1].desc)) {
      snprintf(r->message, sizeof r->message, "not proven: two calls queue different work");
    } else {
      size_t len = strlen(l[0].desc);
      char facts[200];
      int fl = snprintf(facts, sizeof facts, "facts flags=%u dtypes=%u op=%u nan=%u scratch=%zu depth=%a\n",
                        head->flags, head->dtypes, head->op, head->nan, head->scratch(c->dtype, c->n),
                        head->depth ? head->depth(c->n) : 0.0);
      char *all = malloc(len + (size_t)fl + 1);
      if (all) {
        memcpy(all, l[0].desc, len);
        memcpy(all + len, facts, (size_t)fl + 1);
        kg_proof_digest_hex(all, len + (size_t)fl, r->launch_digest);
        r->launch_same = 1, r->nlaunches = l[0].nlaunches, r->nkernels = l[0].nkernels;
        memcpy(r->kernels, l[0].kernels, sizeof r->kernels);
        r->read.n = l[0].nread;
        memcpy(r->read.hash, l[0].read, sizeof r->read.hash);
        r->message[0] = '\0';
      } else {
        snprintf(r->message, sizeof r->message, "not proven: out of host memory");
      }
      free(all);
    }
  }
  for (int k = 0; k < 2 && (failed < 0 || k <= failed); k++) kg_launches_free(&l[k]);
  return 0;
}

/* A probe of a paired case: head and base each captured twice on the same
 * buffers (launches.h), untimed; the CPU side (proof.h) judges whether they
 * queue the same work it can compare, and the answer names the kernels,
 * whose machine code the supervisor compares. */
static int probe_case(state *st, const kg_case *c, const kg_run_params *p, kg_result *r) {
  memset(r, 0, sizeof *r);
  const kg_module_variant *head, *base;
  if (probe_setup(st, c, p, &head, &base)) return -1;
  if (p->pair.probe == 2) return probe_head(st, c, head, r);
  step_ctx xh = {st, head, c, st->d_in}, xb = {st, base, c, st->d_in};
  const kg_launch_buf bufs[] = {
      {st->d_in, c->n * kg_dtype_get(c->dtype)->size}, {st->d_out, 16}, {st->d_scratch, st->scratch_cap}};
  kg_launches l[4]; /* the head's two calls, then the base's */
  int failed = -1;
  for (int k = 0; k < 4 && failed < 0; k++)
    if (kg_launches_capture(probe_step, k < 2 ? (void *)&xh : (void *)&xb, st->stream, bufs, 3, &l[k])) failed = k;
  r->status = KG_ST_PASS, r->probed = 1, r->launch_same = -1;
  if (failed >= 0) {
    snprintf(r->message, sizeof r->message, "not proven: the %s: %s", failed < 2 ? "head" : "base", l[failed].why);
  } else {
    const char *h[2] = {l[0].desc, l[1].desc}, *b[2] = {l[2].desc, l[3].desc};
    int v = kg_proof_launches(h, b, r->message, sizeof r->message);
    r->launch_same = v == KG_PROOF_SAME ? 1 : v == KG_PROOF_DIFFER ? 0 : -1;
    if (v == KG_PROOF_SAME) {
      r->nlaunches = l[0].nlaunches, r->nkernels = l[0].nkernels;
      memcpy(r->kernels, l[0].kernels, sizeof r->kernels);
      r->read.n = l[0].nread; /* the base's lines were the same: the same variables, alike */
      memcpy(r->read.hash, l[0].read, sizeof r->read.hash);
    }
  }
  for (int k = 0; k < 4 && (failed < 0 || k <= failed); k++) kg_launches_free(&l[k]);
  return 0;
}

/* The references this worker computed, added to the user's cache. */
static void save_refs(state *st) {
  char err[600];
  if (st->cache_dirty && kg_refcache_save(&st->cache, st->cache_path, &st->key, err, sizeof err) < 0)
    fprintf(stderr, "kgate worker: %s\n", err);
  kg_refcache_free(&st->shipped);
  kg_refcache_free(&st->cache);
}

static void emit(char *line) {
  if (line) {
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
  }
  free(line);
}

/* The card's identity, as nvidia-smi names it, so a baseline can tell
 * another physical card of the same model from this one. */
static void card_identity(const struct cudaDeviceProp *prop, kg_device_info *d) {
  const unsigned char *u = (const unsigned char *)prop->uuid.bytes;
  snprintf(d->uuid, sizeof d->uuid,
           "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
           u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  snprintf(d->pci, sizeof d->pci, "%04x:%02x:%02x.0", (unsigned)prop->pciDomainID & 0xffffu,
           (unsigned)prop->pciBusID & 0xffu, (unsigned)prop->pciDeviceID & 0x1fu);
}

/* With no NVIDIA driver installed at all, the runtime says
 * cudaErrorInsufficientDriver ("CUDA driver version is insufficient for CUDA
 * runtime version"), which sends people to upgrade a driver they do not have:
 * whether the driver's library loads tells the two apart. */
static int no_driver(cudaError_t e) {
  if (e != cudaErrorInsufficientDriver) return 0;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib) dlclose(lib);
  return !lib;
}

/* The roofline: the cached one of this card, driver and memory clock
 * (roofcache.h), else measured now and kept. 0, or -1 with st->error. */
static int roofline_of(state *st, kg_device_info *d) {
  char path[PATH_MAX], err[300];
  int have_path = kg_cache_path(KG_ROOFCACHE_FILE, path, sizeof path) == 0;
  double now = (double)time(NULL);
  if (have_path && kg_roofcache_get(path, d, now, &d->roofline_gbps)) return 0;
  if (make_timer(st) || kg_timer_roofline(st->timer, &d->roofline_gbps)) return -1;
  if (have_path && kg_roofcache_put(path, d, d->roofline_gbps, now, err, sizeof err))
    fprintf(stderr, "kgate worker: %s\n", err);
  return 0;
}

static int hello(state *st, int device, int roofline) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  char why[200];
  if (no_driver(e)) {
    snprintf(why, sizeof why, "no NVIDIA driver (libcuda.so.1 not found)");
  } else if (e != cudaSuccess || count == 0) {
    snprintf(why, sizeof why, "no CUDA device: %s (%s)", e ? cudaGetErrorName(e) : "count is 0",
             e ? cudaGetErrorString(e) : "no device visible");
  } else if (device >= count) {
    snprintf(why, sizeof why, "no CUDA device %d: this host has %d", device, count);
  } else {
    kg_device_info d = {.count = count};
    struct cudaDeviceProp prop;
    size_t free_b = 0, total_b = 0;
    int l2 = 0;
    e = cudaSetDevice(device);
    if (!e) e = cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, device);
    if (!e) e = cudaDeviceGetAttribute(&d.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, device);
    if (!e) e = cudaGetDeviceProperties(&prop, device);
    if (!e) e = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
    if (!e) e = cudaMemGetInfo(&free_b, &total_b);
    if (!e) e = cudaDriverGetVersion(&d.driver_version);
    if (!e) e = cudaRuntimeGetVersion(&d.runtime_version);
    if (!e) e = cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking);
    if (!e) e = cudaMalloc(&st->d_out, 16);
    if (!e) e = cudaMalloc((void **)&st->d_fp, sizeof *st->d_fp);
    if (!e) e = cudaHostAlloc((void **)&st->h_fp, sizeof *st->h_fp, cudaHostAllocDefault);
    if (!e) {
      snprintf(d.name, sizeof d.name, "%s", prop.name);
      d.cc_major = prop.major, d.cc_minor = prop.minor, d.sms = prop.multiProcessorCount;
      card_identity(&prop, &d);
      /* what built the code under test and the machine's image and driver: the nightly names their changes */
      kg_module_set_toolchain(&st->mods->set, &d.toolchain);
      kg_toolchain_machine(&d.toolchain, NULL);
      d.l2_bytes = st->l2_bytes = l2, d.mem_bytes = (long long)total_b;
      /* DDR: two transfers per clock over the whole bus. */
      d.peak_gbps = 2.0 * d.mem_clock_khz * 1e3 * (d.bus_width_bits / 8.0) / 1e9;
      if (roofline && roofline_of(st, &d)) {
        snprintf(why, sizeof why, "roofline measurement failed: %.150s", st->error[0] ? st->error : "CUDA error");
        emit(kg_proto_encode_fatal(why));
        return -1;
      }
      emit(kg_proto_encode_hello(&d));
      return 0;
    }
    snprintf(why, sizeof why, "CUDA device %d unusable: %s (%s)", device, cudaGetErrorName(e), cudaGetErrorString(e));
  }
  emit(kg_proto_encode_fatal(why));
  return -1;
}

/* Loads the modules (modload.h: the --kernels modules' variants join the
 * registry, as the supervisor adds them from this worker's describe) and
 * maps the registry onto them: every real variant of kgate's own must be in
 * the own module with the flags and dtypes this kgate was built with (a
 * module from elsewhere is a different kgate's); so must every mutant be in
 * the mutants' module when one is given (else they are absent). */
static int load_modules(const kg_worker_opts *o, modules *m, char *err, size_t errlen) {
  char own[1024];
  const char *path = o->own_kernels;
  if (!path) {
    if (kg_module_default_path(own, sizeof own, err, errlen)) return -1;
    path = own;
  }
  if (kg_module_set_load(&m->set, path, o->kernels, o->nkernels, o->base_kernels, o->nbase, err, errlen)) return -1;
  if (o->mutant_kernels && kg_module_open(o->mutant_kernels, &m->mutants, err, errlen)) return -1;
  m->fns = calloc(kg_nvariants_all, sizeof *m->fns);
  if (!m->fns) return snprintf(err, errlen, "out of memory"), -1;
  const kg_module_set *ms = &m->set;
  for (size_t v = 0; v < kg_nvariants_all; v++) {
    const kg_variant_info *vi = &kg_variants[v];
    int mutant = kg_variant_is_mutant((int)v);
    const kg_loaded_module *from = mutant && m->mutants.m ? &m->mutants : &ms->mod[MOD_OWN];
    const kg_module *home = from->m;
    for (int k = 1; vi->module > 0 && k < ms->nmods; k++)
      if (ms->role[k] == KG_MOD_KERNELS && !strcmp(ms->mod[k].path, kg_registry_module_path(vi->module)))
        home = ms->mod[k].m;
    int i = kg_module_find(home, vi->name);
    const kg_module_variant *e = i >= 0 ? &home->variants[i] : NULL;
    if (e && (e->flags != vi->flags || e->dtypes != vi->dtypes || e->op != vi->op)) e = NULL;
    if (!e && (!mutant || m->mutants.m))
      return snprintf(err, errlen, "kernel module %.200s does not match this kgate: %s %s is missing or differs "
                      "(build kgate and its module from one tree)", from->path, mutant ? "mutant" : "variant",
                      vi->name), -1;
    if (mutant && !m->mutants.m) e = NULL; /* kgate's own module holds no planted bug */
    m->fns[v] = e;
  }
  return 0;
}

static void unload_modules(modules *m) {
  free(m->fns);
  kg_module_close(&m->mutants);
  kg_module_set_close(&m->set);
}

int kg_worker_main(const kg_worker_opts *o) {
  modules mods = {0};
  char why[512];
  if (load_modules(o, &mods, why, sizeof why)) {
    emit(kg_proto_encode_fatal(why));
    unload_modules(&mods);
    return 2;
  }
  if (o->describe) { /* no CUDA call: works on a machine without a GPU */
    char *line = kg_module_describe(mods.set.mod, mods.set.role, (size_t)mods.set.nmods);
    int described = line != NULL;
    emit(described ? line
                   : kg_proto_encode_fatal("cannot describe the kernel modules (a path that is not UTF-8, or out of "
                                           "memory)"));
    unload_modules(&mods);
    return described ? 0 : 2;
  }
  int device = o->device, roofline = o->roofline;
  state st = {.mods = &mods};
  if (hello(&st, device, roofline)) {
    free(mods.fns);
    return 3;
  }
  char *line = NULL;
  size_t cap = 0;
  int code = 0;
  while (getline(&line, &cap, stdin) > 0) {
    size_t index;
    kg_case c;
    kg_run_params p;
    kg_result r;
    char err[200];
    int exact = 0;
    if (kg_proto_decode_case_exact(line, &index, &c, &p, &exact, err, sizeof err)) {
      fprintf(stderr, "kgate worker: %s\n", err);
      code = 2;
      break;
    }
    if (p.pair.on && p.pair.probe ? probe_case(&st, &c, &p, &r)
        : p.pair.on             ? pair_case(&st, &c, &p, &r)
                                : run_case(&st, &c, &p, exact, &r)) {
      memset(&r, 0, sizeof r);
      r.status = KG_ST_ERROR, r.fail = KG_FK_CRASH;
      snprintf(r.message, sizeof r.message, "%s", st.error);
      r.device = device;
      emit(kg_proto_encode_result(index, &r, 1));
      code = 1; /* the context may be poisoned: a fresh worker takes over */
      break;
    }
    r.device = device;
    emit(kg_proto_encode_result(index, &r, 0));
  }
  free(line);
  free(st.host);
  save_refs(&st);
  kg_timer_destroy(st.timer);
  free(mods.fns); /* the modules stay loaded: the CUDA runtime tears their kernels down at exit */
  return code;
}
