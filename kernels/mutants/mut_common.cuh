// Shared by the mutants: the real variants' plain C entry points (kernels.h)
// and the dtype dispatch of the real kernels. A mutant is a copy of its base
// variant with one bug planted; its scratch and depth are the base's.
#pragma once

#include "../common.cuh"

#define KG_MUTANT_SAME_SHAPE(name, base)                                                    \
  extern "C" size_t kg_scratch_##name(kg_dtype dt, size_t n) { return kg_scratch_##base(dt, n); } \
  extern "C" double kg_depth_##name(size_t n) { return kg_depth_##base(n); }

// Runs a one-kernel-per-level tree (reduce2's shape) on the mutant kernel K.
#define KG_MUTANT_TREE_RUN(name, K, per_block, threads)                                              \
  extern "C" int kg_run_##name(kg_dtype dt, void *in, size_t n, void *out, void *scratch, void *stream) { \
    cudaStream_t st = (cudaStream_t)stream;                                                          \
    return kg::dispatch(dt, [&](auto tag) {                                                          \
      using T = typename decltype(tag)::type;                                                        \
      using A = kg::acc_t<T>;                                                                        \
      return kg::tree<A>((const T *)in, n, (A *)out, (A *)scratch, per_block,                        \
                         [st](auto *src, A *dst, size_t count, size_t blocks) {                      \
                           using In = std::remove_const_t<std::remove_pointer_t<decltype(src)>>;     \
                           K<In, A><<<(unsigned)blocks, threads, 0, st>>>(src, dst, count);          \
                         });                                                                         \
    });                                                                                              \
  }
