/*-------------------------------------------------------------------------
 *
 * thread.h
 *	  The sort thread: sorts segments of a memory load on normalized keys
 *	  while the main thread reads the input.
 *
 * IDENTIFICATION
 *	  src/thread.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_THREAD_H
#define SRM_THREAD_H

#include "keys.h"

extern PGDLLIMPORT bool srmsort_sort_thread;

/* Start the thread if it is not running; false if it cannot run. */
extern bool SrmThreadStart(void);

/*
 * Have a[0..n) sorted by SrmRadixSort.  The caller must not touch the
 * elements, nor free or move the array, until SrmThreadWait returned.
 */
extern void SrmThreadSubmit(SrmTuple *a, int64 n);

/* Wait until every submitted segment is sorted (checks for interrupts). */
extern void SrmThreadWait(void);

/* The same, never throwing: for memory-context reset callbacks. */
extern void SrmThreadQuiesce(void);

#endif							/* SRM_THREAD_H */
