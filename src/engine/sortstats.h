/*-------------------------------------------------------------------------
 *
 * sortstats.h
 *	  The facts of a sort (the sorter gathers them: SrmSorterGetStats), and
 *	  in words: EXPLAIN's properties in every format, the server log's line.
 *
 * IDENTIFICATION
 *	  src/engine/sortstats.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SORTSTATS_H
#define SRM_SORTSTATS_H

#include "portability/instr_time.h"

struct ExplainState;

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
 * The facts of one sort, for EXPLAIN ANALYZE and the server log.  Byte
 * counts are bytes; times are milliseconds.
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
 * The facts of a sort as EXPLAIN ANALYZE shows them, in es's format; the
 * disks' own facts under VERBOSE.
 */
extern void SrmSortStatsExplain(const SrmSortStats *st,
								struct ExplainState *es);

/*
 * A parallel worker's facts as one value of EXPLAIN's TEXT format ("Sort
 * Method: ...  Runs: ..."), palloc'd.
 */
extern char *SrmSortStatsWorkerText(const SrmSortStats *st);

/*
 * The facts of a sort as one line for the server log ("Sort method ...,
 * disks ..., ..."; no final period), palloc'd in the current context: the
 * srmsort.trace line's and the index build's DETAIL.
 */
extern char *SrmSortStatsText(const SrmSortStats *st);

/*
 * Is a trace line of a build or CLUSTER sort wanted (srmsort.trace, or
 * DEBUG1 logged)?  If so, *seconds since start.
 */
extern bool SrmTraceSeconds(instr_time start, double *seconds);

#endif							/* SRM_SORTSTATS_H */
