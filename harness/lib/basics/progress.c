#include "progress.h"

#include "label.h"

void kg_progress_init(kg_progress *p, FILE *out, int tty, double (*now)(void)) {
  *p = (kg_progress){out, tty, KG_PROGRESS_INTERVAL_S, now ? now : kg_now_s, 0, 0, -1, "run", 0, 1, ""};
  p->t0 = p->phase_t0 = p->now();
}

void kg_progress_phase_held(kg_progress *p, const char *phase, const char *detail) {
  snprintf(p->phase, sizeof p->phase, "%s", phase);
  snprintf(p->held, sizeof p->held, "kgate: %s%s%s\n", phase, detail ? ": " : "", detail ? detail : "");
  p->phase_t0 = p->now();
  p->last = p->phase_t0 - 1; /* no count line yet */
  p->failed = 0;
  p->counts = 1;
}

void kg_progress_start(kg_progress *p) {
  if (!p->held[0]) return;
  p->phase_t0 = p->now();
  p->last = p->phase_t0 - 1;
  if (p->out && !p->tty) fputs(p->held, p->out), fflush(p->out);
  p->held[0] = '\0';
}

void kg_progress_phase(kg_progress *p, const char *phase, const char *detail) {
  kg_progress_phase_held(p, phase, detail);
  kg_progress_start(p);
}

void kg_progress_case(kg_progress *p, size_t done, size_t total, const char *label, int failed) {
  if (failed) p->failed++;
  if (!p->out) return;
  double t = p->now();
  if (p->tty) {
    fprintf(p->out, "\r\033[K[%zu/%zu %.0f s] %s", done, total, t - p->t0, label);
    if (done == total) fputs("\r\033[K", p->out);
  } else if (!p->counts) {
    return;
  } else if (done == total) {
    fprintf(p->out, "kgate: %s: done, %zu cases, %zu failed, in %.0f s\n", p->phase, total, p->failed,
            t - p->phase_t0);
  } else if (t - p->phase_t0 >= p->interval_s && (p->last < p->phase_t0 || t - p->last >= p->interval_s)) {
    /* The rate so far in this phase; cases differ in cost, so it is an estimate. */
    double elapsed = t - p->phase_t0;
    char eta[32] = "unknown";
    if (done) snprintf(eta, sizeof eta, "%.0f s", elapsed / (double)done * (double)(total - done));
    fprintf(p->out, "kgate: %s: %zu/%zu cases, %zu failed, %.0f s, ETA %s\n", p->phase, done, total, p->failed,
            elapsed, eta);
    p->last = t;
  } else {
    return;
  }
  fflush(p->out);
}

void kg_progress_clear(const kg_progress *p) {
  if (p->out && p->tty) fputs("\r\033[K", p->out);
}
