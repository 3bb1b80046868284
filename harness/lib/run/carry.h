/* Checks carried over: a run proves, group by group (checkrec.h), that it
 * would run what a baseline's passing check already ran, and does not run
 * those cases again. The proof is one untimed probe of each group's head
 * call in fresh workers (device/launches.h, the unchanged proof's capture,
 * pointers by offset into kgate's buffers), then the machine code of the
 * kernels it launches (unchanged.h); the record's key (kgate's own check
 * code, architecture, seed, repeats) must match too. What it cannot see is
 * what the unchanged proof cannot see (docs/timing-and-verdicts.md), plus
 * nondeterminism: a case that passed once by luck is carried as passed. */
#ifndef KG_CARRY_H
#define KG_CARRY_H

#include <stddef.h>
#include <stdio.h>

#include "checkrec.h"
#include "results.h"
#include "supervisor.h"
#include "unchanged.h"

/* One probe per group of a run's plan: its job and the worker's answer. */
typedef struct kg_carry_probes {
  size_t n;
  kg_case *jobs;      /* malloc'ed: the group's (variant, dtype, n) */
  kg_result *res;     /* malloc'ed: res[i] answers jobs[i] */
  unsigned *patterns; /* malloc'ed: bit p set when the group holds the supported case of pattern p */
} kg_carry_probes;

/* Probes every group of run's plan (its supported cases of at least
 * KG_CARRY_MIN_N elements, one job per variant, dtype and n) in fresh
 * workers on devs; devinfo (ndev entries) gets their hellos. 0, or the
 * supervisor's -1/-2/-3 with err. */
int kg_carry_probe(const kg_run *run, const kg_run_params *rp, const kg_super_opts *so, const kg_super_dev *devs,
                   size_t ndev, kg_device_info *devinfo, kg_carry_probes *out, char *err, size_t errlen);

/* run->check from the probes: the key (harness: this kgate's
 * KG_HARNESS_SHA256; arch: the devices'; seed and repeats from rp) and every
 * group whose call was described and whose kernels' machine code head
 * holds, with its digest (kg_code_digest). */
void kg_carry_record(kg_run *run, const kg_carry_probes *p, const kg_code_table *head, const char *harness, int arch,
                     const kg_run_params *rp);
void kg_carry_probes_free(kg_carry_probes *p);

/* Carries over the cases of run's groups that rec (a baseline's record,
 * read from the file from) covers (kg_crec_carries): those the check would
 * be sent untimed (sent[i].timed 0: a case timed in the check pass is run)
 * become PASS, carried, with the evidence as message; their groups are
 * marked carried and run->check.from is set. log (NULL: none) gets a line
 * per variant that rec has groups of and that is checked after all, saying
 * why for its first group. Returns the cases carried. */
size_t kg_carry_apply(kg_run *run, const kg_case *sent, const kg_crec *rec, const char *from, FILE *log);

#endif
