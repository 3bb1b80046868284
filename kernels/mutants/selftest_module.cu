// libkgate_selftest.so: the planted bugs of mutants.def as a kernel module of
// their own, which only `kgate selftest` loads (kernels/module.cu).
#define KGATE_REGISTRY "mutants/selftest.def"
#define KGATE_MODULE_NAME "kgate_selftest"
#include "../module.cu"
