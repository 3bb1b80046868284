/* Kernel modules (include/kgate/module.h): loading one, checking its ABI and
 * registry, and describing it to a process that must not load it.
 *
 * Only the worker loads modules (dlopen pulls in the CUDA runtime). The
 * supervisor learns what a module holds by running `kgate worker --describe`,
 * which loads the modules, prints one JSON line and exits without touching a
 * GPU, so an ABI mismatch or a broken module is a one-line error (exit 2)
 * even on a machine with no GPU. */
#ifndef KG_MODLOAD_H
#define KG_MODLOAD_H

#include <stddef.h>

#include "kgate/module.h"
#include "model.h"

/* The most modules of one kind (--kernels, --base-kernels) a run loads. */
#define KG_MODULES_MAX 16

/* The file name of kgate's own module, and of the planted bugs' module
 * (kernels/mutants/: only selftest loads it). */
#define KG_MODULE_FILE "libkgate_kernels.so"
#define KG_SELFTEST_MODULE_FILE "libkgate_selftest.so"

/* m points at norm: the module's registry with every variant record copied
 * to this kgate's full size (fields a shorter record lacks are 0: a sum), so
 * m->variants[i] is always a whole kg_module_variant. */
typedef struct kg_loaded_module {
  void *handle;
  const kg_module *m;
  char path[1024];
  kg_module norm;
  kg_module_variant *vars; /* malloc'ed: norm.variants */
  kg_toolchain tc;         /* what compiled it (nvcc, cccl, flags; "" unknown): kgate_module_toolchain */
} kg_loaded_module;

/* The shortest toolchain record a module may have: the first version's, which ends with flags. */
#define KG_MODULE_TOOLCHAIN_MIN (offsetof(kg_module_toolchain, flags) + sizeof(const char *))

/* A module's toolchain record (kgate/module.h) as text into out's nvcc,
 * cccl and flags ("13.0.88", "3.0.1", the digest; "" unknown; the rest of
 * out untouched): t NULL (a module without kgate_module_toolchain) is
 * unknown. A longer record than this kgate's is read up to its fields.
 * 0, or -1 with the first problem in err: a record shorter than
 * KG_MODULE_TOOLCHAIN_MIN, a version no nvcc or CCCL has, flags that are
 * not 8..64 lowercase hex digits. */
int kg_module_toolchain_read(const kg_module_toolchain *t, kg_toolchain *out, char *err, size_t errlen);

/* The shortest variant record a module may have: one that ends before `op`
 * (a module built before ops existed). */
#define KG_MODULE_VARIANT_MIN offsetof(kg_module_variant, op)

/* dlopen(path) (RTLD_LOCAL: two modules' symbols never meet), check the ABI,
 * then the registry, then the toolchain record when the module has one,
 * then its lint waivers (waiver.h: data the lint reads from the file). A
 * path without a slash is taken in the current folder, never searched for.
 * 0, or -1 with a one-line reason naming the file. */
int kg_module_open(const char *path, kg_loaded_module *out, char *err, size_t errlen);
void kg_module_close(kg_loaded_module *m);
/* Index of the variant called name in the module, or -1. */
int kg_module_find(const kg_module *m, const char *name);

/* A module's file read once into a sealed memory file (memfd_create, then
 * F_SEAL_WRITE, SHRINK, GROW and SEAL: no process can change it, its owner
 * included), and the SHA-256 of the sealed bytes read back. Whatever happens
 * at the path afterwards, loading load_path ("/proc/self/fd/N") maps exactly
 * the bytes that were hashed: what a pin (refpin.h) is checked against is
 * what runs. The descriptor is inherited by the processes this one starts
 * (the workers are given load_path and find the same N). */
typedef struct kg_module_image {
  int fd; /* -1: none */
  char sha256[65];
  char load_path[32];
} kg_module_image;

/* The most bytes an image holds: far more than any kernel module's fat binary. */
#define KG_MODULE_IMAGE_MAX ((size_t)2 << 30)

/* Reads path (a regular file of at most KG_MODULE_IMAGE_MAX bytes) into im.
 * 0, or -1 with a one-line reason naming path (im->fd is then -1). */
int kg_module_image_open(const char *path, kg_module_image *im, char *err, size_t errlen);
void kg_module_image_close(kg_module_image *im); /* im->fd -1 after */
/* text into out (len bytes, cut at the end) with each of the n images'
 * load_path replaced by the path it was read from, given[k]: a worker names
 * the module it loaded by the path it was handed. */
void kg_module_image_names(const kg_module_image *im, const char *const *given, int n, const char *text, char *out,
                           size_t len);

/* Checks a registry table without calling into it: the ABI fields, a
 * variant_size from KG_MODULE_VARIANT_MIN to sizeof(kg_module_variant)
 * (records are read with that stride), a sane count, names of [a-z0-9_]
 * (1..63, unique), known flags, dtypes, op and NaN policy (only a float
 * min/max may ignore NaNs), non-NULL functions. 0, or -1 with the first
 * problem in err. */
int kg_module_validate(const kg_module *m, char *err, size_t errlen);

/* kgate's own module: beside the executable (a build tree), else in
 * <prefix>/lib/kgate beside <prefix>/bin/kgate. Fills buf; 0, or -1 with err
 * when neither exists. */
int kg_module_default_path(char *buf, size_t len, char *err, size_t errlen);
/* The same for the module file named file (KG_SELFTEST_MODULE_FILE). */
int kg_module_default_path_of(const char *file, char *buf, size_t len, char *err, size_t errlen);

/* What the supervisor knows of a module's variants (no functions). */
typedef struct kg_modvariant {
  char name[64];
  unsigned flags, dtypes;
  unsigned op, nan; /* KG_OP_*, KG_NAN_* */
  char seed[64], idea[160];
} kg_modvariant;

/* The roles of a worker's modules, in the order it loads them. */
typedef enum kg_modrole { KG_MOD_OWN, KG_MOD_KERNELS, KG_MOD_BASE } kg_modrole;

typedef struct kg_modinfo {
  char path[1024], name[64], version[64];
  kg_modrole role;
  size_t n;
  kg_modvariant *v; /* malloc'ed */
} kg_modinfo;

void kg_modinfo_free(kg_modinfo *mi);
/* Index of the variant called name, or -1. */
int kg_modinfo_find(const kg_modinfo *mi, const char *name);

/* The describe line for loaded modules: {"modules":[{path,name,version,role,
 * variants:[[name,flags,dtypes,op,nan,seed,idea],...]}]} (role "own",
 * "kernels" or "base", from roles[k]; roles NULL: all "own"). malloc'ed,
 * NULL when out of memory. */
char *kg_module_describe(const kg_loaded_module *mods, const kg_modrole *roles, size_t n);
/* Parses a describe line into up to max modinfos. Returns the count, or -1 with err. */
int kg_module_parse_describe(const char *line, kg_modinfo *out, size_t max, char *err, size_t errlen);

/* The modules one worker loads: kgate's own (when given), the --kernels
 * modules, then the --base-kernels ones. */
typedef struct kg_module_set {
  kg_loaded_module mod[1 + 2 * KG_MODULES_MAX];
  kg_modrole role[1 + 2 * KG_MODULES_MAX];
  int nmods;
} kg_module_set;

/* Opens own (NULL: none), each kernels[k] and each base[k] into s, in that
 * order. Every --kernels module's variants join the registry (varreg.h:
 * a name that kgate's own variants or an earlier module define is a
 * one-line error naming both paths), and a name two base modules define is
 * one too (pairing is by name). 0, or -1 with err; close s either way. */
int kg_module_set_load(kg_module_set *s, const char *own, const char *const *kernels, int nkernels,
                       const char *const *base, int nbase, char *err, size_t errlen);
void kg_module_set_close(kg_module_set *s);

/* The toolchain of the code a worker of s runs under test, into out's nvcc,
 * cccl and flags: the --kernels modules' when s has any, else kgate's own.
 * Where modules under test differ, nvcc and cccl are their known values
 * joined with '+' (unknown when that does not fit), flags the SHA-256 of
 * their digests joined with '+' in load order, so any one's change shows. */
void kg_module_set_toolchain(const kg_module_set *s, kg_toolchain *out);

/* Runs `worker_argv... --describe` (argv ends with NULL; the caller puts the
 * --kernels/--base-kernels options in it), reads its line and waits for it.
 * Returns the number of modules described, or -1 with the worker's one-line
 * reason in err. */
int kg_module_query(char *const *worker_argv, kg_modinfo *out, size_t max, char *err, size_t errlen);

#endif
