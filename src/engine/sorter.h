/*-------------------------------------------------------------------------
 *
 * sorter.h
 *	  The srmsort engine's one public API, the counterpart of tuplesort.
 *
 * A sorter accepts tuples (heap flavour: tuple slots sorted on columns;
 * index flavour: btree index tuples sorted on the index keys, then heap TID),
 * sorts them within a memory budget, and hands them back in order.  When
 * the input does not fit in memory it becomes a parallel-disk Simple
 * Randomized Mergesort over the workfile disks (see sorter.c).
 *
 * Life cycle: Begin -> Put* -> Perform -> Get* [-> Rescan/MarkPos/RestorePos]
 * -> End; the reading calls (Get*, Rescan, MarkPos, RestorePos) are
 * sortread.h's, which this header includes.  All memory lives in a context owned by the sorter, a child of the
 * context current at Begin; End (or deleting that parent context, e.g. on
 * error) releases memory, workfiles and in-flight I/O.
 *
 * Which call is legal when (anything else is an internal error, "invalid
 * sorter state", as tuplesort's; the states are sorter.c's):
 *
 *	 after Begin, and while putting tuples:
 *			 Put*, Perform; parallel builds: UseShared (before the first
 *			 tuple), FinishRuns, AdoptRuns (no tuples of its own)
 *	 after FinishRuns:	ExportRuns
 *	 after Perform:		Get*; Rescan, MarkPos, RestorePos (RANDOMACCESS
 *						only); Perform again is an error
 *	 always:			GetStats, End
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/engine/sorter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SORTER_H
#define SRM_SORTER_H

#include "access/itup.h"
#include "executor/tuptable.h"
#include "utils/relcache.h"

#include "engine/sortread.h"
#include "engine/sortruns.h"
#include "engine/sortstats.h"

/*
 * Heap flavour: sort tuples of tupdesc on nkeys columns, as
 * tuplesort_begin_heap.  workMemKB is the budget (work_mem); estInputBytes
 * is the planner's estimate of the input size (0 if unknown), used only to
 * choose the block size before the first run is written.
 */
extern SrmSorter *SrmSorterBeginHeap(TupleDesc tupdesc, int nkeys,
									 AttrNumber *attNums, Oid *sortOperators,
									 Oid *sortCollations, bool *nullsFirstFlags,
									 int workMemKB, double estInputBytes,
									 int flags);

/*
 * Index flavour: sort btree index tuples of indexRel on its key columns
 * (with its opclasses, collations, DESC and NULLS FIRST), then on heap TID,
 * like tuplesort_begin_index_btree.  Uniqueness is NOT checked here: the
 * caller checks the sorted stream (see btload.c).  estRows is the heap's
 * estimated row count (0: unknown), for the block size.
 */
extern SrmSorter *SrmSorterBeginIndex(Relation heapRel, Relation indexRel,
									  int workMemKB, double estRows,
									  int flags);

/*
 * Index flavour for GiST: index tuples of indexRel (their keys already
 * compressed by the opclass) sorted as tuplesort_begin_index_gist sorts
 * them: each key column by its opclass's sortsupport, NULLs last, then
 * heap TID.  Read back with SrmSorterGetIndexTuple.
 */
extern SrmSorter *SrmSorterBeginGist(Relation indexRel, int workMemKB,
									 double estRows, int flags);

/*
 * Heap flavour in the order of btree index indexRel: tuples of tupdesc,
 * whose first columns are the index's key columns, sorted on them with
 * the index's opclasses, collations, DESC and NULLS FIRST, as
 * tuplesort_begin_cluster sorts (CLUSTER's sort: cluster.c).  tupdesc must
 * outlive the sorter.
 */
extern SrmSorter *SrmSorterBeginIndexOrder(TupleDesc tupdesc,
										   Relation indexRel, int workMemKB,
										   double estInputBytes, int flags);

/* Copy one tuple into the sort. */
extern void SrmSorterPutSlot(SrmSorter *sorter, TupleTableSlot *slot);
extern void SrmSorterPutIndexValues(SrmSorter *sorter, Relation indexRel,
									ItemPointer self, Datum *values,
									bool *isnull);

/* All input is in: sort, or finish runs and plan the merges. */
extern void SrmSorterPerform(SrmSorter *sorter);

/* The facts of the sort (in words: sortstats.h). */
extern void SrmSorterGetStats(SrmSorter *sorter, SrmSortStats *stats);

/*
 * Parallel index builds (pbuild.c).  Each participant's sorter, told where
 * to write (SrmSorterUseShared, before the first tuple), only forms runs:
 * SrmSorterFinishRuns writes what is in memory as a last run and
 * SrmSorterExportRuns describes the runs in a BufFile.  The leader's
 * sorter, over the same disks, takes them over with SrmSorterAdoptRuns
 * (once per participant) and merges them at SrmSorterPerform as if it had
 * written them itself.
 */
struct SrmSharedDisks;
struct BufFile;

typedef struct SrmSorterShare
{
	struct SrmSharedDisks *disks;
	int			block_size;		/* the same for all participants */
	int			myfile;			/* the file number this sorter writes */
	int			first_disk;		/* its new runs' disks: first_disk .. */
	int			ndisks;			/* .. + ndisks - 1 (0: all) */
	int			peer_first;		/* files of others it reads */
	int			npeers;
} SrmSorterShare;

extern void SrmSorterUseShared(SrmSorter *sorter, const SrmSorterShare *share);
extern void SrmSorterFinishRuns(SrmSorter *sorter);
extern int64 SrmSorterExportRuns(SrmSorter *sorter, struct BufFile *f);
extern int64 SrmSorterAdoptRuns(SrmSorter *sorter, struct BufFile *f);

/* Release everything; the sorter pointer is invalid afterwards. */
extern void SrmSorterEnd(SrmSorter *sorter);

#endif							/* SRM_SORTER_H */
