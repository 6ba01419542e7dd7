/*-------------------------------------------------------------------------
 *
 * psort.h
 *	  One ORDER BY on every core: runs formed by parallel workers, merged
 *	  once by the leader.
 *
 * IDENTIFICATION
 *	  src/query/psort.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_PSORT_H
#define SRM_PSORT_H

#include "storage/dsm.h"

#include "engine/sorter.h"

typedef struct SrmPSortShared SrmPSortShared;

/* Bytes of the shared state in the Gather's DSM segment. */
extern Size SrmPSortEstimate(void);

/*
 * The leader, as the Gather sets up its workers: the shared state at
 * space, with the disks (one SharedFileSet each) in seg, for nworkers
 * planned workers, each participant forming runs with workMemKB and the
 * leader merging with workMemKB; rows and tuple_bytes are the planner's
 * estimates (for the block size).
 */
extern SrmPSortShared *SrmPSortInit(void *space, dsm_segment *seg,
									int nworkers, int workMemKB,
									double rows, double tuple_bytes);

/* A rescan of the Gather: forget the runs of the last sort. */
extern void SrmPSortReInit(SrmPSortShared *sh);

/* A worker: attach to the shared disks. */
extern void SrmPSortAttach(SrmPSortShared *sh);

/*
 * A participant (a worker, or the leader scanning as the Gather's local
 * copy): s, a new sorter, forms runs only, on this participant's disks.
 * SrmPSortShare before the first tuple, SrmPSortFinish after the last
 * (the runs are described for the leader's merge; the caller ends s).
 */
extern void SrmPSortShare(SrmPSortShared *sh, SrmSorter *s);
extern void SrmPSortFinish(SrmPSortShared *sh, SrmSorter *s);

/*
 * The leader, once the Gather has returned its last (empty) result: take
 * every participant's runs into s, a new sorter, which merges them at
 * SrmSorterPerform.  Returns the participants whose runs it took.
 */
extern int	SrmPSortAdopt(SrmPSortShared *sh, SrmSorter *s);

#endif							/* SRM_PSORT_H */
