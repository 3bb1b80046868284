/* What a text field read from a results file, a baseline, a history or a
 * kernel module must be. These files come from other machines (artifacts,
 * gh-pages, pull requests): a value that cannot be true is refused with the
 * file, the case and the field named, never trusted and never repaired. The
 * loaders ask these; validate.h checks a whole run before it is written. */
#ifndef KG_FIELDS_H
#define KG_FIELDS_H

#include <stddef.h>

/* The bytes a GPU's name may take, with its NUL (kg_device_info.name). */
#define KG_GPU_NAME_LEN 256

/* Each returns NULL when s is acceptable, else why not (a constant phrase). */
const char *kg_why_bad_date(const char *s);     /* ISO 8601 UTC: 2026-11-21T08:30:00Z, a real day and time */
const char *kg_why_bad_commit(const char *s);   /* git describe-like: [A-Za-z0-9._+/-], 1-63 bytes, alnum first */
const char *kg_why_bad_gpu_name(const char *s); /* non-empty, no control characters, a non-empty file name slug */
const char *kg_why_bad_variant(const char *s);  /* [A-Za-z0-9_.+-], 1-63 bytes, alnum first */
const char *kg_why_bad_hex_list(const char *s); /* "" or lowercase hex words joined by '+' (module hashes, commits) */
const char *kg_why_bad_uuid(const char *s);     /* GPU-8-4-4-4-12 lowercase hex, as the worker writes */
const char *kg_why_bad_pci(const char *s);      /* dddd:bb:dd.f lowercase hex */
/* A path a file names (check_record.from, lint[].module, paired.base_path):
 * UTF-8 with no control or bidirectional character (it reaches messages,
 * tables and pages). */
const char *kg_why_bad_path(const char *s);

/* A kernel module's free text: a variant's seed and idea, the module's
 * version. One rule for the module loader, the registry and the results
 * reader, so a module kgate loads always gives a results file kgate reads:
 * UTF-8 (no stray, overlong or surrogate bytes), no control character (C0
 * with ESC and line breaks, DEL, C1), at most max bytes (the field's limit
 * below). Spaces, punctuation and any other character are text ("Harris
 * 2007", "Ünal"). NULL counts as "" (a module that leaves a field out). */
#define KG_SEED_MAX 63
#define KG_IDEA_MAX 159
#define KG_VERSION_MAX 63
const char *kg_why_bad_module_text(const char *s, size_t max);
/* The same, worded for a message: 0, or -1 with "seed '<s escaped>': why"
 * (field first) in why. */
int kg_module_text_check(const char *field, const char *s, size_t max, char *why, size_t len);
/* A variant's seed and idea: 0, or -1 with "variant NAME: seed '...': why"
 * in why (NAME must be a well-formed variant name). */
int kg_variant_text_check(const char *name, const char *seed, const char *idea, char *why, size_t len);

/* "NVIDIA H200" -> "nvidia-h200", "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3":
 * lower case, runs of anything but [a-z0-9] become one '-', no leading/trailing '-'. */
void kg_gpu_slug(const char *name, char *out, size_t len);

/* "cub_sum f32 33554432", the key a message names a baseline or history
 * entry by; variant is escaped for the terminal. */
void kg_entry_label(const char *variant, const char *dtype, long long n, char *buf, size_t len);

#endif
