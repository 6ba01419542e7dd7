/*-------------------------------------------------------------------------
 *
 * clusterscan.c
 *	  CLUSTER's scan into srmsort: one participant's part.
 *
 * What heapam's copy for cluster does before its sort, for the whole table
 * (serial) or for one participant's share of a parallel scan: each tuple
 * seen with SnapshotAny is judged by HeapTupleSatisfiesVacuum against the
 * caller's OldestXmin; dead ones are counted (and, in the leader, given to
 * the rewrite as heapam gives them), the others go to the sort as their
 * index keys (FormIndexDatum: columns or expressions, evaluated once) and
 * the whole tuple -- header, TID and data -- as one bytea.
 *
 * Why a worker may only count its dead tuples: heapam hands dead tuples to
 * rewrite_heap_dead_tuple so that a tuple written earlier whose update
 * chain ends in them can be forgotten.  In the sort path nothing has been
 * written while the table is scanned, so the rewrite has no such tuple yet
 * and the call only looks and finds nothing; the leader makes it for its
 * own share all the same, as heapam would.
 *
 * IDENTIFICATION
 *	  src/builds/clusterscan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/relscan.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "catalog/pg_type.h"
#include "commands/progress.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "base/compat.h"
#include "base/settings.h"
#include "builds/clusterscan.h"

/* a participant adds its tuples to the shared count this many at a time */
#define SRM_CLUSTER_TUPLE_BATCH 256

/*
 * SrmClusterSortDesc
 *		See clusterscan.h.
 */
TupleDesc
SrmClusterSortDesc(Relation index)
{
	TupleDesc	idesc = RelationGetDescr(index);
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
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
 *		verdict, counted and warned about as heapam's copy for cluster does
 *		(warn: now; otherwise the WARNINGs are counted for the leader).
 */
static bool
classify(Relation heap, HeapTuple tuple, Buffer buf,
		 TransactionId OldestXmin, bool is_system_catalog, bool warn,
		 SrmClusterCounts *counts)
{
	bool		isdead = false;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	switch (HeapTupleSatisfiesVacuum(tuple, OldestXmin, buf))
	{
		case HEAPTUPLE_DEAD:
			isdead = true;
			break;
		case HEAPTUPLE_RECENTLY_DEAD:
			counts->tups_recently_dead += 1;
			break;
		case HEAPTUPLE_LIVE:
			break;
		case HEAPTUPLE_INSERT_IN_PROGRESS:
			/* ours, or a catalog's; copied as live either way */
			if (!is_system_catalog &&
				!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data)))
			{
				if (warn)
					elog(WARNING, "concurrent insert in progress within table \"%s\"",
						 RelationGetRelationName(heap));
				else
					counts->insert_in_progress += 1;
			}
			break;
		case HEAPTUPLE_DELETE_IN_PROGRESS:
			/* copied as recently dead */
			if (!is_system_catalog &&
				!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(tuple->t_data)))
			{
				if (warn)
					elog(WARNING, "concurrent delete in progress within table \"%s\"",
						 RelationGetRelationName(heap));
				else
					counts->delete_in_progress += 1;
			}
			counts->tups_recently_dead += 1;
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
 *		Put one heap tuple (its index keys in keyvals) into the sort as
 *		keys + bytea(t_self, tuple).  *buf is a reusable palloc'd buffer of
 *		*bufsize bytes for the bytea.
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
 * SrmClusterScan
 *		See clusterscan.h.
 */
void
SrmClusterScan(Relation heap, Relation index, TableScanDesc scan,
			   SrmSorter *sorter, TransactionId OldestXmin,
			   RewriteState rwstate, bool report, SrmClusterShared *shared,
			   SrmClusterCounts *counts)
{
	bool		is_system_catalog = IsSystemRelation(heap);
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	IndexInfo  *ii = BuildIndexInfo(index);
	TupleDesc	sdesc = SrmClusterSortDesc(index);
	EState	   *estate = CreateExecutorState();
	HeapScanDesc hscan = (HeapScanDesc) scan;
	Datum		keyvals[INDEX_MAX_KEYS];
	bool		keynulls[INDEX_MAX_KEYS];
	Size		bufsize = BLCKSZ;
	char	   *buf = palloc(bufsize);
	TupleTableSlot *slot;
	TupleTableSlot *sortslot;
	BlockNumber prev_cblock = InvalidBlockNumber;
	uint64		unshared = 0;

	slot = table_slot_create(heap, NULL);
	GetPerTupleExprContext(estate)->ecxt_scantuple = slot;
	sortslot = MakeSingleTupleTableSlot(sdesc, &TTSOpsVirtual);

	for (;;)
	{
		HeapTuple	tuple;

		CHECK_FOR_INTERRUPTS();

		if (!table_scan_getnextslot(scan, ForwardScanDirection, slot))
			break;
		if (prev_cblock != hscan->rs_cblock)
		{
			prev_cblock = hscan->rs_cblock;
			if (shared != NULL)
			{
				uint64		blocks = pg_atomic_add_fetch_u64(&shared->blocks, 1);

				if (report)
					pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_BLKS_SCANNED,
												 (int64) blocks);
			}
			else if (report)
			{
				/* a synchronized scan may start midway: count from its start */
				pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_BLKS_SCANNED,
											 (hscan->rs_cblock + hscan->rs_nblocks -
											  hscan->rs_startblock) % hscan->rs_nblocks + 1);
			}
		}

		tuple = ExecFetchSlotHeapTuple(slot, false, NULL);
		if (classify(heap, tuple, ((BufferHeapTupleTableSlot *) slot)->buffer,
					 OldestXmin, is_system_catalog, rwstate != NULL, counts))
		{
			counts->tups_vacuumed += 1;
			/* the rewrite follows update chains through dead tuples too */
			if (rwstate != NULL && rewrite_heap_dead_tuple(rwstate, tuple))
			{
				/* a recently dead tuple before it is now known dead */
				counts->tups_vacuumed += 1;
				counts->tups_recently_dead -= 1;
			}
			continue;
		}

		counts->num_tuples += 1;
		FormIndexDatum(ii, slot, estate, keyvals, keynulls);
		put_tuple(sorter, sortslot, tuple, nkeys, keyvals, keynulls, &buf,
				  &bufsize);
		ResetPerTupleExprContext(estate);
		if (shared != NULL)
		{
			if (++unshared >= SRM_CLUSTER_TUPLE_BATCH)
			{
				uint64		all = pg_atomic_add_fetch_u64(&shared->tuples, unshared);

				unshared = 0;
				if (report)
					pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_TUPLES_SCANNED,
												 (int64) all);
			}
		}
		else if (report)
			pgstat_progress_update_param(SRM_PROGRESS_CLUSTER_TUPLES_SCANNED,
										 counts->num_tuples);
	}
	if (shared != NULL && unshared > 0)
		pg_atomic_fetch_add_u64(&shared->tuples, unshared);

	ExecDropSingleTupleTableSlot(slot);
	ExecDropSingleTupleTableSlot(sortslot);
	FreeExecutorState(estate);
	pfree(buf);
}

/*
 * SrmClusterWarn
 *		See clusterscan.h.
 */
void
SrmClusterWarn(Relation heap, const SrmClusterCounts *counts)
{
	double		i;

	for (i = 0; i < counts->insert_in_progress; i++)
		elog(WARNING, "concurrent insert in progress within table \"%s\"",
			 RelationGetRelationName(heap));
	for (i = 0; i < counts->delete_in_progress; i++)
		elog(WARNING, "concurrent delete in progress within table \"%s\"",
			 RelationGetRelationName(heap));
}
