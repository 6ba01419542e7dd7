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
 * values, which the opclasses compress into leaf keys (buildscan.h); the
 * index tuples go into one sorter with maintenance_work_mem
 * (SrmSorterBeginGist: each key by its opclass's sortsupport, then heap
 * TID, as PostgreSQL's GiST tuplesort orders them), and the sorted stream
 * goes to the loader (gistload.c), which writes PostgreSQL's pages.  GiST
 * builds no unique indexes, so there is no dead-row sort.
 *
 * PostgreSQL builds GiST indexes serially; srmsort uses the workers it
 * would plan for a parallel build of the index (gistsplit.c decides: only
 * under srmsort.parallel_build, when the index's expressions and predicate
 * are parallel safe, and every support function the scan and the split
 * call is PARALLEL SAFE).  First the participants scan and sort their shares of
 * the table as a parallel btree build's do (pbuild.c; the parallel
 * context runs them as the leader's user in its security-restricted
 * context), and worker 0 merges them into the same sorted stream; then
 * the loader's picksplit, most of the build, runs in a second context's
 * workers (gistsplit.c), which leaves the pages as they are.  The errors of
 * either context's workers reach the client as PostgreSQL's serial build
 * raises them, without the "parallel worker" CONTEXT line.
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
#include "builds/buildscan.h"
#include "builds/gistbuild.h"
#include "builds/gistload.h"
#include "builds/gistsplit.h"
#include "builds/pbuild.h"
#include "engine/sorter.h"
#include "engine/sortstats.h"

/* What a build did, for its result and its trace. */
typedef struct SrmGistBuilt
{
	double		reltuples;
	BlockNumber npages;
	SrmSortStats stats;
	char	   *described;		/* the workers' parts, or NULL */
} SrmGistBuilt;

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
 * load
 *		The sorted stream into the loader (splitters: its workers, or
 *		NULL); returns the index's pages.
 */
static BlockNumber
load(Relation index, SrmBuildState *st, SrmGistSplitters *splitters)
{
	SrmGistLoader *ld = SrmGistLoadBegin(index, st->giststate, splitters);
	IndexTuple	itup;

	while ((itup = SrmBuildNextLive(st)) != NULL)
		SrmGistLoadAdd(ld, itup);
	return SrmGistLoadFinish(ld);
}

/*
 * join
 *		"a; b" of two descriptions, either may be NULL.
 */
static char *
join(char *a, char *b)
{
	if (a == NULL || b == NULL)
		return a != NULL ? a : b;
	return psprintf("%s; %s", a, b);
}

/*
 * build
 *		Scan, sort and load, with nworkers workers if any (see the file
 *		header); the facts into *out.
 */
static void
build(Relation heap, Relation index, IndexInfo *ii, SrmBuildState *st,
	  int nworkers, double est_rows, double tuple_bytes, SrmGistBuilt *out)
{
	SrmParallelBuild *pb = NULL;
	SrmGistSplitters *sp = NULL;

	if (nworkers > 0)
		pb = SrmParallelBegin(heap, index, ii, nworkers, est_rows,
							  tuple_bytes);
	if (pb != NULL)
	{
		out->reltuples = SrmParallelScan(pb, st, &ii->ii_BrokenHotChain);
		SrmParallelWaitMerge(pb);
	}
	else
	{
		st->live = SrmSorterBeginGist(index, maintenance_work_mem, est_rows,
									  SRM_SORT_NONE);
		out->reltuples = table_index_build_scan(heap, index, ii, true, true,
												SrmBuildCallback, st, NULL);
		SrmSorterPerform(st->live);
	}

	if (nworkers > 0)
		sp = SrmGistSplitBegin(index, nworkers);
	out->npages = load(index, st, sp);

	if (pb != NULL)
	{
		SrmParallelMergeStats(pb, &out->stats);
		out->described = SrmParallelDescribe(pb);
	}
	else
		SrmSorterGetStats(st->live, &out->stats);
	if (sp != NULL)
	{
		out->described = join(out->described, SrmGistSplitDescribe(sp));
		SrmGistSplitEnd(sp);
	}
	if (pb != NULL)
		SrmParallelEnd(pb);
	else
		SrmSorterEnd(st->live);
}

/*
 * SrmGistBuild
 *		ambuild for GiST indexes: srmsort's sorted build, or gistbuild when
 *		srmsort should not take it.  See the file header.
 */
IndexBuildResult *
SrmGistBuild(Relation heap, Relation index, IndexInfo *ii)
{
	SrmBuildState st;
	SrmGistBuilt built;
	IndexBuildResult *result;
	double		est_rows;
	double		tuple_bytes;
	double		seconds;
	instr_time	start;
	int			nworkers;
	MemoryContext cxt = CurrentMemoryContext;

	/* claimed first, so that the swap is never redone for this index */
	if (!SrmBuildClaim(RelationGetRelid(index)) || !gist_sorted_build(index) ||
		!SrmBuildWorthIt(heap, index, ii, &est_rows, &tuple_bytes))
		return gistbuild(heap, index, ii);

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));

	INSTR_TIME_SET_CURRENT(start);
	memset(&st, 0, sizeof(st));
	memset(&built, 0, sizeof(built));
	st.giststate = SrmGistStateBegin(index);

	nworkers = SrmGistSplitWorkers(heap, index);
	if (nworkers == 0)
		build(heap, index, ii, &st, 0, est_rows, tuple_bytes, &built);
	else
	{
		/* PostgreSQL's build is serial: its errors name no worker */
		PG_TRY();
		{
			build(heap, index, ii, &st, nworkers, est_rows, tuple_bytes,
				  &built);
		}
		PG_CATCH();
		{
			SrmGistSplitRethrow(cxt);
		}
		PG_END_TRY();
	}

	if (SrmTraceSeconds(start, &seconds))
		SrmBuildTrace(index, st.indtuples, built.npages, seconds, &built.stats,
					  built.described);
	SrmGistStateEnd(st.giststate);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = built.reltuples;
	result->index_tuples = st.indtuples;
	return result;
}
