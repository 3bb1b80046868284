/* Kernel modules (include/kgate/module.h): loading one, checking its ABI and
 * registry, and describing it to a process that must not load it.
 *
 * Only the worker loads modules (dlopen pulls in the CUDA runtime). The
 * supervisor learns what a module holds by running `kgate worker --describe`,
 * which loads the modules, prints one JSON line and exits without touching a
 * GPU, so an ABI mismatch or a broken module is a one-line error (exit 2)
 * even on a machine with no GPU. */
#ifndef KG_MODULE_H
#define KG_MODULE_H

#include <stddef.h>

#include "kgate/module.h"

/* The file name of kgate's own module. */
#define KG_MODULE_FILE "libkgate_kernels.so"

typedef struct kg_loaded_module {
  void *handle;
  const kg_module *m;
  char path[1024];
} kg_loaded_module;

/* dlopen(path) (RTLD_LOCAL: two modules' symbols never meet), check the ABI,
 * then the registry. 0, or -1 with a one-line reason naming the file. */
int kg_module_open(const char *path, kg_loaded_module *out, char *err, size_t errlen);
void kg_module_close(kg_loaded_module *m);
/* Index of the variant called name in the module, or -1. */
int kg_module_find(const kg_module *m, const char *name);

/* Checks a registry table without calling into it: the ABI fields, a sane
 * count, names of [a-z0-9_] (1..63, unique), known flags and dtypes, non-NULL
 * functions. 0, or -1 with the first problem in err. */
int kg_module_validate(const kg_module *m, char *err, size_t errlen);

/* kgate's own module: beside the executable (a build tree), else in
 * <prefix>/lib/kgate beside <prefix>/bin/kgate. Fills buf; 0, or -1 with err
 * when neither exists. */
int kg_module_default_path(char *buf, size_t len, char *err, size_t errlen);

/* What the supervisor knows of a module's variants (no functions). */
typedef struct kg_modvariant {
  char name[64];
  unsigned flags, dtypes;
} kg_modvariant;

typedef struct kg_modinfo {
  char path[1024], name[64], version[64];
  size_t n;
  kg_modvariant *v; /* malloc'ed */
} kg_modinfo;

void kg_modinfo_free(kg_modinfo *mi);
/* Index of the variant called name, or -1. */
int kg_modinfo_find(const kg_modinfo *mi, const char *name);

/* The describe line for loaded modules: {"modules":[{path,name,version,variants:[[name,flags,dtypes],...]}]}.
 * malloc'ed, NULL when out of memory. */
char *kg_module_describe(const kg_loaded_module *mods, size_t n);
/* Parses a describe line into up to max modinfos. Returns the count, or -1 with err. */
int kg_module_parse_describe(const char *line, kg_modinfo *out, size_t max, char *err, size_t errlen);

/* Runs `worker_argv... --describe` (argv ends with NULL; the caller puts the
 * --kernels/--base-kernels options in it), reads its line and waits for it.
 * Returns the number of modules described, or -1 with the worker's one-line
 * reason in err. */
int kg_module_query(char *const *worker_argv, kg_modinfo *out, size_t max, char *err, size_t errlen);

#endif
