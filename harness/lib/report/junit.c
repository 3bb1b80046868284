/* The JUnit XML printer: the report model's CI test cases (rmodel.h), a
 * testsuite each for the paired gate, the lint and every variant. */
#include "export.h"

/* Attribute values and text (kg_esc_xml): XML 1.0 forbids most control
 * characters even as references, so those become '?'. */
#include "escape.h"

static void xml_put(FILE *f, const char *s) { kg_esc_xml(f, s); }

static void xml_tally(FILE *f, kg_rm_tally t) {
  fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\"", t.tests, t.failures, t.errors,
          t.skipped);
}

/* One <testcase>: empty when it passed, its message in the outcome's tag,
 * or a pass's evidence in <system-out>. */
static void xml_test(FILE *f, const kg_rm_test *t) {
  static const char *const tag[] = {[KG_RM_FAILURE] = "failure", [KG_RM_ERROR] = "error", [KG_RM_SKIPPED] = "skipped"};
  fputs("    <testcase classname=\"", f);
  xml_put(f, t->classname);
  fputs("\" name=\"", f);
  xml_put(f, t->name);
  if (t->outcome == KG_RM_PASS && !t->out) {
    fputs("\"/>\n", f);
    return;
  }
  if (t->outcome == KG_RM_PASS) {
    fputs("\">\n      <system-out>", f);
    xml_put(f, t->out);
    fputs("</system-out>\n    </testcase>\n", f);
    return;
  }
  fprintf(f, "\">\n      <%s message=\"", tag[t->outcome]);
  xml_put(f, t->message);
  fputs("\"/>\n    </testcase>\n", f);
}

int kg_print_junit(FILE *f, const kg_rdoc *d) {
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kgate\"", f);
  xml_tally(f, d->tally);
  fputs(">\n", f);
  for (size_t s = 0; s < d->nsuites; s++) {
    const kg_rm_suite *su = &d->suites[s];
    fputs("  <testsuite name=\"", f);
    xml_put(f, su->name);
    fputc('"', f);
    xml_tally(f, su->tally);
    fputs(">\n", f);
    for (size_t k = su->first; k < su->first + su->count; k++) xml_test(f, &d->tests[k]);
    fputs("  </testsuite>\n", f);
  }
  fputs("</testsuites>\n", f);
  return 0;
}
