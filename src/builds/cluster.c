/*-------------------------------------------------------------------------
 *
 * cluster.c
 *	  CLUSTER's heap sort through srmsort.
 *
 * When PostgreSQL's CLUSTER decides to rewrite a table in the order of a
 * btree index by a sequential scan and a sort (copy_table_data asks the
 * planner, plan_cluster_use_sort), heapam's relation_copy_for_cluster
 * sorts the whole table with tuplesort.  srmsort takes that one call:
 * from the planner's look at the table (utility.c) it points the table's
 * open relcache entry at a copy of heapam's routine whose
 * relation_copy_for_cluster is srm_copy_for_cluster, which puts heapam's
 * routine back first thing.  PostgreSQL's own code stays in charge of
 * everything else (locks, the new heap and its TOAST table, the freeze and
 * visibility horizons, the swap of the files, the rebuild of the indexes,
 * progress, messages), and srm_copy_for_cluster itself hands every case
 * but the sort -- an index scan, VACUUM FULL, REPACK (CONCURRENTLY),
 * catalogs, tables Citus manages, tables below srmsort.min_input_size,
 * srmsort.cluster off -- to heapam's routine unchanged.
 *
 * The sort itself does what heapam's does, with srmsort in place of
 * tuplesort: one sequential scan with SnapshotAny, each tuple classified
 * by HeapTupleSatisfiesVacuum against the caller's OldestXmin (dead ones
 * go to the rewrite module at once, which needs them to follow update
 * chains; live, recently dead and in-progress ones are sorted, with
 * PostgreSQL's warnings for the in-progress ones; clusterscan.c), then
 * each sorted tuple re-formed against the new table's descriptor (dropped
 * columns as NULLs) and handed to heap's rewrite API (rewrite_heap_tuple),
 * which freezes, keeps update chains, writes the pages and TOAST as it
 * does for PostgreSQL's sort.  A tuple whose columns are all of fixed
 * length and that re-forming would not change is copied instead.  The
 * counts returned and the progress reported are the same.  Where
 * PostgreSQL would give building the index parallel workers, the scan and
 * the sort get them (pcluster.c); the rewrite stays in this backend.
 *
 * The sort's records: the index's key columns (FormIndexDatum: columns or
 * expressions, evaluated once per tuple instead of at every comparison)
 * followed by the whole heap tuple -- its header, which the rewrite needs
 * (xmin, xmax, ctid, infomask), its TID and its data -- as one bytea, in
 * the index's order (its opclasses, collations, DESC and NULLS FIRST, as
 * tuplesort_begin_cluster).  Equal keys come out in no particular order,
 * as from PostgreSQL's sort.
 *
 * Why the swap is safe: the routine is a copy of heapam's but for one
 * callback, installed only while CLUSTER holds the table open with
 * AccessExclusiveLock between the planner's look and that callback, and
 * removed inside the callback (or, if CLUSTER fails in between, by the
 * utility hook while the table is still open).  The one difference anyone
 * could see is heap_getnext's check that a table's routine is heapam's,
 * which nothing calls on the table in that interval.
 *
 * IDENTIFICATION
 *	  src/builds/cluster.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/relscan.h"
#include "access/rewriteheap.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/progress.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "base/compat.h"
#include "base/settings.h"
#include "builds/armed.h"
#include "builds/citus.h"
#include "builds/cluster.h"
#include "builds/clusterscan.h"
#include "builds/pcluster.h"
#include "engine/sorter.h"
#include "engine/sortstats.h"
#include "keys/record.h"

/* heapam's routine with srm_copy_for_cluster, built at first use */
static TableAmRoutine cluster_routine;
static bool cluster_routine_ready = false;

/* the table whose entry points at cluster_routine, or NULL */
static Relation swapped_rel = NULL;

static void srm_copy_for_cluster(Relation OldHeap, Relation NewHeap,
								 Relation OldIndex, bool use_sort,
								 TransactionId OldestXmin,
								 SRM_COPY_FOR_CLUSTER_SNAPSHOT_PARAM
								 TransactionId *xid_cutoff,
								 MultiXactId *multi_cutoff,
								 double *num_tuples, double *tups_vacuumed,
								 double *tups_recently_dead);

/*
 * SrmClusterArm
 *		See cluster.h.  Only a heap table we hold AccessExclusiveLock on and
 *		that is open (CLUSTER's copy_table_data holds it) is swapped.
 */
void
SrmClusterArm(Oid relid)
{
	Relation	rel;

	if (swapped_rel != NULL || !srmsort_enabled || !srmsort_cluster ||
		(rel = SrmOpenIfLockedByMe(relid, AccessExclusiveLock)) == NULL)
		return;
	if (rel->rd_tableam == GetHeapamTableAmRoutine() && rel->rd_refcnt > 1)
	{
		if (!cluster_routine_ready)
		{
			memcpy(&cluster_routine, GetHeapamTableAmRoutine(),
				   sizeof(TableAmRoutine));
			cluster_routine.relation_copy_for_cluster = srm_copy_for_cluster;
			cluster_routine_ready = true;
		}
		rel->rd_tableam = &cluster_routine;
		swapped_rel = rel;
	}
	RelationClose(rel);
}

/*
 * SrmClusterDisarm
 *		See cluster.h.  Never ERRORs.
 */
void
SrmClusterDisarm(bool failed)
{
	if (swapped_rel != NULL && failed &&
		swapped_rel->rd_tableam == &cluster_routine)
		swapped_rel->rd_tableam = GetHeapamTableAmRoutine();
	swapped_rel = NULL;
}

/*
 * sort_worth_it
 *		Should srmsort sort this table?  Decided from its real size.
 */
static bool
sort_worth_it(Relation heap)
{
	BlockNumber blocks;
	double		threshold;

	if (!srmsort_enabled || !srmsort_cluster || !SrmClusterArmed() ||
		IsSystemRelation(heap) || IsToastRelation(heap) ||
		SrmCitusOwnsRelation(RelationGetRelid(heap)))
		return false;
	blocks = RelationGetNumberOfBlocks(heap);
	threshold = (srmsort_min_input_size >= 0 ? srmsort_min_input_size :
				 maintenance_work_mem) * 1024.0;
	return blocks > 0 && (double) blocks * BLCKSZ >= threshold;
}

/*
 * copy_as_is_possible
 *		Can a tuple whose natts is the table's go to the rewrite as a copy of
 *		its bytes instead of re-formed?  Only when every column is of fixed
 *		length and none is dropped: re-forming such a tuple, as
 *		reform_and_rewrite_tuple does, rebuilds the very same bytes (varlena
 *		headers may be shortened, dropped columns become NULLs, and columns
 *		added later are filled in, so those tuples are re-formed).
 */
static bool
copy_as_is_possible(TupleDesc olddesc, TupleDesc newdesc)
{
	int			i;

	if (olddesc->natts != newdesc->natts)
		return false;
	for (i = 0; i < newdesc->natts; i++)
	{
		Form_pg_attribute o = TupleDescAttr(olddesc, i);
		Form_pg_attribute n = TupleDescAttr(newdesc, i);

		if (n->attisdropped || o->attisdropped || n->attlen <= 0 ||
			o->attlen != n->attlen || o->attalign != n->attalign ||
			o->attbyval != n->attbyval)
			return false;
	}
	return true;
}

/*
 * copy_as_is
 *		Copy the tuple at src (old's bytes, whose header old->t_data holds)
 *		into buf as heap_form_tuple would have re-formed it, if its header
 *		is one heap_form_tuple writes: all natts columns, a null bitmap only
 *		when a column is NULL, and the t_hoff that follows.  The visibility
 *		fields are the rewrite's to set from old's.
 */
static bool
copy_as_is(HeapTuple old, const char *src, int natts, char *buf, HeapTuple copy)
{
	HeapTupleHeader td = old->t_data;
	bool		hasnull = (td->t_infomask & HEAP_HASNULL) != 0;
	HeapTupleHeader nd = (HeapTupleHeader) buf;

	if (HeapTupleHeaderGetNatts(td) != natts ||
		td->t_hoff != MAXALIGN(SizeofHeapTupleHeader +
							   (hasnull ? BITMAPLEN(natts) : 0)) ||
		(td->t_infomask & (HEAP_HASVARWIDTH | HEAP_HASEXTERNAL)) != 0)
		return false;
	if (hasnull)
	{
		int			i;

		for (i = 0; i < natts && !att_isnull(i, td->t_bits); i++)
			;
		if (i == natts)
			return false;
	}
	memcpy(buf, src, old->t_len);
	/* what heap_form_tuple leaves in the header */
	nd->t_infomask = td->t_infomask & HEAP_HASNULL;
	nd->t_infomask2 = 0;
	HeapTupleHeaderSetNatts(nd, natts);
	ItemPointerSetInvalid(&nd->t_ctid);
	copy->t_len = old->t_len;
	ItemPointerSetInvalid(&copy->t_self);
	copy->t_tableOid = InvalidOid;
	copy->t_data = nd;
	return true;
}

/*
 * sorted_payload
 *		The last column of a sorted record: the heap tuple's TID and bytes.
 *		Keys of fixed length and no NULL end at one offset, keys_end, found
 *		once; the payload follows there or at the next int boundary, as
 *		att_align_pointer tells by the byte there.  Other records are
 *		deformed through the slot, which holds mt already if in_slot.
 */
static struct varlena *
sorted_payload(MinimalTuple mt, TupleTableSlot *slot, bool in_slot, int nkeys,
			   int keys_end)
{
	bool		pnull;

	if (keys_end >= 0 && !(mt->t_infomask & HEAP_HASNULL))
	{
		char	   *data = (char *) mt + mt->t_hoff - MINIMAL_TUPLE_OFFSET;
		Size		off = att_align_pointer(keys_end,
											TupleDescAttr(slot->tts_tupleDescriptor,
														  nkeys)->attalign,
											-1, data + keys_end);

		return (struct varlena *) (data + off);
	}
	if (!in_slot)
		ExecStoreMinimalTuple(mt, slot, false);
	return (struct varlena *) DatumGetPointer(slot_getattr(slot, nkeys + 1, &pnull));
}

/*
 * rewrite_sorted
 *		Hand one sorted record's heap tuple to the rewrite, re-formed
 *		against the new table's descriptor (reform_and_rewrite_tuple's
 *		work), or copied when as_is and re-forming would not change it.
 *		bufs[0] and bufs[1] are reusable MAXALIGNed buffers of *bufsize
 *		bytes: the old tuple and its copy.  The rewrite reads only the old
 *		tuple's header, so a copied tuple's bytes go to bufs[1] alone.
 */
static void
rewrite_sorted(RewriteState rwstate, Relation OldHeap, Relation NewHeap,
			   struct varlena *payload, bool as_is, Datum *values,
			   bool *isnull, char **bufs, Size *bufsize)
{
	TupleDesc	oldTupDesc = RelationGetDescr(OldHeap);
	TupleDesc	newTupDesc = RelationGetDescr(NewHeap);
	const char *src = VARDATA_ANY(payload) + sizeof(ItemPointerData);
	Size		len;
	HeapTupleData old;
	HeapTupleData copy;
	HeapTuple	copied;
	int			i;

	len = VARSIZE_ANY_EXHDR(payload) - sizeof(ItemPointerData);
	if (len > *bufsize)
	{
		*bufsize = Max(len, 2 * *bufsize);
		bufs[0] = repalloc(bufs[0], *bufsize);
		bufs[1] = repalloc(bufs[1], *bufsize);
	}
	memcpy(&old.t_self, VARDATA_ANY(payload), sizeof(ItemPointerData));
	old.t_len = len;
	old.t_tableOid = RelationGetRelid(OldHeap);
	old.t_data = (HeapTupleHeader) bufs[0];

	if (as_is)
	{
		/* the header and its null bitmap, all copy_as_is looks at */
		memcpy(bufs[0], src,
			   Min(len, MAXALIGN(SizeofHeapTupleHeader +
								 BITMAPLEN(newTupDesc->natts))));
		if (copy_as_is(&old, src, newTupDesc->natts, bufs[1], &copy))
		{
			rewrite_heap_tuple(rwstate, &old, &copy);
			return;
		}
	}
	memcpy(bufs[0], src, len);
	heap_deform_tuple(&old, oldTupDesc, values, isnull);
	for (i = 0; i < newTupDesc->natts; i++)
	{
		if (TupleDescAttr(newTupDesc, i)->attisdropped)
			isnull[i] = true;
	}
	copied = heap_form_tuple(newTupDesc, values, isnull);
	rewrite_heap_tuple(rwstate, &old, copied);
	heap_freetuple(copied);
}

/*
 * log_sort
 *		The facts of CLUSTER's sort, at LOG under srmsort.trace.
 */
static void
log_sort(Relation OldHeap, SrmSortStats *s, const char *parallel,
		 double ntuples, instr_time start)
{
	double		seconds;

	if (!SrmTraceSeconds(start, &seconds))
		return;
	ereport(srmsort_trace ? LOG : DEBUG1,
			(errmsg_plural("srmsort: sorted table \"%s\" for CLUSTER: %.0f tuple, %.3f s",
						   "srmsort: sorted table \"%s\" for CLUSTER: %.0f tuples, %.3f s",
						   (unsigned long) ntuples,
						   RelationGetRelationName(OldHeap), ntuples, seconds),
			 parallel ?
			 errdetail_internal("%s; %s.", parallel, SrmSortStatsText(s)) :
			 errdetail_internal("%s.", SrmSortStatsText(s))));
}

/*
 * sort_and_rewrite
 *		CLUSTER's scan, sort and rewrite through srmsort, with the workers
 *		PostgreSQL would plan for building OldIndex (pcluster.c) or alone;
 *		the arguments are relation_copy_for_cluster's (see the file header).
 */
static void
sort_and_rewrite(Relation OldHeap, Relation NewHeap, Relation OldIndex,
				 TransactionId OldestXmin, TransactionId *xid_cutoff,
				 MultiXactId *multi_cutoff, double *num_tuples,
				 double *tups_vacuumed, double *tups_recently_dead)
{
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(OldIndex);
	int			natts = RelationGetDescr(NewHeap)->natts;
	TupleDesc	sdesc = SrmClusterSortDesc(OldIndex);
	Datum	   *values = palloc(natts * sizeof(Datum));
	bool	   *isnull = palloc(natts * sizeof(bool));
	Size		bufsize = BLCKSZ;
	char	   *bufs[2];
	bool		as_is = copy_as_is_possible(RelationGetDescr(OldHeap),
											RelationGetDescr(NewHeap));
	int			keys_end = SrmFixedAttsEnd(sdesc, nkeys);
	BlockNumber nblocks = RelationGetNumberOfBlocks(OldHeap);
	SrmClusterCounts counts;
	RewriteState rwstate;
	SrmParallelCluster *pc = NULL;
	SrmSorter  *sorter = NULL;
	TupleTableSlot *slot;
	SrmSortStats stats;
	char	   *parallel = NULL;
	int			nworkers;
	double		n_written = 0;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	memset(&counts, 0, sizeof(counts));
	rwstate = begin_heap_rewrite(OldHeap, NewHeap, OldestXmin, *xid_cutoff,
								 *multi_cutoff);
	pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_PHASE,
								 SRM_PROGRESS_CLUSTER_PHASE_SEQ_SCAN);
	pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_TOTAL_BLKS, nblocks);

	nworkers = SrmClusterWorkers(OldHeap, OldIndex);
	if (nworkers > 0)
		pc = SrmClusterParallelBegin(OldHeap, OldIndex, nworkers, OldestXmin);
	if (pc != NULL)
		SrmClusterParallelScan(pc, rwstate, &counts);
	else
	{
		TableScanDesc scan;

		sorter = SrmSorterBeginIndexOrder(sdesc, OldIndex, maintenance_work_mem,
										  (double) nblocks * BLCKSZ,
										  SRM_SORT_NONE);
		scan = SrmTableBeginScan(OldHeap, SnapshotAny, 0, (ScanKey) NULL);
		SrmClusterScan(OldHeap, OldIndex, scan, sorter, OldestXmin, rwstate,
					   true, NULL, &counts);
		/* the scan's blocks: also when the last ones were empty */
		nblocks = ((HeapScanDesc) scan)->rs_nblocks;
		table_endscan(scan);
	}
	pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_BLKS_SCANNED, nblocks);
	pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_TUPLES_SCANNED,
								 counts.num_tuples);
	*num_tuples += counts.num_tuples;
	*tups_vacuumed += counts.tups_vacuumed;
	*tups_recently_dead += counts.tups_recently_dead;

	pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_PHASE,
								 SRM_PROGRESS_CLUSTER_PHASE_SORT);
	if (sorter != NULL)
		SrmSorterPerform(sorter);

	pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_PHASE,
								 SRM_PROGRESS_CLUSTER_PHASE_WRITE);
	slot = MakeSingleTupleTableSlot(sdesc, &TTSOpsMinimalTuple);
	bufs[0] = palloc(bufsize);
	bufs[1] = palloc(bufsize);
	for (;;)
	{
		MinimalTuple mt;
		bool		should_free;

		CHECK_FOR_INTERRUPTS();
		if (pc != NULL)
		{
			mt = SrmClusterParallelNext(pc);
			if (mt == NULL)
				break;
		}
		else
		{
			if (!SrmSorterGetSlot(sorter, true, slot))
				break;
			/* the slot's own tuple (a minimal slot): nothing copied */
			mt = ExecFetchSlotMinimalTuple(slot, &should_free);
			Assert(!should_free);
		}
		n_written += 1;
		rewrite_sorted(rwstate, OldHeap, NewHeap,
					   sorted_payload(mt, slot, pc == NULL, nkeys, keys_end), as_is,
					   values, isnull, bufs, &bufsize);
		pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_TUPLES_WRITTEN,
									 n_written);
	}
	ExecDropSingleTupleTableSlot(slot);
	if (pc != NULL)
	{
		SrmClusterParallelStats(pc, &stats);
		parallel = SrmClusterParallelDescribe(pc);
		SrmClusterParallelEnd(pc);
	}
	else
	{
		SrmSorterGetStats(sorter, &stats);
		SrmSorterEnd(sorter);
	}
	log_sort(OldHeap, &stats, parallel, n_written, start);

	/* the last pages, and the sync if needed */
	end_heap_rewrite(rwstate);

	pfree(values);
	pfree(isnull);
	pfree(bufs[0]);
	pfree(bufs[1]);
}

/*
 * srm_copy_for_cluster
 *		relation_copy_for_cluster of the swapped routine: put heapam's
 *		routine back, then sort through srmsort or let heapam copy.
 */
static void
srm_copy_for_cluster(Relation OldHeap, Relation NewHeap, Relation OldIndex,
					 bool use_sort, TransactionId OldestXmin,
					 SRM_COPY_FOR_CLUSTER_SNAPSHOT_PARAM
					 TransactionId *xid_cutoff, MultiXactId *multi_cutoff,
					 double *num_tuples, double *tups_vacuumed,
					 double *tups_recently_dead)
{
	const TableAmRoutine *heapam = GetHeapamTableAmRoutine();
	bool		mine = (OldHeap == swapped_rel);

	/* the swap lasts for this one call */
	OldHeap->rd_tableam = heapam;
	if (mine)
		swapped_rel = NULL;

	if (!mine || !use_sort || SRM_COPY_FOR_CLUSTER_CONCURRENT ||
		OldIndex == NULL || OldIndex->rd_rel->relam != BTREE_AM_OID ||
		!sort_worth_it(OldHeap))
	{
		heapam->relation_copy_for_cluster(OldHeap, NewHeap, OldIndex, use_sort,
										  OldestXmin,
										  SRM_COPY_FOR_CLUSTER_SNAPSHOT_ARG
										  xid_cutoff, multi_cutoff, num_tuples,
										  tups_vacuumed, tups_recently_dead);
		return;
	}
	sort_and_rewrite(OldHeap, NewHeap, OldIndex, OldestXmin, xid_cutoff,
					 multi_cutoff, num_tuples, tups_vacuumed,
					 tups_recently_dead);
}
