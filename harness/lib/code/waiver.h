/* kgate lint's waivers (docs/lint.md#waivers): a module says which of its own
 * kernels order memory otherwise, and why. The table is data a module
 * exports (kgate_module_lint_waivers, kgate/module.h), read from the file
 * without loading it; it applies to that module's kernels only, and to a
 * kernel by its whole name, never by part of one. */
#ifndef KG_WAIVER_H
#define KG_WAIVER_H

#include <stddef.h>

/* A kernel (its name, as kg_lint_kernel_name reads it) and why it needs no fence. */
typedef struct kg_lint_waiver {
  const char *kernel;
  const char *reason;
} kg_lint_waiver;

/* One module's table: w[0 .. n) point into text. */
typedef struct kg_lint_waivers {
  kg_lint_waiver *w;
  size_t n;
  char *text;
} kg_lint_waivers;

/* The longest kernel name and reason a table may hold. */
#define KG_WAIVER_NAME_MAX 127
#define KG_WAIVER_REASON_MAX 199

/* The kernel's name as a waiver names it, into buf: for an Itanium-mangled
 * symbol (_Z...) the function's identifier, without namespace, class or
 * template arguments (_ZN2kg11single_passIfEEvPKf: single_pass); any other
 * symbol (a kernel with C linkage) as it is. 0, or -1 for a symbol it cannot
 * read or a name longer than buf: such a kernel is never waived. */
int kg_lint_kernel_name(const char *symbol, char *buf, size_t len);

/* Whether w waives the kernel of this symbol: its name equals w->kernel. */
int kg_lint_waiver_applies(const kg_lint_waiver *w, const char *symbol);

/* The table in bytes b[0 .. len) (kgate/module.h: the tag, then kernel and
 * reason pairs, then an empty name), validated and copied into out. 0, or
 * -1 with err "kgate_module_lint_waivers: <the field and what is wrong>". */
int kg_lint_waivers_parse(const char *b, size_t len, kg_lint_waivers *out, char *err, size_t errlen);

/* The table that the module at path exports: none (n 0) when path is not a
 * 64-bit little-endian host ELF file (a cubin, a listing) or exports no
 * kgate_module_lint_waivers. 0, or -1 with a one-line err naming path and
 * the field: a table that is malformed, or a file whose headers are. */
int kg_lint_waivers_read(const char *path, kg_lint_waivers *out, char *err, size_t errlen);

void kg_lint_waivers_free(kg_lint_waivers *w);

/* The sanitizer's waivers (kgate/module.h: kgate_module_sanitizer_waivers):
 * a report of tool, in kernel (its name as above), at where ("reduce.h:283"),
 * understood and why. Pointers into text. */
typedef struct kg_san_waiver {
  const char *tool, *kernel, *where, *reason;
} kg_san_waiver;

typedef struct kg_san_waivers {
  kg_san_waiver *w;
  size_t n;
  char *text;
} kg_san_waivers;

/* As kg_lint_waivers_parse and _read, for that table. */
int kg_san_waivers_parse(const char *b, size_t len, kg_san_waivers *out, char *err, size_t errlen);
int kg_san_waivers_read(const char *path, kg_san_waivers *out, char *err, size_t errlen);
void kg_san_waivers_free(kg_san_waivers *w);
/* The waiver of a report, or NULL. */
const kg_san_waiver *kg_san_waiver_find(const kg_san_waivers *w, const char *tool, const char *kernel,
                                        const char *where);

#endif
