#include "label.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

void kg_date_label(const char *iso, char *buf, size_t len) {
  if (strlen(iso) >= 16 && iso[10] == 'T') snprintf(buf, len, "%.10s %.5s UTC", iso, iso + 11);
  else snprintf(buf, len, "%s", iso[0] ? iso : "unknown date");
}

void kg_bytes_label(double bytes, char *buf, size_t len) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, u++;
  snprintf(buf, len, "%.4g %s", bytes, unit[u]);
}

double kg_now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
