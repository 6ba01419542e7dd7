/*-------------------------------------------------------------------------
 *
 * buildscan.h
 *	  The heap scan of an index build: its state and the table AM's
 *	  callback that feeds the sorters.
 *
 * The serial btree and GiST builds (build.c, gistbuild.c) and every
 * participant of a parallel build (pbuild.c) scan with the same callback
 * into the same state.  They take them from here, so that none needs
 * another's functions: the callback is static inline, and each takes its
 * address for its own scan.  The GiST state that compresses the keys is
 * made and freed here too, for those and for the picksplit workers
 * (gistsplit.c), so that its temporary context is always freed with it.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/buildscan.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_BUILDSCAN_H
#define SRM_BUILDSCAN_H

#include "access/gist_private.h"
#include "storage/itemptr.h"
#include "utils/memutils.h"
#include "utils/relcache.h"

#include "engine/sorter.h"

/*
 * The state of a build's heap scan: live tuples into one sorter, and for
 * unique indexes recently dead ones into another (out of the uniqueness
 * check).  A GiST build compresses each row's values with the operator
 * classes first, as PostgreSQL's sorted GiST build does.  A parallel
 * build has one per participant.
 */
typedef struct SrmBuildState
{
	SrmSorter  *live;			/* NULL when pipe streams the live tuples */
	struct SrmParallelBuild *pipe;	/* a parallel build's merge (pbuild.h) */
	SrmSorter  *dead;			/* unique indexes only */
	GISTSTATE  *giststate;		/* GiST builds only: compress the keys */
	bool		havedead;
	double		indtuples;
} SrmBuildState;

/*
 * SrmGistStateBegin
 *		A GiST index's state, with a temporary context of its own (a child
 *		of the current one) for the per-tuple work of its support functions.
 */
static inline GISTSTATE *
SrmGistStateBegin(Relation index)
{
	GISTSTATE  *gs = initGISTstate(index);

	gs->tempCxt = createTempGistContext();
	return gs;
}

/*
 * SrmGistStateEnd
 *		Free what SrmGistStateBegin made: freeGISTstate alone leaves the
 *		temporary context behind.
 */
static inline void
SrmGistStateEnd(GISTSTATE *gs)
{
	MemoryContextDelete(gs->tempCxt);
	freeGISTstate(gs);
}

/*
 * SrmBuildCallback
 *		The table AM's index build scan callback: one heap tuple's index
 *		values (a GiST index's compressed) into the live sorter, or the
 *		dead one.
 */
static inline void
SrmBuildCallback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
				 bool tupleIsAlive, void *state)
{
	SrmBuildState *st = (SrmBuildState *) state;
	Datum		keys[INDEX_MAX_KEYS];

	if (st->giststate != NULL)
	{
		/* the opclasses' compression allocates: in tempCxt, reset per row */
		MemoryContext old = MemoryContextSwitchTo(st->giststate->tempCxt);

		gistCompressValues(st->giststate, index, values, isnull, true, keys);
		MemoryContextSwitchTo(old);
		values = keys;
	}
	if (tupleIsAlive || st->dead == NULL)
		SrmSorterPutIndexValues(st->live, index, tid, values, isnull);
	else
	{
		st->havedead = true;
		SrmSorterPutIndexValues(st->dead, index, tid, values, isnull);
	}
	if (st->giststate != NULL)
		MemoryContextReset(st->giststate->tempCxt);
	st->indtuples += 1;
}

#endif							/* SRM_BUILDSCAN_H */
