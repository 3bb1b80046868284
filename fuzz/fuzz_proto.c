/* libFuzzer target: the supervisor-worker line protocol (harness/lib/run/proto.c).
 * The input is one line; every decoder reads it. Where a decoder accepts it,
 * the values must survive a round trip: encoding them and decoding the
 * encoding gives the same values. A value a decoder accepts but its encoder
 * cannot write (NULL) or writes differently is reported and aborts, so it
 * shows as a crash with the input saved. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

static void mismatch(const char *what, const char *line, const char *again) {
  fprintf(stderr, "fuzz_proto: %s\n  line:   %s\n  again:  %s\n", what, line, again ? again : "(encoder returned NULL)");
  abort();
}

/* Doubles compare by their bits: the encoders write 17 significant digits, so
 * even the sign of a zero must come back. */
static int same_real(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

typedef struct decoded_case {
  size_t index;
  kg_case c;
  kg_run_params p;
  int exact;
} decoded_case;

static int same_case(const decoded_case *a, const decoded_case *b) {
  const kg_time_opts *s = &a->p.time, *t = &b->p.time;
  return a->index == b->index && a->c.variant == b->c.variant && a->c.dtype == b->c.dtype && a->c.n == b->c.n &&
         a->c.pattern == b->c.pattern && a->c.supported == b->c.supported && a->c.timed == b->c.timed &&
         a->p.seed == b->p.seed && a->p.repeats == b->p.repeats && a->exact == b->exact && s->hot == t->hot &&
         same_real(s->max_noise, t->max_noise) && s->min_samples == t->min_samples &&
         same_real(s->max_seconds, t->max_seconds);
}

static void case_round_trip(const char *line) {
  decoded_case a = {.exact = 0}, b, plain;
  char err[256];
  int rc = kg_proto_decode_case_exact(line, &a.index, &a.c, &a.p, &a.exact, err, sizeof err);
  /* The plain decoder is the exact one without the flag: same verdict, same values. */
  int rc_plain = kg_proto_decode_case(line, &plain.index, &plain.c, &plain.p, err, sizeof err);
  plain.exact = a.exact;
  if (rc != rc_plain || (rc == 0 && !same_case(&a, &plain)))
    mismatch("kg_proto_decode_case and _exact disagree", line, line);
  if (rc) return;
  char *again = kg_proto_encode_case_exact(a.index, &a.c, &a.p, a.exact);
  if (!again) mismatch("case: a decoded case does not encode", line, NULL);
  if (kg_proto_decode_case_exact(again, &b.index, &b.c, &b.p, &b.exact, err, sizeof err))
    mismatch("case: its own encoding does not decode", line, again);
  if (!same_case(&a, &b)) mismatch("case: values changed on the round trip", line, again);
  free(again);
}

static int same_result(size_t ia, const kg_result *a, int ra, size_t ib, const kg_result *b, int rb) {
  const kg_timing *s = &a->timing, *t = &b->timing;
  /* samples == 0 means "not timed": the encoder leaves the timing out, so the
   * other timing fields are not part of the value then. */
  int timing = s->samples == t->samples &&
               (s->samples == 0 ||
                (same_real(s->median_us, t->median_us) && same_real(s->q1_us, t->q1_us) &&
                 same_real(s->q3_us, t->q3_us) && same_real(s->min_us, t->min_us) && same_real(s->noise, t->noise) &&
                 same_real(s->graph_us, t->graph_us) && same_real(s->sm_clock_mhz, t->sm_clock_mhz) &&
                 s->throttled == t->throttled));
  return timing && ia == ib && ra == rb && a->status == b->status && !strcmp(a->got, b->got) &&
         !strcmp(a->expected, b->expected) && same_real(a->abs_err, b->abs_err) && same_real(a->bound, b->bound) &&
         same_real(a->ratio, b->ratio) && same_real(a->depth, b->depth) && a->repeats == b->repeats &&
         a->nondeterministic == b->nondeterministic && a->input_modified == b->input_modified &&
         !strcmp(a->message, b->message) && a->device == b->device && a->pair_wrong == b->pair_wrong;
}

static void result_round_trip(const char *line) {
  size_t ia, ib;
  kg_result a, b;
  int ra, rb;
  char err[256];
  if (kg_proto_decode_result(line, &ia, &a, &ra, err, sizeof err)) return;
  char *again = kg_proto_encode_result(ia, &a, ra);
  if (!again) mismatch("result: a decoded result does not encode", line, NULL);
  if (kg_proto_decode_result(again, &ib, &b, &rb, err, sizeof err))
    mismatch("result: its own encoding does not decode", line, again);
  if (!same_result(ia, &a, ra, ib, &b, rb)) mismatch("result: values changed on the round trip", line, again);
  free(again);
}

static int same_device(const kg_device_info *a, const kg_device_info *b) {
  return !strcmp(a->name, b->name) && a->cc_major == b->cc_major && a->cc_minor == b->cc_minor && a->sms == b->sms &&
         a->l2_bytes == b->l2_bytes && a->mem_bytes == b->mem_bytes && a->driver_version == b->driver_version &&
         a->runtime_version == b->runtime_version && a->mem_clock_khz == b->mem_clock_khz &&
         a->bus_width_bits == b->bus_width_bits && same_real(a->peak_gbps, b->peak_gbps) &&
         same_real(a->roofline_gbps, b->roofline_gbps) && a->count == b->count;
}

static void hello_round_trip(const char *line) {
  kg_device_info a, b;
  char err[256], err2[256];
  int rc = kg_proto_decode_hello(line, &a, err, sizeof err);
  if (rc < 0) return;
  char *again = rc == 0 ? kg_proto_encode_hello(&a) : kg_proto_encode_fatal(err);
  if (!again) mismatch(rc == 0 ? "hello: a decoded hello does not encode" : "fatal: a decoded reason does not encode",
                       line, NULL);
  int rc2 = kg_proto_decode_hello(again, &b, err2, sizeof err2);
  if (rc2 != rc) mismatch("hello/fatal: its own encoding decodes as something else", line, again);
  if (rc == 0 ? !same_device(&a, &b) : strcmp(err, err2) != 0)
    mismatch("hello/fatal: values changed on the round trip", line, again);
  free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *line = malloc(size + 1);
  if (!line) return 0;
  memcpy(line, data, size);
  line[size] = '\0'; /* a NUL inside ends the line early: the decoders take C strings */
  case_round_trip(line);
  result_round_trip(line);
  hello_round_trip(line);
  free(line);
  return 0;
}
