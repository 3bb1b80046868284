// reduceUnrolling4 (CUDA Freshman 3.5, seed 001): unrolling2 with four data
// blocks per block: thread t sums d[t], d[t + B], d[t + 2B], d[t + 3B] of its
// 4B slice into d[t] before the interleaved tree over the first B. A quarter
// of the blocks, and four independent loads in flight per thread. Cost: the
// chain through each element grows to three adds before the tree, a block
// now waits on four loads, and the input is destroyed.
// The code is unrolling.cuh's template at U = 4.
#include "unrolling.cuh"

extern "C" int kg_run_unrolling4(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return unrolling::run<4>(dt, in, n, out, scratch, stream);
}

extern "C" size_t kg_scratch_unrolling4(kg_dtype dt, size_t n) { return unrolling::scratch<4>(dt, n); }

// Each thread first chains up to 4 elements, then log2(B) tree steps.
extern "C" double kg_depth_unrolling4(size_t n) { return unrolling::depth<4>(n); }
