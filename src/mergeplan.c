/*-------------------------------------------------------------------------
 *
 * mergeplan.c
 *	  Merge planning: the block size of an external sort, the merge order
 *	  and passes, the intermediate merges and the start of the final one.
 *
 * The merges are planned as in the SRM paper §4.1.3: the smallest merge
 * order R that still gives the minimal number of passes with (2R + D)
 * input blocks, 2D output blocks (intermediate merges only) and the
 * forecast data of all runs within the budget.  Intermediate merges always
 * merge the smallest runs; the final merge streams to the caller.
 *
 * IDENTIFICATION
 *	  src/mergeplan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "miscadmin.h"

#include "shmem.h"
#include "sorter_int.h"
#include "srmsort.h"

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
 *		Largest merge order m buffers of B bytes allow: 2R + D buffers (SRM)
 *		or 2D per run (DSM).
 */
static int
srm_order(SrmSorter *s, double nbufs, int D)
{
	double		r;

	if (s->dsm)
		r = floor(nbufs / (2.0 * D));
	else
		r = floor((nbufs - D) / 2.0);
	return (int) Max(Min(r, (double) srmsort_max_merge_order), 0);
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
 *		The most workfile disks (up to SRM_MAX_DISKS) over which a merge of
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
SrmPlanDisks(Size budget, bool dsm, int *min_block)
{
	double		usable = (double) budget - budget / SRM_META_CHARGED_SHARE;
	int			B = SRM_MIN_AUTO_BLOCK_KB * 1024;
	int			D;

	if (merge_need(dsm, 1) * (double) (B + SRM_BUF_SLACK) > usable)
		B = SRM_TIGHT_BLOCK_KB * 1024;
	*min_block = B;
	for (D = SRM_MAX_DISKS; D > 1; D--)
		if (merge_need(dsm, D) * (double) (B + SRM_BUF_SLACK) <= usable)
			break;
	return D;
}

/*
 * block_meta
 *		The runs' bookkeeping in memory for total bytes of runs in blocks of
 *		B bytes (arrays grown by doubling: a third more), up to its share.
 */
static double
block_meta(double total, int B, Size budget)
{
	return Min(total / B * 1.33 * (sizeof(SrmBlockRef) + sizeof(SrmForecastEntry)),
			   (double) budget / SRM_META_RESIDENT_SHARE);
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
 *		The largest block size, between min_block and srmsort.block_size, that
 *		gives the minimal number of merge passes for the expected input.
 *
 * Called when the first run is due, so the first memory load tells how
 * many tuples a budget holds and how long they are; the planner's estimate
 * (bytes of heap tuples: the MinimalTuple length plus about 8) gives the
 * rows to expect (index sorts: the heap's row estimate).  For each block
 * size B, later loads lose the 2D write buffers and the charged part of
 * the runs' bookkeeping (one block reference and forecast entry per block,
 * in arrays grown by doubling, so a third more on average; charged up to
 * a quarter of the budget), and the merges lose that bookkeeping too: with
 * the full budget assumed instead, 50M narrow rows at 4MB chose 64kB
 * blocks, made 1217 runs where 714 were expected, and merged them in three
 * passes where 16kB or 32kB blocks need two.
 */
int
SrmPlanBlockSize(SrmSorter *s, int D, int min_block)
{
	double		first = Max((double) s->load.ntuples, 1.0);
	double		avglen = s->load.ntuples > 0 ?
		(double) s->input_bytes / s->load.ntuples : 64.0;
	double		rows;
	double		run_bytes;
	int			best = min_block;
	int			best_p1 = INT_MAX;
	int			best_p4 = INT_MAX;
	int			B;

	/* without an estimate, or with a small one, expect a large input */
	rows = s->est_rows > 0 ? s->est_rows : s->est_input / (avglen + 8.0);
	rows = Max(rows, first * (rows > 0 ? 2 : 64));
	run_bytes = rows * (SRM_RECORD_HDRSZ + MAXALIGN(avglen));

	/*
	 * Fewest passes for the expected number of runs first; among equals,
	 * fewest for four times as many (an extra pass costs far more than
	 * smaller blocks do); among equals, the largest block.
	 */
	for (B = srmsort_block_size * 1024; B >= min_block; B /= 2)
	{
		double		per = B + SRM_BUF_SLACK;
		double		meta = block_meta(run_bytes, B, s->budget);
		double		load = (double) s->budget - 2.0 * D * per - meta;
		double		nruns = ceil(rows / Max(first * load / s->budget, 1.0));
		int			rf = srm_order(s, (s->budget - meta) / per, D);
		int			ri = srm_order(s, (s->budget - meta) / per - 2.0 * D, D);

		if (block_better(nruns, rf, ri, &best_p1, &best_p4))
			best = B;
	}
	return best;
}

/*
 * SrmPlanParallelDisks
 *		The most disks a merge with mergeKB can use (SrmPlanDisks).
 */
int
SrmPlanParallelDisks(int mergeKB)
{
	int			min_block;

	return SrmPlanDisks((Size) mergeKB * 1024, false, &min_block);
}

/*
 * SrmPlanParallelBlockSize
 *		The block size of a parallel build: nparts participants form runs
 *		of about rows / nparts tuples of tuple_bytes each with runKB, each
 *		writing over part_disks of the D disks, and the leader merges all
 *		runs with mergeKB.  SrmPlanBlockSize's rule (fewest passes for the
 *		expected runs, then for four times as many, then the largest
 *		block), with the runs the participants' smaller loads give.
 */
int
SrmPlanParallelBlockSize(int mergeKB, int runKB, int nparts, int D,
						 int part_disks, double rows, double tuple_bytes)
{
	double		merge_budget = (double) mergeKB * 1024;
	double		run_budget = (double) runKB * 1024;
	double		rec = SRM_RECORD_HDRSZ + MAXALIGN((Size) Max(tuple_bytes, 8.0));
	double		total;
	int			min_block;
	int			best;
	int			best_p1 = INT_MAX;
	int			best_p4 = INT_MAX;
	int			B;

	(void) SrmPlanDisks((Size) merge_budget, false, &min_block);
	best = min_block;
	/* at least two loads per participant; without an estimate, 64 */
	rows = Max(rows, (rows > 0 ? 2.0 : 64.0) * nparts * run_budget / rec);
	total = rows * rec;
	for (B = srmsort_block_size * 1024; B >= min_block; B /= 2)
	{
		double		per = B + SRM_BUF_SLACK;
		double		meta = block_meta(total, B, (Size) merge_budget);
		double		load = Max(run_budget - 2.0 * part_disks * per, per);
		double		nruns = nparts * ceil(total / nparts / load);
		double		bufs = (merge_budget - meta) / per;
		int			rf = (int) Max(Min(floor((bufs - D) / 2.0),
									   (double) srmsort_max_merge_order), 0);
		int			ri = (int) Max(Min(floor((bufs - 3.0 * D) / 2.0),
									   (double) srmsort_max_merge_order), 0);

		if (block_better(nruns, rf, ri, &best_p1, &best_p4))
			best = B;
	}
	return best;
}

/*
 * merge_buffers
 *		Input block buffers a merge can have with avail bytes.
 */
static int
merge_buffers(SrmSorter *s, double avail)
{
	return (int) Max(avail / (s->block_size + SRM_BUF_SLACK), 0);
}

/*
 * merge_nbufs
 *		Block buffers for a merge of k runs: what memory allows (avail), but
 *		at least what the merge needs (SRM: 2k + D, DSM: 2D per run) and,
 *		for SRM, at most SRM_PREFETCH_READS Parallel_Reads beyond that.
 *		Forecasting reads only blocks that will be needed, so more buffers
 *		only read further ahead: with all of a 1GB budget as buffers a
 *		two-run merge faulted in 1GB and read its runs long before using
 *		them (measured: 10M records 40% slower than DSM's 2D per run).
 */
static int
merge_nbufs(SrmSorter *s, int avail, int k)
{
	int			D = s->ts->ndisks;
	int			need = s->dsm ? 2 * D * k : 2 * k + D;
	int			n = Max(avail, need);

	if (!s->dsm)
		n = Min(n, need + SRM_PREFETCH_READS * D);
	return n;
}

/*
 * take_smallest_runs
 *		Move the k smallest runs to the end of s->runs (so that merging
 *		them moves the least data) and return a pointer to them.
 */
static SrmRun **
take_smallest_runs(SrmSorter *s, int k)
{
	int			i,
				j;

	/* selection: the i-th smallest goes to position nruns - 1 - i */
	for (i = 0; i < k; i++)
	{
		int			pos = s->nruns - 1 - i;
		int			small = pos;
		SrmRun	   *tmp;

		for (j = 0; j < pos; j++)
			if (s->runs[j]->nbytes < s->runs[small]->nbytes)
				small = j;
		tmp = s->runs[pos];
		s->runs[pos] = s->runs[small];
		s->runs[small] = tmp;
	}
	return &s->runs[s->nruns - k];
}

/* Memory of the page caches of a merge's k paged inputs (the output's are
 * in mem_used). */
static inline Size
merge_open_bytes(SrmSorter *s, int k)
{
	return SrmRunOpenBytes(s->ts) * (Size) k;
}

/*
 * merge_runs_to_one
 *		An intermediate merge: the k smallest runs become one new run,
 *		through nbufs input buffers; the memory peak is noted.
 */
static void
merge_runs_to_one(SrmSorter *s, int k, int nbufs)
{
	MemoryContext old = MemoryContextSwitchTo(s->cxt);
	SrmRun	  **inputs = take_smallest_runs(s, k);
	SrmRun	   *out;
	SrmRunWriter *w;
	SrmMerge   *m;
	SrmTuple	t;
	int			i;
	Size		expect = 0;

	/* the output's bookkeeping is about the inputs' together */
	for (i = 0; i < k; i++)
		expect += inputs[i]->forecast_bytes;
	out = SrmSorterNewRun(s, expect);
	for (i = 0; i < k; i++)
		out->merges = Max(out->merges, inputs[i]->merges + 1);

	m = SrmMergeBegin(s->ts, s->keys, inputs, k, nbufs, s->dsm, &s->counters);
	w = SrmRunWriterBegin(s->ts, out, s->nwbufs, s->wbufs, s->wios);
	while (SrmMergeNext(m, &t))
		SrmRunWriterPut(w, t.tuple, (uint32) SrmTupleLen(s->keys, t.tuple),
						(uint64) t.datum1, t.nrank);
	SrmRunWriterEnd(w);
	SrmMergeEnd(m);

	for (i = 0; i < k; i++)
	{
		s->runs_meta -= inputs[i]->forecast_bytes;
		SrmRunFree(s->ts, inputs[i]);
	}
	s->nruns -= k;
	SrmSorterAddRun(s, out);
	SrmSorterNoteMem(s, SrmSorterMemUsed(s) + merge_open_bytes(s, k) +
					 (Size) nbufs * (s->block_size + SRM_BUF_SLACK));
	MemoryContextSwitchTo(old);
}

/*
 * debug_pause_before_merge
 *		Fault-injection tests fill a workfile disk while a sort sits between
 *		run formation and its intermediate merges: the developer option
 *		srmsort.debug_merge_pause makes every such sort wait that long,
 *		interruptibly.  At 0 (always, outside tests) it costs one load.
 */
static void
debug_pause_before_merge(void)
{
	int			ms;

	for (ms = srmsort_debug_merge_pause; ms > 0; ms -= 10)
	{
		CHECK_FOR_INTERRUPTS();
		pg_usleep(10000L);
	}
}

/*
 * merge_avail
 *		Memory for a merge's block buffers: the budget less the bookkeeping
 *		in memory, what the memory load still holds and, for paged runs,
 *		the page caches of the inputs of a merge of the order memory allows
 *		(and of its output).
 */
static double
merge_avail(SrmSorter *s)
{
	double		avail = (double) s->budget - forecast_bytes(s) -
		SrmMemLoadBytes(&s->load);
	Size		open = SrmRunOpenBytes(s->ts);

	if (open > 0)
	{
		int			r = srm_order(s, merge_buffers(s, avail), s->ts->ndisks);

		avail -= (double) open * (Min(Max(r, 2), s->nruns) + 1);
	}
	return avail;
}

/*
 * SrmPlanCascade
 *		During run formation, between runs: once the runs' bookkeeping in
 *		memory passes its charged share of the budget (paging keeps the
 *		block lists out, but each run's 144-byte header stays),
 *		merge the smallest runs until it is back under half that share.
 *
 * Only thousands of runs in a small budget get here: rows of kilobytes
 * at a few hundred kB of work_mem (measured: 20000 rows of up to 22kB at
 * 256kB, 2197 runs, peak 508kB).  The merges are the ones the final plan
 * would have made anyway, the smallest runs first, just earlier; the
 * caller has given back the load's memory for their buffers.
 */
bool
SrmPlanCascade(SrmSorter *s)
{
	int			D = s->ts->ndisks;
	Size		goal = s->budget / (2 * SRM_META_CHARGED_SHARE);

	while (s->runs_meta > goal && s->nruns > 2)
	{
		double		avail = merge_avail(s);
		int			ri = srm_order(s, merge_buffers(s, avail) - 2 * D, D);
		int			k = Min(ri, s->nruns);
		int			nbufs;

		/* no merge fits: the final plan will say so (too little memory) */
		if (k < 2)
			return false;
		nbufs = merge_nbufs(s, merge_buffers(s, avail) - 2 * D, k);
		merge_runs_to_one(s, k, nbufs);
	}
	return true;
}

/*
 * SrmPlanMerges
 *		Plan the merges (paper §4.1.3), run the intermediate ones and start
 *		the final merge.
 */
void
SrmPlanMerges(SrmSorter *s)
{
	int			D = s->ts->ndisks;
	double		avail = merge_avail(s);
	int			out_bufs = 2 * D;
	int			rf = srm_order(s, merge_buffers(s, avail), D);
	int			ri = srm_order(s, merge_buffers(s, avail) - out_bufs, D);
	int			min_order = 2;
	int			R;
	int			nbufs;
	int			i;

	/*
	 * Too little memory even for the disks and blocks SrmPlanDisks chose
	 * (the runs' headers took more than their share): the smallest
	 * workable merge, a little past the budget.  EXPLAIN shows the peak;
	 * the server log says why at DEBUG1.
	 */
	if (rf < min_order || (s->nruns > rf && ri < min_order))
	{
		if (!s->tight_memory)
			ereport(DEBUG1,
					(errmsg_internal("srmsort: the budget of %zukB is too small for a merge of two runs over %d workfile disk%s with %dkB blocks beside %zukB of run bookkeeping",
									 s->budget / 1024, D, D == 1 ? "" : "s",
									 s->block_size / 1024,
									 (Size) Max((double) s->budget - avail, 0.0) / 1024)));
		s->tight_memory = true;
		rf = Max(rf, min_order);
		ri = Max(ri, min_order);
	}

	s->passes = passes_for(s->nruns, rf, ri);

	/* the smallest R with the same number of passes */
	for (R = 2; R < Max(rf, 2); R++)
		if (passes_for(s->nruns, Min(R, rf), Min(R, ri)) <= s->passes)
			break;
	s->merge_order = Min(Max(R, 2), Max(rf, 2));

	/* intermediate merges, of the smallest runs first */
	SrmJobSetPhase(SRM_PHASE_MERGE, 1);
	if (s->nruns > rf)
		debug_pause_before_merge();
	while (s->nruns > rf)
	{
		int			k = Min(Min(s->merge_order, ri), s->nruns - rf + 1);

		k = Max(k, 2);
		nbufs = merge_nbufs(s, merge_buffers(s, avail) - out_bufs, k);
		merge_runs_to_one(s, k, nbufs);
	}

	if (s->flags & SRM_SORT_RANDOMACCESS)
	{
		/* write the result once more as one run, readable both ways */
		while (s->nruns > 1)
		{
			int			k = Min(Max(ri, 2), s->nruns);

			nbufs = merge_nbufs(s, merge_buffers(s, avail) - out_bufs, k);
			merge_runs_to_one(s, k, nbufs);
		}
		pfree(s->wbufs_raw);
		pfree(s->wbufs);
		s->wbufs = NULL;
		s->nwbufs = 0;
		nbufs = Max(merge_buffers(s, merge_avail(s)), D + 2);
		nbufs = Min(nbufs, 4 * D + 2);
		s->passes = Max(s->passes, s->runs[0]->merges);
		SrmJobSetPhase(SRM_PHASE_FINAL, s->passes);
		s->scan = SrmScanBegin(s->ts, s->runs[0], nbufs);
		SrmSorterNoteMem(s, SrmSorterMemUsed(s) + merge_open_bytes(s, 1) +
				 SrmScanMemory(s->ts, s->runs[0], nbufs));
		s->state = SS_SORTEDONDISK;
		return;
	}

	/* the final merge: no output buffers */
	pfree(s->wbufs_raw);
	pfree(s->wbufs);
	s->wbufs = NULL;
	s->nwbufs = 0;
	avail = merge_avail(s);
	nbufs = merge_nbufs(s, merge_buffers(s, avail), s->nruns);
	/* runs merged early (SrmPlanCascade) went through more passes */
	for (i = 0; i < s->nruns; i++)
		s->passes = Max(s->passes, s->runs[i]->merges + 1);
	SrmJobSetPhase(SRM_PHASE_FINAL, s->passes);
	s->merge = SrmMergeBegin(s->ts, s->keys, s->runs, s->nruns, nbufs, s->dsm,
							 &s->counters);
	SrmSorterNoteMem(s, SrmSorterMemUsed(s) + merge_open_bytes(s, s->nruns) +
			 (Size) nbufs * (s->block_size + SRM_BUF_SLACK));
	s->state = SS_FINALMERGE;
}
