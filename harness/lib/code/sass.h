/* SASS listings: the text that `cuobjdump -sass` or `nvdisasm -c [-g]`
 * prints, read into functions of instructions and a control-flow graph per
 * function. What the instructions mean for memory ordering is lint.c's; this
 * file knows only the text's shape: functions, addresses, labels, guards,
 * operands, branch and call targets, source lines (nvdisasm -g). */
#ifndef KG_SASS_H
#define KG_SASS_H

#include <stddef.h>

/* A predicate as a small number: P0..P6 are 0..6, UP0..UP6 are 8..14;
 * KG_SASS_PT (always true) and KG_SASS_NOPRED (none) are not predicates. */
enum { KG_SASS_PT = 16, KG_SASS_NOPRED = -1, KG_SASS_MAXOPS = 12 };

typedef struct kg_sass_insn {
  unsigned addr;      /* offset in its function */
  int line;           /* source line (nvdisasm -g), 0 when the listing has none */
  const char *file;   /* its source file, NULL when none */
  int guard;          /* the predicate before the opcode (@P0, @!UP1), KG_SASS_NOPRED when none */
  int guard_neg;      /* @!P0 */
  char *text;         /* "@P0 ATOMG.E.INC.STRONG.GPU PT, R2, desc[UR4][R2.64], R5" (owned) */
  char *op;           /* "ATOMG.E.INC.STRONG.GPU": the opcode with its modifiers (in ops_buf) */
  char *ops[KG_SASS_MAXOPS]; /* the operands as written, in ops_buf */
  int nops;
  char *ops_buf;      /* owned */
  char *target;       /* a branch or call's target as written: "0x1f0", ".L_x_3", "_Z4funcv"; NULL */
  int jump;           /* index of the target instruction in its function, -1: none or not found */
} kg_sass_insn;

typedef struct kg_sass_block {
  int first, last; /* instruction indices, inclusive */
  int *succ;       /* indices of the successor blocks (owned) */
  int nsucc;
} kg_sass_block;

typedef struct kg_sass_func {
  char *name; /* the symbol, mangled as listed (owned) */
  int arch;   /* 90 for sm_90; 0 when the listing does not say */
  int unit;   /* which cubin of the listing: a call resolves within its own */
  kg_sass_insn *insns;
  int ninsns, cap;
  kg_sass_block *blocks; /* made by kg_sass_cfg */
  int nblocks;
  int *block_of;  /* block of each instruction */
  int called;     /* another function of the listing calls it: a subroutine, no kernel */
} kg_sass_func;

typedef struct kg_sass_listing {
  kg_sass_func *funcs;
  int nfuncs, cap;
  char **files; /* source file names (owned); instructions point at them */
  int nfiles;
  int *byname; /* hash of (unit, name) -> function index + 1, 0 empty; nbyname slots */
  int nbyname;
} kg_sass_listing;

/* Reads a listing from text (either tool's shape, several concatenated too).
 * Returns 0, or -1 with a one-line reason in err (no function found, an
 * instruction line that does not parse, out of memory). Builds each
 * function's control-flow graph. */
int kg_sass_parse(const char *text, size_t len, kg_sass_listing *l, char *err, size_t errlen);
void kg_sass_free(kg_sass_listing *l);

/* The function named name in the same unit (cubin): two cubins may each
 * hold a static function of one name. -1 when the listing lacks it. */
int kg_sass_find(const kg_sass_listing *l, const char *name, int unit);
/* Whether the instruction never runs: guarded by @!PT. */
int kg_sass_never(const kg_sass_insn *in);

/* The opcode's base ("ATOMG" of "ATOMG.E.INC.STRONG.GPU") compared with base. */
int kg_sass_is(const kg_sass_insn *in, const char *base);
/* Whether the opcode has the modifier ("STRONG" in "LDG.E.STRONG.GPU"). */
int kg_sass_has_mod(const kg_sass_insn *in, const char *mod);
/* The predicate an operand names ("P3", "!UP1", "PT"), KG_SASS_NOPRED for none. */
int kg_sass_pred(const char *operand, int *neg);

#endif
