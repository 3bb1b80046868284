// reduceUnrolling2 (CUDA Freshman 3.5, seed 001): the interleaved in-place
// reduction of seed 003, but each block first folds two data blocks: thread t
// adds d[t + B] into d[t] of its slice of 2B elements, then the interleaved
// tree runs over the first B. Half as many blocks are launched, and each
// thread issues two independent loads before the tree, which hides more
// memory latency. Cost: the fold is one more global read-modify-write pass,
// each element's chain grows by one add, and the input is destroyed.
// The code is unrolling.cuh's template at U = 2; unrolling4 and unrolling8
// change only U.
#include "unrolling.cuh"

extern "C" int kg_run_unrolling2(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return unrolling::run<2>(dt, in, n, out, scratch, stream);
}

extern "C" size_t kg_scratch_unrolling2(kg_dtype dt, size_t n) { return unrolling::scratch<2>(dt, n); }

// Each thread first chains up to 2 elements, then log2(B) tree steps.
extern "C" double kg_depth_unrolling2(size_t n) { return unrolling::depth<2>(n); }
