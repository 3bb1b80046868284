/* Small shared helpers of the commands and the pages: the labels people
 * read (a date, a byte count) and the monotonic clock. */
#ifndef KG_LABEL_H
#define KG_LABEL_H

#include <stddef.h>

/* "2026-11-21T08:52:25Z" -> "2026-11-21 08:52 UTC"; anything else as it is
 * ("unknown date" when empty). */
void kg_date_label(const char *iso, char *buf, size_t len);
/* 1536 -> "1.5 KiB": binary units up to TiB, four significant digits. */
void kg_bytes_label(double bytes, char *buf, size_t len);
/* Seconds on the monotonic clock: for durations only. */
double kg_now_s(void);

#endif
