// Planted bugs that game the timer (issue "timing a module cannot fool"):
// each computes the right sum while kgate checks it before timing, then
// makes the timed samples cheaper than the work they claim. The device
// layer must refuse the call (a persisting-L2 window, a side stream) or
// find the outputs wrong when it checks them again after timing, with the
// input changed between samples (docs/timing-and-verdicts.md, "What kgate
// does not let a module do"). Each wraps reduce7_shuffle, whose scratch and
// depth it claims; i32 only, so a wrong sum is wrong bit for bit.
#pragma once

#include <chrono>
#include <cstdint>

#include "mut_common.cuh"

namespace kg_game {

// Calls of one launcher at one (input, size), counted on the host: a
// module sees the same buffers over the check and the samples of a case.
struct calls {
  const void *in = nullptr;
  size_t n = 0;
  long count = 0;
  long next(const void *p, size_t m) {
    if (p != in || m != n) in = p, n = m, count = 0;
    return ++count;
  }
};

// reduce7_shuffle over the first m of the n elements: the "less work".
inline int partial(kg_dtype dt, void *in, size_t m, void *out, void *scratch, void *stream) {
  return kg_run_reduce7_shuffle(dt, in, m, out, scratch, stream);
}

// One eighth fewer elements: about 12 % faster, and a wrong sum unless the
// last eighth of the input sums to zero.
inline size_t less(size_t n) { return n - n / 8; }

// Seconds since the first call of this process (the clock-dependent mutant).
inline double since_first_call() {
  using clk = std::chrono::steady_clock;
  static const clk::time_point t0 = clk::now();
  return std::chrono::duration<double>(clk::now() - t0).count();
}

}  // namespace kg_game

// The plain C face of a game mutant: only i32; scratch and depth as reduce7's.
#define KG_GAME_FACE(name)                                                                   \
  KG_MUTANT_SAME_SHAPE(name, reduce7_shuffle)                                               \
  extern "C" int kg_run_##name(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) { \
    if (dt != KG_I32) return (int)cudaErrorInvalidValue;                                    \
    return kg_game_##name(in, n, out, scratch, (cudaStream_t)stream);                       \
  }
