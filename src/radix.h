/*-------------------------------------------------------------------------
 *
 * radix.h
 *	  Sorting tuples on their normalized first keys alone.
 *
 * SrmRadixSort orders SrmTuple arrays by (NULL rank, normalized key) and
 * nothing else: it calls no PostgreSQL function (unless asked to check for
 * interrupts), so the sort thread may run it.  Tuples whose normalized
 * keys tie may need the full comparison; SrmRadixFixTies applies it, on
 * the main thread.
 *
 * IDENTIFICATION
 *	  src/radix.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_RADIX_H
#define SRM_RADIX_H

#include "keys.h"

/*
 * Sort a[0..n) by (nrank, datum1).  interruptible: the caller is the main
 * thread, and CHECK_FOR_INTERRUPTS may be called.
 */
extern void SrmRadixSort(SrmTuple *a, int64 n, bool interruptible);

/* Whether tuples with equal (nrank, datum1) need ordering among them. */
extern bool SrmRadixNeedsTies(SrmKeys *keys);

/* Order the groups of equal (nrank, datum1) of a sorted a[0..n). */
extern void SrmRadixFixTies(SrmTuple *a, int64 n, SrmKeys *keys);

#endif							/* SRM_RADIX_H */
