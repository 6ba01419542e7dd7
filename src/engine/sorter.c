/*-------------------------------------------------------------------------
 *
 * sorter.c
 *	  The srmsort engine: its API and states, the memory budget and run
 *	  formation.  Reading the result is sortread.c's.
 *
 * A sort starts in memory.  If its input fits in the budget it is sorted
 * there and nothing is written.  Otherwise it becomes external: the block
 * size is chosen (the configured one, or a smaller one down to 16kB when
 * that saves a merge pass for the expected input; 8kB when even a merge of
 * two runs over one disk does not fit the budget in 16kB blocks), the
 * workfile disks are opened, and every memory load is sorted and written
 * as a run striped over the disks from a random start disk (SRM) or from
 * disk 0 (DSM).
 * At SrmSorterPerform the merges are planned (mergeplan.c, which only
 * computes) and run (sortmerge.c, which shares the sorter's struct through
 * sorter_int.h).
 *
 * The states, and what moves a sort between them (only this file does):
 *
 *	 SS_INITIAL ------ first run due (go_external) -----> SS_BUILDRUNS
 *		 |													|
 *		 | Perform: sort in memory		Perform: last run, intermediate
 *		 v										   merges   |
 *	 SS_SORTEDINMEM					  +---------------------+
 *									  | random access		| otherwise
 *									  v						v
 *							   SS_SORTEDONDISK		   SS_FINALMERGE
 *							   (one run, scanned)	   (streams the result)
 *
 * A parallel build (pbuild.c) adds a state and two edges: a participant,
 * loaded as above, is finished, and the merging sorter takes the
 * participants' runs over before its Perform:
 *
 *	 SS_INITIAL or SS_BUILDRUNS -- FinishRuns --> SS_RUNSFINISHED (ExportRuns)
 *	 SS_INITIAL -- AdoptRuns, first runs (go_external) --> SS_BUILDRUNS
 *
 * Every entry point checks the state in a switch whose default is an
 * internal error (INVALID_STATE), as tuplesort's do; sorter.h says which
 * call is legal when.
 *
 * Memory: everything lives in the sorter's context, a child of the context
 * current at Begin.  A reset callback on the context drains in-flight I/O
 * and closes the workfiles' kernel fds when the context goes away without
 * SrmSorterEnd (an error), before any buffer is freed; fd.c's resource
 * owner deletes the files themselves.
 *
 * Memory accounting: sortruns.c keeps the run list and the budget, and
 * says what counts against it.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/engine/sorter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "storage/buffile.h"
#include "utils/memutils.h"

#include "base/settings.h"
#include "base/shmem.h"
#include "engine/sorter.h"
#include "engine/sorter_int.h"
#include "engine/sortmerge.h"
#include "engine/sortruns.h"
#include "merge/merge.h"
#include "merge/mergeplan.h"
#include "runs/runexport.h"
#include "runs/runs.h"
#include "runs/scan.h"
#include "runs/writering.h"

static void sorter_reset_callback(void *arg);
static void put_slot(SrmSorter *s, TupleTableSlot *slot);

/*
 * sorter_create
 *		Common part of the Begin functions: the sorter's context and state.
 */
static SrmSorter *
sorter_create(int workMemKB, double estInputBytes, int flags)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "srmsort",
											  ALLOCSET_DEFAULT_SIZES);
	SrmSorter  *s = MemoryContextAllocZero(cxt, sizeof(SrmSorter));

	s->cxt = cxt;
	s->flags = flags;
	s->budget = (Size) Max(workMemKB, 64) * 1024;
	s->load_budget = s->budget;
	s->est_input = estInputBytes;
	s->state = SS_INITIAL;
	s->dsm = (srmsort_merge_strategy == SRM_MERGE_DSM);
	s->cb.func = sorter_reset_callback;
	s->cb.arg = s;
	MemoryContextRegisterResetCallback(cxt, &s->cb);
	return s;
}

/*
 * SrmSorterBeginHeap
 *		A sort of tuples of tupdesc; see sorter.h.
 */
SrmSorter *
SrmSorterBeginHeap(TupleDesc tupdesc, int nkeys, AttrNumber *attNums,
				   Oid *sortOperators, Oid *sortCollations,
				   bool *nullsFirstFlags, int workMemKB,
				   double estInputBytes, int flags)
{
	SrmSorter  *s = sorter_create(workMemKB, estInputBytes, flags);
	MemoryContext old = MemoryContextSwitchTo(s->cxt);

	s->keys = SrmKeysMakeHeap(tupdesc, nkeys, attNums, sortOperators,
							  sortCollations, nullsFirstFlags);
	SrmMemLoadInit(&s->load, s->keys, s->budget);
	MemoryContextSwitchTo(old);
	return s;
}

/*
 * begin_index
 *		A sort of the index tuples of a btree index, or a GiST one.
 */
static SrmSorter *
begin_index(Relation indexRel, bool gist, int workMemKB, double estRows,
			int flags)
{
	SrmSorter  *s = sorter_create(workMemKB, 0, flags);
	MemoryContext old = MemoryContextSwitchTo(s->cxt);

	s->est_rows = estRows;
	s->keys = gist ? SrmKeysMakeGist(indexRel) : SrmKeysMakeIndex(indexRel);
	SrmMemLoadInit(&s->load, s->keys, s->budget);
	MemoryContextSwitchTo(old);
	return s;
}

/*
 * SrmSorterBeginIndex
 *		A sort of btree index tuples of indexRel; see sorter.h.
 */
SrmSorter *
SrmSorterBeginIndex(Relation heapRel, Relation indexRel, int workMemKB,
					double estRows, int flags)
{
	return begin_index(indexRel, false, workMemKB, estRows, flags);
}

/*
 * SrmSorterBeginGist
 *		A sort of GiST index tuples of indexRel; see sorter.h.
 */
SrmSorter *
SrmSorterBeginGist(Relation indexRel, int workMemKB, double estRows,
				   int flags)
{
	return begin_index(indexRel, true, workMemKB, estRows, flags);
}

/*
 * SrmSorterBeginIndexOrder
 *		A sort of tuples of tupdesc in the order of a btree index; see
 *		sorter.h.
 */
SrmSorter *
SrmSorterBeginIndexOrder(TupleDesc tupdesc, Relation indexRel, int workMemKB,
						 double estInputBytes, int flags)
{
	SrmSorter  *s = sorter_create(workMemKB, estInputBytes, flags);
	MemoryContext old = MemoryContextSwitchTo(s->cxt);

	s->keys = SrmKeysMakeIndexOrder(indexRel, tupdesc);
	SrmMemLoadInit(&s->load, s->keys, s->budget);
	MemoryContextSwitchTo(old);
	return s;
}

/* ---------- external sort set-up ---------- */

/*
 * shared_disks
 *		The disk set of a participant of a parallel build.
 */
static SrmDiskSet *
shared_disks(SrmSorter *s)
{
	SrmSorterShare *sh = s->share;

	return SrmDiskSetOpenShared(sh->disks, sh->myfile, sh->first_disk,
								sh->ndisks > 0 ? sh->ndisks : sh->disks->ndisks,
								sh->peer_first, sh->npeers);
}

/*
 * expected_bytes
 *		What the sort's runs will hold, by the planner's estimate of its
 *		rows (or input bytes) and the first load's bytes per tuple; 0 if
 *		there is no estimate.
 */
static double
expected_bytes(SrmSorter *s)
{
	double		avglen = s->load.ntuples > 0 ?
		(double) s->input_bytes / s->load.ntuples : 64.0;
	double		rows = s->est_rows > 0 ? s->est_rows :
		s->est_input / (avglen + 8.0);

	return Max(rows, 0) * avglen;
}

/*
 * load_limit
 *		What the sort may occupy while its load grows, used bytes being
 *		occupied now: the budget, or less where the load is capped.
 */
static Size
load_limit(SrmSorter *s, Size used)
{
	Size		other = used - SrmMemLoadBytes(&s->load);

	return Min(s->budget, other + s->load_budget);
}

/*
 * load_parts_for
 *		How many runs to sort and write each memory load as, from the first
 *		load (about to be written).  A load sorted whole works out of the
 *		caches once it is much larger than they are: its radix sort and the
 *		gather of its tuples in sorted order (SrmMemLoadWriteRun) miss on
 *		nearly every tuple.  Parts of SRM_LOAD_PART bytes cost less than the
 *		merge's deeper tree of runs.  The parts are limited so that the
 *		expected runs stay within SRM_LOAD_PARTS_RUNS, or one per
 *		SRM_LOAD_PARTS_RUN_BUDGET bytes of a larger budget: no extra pass,
 *		and each run's share of the merge's buffers stays large.  Without
 *		an estimate of the input, loads stay whole.
 */
static int
load_parts_for(SrmSorter *s)
{
	double		load = (double) SrmMemLoadBytes(&s->load);
	double		expect = expected_bytes(s);
	double		part = srmsort_debug_load_part > 0 ?
		srmsort_debug_load_part * 1024.0 : SRM_LOAD_PART;
	double		parts;
	double		loads;

	if (expect <= 0 || load < 2.0 * part)
		return 1;
	parts = floor(load / part);
	loads = Max(ceil(expect / Max(load, 1.0)), 1.0);
	parts = Min(parts, floor(Max(SRM_LOAD_PARTS_RUNS,
								 s->budget / SRM_LOAD_PARTS_RUN_BUDGET) / loads));
	return (int) Max(parts, 1.0);
}

/*
 * go_external
 *		The first run is due: open the disks, choose the block size for
 *		them, make the tape set and allocate the 2D write buffers.
 */
static void
go_external(SrmSorter *s)
{
	MemoryContext old = MemoryContextSwitchTo(s->cxt);
	SrmDiskSet *disks;
	Oid			spcs[SRM_MAX_DISKS];
	int			maxdisks;
	int			min_block;
	int			i;

	/* the load as it is now is the most the initial state held */
	SrmSorterNoteMem(s, 0);
	maxdisks = SrmPlanDisks(SrmSorterPlanLimits(), s->budget, s->dsm,
							&min_block);
	SrmRecFormatInit(&s->fmt, s->keys);
	disks = s->share ? shared_disks(s) :
		SrmDiskSetOpen(maxdisks, expected_bytes(s));
	s->load_parts = load_parts_for(s);
	/* the planner takes a part of the first load for a run */
	s->block_size = s->share ? s->share->block_size :
		SrmPlanBlockSize(SrmSorterPlanLimits(), s->budget, s->dsm,
						 SrmTapeWidthFor(disks, maxdisks), min_block,
						 s->est_rows, s->est_input,
						 (double) s->load.ntuples / s->load_parts,
						 (double) s->input_bytes / s->load_parts);

	/*
	 * A participant of a parallel build writes its runs to its range of
	 * the shared disks only.
	 */
	s->ts = SrmTapeSetCreate(disks, maxdisks, s->block_size,
							 s->share ? s->share->first_disk : 0,
							 s->share ? s->share->ndisks : 0, &s->fmt);
	for (i = 0; i < disks->ndisks; i++)
		spcs[i] = disks->disks[i].spcOid;
	SrmJobBegin(spcs, disks->ndisks, disks->partno);
	s->job = true;

	/*
	 * Two periods of the stripe of new runs in flight: for a participant
	 * that of its range, as SrmPlanParallelBlockSize plans its loads, not
	 * that of all the disks.
	 */
	i = SrmTapeStripeFor(s->ts, s->ts->run_first, s->ts->run_ndisks);
	SrmWriteRingAlloc(&s->wring, s->ts, 2 * s->ts->stripes[i].width, false,
					  s->cxt);
	s->maxruns = 64;
	s->runs = palloc(s->maxruns * sizeof(SrmRun *));
	s->state = SS_BUILDRUNS;
	MemoryContextSwitchTo(old);
}

/*
 * start_write_behind
 *		After the first run with direct I/O: from now on the write buffers
 *		take a share of the budget and runs end with their writes in
 *		flight (writering.c).  The load gives back its memory first; the
 *		caller sizes the next one beside the new buffers.
 */
static void
start_write_behind(SrmSorter *s)
{
	int			n = SrmWriteBehindBuffers(s->budget, s->block_size,
										  s->wring.nbufs);

	s->wring.behind = true;
	if (n == 0)
		return;
	SrmMemLoadRelease(&s->load);
	SrmWriteRingFree(&s->wring, s->ts);
	SrmWriteRingAlloc(&s->wring, s->ts, n, true, s->cxt);
}

/*
 * load_continues_run
 *		Does the sorted load come after the open run's last tuple, so that
 *		it can be written as more of that run?  Input that arrives in order
 *		(an index rebuilt after CLUSTER, a key that grows with the table)
 *		then makes one run, whose merge is a plain read, instead of one run
 *		per load.
 */
static bool
load_continues_run(SrmSorter *s, int64 lo)
{
	SrmTuple	first;

	if (s->open_run == NULL || s->load.ntuples <= lo)
		return false;
	/* datum1 may be abbreviated: compare full keys */
	first = s->load.tuples[lo];
	SrmKeysSetDatum1(s->keys, &first, false);
	return SrmCompareFull(&s->open_last, &first, s->keys) <= 0;
}

/*
 * remember_last
 *		Keep a copy of the load's tuple i, the open run's last, for
 *		load_continues_run.
 */
static void
remember_last(SrmSorter *s, int64 i)
{
	SrmTuple   *t = &s->load.tuples[i];
	Size		skip = s->keys->kind == SRM_KEYS_HEAP ? SRM_ARENA_SKIP : 0;

	if (t->len > s->open_last_size)
	{
		if (s->open_last.tuple != NULL)
			pfree(s->open_last.tuple);
		s->open_last_size = Max(t->len, 2 * s->open_last_size);
		s->open_last.tuple = MemoryContextAlloc(s->cxt, s->open_last_size);
	}
	/* the arena does not keep a heap tuple's first bytes: its length */
	memcpy((char *) s->open_last.tuple + skip, (char *) t->tuple + skip,
		   t->len - skip);
	if (skip > 0)
		((MinimalTuple) s->open_last.tuple)->t_len = t->len;
	s->open_last.len = t->len;
	SrmKeysSetDatum1(s->keys, &s->open_last, false);
}

/*
 * end_run
 *		The open run is complete: add it to the sort's runs.
 */
static void
end_run(SrmSorter *s)
{
	SrmRun	   *run = s->open_run;

	Assert((run == NULL) == (s->open_writer == NULL));
	if (run == NULL)
		return;
	Assert(s->state == SS_BUILDRUNS);
	SrmWriteRingEnd(&s->wring, s->open_writer);
	s->open_run = NULL;
	s->open_writer = NULL;
	SrmSorterAddRun(s, run);
	s->nruns_initial++;
	SrmJobAddRun(run->nbytes);
}

/*
 * keep_run_open
 *		May the run just written stay open for the next load?  Not for the
 *		last load, not while direct I/O's write-behind is still to start
 *		(it replaces the buffers the writer holds), not when early merges
 *		are due, and not when the run's bookkeeping would outgrow the share
 *		of the budget resident bookkeeping may take.
 */
static bool
keep_run_open(SrmSorter *s, bool last)
{
	if (last)
		return false;
	if (s->ts->disks->direct_io && !s->wring.behind)
		return false;
	if (s->runs_meta_bytes > s->budget / SRM_META_CHARGED_SHARE)
		return false;
	return s->ts->page_meta ||
		s->runs_meta_bytes + 2 * s->open_run->meta_bytes <=
		s->budget / SRM_META_RESIDENT_SHARE;
}

/*
 * dump_run
 *		Sort the memory load and write it as a run, or as more of the open
 *		run if it continues it; last: no more loads follow.
 */
static void
dump_run(SrmSorter *s, bool last)
{
	MemoryContext old;
	double		avglen;
	Size		other;
	Size		limit;
	int64		per;
	int64		lo;

	if (s->state == SS_INITIAL)
		go_external(s);
	if (s->load.ntuples == 0)
	{
		if (last)
			end_run(s);
		return;
	}

	old = MemoryContextSwitchTo(s->cxt);
	avglen = (double) (s->load.arena_bytes - s->load.arena_left) / s->load.ntuples;
	per = (s->load.ntuples + s->load_parts - 1) / s->load_parts;
	for (lo = 0; lo < s->load.ntuples; lo += per)
	{
		int64		n = Min(per, s->load.ntuples - lo);
		bool		more = lo + n < s->load.ntuples;

		SrmMemLoadSort(&s->load, lo, n);
		if (!load_continues_run(s, lo))
		{
			end_run(s);
			/* a run's bookkeeping: about the last one's */
			s->open_run = SrmSorterNewRun(s, s->nruns > 0 ?
										  s->runs[s->nruns - 1]->meta_bytes : 0);
			s->open_writer = SrmWriteRingBegin(&s->wring, s->ts, s->open_run);
		}
		SrmMemLoadWriteRun(&s->load, lo, n, s->open_writer);
		if (keep_run_open(s, last && !more))
			remember_last(s, lo + n - 1);
		else
			end_run(s);
	}
	SrmMemLoadReset(&s->load);
	if (s->open_run == NULL)
	{
		if (s->ts->disks->direct_io && !s->wring.behind)
			start_write_behind(s);
		if (s->runs_meta_bytes > s->budget / SRM_META_CHARGED_SHARE &&
			!s->no_early_merge)
		{
			/* the load's memory goes to the early merges' buffers */
			SrmMemLoadRelease(&s->load);
			s->no_early_merge = !SrmSorterMergeEarly(s);
		}
	}
	/* the next run: array and arena share what the rest leaves */
	other = SrmSorterMemUsed(s);
	limit = load_limit(s, other);
	other -= SrmMemLoadBytes(&s->load);
	if (other < limit || s->load.tuples == NULL)
		SrmMemLoadFit(&s->load, other < limit ? limit - other : 0, avglen);
	/* the arena chunks kept for the next run fit beside its array */
	other = SrmSorterMemUsed(s);
	limit = load_limit(s, other);
	SrmMemLoadTrim(&s->load, other < limit ? limit - other : 0);
	MemoryContextSwitchTo(old);
}

/* ---------- input ---------- */

/* Tuples may be put only while the sort is loading. */
static inline void
check_loading(SrmSorter *s, const char *call)
{
	switch (s->state)
	{
		case SS_INITIAL:
		case SS_BUILDRUNS:
			break;
		default:
			INVALID_STATE(s, call);
	}
}

/*
 * consider_load_cap
 *		The first load has grown to SRM_LOAD_CAP bytes (used) and more input
 *		comes: if the planner expects SRM_LOAD_CAP_FACTOR times the budget
 *		or more, the sort will be external whatever its loads, so they stop
 *		here.  A larger load only costs: the kernel zeroes each fresh page
 *		on first touch (about 0.5 s a GB on the VMs measured), and once
 *		loads are sorted and written in parts the runs are no longer; the
 *		rest of the budget serves the merge.  Considered as the first load
 *		grows past the cap, until it is capped or the first run is due; a
 *		wrong estimate at worst writes a sort as runs that would have
 *		fitted.
 */
static void
consider_load_cap(SrmSorter *s, Size used)
{
	Size		cap = srmsort_debug_load_cap > 0 ?
		(Size) srmsort_debug_load_cap * 1024 : SRM_LOAD_CAP;
	double		expect;

	if (s->state != SS_INITIAL || s->load_budget < s->budget ||
		s->budget < 2 * cap || used < cap ||
		s->load.ntuples == 0 || s->input_bytes == 0)
		return;
	/* the input expected, in the memory its load takes so far */
	expect = expected_bytes(s) * ((double) used / s->input_bytes);
	if (expect >= SRM_LOAD_CAP_FACTOR * s->budget)
		s->load_budget = SrmMemLoadBytes(&s->load);
}

/*
 * make_room_slow
 *		Before adding a tuple of len bytes: grow the tuple array or write a
 *		run if the budget (or the load's cap) is full.
 */
static pg_noinline void
make_room_slow(SrmSorter *s, Size len)
{
	SrmMemLoad *load = &s->load;
	Size		space = SrmMemLoadSpace(load, len);
	Size		used = SrmSorterMemUsed(s);
	Size		limit;

	consider_load_cap(s, used);
	limit = load_limit(s, used);
	if (load->ntuples >= load->maxtuples &&
		!SrmMemLoadGrow(load, limit, used))
		dump_run(s, false);
	if (space > load->arena_left)
	{
		/* a new arena chunk: smaller than usual if that is what is left */
		used = SrmSorterMemUsed(s);
		limit = load_limit(s, used);
		if (!SrmMemLoadChunkFits(load, space,
								 used < limit ? limit - used : 0))
			dump_run(s, false);
	}
}

/*
 * make_room
 *		make_room_slow when the array is full or the arena chunk cannot
 *		take the tuple.  Inline: every input row passes here.
 */
static pg_attribute_always_inline void
make_room(SrmSorter *s, Size len)
{
	SrmMemLoad *load = &s->load;

	if (unlikely(load->ntuples >= load->maxtuples ||
				 SrmMemLoadSpace(load, len) > load->arena_left))
		make_room_slow(s, len);
}

/*
 * counted
 *		Bookkeeping after a tuple of len bytes joined the load (and its
 *		array).  Inline: every input row passes here.
 */
static pg_attribute_always_inline void
counted(SrmSorter *s, Size len)
{
	if (unlikely(SrmKeysAbortDue(s->keys, s->load.ntuples)) &&
		s->state == SS_INITIAL)
		SrmKeysConsiderAbort(s->keys, s->load.tuples, s->load.ntuples);
	s->tuples++;
	s->input_bytes += len;

	/*
	 * The memory peak: in the initial state memory only grows, and leaving
	 * it (go_external, Perform) or asking for the facts notes it; later,
	 * loads are written and memory comes back, so look now and then.
	 */
	if ((s->tuples & 1023) == 0 && s->state != SS_INITIAL)
		SrmSorterNoteMem(s, 0);
}

/* counted, for a tuple of len bytes at copy not yet in the array */
static pg_attribute_always_inline void
added(SrmSorter *s, void *copy, Size len)
{
	SrmMemLoadAdd(&s->load, copy, len);
	counted(s, len);
}

/*
 * put_tuple
 *		Copy a tuple of len bytes into the load (a heap tuple without the
 *		bytes the arena does not keep).
 */
static void
put_tuple(SrmSorter *s, const void *tuple, Size len)
{
	char	   *copy;
	Size		skip = s->keys->kind == SRM_KEYS_HEAP ? SRM_ARENA_SKIP : 0;

	make_room(s, len);
	copy = SrmMemLoadAlloc(&s->load, len);
	memcpy(copy + skip, (const char *) tuple + skip, len - skip);
	added(s, copy, len);
}

/*
 * SrmSorterPutSlot
 *		Copy the slot's tuple into the sort, as a MinimalTuple formed
 *		directly in the load's arena where the slot type allows it.
 */
void
SrmSorterPutSlot(SrmSorter *s, TupleTableSlot *slot)
{
	HeapTuple	htup;
	Size		len;

	/* a scan's row while the load has room: none of the others' tests */
	if (likely(TTS_IS_BUFFERTUPLE(slot)) &&
		(htup = ((HeapTupleTableSlot *) slot)->tuple) != NULL &&
		s->load.fmt.heap &&
		(s->state == SS_INITIAL || s->state == SS_BUILDRUNS) &&
		(len = SrmMemLoadPutHeap(&s->load, (const char *) htup->t_data,
								 htup->t_len)) != 0)
	{
		counted(s, len);
		return;
	}
	put_slot(s, slot);
}

/* SrmSorterPutSlot's general way */
static pg_noinline void
put_slot(SrmSorter *s, TupleTableSlot *slot)
{
	check_loading(s, "SrmSorterPutSlot");
	if (TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot))
	{
		/*
		 * The slot's tuple, which ExecFetchSlotHeapTuple would return
		 * through a call by pointer; only a slot without one (virtual
		 * contents) needs it.
		 */
		bool		shouldFree = false;
		HeapTuple	htup = ((HeapTupleTableSlot *) slot)->tuple;
		Size		len;
		MinimalTuple mt;

		if (htup == NULL)
			htup = ExecFetchSlotHeapTuple(slot, false, &shouldFree);
		len = htup->t_len - MINIMAL_TUPLE_OFFSET;

		make_room(s, len);
		mt = SrmMemLoadAlloc(&s->load, len);
		SrmRecCopy((char *) mt + SRM_ARENA_SKIP,
				   (char *) htup->t_data + MINIMAL_TUPLE_OFFSET + SRM_ARENA_SKIP,
				   len - SRM_ARENA_SKIP);
		if (shouldFree)
			heap_freetuple(htup);
		added(s, mt, len);
	}
	else if (TTS_IS_VIRTUAL(slot))
	{
		TupleDesc	desc = slot->tts_tupleDescriptor;
		bool		hasnull = false;
		Size		hoff,
					data_len,
					len;
		MinimalTuple mt;
		int			i;

		slot_getallattrs(slot);
		for (i = 0; i < desc->natts; i++)
			hasnull |= slot->tts_isnull[i];
		hoff = SizeofMinimalTupleHeader;
		if (hasnull)
			hoff += BITMAPLEN(desc->natts);
		hoff = MAXALIGN(hoff);
		data_len = heap_compute_data_size(desc, slot->tts_values, slot->tts_isnull);
		len = hoff + data_len;

		make_room(s, len);
		mt = SrmMemLoadAlloc(&s->load, len);
		/* alignment padding must be zero: deforming tells pad from data by it */
		memset((char *) mt + SRM_ARENA_SKIP, 0, len - SRM_ARENA_SKIP);
		HeapTupleHeaderSetNatts(mt, desc->natts);
		mt->t_hoff = hoff + MINIMAL_TUPLE_OFFSET;
		heap_fill_tuple(desc, slot->tts_values, slot->tts_isnull,
						(char *) mt + hoff, data_len, &mt->t_infomask,
						hasnull ? mt->t_bits : NULL);
		added(s, mt, len);
	}
	else
	{
		bool		shouldFree;
		MinimalTuple mt = ExecFetchSlotMinimalTuple(slot, &shouldFree);

		put_tuple(s, mt, mt->t_len);
		if (shouldFree)
			pfree(mt);
	}
}

/*
 * SrmSorterPutIndexValues
 *		Form an index tuple pointing at heap TID self and add it to the sort.
 */
void
SrmSorterPutIndexValues(SrmSorter *s, Relation indexRel, ItemPointer self,
						Datum *values, bool *isnull)
{
	TupleDesc	desc = RelationGetDescr(indexRel);
	Size		data_size;
	Size		len;
	IndexTuple	itup;

	check_loading(s, "SrmSorterPutIndexValues");
	if (s->load.ix_fixed)
	{
		bool		hasnull = false;
		int			i;

		for (i = 0; i < s->load.ix_natts; i++)
			hasnull |= isnull[i];
		if (!hasnull)
		{
			/* the common case: fixed-length columns, no NULL */
			len = s->load.ix_size;
			make_room(s, len);
			itup = SrmMemLoadAlloc(&s->load, len);
			SrmIndexTupleFillFixed(&s->load, values, (char *) itup);
			itup->t_tid = *self;
			added(s, itup, len);
			return;
		}
	}
	len = SrmIndexTupleSize(&s->load, values, isnull, &data_size);
	if (len > 0)
	{
		/* formed in the arena: no palloc, no copy */
		make_room(s, len);
		itup = SrmMemLoadAlloc(&s->load, len);
		SrmIndexTupleFill(&s->load, values, isnull, len, data_size, (char *) itup);
		itup->t_tid = *self;
		added(s, itup, len);
		return;
	}
	itup = index_form_tuple(desc, values, isnull);
	itup->t_tid = *self;
	put_tuple(s, itup, IndexTupleSize(itup));
	pfree(itup);
}

/* ---------- sorting and merging ---------- */

/*
 * SrmSorterPerform
 *		All input is in: sort in memory, or write the last run and merge.
 */
void
SrmSorterPerform(SrmSorter *s)
{
	MemoryContext old = MemoryContextSwitchTo(s->cxt);

	s->current = 0;
	s->eof_reached = false;
	s->markpos = 0;
	s->markpos_eof = false;
	switch (s->state)
	{
		case SS_INITIAL:
			SrmSorterNoteMem(s, 0);
			SrmMemLoadSort(&s->load, 0, s->load.ntuples);
			s->state = SS_SORTEDINMEM;
			break;
		case SS_BUILDRUNS:
			dump_run(s, true);
			SrmMemLoadRelease(&s->load);
			SrmSorterRunMerges(s);
			s->state = s->scan != NULL ? SS_SORTEDONDISK : SS_FINALMERGE;
			break;
		default:
			INVALID_STATE(s, "SrmSorterPerform");
	}
	MemoryContextSwitchTo(old);
}

/* ---------- parallel builds ---------- */

/* What SrmSorterExportRuns writes before the runs. */
typedef struct SrmExportHeader
{
	int64		nruns;
	int64		tuples;
	int64		input_bytes;
} SrmExportHeader;

/*
 * SrmSorterUseShared
 *		See sorter.h.
 */
void
SrmSorterUseShared(SrmSorter *s, const SrmSorterShare *share)
{
	switch (s->state)
	{
		case SS_INITIAL:
			break;
		default:
			INVALID_STATE(s, "SrmSorterUseShared");
	}
	if (s->tuples > 0 || s->share != NULL)
		elog(ERROR, "srmsort: SrmSorterUseShared twice or after the first tuple");
	s->share = MemoryContextAlloc(s->cxt, sizeof(SrmSorterShare));
	*s->share = *share;
}

/*
 * SrmSorterFinishRuns
 *		A participant's input is in: write the load as the last run (the
 *		first, if nothing spilled yet).
 */
void
SrmSorterFinishRuns(SrmSorter *s)
{
	MemoryContext old;

	switch (s->state)
	{
		case SS_INITIAL:
		case SS_BUILDRUNS:
			break;
		default:
			INVALID_STATE(s, "SrmSorterFinishRuns");
	}
	if (s->share == NULL)
		elog(ERROR, "srmsort: SrmSorterFinishRuns without SrmSorterUseShared");
	old = MemoryContextSwitchTo(s->cxt);
	if (s->state == SS_BUILDRUNS || s->load.ntuples > 0)
		dump_run(s, true);
	/* the runs are read by another process next */
	if (s->ts != NULL)
		SrmWriteRingWait(&s->wring, s->ts);
	s->state = SS_RUNSFINISHED;
	MemoryContextSwitchTo(old);
}

/*
 * SrmSorterExportRuns
 *		Describe the finished runs in f; returns how many.
 */
int64
SrmSorterExportRuns(SrmSorter *s, BufFile *f)
{
	SrmExportHeader h;
	int			i;

	switch (s->state)
	{
		case SS_RUNSFINISHED:
			break;
		default:
			INVALID_STATE(s, "SrmSorterExportRuns");
	}
	SrmSorterNoOpenRun(s, "SrmSorterExportRuns");
	h.nruns = s->nruns;
	h.tuples = s->tuples;
	h.input_bytes = s->input_bytes;
	BufFileWrite(f, &h, sizeof(h));
	for (i = 0; i < h.nruns; i++)
		SrmRunExport(s->ts, s->runs[i], f);
	return h.nruns;
}

/*
 * SrmSorterAdoptRuns
 *		Take over the runs one participant described in f; returns how many.
 */
int64
SrmSorterAdoptRuns(SrmSorter *s, BufFile *f)
{
	MemoryContext old;
	SrmExportHeader h;
	int64		i;

	switch (s->state)
	{
		case SS_INITIAL:
		case SS_BUILDRUNS:
			break;
		default:
			INVALID_STATE(s, "SrmSorterAdoptRuns");
	}
	if (s->share == NULL || s->load.ntuples > 0)
		elog(ERROR, "srmsort: SrmSorterAdoptRuns needs SrmSorterUseShared and no tuples of its own");
	SrmRunListRead(f, &h, sizeof(h));
	s->tuples += h.tuples;
	s->input_bytes += h.input_bytes;
	if (h.nruns == 0)
		return 0;

	old = MemoryContextSwitchTo(s->cxt);
	if (s->state == SS_INITIAL)
		go_external(s);
	end_run(s);
	SrmSorterNoOpenRun(s, "SrmSorterAdoptRuns");
	for (i = 0; i < h.nruns; i++)
	{
		SrmRunExtent x;
		SrmRun	   *run;

		SrmRunImportExtent(f, &x);
		run = SrmSorterNewRun(s, x.nblocks * sizeof(SrmBlockRef) +
							  x.nforecast * sizeof(SrmForecastEntry));
		SrmRunImport(s->ts, run, &x, f);
		SrmSorterAddRun(s, run);
		s->nruns_initial++;
		SrmJobAddRun(run->nbytes);
	}
	SrmSorterNoteMem(s, 0);
	MemoryContextSwitchTo(old);
	return h.nruns;
}

/* ---------- statistics and end ---------- */

/*
 * SrmSorterGetStats
 *		The facts of the sort so far.
 */
void
SrmSorterGetStats(SrmSorter *s, SrmSortStats *st)
{
	memset(st, 0, sizeof(SrmSortStats));
	switch (s->state)
	{
		case SS_INITIAL:
			/* its memory peak is the memory it holds (see added) */
			SrmSorterNoteMem(s, 0);
			st->method = SRM_METHOD_STILL_RUNNING;
			break;
		case SS_BUILDRUNS:
			st->method = s->share != NULL && s->ts != NULL ?
				SRM_METHOD_PARTICIPANT_RUNS : SRM_METHOD_STILL_RUNNING;
			break;
		case SS_RUNSFINISHED:
			/* a participant's part is done, with no runs if it got no rows */
			st->method = SRM_METHOD_PARTICIPANT_RUNS;
			break;
		case SS_SORTEDINMEM:
			st->method = s->keys->norm != SRM_NORM_NONE ?
				SRM_METHOD_RADIX : SRM_METHOD_QUICKSORT;
			break;
		case SS_SORTEDONDISK:
			st->method = s->dsm ? SRM_METHOD_DSM_MATERIALIZED :
				SRM_METHOD_SRM_MATERIALIZED;
			break;
		case SS_FINALMERGE:
			st->method = s->dsm ? SRM_METHOD_DSM : SRM_METHOD_SRM;
			break;
		default:
			INVALID_STATE(s, "SrmSorterGetStats");
	}
	st->tuples = s->tuples;
	st->input_bytes = s->input_bytes;
	st->mem_peak = s->mem_peak;
	st->mem_budget = s->budget;
	if (s->ts != NULL)
		st->meta_paged = SrmTapeMetaBytes(s->ts);
	st->runs = s->nruns_initial;
	st->merge_order = s->merge_order;
	st->passes = s->passes;
	st->parallel_reads = s->counters.parallel_reads;
	st->flushes = s->counters.flushes;
	st->stalls = s->counters.stalls;
	if (s->ts != NULL)
	{
		int			i;
		int			len = 0;

		st->ndisks = s->ts->ndisks;
		st->disks_left_out = s->ts->disks->nleftout;
		st->block_size = s->block_size;
		st->blocks_read = s->ts->blocks_read;
		st->blocks_written = s->ts->blocks_written;
		st->temp_read = s->ts->blocks_read * s->block_size;
		st->temp_written = s->ts->blocks_written * s->block_size;
		st->temp_peak = s->ts->peak_slots_in_use * s->block_size;
		st->io_wait_ms = s->ts->io->wait_ms;
		if (s->counters.blocks_consumed > 0)
			st->nu = (double) s->counters.parallel_reads /
				((double) s->counters.blocks_consumed / SrmTapeWidth(s->ts));
		st->direct_io = s->ts->disks->direct_io;
		st->stripe_width = SrmTapeWidth(s->ts);
		st->weight_source = s->ts->disks->weight_source;
		StaticAssertStmt(SRM_STATS_DISKS == SRM_MAX_DISKS, "one entry per disk");
		for (i = 0; i < s->ts->ndisks; i++)
		{
			st->disk[i].bytes_read = s->ts->use[i].bytes[0];
			st->disk[i].bytes_written = s->ts->use[i].bytes[1];
			st->disk[i].busy_ms = s->ts->use[i].busy_ms[2];
			st->disk[i].share = SrmTapeShare(s->ts, i);
			if (len < (int) sizeof(st->disk_names) - 1)
				len += snprintf(st->disk_names + len, sizeof(st->disk_names) - len,
								"%s%s", i > 0 ? ", " : "",
								s->ts->disks->disks[i].spcname);
		}
	}
}

/*
 * trace_stats
 *		Log the facts of the sort (srmsort.trace).
 */
static void
trace_stats(SrmSorter *s)
{
	SrmSortStats st;

	SrmSorterGetStats(s, &st);
	ereport(LOG,
			(errmsg_plural("srmsort: sorted %lld tuple", "srmsort: sorted %lld tuples",
						   (unsigned long) st.tuples, (long long) st.tuples),
			 errdetail_internal("%s.", SrmSortStatsText(&st))));
}

/*
 * sorter_reset_callback
 *		The sorter's memory is going away without SrmSorterEnd (an error):
 *		drain I/O into its buffers and close the workfiles' kernel fds.
 */
static void
sorter_reset_callback(void *arg)
{
	SrmSorter  *s = (SrmSorter *) arg;

	if (s->ended)
		return;
	s->ended = true;
	if (s->job)
		SrmJobEnd();
	if (s->ts != NULL)
		SrmTapeSetClose(s->ts, true);
}

/*
 * SrmSorterEnd
 *		Release everything the sort holds.
 */
void
SrmSorterEnd(SrmSorter *s)
{
	if (srmsort_trace)
		trace_stats(s);
	if (s->merge != NULL)
		SrmMergeEnd(s->merge);
	if (s->scan != NULL)
		SrmScanEnd(s->scan);
	if (s->ts != NULL)
		SrmTapeSetClose(s->ts, false);
	if (s->job)
		SrmJobEnd();
	s->ended = true;
	MemoryContextDelete(s->cxt);
}
