/*-------------------------------------------------------------------------
 *
 * runs.c
 *	  Run formation: a memory load of tuples, sorted and written as a run.
 *
 * Tuples are copied into an arena of large chunks (no per-tuple palloc
 * header or power-of-two rounding, so a run holds more tuples than
 * tuplesort's for the same memory) and described by an array of SrmTuple
 * (tuple pointer and first key).  When memory is full, the array is sorted
 * -- with abbreviated first keys where the type offers them -- and written
 * in order as one striped run; then the arena is reset.
 *
 * Memory: the arena is a child context of the sorter's; the caller counts
 * SrmMemLoadBytes against the sort's budget.
 *
 * IDENTIFICATION
 *	  src/runs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "runs.h"

/* quicksort of SrmTuple arrays, from PostgreSQL's sort template */
#define ST_SORT srm_qsort_tuples
#define ST_ELEMENT_TYPE SrmTuple
#define ST_COMPARE(a, b, arg) SrmCompareAbbrev(a, b, arg)
#define ST_COMPARE_ARG_TYPE SrmKeys
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

#define SRM_INITIAL_TUPLES	1024

/*
 * SrmMemLoadInit
 *		Set up an empty load in CurrentMemoryContext for a sort whose budget
 *		is budget bytes.
 */
void
SrmMemLoadInit(SrmMemLoad *load, SrmKeys *keys, Size budget)
{
	memset(load, 0, sizeof(SrmMemLoad));
	load->keys = keys;
	load->cxt = AllocSetContextCreate(CurrentMemoryContext, "srmsort tuples",
									  ALLOCSET_DEFAULT_SIZES);
	/* chunks of 1/16 of the budget, 32kB to 1MB */
	load->chunk_size = Max(Min(budget / 16, 1024 * 1024), 32 * 1024);
	load->maxtuples = SRM_INITIAL_TUPLES;
	load->tuples = palloc(load->maxtuples * sizeof(SrmTuple));
}

/*
 * SrmMemLoadAlloc
 *		len bytes of MAXALIGNed arena space for a tuple.
 */
void *
SrmMemLoadAlloc(SrmMemLoad *load, Size len)
{
	void	   *p;

	len = MAXALIGN(len);
	if (len > load->arena_left)
	{
		Size		sz = Max(load->chunk_size, len);

		load->arena_pos = MemoryContextAllocHuge(load->cxt, sz);
		load->arena_left = sz;
		load->arena_bytes += sz;
	}
	p = load->arena_pos;
	load->arena_pos += len;
	load->arena_left -= len;
	return p;
}

/*
 * SrmMemLoadGrow
 *		Double the tuple array if the budget allows it (used = bytes the
 *		sort occupies now).  Returns false if the array is full for good.
 */
bool
SrmMemLoadGrow(SrmMemLoad *load, Size budget, Size used)
{
	Size		extra = load->maxtuples * sizeof(SrmTuple);

	if (used + extra > budget ||
		(load->maxtuples * 2) * sizeof(SrmTuple) > MaxAllocHugeSize)
		return false;
	load->tuples = repalloc_huge(load->tuples,
								 load->maxtuples * 2 * sizeof(SrmTuple));
	load->maxtuples *= 2;
	return true;
}

/*
 * SrmMemLoadAdd
 *		Append a tuple already copied into the arena.  The array must have
 *		room (see SrmMemLoadGrow).
 */
void
SrmMemLoadAdd(SrmMemLoad *load, void *tuple)
{
	SrmTuple   *t = &load->tuples[load->ntuples];

	Assert(load->ntuples < load->maxtuples);
	t->tuple = tuple;
	t->src = 0;
	SrmKeysSetDatum1(load->keys, t, true);
	load->ntuples++;
}

/*
 * SrmMemLoadSort
 *		Sort the load in memory.
 */
void
SrmMemLoadSort(SrmMemLoad *load)
{
	if (load->ntuples > 1)
		srm_qsort_tuples(load->tuples, load->ntuples, load->keys);
}

/*
 * SrmMemLoadWriteRun
 *		Write the sorted load through w (the caller ends the writer).
 */
void
SrmMemLoadWriteRun(SrmMemLoad *load, SrmRunWriter *w)
{
	int64		i;

	for (i = 0; i < load->ntuples; i++)
	{
		void	   *tuple = load->tuples[i].tuple;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		SrmRunWriterPut(w, tuple, (uint32) SrmTupleLen(load->keys, tuple));
	}
}

/*
 * SrmMemLoadReset
 *		Forget the load's tuples and free the arena.
 */
void
SrmMemLoadReset(SrmMemLoad *load)
{
	MemoryContextReset(load->cxt);
	load->ntuples = 0;
	load->arena_pos = NULL;
	load->arena_left = 0;
	load->arena_bytes = 0;
}
