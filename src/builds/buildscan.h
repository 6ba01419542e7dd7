/*-------------------------------------------------------------------------
 *
 * buildscan.h
 *	  The heap scan of a btree build: its state and the table AM's
 *	  callback that feeds the sorters.
 *
 * The serial build (build.c) and every participant of a parallel build
 * (pbuild.c) scan with the same callback into the same state.  Both files
 * take them from here, so that neither needs the other's functions: the
 * callback is static inline, and each takes its address for its own scan.
 *
 * IDENTIFICATION
 *	  src/builds/buildscan.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_BUILDSCAN_H
#define SRM_BUILDSCAN_H

#include "storage/itemptr.h"
#include "utils/relcache.h"

#include "engine/sorter.h"

/*
 * The state of a build's heap scan: live tuples into one sorter, and for
 * unique indexes recently dead ones into another (out of the uniqueness
 * check).  A parallel build has one per participant.
 */
typedef struct SrmBuildState
{
	SrmSorter  *live;			/* NULL when pipe streams the live tuples */
	struct SrmParallelBuild *pipe;	/* a parallel build's merge (pbuild.h) */
	SrmSorter  *dead;			/* unique indexes only */
	bool		havedead;
	double		indtuples;
} SrmBuildState;

/*
 * SrmBuildCallback
 *		The table AM's index build scan callback: one heap tuple's index
 *		values into the live sorter, or the dead one.
 */
static inline void
SrmBuildCallback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
				 bool tupleIsAlive, void *state)
{
	SrmBuildState *st = (SrmBuildState *) state;

	if (tupleIsAlive || st->dead == NULL)
		SrmSorterPutIndexValues(st->live, index, tid, values, isnull);
	else
	{
		st->havedead = true;
		SrmSorterPutIndexValues(st->dead, index, tid, values, isnull);
	}
	st->indtuples += 1;
}

#endif							/* SRM_BUILDSCAN_H */
