/* The SM clock and throttle state through NVML, loaded at run time with
 * dlopen: no build dependency, and silently absent where the library is. */
#ifndef KG_NVML_H
#define KG_NVML_H

typedef struct kg_nvml kg_nvml;

/* Opens NVML for the device with this PCI bus id ("0000:3b:00.0"); NULL when unavailable. */
kg_nvml *kg_nvml_open(const char *pci_bus_id);
/* Reads the SM clock (MHz) and whether a clock-lowering reason (power cap,
 * thermal or hardware slowdown) is active. 0, or -1 when the read fails. */
int kg_nvml_read(kg_nvml *n, unsigned *sm_mhz, int *throttled);
void kg_nvml_close(kg_nvml *n);

#endif
