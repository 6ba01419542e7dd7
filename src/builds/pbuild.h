/*-------------------------------------------------------------------------
 *
 * pbuild.h
 *	  Parallel btree and sorted GiST builds through srmsort: participants
 *	  form runs, worker 0 merges them all while the leader loads the index.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/pbuild.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_PBUILD_H
#define SRM_PBUILD_H

#include "access/genam.h"
#include "nodes/execnodes.h"

#include "builds/buildscan.h"

typedef struct SrmParallelBuild SrmParallelBuild;

/*
 * Start a parallel build with nworkers workers (the count PostgreSQL
 * planned, ii_ParallelWorkers), or NULL when none could be launched (the
 * caller builds serially).  estRows and tupleBytes (the heap's rows and
 * the index tuples' average size) choose the block size.  A GiST index's
 * participants compress the keys and sort them in GiST's order.
 */
extern SrmParallelBuild *SrmParallelBegin(Relation heap, Relation index,
										  IndexInfo *ii, int nworkers,
										  double estRows, double tupleBytes);

/*
 * Scan the leader's share of the table (if it participates) and wait for
 * the workers.  Worker 0 then merges all participants' live runs: st->live
 * is NULL and st->pipe is pb, whose SrmParallelNextTuple hands out the
 * merged tuples; the dead tuples' runs go to a new sorter st->dead.
 * Returns the heap tuples scanned; sets st's counts and *brokenHotChain as
 * the serial scan would.
 */
extern double SrmParallelScan(SrmParallelBuild *pb, SrmBuildState *st,
							  bool *brokenHotChain);

/* Wait until worker 0's merge has sent its first tuples (or none). */
extern void SrmParallelWaitMerge(SrmParallelBuild *pb);

/* The next live tuple in the index's order, valid until the next call; NULL at
 * the end. */
extern IndexTuple SrmParallelNextTuple(SrmParallelBuild *pb);

/* The next live tuple of a build's scan: from its sorter, or from worker
 * 0's merge; valid until the next call, NULL at the end. */
static inline IndexTuple
SrmBuildNextLive(SrmBuildState *st)
{
	if (st->live != NULL)
		return SrmSorterGetIndexTuple(st->live);
	return SrmParallelNextTuple(st->pipe);
}

/* The facts of worker 0's merge, once it has sent everything. */
extern void SrmParallelMergeStats(SrmParallelBuild *pb, SrmSortStats *stats);

/* The participants and their runs, for the build's trace line. */
extern char *SrmParallelDescribe(SrmParallelBuild *pb);

/* Wait for the workers to exit and release the parallel context. */
extern void SrmParallelEnd(SrmParallelBuild *pb);

/* The workers' entry point (called through the parallel context). */
extern PGDLLEXPORT void srm_parallel_build_main(dsm_segment *seg,
												shm_toc *toc);

#endif							/* SRM_PBUILD_H */
