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
 * PostgreSQL's warnings for the in-progress ones), then each sorted tuple
 * re-formed against the new table's descriptor (dropped columns as NULLs)
 * and handed to heap's rewrite API (rewrite_heap_tuple), which freezes,
 * keeps update chains, writes the pages and TOAST as it does for
 * PostgreSQL's sort.  The counts returned and the progress reported are
 * the same.
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
 *	  src/cluster.c
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

#include "build.h"
#include "citus.h"
#include "cluster.h"
#include "compat.h"
#include "sorter.h"
#include "sortstats.h"
#include "srmsort.h"
#include "utility.h"

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
 * sort_desc
 *		The sort records' descriptor: the index's key columns, then the
 *		heap tuple as a bytea.
 */
static TupleDesc
sort_desc(Relation index, int nkeys)
{
	TupleDesc	idesc = RelationGetDescr(index);
	TupleDesc	desc = CreateTemplateTupleDesc(nkeys + 1);
	int			i;

	for (i = 0; i < nkeys; i++)
	{
		Form_pg_attribute att = TupleDescAttr(idesc, i);

		TupleDescInitEntry(desc, i + 1, NULL, att->atttypid, att->atttypmod, 0);
		TupleDescInitEntryCollation(desc, i + 1, att->attcollation);
	}
	TupleDescInitEntry(desc, nkeys + 1, NULL, BYTEAOID, -1, 0);
	SrmTupleDescFinalize(desc);
	return desc;
}

/*
 * classify
 *		Is the scanned tuple dead for CLUSTER?  HeapTupleSatisfiesVacuum's
 *		verdict, counted and warned about as heapam's copy for cluster does.
 */
static bool
classify(Relation OldHeap, HeapTuple tuple, Buffer buf,
		 TransactionId OldestXmin, bool is_system_catalog,
		 double *tups_recently_dead)
{
	bool		isdead = false;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	switch (HeapTupleSatisfiesVacuum(tuple, OldestXmin, buf))
	{
		case HEAPTUPLE_DEAD:
			isdead = true;
			break;
		case HEAPTUPLE_RECENTLY_DEAD:
			*tups_recently_dead += 1;
			break;
		case HEAPTUPLE_LIVE:
			break;
		case HEAPTUPLE_INSERT_IN_PROGRESS:
			/* ours, or a catalog's; copied as live either way */
			if (!is_system_catalog &&
				!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data)))
				elog(WARNING, "concurrent insert in progress within table \"%s\"",
					 RelationGetRelationName(OldHeap));
			break;
		case HEAPTUPLE_DELETE_IN_PROGRESS:
			/* copied as recently dead */
			if (!is_system_catalog &&
				!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(tuple->t_data)))
				elog(WARNING, "concurrent delete in progress within table \"%s\"",
					 RelationGetRelationName(OldHeap));
			*tups_recently_dead += 1;
			break;
		default:
			elog(ERROR, "unexpected HeapTupleSatisfiesVacuum result");
			break;
	}
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	return isdead;
}

/*
 * put_tuple
 *		Put one heap tuple (in scan slot, its index keys in keyvals) into
 *		the sort as keys + bytea(t_self, tuple).  *buf is a reusable
 *		palloc'd buffer of *bufsize bytes for the bytea.
 */
static void
put_tuple(SrmSorter *sorter, TupleTableSlot *sortslot, HeapTuple tuple,
		  int nkeys, Datum *keyvals, bool *keynulls, char **buf,
		  Size *bufsize)
{
	Size		len = VARHDRSZ + sizeof(ItemPointerData) + tuple->t_len;

	if (len > *bufsize)
	{
		*bufsize = Max(len, 2 * *bufsize);
		*buf = repalloc(*buf, *bufsize);
	}
	SET_VARSIZE(*buf, len);
	memcpy(VARDATA(*buf), &tuple->t_self, sizeof(ItemPointerData));
	memcpy(VARDATA(*buf) + sizeof(ItemPointerData), tuple->t_data, tuple->t_len);

	ExecClearTuple(sortslot);
	memcpy(sortslot->tts_values, keyvals, nkeys * sizeof(Datum));
	memcpy(sortslot->tts_isnull, keynulls, nkeys * sizeof(bool));
	sortslot->tts_values[nkeys] = PointerGetDatum(*buf);
	sortslot->tts_isnull[nkeys] = false;
	ExecStoreVirtualTuple(sortslot);
	SrmSorterPutSlot(sorter, sortslot);
}

/*
 * rewrite_sorted
 *		Hand one sorted record's heap tuple to the rewrite, re-formed
 *		against the new table's descriptor (reform_and_rewrite_tuple's
 *		work).  *buf is a reusable MAXALIGNed buffer of *bufsize bytes.
 */
static void
rewrite_sorted(RewriteState rwstate, Relation OldHeap, Relation NewHeap,
			   TupleTableSlot *outslot, int nkeys, Datum *values,
			   bool *isnull, char **buf, Size *bufsize)
{
	TupleDesc	oldTupDesc = RelationGetDescr(OldHeap);
	TupleDesc	newTupDesc = RelationGetDescr(NewHeap);
	bool		pnull;
	struct varlena *payload;
	Size		len;
	HeapTupleData old;
	HeapTuple	copied;
	int			i;

	payload = (struct varlena *) DatumGetPointer(slot_getattr(outslot, nkeys + 1,
															  &pnull));
	Assert(!pnull);
	len = VARSIZE_ANY_EXHDR(payload) - sizeof(ItemPointerData);
	if (len > *bufsize)
	{
		*bufsize = Max(len, 2 * *bufsize);
		*buf = repalloc(*buf, *bufsize);
	}
	memcpy(&old.t_self, VARDATA_ANY(payload), sizeof(ItemPointerData));
	memcpy(*buf, VARDATA_ANY(payload) + sizeof(ItemPointerData), len);
	old.t_len = len;
	old.t_tableOid = RelationGetRelid(OldHeap);
	old.t_data = (HeapTupleHeader) *buf;

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
log_sort(Relation OldHeap, SrmSorter *sorter, double ntuples,
		 instr_time start)
{
	SrmSortStats s;
	double		seconds;

	if (!SrmTraceSeconds(start, &seconds))
		return;
	SrmSorterGetStats(sorter, &s);
	ereport(srmsort_trace ? LOG : DEBUG1,
			(errmsg_plural("srmsort: sorted table \"%s\" for CLUSTER: %.0f tuple, %.3f s",
						   "srmsort: sorted table \"%s\" for CLUSTER: %.0f tuples, %.3f s",
						   (unsigned long) ntuples,
						   RelationGetRelationName(OldHeap), ntuples, seconds),
			 errdetail_internal("%s.", SrmSortStatsText(&s))));
}

/*
 * sort_and_rewrite
 *		CLUSTER's scan, sort and rewrite through srmsort; the arguments are
 *		relation_copy_for_cluster's (see the file header).
 */
static void
sort_and_rewrite(Relation OldHeap, Relation NewHeap, Relation OldIndex,
				 TransactionId OldestXmin, TransactionId *xid_cutoff,
				 MultiXactId *multi_cutoff, double *num_tuples,
				 double *tups_vacuumed, double *tups_recently_dead)
{
	bool		is_system_catalog = IsSystemRelation(OldHeap);
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(OldIndex);
	int			natts = RelationGetDescr(NewHeap)->natts;
	IndexInfo  *ii = BuildIndexInfo(OldIndex);
	TupleDesc	sdesc = sort_desc(OldIndex, nkeys);
	EState	   *estate = CreateExecutorState();
	Datum		keyvals[INDEX_MAX_KEYS];
	bool		keynulls[INDEX_MAX_KEYS];
	Datum	   *values = palloc(natts * sizeof(Datum));
	bool	   *isnull = palloc(natts * sizeof(bool));
	Size		bufsize = BLCKSZ;
	char	   *buf = palloc(bufsize);
	RewriteState rwstate;
	SrmSorter  *sorter;
	TableScanDesc scan;
	HeapScanDesc hscan;
	TupleTableSlot *slot;
	TupleTableSlot *sortslot;
	BlockNumber prev_cblock = InvalidBlockNumber;
	double		n_written = 0;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	rwstate = begin_heap_rewrite(OldHeap, NewHeap, OldestXmin, *xid_cutoff,
								 *multi_cutoff);
	sorter = SrmSorterBeginIndexOrder(sdesc, OldIndex, maintenance_work_mem,
									  (double) RelationGetNumberOfBlocks(OldHeap) * BLCKSZ,
									  SRM_SORT_NONE);

	pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_PHASE,
								 SRM_PROGRESS_CLUSTER_PHASE_SEQ_SCAN);
	scan = SrmTableBeginScan(OldHeap, SnapshotAny, 0, (ScanKey) NULL);
	hscan = (HeapScanDesc) scan;
	pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_TOTAL_BLKS,
								 hscan->rs_nblocks);

	slot = table_slot_create(OldHeap, NULL);
	GetPerTupleExprContext(estate)->ecxt_scantuple = slot;
	sortslot = MakeSingleTupleTableSlot(sdesc, &TTSOpsVirtual);

	for (;;)
	{
		HeapTuple	tuple;

		CHECK_FOR_INTERRUPTS();

		if (!table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			/* all blocks scanned, also when the last ones were empty */
			pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_BLKS_SCANNED,
										 hscan->rs_nblocks);
			break;
		}
		/* a synchronized scan may start midway: count from its start */
		if (prev_cblock != hscan->rs_cblock)
		{
			pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_BLKS_SCANNED,
										 (hscan->rs_cblock + hscan->rs_nblocks -
										  hscan->rs_startblock) % hscan->rs_nblocks + 1);
			prev_cblock = hscan->rs_cblock;
		}

		tuple = ExecFetchSlotHeapTuple(slot, false, NULL);
		if (classify(OldHeap, tuple, ((BufferHeapTupleTableSlot *) slot)->buffer,
					 OldestXmin, is_system_catalog, tups_recently_dead))
		{
			*tups_vacuumed += 1;
			/* the rewrite follows update chains through dead tuples too */
			if (rewrite_heap_dead_tuple(rwstate, tuple))
			{
				/* a recently dead tuple before it is now known dead */
				*tups_vacuumed += 1;
				*tups_recently_dead -= 1;
			}
			continue;
		}

		*num_tuples += 1;
		FormIndexDatum(ii, slot, estate, keyvals, keynulls);
		put_tuple(sorter, sortslot, tuple, nkeys, keyvals, keynulls, &buf,
				  &bufsize);
		ResetPerTupleExprContext(estate);
		pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_TUPLES_SCANNED,
									 *num_tuples);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	ExecDropSingleTupleTableSlot(sortslot);

	pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_PHASE,
								 SRM_PROGRESS_CLUSTER_PHASE_SORT);
	SrmSorterPerform(sorter);

	pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_PHASE,
								 SRM_PROGRESS_CLUSTER_PHASE_WRITE);
	slot = MakeSingleTupleTableSlot(sdesc, &TTSOpsMinimalTuple);
	while (SrmSorterGetSlot(sorter, true, slot))
	{
		CHECK_FOR_INTERRUPTS();
		n_written += 1;
		rewrite_sorted(rwstate, OldHeap, NewHeap, slot, nkeys, values, isnull,
					   &buf, &bufsize);
		pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_TUPLES_WRITTEN,
									 n_written);
	}
	ExecDropSingleTupleTableSlot(slot);
	log_sort(OldHeap, sorter, n_written, start);
	SrmSorterEnd(sorter);

	/* the last pages, and the sync if needed */
	end_heap_rewrite(rwstate);

	FreeExecutorState(estate);
	pfree(values);
	pfree(isnull);
	pfree(buf);
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
