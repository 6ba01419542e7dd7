/*-------------------------------------------------------------------------
 *
 * build.c
 *	  The btree index build through srmsort (our ambuild).
 *
 * SrmBtBuild has btbuild's signature; utility.c installs it in the index's
 * relcache entry just before PostgreSQL builds the index (CREATE INDEX and
 * REINDEX, also CONCURRENTLY, and the rebuilds after table rewrites).  It
 * decides first whether srmsort should build at all (srmsort.enabled,
 * srmsort.create_index, a table that is not empty, and an input estimate
 * of at least srmsort.min_input_size, default 64kB; -1 means
 * maintenance_work_mem: only builds whose sort would spill) and otherwise
 * calls PostgreSQL's btbuild unchanged.  A CONCURRENTLY build scans with
 * PostgreSQL's MVCC snapshot (table_index_build_scan takes it, and the
 * parallel scan registers it), as btbuild's does.
 *
 * The build mirrors btbuild's serial path: the table AM's index build scan
 * (which evaluates expressions and predicates, follows HOT chains and
 * decides liveness) feeds two sorters, live tuples into one with
 * maintenance_work_mem and, for unique indexes only, recently dead tuples
 * into another with work_mem, so that they stay out of the uniqueness
 * check.  After both are sorted the two streams are merged on (keys, heap
 * TID) into the bulk loader (btload.c).  Uniqueness is checked on the live
 * stream as it passes: equal neighbours (by the opclass comparators, not
 * by bytes, so 1.0 = 1.00 and nondeterministic collations behave) raise
 * PostgreSQL's own error unless a key is NULL and NULLs are distinct.
 *
 * Progress goes to pg_stat_progress_create_index with btree's subphase
 * numbers (so the view shows the usual names), and the sort's facts go to
 * the server log at srmsort.trace = on (DEBUG1 otherwise).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/build.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/tableam.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/sortsupport.h"

#include "base/settings.h"
#include "builds/armed.h"
#include "builds/btload.h"
#include "builds/build.h"
#include "builds/buildscan.h"
#include "builds/pbuild.h"
#include "engine/sorter.h"
#include "engine/sortstats.h"
#include "keys/keys.h"

/* progress is published every this many loaded tuples */
#define SRM_PROGRESS_EVERY	1024

static int	compare_keys(Relation index, SortSupport keys, int nkeys,
						 IndexTuple a, IndexTuple b, bool *hasnull);
static void report_duplicate(Relation heap, Relation index, IndexTuple itup);
static BlockNumber load_index(Relation heap, Relation index, IndexInfo *ii,
							  SrmBuildState *st);
static void log_build(Relation index, SrmBuildState *st, BlockNumber npages,
					  instr_time start, SrmParallelBuild *pb);

/*
 * SrmBuildWorthIt
 *		Should srmsort build this index (btree or GiST)?  Estimates the sort's input from
 *		the heap's real size in blocks (the table AM's estimate assumes ten
 *		pages of a table never vacuumed, also when it is empty) and the
 *		index columns' average widths; *est_rows is the table's estimated
 *		row count and *tuple_bytes the index tuples' estimated size.
 */
bool
SrmBuildWorthIt(Relation heap, Relation index, IndexInfo *ii, double *est_rows,
				double *tuple_bytes)
{
	double		threshold;
	BlockNumber blocks;
	BlockNumber pages;
	double		tuples;
	double		allvisfrac;
	double		width = MAXALIGN(sizeof(IndexTupleData)) + 32;	/* + sort slot */
	TupleDesc	idesc = RelationGetDescr(index);
	TupleDesc	hdesc = RelationGetDescr(heap);
	int			i;

	if (!srmsort_enabled || !srmsort_create_index ||
		IsCatalogRelation(heap) || IsToastRelation(heap))
		return false;
	blocks = RelationGetNumberOfBlocks(heap);
	if (blocks == 0)
		return false;
	table_relation_estimate_size(heap, NULL, &pages, &tuples, &allvisfrac);
	/* the estimate's rows per page, over the pages there are */
	if (pages > blocks)
		tuples = tuples * blocks / pages;
	*est_rows = Max(tuples, 0);
	threshold = (srmsort_min_input_size >= 0 ? srmsort_min_input_size :
				 maintenance_work_mem) * 1024.0;

	for (i = 0; i < ii->ii_NumIndexAttrs; i++)
	{
		AttrNumber	attno = ii->ii_IndexAttrNumbers[i];
		int32		w = 0;

		if (attno > 0)
		{
			Form_pg_attribute att = TupleDescAttr(hdesc, attno - 1);

			w = get_attavgwidth(RelationGetRelid(heap), attno);
			if (w <= 0)
				w = get_typavgwidth(att->atttypid, att->atttypmod);
		}
		else
			w = get_typavgwidth(TupleDescAttr(idesc, i)->atttypid, -1);
		width += w;
	}
	*tuple_bytes = width - 32;
	return threshold <= 0 || *est_rows * width >= threshold;
}

/*
 * compare_keys
 *		Compare the key columns of two index tuples with the opclass
 *		comparators; *hasnull tells whether equal keys included a NULL.
 */
static int
compare_keys(Relation index, SortSupport keys, int nkeys, IndexTuple a,
			 IndexTuple b, bool *hasnull)
{
	TupleDesc	desc = RelationGetDescr(index);
	int			i;

	*hasnull = false;
	for (i = 0; i < nkeys; i++)
	{
		bool		anull,
					bnull;
		Datum		ad = index_getattr(a, i + 1, desc, &anull);
		Datum		bd = index_getattr(b, i + 1, desc, &bnull);
		int			c = ApplySortComparator(ad, anull, bd, bnull, &keys[i]);

		if (c != 0)
			return c;
		if (anull)
			*hasnull = true;
	}
	return 0;
}

/*
 * report_duplicate
 *		Raise PostgreSQL's unique-build error for the key of itup.
 */
static void
report_duplicate(Relation heap, Relation index, IndexTuple itup)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	char	   *key_desc;

	index_deform_tuple(itup, RelationGetDescr(index), values, isnull);
	key_desc = BuildIndexValueDescription(index, values, isnull);
	ereport(ERROR,
			(errcode(ERRCODE_UNIQUE_VIOLATION),
			 errmsg("could not create unique index \"%s\"",
					RelationGetRelationName(index)),
			 key_desc ? errdetail("Key %s is duplicated.", key_desc) :
			 errdetail("Duplicate keys exist."),
			 errtableconstraint(heap, RelationGetRelationName(index))));
}

/*
 * load_index
 *		Merge the sorted live and dead streams into the loader, checking
 *		uniqueness among live tuples.  Returns the pages written.
 */
static BlockNumber
load_index(Relation heap, Relation index, IndexInfo *ii, SrmBuildState *st)
{
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	BTScanInsert scankey = _bt_mkscankey(index, NULL);
	SortSupport keys = palloc0(nkeys * sizeof(SortSupportData));
	SrmBtLoader *ld = SrmBtLoadBegin(heap, index, !ii->ii_Unique);
	IndexTuple	a = SrmBuildNextLive(st);
	IndexTuple	b = st->havedead ? SrmSorterGetIndexTuple(st->dead) : NULL;
	IndexTuple	prev = NULL;
	Size		prevcap = 0;
	int64		done = 0;
	int			i;

	for (i = 0; i < nkeys; i++)
		SrmKeysPrepareIndexKey(index, scankey->scankeys + i, &keys[i], false);

	while (a != NULL || b != NULL)
	{
		bool		take_live = (b == NULL);
		bool		hasnull;

		if (a != NULL && b != NULL)
		{
			int			c = compare_keys(index, keys, nkeys, a, b, &hasnull);

			if (c == 0)
				c = ItemPointerCompare(&a->t_tid, &b->t_tid);
			take_live = c < 0;
		}

		if (take_live)
		{
			if (ii->ii_Unique)
			{
				Size		sz = IndexTupleSize(a);

				if (prev != NULL &&
					compare_keys(index, keys, nkeys, prev, a, &hasnull) == 0 &&
					(!hasnull || ii->ii_NullsNotDistinct))
					report_duplicate(heap, index, prev);
				if (sz > prevcap)
				{
					prevcap = Max(sz, 2 * prevcap);
					prev = prev ? repalloc(prev, prevcap) : palloc(prevcap);
				}
				memcpy(prev, a, sz);
			}
			SrmBtLoadAdd(ld, a);
			a = SrmBuildNextLive(st);
		}
		else
		{
			SrmBtLoadAdd(ld, b);
			b = SrmSorterGetIndexTuple(st->dead);
		}

		if (++done % SRM_PROGRESS_EVERY == 0)
			pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, done);
	}
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, done);
	return SrmBtLoadFinish(ld);
}

/*
 * log_build
 *		The facts of the build's sort, at LOG under srmsort.trace.
 */
static void
log_build(Relation index, SrmBuildState *st, BlockNumber npages,
		  instr_time start, SrmParallelBuild *pb)
{
	SrmSortStats s;
	double		seconds;

	if (!SrmTraceSeconds(start, &seconds))
		return;
	if (st->live != NULL)
		SrmSorterGetStats(st->live, &s);
	else
		SrmParallelMergeStats(pb, &s);
	SrmBuildTrace(index, st->indtuples, npages, seconds, &s,
				  pb != NULL ? SrmParallelDescribe(pb) : NULL);
}

/*
 * SrmBuildTrace
 *		The build's line for the server log (LOG under srmsort.trace,
 *		DEBUG1 otherwise): what was built, and the sort's facts.
 */
void
SrmBuildTrace(Relation index, double tuples, BlockNumber npages,
			  double seconds, const SrmSortStats *s, const char *more)
{
	ereport(srmsort_trace ? LOG : DEBUG1,
			(errmsg("srmsort: built index \"%s\": %.0f tuples, %u pages, %.3f s",
					RelationGetRelationName(index), tuples, npages, seconds),
			 more == NULL ? errdetail_internal("%s.", SrmSortStatsText(s)) :
			 errdetail_internal("%s; %s.", SrmSortStatsText(s), more)));
}

/*
 * SrmBtBuild
 *		ambuild for btree indexes: srmsort's build, or btbuild when srmsort
 *		should not take it.  See the file header.
 */
IndexBuildResult *
SrmBtBuild(Relation heap, Relation index, IndexInfo *ii)
{
	SrmBuildState st;
	IndexBuildResult *result;
	double		reltuples;
	double		est_rows;
	double		tuple_bytes;
	BlockNumber npages;
	instr_time	start;
	SrmParallelBuild *pb = NULL;

	/* claimed first, so that the swap is never redone for this index */
	if (!SrmBuildClaim(RelationGetRelid(index)) ||
		!SrmBuildWorthIt(heap, index, ii, &est_rows, &tuple_bytes))
		return btbuild(heap, index, ii);

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));

	INSTR_TIME_SET_CURRENT(start);
	memset(&st, 0, sizeof(st));
	/* the workers PostgreSQL planned for this build (see pbuild.c) */
	if (ii->ii_ParallelWorkers > 0 && srmsort_parallel_build)
		pb = SrmParallelBegin(heap, index, ii, ii->ii_ParallelWorkers,
							  est_rows, tuple_bytes);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 PROGRESS_BTREE_PHASE_INDEXBUILD_TABLESCAN);
	if (pb != NULL)
		reltuples = SrmParallelScan(pb, &st, &ii->ii_BrokenHotChain);
	else
	{
		st.live = SrmSorterBeginIndex(heap, index, maintenance_work_mem,
									  est_rows, SRM_SORT_NONE);
		if (ii->ii_Unique)
			st.dead = SrmSorterBeginIndex(heap, index,
										  Max(work_mem, srmsort_min_work_mem),
										  0, SRM_SORT_NONE);
		reltuples = table_index_build_scan(heap, index, ii, true, true,
										   SrmBuildCallback, &st, NULL);
	}
	{
		const int	idx[] = {
			PROGRESS_CREATEIDX_TUPLES_TOTAL,
			PROGRESS_SCAN_BLOCKS_TOTAL,
			PROGRESS_SCAN_BLOCKS_DONE
		};
		const int64 val[] = {(int64) st.indtuples, 0, 0};

		pgstat_progress_update_multi_param(3, idx, val);
	}

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 PROGRESS_BTREE_PHASE_PERFORMSORT_1);
	if (st.live != NULL)
		SrmSorterPerform(st.live);
	else
		SrmParallelWaitMerge(pb);
	if (st.havedead)
	{
		pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
									 PROGRESS_BTREE_PHASE_PERFORMSORT_2);
		SrmSorterPerform(st.dead);
	}

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
								 PROGRESS_BTREE_PHASE_LEAF_LOAD);
	npages = load_index(heap, index, ii, &st);
	log_build(index, &st, npages, start, pb);

	if (st.dead != NULL)
		SrmSorterEnd(st.dead);
	if (st.live != NULL)
		SrmSorterEnd(st.live);
	if (pb != NULL)
		SrmParallelEnd(pb);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = st.indtuples;
	return result;
}
