/* The page's one scale of severity: every colour that says how bad
 * something is (a box, a table row, a bar, a marker on a chart) comes from
 * here, so a routine notice never outshouts a regression. Worst first. */
#ifndef KG_SEVERITY_H
#define KG_SEVERITY_H

typedef enum kg_severity {
  KG_SEV_FAILURE,     /* a case failed: wrong result, crash, error */
  KG_SEV_REGRESSION,  /* slower: blocks a merge or opens a nightly finding */
  KG_SEV_ENVIRONMENT, /* the machine moved (environment, runner health), not the code */
  KG_SEV_NOTICE,      /* worth a look, decides nothing: another card, no charts, undecided */
  KG_SEV_GOOD,        /* passed, faster, an improvement recorded */
  KG_NSEVERITIES
} kg_severity;

typedef struct kg_severity_info {
  const char *name; /* the page's CSS class: "failure", "regression", ... */
  unsigned ink;     /* text, bars and markers: strong enough on white */
  unsigned fill;    /* a box's or a row's background */
  unsigned edge;    /* a box's border */
} kg_severity_info;

/* NULL past the table. */
const kg_severity_info *kg_severity_get(kg_severity s);

/* A nightly finding's level (detect.h's kg_find_kind): regression amber,
 * environment and runner health blue-grey, improvement green. */
kg_severity kg_find_severity(int kind);

#endif
