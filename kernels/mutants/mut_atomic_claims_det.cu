// Planted bug: smem_atomic's code (one float atomicAdd per block) registered
// without KG_FLOAT_ATOMICS, i.e. claiming bit-identical float results. The
// order of the atomics varies between runs, so the repeated runs of a float
// case must differ and the determinism check must fail it.
#include "mut_common.cuh"

extern "C" int kg_run_mut_atomic_claims_det(kg_dtype dt, void *in, size_t n, void *out, void *scratch,
                                            void *stream) {
  return kg_run_smem_atomic(dt, in, n, out, scratch, stream);
}

KG_MUTANT_SAME_SHAPE(mut_atomic_claims_det, smem_atomic)
