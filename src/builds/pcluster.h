/*-------------------------------------------------------------------------
 *
 * pcluster.h
 *	  CLUSTER's heap sort with parallel workers.
 *
 * IDENTIFICATION
 *	  src/builds/pcluster.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_PCLUSTER_H
#define SRM_PCLUSTER_H

#include "access/htup.h"
#include "storage/dsm.h"
#include "storage/shm_toc.h"
#include "utils/relcache.h"

#include "builds/clusterscan.h"
#include "engine/sortstats.h"

typedef struct SrmParallelCluster SrmParallelCluster;

/*
 * Workers for sorting heap in index's order: as many as PostgreSQL would
 * plan for building that index (plan_create_index_workers); 0 if none, or
 * if user code (expressions, comparison functions) would run in them.
 */
extern int	SrmClusterWorkers(Relation heap, Relation index);

/*
 * Launch nworkers to scan heap and sort it in index's order, judging
 * tuples against OldestXmin; NULL if none could be launched (the caller
 * sorts alone).
 */
extern SrmParallelCluster *SrmClusterParallelBegin(Relation heap,
												   Relation index,
												   int nworkers,
												   TransactionId OldestXmin);

/*
 * The leader's share of the scan (rwstate: its rewrite, for the dead
 * tuples), then the wait for every participant: counts gets all of
 * theirs, and the leader's WARNINGs for the workers' tuples are raised.
 */
extern void SrmClusterParallelScan(SrmParallelCluster *pc,
								   RewriteState rwstate,
								   SrmClusterCounts *counts);

/*
 * The next sorted record, merged by worker 0 (valid until the next call),
 * or NULL at the end.
 */
extern MinimalTuple SrmClusterParallelNext(SrmParallelCluster *pc);

/* The merge's facts, and the participants for the trace, at the end. */
extern void SrmClusterParallelStats(SrmParallelCluster *pc,
									SrmSortStats *stats);
extern char *SrmClusterParallelDescribe(SrmParallelCluster *pc);

/* Wait for the workers and leave parallel mode. */
extern void SrmClusterParallelEnd(SrmParallelCluster *pc);

/* A worker's entry point (by name, from the parallel context). */
extern PGDLLEXPORT void srm_parallel_cluster_main(dsm_segment *seg,
												  shm_toc *toc);

#endif							/* SRM_PCLUSTER_H */
