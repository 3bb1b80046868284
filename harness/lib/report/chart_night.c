/* The nights of a history chart, their verdicts and their x axis (chart_night.h). */
#include "chart_night.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "label.h"

int kg__nights_open(kg__trend *t, const kg__job *job, int (*keep)(const kg_history *h, size_t j)) {
  const kg_history *h = job->src->history;
  memset(t, 0, sizeof *t);
  t->h = h;
  t->det = job->src->detect;
  t->runs = malloc((h->n + 1) * sizeof *t->runs);
  t->nights = malloc((h->n ? h->n : 1) * sizeof *t->nights);
  if (!t->runs || !t->nights) {
    kg__nights_free(t);
    return kg__oom(job);
  }
  for (size_t j = 0; j < h->n; j++)
    if (keep(h, j)) t->runs[t->nruns++] = j;
  kg_night_verdicts(h, t->det, t->nights);
  return 0;
}

void kg__nights_free(kg__trend *t) {
  free(t->runs);
  free(t->nights);
  t->runs = NULL, t->nights = NULL;
}

void kg__dat_verdict(FILE *f, const kg__trend *t, size_t run) {
  fprintf(f, " \"%s\"", kg_night_verdict_name(t->nights[run].verdict));
}

void kg__night_tip(FILE *f, const kg__trend *t, size_t run, const char *what, const char *value) {
  const kg_hist_run *r = &t->h->runs[run];
  char date[48];
  kg_date_label(r->date, date, sizeof date);
  kg__dat_tip(f, "%s\n%s\nnight of %s, commit %s: %s", what, value, date, r->commit[0] ? r->commit : "unknown",
              kg_night_verdict_name(t->nights[run].verdict));
}

/* Tick labels for runs: the shortest of MM-DD, MM-DD HH:MM and MM-DD
 * HH:MM:SS that tells neighbouring runs apart. */
static void run_label(const kg_hist_run *r, int precision, char *buf, size_t len) {
  const char *d = r->date;
  if (strlen(d) < 19 || d[10] != 'T') snprintf(buf, len, "%.16s", d);
  else if (precision == 0) snprintf(buf, len, "%.5s", d + 5);
  else if (precision == 1) snprintf(buf, len, "%.5s %.5s", d + 5, d + 11);
  else snprintf(buf, len, "%.5s %.8s", d + 5, d + 11);
}

void kg__trend_xtics(FILE *g, const kg__trend *t) {
  const kg_history *h = t->h;
  int precision = 0;
  for (; precision < 2; precision++) {
    int clash = 0;
    for (size_t j = 1; j < t->nruns && !clash; j++) {
      char a[32], b2[32];
      run_label(&h->runs[t->runs[j - 1]], precision, a, sizeof a);
      run_label(&h->runs[t->runs[j]], precision, b2, sizeof b2);
      clash = !strcmp(a, b2);
    }
    if (!clash) break;
  }
  size_t every = (t->nruns + 4) / 5;
  kg__tics xtics = {g, "x", 0};
  for (size_t j = 0; j < t->nruns; j += every) {
    char a[32];
    run_label(&h->runs[t->runs[j]], precision, a, sizeof a);
    char *time = strchr(a, ' ');
    if (time) *time++ = '\0';
    kg__tic_add(&xtics, a, time ? time : "", (double)(j + 1)); /* trend.gp puts the time under the date */
  }
  kg__tics_end(&xtics);
}
