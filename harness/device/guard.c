/* The timer's guard (guard.h): kgate's own runtime entry points in front of
 * the modules', each checking and forwarding. */
#include "guard.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The guard's state: one worker thread calls the modules, but a module may
 * launch from threads of its own, so it is process-wide. */
static struct {
  pthread_mutex_t lock;
  volatile int in, counting;
  cudaStream_t stream;
  int allocs, streams;
  long long bytes;
  char refused[160];
  int persist; /* the card keeps persisting lines: 1 yes, 0 no, -1 not asked yet */
} g = {PTHREAD_MUTEX_INITIALIZER, 0, 0, NULL, 0, 0, 0, "", -1};

static void refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void refuse(const char *fmt, ...) {
  pthread_mutex_lock(&g.lock);
  if (!g.refused[0]) {
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(g.refused, sizeof g.refused, "refused: ");
    vsnprintf(g.refused + n, sizeof g.refused - (size_t)n, fmt, ap);
    va_end(ap);
  }
  pthread_mutex_unlock(&g.lock);
}

/* The runtime's functions behind kgate's. */
typedef cudaError_t (*launch_fn)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
typedef cudaError_t (*klaunch_fn)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
typedef cudaError_t (*graph_fn)(cudaGraphExec_t, cudaStream_t);
typedef cudaError_t (*sattr_fn)(cudaStream_t, cudaStreamAttrID, const cudaStreamAttrValue *);
typedef cudaError_t (*nattr_fn)(cudaGraphNode_t, cudaKernelNodeAttrID, const cudaKernelNodeAttrValue *);
typedef cudaError_t (*limit_fn)(enum cudaLimit, size_t);
typedef cudaError_t (*malloc_fn)(void **, size_t);
typedef cudaError_t (*managed_fn)(void **, size_t, unsigned);
typedef cudaError_t (*pitch_fn)(void **, size_t *, size_t, size_t);
typedef cudaError_t (*amalloc_fn)(void **, size_t, cudaStream_t);
typedef cudaError_t (*pmalloc_fn)(void **, size_t, cudaMemPool_t, cudaStream_t);
typedef cudaError_t (*screate_fn)(cudaStream_t *);
typedef cudaError_t (*screatef_fn)(cudaStream_t *, unsigned);
typedef cudaError_t (*screatep_fn)(cudaStream_t *, unsigned, int);
typedef cudaError_t (*capq_fn)(cudaStream_t, enum cudaStreamCaptureStatus *);
static struct {
  launch_fn launch, launch_ptsz, coop, coop_ptsz;
  klaunch_fn klaunch, klaunch_ptsz;
  graph_fn graph, graph_ptsz;
  sattr_fn sattr, sattr_ptsz;
  nattr_fn nattr;
  limit_fn limit;
  malloc_fn malloc;
  managed_fn managed;
  pitch_fn pitch;
  amalloc_fn amalloc, amalloc_ptsz;
  pmalloc_fn pmalloc, pmalloc_ptsz;
  screate_fn screate;
  screatef_fn screatef;
  screatep_fn screatep;
  capq_fn capturing; /* the runtime's own: kgate's query is not a module's (launches.c counts those) */
} real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

#define FIND(member, name) (*(void **)&real.member = dlsym(RTLD_NEXT, name))
static void find_real(void) {
  FIND(launch, "cudaLaunchKernel"), FIND(launch_ptsz, "cudaLaunchKernel_ptsz");
  FIND(coop, "cudaLaunchCooperativeKernel"), FIND(coop_ptsz, "cudaLaunchCooperativeKernel_ptsz");
  FIND(klaunch, "__cudaLaunchKernel"), FIND(klaunch_ptsz, "__cudaLaunchKernel_ptsz");
  FIND(graph, "cudaGraphLaunch"), FIND(graph_ptsz, "cudaGraphLaunch_ptsz");
  FIND(sattr, "cudaStreamSetAttribute"), FIND(sattr_ptsz, "cudaStreamSetAttribute_ptsz");
  FIND(nattr, "cudaGraphKernelNodeSetAttribute"), FIND(limit, "cudaDeviceSetLimit");
  FIND(malloc, "cudaMalloc"), FIND(managed, "cudaMallocManaged"), FIND(pitch, "cudaMallocPitch");
  FIND(amalloc, "cudaMallocAsync"), FIND(amalloc_ptsz, "cudaMallocAsync_ptsz");
  FIND(pmalloc, "cudaMallocFromPoolAsync"), FIND(pmalloc_ptsz, "cudaMallocFromPoolAsync_ptsz");
  FIND(screate, "cudaStreamCreate"), FIND(screatef, "cudaStreamCreateWithFlags");
  FIND(screatep, "cudaStreamCreateWithPriority"), FIND(capturing, "cudaStreamIsCapturing");
}
#undef FIND
#define REAL(member) (pthread_once(&real_once, find_real), real.member)

/* The stream a launch names, against the one kgate gave (ptsz: the
 * per-thread entry point, where 0 is the per-thread default stream). */
static void check_stream(const char *call, cudaStream_t s, int ptsz) {
  if (!g.in || s == g.stream) return;
  int legacy = s == cudaStreamLegacy || (s == NULL && !ptsz);
  int per_thread = s == cudaStreamPerThread || (s == NULL && ptsz);
  refuse("%s on %s, not the stream kgate gave it", call,
         legacy ? "the legacy default stream" : per_thread ? "the per-thread default stream" : "a stream of its own");
}

static int window_set(const struct cudaAccessPolicyWindow *w) { return w->num_bytes > 0; }

/* The runtime's header declares the per-thread names only in that mode. */
cudaError_t cudaLaunchKernel_ptsz(const void *, dim3, dim3, void **, size_t, cudaStream_t);
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *, dim3, dim3, void **, size_t, cudaStream_t);
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t, cudaStream_t);
cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t, cudaStreamAttrID, const cudaStreamAttrValue *);
cudaError_t cudaMallocAsync_ptsz(void **, size_t, cudaStream_t);
cudaError_t cudaMallocFromPoolAsync_ptsz(void **, size_t, cudaMemPool_t, cudaStream_t);
/* What nvcc's launch stubs call (crt/device_functions.h declares them for C++ only). */
cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);

#define LAUNCH(fn, member, ptsz, T)                                                                      \
  cudaError_t fn(T f, dim3 grid, dim3 block, void **args, size_t smem, cudaStream_t s) {                 \
    check_stream(#fn, s, ptsz);                                                                          \
    return REAL(member) ? REAL(member)(f, grid, block, args, smem, s) : cudaErrorNotSupported;            \
  }
LAUNCH(cudaLaunchKernel, launch, 0, const void *)
LAUNCH(cudaLaunchKernel_ptsz, launch_ptsz, 1, const void *)
LAUNCH(cudaLaunchCooperativeKernel, coop, 0, const void *)
LAUNCH(cudaLaunchCooperativeKernel_ptsz, coop_ptsz, 1, const void *)
LAUNCH(__cudaLaunchKernel, klaunch, 0, cudaKernel_t)
LAUNCH(__cudaLaunchKernel_ptsz, klaunch_ptsz, 1, cudaKernel_t)
#undef LAUNCH

cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s) {
  check_stream("cudaGraphLaunch", s, 0);
  return REAL(graph) ? REAL(graph)(x, s) : cudaErrorNotSupported;
}

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t x, cudaStream_t s) {
  check_stream("cudaGraphLaunch_ptsz", s, 1);
  return REAL(graph_ptsz) ? REAL(graph_ptsz)(x, s) : cudaErrorNotSupported;
}

void kg_guard_launch_ex(const char *name, const cudaLaunchConfig_t *config, int ptsz) {
  if (!g.in || !config) return;
  check_stream(name, config->stream, ptsz);
  for (unsigned i = 0; i < config->numAttrs; i++)
    if (config->attrs[i].id == cudaLaunchAttributeAccessPolicyWindow &&
        window_set(&config->attrs[i].val.accessPolicyWindow))
      refuse("%s with an accessPolicyWindow launch attribute", name);
}

/* A window set while a module runs is refused and never reaches the runtime. */
static int stream_attr(const char *call, cudaStream_t s, cudaStreamAttrID a, const cudaStreamAttrValue *v) {
  if (!g.in || a != cudaStreamAttributeAccessPolicyWindow || !v || !window_set(&v->accessPolicyWindow)) return 0;
  refuse("%s(accessPolicyWindow) on %s", call, s == g.stream ? "kgate's stream" : "a stream");
  return 1;
}

cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID a, const cudaStreamAttrValue *v) {
  if (stream_attr("cudaStreamSetAttribute", s, a, v)) return cudaSuccess;
  return REAL(sattr) ? REAL(sattr)(s, a, v) : cudaErrorNotSupported;
}

cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t s, cudaStreamAttrID a, const cudaStreamAttrValue *v) {
  if (stream_attr("cudaStreamSetAttribute", s, a, v)) return cudaSuccess;
  return REAL(sattr_ptsz) ? REAL(sattr_ptsz)(s, a, v) : cudaErrorNotSupported;
}

cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t n, cudaKernelNodeAttrID a,
                                            const cudaKernelNodeAttrValue *v) {
  if (g.in && a == cudaKernelNodeAttributeAccessPolicyWindow && v && window_set(&v->accessPolicyWindow)) {
    refuse("cudaGraphKernelNodeSetAttribute(accessPolicyWindow)");
    return cudaSuccess;
  }
  return REAL(nattr) ? REAL(nattr)(n, a, v) : cudaErrorNotSupported;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
  if (g.in && limit == cudaLimitPersistingL2CacheSize && value > 0) {
    refuse("cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, %zu)", value);
    return cudaSuccess;
  }
  return REAL(limit) ? REAL(limit)(limit, value) : cudaErrorNotSupported;
}

/* An allocation or a stream the module made while it was timed. */
static void made(cudaError_t e, size_t bytes, int stream) {
  if (e != cudaSuccess || !g.in || !g.counting) return;
  pthread_mutex_lock(&g.lock);
  if (stream) g.streams++;
  else g.allocs++, g.bytes += (long long)bytes;
  pthread_mutex_unlock(&g.lock);
}

cudaError_t cudaMalloc(void **p, size_t n) {
  cudaError_t e = REAL(malloc) ? REAL(malloc)(p, n) : cudaErrorNotSupported;
  return made(e, n, 0), e;
}

cudaError_t cudaMallocManaged(void **p, size_t n, unsigned flags) {
  cudaError_t e = REAL(managed) ? REAL(managed)(p, n, flags) : cudaErrorNotSupported;
  return made(e, n, 0), e;
}

cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h) {
  cudaError_t e = REAL(pitch) ? REAL(pitch)(p, pitch, w, h) : cudaErrorNotSupported;
  return made(e, e == cudaSuccess ? *pitch * h : 0, 0), e;
}

cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) {
  cudaError_t e = REAL(amalloc) ? REAL(amalloc)(p, n, s) : cudaErrorNotSupported;
  return made(e, n, 0), e;
}

cudaError_t cudaMallocAsync_ptsz(void **p, size_t n, cudaStream_t s) {
  cudaError_t e = REAL(amalloc_ptsz) ? REAL(amalloc_ptsz)(p, n, s) : cudaErrorNotSupported;
  return made(e, n, 0), e;
}

cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s) {
  cudaError_t e = REAL(pmalloc) ? REAL(pmalloc)(p, n, pool, s) : cudaErrorNotSupported;
  return made(e, n, 0), e;
}

cudaError_t cudaMallocFromPoolAsync_ptsz(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s) {
  cudaError_t e = REAL(pmalloc_ptsz) ? REAL(pmalloc_ptsz)(p, n, pool, s) : cudaErrorNotSupported;
  return made(e, n, 0), e;
}

cudaError_t cudaStreamCreate(cudaStream_t *s) {
  cudaError_t e = REAL(screate) ? REAL(screate)(s) : cudaErrorNotSupported;
  return made(e, 0, 1), e;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
  cudaError_t e = REAL(screatef) ? REAL(screatef)(s, flags) : cudaErrorNotSupported;
  return made(e, 0, 1), e;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int priority) {
  cudaError_t e = REAL(screatep) ? REAL(screatep)(s, flags, priority) : cudaErrorNotSupported;
  return made(e, 0, 1), e;
}

/* Whether the card keeps persisting lines at all (asked once: a worker has one device). */
static int persisting(void) {
  if (g.persist < 0) {
    int dev = 0, max = 0;
    if (cudaGetDevice(&dev) || cudaDeviceGetAttribute(&max, cudaDevAttrMaxPersistingL2CacheSize, dev))
      cudaGetLastError(), max = 0;
    g.persist = max > 0;
  }
  return g.persist;
}

int kg_guard_reset_l2(void *stream) {
  if (!persisting()) return 0;
  cudaStreamAttrValue v;
  memset(&v, 0, sizeof v);
  cudaError_t e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
  if (!e) e = cudaCtxResetPersistingL2Cache();
  if (!e) e = cudaStreamGetAttribute((cudaStream_t)stream, cudaStreamAttributeAccessPolicyWindow, &v);
  if (!e && window_set(&v.accessPolicyWindow)) { /* a window left by a module refused before */
    memset(&v, 0, sizeof v);
    e = cudaStreamSetAttribute((cudaStream_t)stream, cudaStreamAttributeAccessPolicyWindow, &v);
  }
  if (e) { /* a card that reports persisting L2 but will not have it set (not sticky): said once, then left */
    cudaGetLastError();
    fprintf(stderr, "kgate worker: persisting L2 cannot be reset (%s): not reset or watched on this card\n",
            cudaGetErrorName(e));
    g.persist = 0;
  }
  return 0;
}

void kg_guard_enter(void *stream) { g.stream = (cudaStream_t)stream, g.in = 1; }

/* After each call: the window and the limit as the runtime has them now,
 * which a module may have set past the functions above (the driver API). */
void kg_guard_leave(void) {
  g.in = 0;
  enum cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  /* a query inside a capture could end it: a captured call runs later, and the next call is watched */
  if (!persisting() || !REAL(capturing) || real.capturing(g.stream, &capturing) != cudaSuccess ||
      capturing != cudaStreamCaptureStatusNone)
    return;
  cudaStreamAttrValue v;
  size_t limit = 0;
  memset(&v, 0, sizeof v);
  if (cudaStreamGetAttribute(g.stream, cudaStreamAttributeAccessPolicyWindow, &v) == cudaSuccess) {
    if (window_set(&v.accessPolicyWindow))
      refuse("an accessPolicyWindow of %zu bytes on kgate's stream, set past the runtime kgate sees",
             v.accessPolicyWindow.num_bytes);
  } else {
    cudaGetLastError();
  }
  if (cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize) == cudaSuccess) {
    if (limit > 0) refuse("a persisting-L2 limit of %zu bytes, set past the runtime kgate sees", limit);
  } else {
    cudaGetLastError();
  }
}

void kg_guard_count(int on) { g.counting = on; }

void kg_guard_counts(int *allocs, long long *bytes, int *streams) {
  pthread_mutex_lock(&g.lock);
  *allocs = g.allocs, *bytes = g.bytes, *streams = g.streams;
  pthread_mutex_unlock(&g.lock);
}

const char *kg_guard_refused(void) { return g.refused[0] ? g.refused : NULL; }

void kg_guard_clear(void) {
  pthread_mutex_lock(&g.lock);
  g.refused[0] = '\0', g.allocs = g.streams = 0, g.bytes = 0;
  pthread_mutex_unlock(&g.lock);
}
