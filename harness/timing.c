#include "timing.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernels.h"
#include "nvml.h"
#include "stats.h"

#define MAX_SAMPLES 4096
#define GRAPH_REPS 100
#define SMALL_INPUT ((size_t)1 << 20)

struct kg_timer {
  cudaStream_t s;
  cudaEvent_t a, b;
  void *flush;
  size_t flush_bytes;
  kg_nvml *nvml;
  double samples[MAX_SAMPLES];
};

#define TRY(expr)                           \
  do {                                      \
    int e_ = (int)(expr);                   \
    if (e_) return e_;                      \
  } while (0)

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

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
  if (t->flush) cudaFree(t->flush);
  kg_nvml_close(t->nvml);
  free(t);
}

/* Stream time of one step, in microseconds. */
static int time_step(kg_timer *t, kg_step_fn step, void *ctx, double *us) {
  float ms = 0;
  TRY(cudaEventRecord(t->a, t->s));
  TRY(step(ctx));
  TRY(cudaEventRecord(t->b, t->s));
  TRY(cudaEventSynchronize(t->b));
  TRY(cudaEventElapsedTime(&ms, t->a, t->b));
  *us = (double)ms * 1e3;
  return 0;
}

typedef struct read_ctx {
  kg_timer *t;
  void *buf;
  size_t bytes;
} read_ctx;

static int read_step(void *ctx) {
  read_ctx *r = ctx;
  return kg_dev_read(r->buf, r->bytes, r->t->s);
}

int kg_timer_roofline(kg_timer *t, double *gbps) {
  read_ctx r = {t, NULL, (size_t)1 << 30};
  TRY(cudaMalloc(&r.buf, r.bytes));
  int e = (int)cudaMemsetAsync(r.buf, 0x5a, r.bytes, t->s);
  double us[9];
  for (int k = 0; !e && k < 9; k++) e = time_step(t, read_step, &r, &us[k]);
  cudaFree(r.buf);
  if (e) return e;
  kg_stats st;
  kg_stats_compute(us, 9, &st);
  *gbps = (double)r.bytes / (st.median * 1e3);
  return 0;
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

int kg_timer_measure(kg_timer *t, kg_step_fn run, kg_step_fn prepare, void *ctx, size_t input_bytes,
                     const kg_time_opts *o, kg_timing *out) {
  *out = (kg_timing){0};
  for (int k = 0; k < 2; k++) { /* warm-up: module load, first-touch, clocks */
    if (prepare) TRY(prepare(ctx));
    TRY(run(ctx));
  }
  TRY(cudaStreamSynchronize(t->s));
  unsigned mhz0 = 0, mhz1 = 0;
  int thr0 = 0, thr1 = 0;
  int have_clock = kg_nvml_read(t->nvml, &mhz0, &thr0) == 0;
  double start = now_s();
  size_t n = 0;
  kg_stats st = {0};
  while (n < MAX_SAMPLES) {
    if (prepare) TRY(prepare(ctx));
    if (!o->hot) TRY(kg_dev_read(t->flush, t->flush_bytes, t->s));
    TRY(time_step(t, run, ctx, &t->samples[n]));
    n++;
    if (n >= (size_t)o->min_samples) {
      kg_stats_compute(t->samples, n, &st);
      if (kg_stats_enough(&st, (size_t)o->min_samples, o->max_noise)) break;
    }
    if (now_s() - start > o->max_seconds && n >= 3) break;
  }
  kg_stats_compute(t->samples, n, &st);
  if (have_clock && kg_nvml_read(t->nvml, &mhz1, &thr1) == 0) {
    out->sm_clock_mhz = (mhz0 + mhz1) / 2.0;
    out->throttled = thr0 || thr1;
  }
  out->samples = (int)st.count;
  out->median_us = st.median, out->q1_us = st.q1, out->q3_us = st.q3, out->min_us = st.min;
  out->noise = st.noise;
  if (input_bytes < SMALL_INPUT) TRY(graph_time(t, run, ctx, &out->graph_us));
  return 0;
}
