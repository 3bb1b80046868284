/* The proof that a paired cell is unchanged: every kernel its variant
 * launches has the same machine code in the base and head modules. The
 * worker shows that both builds queue the same launches (device/launches.h:
 * kernel names, configurations, arguments, function attributes); this module
 * shows that the names mean the same code, from the cubins the modules carry
 * for the GPU's own architecture (`cuobjdump -xelf all`, disasm.h).
 *
 * A kernel's digest covers, byte for byte, the sections of its cubin (its
 * compilation unit) that hold it: its own (.text.K with the scheduling bits,
 * .nv.info.K, .nv.constantN.K, .nv.shared.K, its relocations by symbol name)
 * and every section of the cubin that belongs to no kernel: its device
 * functions (callees), literal pools, __constant__ and initialised
 * __device__ data, the module-wide attributes. Other kernels' own sections
 * are left out, so a change to one kernel of a unit leaves the others
 * provable as long as the unit's shared parts are untouched. Symbols are read
 * by name wherever a section refers to one (relocations, the call graph, the
 * attributes that name a kernel), so a unit that gains a kernel keeps the
 * others' digests. Debug sections (line tables) and notes (the toolkit's
 * command line) are left out: they do not run. A kernel listed in two units
 * of one architecture with different digests is refused.
 *
 * The digest says what a kernel's code is, not what it reads. Variables of
 * its unit the host may set with cudaMemcpyToSymbol (__device__ ones in
 * .nv.global and .nv.global.init, __constant__ ones in bank 3; the digest
 * holds only their initial image) must be read by the probe, alike on both
 * sides (kg_code_fn.data, kg_code_read). A kernel is refused outright
 * (kg_code_fn.unproven) when its unit holds data no variable names or
 * another constant bank of data that is no kernel's own, has a section the
 * proof does not know, or
 * when the kernel, or code its unit shares, refers to another kernel, to the
 * device runtime's launch functions (dynamic parallelism: the child's code
 * is not in the parent's digest) or to a symbol outside the unit. */
#ifndef KG_UNCHANGED_H
#define KG_UNCHANGED_H

#include <stddef.h>
#include <stdint.h>

/* A kernel's name as two builds of one source in different folders both
 * give it: nvcc names an anonymous namespace _GLOBAL__N__<8 hex digits of the
 * source's path>_... and a variable of internal linkage _INTERNAL_<the same>_...,
 * so those digits become "xxxxxxxx". out has room for
 * strlen(name) + 1 bytes (the form is as long). Two kernels one module would
 * name alike this way are refused as listed twice (kg_code_fn.twice). */
void kg_code_name_normal(const char *name, char *out);
/* How the worker and this module name a function: FNV-1a of its normal form. */
uint64_t kg_code_name_hash(const char *name);

typedef struct kg_code_fn {
  char *name;            /* mangled (owned) */
  int arch;              /* 90 for sm_90 */
  uint64_t hash;         /* kg_code_name_hash(name) */
  unsigned char sha[32]; /* the digest above */
  int twice;             /* another unit of this arch has it with another digest */
  char unproven[160];    /* why its digest cannot stand for what it runs; "" when it can */
  /* its unit's variables the host may set (__device__, __constant__; by
   * mangled name): the digest stands for what it runs only when a probe
   * read each of them alike on both sides (kg_code_read) */
  char **data;
  int ndata;
} kg_code_fn;

/* The variables a probe read (device/launches.h), by kg_code_name_hash of their names. */
#define KG_CODE_MAX_READ 64
typedef struct kg_code_read {
  int n;
  uint64_t hash[KG_CODE_MAX_READ];
} kg_code_read;

/* The kernels of one or more modules. */
typedef struct kg_code_table {
  kg_code_fn *f;
  size_t n, cap;
  int units;     /* cubins read */
  char why[300]; /* why nothing could be read (no cuobjdump, a bad file); "" when read */
} kg_code_table;

/* Adds the kernels of one cubin (an ELF image of arch) to t. 0, or -1 with
 * t->why naming what (a malformed image, out of memory). */
int kg_code_table_add_cubin(kg_code_table *t, const void *elf, size_t len, int arch, const char *what);
/* Adds every cubin a kernel module (a host library) carries. 0, or -1 with t->why. */
int kg_code_table_add_module(kg_code_table *t, const char *path);
void kg_code_table_free(kg_code_table *t);

/* Whether the kernels (by name hash, nkernels of them, launched nlaunches
 * times) have the same digest in head and base at arch, none of them
 * unproven on either side, and every variable of their units among those
 * the probe read (read, NULL: none; the probe's two sides described them
 * alike, so their contents were equal). 1 with the evidence ("same machine
 * code (sm_90, SHA-256 ...) and launches: ..."), 0 with why not, in buf. */
int kg_code_same(const kg_code_table *head, const kg_code_table *base, int arch, const uint64_t *kernels, int nkernels,
                 int nlaunches, const kg_code_read *read, char *buf, size_t len);

/* A check record's digest of one group (checkrec.h): SHA-256 over launches
 * (the worker's digest of the call and the variant's facts, as text) and the
 * digests of the kernels (by name hash) at arch, in launch order. 1 with 64
 * hex digits in hex, or 0 with why not in buf (a kernel missing or refused,
 * or a variable of its unit not read, as kg_code_same refuses it). */
int kg_code_digest(const kg_code_table *t, int arch, const uint64_t *kernels, int nkernels, const char *launches,
                   const kg_code_read *read, char hex[65], char *buf, size_t len);

#endif
