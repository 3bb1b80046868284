/* The report model: what a run's reports say, decided once. Built from a run
 * (and its comparison with a baseline, when there is one), it holds the
 * sections, their rows in report order, each number already rounded as
 * people read it, each verdict's explanation in words, what a row's
 * severity is, which rows a short report may leave out and how many were
 * left out, and the CI test cases with their outcomes. The printers
 * (formats.def: Markdown, JUnit, CSV; the terminal, report.h; the page,
 * html.c) only lay it out and escape it for where it goes.
 *
 * Text a cell or item holds is either kgate's own words (as is) or data read
 * from a file or a module (KG_RM_DATA: every printer escapes it). */
#ifndef KG_RMODEL_H
#define KG_RMODEL_H

#include <stddef.h>

#include "bisectjson.h"
#include "detect.h"
#include "history.h"
#include "results.h"
#include "severity.h"
#include "verdict.h"

/* ---- cells and tables ----------------------------------------------------- */

enum {
  KG_RM_DATA = 1u << 0,   /* text from a file or a module: escape it */
  KG_RM_STRONG = 1u << 1, /* the cell that makes the row matter (a SLOWER verdict): bold where a format has it */
  KG_RM_TIMES = 1u << 2,  /* a ratio: the printer writes its "times" sign after it ("1.73x") */
  KG_RM_CODE = 1u << 3,   /* a name in the code (a kernel): set as code where a format has it */
};

typedef struct kg_rm_cell {
  const char *text; /* NULL: no value (an empty cell); "": a value that is empty (a text column with nothing to say) */
  unsigned flags;   /* KG_RM_DATA, KG_RM_STRONG, KG_RM_TIMES */
} kg_rm_cell;

typedef struct kg_rm_col {
  const char *name;
  const char *unit; /* "us" (a printer may write it its own way), or NULL */
  int left;         /* text column: aligned left */
} kg_rm_col;

typedef struct kg_rm_row {
  /* What the row is of (a kg_pair_cell, a kg_cmp_row, a kg_case of run), for printers with columns of their own. */
  const void *src;
  kg_severity sev; /* KG_NSEVERITIES: a plain row */
  int quiet;       /* a no-change row (SAME, UNCHANGED): a short report counts it instead of listing it */
  kg_rm_cell *cells;
} kg_rm_row;

typedef struct kg_rm_table {
  const kg_rm_col *cols;
  size_t ncols;
  kg_rm_row *rows;
  size_t nrows;
  size_t shown; /* rows a short report lists before "... and N more": nrows when it lists every one */
} kg_rm_table;

/* ---- the sections ----------------------------------------------------------- */

enum { KG_RM_MAX_PARTS = 8 };

/* One summary line: "Checks: 36 cases, ...". Its value is parts, each
 * kgate's words or data. */
typedef struct kg_rm_item {
  const char *label; /* "Checks" */
  const char *note;  /* after the label, before the colon: "(advisory: the paired gate decides)", or NULL */
  kg_rm_cell parts[KG_RM_MAX_PARTS];
  size_t nparts;
} kg_rm_item;

enum { KG_RM_MAX_ITEMS = 8 };

/* A line of a nested list: level 0, or 1 under the line before. */
typedef struct kg_rm_line {
  int level;
  kg_severity sev; /* KG_NSEVERITIES: plain */
  kg_rm_cell parts[KG_RM_MAX_PARTS];
  size_t nparts;
} kg_rm_line;

/* ---- the lint ---------------------------------------------------------------- */

/* A module's part in the lint: read, left out by --lint off, or not read
 * (the gate fails, exit 3). */
typedef enum kg_rm_lint_state { KG_RM_LINT_RAN, KG_RM_LINT_OFF, KG_RM_LINT_NOT_RUN } kg_rm_lint_state;

/* One module of the run's lint (lint.h's record), as every printer says it.
 * Its findings, waivers in use and notes are the record's, every one; the
 * list formats' lines name the first KG_RM_MAX_FAILED of each. */
typedef struct kg_rm_lint_module {
  const char *path;         /* as the run names it (data) */
  const char *name;         /* its file name, the path's last part (data) */
  kg_rm_lint_state state;
  const char *why;          /* KG_RM_LINT_NOT_RUN: why (data) */
  int kernels, tickets;     /* KG_RM_LINT_RAN */
  const kg_lint_item *findings, *notes; /* notes: what the lint could not classify, no failure */
  size_t nfindings, nnotes;
  const kg_lint_waived *waived;
  size_t nwaived;
} kg_rm_lint_module;

/* The lint's section: its modules in the run's order, what they add up to
 * (the verdict counts these), and the lines the list formats print. */
typedef struct kg_rm_lint {
  kg_rm_lint_module *mods;
  size_t n;
  size_t findings; /* over the modules read */
  size_t unread;   /* modules not read (--lint off aside): the gate fails, exit 3 */
  /* Per module: its line, then under it its findings (KG_RM_MAX_FAILED, the rest counted), its waivers, its notes. */
  kg_rm_line *lines;
  size_t nlines;
} kg_rm_lint;

/* ---- compare --------------------------------------------------------------------- */

/* `kgate compare`'s section (kg_rm_gate.compared): its table is the
 * document's comparison (cmp, in --sort's order); only: it leaves out the
 * SAME rows. The lines after the table, a level-1 line under the one before:
 * how many SAME rows the table left out, the cells of OLD that NEW lacks,
 * NEW's failed cases, and NEW's own paired cells (its run against its base
 * build, whose SLOWER cells decide the verdict as in that run) with the
 * SLOWER ones named (KG_RM_COMPARE_SLOWER, the rest counted). */
typedef struct kg_rm_compare {
  int on;
  int only;
  kg_rm_line *lines;
  size_t nlines;
} kg_rm_compare;

enum { KG_RM_COMPARE_SLOWER = 10 };

/* The paired gate's section (run->pair.on). */
typedef struct kg_rm_paired {
  kg_rm_item module;  /* "Base module: PATH (NAME VERSION)" */
  const char *setting; /* "4 copies, 2-6 rounds, 61.4 s" */
  kg_rm_item verdicts; /* "Paired verdicts: 2 SLOWER, 1 UNKNOWN, ..." in report order */
  const char *counts; /* the counts alone: "2 SLOWER, 1 UNKNOWN, ..." */
  /* Instead of the table: "No cell was paired: ...", "All 36 paired cells are SAME: ...", or NULL. */
  const char *state;
  const char *method; /* how to read the table: change, interval, the rule */
  kg_rm_table cells;  /* every cell, in report order (kg_pverdict_order); SAME and UNCHANGED rows are quiet */
  /* After the table (or the state): the quiet cells in a line each, or NULL. */
  const char *same_line, *unchanged_line;
} kg_rm_paired;

/* One Harris-style ladder: every variant timed at (dtype, n), in ladder order. */
typedef struct kg_rm_ladder {
  kg_dtype dtype;
  size_t n;
  const char *bytes; /* "16 MiB" */
  kg_rm_table table;
} kg_rm_ladder;

/* A CI test case (JUnit's testcase). */
typedef enum kg_rm_outcome { KG_RM_PASS, KG_RM_FAILURE, KG_RM_ERROR, KG_RM_SKIPPED } kg_rm_outcome;

typedef struct kg_rm_test {
  const char *classname; /* data: "kgate.VARIANT", "kgate.paired.VARIANT", "kgate.lint" */
  const char *name;      /* data */
  kg_rm_outcome outcome;
  const char *message; /* failure, error, skipped: why; "" for a pass */
  const char *out;     /* a pass with evidence (an UNCHANGED cell): the evidence, or NULL */
} kg_rm_test;

typedef struct kg_rm_tally {
  size_t tests, failures, errors, skipped;
} kg_rm_tally;

/* A testsuite: "paired", "lint", or a variant's. */
typedef struct kg_rm_suite {
  const char *name; /* data */
  kg_rm_tally tally;
  size_t first, count; /* its tests: tests[first .. first + count) */
} kg_rm_suite;

/* A commit the reports link: 40 hex digits (checked), and repo/commit/<hex>
 * when the repository is known, else NULL. */
typedef struct kg_rm_commit {
  const char *hex, *url;
} kg_rm_commit;

/* A piece of a line: a cell (kgate's words, or data), or, where the cell's
 * text is NULL, a commit that a format links where it can. */
typedef struct kg_rm_piece {
  kg_rm_cell cell;
  kg_rm_commit commit;
} kg_rm_piece;

enum { KG_RM_MAX_PIECES = 12 }; /* a bisect's line has at most 10 (kg_rm_bisect) */

/* kgate bisect's answer for a finding (kg_rdoc_bisect): a bisect's file
 * whose range and cells are the finding's (kg_bisect_doc_of), in one line:
 *   **Culprit** (kgate bisect): C, +0.31 % [+0.24, +0.38] against its parent P
 * for found, else the bisect's own line (data) and what it found instead:
 *   **kgate bisect**: WHY: the range's ends' interval, against the finding's step (not reproduced)
 *   **kgate bisect**: WHY; the step is at one of N commits, A to B (undecided)
 *   **kgate bisect**: WHY; what changed: CHANGED (outside the module) */
typedef struct kg_rm_bisect {
  kg_bisect_outcome outcome; /* found, outside, not reproduced or undecided (kg_bisect_doc_answers) */
  kg_rm_piece line[KG_RM_MAX_PIECES];
  size_t n;
} kg_rm_bisect;

/* A nightly finding (detect.h): what `history check`, its summary and the page say of it. */
typedef struct kg_rm_finding {
  const kg_finding *src;
  kg_severity sev;       /* its level; an acknowledged one keeps it (drawn muted) */
  const char *tag;       /* "REGRESSION", "ENVIRONMENT", "RUNNER HEALTH", "IMPROVEMENT" */
  const char *title;     /* "regression (open)", "regression (acknowledged)", "environment", ... */
  const char *what;      /* "slower than the reference's accepted level", "faster than the accepted level", or NULL */
  const char *first_bad; /* the change night's label */
  const char *alarm;     /* the night the detector crossed its threshold, or NULL when the same */
  const char *good, *bad; /* the commits of the last good and first bad nights (data; "" unknown) */
  /* The repository's compare URL of good...bad, or NULL (no repository, not commits, the same). */
  const char *compare;
  const char *changed;   /* what of the toolchain and machine changed inside the window (kg_hist_what_changed;
                          * data: its versions come from the history), or NULL with one night only */
  kg_rm_table cells;     /* variant, dtype, n, level before, since, change; shown: the ones a box names */
  const kg_rm_bisect *bisect; /* kgate bisect's answer for it (kg_rdoc_bisect), or NULL */
} kg_rm_finding;

/* ---- the nights' verdicts ------------------------------------------------------ */

/* A night's verdict, the one every nightly printer shows (the index's headline,
 * the archive's row, the charts' night markers, `history check` and its
 * summary), worst first: FAIL (the night's checks failed or errored),
 * REGRESSION (an open regression finding covers the night: its first bad
 * night <= night), RUNNER HEALTH and ENVIRONMENT (a finding of that kind
 * holds the night between its first bad night and its alarm), else PASS. An
 * acknowledged regression accepts its cells' new level from its first bad
 * night on, so its nights pass (the archive says so). */
typedef enum kg_night_verdict {
  KG_NIGHT_FAIL,
  KG_NIGHT_REGRESSION,
  KG_NIGHT_HEALTH,
  KG_NIGHT_ENVIRONMENT,
  KG_NIGHT_PASS,
  KG_NNIGHT_VERDICTS
} kg_night_verdict;

typedef struct kg_night {
  kg_night_verdict verdict;
  /* REGRESSION: cells of the open regressions that cover it; ENVIRONMENT: cells that moved with the machine. */
  size_t cells;
  size_t acked;    /* cells of acknowledged regressions from this night on (their new level accepted) */
  const kg_finding *finding; /* the finding that decides it (the newest of its kind), or NULL: FAIL and PASS */
} kg_night;

/* "REGRESSION", "RUNNER HEALTH", ... */
const char *kg_night_verdict_name(kg_night_verdict v);
kg_severity kg_night_verdict_severity(kg_night_verdict v);

/* Every night's verdict: out[i] for h->runs[i] (h->n of them). det: the
 * detector over h, or NULL (no paired night: FAIL or PASS by the checks). */
void kg_night_verdicts(const kg_history *h, const kg_detection *det, kg_night *out);

/* Whether night i's verdict is REGRESSION because of (variant, dtype, n):
 * an open regression finding that covers the night names the cell (a chart's
 * night marker on that cell). */
int kg_night_regressed(const kg_history *h, const kg_detection *det, size_t i, const char *variant, kg_dtype dt,
                       size_t n);

/* A night as the reports say it. */
typedef struct kg_rm_night {
  kg_night v;
  const char *word;  /* kg_night_verdict_name */
  kg_severity sev;
  const char *label; /* the night's date */
  /* "2 cells slower than the reference's accepted level", "3 of 1656 cases failed or errored", ... */
  const char *why;
} kg_rm_night;

typedef struct kg_rm_findings {
  int on;              /* a detection was given */
  kg_rm_finding *find; /* in the detector's order */
  size_t n;
  size_t open;         /* open regression findings: history check fails on them */
  int exit_code;       /* history check's: KG_EXIT_PERF with an open regression finding, else KG_EXIT_OK */
  size_t runs;         /* nights in the history */
  size_t nights;       /* nights with paired cells */
  size_t nseries;      /* cells watched */
  kg_rm_item last;     /* "Last night: DATE, commit C, GPU, reference R" (no history: nparts 0) */
  kg_rm_night *night;  /* one per history run (kg_rdoc_nights), oldest first; NULL before it ran */
  /* The page's headline (kg_rdoc_nights with the doc's run and a detection; word NULL without):
   * the run's night, FAIL first when the run's own cases failed, and the open findings counted. */
  kg_rm_night page;
  kg_rm_table spans;   /* the nights as runs of one verdict and why, oldest first: nights, verdict, why */
} kg_rm_findings;

/* Cells a finding's box names before "and N more". */
enum { KG_RM_FINDING_CELLS = 6 };

/* What one case is joined to: found once, read by every printer. */
typedef struct kg_rm_case {
  const kg_cmp_row *cmp;     /* its row in the comparison, or NULL */
  const kg_pair_cell *pair;  /* its paired cell, or NULL */
  kg_perf perf;
} kg_rm_case;

/* ---- the run's verdict ------------------------------------------------------------ */

/* The run's verdict: decided here once, from the results (and, in a run,
 * what stopped it); the page, every format, the terminal and the process
 * exit of check, run, compare and report print this one. Worst first, the
 * order every printer uses. */
typedef enum kg_gate_verdict {
  KG_GATE_INCOMPLETE,  /* stopped by a signal before its end: 128 + the signal (130, 143) */
  KG_GATE_FAIL,        /* a case failed or errored, a lint finding, a cell missing (compare): exit 1 */
  KG_GATE_ENVIRONMENT, /* the environment stopped the run, or a module was not linted: exit 3 */
  KG_GATE_REFUSED,     /* an input was refused on the way (a baseline that cannot be read): exit 2 */
  KG_GATE_REGRESSION,  /* a decided SLOWER (the paired gate's; without it, the stored baseline's): exit 4 */
  KG_GATE_PASS,        /* exit 0 */
  KG_NGATE_VERDICTS
} kg_gate_verdict;

/* What the results alone cannot say: given by the command that builds the model. */
typedef struct kg_rm_gate {
  const char *baseline;    /* the baseline compared with, as the reports name it (data), or NULL: "the baseline" */
  int missing_fails;       /* compare: a cell the baseline has and the run lacks fails (unless --missing allow) */
  const char *environment; /* why the environment stopped the run (a worker could not start), or NULL */
  /* compare: NEW, as the command line names it (data), or NULL: not a comparison (no compare section) */
  const char *compared;
  /* compare: the table leaves out its SAME rows, 1 as --only-changed asks, 2 by default (on a terminal) */
  int only_changed;
  const char *refused;     /* why an input was refused on the way (the baseline), or NULL */
} kg_rm_gate;

typedef struct kg_rm_verdict {
  kg_gate_verdict v;
  const char *word; /* "PASS", "FAIL", "REGRESSION", "ENVIRONMENT", "INPUT ERROR", "INCOMPLETE" */
  kg_severity sev;
  int exit_code;    /* exitcode.h */
  kg_rm_cell why[KG_RM_MAX_PARTS]; /* the reasons, decisive first, in words ("1 lint finding; 240 cases ...") */
  size_t nwhy;
  const char *text; /* the reasons as one string, data inside: a printer escapes all of it */
  /* A failing CI test of its own carries it (a failed case, a SLOWER cell); else JUnit gets a "gate" test. */
  int tested;
} kg_rm_verdict;

/* The exit code of check, run, compare and report: the verdict's, joined
 * with what writing the outputs gave (outputs: 0, KG_EXIT_USAGE for a
 * report that could not be written, KG_EXIT_ENV for charts without
 * gnuplot). What the gate found (a failure, the environment, an input
 * refused) beats an output that failed; that beats a regression; a chart
 * that could not be drawn decides only when the gate passed. */
int kg_rm_exit_code(const kg_rm_verdict *v, int outputs);

typedef struct kg_rdoc {
  const kg_run *run;
  const kg_comparison *cmp; /* NULL: no baseline */
  int oom;                  /* a string could not be made: the printers refuse to write */

  kg_rm_verdict verdict; /* the run's: every printer's headline, and the exit code */

  kg_rm_item items[KG_RM_MAX_ITEMS]; /* the summary, in order */
  size_t nitems;
  const char *warning; /* the comparison's warning (data), or NULL */
  const char *checks;      /* "36 cases, 36 passed, 0 failed, ..." */
  const char *cold;        /* the timed cells' cold L2: "12 verified, 24 too large to tell of 36 ...", or NULL */
  const char *cold_cells;  /* the cells it could not be verified for, with why (data), or NULL */
  const char *perf_counts; /* the comparison's counts in report order, or NULL without one */

  kg_rm_lint lint;       /* the modules' lint (empty when none was linted) */
  kg_rm_compare compare; /* kgate compare's lines (on: a comparison's document) */

  kg_rm_paired paired;
  const char *regressions_title; /* "Regressions", or "Against the stored baseline (advisory)" in a paired run */
  kg_rm_table regressions;       /* SLOWER, UNKNOWN, MISSING rows of the comparison */
  kg_rm_table failed;            /* failed and errored cases, in run order */
  kg_rm_ladder *ladders;         /* per dtype, per perf size, smallest first */
  size_t nladders;

  kg_rm_case *cases; /* one per run case */
  kg_rm_test *tests; /* the suites' tests, suite after suite */
  size_t ntests;
  kg_rm_suite *suites;
  size_t nsuites;
  kg_rm_tally tally; /* over every suite */

  kg_rm_findings findings; /* kg_rdoc_findings */

  const char *const *san; /* check --sanitize: the summary, a line per variant and tool (the session's lines) */
  size_t nsan;

  struct kg_rm_pool *pool; /* the strings and arrays above */
} kg_rdoc;

/* Builds the model of run (and cmp, NULL without a baseline). 0, or -1 when
 * memory ran out (kg_rdoc_free is safe either way). */
int kg_rdoc_build(kg_rdoc *doc, const kg_run *run, const kg_comparison *cmp);
/* The same, with what the results cannot say (gate may be NULL: nothing). */
int kg_rdoc_build_gate(kg_rdoc *doc, const kg_run *run, const kg_comparison *cmp, const kg_rm_gate *gate);
void kg_rdoc_free(kg_rdoc *doc);
/* An empty model (no run): for the findings alone. 0, or -1 out of memory. */
int kg_rdoc_init(kg_rdoc *doc);
/* Adds the nightly's findings over h (det from kg_detect; repo: the
 * repository's URL for compare links, or NULL). 0, or -1 out of memory. */
int kg_rdoc_findings(kg_rdoc *doc, const kg_history *h, const kg_detection *det, const char *repo);
/* Gives kgate bisect's answer b to the findings it is of (kg_bisect_doc_of
 * over h, whose findings kg_rdoc_findings added; repo as there): none when
 * b is no answer (kg_bisect_doc_answers) or of no finding. How many
 * findings got it, or -1 out of memory. */
int kg_rdoc_bisect(kg_rdoc *doc, const kg_history *h, const kg_bisect_doc *b, const char *repo);
/* Every night's verdict in words (findings.night, findings.spans): det may be
 * NULL (a history without paired nights). kg_rdoc_findings calls it. 0, or -1
 * out of memory. */
int kg_rdoc_nights(kg_rdoc *doc, const kg_history *h, const kg_detection *det);
/* "960 cases at 10 sizes from n = 2¹² to 2²⁸ left out: the baseline holds no case of those sizes"
 * for `cases` of cmp's left-out ones (kg_comparison_common_sizes); "" for 0. */
void kg_rm_left_out(const kg_comparison *cmp, size_t cases, char *buf, size_t len);
/* The night of h a run is (its date and commit), else the latest night; h->n when h is empty. */
size_t kg_rm_night_of(const kg_history *h, const char *date, const char *commit);
/* The night of h a run is, else h->n: no other night stands in for it. */
size_t kg_rm_night_find(const kg_history *h, const char *date, const char *commit);

/* The commit a "git describe"-like name is, when it is one: 7-40 lowercase
 * hex, "-dirty" allowed after. 1 with the hex in buf, else 0. */
int kg_rm_commit_hex(const char *name, char *buf, size_t len);

/* Rows a short report (Markdown) lists before "... and N more". */
enum { KG_RM_MAX_FAILED = 50, KG_RM_MAX_PAIRS = 100 };

/* Verdict counts in the one report order (kg_verdict_rank, kg_pverdict_order):
 * "2 SLOWER, 0 UNKNOWN, ...". skip_zero: only the verdicts some cell has (a
 * chart's caption); else every one, but UNCHANGED only when a cell is. */
void kg_rm_verdict_counts(const size_t count[KG_NVERDICTS], int skip_zero, char *buf, size_t len);
void kg_rm_pverdict_counts(const size_t count[KG_NPVERDICTS], int skip_zero, char *buf, size_t len);
/* A verdict's level: SLOWER a regression, FASTER good; a paired cell without
 * a decision (UNDECIDED, UNKNOWN, MISSING) a notice; the rest plain (KG_NSEVERITIES). */
kg_severity kg_rm_verdict_severity(kg_verdict v);
kg_severity kg_rm_pverdict_severity(kg_pverdict v);
/* A paired cell without numbers in a few words (a chart's label): "only in
 * head" (NEW), "only in base" (MISSING), "same machine code, not timed"
 * (UNCHANGED), else "no numbers". */
const char *kg_rm_pverdict_brief(kg_pverdict v);

#endif
