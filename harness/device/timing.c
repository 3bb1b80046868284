#include "timing.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cold.h"
#include "kernels.h"
#include "nvml.h"
#include "label.h"
#include "stats.h"

#define MAX_SAMPLES KG_TIMER_MAX_SAMPLES
#define GRAPH_REPS 100
#define SMALL_INPUT ((size_t)1 << 20)

/* Samples queued behind one hold kernel: bounded so that the host never
 * waits on a full launch queue while the GPU waits on the host. */
#define BATCH 32

struct kg_timer {
  cudaStream_t s;
  cudaEvent_t a, b;
  /* Two batches may be in flight (kg_timer_pairs queues the next while the
   * last runs): each has its own events and hold flags. */
  cudaEvent_t ev[2][2 * BATCH];
  volatile int *flags; /* mapped host memory, a pair per batch: [0] release the hold, [1] the hold timed out */
  void *flush;
  size_t flush_bytes;
  kg_nvml *nvml;
  unsigned last_mhz; /* the SM clock NVML read after the last batch (0: none) */
  int last_thr, read_once; /* a clock-lowering reason after the last batch; NVML read yet */
  double samples[MAX_SAMPLES], kept[MAX_SAMPLES];
};

#define TRY(expr)                           \
  do {                                      \
    int e_ = (int)(expr);                   \
    if (e_) return e_;                      \
  } while (0)

kg_timer *kg_timer_create(void *stream, long long l2_bytes, char *err, size_t errlen) {
  kg_timer *t = calloc(1, sizeof *t);
  if (!t) {
    snprintf(err, errlen, "out of host memory for the timer");
    return NULL;
  }
  t->s = (cudaStream_t)stream;
  t->flush_bytes = 2 * (size_t)l2_bytes > ((size_t)64 << 20) ? 2 * (size_t)l2_bytes : (size_t)64 << 20;
  t->flush_bytes = (t->flush_bytes + 15) & ~(size_t)15;
  cudaError_t e = cudaEventCreate(&t->a);
  if (!e) e = cudaEventCreate(&t->b);
  for (int k = 0; !e && k < 4 * BATCH; k++) e = cudaEventCreate(&t->ev[k / (2 * BATCH)][k % (2 * BATCH)]);
  if (!e) e = cudaHostAlloc((void **)&t->flags, 4 * sizeof(int), cudaHostAllocMapped);
  if (!e) e = cudaMalloc(&t->flush, t->flush_bytes);
  if (!e) e = cudaMemset(t->flush, 0x3c, t->flush_bytes); /* defined bytes, written once here */
  if (!e) e = cudaDeviceSynchronize();
  if (e) {
    snprintf(err, errlen, "timer setup: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
    kg_timer_destroy(t);
    return NULL;
  }
  int dev = 0;
  char bus[32];
  if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetPCIBusId(bus, sizeof bus, dev) == cudaSuccess)
    t->nvml = kg_nvml_open(bus);
  return t;
}

void kg_timer_destroy(kg_timer *t) {
  if (!t) return;
  if (t->a) cudaEventDestroy(t->a);
  if (t->b) cudaEventDestroy(t->b);
  for (int k = 0; k < 4 * BATCH; k++)
    if (t->ev[k / (2 * BATCH)][k % (2 * BATCH)]) cudaEventDestroy(t->ev[k / (2 * BATCH)][k % (2 * BATCH)]);
  if (t->flags) cudaFreeHost((void *)t->flags);
  if (t->flush) cudaFree(t->flush);
  kg_nvml_close(t->nvml);
  free(t);
}

/* One batch: a hold kernel, then for each sample its untimed prepare and L2
 * flush and its timed run between two events, all queued before the hold is
 * released, so the host's launch latency never lands inside a sample. A
 * batch whose hold timed out (the host was slower than the hold's patience)
 * or during which NVML saw a clock-lowering reason is set aside: its samples
 * come back as NaN and are counted in *set_aside. slot: which of the two
 * sets of events and flags (a batch may be queued while the other runs). */
static int queue_batch(kg_timer *t, int slot, const kg_sample_step *steps, const int *seq, size_t n, int hot) {
  volatile int *flags = t->flags + 2 * slot;
  cudaEvent_t *ev = t->ev[slot];
  flags[0] = 0;
  flags[1] = 0;
  __sync_synchronize();
  int *dflags = NULL;
  TRY(cudaHostGetDevicePointer((void **)&dflags, (void *)t->flags, 0));
  int e = kg_dev_hold(dflags + 2 * slot, 1.0, t->s);
  for (size_t i = 0; !e && i < n; i++) {
    const kg_sample_step *st = &steps[seq[i]];
    if (st->prepare) e = st->prepare(st->ctx);
    if (!e && !hot) e = kg_dev_read(t->flush, t->flush_bytes, t->s);
    if (!e) e = (int)cudaEventRecord(ev[2 * i], t->s);
    if (!e) e = st->run(st->ctx);
    if (!e) e = (int)cudaEventRecord(ev[2 * i + 1], t->s);
    if (!e && st->after) e = st->after(st->ctx);
  }
  __sync_synchronize();
  flags[0] = 1; /* release, even after an error: the hold must not spin on */
  __sync_synchronize();
  return e;
}

/* Waits for the batch in slot, reads its samples, and sets it aside as
 * queue_batch says. NVML is read once per batch, after it; the state before
 * a batch is the reading after the last (read here only for a timer's first
 * batch, or a batch that ran alone). */
static int finish_batch(kg_timer *t, int slot, size_t n, double *us, int *set_aside) {
  cudaEvent_t *ev = t->ev[slot];
  unsigned mhz = 0;
  int thr0 = t->last_thr, thr1 = 0;
  TRY(cudaEventSynchronize(ev[2 * n - 1]));
  for (size_t i = 0; i < n; i++) {
    float ms = 0;
    TRY(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
    us[i] = (double)ms * 1e3;
  }
  if (kg_nvml_read(t->nvml, &mhz, &thr1) == 0) t->last_mhz = mhz;
  t->last_thr = thr1;
  if (t->flags[2 * slot + 1] || thr0 || thr1) {
    for (size_t i = 0; i < n; i++) us[i] = NAN;
    *set_aside += (int)n;
  }
  return 0;
}

static int run_batch(kg_timer *t, const kg_sample_step *steps, const int *seq, size_t n, int hot, double *us,
                     int *set_aside) {
  unsigned mhz = 0;
  if (!t->read_once) t->read_once = 1, kg_nvml_read(t->nvml, &mhz, &t->last_thr);
  TRY(queue_batch(t, 0, steps, seq, n, hot));
  return finish_batch(t, 0, n, us, set_aside);
}

/* Times steps[seq[i]] for i < n into us[i], in batches queued behind a hold
 * kernel (each sample: prepare, an L2 read flush unless hot, then the timed
 * run). Samples of a batch during which the hold timed out or NVML saw a
 * clock-lowering reason come back as NaN and are added to *set_aside.
 * Returns 0 or a cudaError_t code. */
static int timer_sequence(kg_timer *t, const kg_sample_step *steps, const int *seq, size_t n, int hot, double *us,
                          int *set_aside) {
  for (size_t done = 0; done < n; done += BATCH) {
    size_t m = n - done < BATCH ? n - done : BATCH;
    TRY(run_batch(t, steps, seq + done, m, hot, us + done, set_aside));
  }
  return 0;
}

double kg_timer_sm_clock(const kg_timer *t) { return t->last_mhz; }

typedef struct read_ctx {
  kg_timer *t;
  void *buf;
  size_t bytes;
  int blocks_per_sm, streaming, wide;
} read_ctx;

static int read_step(void *ctx) {
  read_ctx *r = ctx;
  return kg_dev_read_shape(r->buf, r->bytes, r->blocks_per_sm, r->streaming, r->wide, r->t->s);
}

/* The best of a few launch shapes of kgate's read kernel: the roofline is
 * what kgate can read, so a shape that suits this card better counts. Each
 * sample is taken as the variants' are, after the L2 read flush: on an H200
 * back-to-back reads of 1 GiB ran 1-2 % slower than flushed ones (4,417
 * against 4,508 GB/s), which put kgate_single_pass at 101 % of a hot
 * roofline. The buffer is 4 GiB (a quarter of the free memory at most),
 * twice what any default case reads: the launch and the grid's tail weigh
 * less the more is read (1 GiB 4,508, 2 GiB 4,552 GB/s flushed), and a
 * ceiling read at the largest case's size sat 0.3-0.6 % under it. */
int kg_timer_roofline(kg_timer *t, double *gbps) {
  static const int k_shapes[][3] = {{4, 0, 0}, {4, 1, 0}, {8, 0, 0}, {8, 1, 0}, {2, 1, 0},
                                     {4, 0, 1}, {4, 1, 1}, {8, 0, 1}, {8, 1, 1}, {2, 1, 1}};
  size_t free_b = 0, total_b = 0;
  TRY(cudaMemGetInfo(&free_b, &total_b));
  read_ctx r = {t, NULL, (size_t)4 << 30, 0, 0, 0};
  while (r.bytes > ((size_t)256 << 20) && r.bytes > free_b / 4) r.bytes /= 2;
  TRY(cudaMalloc(&r.buf, r.bytes));
  int e = (int)cudaMemsetAsync(r.buf, 0x5a, r.bytes, t->s);
  *gbps = 0;
  for (size_t k = 0; !e && k < sizeof k_shapes / sizeof k_shapes[0]; k++) {
    r.blocks_per_sm = k_shapes[k][0], r.streaming = k_shapes[k][1], r.wide = k_shapes[k][2];
    kg_sample_step step = {read_step, NULL, &r, NULL};
    int seq[9] = {0}, aside = 0;
    double us[9];
    e = timer_sequence(t, &step, seq, 9, 0, us, &aside);
    kg_stats st;
    kg_stats_compute(us, 9, &st);
    double g = (double)r.bytes / (st.median * 1e3);
    if (!e && g > *gbps) *gbps = g;
  }
  cudaFree(r.buf);
  return e;
}

/* Per-call time from a graph of GRAPH_REPS launches: launch overhead is what
 * small inputs measure. A variant that cannot be captured gets 0, not an error. */
static int graph_time(kg_timer *t, kg_step_fn run, void *ctx, double *us) {
  cudaGraph_t g = NULL;
  cudaGraphExec_t x = NULL;
  *us = 0;
  if (cudaStreamBeginCapture(t->s, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  int e = 0;
  for (int k = 0; k < GRAPH_REPS && !e; k++) e = run(ctx);
  cudaError_t end = cudaStreamEndCapture(t->s, &g);
  if (e || end || cudaGraphInstantiate(&x, g, 0)) {
    cudaGetLastError(); /* capture failures are not sticky */
    if (g) cudaGraphDestroy(g);
    return 0;
  }
  double samples[5];
  int rc = (int)cudaGraphLaunch(x, t->s); /* warm-up */
  if (!rc) rc = (int)cudaStreamSynchronize(t->s);
  for (int k = 0; k < 5 && !rc; k++) {
    float ms = 0;
    rc = (int)cudaEventRecord(t->a, t->s);
    if (!rc) rc = (int)cudaGraphLaunch(x, t->s);
    if (!rc) rc = (int)cudaEventRecord(t->b, t->s);
    if (!rc) rc = (int)cudaEventSynchronize(t->b);
    if (!rc) rc = (int)cudaEventElapsedTime(&ms, t->a, t->b);
    samples[k] = (double)ms * 1e3 / GRAPH_REPS;
  }
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  if (rc) return rc;
  kg_stats st;
  kg_stats_compute(samples, 5, &st);
  *us = st.median;
  return 0;
}

/* Moves the finite values of x[0..n) to its front; returns their count. */
static size_t compact(double *x, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(x[i])) x[k++] = x[i];
  return k;
}

int kg_timer_measure(kg_timer *t, const kg_sample_step *step, size_t input_bytes, const kg_time_opts *o,
                     kg_timing *out) {
  *out = (kg_timing){0};
  for (int k = 0; k < 2; k++) { /* warm-up: module load, first-touch, clocks */
    if (step->prepare) TRY(step->prepare(step->ctx));
    TRY(step->run(step->ctx));
  }
  TRY(cudaStreamSynchronize(t->s));
  static const int zeros[BATCH] = {0};
  double start = kg_now_s(), clock_sum = 0;
  size_t n = 0, kept = 0;
  int aside = 0, batches = 0;
  kg_stats st = {0};
  while (n < MAX_SAMPLES) {
    size_t want = n < (size_t)o->min_samples ? (size_t)o->min_samples - n : 8;
    if (want > BATCH) want = BATCH;
    if (want > MAX_SAMPLES - n) want = MAX_SAMPLES - n;
    TRY(timer_sequence(t, step, zeros, want, o->hot, &t->samples[n], &aside));
    n += want;
    clock_sum += t->last_mhz, batches++;
    memcpy(t->kept, t->samples, n * sizeof *t->kept);
    kept = compact(t->kept, n);
    if (kept >= (size_t)o->min_samples) {
      kg_stats_compute(t->kept, kept, &st);
      if (kg_stats_enough(&st, (size_t)o->min_samples, o->max_noise)) break;
    }
    if (kg_now_s() - start > o->max_seconds && n >= 3) break;
  }
  /* Every batch set aside (a card that always reports a clock-lowering
   * reason): keep them all rather than report nothing, and say so. */
  if (kept == 0) {
    out->throttled = 1;
    aside = 0;
    kept = n;
    memcpy(t->kept, t->samples, n * sizeof *t->kept);
  }
  kg_stats_compute(t->kept, kept, &st);
  out->sm_clock_mhz = batches ? clock_sum / batches : 0;
  out->set_aside = aside;
  out->samples = (int)st.count;
  out->median_us = st.median, out->q1_us = st.q1, out->q3_us = st.q3, out->min_us = st.min;
  out->noise = st.noise;
  if (input_bytes < SMALL_INPUT) TRY(graph_time(t, step->run, step->ctx, &out->graph_us));
  return 0;
}

typedef struct probe_ctx {
  kg_timer *t;
  const void *buf;
  size_t bytes;
} probe_ctx;

static int probe_read(void *ctx) {
  probe_ctx *p = ctx;
  return kg_dev_read(p->buf, p->bytes, p->t->s);
}

int kg_timer_cold_probe(kg_timer *t, const void *buf, size_t bytes, double *flushed, double *unflushed) {
  probe_ctx p = {t, buf, bytes & ~(size_t)15};
  static const int zeros[KG_COLD_READS] = {0};
  int aside = 0;
  for (int k = 0; k < KG_COLD_READS; k++) flushed[k] = unflushed[k] = NAN;
  if (!p.bytes) return 0;
  /* flushed: the timer's own L2 flush before each read; unflushed: the same
   * read queued straight before, untimed, so the timed one finds the input in L2 */
  const kg_sample_step cold = {probe_read, NULL, &p, NULL}, warm = {probe_read, probe_read, &p, NULL};
  TRY(timer_sequence(t, &cold, zeros, KG_COLD_READS, 0, flushed, &aside));
  return timer_sequence(t, &warm, zeros, KG_COLD_READS, 1, unflushed, &aside);
}

int kg_timer_pairs(kg_timer *t, const kg_sample_step *head, const kg_sample_step *base, size_t max_quads,
                   double max_seconds, int hot, int warm, int flip, double *head_us, double *base_us,
                   size_t *npairs, int *set_aside) {
  const kg_sample_step steps[2] = {flip ? *base : *head, flip ? *head : *base};
  for (int k = 0; warm && k < 2; k++) { /* warm-up of both: module load, first launch */
    if (steps[k].prepare) TRY(steps[k].prepare(steps[k].ctx));
    TRY(steps[k].run(steps[k].ctx));
  }
  TRY(cudaStreamSynchronize(t->s));
  /* ABBA quads, two pairs each: (A1,B1) and (A2,B2), B2 taken before A2
   * (with flip, BAAB: the base takes the A places). A sample depends on the
   * one before it (the previous kernel's code and launch state). On an H200
   * the orientation alone leaned A/A cells at 2^22 by up to 1.6 %, the same
   * way in every process: ABBA gave cub_sum f32 +1.61 % and kgate_single_pass
   * f32 -1.34 %, BAAB -1.01 % and +1.32 % (3 runs x 4 rounds, 32 cells; the
   * spread of cell means was 0.71 % and 0.68 %). So the worker gives half
   * of each cell's blocks each orientation. Orders that opened batches with
   * an untimed lead-in sample, and a quad's ratio of geometric means, moved
   * cells by 2-7 % on an H100 and are not used. */
  static const int seq[BATCH] = {0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0,
                                 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0};
  /* One quad alone first, to learn what a quad costs; then batches of up to
   * eight quads, each queued while the one before it runs (the host's
   * launches and reads hide behind the GPU's work), as many as fit the time
   * left, so that a kernel of many milliseconds cannot overrun the cap. */
  unsigned mhz = 0;
  if (!t->read_once) t->read_once = 1, kg_nvml_read(t->nvml, &mhz, &t->last_thr);
  double start = kg_now_s(), us[BATCH], per_quad = 0;
  size_t queued = 0, kept = 0, done = 0, inflight[2] = {0, 0}; /* quads */
  if (max_quads > MAX_SAMPLES / 4) max_quads = MAX_SAMPLES / 4;
  int slot = 0, e = 0; /* slot: where the next batch goes; the other may be in flight */
  size_t q = max_quads ? 1 : 0;
  while (!e && (q > 0 || inflight[!slot])) {
    if (q > 0) e = queue_batch(t, slot, steps, seq, 4 * q, hot);
    if (!e && q > 0) inflight[slot] = q, queued += q;
    int old = inflight[!slot] ? !slot : done == 0 ? slot : -1; /* the first batch runs alone */
    if (!e && old >= 0) {
      size_t m = 4 * inflight[old];
      e = finish_batch(t, old, m, us, set_aside);
      for (size_t i = 0; !e && i < m; i += 2) {
        double h = us[seq[i] == flip ? i : i + 1], b = us[seq[i] == flip ? i + 1 : i];
        if (isfinite(h) && isfinite(b)) head_us[kept] = h, base_us[kept] = b, kept++;
      }
      done += inflight[old], inflight[old] = 0;
      per_quad = (kg_now_s() - start) / (double)done;
    }
    if (inflight[slot]) slot = !slot;
    /* What fits: the time left, less what the batch in flight will take. */
    double left = max_seconds - (kg_now_s() - start) - per_quad * (double)inflight[!slot];
    q = done && left > per_quad ? (size_t)(left / per_quad) : 0;
    if (q > BATCH / 4) q = BATCH / 4;
    if (q > max_quads - queued) q = max_quads - queued;
  }
  if (e) { /* let a queued batch end before its events and flags are reused */
    cudaStreamSynchronize(t->s);
    return e;
  }
  *npairs = kept;
  return 0;
}
