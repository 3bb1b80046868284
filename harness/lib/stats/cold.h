/* Whether kgate's cold L2 is cold: the verdict on a card and a size from
 * reads of the case's input after kgate's L2 read flush and straight after
 * another read (harness/device/timing.c takes them). Where the input fits
 * L2, a flush that evicts makes the flushed reads slower; one that leaves
 * the input in L2 (persisting lines, a hashing L2 a flush of 2 x L2 does not
 * cover) makes them as fast as the unflushed. */
#ifndef KG_COLD_H
#define KG_COLD_H

#include <stddef.h>

#include "model.h"

/* Reads of each kind the device layer takes per card and size. */
#define KG_COLD_READS 5
/* Beyond noise: the flushed median at least this much above the unflushed
 * one, and every flushed read slower than every unflushed one (by chance
 * alone 1 in 252 for 5 against 5). From L2 a read of an input that fits
 * runs 2-3x faster than from DRAM on an H100 or H200, so 5 % is far below a
 * real flush's effect and far above the noise of a 5-read median. */
#define KG_COLD_MIN_GAP 0.05

/* Whether an input of bytes is too large to tell on a card of l2_bytes:
 * over half the L2, which on H100 and H200 is two partitions that each may
 * keep their own copy of a line read by every SM, so a larger input does
 * not stay whole in L2 even unflushed. */
int kg_cold_too_large(size_t bytes, long long l2_bytes);

/* The verdict into g (cold, cold_why, flushed_us, unflushed_us) from the
 * reads (NaN: a read set aside) of an input of bytes; hot: no flush was
 * asked for. */
void kg_cold_judge(size_t bytes, long long l2_bytes, int hot, const double *flushed, size_t nf,
                   const double *unflushed, size_t nu, kg_guard *g);

#endif
