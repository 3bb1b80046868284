/* The run model: what a run is made of (a case's result, its timing, the
 * device, how to run and time it), apart from how it travels (proto.h: the
 * worker's lines) or is kept (results.h: the results file). Each object has
 * one JSON encoder and decoder here, shared by both; where the wire and the
 * file differ (field sets, strictness) a parameter says which. */
#ifndef KG_MODEL_H
#define KG_MODEL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "fields.h"
#include "outcome.h"
#include "plan.h"
#include "unchanged.h"

/* Input copies (blocks) of a paired case in one worker, at most. */
#define KG_PAIR_MAX_COPIES 8
/* Distinct kernels one call of a variant may launch for a probe to prove it unchanged. */
#define KG_PROBE_MAX_KERNELS 8

typedef enum kg_status {
  KG_ST_PENDING, /* not run (yet) */
  KG_ST_PASS,
  KG_ST_FAIL,        /* wrong result, modified input, unexpected nondeterminism */
  KG_ST_UNSUPPORTED, /* dtype declared unsupported by the variant */
  KG_ST_ERROR,       /* did not finish: CUDA error, crash, timeout */
  KG_NSTATUS
} kg_status;

const char *kg_status_name(kg_status s);

/* Why a case did not pass, as a kind code reads (the message is for people). */
typedef enum kg_fail_kind {
  KG_FK_NONE,             /* passed, or not run; an old answer without one */
  KG_FK_WRONG_RESULT,     /* the result is outside its bound, or its bits differ */
  KG_FK_INPUT_MODIFIED,   /* a variant not declared in place wrote its input */
  KG_FK_NONDETERMINISTIC, /* results differ across runs of a variant that claims determinism */
  KG_FK_SANITIZER,        /* compute-sanitizer reported it */
  KG_FK_TIMEOUT,          /* the watchdog ended it */
  KG_FK_CRASH,            /* a CUDA error, a dead worker, a broken line */
  KG_FK_REFUSED,          /* the module did what the timer forbids (the message names the call) */
  KG_FK_WRONG_AFTER_TIMING, /* a result re-checked after timing, the input changed between samples, was wrong */
  KG_NFAIL_KINDS
} kg_fail_kind;

const char *kg_fail_kind_name(kg_fail_kind k); /* "wrong_result", ... ("" for none) */
/* The kind named s: 0, or -1 when s names none. */
int kg_fail_kind_parse(const char *s, kg_fail_kind *out);
/* The status named s: 0, or -1 when s names none. */
int kg_status_parse(const char *s, kg_status *out);

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

/* A timing that was measured: samples >= 1, times finite with
 * 0 < q1 <= median <= q3 <= KG_MAX_TIME_US, and min <= q1 when has_min.
 * 0, or -1 with "q1_us 5 is above median_us 4"-like text in why. */
int kg_timing_check(const kg_timing *t, int has_min, char *why, size_t len);


/* Whether a case's cold L2 was shown to be cold: on this card and at this
 * size, a read of the case's input after kgate's L2 flush took longer than
 * the same read straight after another (harness/lib/stats/cold.h). */
typedef enum kg_cold {
  KG_COLD_UNKNOWN,      /* not said (a case timed before kgate verified it) */
  KG_COLD_VERIFIED,     /* flushed reads were slower beyond noise */
  KG_COLD_NOT_VERIFIED, /* they were not (cold_why says how) */
  KG_COLD_TOO_LARGE,    /* the input is too large for L2 to hold: nothing to tell */
  KG_COLD_HOT,          /* --hot: no flush to verify */
  KG_NCOLD
} kg_cold;

/* How a timed case's outputs were checked again after timing, the input
 * changed between samples (harness/lib/run/recheck.h). */
typedef enum kg_recheck_kind {
  KG_RECHECK_NONE,    /* not re-checked (recheck_why says why) */
  KG_RECHECK_EXACT,   /* integers, exact-tier floats, min and max: a stale result always fails */
  KG_RECHECK_BOUNDED, /* float sums: neighbouring samples' results lie farther apart than both bounds */
  KG_RECHECK_WEAK,    /* float sums whose bound is wider than any change the dtype holds */
  KG_NRECHECK
} kg_recheck_kind;

/* What the timer guarded and saw while it timed a case (harness/device/
 * guard.h): the cold L2's evidence, the re-check after timing, and what the
 * module made while it was timed. "guard" in results files and lines, only
 * for a case timed under it. */
typedef struct kg_guard {
  int on; /* 1: timed under the guard; nothing below is said otherwise */
  kg_cold cold;
  char cold_why[80];               /* not_verified: why */
  double flushed_us, unflushed_us; /* the evidence: median reads of the input (0: not measured) */
  kg_recheck_kind recheck;
  char recheck_why[80]; /* none and weak: why */
  int rechecked;        /* samples whose results were checked after timing */
  int allocs;           /* device allocations the module made while it was timed */
  long long alloc_bytes;
  int streams; /* streams it created meanwhile */
} kg_guard;

const char *kg_cold_name(kg_cold c);              /* "unknown", "verified", "not_verified", "too_large", "hot" */
int kg_cold_parse(const char *s, kg_cold *out);  /* 0, or -1 when s names none */
const char *kg_recheck_name(kg_recheck_kind k);   /* "none", "exact", "bounded", "weak" */
int kg_recheck_parse(const char *s, kg_recheck_kind *out);

/* How to time (from the command line; sent with each timed case). */
typedef struct kg_time_opts {
  int hot;            /* back-to-back samples instead of a cold L2 before each */
  double max_noise;   /* stop once noise <= this (default 0.005) */
  int min_samples;    /* at least this many (default 10) */
  double max_seconds; /* per-case sampling cap (default 2) */
} kg_time_opts;

/* The side of a paired case (kg_result.pair_wrong): none, the head, the base. */
typedef enum kg_pair_side { KG_SIDE_NONE, KG_SIDE_HEAD, KG_SIDE_BASE } kg_pair_side;

typedef struct kg_result {
  kg_status status;
  char got[32], expected[32];
  double abs_err, bound, ratio; /* ratio = abs_err / bound, see kg_judge */
  double depth;
  int repeats;          /* runs made (floats: the determinism repeats) */
  int nondeterministic; /* float bits differed between the runs */
  int input_modified;   /* a variant not declared in place wrote its input */
  char message[200];    /* why it failed or errored; empty on pass */
  kg_fail_kind fail;    /* the kind of that why ("fail" in both forms, left out when none) */
  /* What the case cost the worker, in wall microseconds: making its input
   * and reference (0 when the case before it made the same input), its
   * check, and its timing (0 when not timed). The phase times add them up. */
  double input_us, check_us, time_us;
  /* not run: a baseline's check covered it (checkrec.h); status PASS, message says from where */
  int carried;
  kg_timing timing;
  int device; /* the CUDA device it ran on ("device" in result lines and results files; 0 when absent) */
  /* a paired case: one block per input copy (paired.h), and samples set aside */
  int nblocks;
  kg_pblock blocks[KG_PAIR_MAX_COPIES];
  int pair_set_aside;
  /* a paired case whose results, re-checked after timing, were wrong
   * (status FAIL, fail KG_FK_WRONG_AFTER_TIMING, no blocks): which side */
  kg_pair_side pair_wrong;
  /* a probe (kg_pair_opts.probe): whether head and base queue the same work
   * (device/launches.h): 1 the same (kernels: their name hashes, unchanged.h),
   * 0 not, -1 not known (message says why for 0 and -1) */
  int probed, launch_same, nlaunches, nkernels;
  uint64_t kernels[KG_PROBE_MAX_KERNELS];
  /* a head-only probe (probe 2): the SHA-256 of what one call queues and of
   * the variant's declared facts (checkrec.h), "" when it cannot stand for it */
  char launch_digest[65];
  kg_code_read read; /* the variables of its kernels' units the probe read (launches.h), alike on both sides */
  kg_guard guard;    /* a case timed under the timer's guard ("guard"; absent otherwise) */
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
  int probe;          /* untimed: 1 capture both calls and say whether they queue the same work;
                       * 2 the head's call alone, its digest (kg_result.launch_digest) */
} kg_pair_opts;

typedef struct kg_run_params {
  uint64_t seed;
  int repeats; /* runs per float case for the determinism check (>= 1; one for a variant declaring float atomics) */
  kg_time_opts time; /* used for cases with kg_case.timed */
  kg_pair_opts pair; /* used for cases with kg_case.paired */
} kg_run_params;

/* What built the code under test and what it ran on beyond the card: the
 * nightly records it, and a finding names which of it changed (history.h,
 * kg_hist_what_changed). "" is unknown (a module without
 * kgate_module_toolchain, a machine that does not say, files before it).
 * A worker says it in its hello (the modules under test: the --kernels
 * modules, else kgate's own; values that differ between them joined with
 * '+', flags' digests by the SHA-256 of the list); the results file keeps it
 * as run.toolchain, a history line as "toolchain", never inside "device". */
typedef struct kg_toolchain {
  char nvcc[48];   /* "13.0.88" */
  char cccl[48];   /* "3.0.1" (CCCL, or CUB before it) */
  char flags[65];  /* the modules' flags' digest: 8..64 lowercase hex digits */
  char driver[48]; /* the NVIDIA kernel driver: "580.65.06" (/proc/driver/nvidia/version) */
  char image[128]; /* the runner's image: "ubuntu24/20250105.1" (ImageOS/ImageVersion), KGATE_RUNNER_IMAGE */
} kg_toolchain;

typedef struct kg_device_info {
  char name[KG_GPU_NAME_LEN];
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
  kg_toolchain toolchain; /* hello: the toolchain and machine (above); not a device fact, not in "device" */
} kg_device_info;

typedef struct kg_counts {
  size_t cases, passed, failed, errored, unsupported, pending, nondeterministic;
  size_t carried; /* of passed: carried over from a baseline's check, not run */
} kg_counts;

kg_counts kg_count_results(const kg_result *results, size_t n);

/* The two JSON forms of a model object: the results file (FILE: non-finite
 * numbers as null, read strictly, errors "missing field 'sms'") and the
 * worker's line (WIRE: numbers must be finite, read by type only, errors as
 * jansson words them: "Object item not found: sms"). */
typedef enum kg_form { KG_FORM_FILE, KG_FORM_WIRE } kg_form;
struct kg_jrd;

/* Device facts; WIRE also carries "count" and the toolchain (when known).
 * NULL when out of memory or, on the wire, for a non-finite number. */
json_t *kg_device_to_json(const kg_device_info *d, kg_form form);
/* 0, or -1 with the problem in err. FILE: the name must pass
 * kg_why_bad_gpu_name, a null peak or roofline reads as NAN. WIRE: -2 for a
 * malformed card identity ("uuid: why") or toolchain ("toolchain.nvcc is
 * '...': why"). uuid and pci are optional in both, the toolchain on the wire
 * (the file form neither writes nor reads it). */
int kg_device_from_json(json_t *o, kg_device_info *d, kg_form form, char *err, size_t errlen);

/* A timed case's timing (t->samples > 0); WIRE also carries "set_aside". */
json_t *kg_timing_to_json(const kg_timing *t, kg_form form);
/* 0, or -1 with the problem in err (FILE: also kg_timing_check's). */
int kg_timing_from_json(json_t *o, kg_timing *t, kg_form form, char *err, size_t errlen);

/* A case's result: "status", the judged fields (one table in model.c),
 * "timing" and "device"; the case's identity (results.c) and the line's
 * framing (proto.c) are the callers'. FILE writes every field ("timing" null
 * when not timed); WIRE leaves out a zero device and an untimed timing. Both
 * write a non-finite abs_err, bound or ratio as null, read back as +Inf.
 * A field a new check adds is its member here and one row of the table;
 * both forms write it, and read it as 0 where an older file or line lacks it.
 * NULL when out of memory or, on the wire, for a non-finite depth. */
json_t *kg_result_to_json(const kg_result *r, kg_form form);
/* 0, or -1 with the problem in err. FILE: strict, as kg_result_read;
 * WIRE: types only, worded as jansson words them, and a missing abs_err,
 * bound or ratio reads as +Inf. */
int kg_result_from_json(json_t *o, kg_result *r, kg_form form, char *err, size_t errlen);
/* The file form through r (fileio.h): the status first, then label is
 * appended to r->where (and stays) so that a message about any other field
 * names the case; the timing's messages name "<where>.timing". */
void kg_result_read(struct kg_jrd *r, json_t *o, kg_result *res, const char *label);

/* A case's guard ("guard", g->on): the names and the numbers; NULL when
 * out of memory or, on the wire, for a non-finite number. */
json_t *kg_guard_to_json(const kg_guard *g, kg_form form);
/* The file form through r (fileio.h), strictly: known names, counts >= 0,
 * times in 0..KG_MAX_TIME_US, a why exactly where the names call for one
 * (not_verified; none and weak). Sets g->on. */
void kg_guard_read(struct kg_jrd *r, json_t *o, kg_guard *g);

/* What a field of a table is, and how it is read and written. */
typedef enum kg_ftype {
  KG_FT_INT_IN,       /* int in lo..hi */
  KG_FT_INT,          /* int */
  KG_FT_LLONG_IN,     /* long long in lo..hi */
  KG_FT_FLAG,         /* a flag (int) */
  KG_FT_TEXT,         /* a text of a char[hi]: the file refuses a longer one, the wire cuts it */
  KG_FT_REAL_IN,      /* double in rlo..rhi (null reads as null_value) */
  KG_FT_REAL_OR_NULL, /* the same, but non-finite is null in both forms, and the wire reads anything */
                      /* but a number as null_value */
  KG_FT_NUM,          /* double (null reads as +Inf) */
  KG_FT_TIME,         /* a time (kg_jrd_time) */
} kg_ftype;

/* One field of an object, for a table that both writes and reads it; off:
 * offsetof the member. */
typedef struct kg_field {
  const char *key;
  kg_ftype type;
  size_t off;
  long long lo, hi;
  double rlo, rhi, null_value;
} kg_field;

/* Sets n fields of tab on o, in the order given (NULL: the table's); 0, or
 * -1 when a value could not be made: out of memory, or a non-finite number
 * on the wire (the file writes null). */
int kg_fields_to_json(json_t *o, const void *obj, const kg_field *tab, const unsigned char *order, size_t n,
                      kg_form form);
/* Reads them from the file form through r (fileio.h), each with its bounds. */
void kg_fields_from_json(struct kg_jrd *r, json_t *o, void *obj, const kg_field *tab, const unsigned char *order,
                         size_t n);

/* Copies src (NULL: "") into dst, cut so that no UTF-8 sequence is split. */
void kg_copy_text(char *dst, size_t len, const char *src);

/* A case (or entry) appears once in a file: the first pair of n items of
 * the given size that cmp finds equal, in cmp's order with ties by position.
 * 1 with their positions (*first < *again) for the caller to name; 0 when
 * all differ, or after recording "out of memory" in r (fileio.h). */
int kg_find_duplicate(struct kg_jrd *r, const void *items, size_t n, size_t size,
                      int (*cmp)(const void *, const void *), size_t *first, size_t *again);

/* Where a run was made ("run.provenance" in results files): the CI run and
 * the runner, from GitHub Actions' environment. 0 and "": not known. */
typedef struct kg_provenance {
  long long run_id; /* GITHUB_RUN_ID */
  int run_attempt;  /* GITHUB_RUN_ATTEMPT */
  char runner[128]; /* RUNNER_NAME */
  char repository[128]; /* GITHUB_REPOSITORY: owner/name */
  char sha[72];     /* GITHUB_SHA: 40 (or 64) lowercase hex digits */
} kg_provenance;

/* From the environment: each variable that is set and well formed (one that
 * is not is left out, so a file kgate writes is one it reads). */
void kg_provenance_from_env(kg_provenance *p);
/* Whether anything is known. */
int kg_provenance_known(const kg_provenance *p);
/* The known fields as an object (NULL when out of memory). */
json_t *kg_provenance_to_json(const kg_provenance *p);
/* Reads the object through r (fileio.h): every field optional, each that is
 * there checked (a run id and attempt >= 1, owner/name, hex, the runner's
 * name by the module text rule). */
void kg_provenance_read(struct kg_jrd *r, json_t *o, kg_provenance *p);

/* ---- the toolchain (kg_toolchain above) ---- */

/* Why s cannot be a toolchain's flags (8..64 lowercase hex digits), or NULL;
 * "" (unknown) is acceptable. */
const char *kg_why_bad_toolchain_flags(const char *s);
/* The first field of t that is bad: 0, or -1 with "toolchain.nvcc is '...': why" in why.
 * nvcc, cccl, driver: versions, digits and dots ("13.0.88"), several joined with '+';
 * flags: as above; image: printable ASCII without leading or trailing space, at most
 * 127 bytes. "" (unknown) is acceptable in each. */
int kg_toolchain_check(const kg_toolchain *t, char *why, size_t len);
/* Whether any field is known. */
int kg_toolchain_known(const kg_toolchain *t);
/* The known fields as an object (NULL when out of memory). */
json_t *kg_toolchain_to_json(const kg_toolchain *t);
/* Reads the object through r (fileio.h) into *t: every field optional, each
 * that is there checked as above. r->where names the object ("run.toolchain"). */
void kg_toolchain_read(struct kg_jrd *r, json_t *o, kg_toolchain *t);
/* The machine's part from this process's environment and host: image from
 * ImageOS and ImageVersion (GitHub-hosted runners: "ubuntu24/20250105.1"),
 * else KGATE_RUNNER_IMAGE (a self-hosted runner's image says it), and the
 * kernel driver's version from driver_file (NULL: /proc/driver/nvidia/version).
 * A value that is not well formed is left unknown. */
void kg_toolchain_machine(kg_toolchain *t, const char *driver_file);

/* One case in one line: "reduce0_divergent f32 n=257 uniform". */
void kg_case_label(const kg_case *c, char *buf, size_t len);

#endif
