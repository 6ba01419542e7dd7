/*-------------------------------------------------------------------------
 *
 * sortmerge.c
 *	  A sort's merges: its runs merged down to the final merge, as
 *	  mergeplan.c plans them.
 *
 * mergeplan.c only computes; this file carries its plan out on the
 * sorter's runs (sorter_int.h).  Every merge before the final one takes the
 * smallest runs, so that the least data is merged more than once: the
 * intermediate merges at SrmSorterPerform, and the early merges between
 * two runs while the runs' bookkeeping is past its share of the budget.
 * The merges end in the final merge or, for random access, in one run and
 * its scan; sorter.c then sets the state, as it alone moves a sort between
 * states.  Each merge's memory is noted through sortruns.c, which keeps
 * the budget (SrmSorterNoteMem).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/engine/sortmerge.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "base/settings.h"
#include "base/shmem.h"
#include "engine/sorter_int.h"
#include "engine/sortmerge.h"
#include "engine/sortruns.h"
#include "merge/merge.h"
#include "merge/mergeplan.h"
#include "runs/runs.h"
#include "runs/scan.h"
#include "runs/writering.h"

/*
 * merge_mem
 *		The numbers the merge planner decides on, as they are now.
 */
static void
merge_mem(SrmSorter *s, SrmMergeMem *mm)
{
	mm->limits = SrmSorterPlanLimits();
	mm->budget = s->budget;
	mm->dsm = s->dsm;
	mm->ndisks = SrmTapeWidth(s->ts);
	mm->block_size = s->block_size;
	mm->meta = s->runs_meta_bytes;
	mm->load = SrmMemLoadBytes(&s->load);
	mm->open_bytes = SrmRunOpenBytes(s->ts);
	mm->nruns = s->nruns;
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
	int			i;
	Size		expect = 0;

	/* the output's bookkeeping is about the inputs' together */
	for (i = 0; i < k; i++)
		expect += inputs[i]->meta_bytes;
	out = SrmSorterNewRun(s, expect);
	for (i = 0; i < k; i++)
		out->merges = Max(out->merges, inputs[i]->merges + 1);

	/* the inputs' last blocks may still be on their way (write-behind) */
	SrmWriteRingWait(&s->wring, s->ts);
	m = SrmMergeBegin(s->ts, s->keys, inputs, k, nbufs, s->dsm, &s->counters);
	w = SrmWriteRingBegin(&s->wring, s->ts, out);
	SrmMergeToRun(m, w);
	SrmWriteRingEnd(&s->wring, w);
	SrmMergeEnd(m);

	for (i = 0; i < k; i++)
	{
		s->runs_meta_bytes -= inputs[i]->meta_bytes;
		SrmRunFree(s->ts, inputs[i]);
	}
	s->nruns -= k;
	SrmSorterAddRun(s, out);
	/* the output's page caches are charged already (mem_used) */
	SrmSorterNoteMem(s, SrmMergeMemory(s->ts, k, nbufs));
	MemoryContextSwitchTo(old);
}

/*
 * SrmSorterMergeEarly
 *		Between runs, while the runs' bookkeeping is past its share: merge
 *		the smallest runs (SrmPlanEarlyMerge).  False if no merge fits.
 */
bool
SrmSorterMergeEarly(SrmSorter *s)
{
	SrmSorterNoOpenRun(s, "SrmSorterMergeEarly");
	for (;;)
	{
		SrmMergeMem mm;
		int			k;
		int			nbufs;

		merge_mem(s, &mm);
		if (!SrmPlanEarlyMerge(&mm, &k, &nbufs))
			return false;
		if (k == 0)
			return true;
		merge_runs_to_one(s, k, nbufs);
	}
}

/*
 * debug_pause_before_merge
 *		Tests act on a sort that sits between run formation and its merges
 *		(fill a workfile disk, watch the progress phase): the developer
 *		option srmsort.debug_merge_pause makes every sort that wrote runs
 *		wait that long there, interruptibly.  At 0 (always, outside tests)
 *		it costs one load.
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
 * SrmSorterRunMerges
 *		All runs are written: plan the merges, run the intermediate ones and
 *		start the final merge (s->merge) or, for random access, merge to one
 *		run and start its scan (s->scan).  The caller sets the state.
 */
void
SrmSorterRunMerges(SrmSorter *s)
{
	SrmMergeMem mm;
	SrmMergePlan plan;
	int			D = s->ts->ndisks;
	bool		to_one = (s->flags & SRM_SORT_RANDOMACCESS) != 0;
	int			k;
	int			nbufs;
	int			i;

	SrmSorterNoOpenRun(s, "SrmSorterRunMerges");
	merge_mem(s, &mm);
	SrmPlanMerges(&mm, &plan);
	if (plan.tight && !s->tight_memory)
		ereport(DEBUG1,
				(errmsg_plural("srmsort: the budget of %zukB is too small for a merge of two runs over %d workfile disk with %dkB blocks beside %zukB of run bookkeeping",
							   "srmsort: the budget of %zukB is too small for a merge of two runs over %d workfile disks with %dkB blocks beside %zukB of run bookkeeping",
							   D, s->budget / 1024, D, s->block_size / 1024,
							   (Size) Max((double) s->budget - plan.avail, 0.0) / 1024)));
	s->tight_memory |= plan.tight;
	s->passes = plan.passes;
	s->merge_order = plan.merge_order;

	/* intermediate merges, of the smallest runs first */
	SrmJobSetPhase(SRM_PHASE_MERGE, 1);
	debug_pause_before_merge();
	while ((k = SrmPlanNextMerge(&mm, &plan, s->nruns, false, &nbufs)) > 0)
		merge_runs_to_one(s, k, nbufs);

	if (to_one)
	{
		/* write the result once more as one run, readable both ways */
		while ((k = SrmPlanNextMerge(&mm, &plan, s->nruns, true, &nbufs)) > 0)
			merge_runs_to_one(s, k, nbufs);
		SrmWriteRingFree(&s->wring, s->ts);
		merge_mem(s, &mm);
		nbufs = SrmPlanScanBuffers(&mm);
		s->passes = Max(s->passes, s->runs[0]->merges);
		SrmJobSetPhase(SRM_PHASE_FINAL, s->passes);
		s->scan = SrmScanBegin(s->ts, s->runs[0], nbufs);
		SrmSorterNoteMem(s, SrmScanMemory(s->ts, s->runs[0], nbufs));
		return;
	}

	/* the final merge: no output buffers (freed once their writes are done) */
	SrmWriteRingFree(&s->wring, s->ts);
	merge_mem(s, &mm);
	nbufs = SrmPlanFinalBuffers(&mm);
	/* runs merged early went through more passes */
	for (i = 0; i < s->nruns; i++)
		s->passes = Max(s->passes, s->runs[i]->merges + 1);
	SrmJobSetPhase(SRM_PHASE_FINAL, s->passes);
	s->merge = SrmMergeBegin(s->ts, s->keys, s->runs, s->nruns, nbufs, s->dsm,
							 &s->counters);
	SrmSorterNoteMem(s, SrmMergeMemory(s->ts, s->nruns, nbufs));
}
