/*-------------------------------------------------------------------------
 *
 * runexport.h
 *	  Runs handed from one process to another (parallel builds).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/runs/runexport.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_RUNEXPORT_H
#define SRM_RUNEXPORT_H

#include "runs/tape.h"

/*
 * A run's extent: what export writes first, then its bookkeeping.  It
 * carries the writer's stripe: a stripe is built for a budget (its longest
 * period), and with unequal weights another budget builds another, so the
 * reader takes the writer's rather than rebuilding it.
 */
typedef struct SrmRunExtent
{
	SrmStripe	stripe;
	int32		start;
	int32		first_disk;
	int32		ndisks;
	int32		merges;
	int64		nblocks;
	int64		nrecords;
	int64		nbytes;
	int64		nforecast;
} SrmRunExtent;

struct BufFile;
extern void SrmRunListRead(struct BufFile *f, void *p, size_t len);
extern void SrmRunExport(SrmTapeSet *ts, SrmRun *run, struct BufFile *f);
extern void SrmRunImportExtent(struct BufFile *f, SrmRunExtent *x);
extern void SrmRunImport(SrmTapeSet *ts, SrmRun *run, const SrmRunExtent *x,
						 struct BufFile *f);

#endif							/* SRM_RUNEXPORT_H */
