/* The outputs of a gate document (rmodel.h): the terminal, the report files
 * asked for with the step summary, and the charts. check and run are one
 * session (session.h) and this printer; compare prints its own table and
 * then the same verdict. */
#ifndef KG_GATEOUT_H
#define KG_GATEOUT_H

#include "rmodel.h"
#include "session.h"

/* check and run: --plan, or the session printed; the exit code (after
 * SIGINT/SIGTERM, 128 + the signal, with the results so far written, marked
 * incomplete). */
int kg_gate_command(const kg_gate_opts *go);

/* The report files asked for, and GITHUB_STEP_SUMMARY's Markdown when that is
 * set, from one document. 0, or -1 after saying what failed. */
int kg_out_reports(const char *const *reports, const kg_rdoc *doc);

#endif
