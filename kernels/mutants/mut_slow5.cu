// Planted bug: a performance regression. reduce7_shuffle, then one more
// streaming read of the first n/25 elements (4 % more traffic plus a launch):
// about 5 % slower at 2^26 f32, which is beyond the 3 % tolerance for inputs
// over 64 MiB. Selftest times reduce7_shuffle and this mutant in one run and
// the comparison must say SLOWER.
#include "mut_common.cuh"

extern "C" int kg_run_mut_slow5(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) {
  int rc = kg_run_reduce7_shuffle(dt, in, n, out, scratch, stream);
  if (rc) return rc;
  static const size_t sizes[KG_NDTYPES] = {4, 8, 4, 8, 2, 2};
  size_t extra = (n / 25 * sizes[dt]) & ~(size_t)15;  // kg_dev_read wants whole 16-byte words
  return extra ? kg_dev_read(in, extra, stream) : 0;
}

KG_MUTANT_SAME_SHAPE(mut_slow5, reduce7_shuffle)
