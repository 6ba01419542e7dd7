/*-------------------------------------------------------------------------
 *
 * mergeplan.c
 *	  Merge planning: the block size of an external sort, the disks it
 *	  uses, the merge orders and passes, and the buffers of every merge.
 *
 * The merges are planned as in the SRM paper §4.1.3: the smallest merge
 * order R that still gives the minimal number of passes with (2R + D)
 * input blocks, 2D output blocks (intermediate merges only) and the
 * charged bookkeeping of all runs within the budget.
 *
 * Everything here is arithmetic on plain numbers (SrmMergeMem, and the
 * settings and sizes it needs as SrmPlanLimits): it reads no sort's state
 * and no setting, and changes nothing.  sortmerge.c runs the merges it plans.
 *
 * IDENTIFICATION
 *	  src/merge/mergeplan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "merge/mergeplan.h"

/*
 * passes_for
 *		Merge passes needed for nruns runs with final merge order rf and
 *		intermediate merge order ri.
 */
static int
passes_for(double nruns, int rf, int ri)
{
	int			p = 1;
	double		cap = rf;

	if (rf < 2)
		return INT_MAX / 2;
	while (cap < nruns)
	{
		if (ri < 2)
			return INT_MAX / 2;
		cap *= ri;
		p++;
	}
	return p;
}

/*
 * srm_order
 *		Largest merge order nbufs buffers allow: 2R + D buffers (SRM) or 2D
 *		per run (DSM), at most max_order (srmsort.max_merge_order).
 */
static int
srm_order(int max_order, bool dsm, double nbufs, int D)
{
	double		r;

	if (dsm)
		r = floor(nbufs / (2.0 * D));
	else
		r = floor((nbufs - D) / 2.0);
	return (int) Max(Min(r, (double) max_order), 0);
}

/*
 * merge_need
 *		Block buffers an intermediate merge of two runs needs over D disks:
 *		SRM 2R + D inputs and 2D outputs, DSM 2D per input and 2D outputs.
 */
static inline int
merge_need(bool dsm, int D)
{
	return dsm ? 6 * D : 3 * D + 4;
}

/*
 * SrmPlanDisks
 *		The most workfile disks (up to limits.max_disks) over which a merge of
 *		two runs fits in the budget beside the charged share of the runs'
 *		bookkeeping, with blocks of SRM_MIN_AUTO_BLOCK_KB; *min_block is
 *		that size, or SRM_TIGHT_BLOCK_KB when not even one disk fits so.
 *
 * A small work_mem is the user's choice, not a mistake: such a sort uses
 * fewer disks and smaller blocks instead of running past its budget (or
 * saying anything to the client).  EXPLAIN ANALYZE shows the disks left
 * out.
 */
int
SrmPlanDisks(SrmPlanLimits limits, Size budget, bool dsm, int *min_block)
{
	double		usable = (double) budget - budget / SRM_META_CHARGED_SHARE;
	int			B = SRM_MIN_AUTO_BLOCK_KB * 1024;
	int			D;

	if (merge_need(dsm, 1) * (double) (B + SRM_BUF_SLACK) > usable)
		B = SRM_TIGHT_BLOCK_KB * 1024;
	*min_block = B;
	for (D = limits.max_disks; D > 1; D--)
		if (merge_need(dsm, D) * (double) (B + SRM_BUF_SLACK) <= usable)
			break;
	return D;
}

/*
 * block_meta
 *		The runs' bookkeeping in memory for total bytes of runs in blocks of
 *		B bytes, per_block of it per block (arrays grown by doubling: a
 *		third more), up to its share.
 */
static double
block_meta(double total, int B, Size budget, Size per_block)
{
	return Min(total / B * 1.33 * per_block,
			   (double) budget / SRM_META_RESIDENT_SHARE);
}

/*
 * block_orders
 *		For blocks of B bytes: the bookkeeping of total bytes of runs
 *		charged to budget (*meta), and the orders of the final (*rf) and
 *		intermediate (*ri, beside its 2D output buffers) merges that the
 *		rest of budget allows over D disks.  The block size rules compare
 *		block sizes by these.
 */
static void
block_orders(SrmPlanLimits limits, bool dsm, Size budget, int D, int B,
			 double total, double *meta, int *rf, int *ri)
{
	double		bufs;

	*meta = block_meta(total, B, budget, limits.block_meta);
	bufs = (budget - *meta) / (B + SRM_BUF_SLACK);
	*rf = srm_order(limits.max_order, dsm, bufs, D);
	*ri = srm_order(limits.max_order, dsm, bufs - 2.0 * D, D);
}

/*
 * block_better
 *		Is a block size whose merges are of orders rf and ri better for
 *		nruns runs than the best so far (fewest passes, then fewest for four
 *		times as many runs)?  Still infeasible: a smaller block is better.
 *		Updates the best.
 */
static bool
block_better(double nruns, int rf, int ri, int *best_p1, int *best_p4)
{
	int			p1 = passes_for(nruns, rf, ri);
	int			p4 = passes_for(4 * nruns, rf, ri);

	if (p1 < *best_p1 || (p1 == *best_p1 && p4 < *best_p4) || p1 >= INT_MAX / 2)
	{
		*best_p1 = p1;
		*best_p4 = p4;
		return true;
	}
	return false;
}

/*
 * SrmPlanBlockSize
 *		The largest block size, between min_block and limits.max_block, that
 *		gives the minimal number of merge passes for the expected input.
 *
 * Called when the first run is due, so the first memory load (first_tuples
 * tuples of first_bytes bytes) tells how many tuples a budget holds and how
 * long they are; the planner's estimate est_input (bytes of heap tuples:
 * the MinimalTuple length plus about 8) gives the rows to expect, or
 * est_rows does (index sorts: the heap's row estimate).  For each block
 * size B, later loads lose the 2D write buffers and the charged part of
 * the runs' bookkeeping (one block reference and forecast entry per block,
 * in arrays grown by doubling, so a third more on average), and the merges
 * lose that bookkeeping too: assuming the full budget instead chooses
 * blocks too large for small budgets, and an extra pass.
 */
int
SrmPlanBlockSize(SrmPlanLimits limits, Size budget, bool dsm, int D,
				 int min_block, double est_rows, double est_input,
				 double first_tuples, double first_bytes)
{
	double		first = Max(first_tuples, 1.0);
	double		avglen = first_tuples > 0 ? first_bytes / first_tuples : 64.0;
	double		rows;
	double		run_bytes;
	int			best = min_block;
	int			best_p1 = INT_MAX;
	int			best_p4 = INT_MAX;
	int			B;

	/* without an estimate, or with a small one, expect a large input */
	rows = est_rows > 0 ? est_rows : est_input / (avglen + 8.0);
	rows = Max(rows, first * (rows > 0 ? 2 : 64));
	/* a record is about as long as its tuple (record.c) */
	run_bytes = rows * avglen;

	/*
	 * Fewest passes for the expected number of runs first; among equals,
	 * fewest for four times as many (an extra pass costs far more than
	 * smaller blocks do); among equals, the largest block.
	 */
	for (B = limits.max_block; B >= min_block; B /= 2)
	{
		double		meta;
		double		load;
		int			rf,
					ri;

		block_orders(limits, dsm, budget, D, B, run_bytes, &meta, &rf, &ri);
		load = (double) budget - 2.0 * D * (B + SRM_BUF_SLACK) - meta;
		if (block_better(ceil(rows / Max(first * load / budget, 1.0)), rf, ri,
						 &best_p1, &best_p4))
			best = B;
	}
	return best;
}

/*
 * SrmPlanParticipantDisks
 *		The disks participant q of n writes its runs to: an equal, disjoint
 *		range when the disks divide evenly among the participants, else
 *		all of them.  The participants' shares of the input are about
 *		equal, so unequal ranges (or one disk for two participants) would
 *		load some disks more than others, and the merge reads at the pace
 *		of the most loaded: a third more time for three participants on 2,
 *		4 or 8 disks.
 */
void
SrmPlanParticipantDisks(int ndisks, int q, int n, int *first, int *count)
{
	if (ndisks % n == 0)
	{
		*first = q * (ndisks / n);
		*count = ndisks / n;
	}
	else
	{
		*first = 0;
		*count = ndisks;
	}
}

/*
 * SrmPlanParallelDisks
 *		The most disks a merge with mergeKB can use (SrmPlanDisks).
 */
int
SrmPlanParallelDisks(SrmPlanLimits limits, int mergeKB)
{
	int			min_block;

	return SrmPlanDisks(limits, (Size) mergeKB * 1024, false, &min_block);
}

/*
 * SrmPlanParallelBlockSize
 *		The block size of a parallel build: nparts participants form runs
 *		of about rows / nparts tuples of tuple_bytes each with runKB, each
 *		writing over part_disks of the D disks, and worker 0 merges all
 *		runs with mergeKB.  SrmPlanBlockSize's rule (fewest passes for the
 *		expected runs, then for four times as many, then the largest
 *		block), with the runs the participants' smaller loads give.
 */
int
SrmPlanParallelBlockSize(SrmPlanLimits limits, int mergeKB, int runKB,
						 int nparts, int D, int part_disks, double rows,
						 double tuple_bytes)
{
	double		merge_budget = (double) mergeKB * 1024;
	double		run_budget = (double) runKB * 1024;
	/* a record is about as long as its tuple (record.c) */
	double		rec = Max(tuple_bytes, 8.0);
	double		total;
	int			min_block;
	int			best;
	int			best_p1 = INT_MAX;
	int			best_p4 = INT_MAX;
	int			B;

	(void) SrmPlanDisks(limits, (Size) merge_budget, false, &min_block);
	best = min_block;
	/* at least two loads per participant; without an estimate, 64 */
	rows = Max(rows, (rows > 0 ? 2.0 : 64.0) * nparts * run_budget / rec);
	total = rows * rec;
	for (B = limits.max_block; B >= min_block; B /= 2)
	{
		double		per = B + SRM_BUF_SLACK;
		double		load = Max(run_budget - 2.0 * part_disks * per, per);
		double		meta;
		int			rf,
					ri;

		block_orders(limits, false, (Size) merge_budget, D, B, total, &meta,
					 &rf, &ri);
		if (block_better(nparts * ceil(total / nparts / load), rf, ri,
						 &best_p1, &best_p4))
			best = B;
	}
	return best;
}

/*
 * merge_buffers
 *		Block buffers avail bytes hold.
 */
static int
merge_buffers(const SrmMergeMem *mm, double avail)
{
	return (int) Max(avail / (mm->block_size + SRM_BUF_SLACK), 0);
}

/*
 * merge_nbufs
 *		Block buffers for a merge of k runs: what memory allows (avail), but
 *		at least what the merge needs (SRM: 2k + D, DSM: 2D per run) and,
 *		for SRM, at most SRM_PREFETCH_READS Parallel_Reads beyond that:
 *		forecasting reads only blocks that will be needed, so more buffers
 *		would only read further ahead, faulting in memory long before use.
 */
static int
merge_nbufs(const SrmMergeMem *mm, int avail, int k)
{
	int			D = mm->ndisks;
	int			need = mm->dsm ? 2 * D * k : 2 * k + D;
	int			n = Max(avail, need);

	if (!mm->dsm)
		n = Min(n, need + SRM_PREFETCH_READS * D);
	return n;
}

/*
 * merge_avail
 *		Memory for a merge's block buffers: the budget less the charged
 *		bookkeeping, what the memory load still holds and, for paged runs,
 *		the page caches of the inputs of a merge of the order memory allows
 *		(and of its output).
 */
static double
merge_avail(const SrmMergeMem *mm)
{
	double		avail = (double) mm->budget -
		SrmMetaCharged(mm->budget, mm->meta) - mm->load;

	if (mm->open_bytes > 0)
	{
		int			r = srm_order(mm->limits.max_order, mm->dsm,
								  merge_buffers(mm, avail), mm->ndisks);

		avail -= (double) mm->open_bytes * (Min(Max(r, 2), mm->nruns) + 1);
	}
	return avail;
}

/*
 * SrmPlanEarlyMerge
 *		During run formation, between runs, once the runs' bookkeeping in
 *		memory has passed its charged share of the budget (paging keeps
 *		the block lists out, but each run's header stays): merge the
 *		smallest runs until it is back under half that share.
 *
 * Only thousands of runs in a small budget get here: rows of kilobytes
 * at a few hundred kB of work_mem.  The merges are the ones the final plan
 * would have made anyway, the smallest runs first, just earlier; the
 * caller has given back the load's memory for their buffers.
 */
bool
SrmPlanEarlyMerge(const SrmMergeMem *mm, int *k, int *nbufs)
{
	int			D = mm->ndisks;
	double		avail;
	int			ri;

	*k = 0;
	*nbufs = 0;
	if (mm->meta <= mm->budget / (2 * SRM_META_CHARGED_SHARE) ||
		mm->nruns <= 2)
		return true;
	avail = merge_avail(mm);
	ri = srm_order(mm->limits.max_order, mm->dsm,
				   merge_buffers(mm, avail) - 2 * D, D);
	/* no merge fits: the final plan will say so (too little memory) */
	if (Min(ri, mm->nruns) < 2)
		return false;
	*k = Min(ri, mm->nruns);
	*nbufs = merge_nbufs(mm, merge_buffers(mm, avail) - 2 * D, *k);
	return true;
}

/*
 * SrmPlanMerges
 *		The merge orders and passes for mm->nruns runs (paper §4.1.3).
 *
 * With too little memory even for the disks and blocks SrmPlanDisks chose
 * (the runs' headers took more than their share) the plan is the smallest
 * workable merge, a little past the budget, and says so (tight).
 */
void
SrmPlanMerges(const SrmMergeMem *mm, SrmMergePlan *plan)
{
	double		avail = merge_avail(mm);
	int			out_bufs = 2 * mm->ndisks;
	int			rf = srm_order(mm->limits.max_order, mm->dsm,
							   merge_buffers(mm, avail), mm->ndisks);
	int			ri = srm_order(mm->limits.max_order, mm->dsm,
							   merge_buffers(mm, avail) - out_bufs, mm->ndisks);
	int			R;

	plan->avail = avail;
	plan->tight = (rf < 2 || (mm->nruns > rf && ri < 2));
	rf = Max(rf, 2);
	ri = Max(ri, 2);
	plan->final_order = rf;
	plan->inter_order = ri;
	plan->passes = passes_for(mm->nruns, rf, ri);

	/* the smallest R with the same number of passes */
	for (R = 2; R < rf; R++)
		if (passes_for(mm->nruns, Min(R, rf), Min(R, ri)) <= plan->passes)
			break;
	plan->merge_order = Min(R, rf);
}

/*
 * SrmPlanNextMerge
 *		The next intermediate merge of plan with nruns runs left, of the
 *		smallest runs first: until the final merge can take the rest, or
 *		(to_one) until one run is left.  Its buffers leave room for the 2D
 *		output buffers.
 */
int
SrmPlanNextMerge(const SrmMergeMem *mm, const SrmMergePlan *plan, int nruns,
				 bool to_one, int *nbufs)
{
	int			k;

	if (to_one)
	{
		if (nruns <= 1)
			return 0;
		k = Min(plan->inter_order, nruns);
	}
	else
	{
		if (nruns <= plan->final_order)
			return 0;
		k = Min(Min(plan->merge_order, plan->inter_order),
				nruns - plan->final_order + 1);
		k = Max(k, 2);
	}
	*nbufs = merge_nbufs(mm, merge_buffers(mm, plan->avail) - 2 * mm->ndisks,
						 k);
	return k;
}

/*
 * SrmPlanFinalBuffers
 *		Input buffers of the final merge of all mm->nruns runs (no output
 *		buffers: it streams to the caller).
 */
int
SrmPlanFinalBuffers(const SrmMergeMem *mm)
{
	return merge_nbufs(mm, merge_buffers(mm, merge_avail(mm)), mm->nruns);
}

/*
 * SrmPlanScanBuffers
 *		Read buffers of the scan of one run: what memory allows, between
 *		D + 2 and 4D + 2 (more would only read further ahead).
 */
int
SrmPlanScanBuffers(const SrmMergeMem *mm)
{
	int			D = mm->ndisks;
	int			nbufs = Max(merge_buffers(mm, merge_avail(mm)), D + 2);

	return Min(nbufs, 4 * D + 2);
}
