/* The supervisor-worker protocol: one compact JSON object per line.
 *   supervisor -> worker: {"case":i,"variant":..,"dtype":..,"n":..,"pattern":..,"seed":..,"repeats":..}
 *   worker -> supervisor: first {"hello":{device facts}} or {"fatal":"why"},
 *                         then one {"case":i,"status":..,...} per case received.
 * A result with "restart":true means the worker hit a CUDA error and exits.
 * A paired case ("pair":{...}, kg_pair_opts) is not checked but timed against
 * its base; its result carries "blocks":[[log_ratio,pairs,head_us,base_us],...].
 * A line from a worker is at most KG_PROTO_MAX_LINE bytes before its newline:
 * the supervisor fails the case of a longer one (or of bytes that never end a
 * line) without reading on, so its buffer never grows past the limit. The
 * limit leaves room for results that carry more than a summary (samples). */
#ifndef KG_PROTO_H
#define KG_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "paired.h"
#include "plan.h"

/* Input copies (blocks) of a paired case in one worker, at most. */
#define KG_PAIR_MAX_COPIES 8
#define KG_PROTO_MAX_LINE 262144 /* 256 KiB */

typedef enum kg_status {
  KG_ST_PENDING, /* not run (yet) */
  KG_ST_PASS,
  KG_ST_FAIL,        /* wrong result, modified input, unexpected nondeterminism */
  KG_ST_UNSUPPORTED, /* dtype declared unsupported by the variant */
  KG_ST_ERROR,       /* did not finish: CUDA error, crash, timeout */
  KG_NSTATUS
} kg_status;

const char *kg_status_name(kg_status s);

/* Timing of one case (worker, only for cases that passed). Times in microseconds. */
typedef struct kg_timing {
  int samples;       /* 0: not timed */
  double median_us, q1_us, q3_us, min_us;
  double noise;      /* relative standard error of the median (stats.h) */
  double graph_us;   /* small inputs: per-call time from a CUDA graph of many launches; 0 otherwise */
  double sm_clock_mhz; /* SM clock read through NVML while sampling; 0 when NVML is absent */
  int throttled;     /* every batch had a clock-lowering reason, so none could be set aside */
  int set_aside;     /* samples set aside: their batch had a clock-lowering reason or a late hold */
} kg_timing;

/* How to time (from the command line; sent with each timed case). */
typedef struct kg_time_opts {
  int hot;            /* back-to-back samples instead of a cold L2 before each */
  double max_noise;   /* stop once noise <= this (default 0.005) */
  int min_samples;    /* at least this many (default 10) */
  double max_seconds; /* per-case sampling cap (default 2) */
} kg_time_opts;

typedef struct kg_result {
  kg_status status;
  char got[32], expected[32];
  double abs_err, bound, ratio; /* ratio = abs_err / bound, see kg_judge */
  double depth;
  int repeats;          /* runs made (floats: the determinism repeats) */
  int nondeterministic; /* float bits differed between the runs */
  int input_modified;   /* a variant not declared in place wrote its input */
  char message[200];    /* why it failed or errored; empty on pass */
  kg_timing timing;
  int device; /* the CUDA device it ran on ("device" in result lines and results files; 0 when absent) */
  /* a paired case: one block per input copy (paired.h), and samples set aside */
  int nblocks;
  kg_pblock blocks[KG_PAIR_MAX_COPIES];
  int pair_set_aside;
} kg_result;

/* Paired timing (the paired gate): with on, every case sent is not checked
 * but timed side by side with its base: base_variant (a registry index, -1:
 * the case's own variant) from kgate's own module (module 0, selftest) or
 * the base module (module 1, --base-kernels). */
typedef struct kg_pair_opts {
  int copies;         /* separately allocated input copies, one block each (1..KG_PAIR_MAX_COPIES) */
  int quads;          /* ABBA quads per block at most (two pairs each) */
  double max_seconds; /* sampling cap per cell (all copies) */
  int round;          /* the paired round (1, 2, ...): with the copy, picks each block's quad orientation */
  int on, module, base_variant;
} kg_pair_opts;

typedef struct kg_run_params {
  uint64_t seed;
  int repeats; /* runs per float case for the determinism check (>= 1) */
  kg_time_opts time; /* used for cases with kg_case.timed */
  kg_pair_opts pair; /* used for cases with kg_case.paired */
} kg_run_params;

typedef struct kg_device_info {
  char name[256];
  int cc_major, cc_minor;
  int sms;
  long long l2_bytes;
  long long mem_bytes;
  int driver_version, runtime_version;
  int mem_clock_khz, bus_width_bits;
  double peak_gbps;     /* theoretical: 2 x memory clock x bus width / 8 */
  double roofline_gbps; /* measured: a large streaming read (0 when not measured) */
  int count;            /* hello only: CUDA devices the worker sees (0 when not said) */
  /* The physical card: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" as nvidia-smi
   * prints it, and the PCI address "0000:1b:00.0"; "" when not known (files
   * written before kgate recorded them). */
  char uuid[48];
  char pci[16];
} kg_device_info;

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
