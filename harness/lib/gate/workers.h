/* The workers' side of a session that needs no GPU: the worker program, its
 * command line (the one place that knows its shape), and the kernel modules
 * a command loads, asked of one worker's --describe. */
#ifndef KG_WORKERS_H
#define KG_WORKERS_H

#include <stddef.h>
#include <stdio.h>

#include "modload.h"
#include "pairrun.h"
#include "gateset.h"

/* worker, "worker", --device N, --roofline, modules, --describe, NULL */
enum { KG_WORKER_ARGV_MAX = 10 + 4 * KG_MODULES_MAX };

/* A worker's command line: `kgate worker [--device N] [--roofline]
 * [--own-kernels PATH] [--mutant-kernels PATH] [--kernels PATH]...
 * [--base-kernels PATH]... [--describe]`. */
typedef struct kg_worker_cmd {
  char *argv[KG_WORKER_ARGV_MAX];
  char device[16];
} kg_worker_cmd;

/* device < 0: none; with_base: the --base-kernels too. Returns w->argv. */
char *const *kg_worker_cmd_make(kg_worker_cmd *w, const char *worker, int device, int roofline, const kg_modules *mods,
                                int with_base, int describe);

/* The worker program: --worker, or this executable. NULL after saying why on log. */
const char *kg_worker_path(const kg_modules *mods, char *buf, size_t len, FILE *log);

/* With --reference, the base modules, each read once into sealed memory
 * (modload.h): the workers load the sealed bytes, so the SHA-256 checked
 * against the pins and recorded is that of the code that runs, whatever
 * happens at the path meanwhile. Reports and messages name the paths given. */
typedef struct kg_sealed {
  kg_module_image im[KG_MODULES_MAX];
  const char *given[KG_MODULES_MAX];
  int n;
} kg_sealed;

/* Seals m's base modules into s, out a copy of m whose base paths are the
 * images'; with pins, a module of a hash no pin has is refused here, before
 * anything of it is loaded. 0, or -1 said on log. */
int kg_seal_bases(const kg_modules *m, kg_modules *out, kg_sealed *s, FILE *log);
void kg_unseal_bases(kg_sealed *s);

/* --kernels and --base-kernels: one worker, started with --describe (no
 * GPU), loads every module and says what it holds; a module that cannot be
 * loaded, or a variant name defined twice, is its one-line reason. The
 * --kernels modules' variants join the registry here, as they do in each
 * worker. base (when not NULL) gets the union of the base modules, for
 * pairing by name, and ident (when not NULL) their identity (refpin.h);
 * sealed (or NULL) names the paths given in messages. 0, or -1 said on log. */
int kg_load_modules(const kg_modules *m, const char *worker, kg_modinfo *base, kg_pair_meta *ident,
                    const kg_sealed *sealed, FILE *log);

#endif
