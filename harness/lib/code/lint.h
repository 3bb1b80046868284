/* kgate lint: the memory-ordering rule of a last-block ticket, checked on
 * the machine code (docs/lint.md). A ticket is a global atomic whose result
 * decides a branch (which block goes on to read the others' data).
 * - release: every path from a global store or a non-ticket atomic to a
 *   ticket passes a GPU-scope fence (MEMBAR.*.GPU/SYS: __threadfence, a
 *   release or seq_cst atomic);
 * - acquire: every path from a ticket to a weak global load passes a
 *   GPU-scope fence or an acquire (CCTL.IVALL); strong loads need neither.
 * A fence under a predicate counts for the instructions under the same
 * predicate. Subroutines are followed at their calls; a call into code the
 * listing lacks is counted and reported, never followed. */
#ifndef KG_LINT_H
#define KG_LINT_H

#include <stddef.h>
#include <stdio.h>

#include "sass.h"
#include "waiver.h"

typedef enum kg_lint_side {
  KG_LINT_RELEASE, /* a store reaches a ticket unfenced */
  KG_LINT_ACQUIRE, /* a ticket reaches a weak load with no acquire */
  KG_LINT_SCOPE    /* the ticket itself is a block-scope atomic */
} kg_lint_side;

/* A place in the code, for the report. */
typedef struct kg_lint_at {
  unsigned addr;
  int line;
  const char *file;
  char text[96]; /* the instruction, cut */
} kg_lint_at;

typedef struct kg_lint_finding {
  kg_lint_side side;
  int func;           /* index in the listing */
  kg_lint_at from, to; /* release: store, ticket; acquire: ticket, load; scope: the ticket twice */
  char path[160];     /* the blocks in between: "0x0210 -> 0x0380 -> 0x0400" */
  const char *waived; /* the waiver's reason, NULL when the finding counts */
} kg_lint_finding;

/* What the lint could not classify: reported, never a failure. */
typedef struct kg_lint_note {
  int func;
  kg_lint_at at;
  const char *why; /* static text */
} kg_lint_note;

typedef struct kg_lint_report {
  kg_lint_finding *findings;
  size_t nfindings, cap;
  kg_lint_note *notes;
  size_t nnotes, notecap;
  int nkernels, ntickets;
  int unknown_calls; /* calls into code the listing lacks: not followed */
  size_t nwaived;
  /* the waivers that matched a kernel, each printed whether it hid findings or not */
  const kg_lint_waiver **used;
  size_t nused;
} kg_lint_report;

/* Analyses every kernel (a function no other one calls) of the listing. The
 * kernels a waiver names (waiver.h: the module's own waivers, by whole name)
 * have their findings marked waived. Returns 0, or -1 out of memory. */
int kg_lint_listing(const kg_sass_listing *l, const kg_lint_waiver *w, size_t nw, kg_lint_report *r);
/* The same within limit_s seconds (0: no limit): -2 when the time ran out,
 * the report then incomplete. */
int kg_lint_listing_within(const kg_sass_listing *l, const kg_lint_waiver *w, size_t nw, double limit_s,
                           kg_lint_report *r);
/* The findings that count (not waived). */
size_t kg_lint_unwaived(const kg_lint_report *r);
void kg_lint_report_free(kg_lint_report *r);

/* One module's lint in a check or run, as text (the results' "lint", the
 * Markdown, the JUnit): what each finding says, which waivers hid what. */
typedef struct kg_lint_item {
  char kernel[160]; /* the kernel's symbol, cut */
  int arch;
  char side[8];                   /* release, acquire, scope */
  char first[160], second[160];   /* release: store, ticket; acquire: ticket, load; scope: the ticket */
  char path[160];
} kg_lint_item;

typedef struct kg_lint_waived {
  char variant[KG_WAIVER_NAME_MAX + 1], reason[KG_WAIVER_REASON_MAX + 1]; /* variant: the kernel the waiver names */
  int findings; /* how many it hid */
} kg_lint_waived;

typedef struct kg_lint_module {
  char path[1024];
  int ran;         /* 0: not run, why says why (no disassembler here, or not a module it can read) */
  int off;         /* not run because the run said --lint off: not a failure (ran is 0) */
  char why[240];
  int kernels, tickets, unknown_calls;
  kg_lint_item *items; /* the findings that count */
  size_t nitems;
  kg_lint_waived *waived;
  size_t nwaived;
  kg_lint_item *notes; /* what the lint could not classify (side "note", first: where, second: why): no failure */
  size_t nnotes;
} kg_lint_module;

/* Fills m (path and ran set by the caller) from a lint of l. 0, or -1 out of memory. */
int kg_lint_summarize(const kg_sass_listing *l, const kg_lint_report *r, kg_lint_module *m);
void kg_lint_module_free(kg_lint_module *m);

/* The report: one paragraph per finding, a "waived: reason" line per used
 * waiver, then a summary line. name: the input, as the user gave it. */
void kg_lint_print(FILE *f, const char *name, const kg_sass_listing *l, const kg_lint_report *r);

#endif
