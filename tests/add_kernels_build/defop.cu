// my_gridsum through KGATE_DEFINE_VARIANT, with a .def whose op is no op:
// the build must stop at that .def line, naming the words op may be.
#include "define_body.cuh"

KGATE_DEFINE_VARIANT(my_gridsum, launch, scratch, depth)
