/*-------------------------------------------------------------------------
 *
 * merge.h
 *	  One merge of R striped runs: SRM (forecast and flush) or DSM.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/merge/merge.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_MERGE_H
#define SRM_MERGE_H

#include "keys/keys.h"
#include "merge/dsmread.h"
#include "runs/runwriter.h"

typedef struct SrmMerge SrmMerge;

/*
 * Begin merging runs[0..nruns) with nbufs input block buffers (SRM needs
 * at least 2R + D; DSM uses 2D per run).  Allocates in CurrentMemoryContext.
 */
extern SrmMerge *SrmMergeBegin(SrmTapeSet *ts, SrmKeys *keys, SrmRun **runs,
							   int nruns, int nbufs, bool dsm,
							   SrmMergeCounters *counters);

/*
 * The next tuple in order, or NULL at the end.  It lies in the merge's
 * buffers and stays valid until the next call.
 */
extern void *SrmMergeNext(SrmMerge *m);
extern void SrmMergeToRun(SrmMerge *m, SrmRunWriter *w);

/* Wait for outstanding reads and free the merge's memory. */
extern void SrmMergeEnd(SrmMerge *m);

/*
 * The memory a merge of nruns runs through nbufs input buffers counts
 * against the budget: its buffers and, for paged runs, the inputs' page
 * caches (an output run's are the writer's).
 */
extern Size SrmMergeMemory(SrmTapeSet *ts, int nruns, int nbufs);

#endif							/* SRM_MERGE_H */
