/* The nightly's pinned references: a kernel module built once at a chosen
 * commit, recorded in the tree by its SHA-256 (nightly/reference.json), and
 * refused when the file given to kgate is any other. A re-pin is a reviewed
 * commit that adds the new record beside the old one for the overlap nights
 * (docs/nightly.md). */
#ifndef KG_REFPIN_H
#define KG_REFPIN_H

#include <stddef.h>

#define KG_PINS_SCHEMA 1
#define KG_PINS_MAX 16

typedef struct kg_pin {
  char module[64];        /* the module's registry name ("kgate", a team's name) */
  char sha256[65];        /* lowercase hex of the .so file */
  char commit[48];        /* the commit it was built from (7-40 hex) */
  char nvcc[32];          /* the toolchain that built it, e.g. "13.0.88" */
  char architectures[64]; /* CMAKE_CUDA_ARCHITECTURES it was built with: "90-real" (native code only) */
  char pinned[32];        /* the date of the pin (ISO 8601) */
} kg_pin;

typedef struct kg_pins {
  size_t n;
  kg_pin pins[KG_PINS_MAX];
} kg_pins;

/* The SHA-256 of a regular file, as 64 lowercase hex digits. 0, or -1 with err naming path. */
int kg_sha256_file(const char *path, char hex[65], char *err, size_t errlen);

/* Reads a pin file: kind "kgate-reference-pins", its schema_version, and
 * "pins": [{module, sha256, commit, nvcc, architectures, pinned}]. Every value is
 * validated. -1 with a one-line reason. */
int kg_pins_read(const char *path, kg_pins *p, char *err, size_t errlen);

/* Whether the pinned module carries PTX (an architecture without -real): a
 * newer GPU's driver would JIT it, so its timings would be the JIT's. */
int kg_pin_has_ptx(const kg_pin *p);

/* The pin of module whose hash is sha256, or NULL with err saying why (no pin
 * for the module, or another hash: "pinned a1b2c3d4e5f6, given 0a1b2c3d4e5f"). */
const kg_pin *kg_pin_match(const kg_pins *p, const char *module, const char *sha256, char *err, size_t errlen);

/* The pin whose hash is sha256 (any module), or NULL with err naming path
 * and the pinned hashes: the check made before a module is loaded at all,
 * when its registry name is not known yet. */
const kg_pin *kg_pin_by_sha(const kg_pins *p, const char *path, const char *sha256, char *err, size_t errlen);

#endif
