/* The timer's guard: what a module may not do while kgate runs it, and
 * what it made meanwhile (docs/timing-and-verdicts.md, "What kgate does not
 * let a module do"). kgate's executable exports the runtime's launch, stream
 * attribute, limit, allocation and stream-creation entry points (CMakeLists.txt),
 * so a module's calls through the shared libcudart come here first; each is
 * forwarded to the runtime (dlsym RTLD_NEXT), except the L2 settings a
 * module is refused, which never reach it. While kgate is inside a module's
 * call (kg_guard_enter .. kg_guard_leave) the guard refuses:
 *   a kernel or graph launched on a stream other than the one kgate gave
 *     (the legacy and the per-thread default streams included);
 *   an access-policy window (cudaStreamSetAttribute, a cudaLaunchKernelEx
 *     launch attribute, cudaGraphKernelNodeSetAttribute) and a persisting-L2
 *     limit above 0 (cudaDeviceSetLimit);
 * and after every call asks the runtime for kgate's stream's window and the
 * device's persisting limit, so a module that set them another way (the
 * driver API) is refused too. A refusal names the call; the case fails with
 * it (KG_FK_REFUSED). */
#ifndef KG_GUARD_H
#define KG_GUARD_H

#include <stddef.h>

#include <cuda_runtime_api.h>

/* Before a timed block: the persisting-L2 limit set to 0, persisting lines
 * reset, and no access-policy window on stream. Nothing to do on a card
 * without persisting L2; a card that will not have it reset is said on
 * stderr once and then treated as one without. 0 (kept an int for the
 * callers' CUDA checks). */
int kg_guard_reset_l2(void *stream);

/* Around each call of a module: stream is the one kgate gave it. */
void kg_guard_enter(void *stream);
void kg_guard_leave(void);

/* Counting the module's allocations and streams (on while a case is timed). */
void kg_guard_count(int on);
void kg_guard_counts(int *allocs, long long *bytes, int *streams);

/* The first refusal since kg_guard_clear ("refused: ..."), or NULL. */
const char *kg_guard_refused(void);
/* Forgets the refusal and the counts (a new case). */
void kg_guard_clear(void);

/* For launches.c's cudaLaunchKernelExC: the launch's stream and attributes
 * checked; name is the entry point's. */
void kg_guard_launch_ex(const char *name, const cudaLaunchConfig_t *config, int ptsz);

#endif
