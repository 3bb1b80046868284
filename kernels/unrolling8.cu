// reduceUnrolling8 (CUDA Freshman 3.5, seed 001): unrolling4 with eight data
// blocks per block: thread t sums the eight words t + kB (k < 8) of its 8B
// slice into d[t] before the interleaved tree over the first B. An eighth of
// the blocks, eight independent loads in flight per thread, which is where
// the article's big jump comes from. Cost: seven sequential adds per element
// before the tree, fewer blocks to spread over the SMs for small n, and the
// input is destroyed.
// The code is unrolling.cuh's template at U = 8.
#include "unrolling.cuh"

extern "C" int kg_run_unrolling8(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return unrolling::run<8>(dt, in, n, out, scratch, stream);
}

extern "C" size_t kg_scratch_unrolling8(kg_dtype dt, size_t n) { return unrolling::scratch<8>(dt, n); }

// Each thread first chains up to 8 elements, then log2(B) tree steps.
extern "C" double kg_depth_unrolling8(size_t n) { return unrolling::depth<8>(n); }
