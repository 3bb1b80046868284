/* The measured roofline of each card, kept between runs in kgate's cache
 * folder (fileio.h: kg_cache_path, beside the references) as roofline.txt, a
 * line per card:
 *
 *   kgate-roofline 1 <uuid> <driver version> <memory clock kHz> <GB/s> <unix time>
 *
 * A line is used for a week, and only for the card (UUID), driver and memory
 * clock that measured it: a driver or clock change, or a line older than a
 * week, is measured again. A line that does not parse, or holds a value that
 * cannot be true (GB/s above the card's theoretical peak, a time in the
 * future), is never used and is dropped at the next write. The file is
 * written whole through a rename; two runs writing at once lose at most one
 * card's line, which the next run measures again. */
#ifndef KG_ROOFCACHE_H
#define KG_ROOFCACHE_H

#include <stddef.h>

#include "model.h"

#define KG_ROOFCACHE_FILE "roofline.txt"
#define KG_ROOFCACHE_MAX_AGE_S (7 * 86400.0)

/* The cached roofline of card d at unix time now into *gbps: 1, or 0 when
 * there is none to use (no file, no line for the card, stale, malformed). */
int kg_roofcache_get(const char *path, const kg_device_info *d, double now, double *gbps);

/* Keeps gbps for card d (replacing its line, dropping malformed ones). 0, or
 * -1 with err (the folder or file cannot be written). */
int kg_roofcache_put(const char *path, const kg_device_info *d, double gbps, double now, char *err, size_t errlen);

#endif
