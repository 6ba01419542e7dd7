/*-------------------------------------------------------------------------
 *
 * sortruns.c
 *	  A sort's runs and its memory budget: the run list, new runs, what is
 *	  charged to the budget and the memory peak.
 *
 * sorter.c (run formation) and sortmerge.c (the merges) add runs and note
 * their memory here, below both.  What counts against the budget
 * (SrmSorterMemUsed) is:
 *	 - the memory load: its arena chunks and tuple array (runs.c);
 *	 - the block buffers runs are written through, B + SRM_BUF_SLACK bytes
 *	   each, and the page caches of the run being written if runs are paged;
 *	 - the runs' bookkeeping in memory (block references, forecast entries,
 *	   run headers) up to its share of the budget (SrmMetaCharged);
 *	 - while a merge or a scan runs, its buffers and its inputs' page caches
 *	   (SrmMergeMemory, SrmScanMemory; sortmerge.c notes them through
 *	   SrmSorterNoteMem).
 * Bookkeeping past its share is held beyond the budget: early merges
 * (mergeplan.c plans them, sortmerge.c runs them) bring it back.  The
 * memory peak shown by EXPLAIN (SrmSorterNoteMem) is the charged memory
 * plus that excess.  The sorter's own small structures, the keys and a
 * merge's tree of runs are not counted.  The merge planner sizes
 * everything from the same rules (mergeplan.h).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/engine/sortruns.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/settings.h"
#include "engine/sorter_int.h"
#include "engine/sortruns.h"
#include "io/disks.h"
#include "merge/forecast.h"
#include "merge/mergeplan.h"
#include "runs/runs.h"
#include "runs/tape.h"
#include "runs/writering.h"

/* The part of the runs' bookkeeping charged to the budget. */
static inline Size
meta_charged(SrmSorter *s)
{
	return SrmMetaCharged(s->budget, s->runs_meta_bytes);
}

/*
 * SrmSorterMemUsed
 *		Bytes charged to the budget right now.
 */
Size
SrmSorterMemUsed(SrmSorter *s)
{
	Size		used = SrmMemLoadBytes(&s->load);

	used += (Size) s->wring.nbufs * (s->block_size + SRM_BUF_SLACK);
	/* the page caches of the run being written */
	if (s->wring.nbufs > 0)
		used += SrmRunOpenBytes(s->ts);
	return used + meta_charged(s);
}

/*
 * SrmSorterNoteMem
 *		Record the memory peak: the charged memory, plus beside bytes of
 *		buffers and page caches a merge or a scan (sortmerge.c) holds on
 *		top of it, plus the uncharged bookkeeping.
 */
void
SrmSorterNoteMem(SrmSorter *s, Size beside)
{
	Size		used = SrmSorterMemUsed(s) + beside;

	used += s->runs_meta_bytes - meta_charged(s);
	if (used > s->mem_peak)
		s->mem_peak = used;
}

/*
 * SrmSorterPlanLimits
 *		What the merge planner takes from the settings and the runs'
 *		format: the settings as they are now.
 */
SrmPlanLimits
SrmSorterPlanLimits(void)
{
	SrmPlanLimits limits = {
		.max_disks = SRM_MAX_DISKS,
		.max_block = srmsort_block_size * 1024,
		.max_order = srmsort_max_merge_order,
		.block_meta = sizeof(SrmBlockRef) + sizeof(SrmForecastEntry)
	};

	return limits;
}

/*
 * SrmSorterNewRun
 *		An empty run on a random start disk (SRM) or disk 0 (DSM).  expect
 *		is the bookkeeping it will probably need: if that would take the
 *		bookkeeping in memory past its share, runs are paged from now on.
 */
SrmRun *
SrmSorterNewRun(SrmSorter *s, Size expect)
{
	if (!s->ts->page_meta &&
		s->runs_meta_bytes + expect > s->budget / SRM_META_RESIDENT_SHARE)
		SrmTapePageMeta(s->ts);
	return SrmRunCreate(s->ts, s->dsm ? 0 : SrmTapeRandomStart(s->ts));
}

/*
 * SrmSorterAddRun
 *		Append a finished run to the sort's list of runs.
 */
void
SrmSorterAddRun(SrmSorter *s, SrmRun *run)
{
	if (s->nruns >= s->maxruns)
	{
		s->maxruns *= 2;
		s->runs = repalloc(s->runs, s->maxruns * sizeof(SrmRun *));
	}
	s->runs[s->nruns++] = run;
	/* a running total: summing over thousands of runs at every check would
	 * be quadratic in the runs */
	s->runs_meta_bytes += run->meta_bytes;
}

/*
 * SrmSorterNoOpenRun
 *		Where runs[] must be every run: no run is open (its blocks still in
 *		the writer's buffers, its bookkeeping not counted).  An internal
 *		error, not a crash, if a caller broke that.
 */
void
SrmSorterNoOpenRun(SrmSorter *s, const char *where)
{
	if (unlikely(s->open_run != NULL || s->open_writer != NULL))
		elog(ERROR, "srmsort: %s with a run still open", where);
}
