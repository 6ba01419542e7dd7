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
 * -> End.  All memory lives in a context owned by the sorter, a child of the
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
 * IDENTIFICATION
 *	  src/sorter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SORTER_H
#define SRM_SORTER_H

#include "access/itup.h"
#include "executor/tuptable.h"
#include "utils/relcache.h"

#include "mergeplan.h"

typedef struct SrmSorter SrmSorter;

/* What the merge planner takes from the settings and the runs' format. */
extern SrmPlanLimits SrmSorterPlanLimits(void);

/* flags for SrmSorterBegin* */
#define SRM_SORT_NONE			0
#define SRM_SORT_RANDOMACCESS	(1 << 0)	/* rescan, mark/restore, backward */

typedef enum SrmSortMethod
{
	SRM_METHOD_STILL_RUNNING = 0,	/* not sorted yet */
	SRM_METHOD_QUICKSORT,		/* in memory, comparison sort */
	SRM_METHOD_RADIX,			/* in memory, radix sort on normalized keys */
	SRM_METHOD_SRM,				/* external: Simple Randomized Mergesort */
	SRM_METHOD_DSM,				/* external: disk-striped mergesort baseline */
	SRM_METHOD_SRM_MATERIALIZED,	/* SRM, result written for random access */
	SRM_METHOD_DSM_MATERIALIZED,	/* DSM, result written for random access */
	SRM_METHOD_PARTICIPANT_RUNS /* parallel build: runs left to worker 0's merge */
} SrmSortMethod;

/* did the sort write workfiles? */
#define SRM_METHOD_IS_EXTERNAL(m)	((m) >= SRM_METHOD_SRM)

/* What a sort did on one of its disks (EXPLAIN ANALYZE VERBOSE). */
typedef struct SrmSortDiskStats
{
	int64		bytes_read;
	int64		bytes_written;
	double		busy_ms;		/* time a request of it was in flight */
	int			share;			/* its blocks of a period of the stripe */
} SrmSortDiskStats;

#define SRM_STATS_DISKS		64	/* SRM_MAX_DISKS */

/*
 * The facts of one sort, for EXPLAIN ANALYZE, the server log and the views.
 * Byte counts are bytes; times are milliseconds.
 */
typedef struct SrmSortStats
{
	SrmSortMethod method;
	int			ndisks;			/* workfile disks used (0 if in memory) */
	int			disks_left_out; /* of the partition, for too small a budget */
	int			block_size;		/* bytes per run block actually used */
	int64		tuples;			/* tuples put */
	int64		input_bytes;	/* bytes of tuples as stored in runs */
	int64		mem_peak;		/* peak memory charged to the budget */
	int64		mem_budget;		/* the budget in bytes */
	int64		meta_paged;		/* bytes of run bookkeeping in metadata files */
	int64		runs;			/* initial runs written */
	int			merge_order;	/* R of the merges */
	int			passes;			/* merge passes incl. the final merge */
	int64		parallel_reads; /* Parallel_Read operations issued */
	int64		blocks_read;
	int64		blocks_written;
	double		nu;				/* parallel_reads / (blocks_read / L),
								 * L the stripe's period (D if equal) */
	int64		flushes;		/* prefetched blocks flushed unread */
	int64		stalls;			/* leading blocks read on demand */
	int64		temp_written;	/* bytes */
	int64		temp_read;		/* bytes */
	int64		temp_peak;		/* peak bytes allocated in workfiles */
	double		io_wait_ms;		/* time spent waiting for I/O */
	bool		direct_io;		/* workfiles with O_DIRECT */
	int			stripe_width;	/* L */
	int			weight_source;	/* SrmWeightSource (disks.h) */
	char		disk_names[256];	/* comma-separated tablespace names */
	SrmSortDiskStats disk[SRM_STATS_DISKS]; /* ndisks entries */
} SrmSortStats;

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

/*
 * Fetch the next tuple into slot (as a MinimalTuple, not owned by the slot,
 * valid until the next call).  Returns false at the end.  forward = false
 * needs SRM_SORT_RANDOMACCESS.
 */
extern bool SrmSorterGetSlot(SrmSorter *sorter, bool forward,
							 TupleTableSlot *slot);

/* Index flavour: next index tuple, valid until the next call; NULL at end. */
extern IndexTuple SrmSorterGetIndexTuple(SrmSorter *sorter);

/* Random access (SRM_SORT_RANDOMACCESS only). */
extern void SrmSorterRescan(SrmSorter *sorter);
extern void SrmSorterMarkPos(SrmSorter *sorter);
extern void SrmSorterRestorePos(SrmSorter *sorter);

extern void SrmSorterGetStats(SrmSorter *sorter, SrmSortStats *stats);
extern const char *SrmSortMethodName(SrmSortMethod method);

/*
 * The facts of a sort as one line for the server log ("Sort method ...,
 * disks ..., ..."; no final period), palloc'd in the current context: the
 * srmsort.trace line's and the index build's DETAIL.
 */
extern char *SrmSortStatsText(const SrmSortStats *st);

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
