/* A kernel module's fingerprint for kgate bisect: two builds with equal
 * fingerprints run the same code, so a range's commits that build equal
 * modules need no paired run between them (docs/bisect.md).
 *
 * The fingerprint is SHA-256 over, in order:
 *  - the host code and data the module runs (its ELF sections .text,
 *    .rodata, .data and .data.rel.ro, byte for byte): the launchers, their
 *    grids and arguments, the registry. Debug sections, notes (the build id)
 *    and the symbol tables are left out;
 *  - the kernels' machine code at one architecture, kernel by kernel as the
 *    unchanged proof digests them (unchanged.h: debug sections and line
 *    tables left out, names normalised), sorted by name; with kernel
 *    patterns, only the kernels whose mangled name holds one of them. Where
 *    cuobjdump is not found, the module's .nv_fatbin section as it is
 *    instead (line tables included: a change of comments then counts).
 * It is conservative: a difference in any variant's host code, or in a
 * kernel the patterns keep, is a different fingerprint. */
#ifndef KG_FPRINT_H
#define KG_FPRINT_H

#include <stddef.h>

typedef struct kg_fprint_opts {
  int arch;                     /* 90 for sm_90 */
  const char *const *match;     /* kernel name patterns (substrings), or NULL: every kernel */
  size_t nmatch;
} kg_fprint_opts;

/* The fingerprint of the module at path as 64 hex digits into hex; how (a
 * few words: "sm_90 kernels by cuobjdump", "the whole fatbin (no
 * cuobjdump)", "no device code") into how. 0, or -1 with a one-line reason
 * naming path in err (not a readable ELF host library, no kernel at arch). */
int kg_fprint_module(const char *path, const kg_fprint_opts *o, char hex[65], char *how, size_t howlen, char *err,
                     size_t errlen);

#endif
