/* A variant's call captured and described (launches.h). */
#include "launches.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "proof.h"
#include "unchanged.h"

/* Launch attribute ids asked of every kernel node: CUDA 13 knows 1..16; the
 * rest are asked too, so one a newer driver reports is seen (proof.h
 * refuses an unknown one that is set). */
enum { MAX_NODES = 4096, MAX_PARAMS = 256, ATTR_IDS = 32 };

static int put(kg_launches *l, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = l->cap - l->len;
    int n = l->desc ? vsnprintf(l->desc + l->len, room, fmt, ap) : -1;
    va_end(ap);
    if (l->desc && n >= 0 && (size_t)n < room) return l->len += (size_t)n, 0;
    size_t cap = l->cap ? 2 * l->cap : 4096;
    while (n >= 0 && cap - l->len <= (size_t)n) cap *= 2;
    char *d = realloc(l->desc, cap);
    if (!d) return -1;
    l->desc = d, l->cap = cap;
  }
}

static int put_hex(kg_launches *l, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    if (put(l, "%02x", b[i])) return -1;
  return 0;
}

/* A fixed-size value: its bytes up to the last that is not zero, "0" when none is. */
static int put_value(kg_launches *l, const void *p, size_t n) {
  const unsigned char *b = p;
  while (n && !b[n - 1]) n--;
  return n ? put_hex(l, b, n) : put(l, "0");
}

/* A launch attribute's value, field by field for the ids kgate knows (the
 * caller's union holds stack garbage past the member it set, and padding
 * inside a member); the whole union for any other id, so an attribute kgate
 * does not know can never look equal by accident. */
static int put_attr(kg_launches *l, int id, const cudaLaunchAttributeValue *v) {
  unsigned char b[64];
  size_t n = 0;
#define KG_FIELD(x) (memcpy(b + n, &(x), sizeof(x)), n += sizeof(x))
  switch (id) {
  case cudaLaunchAttributeAccessPolicyWindow:
    KG_FIELD(v->accessPolicyWindow.base_ptr), KG_FIELD(v->accessPolicyWindow.num_bytes);
    KG_FIELD(v->accessPolicyWindow.hitRatio), KG_FIELD(v->accessPolicyWindow.hitProp);
    KG_FIELD(v->accessPolicyWindow.missProp);
    break;
  case cudaLaunchAttributeCooperative: KG_FIELD(v->cooperative); break;
  case cudaLaunchAttributeSynchronizationPolicy: KG_FIELD(v->syncPolicy); break;
  case cudaLaunchAttributeClusterDimension:
    KG_FIELD(v->clusterDim.x), KG_FIELD(v->clusterDim.y), KG_FIELD(v->clusterDim.z);
    break;
  case cudaLaunchAttributeClusterSchedulingPolicyPreference: KG_FIELD(v->clusterSchedulingPolicyPreference); break;
  case cudaLaunchAttributeProgrammaticStreamSerialization: KG_FIELD(v->programmaticStreamSerializationAllowed); break;
  case cudaLaunchAttributeProgrammaticEvent:
    KG_FIELD(v->programmaticEvent.event), KG_FIELD(v->programmaticEvent.flags);
    KG_FIELD(v->programmaticEvent.triggerAtBlockStart);
    break;
  case cudaLaunchAttributePriority: KG_FIELD(v->priority); break;
  case cudaLaunchAttributeMemSyncDomainMap:
    KG_FIELD(v->memSyncDomainMap.default_), KG_FIELD(v->memSyncDomainMap.remote);
    break;
  case cudaLaunchAttributeMemSyncDomain: KG_FIELD(v->memSyncDomain); break;
  case cudaLaunchAttributePreferredClusterDimension:
    KG_FIELD(v->preferredClusterDim.x), KG_FIELD(v->preferredClusterDim.y), KG_FIELD(v->preferredClusterDim.z);
    break;
  case cudaLaunchAttributeLaunchCompletionEvent:
    KG_FIELD(v->launchCompletionEvent.event), KG_FIELD(v->launchCompletionEvent.flags);
    break;
  case cudaLaunchAttributeDeviceUpdatableKernelNode:
    KG_FIELD(v->deviceUpdatableKernelNode.deviceUpdatable), KG_FIELD(v->deviceUpdatableKernelNode.devNode);
    break;
  case cudaLaunchAttributePreferredSharedMemoryCarveout: KG_FIELD(v->sharedMemCarveout); break;
  case cudaLaunchAttributeNvlinkUtilCentricScheduling: KG_FIELD(v->nvlinkUtilCentricScheduling); break;
  default: return put_value(l, v, sizeof *v);
  }
#undef KG_FIELD
  return put_value(l, b, n);
}

/* What the call asked the runtime while this thread captures it: the
 * attributes it passed with cudaLaunchKernelEx ("launch" lines) and how
 * often it asked whether its stream is capturing. */
static _Thread_local struct {
  int on, queries;
  kg_launches asked; /* its desc only */
} t_probe;

/* The runtime's own functions behind kgate's (below). */
typedef cudaError_t (*is_capturing_fn)(cudaStream_t, enum cudaStreamCaptureStatus *);
typedef cudaError_t (*capture_info_fn)(cudaStream_t, enum cudaStreamCaptureStatus *, unsigned long long *,
                                       cudaGraph_t *, const cudaGraphNode_t **, const cudaGraphEdgeData **, size_t *);
typedef cudaError_t (*launch_ex_fn)(const cudaLaunchConfig_t *, const void *, void **);
typedef cudaError_t (*cache_config_fn)(const void *, enum cudaFuncCache);
static struct {
  is_capturing_fn is, is_ptsz;
  capture_info_fn info, info_ptsz;
  launch_ex_fn ex, ex_ptsz;
  cache_config_fn cache;
} g_real;
static pthread_once_t g_real_once = PTHREAD_ONCE_INIT;

static void find_real(void) {
  *(void **)&g_real.is = dlsym(RTLD_NEXT, "cudaStreamIsCapturing");
  *(void **)&g_real.is_ptsz = dlsym(RTLD_NEXT, "cudaStreamIsCapturing_ptsz");
  *(void **)&g_real.info = dlsym(RTLD_NEXT, "cudaStreamGetCaptureInfo");
  *(void **)&g_real.info_ptsz = dlsym(RTLD_NEXT, "cudaStreamGetCaptureInfo_ptsz");
  *(void **)&g_real.ex = dlsym(RTLD_NEXT, "cudaLaunchKernelExC");
  *(void **)&g_real.ex_ptsz = dlsym(RTLD_NEXT, "cudaLaunchKernelExC_ptsz");
  *(void **)&g_real.cache = dlsym(RTLD_NEXT, "cudaFuncSetCacheConfig");
}

/* Each kernel's cache configuration as a module set it (cudaFuncSetCacheConfig):
 * the runtime has no getter, so kgate keeps what it forwarded, for the
 * description (put_func_attrs). A table that cannot grow says so there. */
static struct {
  pthread_mutex_t lock;
  struct {
    const void *func;
    int cfg;
  } *set;
  size_t n, cap;
  int lost;
} g_cache = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig) {
  pthread_once(&g_real_once, find_real);
  pthread_mutex_lock(&g_cache.lock);
  size_t i = 0;
  while (i < g_cache.n && g_cache.set[i].func != func) i++;
  if (i == g_cache.n && g_cache.n == g_cache.cap) {
    size_t cap = g_cache.cap ? 2 * g_cache.cap : 64;
    void *s = realloc(g_cache.set, cap * sizeof *g_cache.set);
    if (s) g_cache.set = s, g_cache.cap = cap;
  }
  if (i < g_cache.cap) g_cache.set[i].func = func, g_cache.set[i].cfg = (int)cacheConfig, g_cache.n += i == g_cache.n;
  else g_cache.lost = 1;
  pthread_mutex_unlock(&g_cache.lock);
  return g_real.cache ? g_real.cache(func, cacheConfig) : cudaErrorNotSupported;
}

/* "fcache=N" (as set), "fcache=-" (never set) or "fcache=lost" (the table could not grow). */
static int put_cache_config(kg_launches *l, const void *func) {
  int cfg = -1, lost;
  pthread_mutex_lock(&g_cache.lock);
  for (size_t i = 0; i < g_cache.n; i++)
    if (g_cache.set[i].func == func) cfg = g_cache.set[i].cfg;
  lost = g_cache.lost;
  pthread_mutex_unlock(&g_cache.lock);
  if (lost) return put(l, " fcache=lost");
  return cfg < 0 ? put(l, " fcache=-") : put(l, " fcache=%d", cfg);
}

/* The per-thread default stream's names, which the runtime's header declares only for that mode. */
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *status);
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                          unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                          const cudaGraphEdgeData **edges, size_t *ndeps);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func, void **args);

/* A module that asks whether its stream is capturing may queue other work
 * when it is not: counted while a probe captures, then forwarded. kgate
 * exports these (CMakeLists.txt), so a module's calls through the shared
 * runtime come here first. */
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status) {
  pthread_once(&g_real_once, find_real);
  t_probe.queries += t_probe.on;
  return g_real.is ? g_real.is(stream, status) : cudaErrorNotSupported;
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *status) {
  pthread_once(&g_real_once, find_real);
  t_probe.queries += t_probe.on;
  return g_real.is_ptsz ? g_real.is_ptsz(stream, status) : cudaErrorNotSupported;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                     unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                     const cudaGraphEdgeData **edges, size_t *ndeps) {
  pthread_once(&g_real_once, find_real);
  t_probe.queries += t_probe.on;
  return g_real.info ? g_real.info(stream, status, id, graph, deps, edges, ndeps) : cudaErrorNotSupported;
}

cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                          unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                          const cudaGraphEdgeData **edges, size_t *ndeps) {
  pthread_once(&g_real_once, find_real);
  t_probe.queries += t_probe.on;
  return g_real.info_ptsz ? g_real.info_ptsz(stream, status, id, graph, deps, edges, ndeps) : cudaErrorNotSupported;
}

/* A launch's attributes as the call passed them, whether or not the graph
 * node keeps them (the carve-out is valid for launches). */
static void note_launch(const cudaLaunchConfig_t *config) {
  if (!t_probe.on) return;
  kg_launches *a = &t_probe.asked;
  int rc = put(a, "launch");
  for (unsigned i = 0; !rc && config && i < config->numAttrs; i++) {
    rc = put(a, " %d=", (int)config->attrs[i].id);
    if (!rc) rc = put_attr(a, (int)config->attrs[i].id, &config->attrs[i].val);
  }
  if (rc || put(a, "\n")) t_probe.queries = -1; /* out of memory: the capture is refused */
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) {
  pthread_once(&g_real_once, find_real);
  note_launch(config);
  kg_guard_launch_ex("cudaLaunchKernelExC", config, 0);
  return g_real.ex ? g_real.ex(config, func, args) : cudaErrorNotSupported;
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func, void **args) {
  pthread_once(&g_real_once, find_real);
  note_launch(config);
  kg_guard_launch_ex("cudaLaunchKernelExC_ptsz", config, 1);
  return g_real.ex_ptsz ? g_real.ex_ptsz(config, func, args) : cudaErrorNotSupported;
}

static int fail(kg_launches *l, const char *why) {
  snprintf(l->why, sizeof l->why, "%s", why);
  return 1;
}

static int fail_cuda(kg_launches *l, const char *what, cudaError_t e) {
  snprintf(l->why, sizeof l->why, "%s unreadable: %s", what, cudaGetErrorName(e));
  return 1;
}

/* The function's attributes that change how it runs: its resources, and
 * what the variant may have set on it (cudaFuncSetAttribute). */
static int put_func_attrs(kg_launches *l, const void *func) {
  struct cudaFuncAttributes a;
  memset(&a, 0, sizeof a);
  if (cudaFuncGetAttributes(&a, func) != cudaSuccess) return cudaGetLastError(), fail(l, "no attributes for a kernel");
  /* The device's cache configuration too (cudaDeviceSetCacheConfig), and the kernel's own (kept above). */
  enum cudaFuncCache dev = cudaFuncCachePreferNone;
  if (cudaDeviceGetCacheConfig(&dev) != cudaSuccess) return cudaGetLastError(), fail(l, "no cache configuration");
  if (put(l,
          " regs=%d smem=%zu lmem=%zu const=%zu maxthr=%d ptx=%d bin=%d ca=%d dynmax=%d carve=%d cluster=%d,%d,%d,%d,%d"
          " csp=%d dcache=%d",
          a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.constSizeBytes, a.maxThreadsPerBlock, a.ptxVersion,
          a.binaryVersion, a.cacheModeCA, a.maxDynamicSharedSizeBytes, a.preferredShmemCarveout, a.clusterDimMustBeSet,
          a.requiredClusterWidth, a.requiredClusterHeight, a.requiredClusterDepth, a.nonPortableClusterSizeAllowed,
          a.clusterSchedulingPolicyPreference, (int)dev))
    return -1;
  return put_cache_config(l, func);
}

/* Every launch attribute id 1..ATTR_IDS-1 of a kernel node (the
 * carve-out, programmatic and completion events, NVLink scheduling among
 * them); one the driver does not report for a node is written "-", an unset
 * one "0". */
static int put_node_attrs(kg_launches *l, cudaGraphNode_t node) {
  for (int id = 1; id < ATTR_IDS; id++) {
    cudaLaunchAttributeValue v;
    memset(&v, 0, sizeof v);
    int rc = put(l, " a%d=", id);
    if (!rc && cudaGraphKernelNodeGetAttribute(node, (cudaLaunchAttributeID)id, &v) == cudaSuccess)
      rc = put_attr(l, id, &v);
    else if (!rc)
      cudaGetLastError(), rc = put(l, "-");
    if (rc) return -1;
  }
  return 0;
}

/* The buffers the harness gave the call being captured. */
static _Thread_local struct {
  const kg_launch_buf *b;
  int n;
} t_bufs;

/* Which harness buffer p points into (its index), with the offset; -1 for none. */
static int in_buf(uintptr_t p, size_t *off) {
  for (int i = 0; i < t_bufs.n; i++) {
    uintptr_t a = (uintptr_t)t_bufs.b[i].p;
    if (p >= a && p - a < t_bufs.b[i].bytes) return *off = p - a, i;
  }
  return -1;
}

/* An address: "b<i>+<offset>" inside a buffer the harness gave the call,
 * else its value. Buffers move between runs and offsets do not, so a
 * description is the same in every run that queues the same work (a record
 * of a check, checkrec.h, compares them across runs). */
static int put_addr(kg_launches *l, const void *p) {
  size_t off;
  int i = in_buf((uintptr_t)p, &off);
  return i >= 0 ? put(l, "b%d+%zx", i, off) : put(l, "%p", p);
}

/* A parameter's bytes in hex; an aligned 8-byte word that is an address
 * inside a harness buffer as "[b<i>+<offset>]" (put_addr). */
static int put_param(kg_launches *l, const void *p, size_t size) {
  const unsigned char *b = p;
  size_t k = 0;
  while (k < size) {
    uint64_t w;
    size_t off;
    int i = -1;
    if (k % 8 == 0 && size - k >= 8) {
      memcpy(&w, b + k, 8);
      i = in_buf((uintptr_t)w, &off);
    }
    if (i >= 0) {
      if (put(l, "[b%d+%zx]", i, off)) return -1;
      k += 8;
    } else {
      if (put_hex(l, b + k, 1)) return -1;
      k++;
    }
  }
  return 0;
}

/* The argument bytes, by the function's parameter layout. */
static int put_args(kg_launches *l, const void *func, void **params) {
  if (put(l, " args=")) return -1;
  for (size_t i = 0; i < MAX_PARAMS; i++) {
    size_t off = 0, size = 0;
    if (cudaFuncGetParamInfo(func, i, &off, &size) != cudaSuccess) {
      cudaGetLastError(); /* past the last parameter */
      return 0;
    }
    if (!params || !params[i]) return fail(l, "a kernel node without its arguments");
    if (put(l, i ? "," : "") || put_param(l, params[i], size)) return -1;
  }
  return fail(l, "a kernel with more parameters than kgate describes");
}

static void add_kernel(kg_launches *l, const char *name, const void *func) {
  uint64_t h = kg_code_name_hash(name);
  for (int k = 0; k < l->nkernels; k++)
    if (l->kernels[k] == h) return;
  if (l->nkernels < KG_PROBE_MAX_KERNELS) l->kernels[l->nkernels] = h, l->funcs[l->nkernels] = func;
  l->nkernels++;
}

static int put_kernel(kg_launches *l, cudaGraphNode_t node) {
  struct cudaKernelNodeParams p;
  memset(&p, 0, sizeof p);
  const char *name = NULL;
  if (cudaGraphKernelNodeGetParams(node, &p) != cudaSuccess || cudaFuncGetName(&name, p.func) != cudaSuccess || !name)
    return cudaGetLastError(), fail(l, "a kernel node kgate cannot read");
  if (p.extra) return fail(l, "a kernel launched with extra (packed) arguments");
  l->nlaunches++;
  add_kernel(l, name, p.func);
  char *nn = malloc(strlen(name) + 1);
  if (!nn) return -1;
  kg_code_name_normal(name, nn); /* the base may have been built in another folder */
  int rc = put(l, "kernel %s grid=%u,%u,%u block=%u,%u,%u dsmem=%u", nn, p.gridDim.x, p.gridDim.y, p.gridDim.z,
               p.blockDim.x, p.blockDim.y, p.blockDim.z, p.sharedMemBytes);
  free(nn);
  if (rc) return -1;
  rc = put_func_attrs(l, p.func);
  if (!rc) rc = put_node_attrs(l, node);
  if (!rc) rc = put_args(l, p.func, p.kernelParams);
  return rc;
}


/* Where bytes [p, p + n) lie, as proof.h names it: "buf" inside a buffer
 * the harness gave the call; host memory as "host:<SHA-256 of the bytes
 * now>" when hash (a copy's source), else "host"; otherwise "device",
 * "managed" or "unknown", which the proof refuses. */
static void where(const void *p, size_t n, int hash, char *out, size_t len) {
  for (int i = 0; i < t_bufs.n; i++) {
    uintptr_t a = (uintptr_t)t_bufs.b[i].p, x = (uintptr_t)p;
    if (x >= a && n <= t_bufs.b[i].bytes && x - a <= t_bufs.b[i].bytes - n) {
      snprintf(out, len, "buf");
      return;
    }
  }
  struct cudaPointerAttributes at;
  memset(&at, 0, sizeof at);
  if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
    cudaGetLastError();
    snprintf(out, len, "unknown");
  } else if (at.type == cudaMemoryTypeUnregistered || at.type == cudaMemoryTypeHost) {
    char hex[65];
    const void *h = at.type == cudaMemoryTypeHost && at.hostPointer ? at.hostPointer : p;
    if (!hash) {
      snprintf(out, len, "host");
    } else {
      kg_proof_digest_hex(h, n, hex);
      snprintf(out, len, "host:%s", hex);
    }
  } else {
    snprintf(out, len, "%s",
             at.type == cudaMemoryTypeDevice ? "device" : at.type == cudaMemoryTypeManaged ? "managed" : "unknown");
  }
}

static int put_memset(kg_launches *l, cudaGraphNode_t node) {
  struct cudaMemsetParams p;
  memset(&p, 0, sizeof p);
  if (cudaGraphMemsetNodeGetParams(node, &p) != cudaSuccess)
    return cudaGetLastError(), fail(l, "an unreadable memset node");
  char to[80];
  size_t rows = p.height ? p.height : 1, bytes = (rows - 1) * p.pitch + p.width * p.elementSize;
  where(p.dst, bytes, 0, to, sizeof to);
  int rc = put(l, "memset dst=") || put_addr(l, p.dst) ||
           put(l, " to=%s pitch=%zu value=%u elem=%u width=%zu height=%zu", to, p.pitch, p.value, p.elementSize,
               p.width, p.height);
  return rc ? -1 : 0;
}

/* A copy: its parameters, and where it reads and writes when it is flat
 * (one row, no offsets in y or z: what cudaMemcpyAsync captures as);
 * another shape is named 3d, which the proof refuses. */
static int put_memcpy(kg_launches *l, cudaGraphNode_t node) {
  struct cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  if (cudaGraphMemcpyNodeGetParams(node, &p) != cudaSuccess)
    return cudaGetLastError(), fail(l, "an unreadable copy node");
  if (p.srcArray || p.dstArray) return fail(l, "a copy to or from a CUDA array");
  int flat = p.extent.height <= 1 && p.extent.depth <= 1 && !p.srcPos.y && !p.srcPos.z && !p.dstPos.y && !p.dstPos.z;
  char from[80] = "-", to[80] = "-";
  if (flat) {
    where((const char *)p.srcPtr.ptr + p.srcPos.x, p.extent.width, 1, from, sizeof from);
    where((const char *)p.dstPtr.ptr + p.dstPos.x, p.extent.width, 0, to, sizeof to);
  }
  int rc = put(l, "memcpy src=") || put_addr(l, p.srcPtr.ptr) ||
         put(l, ",%zu,%zu,%zu from=%s pos=%zu,%zu,%zu dst=", p.srcPtr.pitch, p.srcPtr.xsize, p.srcPtr.ysize, from,
             p.srcPos.x, p.srcPos.y, p.srcPos.z) ||
         put_addr(l, p.dstPtr.ptr) ||
         put(l, ",%zu,%zu,%zu to=%s pos=%zu,%zu,%zu extent=%zu,%zu,%zu kind=%d shape=%s", p.dstPtr.pitch,
             p.dstPtr.xsize, p.dstPtr.ysize, to, p.dstPos.x, p.dstPos.y, p.dstPos.z, p.extent.width, p.extent.height,
             p.extent.depth, (int)p.kind, flat ? "1d" : "3d");
  return rc ? -1 : 0;
}

static int put_node(kg_launches *l, cudaGraphNode_t node) {
  enum cudaGraphNodeType t;
  if (cudaGraphNodeGetType(node, &t) != cudaSuccess) return cudaGetLastError(), fail(l, "a node of unknown type");
  int rc;
  switch (t) {
  case cudaGraphNodeTypeKernel: rc = put_kernel(l, node); break;
  case cudaGraphNodeTypeMemset: rc = put_memset(l, node); break;
  case cudaGraphNodeTypeMemcpy: rc = put_memcpy(l, node); break;
  case cudaGraphNodeTypeEmpty: rc = put(l, "empty"); break;
  default: {
    char why[64];
    snprintf(why, sizeof why, "a graph node of type %d (host, event, allocation...)", (int)t);
    return fail(l, why);
  }
  }
  return rc ? rc : put(l, "\n");
}

static int index_of(cudaGraphNode_t *nodes, size_t n, cudaGraphNode_t x) {
  for (size_t i = 0; i < n; i++)
    if (nodes[i] == x) return (int)i;
  return -1;
}

/* The nodes in the graph's order (the order the call queued them), then every
 * edge by index with its data (a programmatic edge is not a full one). The
 * edges are read into room for MAX_NODES + 1: asking for their count alone
 * fails as a lossy query once an edge carries data. */
static int describe(kg_launches *l, cudaGraph_t g) {
  size_t n = 0, ne = MAX_NODES + 1;
  cudaError_t e = cudaGraphGetNodes(g, NULL, &n);
  if (e != cudaSuccess) return cudaGetLastError(), fail_cuda(l, "the graph's nodes", e);
  if (n > MAX_NODES) return fail(l, "more graph nodes than kgate describes");
  cudaGraphNode_t *nodes = calloc(n + 1, sizeof *nodes), *from = calloc(ne, sizeof *from), *to = calloc(ne, sizeof *to);
  cudaGraphEdgeData *data = calloc(ne, sizeof *data);
  int rc = nodes && from && to && data ? 0 : -1;
  if (!rc && (e = cudaGraphGetNodes(g, nodes, &n)) != cudaSuccess)
    cudaGetLastError(), rc = fail_cuda(l, "the graph's nodes", e);
  if (!rc && (e = cudaGraphGetEdges(g, from, to, data, &ne)) != cudaSuccess)
    cudaGetLastError(), rc = fail_cuda(l, "the graph's edges", e);
  if (!rc && ne > MAX_NODES) rc = fail(l, "more graph edges than kgate describes");
  if (!rc) rc = put(l, "nodes %zu\n", n);
  for (size_t i = 0; !rc && i < n; i++) rc = put_node(l, nodes[i]);
  for (size_t e = 0; !rc && e < ne; e++) {
    rc = put(l, "edge %d %d ", index_of(nodes, n, from[e]), index_of(nodes, n, to[e]));
    if (!rc) rc = put_hex(l, &data[e], sizeof data[e]) || put(l, "\n");
  }
  free(nodes), free(from), free(to), free(data);
  return rc;
}

/* The runtime's registrations of each loaded module's kernels and
 * variables, seen on their way to it (kgate exports these too): which
 * compilation unit (fat binary handle) holds which kernel and which
 * __device__ and __constant__ variables, with their host shadows, so a
 * probe reads the variables of exactly the units whose kernels a call
 * launched, by the runtime's own lookup (cudaMemcpyFromSymbol), which
 * finds internal-linkage ones too. Searched newest first: a module loaded
 * again at the same address is registered again. */
typedef struct reg_entry {
  void **unit;
  const void *host; /* the kernel's stub or the variable's shadow */
  char *name;       /* a variable's mangled name (owned); NULL for a kernel */
  size_t size;
} reg_entry;
static struct {
  reg_entry *e;
  size_t n, cap;
  int lost; /* an entry could not be kept (out of memory): no variable is read */
} g_reg;
static pthread_mutex_t g_reg_lock = PTHREAD_MUTEX_INITIALIZER;

typedef void (*reg_var_fn)(void **, char *, char *, const char *, int, size_t, int, int);
typedef void (*reg_fun_fn)(void **, const char *, char *, const char *, int, uint3 *, uint3 *, dim3 *, dim3 *, int *);
static reg_var_fn g_reg_var;
static reg_fun_fn g_reg_fun;
static pthread_once_t g_reg_once = PTHREAD_ONCE_INIT;
static void find_reg(void) {
  *(void **)&g_reg_var = dlsym(RTLD_NEXT, "__cudaRegisterVar");
  *(void **)&g_reg_fun = dlsym(RTLD_NEXT, "__cudaRegisterFunction");
}

static void remember(void **unit, const void *host, const char *name, size_t size) {
  pthread_mutex_lock(&g_reg_lock);
  if (g_reg.n == g_reg.cap) {
    size_t cap = g_reg.cap ? 2 * g_reg.cap : 256;
    reg_entry *e = realloc(g_reg.e, cap * sizeof *e);
    if (e) g_reg.e = e, g_reg.cap = cap;
  }
  char *copy = name ? strdup(name) : NULL;
  if (g_reg.n < g_reg.cap && (!name || copy)) g_reg.e[g_reg.n++] = (reg_entry){unit, host, copy, size};
  else g_reg.lost = 1, free(copy);
  pthread_mutex_unlock(&g_reg_lock);
}

/* The runtime's header declares these only for C++. */
void __cudaRegisterVar(void **unit, char *host, char *device, const char *name, int ext, size_t size, int constant,
                       int global);
void __cudaRegisterFunction(void **unit, const char *host, char *device, const char *name, int limit, uint3 *tid,
                            uint3 *bid, dim3 *bdim, dim3 *gdim, int *wsize);

void __cudaRegisterVar(void **unit, char *host, char *device, const char *name, int ext, size_t size, int constant,
                       int global) {
  pthread_once(&g_reg_once, find_reg);
  remember(unit, host, name, size);
  if (g_reg_var) g_reg_var(unit, host, device, name, ext, size, constant, global);
}

void __cudaRegisterFunction(void **unit, const char *host, char *device, const char *name, int limit, uint3 *tid,
                            uint3 *bid, dim3 *bdim, dim3 *gdim, int *wsize) {
  pthread_once(&g_reg_once, find_reg);
  remember(unit, host, NULL, 0);
  if (g_reg_fun) g_reg_fun(unit, host, device, name, limit, tid, bid, bdim, gdim, wsize);
}

/* Variables larger than this are not read: reading one would cost more
 * than pairing the cell. */
enum { MAX_VAR_BYTES = 1 << 20 };

/* A unit's variable, for the sorted reading below: its entry's fields
 * (the table may move when a module registers meanwhile; names are never freed). */
typedef struct var_line {
  char *normal; /* its name as both builds give it (kg_code_name_normal) */
  const char *name;
  const void *host;
  size_t size;
} var_line;

static int by_normal(const void *pa, const void *pb) {
  return strcmp(((const var_line *)pa)->normal, ((const var_line *)pb)->normal);
}

/* The units whose kernels the call launched: their variables, each a line
 * "variable NAME bytes=N sha=SHA-256 of its bytes now" in the order of
 * their normal names (so two builds' lines align), their name hashes in
 * l->read. 0, 1 when one cannot be read, -1 out of memory. */
static int read_vars(kg_launches *l) {
  pthread_mutex_lock(&g_reg_lock);
  void **units[KG_PROBE_MAX_KERNELS];
  int nunits = 0;
  for (int k = 0; k < l->nkernels && k < KG_PROBE_MAX_KERNELS; k++)
    for (size_t i = g_reg.n; i-- > 0;)
      if (!g_reg.e[i].name && g_reg.e[i].host == l->funcs[k]) {
        int seen = 0;
        for (int u = 0; u < nunits; u++) seen |= units[u] == g_reg.e[i].unit;
        if (!seen) units[nunits++] = g_reg.e[i].unit;
        break;
      }
  var_line *v = calloc(g_reg.n + 1, sizeof *v);
  size_t nv = 0;
  int rc = v ? 0 : -1;
  for (size_t i = 0; !rc && i < g_reg.n; i++) {
    const reg_entry *e = &g_reg.e[i];
    int mine = 0;
    for (int u = 0; e->name && u < nunits; u++) mine |= units[u] == e->unit;
    if (!mine) continue;
    if (!(v[nv].normal = malloc(strlen(e->name) + 1))) rc = -1;
    else kg_code_name_normal(e->name, v[nv].normal), v[nv].name = e->name, v[nv].host = e->host, v[nv++].size = e->size;
  }
  int lost = g_reg.lost;
  pthread_mutex_unlock(&g_reg_lock);
  if (!rc && lost) rc = fail(l, "the runtime's registrations could not all be kept");
  if (!rc && nv > KG_CODE_MAX_READ) rc = fail(l, "more variables than kgate reads");
  if (!rc) qsort(v, nv, sizeof *v, by_normal);
  for (size_t j = 0; !rc && j < nv; j++) {
    const var_line *e = &v[j];
    if (e->size > MAX_VAR_BYTES) {
      rc = fail(l, "a variable larger than kgate reads");
      break;
    }
    unsigned char *h = malloc(e->size ? e->size : 1);
    if (!h) {
      rc = -1;
      break;
    }
    char hex[65];
    cudaError_t err = cudaMemcpyFromSymbol(h, e->host, e->size, 0, cudaMemcpyDeviceToHost);
    if (err == cudaSuccess) kg_proof_digest_hex(h, e->size, hex);
    free(h);
    if (err != cudaSuccess) {
      cudaGetLastError();
      rc = fail(l, "a variable cannot be read");
      break;
    }
    if (put(l, "variable %s bytes=%zu sha=%s\n", v[j].normal, e->size, hex)) rc = -1;
    else l->read[l->nread++] = kg_code_name_hash(e->name);
  }
  for (size_t j = 0; v && j < nv; j++) free(v[j].normal);
  free(v);
  return rc;
}

int kg_launches_capture(kg_step_fn run, void *ctx, void *stream, const kg_launch_buf *bufs, int nbufs,
                        kg_launches *out) {
  memset(out, 0, sizeof *out);
  cudaStream_t s = stream;
  cudaGraph_t g = NULL;
  if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
    return cudaGetLastError(), fail(out, "the stream would not capture");
  kg_launches_free(&t_probe.asked);
  t_probe.queries = 0, t_probe.on = 1;
  int e = run(ctx);
  t_probe.on = 0;
  cudaError_t end = cudaStreamEndCapture(s, &g);
  int rc;
  if (e || end != cudaSuccess || !g) {
    rc = fail(out, "the call does not capture into a graph (it waits, or uses another stream)");
  } else {
    t_bufs.b = bufs, t_bufs.n = nbufs;
    rc = describe(out, g);
    t_bufs.b = NULL, t_bufs.n = 0;
  }
  /* what the call asked the runtime, after its nodes */
  if (!rc && t_probe.asked.desc) rc = put(out, "%s", t_probe.asked.desc);
  if (!rc) rc = t_probe.queries < 0 ? -1 : put(out, "queries %d\n", t_probe.queries);
  kg_launches_free(&t_probe.asked);
  cudaGetLastError(); /* capture failures are not sticky: the next call starts clean */
  if (g) cudaGraphDestroy(g);
  /* the variables the host may set, as they are now: the capture has ended */
  if (!rc && out->nkernels <= KG_PROBE_MAX_KERNELS) rc = read_vars(out);
  if (rc < 0) rc = fail(out, "out of host memory");
  if (!rc && out->nkernels > KG_PROBE_MAX_KERNELS) rc = fail(out, "more distinct kernels than kgate compares");
  if (!rc && !out->nlaunches) rc = fail(out, "the call launched no kernel");
  return rc;
}

void kg_launches_free(kg_launches *l) {
  free(l->desc);
  memset(l, 0, sizeof *l);
}
