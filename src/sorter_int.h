/*-------------------------------------------------------------------------
 *
 * sorter_int.h
 *	  The sorter's state, shared by its run formation (sorter.c) and its
 *	  merge planning (mergeplan.c); nothing else includes this.
 *
 * IDENTIFICATION
 *	  src/sorter_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SORTER_INT_H
#define SRM_SORTER_INT_H

#include "merge.h"
#include "runs.h"
#include "scan.h"
#include "sorter.h"

typedef enum SrmSortState
{
	SS_INITIAL,					/* loading, everything still in memory */
	SS_BUILDRUNS,				/* loading, runs being written */
	SS_SORTEDINMEM,				/* sorted in memory */
	SS_SORTEDONDISK,			/* sorted into one run, for random access */
	SS_FINALMERGE				/* final merge streams the result */
} SrmSortState;

struct SrmSorter
{
	MemoryContext cxt;
	MemoryContextCallback cb;
	bool		ended;
	SrmKeys    *keys;
	int			flags;
	Size		budget;
	double		est_input;
	double		est_rows;		/* index sorts: the heap's estimated rows */
	SrmSortState state;
	bool		dsm;
	SrmMemLoad	load;

	/* external sorts */
	SrmTapeSet *ts;
	int			block_size;
	SrmRun	  **runs;
	int			nruns;
	int			maxruns;
	Size		runs_meta;		/* the runs' bookkeeping (forecast_bytes) */
	int			nwbufs;
	char	  **wbufs;
	char	   *wbufs_raw;		/* the allocation behind wbufs */
	SrmIo	   *wios;
	SrmMerge   *merge;
	SrmScan    *scan;
	SrmMergeCounters counters;
	int			merge_order;
	int			passes;
	int64		nruns_initial;
	bool		tight_memory;	/* not even the smallest merge fits */
	bool		no_cascade;		/* early merges did not fit: never again */
	bool		job;			/* registered in shared memory */
	SrmSorterShare *share;		/* parallel builds: the shared disks */

	/* reading, as tuplesort: next tuple forward, and whether at the end */
	int64		current;
	bool		eof_reached;
	int64		markpos;
	bool		markpos_eof;

	/* statistics */
	int64		tuples;
	int64		input_bytes;
	Size		mem_peak;
};

/*
 * The bookkeeping of finished runs (a block reference and a forecast key per
 * block, and each run's header) is charged to the budget up to this
 * fraction of it.  Past it, run formation merges the smallest runs early
 * (SrmPlanCascade) rather than shrinking the loads: charged in full, the
 * bookkeeping starved run formation and merges of huge sorts in little
 * memory (measured: 50M records at 4MB, 6.8 GB of workfiles in 16kB
 * blocks, 10 MB of bookkeeping: 36633 runs, merge order 2, 16 passes,
 * 2.8x slower than PostgreSQL).  Any excess left (no merge fits) is held
 * beyond the budget.
 */
#define SRM_META_CHARGED_SHARE	4	/* a quarter */

/*
 * Once the bookkeeping held in memory passes this fraction of the budget,
 * runs created from then on keep theirs in metadata workfiles, paged in
 * while they are written or merged (paper §4.1.2); the rule above then
 * only matters when the runs' headers themselves are that many (hundreds
 * of runs in a small budget).
 */
#define SRM_META_RESIDENT_SHARE 16

static inline Size
meta_bytes(SrmSorter *s)
{
	return s->runs_meta;
}

static inline Size
meta_charged(SrmSorter *s, Size meta)
{
	return Min(meta, s->budget / SRM_META_CHARGED_SHARE);
}

/* The part of the runs' bookkeeping charged to the budget. */
static inline Size
forecast_bytes(SrmSorter *s)
{
	return meta_charged(s, meta_bytes(s));
}

/* Bytes charged to the budget right now. */
extern Size SrmSorterMemUsed(SrmSorter *s);

/* Record the memory peak: used (charged) plus the uncharged bookkeeping. */
extern void SrmSorterNoteMem(SrmSorter *s, Size used);

/* A new, empty run; expect is the bookkeeping it will probably need. */
extern SrmRun *SrmSorterNewRun(SrmSorter *s, Size expect);

/* Append a finished run to the sort's list of runs. */
extern void SrmSorterAddRun(SrmSorter *s, SrmRun *run);

/* mergeplan.c: how many disks a budget can merge over, and the smallest
 * block size to consider */
extern int	SrmPlanDisks(Size budget, bool dsm, int *min_block);

/* mergeplan.c: the block size for the expected input, at the first run */
extern int	SrmPlanBlockSize(SrmSorter *s, int D, int min_block);

/* mergeplan.c: merge runs early while their headers outgrow their share;
 * false if no merge fits in the budget */
extern bool SrmPlanCascade(SrmSorter *s);

/* mergeplan.c: plan and run the merges, start the final merge or scan */
extern void SrmPlanMerges(SrmSorter *s);

#endif							/* SRM_SORTER_INT_H */
