/*-------------------------------------------------------------------------
 *
 * clusterscan.h
 *	  CLUSTER's scan into srmsort: one participant's part.
 *
 * IDENTIFICATION
 *	  src/builds/clusterscan.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_CLUSTERSCAN_H
#define SRM_CLUSTERSCAN_H

#include "access/rewriteheap.h"
#include "access/tableam.h"
#include "port/atomics.h"
#include "utils/relcache.h"

#include "engine/sorter.h"

/* What a scan found, as relation_copy_for_cluster counts it. */
typedef struct SrmClusterCounts
{
	double		num_tuples;		/* sorted: live, recently dead, in progress */
	double		tups_vacuumed;
	double		tups_recently_dead;
	double		insert_in_progress; /* WARNINGs due (a worker's scan) */
	double		delete_in_progress;
} SrmClusterCounts;

/*
 * Progress of a parallel scan: every participant's blocks and tuples so
 * far, which the leader reports.
 */
typedef struct SrmClusterShared
{
	pg_atomic_uint64 blocks;
	pg_atomic_uint64 tuples;
} SrmClusterShared;

/* The sort's records: the index's key columns, then the tuple as bytea. */
extern TupleDesc SrmClusterSortDesc(Relation index);

/*
 * Scan heap (scan: SnapshotAny, serial or a share of a parallel scan) into
 * sorter, each tuple judged against OldestXmin.  rwstate: the leader's
 * rewrite, given the dead tuples as heapam gives them; NULL in a worker,
 * which also leaves the WARNINGs to the leader (counts).  report: update
 * pg_stat_progress_cluster (from shared's totals if parallel).
 */
extern void SrmClusterScan(Relation heap, Relation index, TableScanDesc scan,
						   SrmSorter *sorter, TransactionId OldestXmin,
						   RewriteState rwstate, bool report,
						   SrmClusterShared *shared, SrmClusterCounts *counts);

/* The WARNINGs a worker's scan left to the leader, as heapam words them. */
extern void SrmClusterWarn(Relation heap, const SrmClusterCounts *counts);

#endif							/* SRM_CLUSTERSCAN_H */
