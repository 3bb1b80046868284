#include "lintcmd.h"

#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "escape.h"
#include "exitcode.h"
#include "sass.h"

/* Keeps the kernels whose symbol contains kernel: the others become
 * subroutines in the listing's eyes, analysed only where called. */
static int select_kernels(kg_sass_listing *l, const char *kernel) {
  int n = 0;
  for (int k = 0; k < l->nfuncs; k++) {
    if (!strstr(l->funcs[k].name, kernel)) l->funcs[k].called = 1;
    n += !l->funcs[k].called;
  }
  return n;
}

int kg_lint_file(const char *path, const char *kernel, FILE *out, FILE *err_out) {
  char err[1024], *text = NULL, shown[1200], name[1024];
  size_t len = 0;
  kg_lint_waivers w;
  /* the module's own waivers first: a bad table is bad input, whatever the disassembler */
  if (kg_lint_waivers_read(path, &w, err, sizeof err)) {
    fprintf(err_out, "kgate lint: %s\n", err);
    return KG_EXIT_USAGE;
  }
  kg_dis_rc dr = kg_dis_read(path, &text, &len, err, sizeof err);
  /* every line names the file as given: escaped, like anything kgate prints */
  kg_esc_term(path, name, sizeof name);
  if (dr != KG_DIS_OK) {
    kg_lint_waivers_free(&w);
    fprintf(err_out, "kgate lint: %s\n", kg_esc_term(err, shown, sizeof shown));
    return dr == KG_DIS_NO_TOOL ? KG_EXIT_ENV : KG_EXIT_USAGE;
  }
  kg_sass_listing l;
  int prc = kg_sass_parse(text, len, &l, err, sizeof err);
  free(text);
  if (prc) {
    fprintf(err_out, "kgate lint: %s: not a SASS listing: %s\n", name, kg_esc_term(err, shown, sizeof shown));
    kg_lint_waivers_free(&w);
    return KG_EXIT_USAGE;
  }
  if (kernel && !select_kernels(&l, kernel)) {
    fprintf(err_out, "kgate lint: %s: no kernel's symbol contains '%s'\n", name,
            kg_esc_term(kernel, shown, sizeof shown));
    kg_sass_free(&l);
    kg_lint_waivers_free(&w);
    return KG_EXIT_USAGE;
  }
  kg_lint_report r;
  int rc = kg_lint_listing(&l, w.w, w.n, &r);
  if (rc) fprintf(err_out, "kgate lint: %s: out of memory\n", name);
  else kg_lint_print(out, path, &l, &r);
  int code = rc ? KG_EXIT_ENV : kg_lint_unwaived(&r) ? KG_EXIT_FAIL : KG_EXIT_OK;
  kg_lint_report_free(&r);
  kg_sass_free(&l);
  kg_lint_waivers_free(&w);
  return code;
}

int kg_lint_main(const kg_lint_opts *o) {
  int bad = 0, fail = 0, env = 0;
  for (int k = 0; k < o->nfiles; k++) {
    int rc = kg_lint_file(o->files[k], o->kernel, stdout, stderr);
    bad |= rc == KG_EXIT_USAGE, fail |= rc == KG_EXIT_FAIL, env |= rc == KG_EXIT_ENV;
  }
  return bad ? KG_EXIT_USAGE : fail ? KG_EXIT_FAIL : env ? KG_EXIT_ENV : KG_EXIT_OK;
}
