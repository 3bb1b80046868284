/* kgate lint FILE...: the memory-ordering check of a last-block ticket on
 * kernel modules, cubins or stored SASS listings (lib/code/lint.h, docs/lint.md). */
#ifndef KG_LINTCMD_H
#define KG_LINTCMD_H

#include <stddef.h>
#include <stdio.h>

#include "lint.h"

typedef struct kg_lint_opts {
  const char *const *files;
  int nfiles;
  const char *kernel; /* --kernel: only kernels whose symbol contains it; NULL for all */
} kg_lint_opts;

/* Lints one file with the waivers it exports (a kernel module's, waiver.h;
 * a cubin or a listing has none); 0 clean (or all waived), 1 a finding, 2
 * bad input (a bad waiver table included), 3 no disassembler for machine
 * code. The report goes to out, errors to err_out. */
int kg_lint_file(const char *path, const char *kernel, FILE *out, FILE *err_out);

/* The command: every file, exit 2 for bad input, else 1 on a finding, else
 * 3 when a file needed a missing disassembler, else 0. */
int kg_lint_main(const kg_lint_opts *o);

#endif
