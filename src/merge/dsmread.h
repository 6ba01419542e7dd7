/*-------------------------------------------------------------------------
 *
 * dsmread.h
 *	  Reading a merge's runs the DSM way (the disk-striped baseline).
 *
 * IDENTIFICATION
 *	  src/merge/dsmread.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_DSMREAD_H
#define SRM_DSMREAD_H

#include "runs/tape.h"

/*
 * Counters a sort accumulates over all its merges, SRM (merge.c) and DSM
 * (here) alike.
 */
typedef struct SrmMergeCounters
{
	int64		parallel_reads; /* Parallel_Read operations (>= 1 block) */
	int64		blocks_consumed;	/* distinct input blocks merged */
	int64		flushes;		/* prefetched blocks dropped unread */
	int64		stalls;			/* leading blocks read on demand */
} SrmMergeCounters;

typedef struct SrmDsmReader SrmDsmReader;

/*
 * The reader of runs[0..nruns), with two superblocks of D block buffers per
 * run, allocated in CurrentMemoryContext; Parallel_Reads are counted in
 * counters.
 */
extern SrmDsmReader *SrmDsmBegin(SrmTapeSet *ts, SrmRun **runs, int nruns,
								 SrmMergeCounters *counters);

/*
 * The buffer that holds (or will, once *io is done) block want of run r,
 * the next block the merge needs of it; the first call of a run asks for
 * block 0.  The buffer of the block before stays valid until the next
 * SrmDsmRefill.
 */
extern char *SrmDsmBlock(SrmDsmReader *d, int r, int64 want, SrmIo **io);

/* Issue the read of a superblock left behind, now that its tuples are out. */
extern void SrmDsmRefill(SrmDsmReader *d);

/* Wait for reads in flight (their buffers are about to be freed). */
extern void SrmDsmEnd(SrmDsmReader *d);

#endif							/* SRM_DSMREAD_H */
