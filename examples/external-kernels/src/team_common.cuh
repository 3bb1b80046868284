// The launch shape both of the team's variants share (kgate/dispatch.cuh has
// the dtype dispatch and accumulator types). The grid has a fixed cap rather
// than a multiple of the SM count, so that kg_depth_*, which kgate calls
// without a device, knows exactly how many additions an element goes through.
#pragma once

#include <kgate/dispatch.cuh>

namespace team {

constexpr unsigned kBlock = 256;     // threads per block: 8 warps
constexpr size_t kMaxGrid = 1024;    // blocks at most: about 2 waves of an H100
constexpr unsigned kFull = 0xffffffffu;

inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

// One block per kBlock elements, at most kMaxGrid, at least one (n = 0 still
// writes the identity).
inline size_t grid_for(size_t n) {
  size_t g = ceil_div(n, kBlock);
  return g < 1 ? 1 : (g < kMaxGrid ? g : kMaxGrid);
}

// One accumulator per block when there is more than one block.
inline size_t scratch(int dtype, size_t n) {
  size_t g = grid_for(n);
  return g > 1 ? g * kgate::acc_size(dtype) : 0;
}

// The longest chain of combines: a thread's own elements (one each, from the
// identity), then 5 shuffle steps and 3 over the warps (log2 of 256), and the
// same again over the partials in the second launch.
inline double depth(size_t n) {
  size_t g = grid_for(n);
  double h = (double)ceil_div(n, (size_t)kBlock * g) + 8;
  if (g > 1) h += (double)ceil_div(g, kBlock) + 8;
  return h;
}

}  // namespace team
