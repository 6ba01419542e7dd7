/*-------------------------------------------------------------------------
 *
 * mergeplan.h
 *	  Merge planning: arithmetic on a sort's budget, disks, block size and
 *	  runs.  It decides; sortmerge.c and sorter.c act.
 *
 * IDENTIFICATION
 *	  src/merge/mergeplan.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_MERGEPLAN_H
#define SRM_MERGEPLAN_H

#include "runs/tape.h"			/* SRM_BUF_SLACK */

#define SRM_MIN_AUTO_BLOCK_KB	16	/* the smallest block size chosen */
#define SRM_TIGHT_BLOCK_KB	8	/* ... and where one disk needs smaller */
#define SRM_PREFETCH_READS	8	/* SRM merges: Parallel_Reads of read-ahead
								 * beyond the 2R + D blocks they need */

/*
 * What the planner takes from the rest of srmsort: mergeplan.c reads no
 * setting and knows no other module's types (SrmSorterPlanLimits fills
 * this in).
 */
typedef struct SrmPlanLimits
{
	int			max_disks;		/* SRM_MAX_DISKS */
	int			max_block;		/* srmsort.block_size, in bytes */
	int			max_order;		/* srmsort.max_merge_order */
	Size		block_meta;		/* a run's bookkeeping per block: its block
								 * reference and forecast entry */
} SrmPlanLimits;

/*
 * The runs' bookkeeping in memory (a block reference and a forecast key per
 * block, each run's header) is charged to the budget up to this fraction
 * of it.  Past it, run formation merges the smallest runs early
 * (SrmPlanEarlyMerge) rather than shrinking its loads, which would starve
 * run formation and merges of huge sorts in little memory.  Any excess
 * left (no merge fits) is held beyond the budget.
 */
#define SRM_META_CHARGED_SHARE	4	/* a quarter */

/*
 * Once the bookkeeping in memory passes this fraction of the budget, runs
 * created from then on keep theirs in metadata workfiles (paper §4.1.2);
 * the rule above then only matters when the runs' headers themselves are
 * that many (hundreds of runs in a small budget).
 */
#define SRM_META_RESIDENT_SHARE 16

/* The part of meta bytes of bookkeeping charged to budget. */
static inline Size
SrmMetaCharged(Size budget, Size meta)
{
	return Min(meta, budget / SRM_META_CHARGED_SHARE);
}

/* What a merge's memory depends on, at the time of a decision. */
typedef struct SrmMergeMem
{
	SrmPlanLimits limits;
	Size		budget;			/* the sort's memory budget */
	bool		dsm;			/* DSM: 2D buffers per run, else SRM */
	int			ndisks;			/* D */
	int			block_size;		/* B */
	Size		meta;			/* the runs' bookkeeping in memory */
	Size		load;			/* what the memory load still holds */
	Size		open_bytes;		/* page caches of one paged run (0: none) */
	int			nruns;			/* runs to merge */
} SrmMergeMem;

/* The merges of an external sort (paper §4.1.3). */
typedef struct SrmMergePlan
{
	double		avail;			/* bytes for the merges' block buffers */
	int			final_order;	/* the most runs the final merge can take */
	int			inter_order;	/* ... an intermediate merge (2D outputs) */
	int			merge_order;	/* R: the smallest order as good */
	int			passes;			/* incl. the final merge */
	bool		tight;			/* not even a merge of two fits: the
								 * smallest one runs past the budget */
} SrmMergePlan;

/* The most disks a budget can merge over; *min_block the smallest block
 * size to consider. */
extern int	SrmPlanDisks(SrmPlanLimits limits, Size budget, bool dsm, int *min_block);

/* The block size for the expected input, when the first run is due. */
extern int	SrmPlanBlockSize(SrmPlanLimits limits, Size budget, bool dsm,
							 int D, int min_block, double est_rows,
							 double est_input, double first_tuples,
							 double first_bytes);

/* During run formation: the next early merge (*k runs through *nbufs
 * buffers; *k = 0 when the bookkeeping is back under its share); false if
 * no merge fits in the budget. */
extern bool SrmPlanEarlyMerge(const SrmMergeMem *mm, int *k, int *nbufs);

/* All runs are written: the merge orders and passes. */
extern void SrmPlanMerges(const SrmMergeMem *mm, SrmMergePlan *plan);

/* The next intermediate merge of plan for nruns runs left (to_one: until
 * one run is left): the runs it takes (0: none left to do) and *nbufs. */
extern int	SrmPlanNextMerge(const SrmMergeMem *mm, const SrmMergePlan *plan,
							 int nruns, bool to_one, int *nbufs);

/* Input buffers of the final merge of mm->nruns runs. */
extern int	SrmPlanFinalBuffers(const SrmMergeMem *mm);

/* Read buffers of a scan of one run (random access). */
extern int	SrmPlanScanBuffers(const SrmMergeMem *mm);

/* a parallel build's block size, and the most disks a merge budget can use */
extern int	SrmPlanParallelBlockSize(SrmPlanLimits limits, int mergeKB,
									 int runKB, int nparts, int D,
									 int part_disks, double rows,
									 double tuple_bytes);
extern int	SrmPlanParallelDisks(SrmPlanLimits limits, int mergeKB);

/* the disks participant q of n writes its runs to: [*first, + *count) */
extern void SrmPlanParticipantDisks(int ndisks, int q, int n, int *first,
									int *count);

#endif							/* SRM_MERGEPLAN_H */
