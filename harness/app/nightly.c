/* history check (nightly.h). */
#include "nightly.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "detect.h"
#include "exitcode.h"
#include "export.h"
#include "fileio.h"
#include "publish.h"
#include "refpin.h"
#include "replay.h"
#include "report.h"

static void summary_fill(FILE *f, const void *doc) { kg_print_nightly_markdown(f, doc); }

int kg_nightly_check(const kg_nightly_opts *o) {
  char err[1024];
  kg_history h;
  if (kg_history_read(o->history, &h, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  kg_acks acks = {0};
  if (o->ack && kg_acks_read(o->ack, &acks, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    kg_history_free(&h);
    return KG_EXIT_USAGE;
  }
  kg_detect_opts opts = kg_detect_defaults();
  kg_detection d;
  int code = KG_EXIT_ENV;
  if (kg_detect(&h, &acks, &opts, &d)) {
    fprintf(stderr, "kgate: out of memory\n");
  } else {
    char repo[256];
    kg_publish_repo_url(repo, sizeof repo);
    kg_rdoc doc;
    if (kg_rdoc_init(&doc) || kg_rdoc_findings(&doc, &h, &d, repo)) {
      fprintf(stderr, "kgate: out of memory\n");
    } else {
      kg_report_findings(stdout, &doc);
      code = doc.findings.exit_code;
      if (o->summary && kg_out_write(o->summary, summary_fill, &doc, err, sizeof err)) {
        fprintf(stderr, "kgate: %s\n", err);
        code = KG_EXIT_USAGE;
      }
    }
    kg_rdoc_free(&doc);
    kg_detection_free(&d);
  }
  kg_acks_free(&acks);
  kg_history_free(&h);
  return code;
}

/* The replay at the recorded noise, then the aim and the false alarms as
 * if each night had more paired rounds: a night's spread shrinks as
 * 1 / sqrt(rounds) (docs/nightly.md), so each cell's distance from its
 * median night is scaled by sqrt(recorded / R). */
int kg_nightly_calibrate(const char *nights, unsigned long long seed) {
  static const int k_rounds[] = {8, 16, 32};
  char err[1024];
  kg_history h;
  if (kg_history_read(nights, &h, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  kg_replay_opts o = kg_replay_defaults();
  o.seed = seed;
  static kg_replay_result r;
  int code = KG_EXIT_OK, recorded = h.n ? h.runs[0].paired.rounds : 0;
  if (kg_replay(&h, &o, &r, err, sizeof err)) {
    fprintf(stderr, "kgate: %s: %s\n", nights, err);
    kg_history_free(&h);
    return KG_EXIT_USAGE;
  }
  kg_replay_markdown(stdout, &o, &r);
  printf("\nAt more rounds a night (each cell's spread scaled by sqrt(%d / R); %d series of %d nights for the false "
         "alarms, %d plants at the aim):\n\n| rounds | scale | size | plants x cells | P flagged within %d nights | "
         "cells with P >= 0.95 | false alarms per %d nights |\n|---:|---:|---:|---:|---:|---:|---:|\n",
         recorded, o.series / 2, o.nights, o.plants / 2, o.within, o.nights);
  kg_replay_aim_markdown(stdout, recorded, &o, &r);
  for (size_t i = 0; recorded > 0 && i < sizeof k_rounds / sizeof k_rounds[0]; i++) {
    kg_replay_opts m = o;
    m.aim_only = 1, m.series = o.series / 2, m.plants = o.plants / 2, m.scale = sqrt((double)recorded / k_rounds[i]);
    if (kg_replay(&h, &m, &r, err, sizeof err)) {
      fprintf(stderr, "kgate: %s: %s\n", nights, err);
      code = KG_EXIT_USAGE;
      break;
    }
    kg_replay_aim_markdown(stdout, k_rounds[i], &m, &r);
  }
  kg_history_free(&h);
  return code;
}

int kg_nightly_verify(const char *pins, const char *module) {
  char err[1024], sha[65];
  kg_pins p;
  if (kg_pins_read(pins, &p, err, sizeof err) || kg_sha256_file(module, sha, err, sizeof err)) {
    fprintf(stderr, "kgate: %s\n", err);
    return KG_EXIT_USAGE;
  }
  for (size_t i = 0; i < p.n; i++)
    if (!strcmp(p.pins[i].sha256, sha)) {
      printf("kgate: %s is the pinned reference of module '%s' (commit %s, nvcc %s, %s, pinned %s)\n", module,
             p.pins[i].module, p.pins[i].commit, p.pins[i].nvcc, p.pins[i].architectures, p.pins[i].pinned);
      return KG_EXIT_OK;
    }
  fprintf(stderr, "kgate: %s: sha256 %.12s is not pinned in %s\n", module, sha, pins);
  return KG_EXIT_USAGE;
}
