/* A variant's call captured and described (launches.h). */
#include "launches.h"

#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unchanged.h"

enum { MAX_NODES = 4096, MAX_PARAMS = 256 };

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
  return put(
      l, " regs=%d smem=%zu lmem=%zu const=%zu maxthr=%d ptx=%d bin=%d ca=%d dynmax=%d carve=%d cluster=%d,%d,%d,%d,%d",
      a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.constSizeBytes, a.maxThreadsPerBlock, a.ptxVersion,
      a.binaryVersion, a.cacheModeCA, a.maxDynamicSharedSizeBytes, a.preferredShmemCarveout, a.clusterDimMustBeSet,
      a.requiredClusterWidth, a.requiredClusterHeight, a.requiredClusterDepth, a.nonPortableClusterSizeAllowed);
}

/* The launch attributes a kernel node can carry; one the driver does not
 * report for a node is written as "-". */
static int put_node_attrs(kg_launches *l, cudaGraphNode_t node) {
  static const cudaLaunchAttributeID k_ids[] = {cudaLaunchAttributeAccessPolicyWindow,
                                                cudaLaunchAttributeCooperative,
                                                cudaLaunchAttributeClusterDimension,
                                                cudaLaunchAttributeClusterSchedulingPolicyPreference,
                                                cudaLaunchAttributePriority,
                                                cudaLaunchAttributeMemSyncDomainMap,
                                                cudaLaunchAttributeMemSyncDomain,
                                                cudaLaunchAttributePreferredClusterDimension,
                                                cudaLaunchAttributeDeviceUpdatableKernelNode};
  for (size_t k = 0; k < sizeof k_ids / sizeof *k_ids; k++) {
    cudaLaunchAttributeValue v;
    memset(&v, 0, sizeof v);
    int rc = put(l, " a%d=", (int)k_ids[k]);
    if (!rc && cudaGraphKernelNodeGetAttribute(node, k_ids[k], &v) == cudaSuccess)
      rc = put_hex(l, &v, sizeof v);
    else if (!rc)
      cudaGetLastError(), rc = put(l, "-");
    if (rc) return -1;
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
    if (put(l, i ? "," : "") || put_hex(l, params[i], size)) return -1;
  }
  return fail(l, "a kernel with more parameters than kgate describes");
}

static void add_kernel(kg_launches *l, const char *name) {
  uint64_t h = kg_code_name_hash(name);
  for (int k = 0; k < l->nkernels; k++)
    if (l->kernels[k] == h) return;
  if (l->nkernels < KG_PROBE_MAX_KERNELS) l->kernels[l->nkernels] = h;
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
  add_kernel(l, name);
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

static int put_memset(kg_launches *l, cudaGraphNode_t node) {
  struct cudaMemsetParams p;
  memset(&p, 0, sizeof p);
  if (cudaGraphMemsetNodeGetParams(node, &p) != cudaSuccess)
    return cudaGetLastError(), fail(l, "an unreadable memset node");
  return put(l, "memset dst=%p pitch=%zu value=%u elem=%u width=%zu height=%zu", p.dst, p.pitch, p.value, p.elementSize,
             p.width, p.height);
}

static int put_memcpy(kg_launches *l, cudaGraphNode_t node) {
  struct cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  if (cudaGraphMemcpyNodeGetParams(node, &p) != cudaSuccess)
    return cudaGetLastError(), fail(l, "an unreadable copy node");
  if (p.srcArray || p.dstArray) return fail(l, "a copy to or from a CUDA array");
  return put(l,
             "memcpy src=%p,%zu,%zu,%zu pos=%zu,%zu,%zu dst=%p,%zu,%zu,%zu pos=%zu,%zu,%zu extent=%zu,%zu,%zu kind=%d",
             p.srcPtr.ptr, p.srcPtr.pitch, p.srcPtr.xsize, p.srcPtr.ysize, p.srcPos.x, p.srcPos.y, p.srcPos.z,
             p.dstPtr.ptr, p.dstPtr.pitch, p.dstPtr.xsize, p.dstPtr.ysize, p.dstPos.x, p.dstPos.y, p.dstPos.z,
             p.extent.width, p.extent.height, p.extent.depth, (int)p.kind);
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

int kg_launches_capture(kg_step_fn run, void *ctx, void *stream, kg_launches *out) {
  memset(out, 0, sizeof *out);
  cudaStream_t s = stream;
  cudaGraph_t g = NULL;
  if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
    return cudaGetLastError(), fail(out, "the stream would not capture");
  int e = run(ctx);
  cudaError_t end = cudaStreamEndCapture(s, &g);
  int rc;
  if (e || end != cudaSuccess || !g)
    rc = fail(out, "the call does not capture into a graph (it waits, or uses another stream)");
  else
    rc = describe(out, g);
  cudaGetLastError(); /* capture failures are not sticky: the next call starts clean */
  if (g) cudaGraphDestroy(g);
  if (rc < 0) rc = fail(out, "out of host memory");
  if (!rc && out->nkernels > KG_PROBE_MAX_KERNELS) rc = fail(out, "more distinct kernels than kgate compares");
  if (!rc && !out->nlaunches) rc = fail(out, "the call launched no kernel");
  return rc;
}

void kg_launches_free(kg_launches *l) {
  free(l->desc);
  memset(l, 0, sizeof *l);
}

void kg_launches_first_difference(const kg_launches *a, const kg_launches *b, char *buf, size_t len) {
  const char *p = a->desc ? a->desc : "", *q = b->desc ? b->desc : "";
  buf[0] = '\0';
  for (int line = 0;; line++) {
    size_t lp = strcspn(p, "\n"), lq = strcspn(q, "\n");
    if (lp != lq || memcmp(p, q, lp)) {
      snprintf(buf, len, "line %d: %.*s", line, (int)(lp < 100 ? lp : 100), p);
      return;
    }
    if (!p[lp] && !q[lq]) return;
    p += lp + (p[lp] != 0), q += lq + (q[lq] != 0);
  }
}
