#include "nvml.h"

#include <dlfcn.h>
#include <stdlib.h>

/* The few NVML entry points used, by their documented C signatures. */
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_by_pci_fn)(const char *, void **);
typedef int (*nvml_clock_fn)(void *, int, unsigned *);
typedef int (*nvml_reasons_fn)(void *, unsigned long long *);
typedef int (*nvml_shutdown_fn)(void);

enum { NVML_CLOCK_SM = 1 };
/* SW power cap, HW slowdown, SW thermal, HW thermal, HW power brake. Idle,
 * application-clock settings and sync boost are not throttling. */
static const unsigned long long k_throttle_mask = 0x4ull | 0x8ull | 0x20ull | 0x40ull | 0x80ull;

struct kg_nvml {
  void *lib;
  void *dev;
  nvml_clock_fn clock;
  nvml_reasons_fn reasons;
  nvml_shutdown_fn shutdown;
};

kg_nvml *kg_nvml_open(const char *pci_bus_id) {
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return NULL;
  kg_nvml *n = calloc(1, sizeof *n);
  nvml_init_fn init = (nvml_init_fn)dlsym(lib, "nvmlInit_v2");
  nvml_by_pci_fn by_pci = (nvml_by_pci_fn)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
  if (n) {
    n->lib = lib;
    n->clock = (nvml_clock_fn)dlsym(lib, "nvmlDeviceGetClockInfo");
    n->reasons = (nvml_reasons_fn)dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!n->reasons) n->reasons = (nvml_reasons_fn)dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    n->shutdown = (nvml_shutdown_fn)dlsym(lib, "nvmlShutdown");
  }
  if (!n || !init || !by_pci || !n->clock || !n->reasons || !n->shutdown || init() != 0) {
    free(n);
    dlclose(lib);
    return NULL;
  }
  if (by_pci(pci_bus_id, &n->dev) != 0) {
    n->shutdown();
    free(n);
    dlclose(lib);
    return NULL;
  }
  return n;
}

int kg_nvml_read(kg_nvml *n, unsigned *sm_mhz, int *throttled) {
  unsigned long long r = 0;
  if (!n || n->clock(n->dev, NVML_CLOCK_SM, sm_mhz) != 0 || n->reasons(n->dev, &r) != 0) return -1;
  *throttled = (r & k_throttle_mask) != 0;
  return 0;
}

void kg_nvml_close(kg_nvml *n) {
  if (!n) return;
  n->shutdown();
  dlclose(n->lib);
  free(n);
}
