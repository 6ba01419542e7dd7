/*-------------------------------------------------------------------------
 *
 * radix.h
 *	  Sorting tuples on their normalized first keys alone.
 *
 * SrmRadixSort orders SrmTuple arrays by (NULL rank, normalized key) and
 * nothing else, without a comparator.  Tuples whose normalized keys tie may
 * need the full comparison; SrmRadixFixTies applies it.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/keys/radix.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_RADIX_H
#define SRM_RADIX_H

#include "keys/keys.h"

/*
 * Sort a[0..n) by (nrank, datum1); checks for interrupts.  False when a[]
 * was strictly ascending already: no equal keys for SrmRadixFixTies.
 * scratch[0..nscratch) is room the sort may overwrite: buckets that fit in
 * it are sorted out of place (nscratch >= n: the whole sort).
 */
extern bool SrmRadixSort(SrmTuple *a, int64 n, SrmTuple *scratch,
						 int64 nscratch);

/* Order the groups of equal (nrank, datum1) of a sorted a[0..n). */
extern void SrmRadixFixTies(SrmTuple *a, int64 n, SrmKeys *keys);

#endif							/* SRM_RADIX_H */
