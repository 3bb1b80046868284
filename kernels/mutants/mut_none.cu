// No bug: the A/A control of the paired gate. It runs reduce7_shuffle's own
// code, so pairing it with reduce7_shuffle compares a kernel with itself and
// the paired verdict must be SAME.
#include "mut_common.cuh"

extern "C" int kg_run_mut_none(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  return kg_run_reduce7_shuffle(dt, in, n, out, scratch, stream);
}

KG_MUTANT_SAME_SHAPE(mut_none, reduce7_shuffle)
