/*-------------------------------------------------------------------------
 *
 * sortread.c
 *	  Reading a performed sort's result: forward from the final merge,
 *	  forward and backward from a result sorted in memory or on disk,
 *	  and the random-access calls (rescan, mark, restore).
 *
 * Positions behave as tuplesort's: "current" is the next tuple forward,
 * and a backward fetch after the end returns the last tuple.  The final
 * merge streams and can only go forward; every row of a result comes
 * through next_tuple, so its common cases are inline and the rest out of
 * line.  Reading moves no sorter between states (sorter.c does that).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/engine/sortread.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/tuptable.h"

#include "engine/sorter_int.h"
#include "engine/sortread.h"
#include "merge/merge.h"
#include "runs/runs.h"
#include "runs/scan.h"

/* in-memory results: tuples fetched this far ahead of the reader */
#define SRM_FETCH_AHEAD 32

/*
 * sorted_count / tuple_at
 *		The result of a sort sorted in memory or on disk, by position.
 */
static int64
sorted_count(SrmSorter *s)
{
	return s->state == SS_SORTEDINMEM ? s->load.ntuples : SrmScanCount(s->scan);
}

static pg_attribute_always_inline void *
tuple_at(SrmSorter *s, int64 pos, bool forward)
{
	if (s->state == SS_SORTEDINMEM)
	{
		/*
		 * Sorted tuples lie scattered over the arena: fetch a few ahead so
		 * a long in-memory result is not one cache miss per tuple.
		 */
		if (forward && pos + SRM_FETCH_AHEAD < s->load.ntuples)
			__builtin_prefetch(s->load.tuples[pos + SRM_FETCH_AHEAD].tuple);
		return SrmMemLoadGet(&s->load, pos);
	}
	return SrmScanGet(s->scan, pos, forward);
}

/*
 * next_tuple_other
 *		next_tuple's cases but a forward step of the final merge or of an
 *		in-memory result.  Positions behave exactly as tuplesort's:
 *		"current" is the next tuple forward, and a backward fetch after the
 *		end returns the last tuple.  Out of line, so that the path every
 *		row takes keeps a small frame.  call is the entry point, for the
 *		error of a sort not performed.
 */
static pg_noinline void *
next_tuple_other(SrmSorter *s, bool forward, const char *call)
{
	switch (s->state)
	{
		case SS_FINALMERGE:
			elog(ERROR, "srmsort: backward fetch needs random access");
			break;
		case SS_SORTEDINMEM:
		case SS_SORTEDONDISK:
			break;
		default:
			INVALID_STATE(s, call);
	}

	if (forward)
	{
		if (s->current < sorted_count(s))
			return tuple_at(s, s->current++, true);
		s->eof_reached = true;
		return NULL;
	}
	if (!(s->flags & SRM_SORT_RANDOMACCESS))
		elog(ERROR, "srmsort: backward fetch needs random access");
	if (s->current <= 0)
		return NULL;
	if (s->eof_reached)
		s->eof_reached = false;
	else
	{
		s->current--;			/* the tuple returned last */
		if (s->current <= 0)
			return NULL;
	}
	return tuple_at(s, s->current - 1, false);
}

/*
 * next_tuple
 *		The next tuple in the given direction, or NULL.  Inline: every row
 *		of a result comes through it.
 */
static pg_attribute_always_inline void *
next_tuple(SrmSorter *s, bool forward, const char *call)
{
	if (likely(forward))
	{
		if (s->state == SS_FINALMERGE)
		{
			void	   *tuple = SrmMergeNext(s->merge);

			if (unlikely(tuple == NULL))
				s->eof_reached = true;
			return tuple;
		}
		if (s->state == SS_SORTEDINMEM && s->current < s->load.ntuples)
			return tuple_at(s, s->current++, true);
	}
	return next_tuple_other(s, forward, call);
}

/*
 * SrmSorterNextSlot
 *		Store the next tuple in slot, or clear it at the end; returns slot.
 *		Both ends are tail calls, and so can be the caller's.
 */
TupleTableSlot *
SrmSorterNextSlot(SrmSorter *s, bool forward, TupleTableSlot *slot)
{
	void	   *tuple = next_tuple(s, forward, "SrmSorterGetSlot");

	if (unlikely(tuple == NULL))
		return ExecClearTuple(slot);
	return ExecStoreMinimalTuple((MinimalTuple) tuple, slot, false);
}

/*
 * SrmSorterGetSlot
 *		Store the next tuple in slot; false at the end.
 */
bool
SrmSorterGetSlot(SrmSorter *s, bool forward, TupleTableSlot *slot)
{
	/* TupIsNull reads its argument twice: call once */
	TupleTableSlot *next = SrmSorterNextSlot(s, forward, slot);

	return !TupIsNull(next);
}

/*
 * SrmSorterForwardMerge
 *		See sortread.h.
 */
SrmMerge *
SrmSorterForwardMerge(SrmSorter *s)
{
	return s->state == SS_FINALMERGE ? s->merge : NULL;
}

/*
 * SrmSorterGetIndexTuple
 *		The next index tuple, or NULL at the end.
 */
IndexTuple
SrmSorterGetIndexTuple(SrmSorter *s)
{
	return (IndexTuple) next_tuple(s, true, "SrmSorterGetIndexTuple");
}

/*
 * check_random_access
 *		Rescan, mark and restore need a performed sort whose result can be
 *		re-read.
 */
static void
check_random_access(SrmSorter *s, const char *call)
{
	switch (s->state)
	{
		case SS_SORTEDINMEM:
		case SS_SORTEDONDISK:
			break;
		default:
			INVALID_STATE(s, call);
	}
	if (!(s->flags & SRM_SORT_RANDOMACCESS))
		elog(ERROR, "srmsort: %s needs a random-access sort", call);
}

/*
 * SrmSorterRescan
 *		Start reading the result from the beginning again.
 */
void
SrmSorterRescan(SrmSorter *s)
{
	check_random_access(s, "SrmSorterRescan");
	s->current = 0;
	s->eof_reached = false;
	s->markpos = 0;
	s->markpos_eof = false;
}

/*
 * SrmSorterMarkPos
 *		Remember the current read position.
 */
void
SrmSorterMarkPos(SrmSorter *s)
{
	check_random_access(s, "SrmSorterMarkPos");
	s->markpos = s->current;
	s->markpos_eof = s->eof_reached;
}

/*
 * SrmSorterRestorePos
 *		Go back to the position remembered by SrmSorterMarkPos.
 */
void
SrmSorterRestorePos(SrmSorter *s)
{
	check_random_access(s, "SrmSorterRestorePos");
	s->current = s->markpos;
	s->eof_reached = s->markpos_eof;
}
