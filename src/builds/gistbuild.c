/*-------------------------------------------------------------------------
 *
 * gistbuild.c
 *	  The sorted GiST index build through srmsort (our ambuild for GiST).
 *
 * Since PostgreSQL 14 a GiST index whose every key column's operator class
 * has a sortsupport function (core's point_ops, PostGIS's 2d geometry ops)
 * is built by sorting its tuples on the opclass's order (a space-filling
 * curve) and packing the pages bottom-up, unless the buffering option
 * forces the buffered build.  SrmGistBuild takes exactly those builds, by
 * the same rules as the btree build (build.c: an armed statement, the
 * settings, the input estimate), and hands every other one to
 * PostgreSQL's gistbuild unchanged.
 *
 * The build mirrors PostgreSQL's sorted path: the table AM's index build
 * scan (expressions, predicates, HOT chains, liveness) gives each row's
 * values, which the opclasses compress into leaf keys; the index tuples go
 * into one sorter with maintenance_work_mem (SrmSorterBeginGist: each key
 * by its opclass's sortsupport, then heap TID, as PostgreSQL's GiST
 * tuplesort orders them), and the sorted stream goes to the loader
 * (gistload.c), which writes PostgreSQL's pages.  GiST builds no unique
 * indexes and PostgreSQL builds them serially, so there is one sorter and
 * no dead-row sort; but the loader's picksplit, most of the build, may run
 * in the workers PostgreSQL would plan for a parallel build (gistsplit.c),
 * which leaves the pages as they are.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/gistbuild.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/gist_private.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "base/settings.h"
#include "builds/armed.h"
#include "builds/build.h"
#include "builds/gistbuild.h"
#include "builds/gistload.h"
#include "builds/gistsplit.h"
#include "engine/sorter.h"
#include "engine/sortstats.h"

/* The state of the build's heap scan. */
typedef struct SrmGistScan
{
	GISTSTATE  *giststate;
	SrmSorter  *sorter;
	double		indtuples;
} SrmGistScan;

/*
 * gist_sorted_build
 *		Would PostgreSQL build this index by sorting?  Yes unless buffering
 *		is forced on, when every key column has a sortsupport function.
 */
static bool
gist_sorted_build(Relation index)
{
	GiSTOptions *options = (GiSTOptions *) index->rd_options;
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	int			i;

	if (options != NULL && options->buffering_mode == GIST_OPTION_BUFFERING_ON)
		return false;
	for (i = 0; i < nkeys; i++)
		if (!OidIsValid(index_getprocid(index, i + 1, GIST_SORTSUPPORT_PROC)))
			return false;
	return true;
}

/*
 * gist_scan_callback
 *		One row's index values, compressed into leaf keys, into the sort.
 */
static void
gist_scan_callback(Relation index, ItemPointer tid, Datum *values,
				   bool *isnull, bool tupleIsAlive, void *state)
{
	SrmGistScan *st = (SrmGistScan *) state;
	Datum		keys[INDEX_MAX_KEYS];
	MemoryContext old;

	/* the opclass's compression allocates: in tempCxt, reset per row */
	old = MemoryContextSwitchTo(st->giststate->tempCxt);
	gistCompressValues(st->giststate, index, values, isnull, true, keys);
	MemoryContextSwitchTo(old);
	SrmSorterPutIndexValues(st->sorter, index, tid, keys, isnull);
	MemoryContextReset(st->giststate->tempCxt);
	st->indtuples += 1;
}

/*
 * load
 *		The sorted stream into the loader (splitters: its workers, or
 *		NULL); returns the index's pages.
 */
static BlockNumber
load(Relation index, SrmGistScan *st, SrmGistSplitters *splitters)
{
	SrmGistLoader *ld = SrmGistLoadBegin(index, st->giststate, splitters);
	IndexTuple	itup;

	while ((itup = SrmSorterGetIndexTuple(st->sorter)) != NULL)
		SrmGistLoadAdd(ld, itup);
	return SrmGistLoadFinish(ld);
}

/*
 * SrmGistBuild
 *		ambuild for GiST indexes: srmsort's sorted build, or gistbuild when
 *		srmsort should not take it.  See the file header.
 */
IndexBuildResult *
SrmGistBuild(Relation heap, Relation index, IndexInfo *ii)
{
	SrmGistScan st;
	IndexBuildResult *result;
	double		reltuples;
	double		est_rows;
	double		tuple_bytes;
	double		seconds;
	BlockNumber npages = 0;
	instr_time	start;
	SrmGistSplitters *sp = NULL;
	char	   *volatile described = NULL;
	int			nworkers;

	/* claimed first, so that the swap is never redone for this index */
	if (!SrmBuildClaim(RelationGetRelid(index)) || !gist_sorted_build(index) ||
		!SrmBuildWorthIt(heap, index, ii, &est_rows, &tuple_bytes))
		return gistbuild(heap, index, ii);

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));

	INSTR_TIME_SET_CURRENT(start);
	memset(&st, 0, sizeof(st));
	st.giststate = initGISTstate(index);
	st.giststate->tempCxt = createTempGistContext();
	st.sorter = SrmSorterBeginGist(index, maintenance_work_mem, est_rows,
								   SRM_SORT_NONE);
	reltuples = table_index_build_scan(heap, index, ii, true, true,
									   gist_scan_callback, &st, NULL);
	SrmSorterPerform(st.sorter);

	nworkers = SrmGistSplitWorkers(heap, index);
	if (nworkers > 0)
		sp = SrmGistSplitBegin(index, nworkers);
	if (sp == NULL)
		npages = load(index, &st, NULL);
	else
	{
		MemoryContext cxt = CurrentMemoryContext;

		/* PostgreSQL's build is serial: its errors name no worker */
		PG_TRY();
		{
			npages = load(index, &st, sp);
			described = SrmGistSplitDescribe(sp);
			SrmGistSplitEnd(sp);
		}
		PG_CATCH();
		{
			SrmGistSplitRethrow(cxt);
		}
		PG_END_TRY();
	}

	if (SrmTraceSeconds(start, &seconds))
	{
		SrmSortStats s;

		SrmSorterGetStats(st.sorter, &s);
		SrmBuildTrace(index, st.indtuples, npages, seconds, &s, described);
	}
	SrmSorterEnd(st.sorter);
	MemoryContextDelete(st.giststate->tempCxt);
	freeGISTstate(st.giststate);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = st.indtuples;
	return result;
}
