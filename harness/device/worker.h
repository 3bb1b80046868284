/* The worker: the only process that touches CUDA. It reads case lines on
 * stdin and answers each with a result line on stdout (proto.h). */
#ifndef KG_WORKER_H
#define KG_WORKER_H

#include "modload.h"

typedef struct kg_worker_opts {
  int device;
  int roofline;            /* measure the achievable bandwidth before the hello */
  const char *own_kernels; /* kgate's own module (NULL: beside the executable, modload.h) */
  const char *mutant_kernels; /* selftest: the planted bugs' module (NULL: none; mutants cannot run) */
  const char *kernels[KG_MODULES_MAX]; /* --kernels: modules whose variants join kgate's own */
  int nkernels;
  const char *base_kernels[KG_MODULES_MAX]; /* --base-kernels: the base builds of a paired run */
  int nbase;
  int describe; /* print the modules' description (modload.h) and exit, touching no GPU */
} kg_worker_opts;

/* Loads the modules (own, --kernels, --base-kernels: a variant name defined
 * twice among the first two, or twice among the base modules, is refused),
 * then runs the worker loop on one device until stdin closes; returns the
 * exit code (2: a module could not be loaded). */
int kg_worker_main(const kg_worker_opts *o);

#endif
