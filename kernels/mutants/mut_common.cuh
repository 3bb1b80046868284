// Shared by the mutants: the real variants' plain C entry points (kernels.h)
// and the dtype dispatch of the real kernels. A mutant is a copy of its base
// variant with one bug planted; its scratch and depth are the base's.
#pragma once

#include "../common.cuh"

#define KG_MUTANT_SAME_SHAPE(name, base)                                                    \
  extern "C" size_t kg_scratch_##name(kg_dtype dt, size_t n) { return kg_scratch_##base(dt, n); } \
  extern "C" double kg_depth_##name(size_t n) { return kg_depth_##base(n); }

// Runs a one-kernel-per-level tree (reduce2's shape) on the mutant kernel K.
#define KG_MUTANT_TREE_RUN(name, K, per_block, threads) KG_TREE_RUN(name, K, per_block, threads)
