/* kgate's exit codes (README): the bottom of the include graph, so every
 * layer can return them without including the command line. */
#ifndef KG_EXITCODE_H
#define KG_EXITCODE_H

enum {
  KG_EXIT_OK = 0,    /* everything passed */
  KG_EXIT_FAIL = 1,  /* a case failed: wrong result, crash, hang, CUDA error */
  KG_EXIT_USAGE = 2, /* bad command line or input (a file, a baseline) */
  KG_EXIT_ENV = 3,   /* environment: no GPU, worker cannot start, gnuplot missing */
  KG_EXIT_PERF = 4,  /* performance regression only */
  KG_EXIT_SIGNAL = 128 /* + the signal that stopped check/run/selftest: 130 SIGINT, 143 SIGTERM, as shells do */
};

#endif
