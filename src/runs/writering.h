/*-------------------------------------------------------------------------
 *
 * writering.h
 *	  The block buffers runs are written through, and write-behind.
 *
 * IDENTIFICATION
 *	  src/runs/writering.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_WRITERING_H
#define SRM_WRITERING_H

#include "runs/runwriter.h"

/*
 * With direct I/O, this share of the budget (1/n) holds the blocks of runs
 * still on their way to disk while the next memory load fills.
 */
#define SRM_WRITE_BEHIND_SHARE	3

typedef struct SrmWriteRing
{
	int			nbufs;			/* 0: none allocated */
	char	  **bufs;
	SrmIo	   *ios;
	char	   *raw;			/* the allocation behind bufs */
	int			next;			/* the buffer the next run starts with */
	bool		behind;			/* a run's writes may outlive its end */
} SrmWriteRing;

/* nbufs buffers of ts's block size in cxt; behind as for write-behind. */
extern void SrmWriteRingAlloc(SrmWriteRing *r, SrmTapeSet *ts, int nbufs,
							  bool behind, MemoryContext cxt);

/* How many buffers write-behind takes of budget (0: not worth it). */
extern int	SrmWriteBehindBuffers(Size budget, int block_size, int nbufs_min);

/* Wait until every write through the ring is on disk. */
extern void SrmWriteRingWait(SrmWriteRing *r, SrmTapeSet *ts);

/* Wait, then free the buffers. */
extern void SrmWriteRingFree(SrmWriteRing *r, SrmTapeSet *ts);

/* A writer of run through the ring, and its end (waiting unless behind). */
extern SrmRunWriter *SrmWriteRingBegin(SrmWriteRing *r, SrmTapeSet *ts,
									   SrmRun *run);
extern void SrmWriteRingEnd(SrmWriteRing *r, SrmRunWriter *w);

#endif							/* SRM_WRITERING_H */
