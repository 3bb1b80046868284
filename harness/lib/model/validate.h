/* A run about to be written where others will read it (a history line, a
 * baseline) is checked whole first: a line no reader accepts would wedge
 * every later reader. The field rules are fields.h's; a timing's is
 * model.h's (kg_timing_check). */
#ifndef KG_VALIDATE_H
#define KG_VALIDATE_H

#include <stddef.h>

#include "results.h"

/* A run about to be written where others will read it (a history line, a
 * baseline): its date, commit, version and GPU name, its toolchain, and the
 * timing of every case it timed. 0, or -1 with "run.date: ..." or
 * "cases[3] (cub_sum f32 33554432 uniform): ..." in why. */
int kg_run_check(const kg_run *run, char *why, size_t len);

#endif
