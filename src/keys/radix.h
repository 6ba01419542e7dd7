/*-------------------------------------------------------------------------
 *
 * radix.h
 *	  Sorting tuples on their normalized first keys alone.
 *
 * SrmRadixSort orders SrmTuple arrays by (NULL rank, normalized key) and
 * nothing else, without a comparator.  Tuples whose normalized keys tie may
 * need the full comparison; SrmRadixFixTies applies it.
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
 */
extern bool SrmRadixSort(SrmTuple *a, int64 n);

/* Order the groups of equal (nrank, datum1) of a sorted a[0..n). */
extern void SrmRadixFixTies(SrmTuple *a, int64 n, SrmKeys *keys);

#endif							/* SRM_RADIX_H */
