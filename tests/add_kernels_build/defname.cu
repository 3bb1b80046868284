// KGATE_DEFINE_VARIANT names my_grid_sum, the .def line my_gridsum: the
// build must stop at the macro with a message naming it and the .def file,
// not at "identifier kgate_dtypes_my_grid_sum is undefined".
#include "define_body.cuh"

KGATE_DEFINE_VARIANT(my_grid_sum, launch, scratch, depth)
