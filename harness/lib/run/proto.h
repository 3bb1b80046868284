/* The supervisor-worker protocol: one compact JSON object per line.
 *   supervisor -> worker: {"case":i,"variant":..,"dtype":..,"n":..,"pattern":..,"seed":..,"repeats":..}
 *   worker -> supervisor: first {"hello":{device facts, "toolchain":{...}}} or {"fatal":"why"},
 *                         then one {"case":i,"status":..,...} per case received.
 * A result with "restart":true means the worker hit a CUDA error and exits.
 * A paired case ("pair":{...}, kg_pair_opts) is not checked but timed against
 * its base; its result carries "blocks":[[log_ratio,pairs,head_us,base_us],...].
 * A probe ("pair":{...,"probe":true}) is answered with "probe":{"same","launches",
 * "kernels"} (launches.h). A case that did not pass says its kind of failure
 * ("fail":"wrong_result", kg_fail_kind) beside its message. The hello's
 * "toolchain" (optional, model.h kg_toolchain) says what built the modules
 * under test and the machine's driver and image; a malformed one is refused.
 * A line from a worker is at most KG_PROTO_MAX_LINE bytes before its newline:
 * the supervisor fails the case of a longer one (or of bytes that never end a
 * line) without reading on, so its buffer never grows past the limit. The
 * limit leaves room for results that carry more than a summary (samples). */
#ifndef KG_PROTO_H
#define KG_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "plan.h"

#define KG_PROTO_MAX_LINE 262144 /* 256 KiB */

/* Encoders return a malloc'ed line without the newline, NULL when out of memory. */
char *kg_proto_encode_case(size_t index, const kg_case *c, const kg_run_params *p);
char *kg_proto_encode_result(size_t index, const kg_result *r, int restart);
char *kg_proto_encode_hello(const kg_device_info *d);
char *kg_proto_encode_fatal(const char *why);

/* exact: ask for device buffers of exactly the case's size, never a reused
 * larger one, so that under compute-sanitizer memcheck an over-read past n
 * leaves the allocation (--sanitize; sent as "exact":true). */
char *kg_proto_encode_case_exact(size_t index, const kg_case *c, const kg_run_params *p, int exact);

/* Decoders return 0, or -1 with a one-line reason in err. */
int kg_proto_decode_case(const char *line, size_t *index, kg_case *c, kg_run_params *p, char *err, size_t errlen);
/* As kg_proto_decode_case, also returning the "exact" flag (0 when absent). */
int kg_proto_decode_case_exact(const char *line, size_t *index, kg_case *c, kg_run_params *p, int *exact, char *err,
                               size_t errlen);
int kg_proto_decode_result(const char *line, size_t *index, kg_result *r, int *restart, char *err, size_t errlen);
/* A worker's first line: 0 with *d filled for hello, 1 with the reason in err
 * for fatal, -1 for anything else. */
int kg_proto_decode_hello(const char *line, kg_device_info *d, char *err, size_t errlen);

#endif
