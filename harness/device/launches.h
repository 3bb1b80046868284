/* What a variant queues for one call, as evidence that two builds queue the
 * same work: the call captured into a CUDA graph (never run), then every node
 * described in one canonical text, which the CPU side judges (proof.h: the
 * lines and what it refuses). A kernel node is its function's name, its
 * grid, block, dynamic shared memory, every launch attribute id 1..31 the
 * driver reports for it, its argument bytes and the function's attributes
 * (registers, static shared and local memory, the limits and carve-out set
 * on it); memset and copy nodes are their parameters and where they read and
 * write: a buffer the harness gave the call ("buf"), host memory (a copy's
 * source bytes hashed at capture) or other memory; the edges are listed by
 * node index. While it captures, the worker also notes what the call asked
 * the runtime: the attributes it passed with cudaLaunchKernelEx, and whether
 * it asked if its stream is capturing (cudaStreamIsCapturing,
 * cudaStreamGetCaptureInfo: kgate's executable exports its own, which count
 * and forward). The machine code behind the names is compared by the
 * supervisor (unchanged.h): kernels[] names the functions by
 * kg_code_name_hash. */
#ifndef KG_LAUNCHES_H
#define KG_LAUNCHES_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "timing.h"
#include "unchanged.h"

typedef struct kg_launches {
  char *desc; /* the canonical description (malloc'ed), one line per node, then the edges */
  size_t len, cap;
  int nlaunches;                        /* kernel nodes */
  int nkernels;                         /* distinct functions among them */
  uint64_t kernels[KG_PROBE_MAX_KERNELS]; /* their name hashes, in first-launch order */
  const void *funcs[KG_PROBE_MAX_KERNELS]; /* and their host stubs, as the runtime knows them */
  int nread;                               /* the variables read, by kg_code_name_hash */
  uint64_t read[KG_CODE_MAX_READ];
  char why[160];                        /* when it could not be described */
} kg_launches;

/* A device buffer the harness gives the call (input, output, scratch). */
typedef struct kg_launch_buf {
  const void *p;
  size_t bytes;
} kg_launch_buf;

/* Captures one call of run(ctx) on stream (a cudaStream_t), given the
 * buffers bufs (nbufs of them), and describes it into out; then, after the
 * capture, every variable of the compilation units whose kernels it
 * launched (__device__ and __constant__ data the host may set, unchanged.h),
 * each as its size and the SHA-256 of its bytes now, their name hashes in
 * out->read. Units are known from the runtime's registrations, which reach
 * it through kgate's exports (CMakeLists.txt): a module's unit that
 * registered elsewhere has nothing read, and the proof then refuses its
 * kernels. 0, or 1 when the call cannot be proven (it would not capture,
 * queued a node kgate does not describe, launched more distinct kernels
 * than KG_PROBE_MAX_KERNELS, a variable could not be read, more than
 * KG_CODE_MAX_READ of them): out->why says which. A capture failure is
 * cleared, never left to poison the next call. Free with kg_launches_free. */
int kg_launches_capture(kg_step_fn run, void *ctx, void *stream, const kg_launch_buf *bufs, int nbufs,
                        kg_launches *out);
void kg_launches_free(kg_launches *l);


#endif
