/* Whether a call's captured description (device/launches.h) says only what
 * the unchanged proof compares. The worker writes facts, one line per graph
 * node and one per fact of the capture; this module decides, on the CPU,
 * from that text alone, so every refusal is testable without a GPU. It
 * fails closed: a line, a launch attribute or a memory kind it does not know
 * makes the call "not proven", never "the same".
 *
 * What the description carries, and what this module accepts of it:
 *   nodes N                        the graph's node count
 *   kernel NAME grid= block= dsmem= <function attributes> a1=V ... a31=V args=HEX
 *                                  every launch attribute id 1..31 as the driver
 *                                  reports it for the node: hex, "0" (all zero
 *                                  bytes) or "-" (not reported). An id kgate
 *                                  does not know (kg_proof_attr_name) must be
 *                                  "0" or "-"
 *   launch ID=HEX ...              the attributes a launch passed to the
 *                                  runtime (cudaLaunchKernelEx), a line per
 *                                  launch in order; every id must be known
 *   memset to=buf ...              a memset into a buffer the harness gave the call
 *   memcpy from=buf|host:SHA256 to=buf shape=1d ...
 *                                  a flat copy from a harness buffer, or from
 *                                  host memory whose bytes at capture are hashed,
 *                                  into a harness buffer
 *   empty                          an empty node
 *   edge A B HEX                   an edge with its data
 *   queries N                      how often the call asked the runtime whether
 *                                  its stream is capturing: must be 0
 *   variable NAME bytes=N sha=HEX  a __device__ or __constant__ variable of a
 *                                  launched kernel's module, read after the
 *                                  capture (unchanged.h: its unit's data)
 * Anything else is refused: another memory kind (from=device: memory the
 * harness did not give the call, whose contents the host may have set;
 * managed; unknown), a pitched or 3D copy (shape=3d), an unknown line. The
 * worker itself refuses what it cannot describe (a host, event or array
 * node, a call that does not capture). */
#ifndef KG_PROOF_H
#define KG_PROOF_H

#include <stddef.h>

/* The known launch attribute ids (CUDA 13's cudaLaunchAttributeID): the
 * name, or NULL for an id kgate does not know. */
const char *kg_proof_attr_name(int id);

/* 1 when every line of desc is one the proof compares (above); 0 with
 * "not proven: <why>" in buf. */
int kg_proof_check(const char *desc, char *buf, size_t len);

enum { KG_PROOF_UNPROVEN = -1, KG_PROOF_DIFFER = 0, KG_PROOF_SAME = 1 };

/* The launches' half of the proof over two captures of each side (h[0],
 * h[1] the head's two calls, b[0], b[1] the base's): each checked
 * (kg_proof_check), each side's two calls equal (a host path that changes
 * between calls shows), then head and base equal. KG_PROOF_SAME, or
 * KG_PROOF_DIFFER ("launches differ at line N: ...") or KG_PROOF_UNPROVEN
 * ("not proven: the head: ...") with buf. */
int kg_proof_launches(const char *const h[2], const char *const b[2], char *buf, size_t len);

/* SHA-256 of n bytes as 64 hex digits (out has room for 65). */
void kg_proof_digest_hex(const void *p, size_t n, char *out);

#endif
