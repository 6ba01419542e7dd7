/*-------------------------------------------------------------------------
 *
 * runs.c
 *	  Run formation: a memory load of tuples, sorted and written as a run.
 *
 * Tuples are copied into an arena of large chunks (no per-tuple palloc
 * header or power-of-two rounding, so a run holds more tuples than
 * tuplesort's for the same memory) and described by an array of SrmTuple
 * (tuple pointer, length and first key).  A heap tuple is stored from
 * SRM_ARENA_SKIP bytes into its MinimalTuple on: its t_len lives in the
 * SrmTuple, and its tuple pointer points SRM_ARENA_SKIP bytes before the
 * stored part, into its neighbour's tail (nothing reads a MinimalTuple's
 * first bytes but its t_len).  SrmMemLoadGet lends the t_len its place
 * while the tuple is handed out.  When memory is full, the array is sorted
 * -- with abbreviated first keys where the type offers them -- and written
 * in order as one striped run; then the arena is reset.
 *
 * With normalized first keys the array is radix sorted on them (radix.c)
 * and only groups of equal keys go to the full comparison.
 *
 * Memory: the arena is a child context of the sorter's; the caller counts
 * SrmMemLoadBytes against the sort's budget.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/runs/runs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/mman.h>

#include "access/itup.h"
#include "access/heaptoast.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "base/settings.h"
#include "keys/radix.h"
#include "runs/runs.h"

/* quicksort of SrmTuple arrays, from PostgreSQL's sort template */
#define ST_SORT srm_qsort_tuples
#define ST_ELEMENT_TYPE SrmTuple
#define ST_COMPARE(a, b, arg) SrmCompareAbbrev(a, b, arg)
#define ST_COMPARE_ARG_TYPE SrmKeys
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Specializations for the common first-key comparators (as tuplesort has
 * since PostgreSQL 15): datum1 is compared inline, ties go to the full
 * comparison.  NULLs are placed by keys.h's SrmCmp* inlines.
 */
static inline int
cmp_signed(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys)
{
	int			cmp = SrmCmpSigned(a->datum1, a->isnull1,
								   b->datum1, b->isnull1,
								   keys->sortKeys);

	return cmp != 0 ? cmp : SrmCompareTiebreak(a, b, keys);
}

static inline int
cmp_unsigned(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys)
{
	int			cmp = SrmCmpUnsigned(a->datum1, a->isnull1,
									 b->datum1, b->isnull1,
									 keys->sortKeys);

	return cmp != 0 ? cmp : SrmCompareTiebreak(a, b, keys);
}

static inline int
cmp_int32(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys)
{
	int			cmp = SrmCmpInt32(a->datum1, a->isnull1,
								  b->datum1, b->isnull1,
								  keys->sortKeys);

	return cmp != 0 ? cmp : SrmCompareTiebreak(a, b, keys);
}

#define ST_SORT srm_qsort_signed
#define ST_ELEMENT_TYPE SrmTuple
#define ST_COMPARE(a, b, arg) cmp_signed(a, b, arg)
#define ST_COMPARE_ARG_TYPE SrmKeys
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

#define ST_SORT srm_qsort_unsigned
#define ST_ELEMENT_TYPE SrmTuple
#define ST_COMPARE(a, b, arg) cmp_unsigned(a, b, arg)
#define ST_COMPARE_ARG_TYPE SrmKeys
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

#define ST_SORT srm_qsort_int32
#define ST_ELEMENT_TYPE SrmTuple
#define ST_COMPARE(a, b, arg) cmp_int32(a, b, arg)
#define ST_COMPARE_ARG_TYPE SrmKeys
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

#define SRM_INITIAL_TUPLES	1024

/*
 * The radix sort's scratch kept past the array's slots once a sort writes
 * runs (SrmMemLoadFit): a 16th of the room for its loads, at most 8MB (a
 * load part's array, SRM_LOAD_PART, takes less), none when that is under
 * 1024 slots.  The first load keeps none: a sort that fits in memory must
 * not spill for scratch it could do without.
 */
#define SRM_SCRATCH_SHARE	16
#define SRM_SCRATCH_MAX		((Size) 8 * 1024 * 1024)
#define SRM_SCRATCH_MIN		1024
#define SRM_HUGE_PAGE		((Size) 2 * 1024 * 1024)	/* x86-64, arm64 */

/* The scratch slots beside an array of max slots. */
static inline int64
reserve_for(SrmMemLoad *load, int64 max)
{
	return Min(load->reserve_max, max);
}

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
	SrmRecFormatInit(&load->fmt, keys);
	load->int8_key = SrmRecInt8Key(&load->fmt, &load->int8_xor);
	if (keys->kind == SRM_KEYS_INDEX)
	{
		int			off = SrmFixedAttsEnd(keys->tupdesc, keys->tupdesc->natts);

		/* too large for an index tuple: index_form_tuple's error */
		load->ix_fixed = off >= 0 &&
			MAXALIGN(IndexInfoFindDataOffset(0) + off) <= INDEX_SIZE_MASK;
		if (load->ix_fixed)
		{
			TupleDesc	desc = keys->tupdesc;
			int			i;

			load->ix_size = MAXALIGN(IndexInfoFindDataOffset(0) + off);
			load->ix_natts = desc->natts;
			load->ix_off = palloc(desc->natts * sizeof(int16));
			load->ix_len = palloc(desc->natts * sizeof(int16));
			off = 0;
			for (i = 0; i < desc->natts; i++)
			{
				Form_pg_attribute att = TupleDescAttr(desc, i);

				off = att_align_nominal(off, att->attalign);
				load->ix_off[i] = off;
				/* by value: what store_att_byval stores */
				load->ix_len[i] = att->attbyval ? att->attlen : -att->attlen;
				off += att->attlen;
			}
		}
	}
	load->cxt = AllocSetContextCreate(CurrentMemoryContext, "srmsort tuples",
									  ALLOCSET_DEFAULT_SIZES);
	/*
	 * Chunks of 1/16 of the budget, 32kB to 1MB; from a 32MB budget on,
	 * whole huge pages (see alloc_chunk).
	 */
	if (budget / 16 >= SRM_HUGE_PAGE)
		load->chunk_size = Min(budget / 16, 4 * SRM_HUGE_PAGE) & ~(SRM_HUGE_PAGE - 1);
	else
		load->chunk_size = Max(Min(budget / 16, 1024 * 1024), 32 * 1024);
	load->chunk_cap = 0;
	/* no scratch in the first load (reserve and reserve_max are 0) */
	load->maxtuples = SRM_INITIAL_TUPLES;
	load->array_cxt = CurrentMemoryContext;
	load->tuples = palloc(load->maxtuples * sizeof(SrmTuple));
}

/*
 * alloc_chunk
 *		An arena chunk of sz bytes.  Chunks of whole huge pages are aligned
 *		to them and offered to transparent huge pages: writing a run or
 *		returning an in-memory result visits the tuples in sorted order, all
 *		over the arena, and with 4kB pages nearly every visit missed the TLB
 *		(the prefetch ahead stalled on the page walk).  The alignment slack
 *		is never touched, so it costs address space only.
 */
static void
alloc_chunk(SrmMemLoad *load, SrmArenaChunk *c, Size sz)
{
	c->size = sz;
#ifdef MADV_HUGEPAGE
	if (srmsort_huge_pages && sz >= SRM_HUGE_PAGE && sz % SRM_HUGE_PAGE == 0)
	{
		c->raw = MemoryContextAllocHuge(load->cxt, sz + SRM_HUGE_PAGE);
		c->data = (char *) TYPEALIGN(SRM_HUGE_PAGE, c->raw);
		/* advice only: without THP the chunk still works */
		(void) madvise(c->data, sz, MADV_HUGEPAGE);
		/* its pages zeroed on the other CPU while this one fills them */
		SrmIoPrefault(c->data, sz);
		return;
	}
#endif
	c->raw = c->data = MemoryContextAllocHuge(load->cxt, sz);
}

/*
 * SrmMemLoadNewChunk
 *		Open the next arena chunk, with room for space bytes at least
 *		(SrmMemLoadAlloc's way when the open one is full).
 */
void
SrmMemLoadNewChunk(SrmMemLoad *load, Size space)
{
	Size		sz = load->chunk_size;
	SrmArenaChunk *c;

	if (load->chunk_cap > 0 && load->chunk_cap < sz)
		sz = load->chunk_cap;
	/* a chunk's first bytes are room for its first tuple's t_len */
	sz = Max(sz, space + SRM_ARENA_SKIP);
	load->chunk_cap = 0;

	if (load->next_chunk == load->nchunks)
	{
		if (load->nchunks == load->maxchunks)
		{
			load->maxchunks = Max(16, load->maxchunks * 2);
			load->chunks = load->chunks == NULL ?
				MemoryContextAlloc(load->cxt, load->maxchunks * sizeof(SrmArenaChunk)) :
				repalloc(load->chunks, load->maxchunks * sizeof(SrmArenaChunk));
		}
		c = &load->chunks[load->nchunks++];
		c->data = c->raw = NULL;
		c->size = 0;
	}
	c = &load->chunks[load->next_chunk++];
	if (c->size < space + SRM_ARENA_SKIP)
	{
		/* a new chunk (or a kept one too small for this tuple) */
		if (c->raw != NULL)
			pfree(c->raw);
		alloc_chunk(load, c, sz);
	}
	/* a kept chunk may be larger than the budget allows now: use less */
	load->arena_pos = c->data + SRM_ARENA_SKIP;
	load->arena_left = Min(c->size, sz) - SRM_ARENA_SKIP;
	load->arena_bytes += Min(c->size, sz);
}

/*
 * SrmMemLoadChunkFits
 *		Before a tuple taking space arena bytes joins the load: whether it
 *		fits, given room, the budget's bytes still free.  It does if the
 *		open chunk has the space or the load is empty; else a new chunk is
 *		worth taking only if room holds the tuple and, unless the usual
 *		chunk is smaller, 8kB (false: write a run first), and the chunk is
 *		capped at room.
 */
bool
SrmMemLoadChunkFits(SrmMemLoad *load, Size space, Size room)
{
	if (space <= load->arena_left || load->ntuples == 0)
		return true;
	if (room < Max(space + SRM_ARENA_SKIP, Min(load->chunk_size, 8192)))
		return false;
	if (room < load->chunk_size)
		load->chunk_cap = room;
	return true;
}

/*
 * SrmMemLoadGrow
 *		Double the tuple array if the budget allows it (used = bytes the
 *		sort occupies now).  Returns false if the array is full for good.
 */
bool
SrmMemLoadGrow(SrmMemLoad *load, Size budget, Size used)
{
	int64		newmax = load->maxtuples * 2;
	int64		newres = reserve_for(load, newmax);
	Size		extra = (newmax + newres - load->maxtuples - load->reserve) *
		sizeof(SrmTuple);

	if (used + extra > budget)
	{
		/*
		 * Doubling does not fit: a last step to as many slots as the rest
		 * of the budget holds at the average tuple size so far.  Without
		 * it a run fills the budget only as far as a power of two of slots
		 * happens to: down to half the budget, twice the runs.  While the
		 * scratch grows with the array, a slot costs two.
		 */
		Size		arena_used = load->arena_bytes - load->arena_left;
		double		per;

		if (load->ntuples == 0 || used >= budget)
			return false;
		per = (load->reserve < load->reserve_max ? 2 : 1) * sizeof(SrmTuple) +
			(double) arena_used / load->ntuples;
		newmax = load->maxtuples + (int64) ((budget - used) / per);
		if (newmax - load->maxtuples < load->maxtuples / 32 + 16)
			return false;
		newres = reserve_for(load, newmax);
	}
	if ((newmax + newres) * sizeof(SrmTuple) > MaxAllocHugeSize)
		return false;
	load->tuples = repalloc_huge(load->tuples,
								 (newmax + newres) * sizeof(SrmTuple));
	/* the new part is fresh memory: fault it in off this CPU (aio.c) */
	SrmIoPrefault(load->tuples + load->maxtuples + load->reserve,
				  (newmax + newres - load->maxtuples - load->reserve) *
				  sizeof(SrmTuple));
	load->maxtuples = newmax;
	load->reserve = newres;
	return true;
}

/*
 * SrmMemLoadAddSlow
 *		SrmMemLoadAdd's way for keys not read in place: the first key as
 *		the sort's keys give it.
 */
void
SrmMemLoadAddSlow(SrmMemLoad *load, SrmTuple *t)
{
	SrmKeysSetDatum1(load->keys, t, true);
}

/*
 * SrmMemLoadSort
 *		Sort the n tuples of the load from tuple lo on, in memory: on
 *		normalized keys a radix sort, then the groups of equal keys with the
 *		full comparison; otherwise quicksort.  The radix sort's scratch is
 *		the array's free slots, never fresh memory: a large scratch
 *		allocated for the sort costs more in page faults (the kernel
 *		zeroing it) than sorting out of place saves.
 */
void
SrmMemLoadSort(SrmMemLoad *load, int64 lo, int64 n)
{
	SrmKeys    *keys = load->keys;
	SortSupport ssup = keys->sortKeys;
	SrmTuple   *a = load->tuples + lo;

	Assert(lo >= 0 && lo + n <= load->ntuples);
	if (n <= 0)
		return;
	if (keys->norm != SRM_NORM_NONE)
	{
		/* the slots past the load's tuples are free */
		if (SrmRadixSort(a, n, load->tuples + load->ntuples,
						 load->maxtuples + load->reserve - load->ntuples) &&
			SrmKeysNeedTies(keys))
			SrmRadixFixTies(a, n, keys);
		return;
	}

#if SIZEOF_DATUM >= 8
	if (ssup->comparator == ssup_datum_signed_cmp)
		srm_qsort_signed(a, n, keys);
	else
#endif
	if (ssup->comparator == ssup_datum_unsigned_cmp)
		srm_qsort_unsigned(a, n, keys);
	else if (ssup->comparator == ssup_datum_int32_cmp)
		srm_qsort_int32(a, n, keys);
	else
		srm_qsort_tuples(a, n, keys);
}

/*
 * SrmMemLoadWriteRun
 *		Write the n sorted tuples of the load from tuple lo on through w
 *		(the caller ends the writer).
 */
void
SrmMemLoadWriteRun(SrmMemLoad *load, int64 lo, int64 n, SrmRunWriter *w)
{
	SrmTuple   *tuples = load->tuples + lo;
	int64		i;

	Assert(lo >= 0 && lo + n <= load->ntuples);
	for (i = 0; i < n; i++)
	{
		SrmTuple   *t = &tuples[i];

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
#ifdef __GNUC__

		/*
		 * Tuples are visited in sorted order, i.e. all over memory: fetch
		 * them a few ahead, and the array further ahead.  First, middle
		 * and last byte: every line of a tuple of up to 128 bytes, which
		 * spans three lines when it begins late in one.
		 */
		if (i + 48 < n)
			__builtin_prefetch(&tuples[i + 48]);
		if (i + 16 < n)
		{
			const char *ahead = tuples[i + 16].tuple;
			uint32		len = tuples[i + 16].len;

			__builtin_prefetch(ahead);
			__builtin_prefetch(ahead + len / 2);
			__builtin_prefetch(ahead + len - 1);
		}
#endif
		SrmRunWriterPut(w, t->tuple, t->len, (uint64) t->datum1, t->nrank);
	}
}

/*
 * SrmMemLoadReset
 *		Forget the load's tuples.  The arena chunks stay for the next run:
 *		freed, glibc would give the memory back to the kernel and the next
 *		run would fault every page in again.
 */
void
SrmMemLoadReset(SrmMemLoad *load)
{
	load->ntuples = 0;
	load->lent = NULL;
	load->next_chunk = 0;
	load->arena_pos = NULL;
	load->arena_left = 0;
	load->arena_bytes = 0;
	load->chunk_cap = 0;
}

/*
 * SrmMemLoadTrim
 *		After a reset: free kept chunks, last first, until they hold at
 *		most keep bytes (what the next run may use for its arena).
 */
void
SrmMemLoadTrim(SrmMemLoad *load, Size keep)
{
	Size		held = 0;
	int			i;

	Assert(load->next_chunk == 0);
	for (i = 0; i < load->nchunks; i++)
		held += load->chunks[i].size;
	while (load->nchunks > 0 && held > keep)
	{
		SrmArenaChunk *c = &load->chunks[--load->nchunks];

		held -= c->size;
		pfree(c->raw);
	}
}

/*
 * SrmMemLoadFit
 *		After a run was written (the load is empty): size the tuple array
 *		so that array, the radix sort's scratch beside it and arena fill
 *		room bytes together at avglen arena bytes per tuple, the last run's
 *		average.  Sized by doubling alone, the array would leave runs well
 *		short of their budget.
 */
void
SrmMemLoadFit(SrmMemLoad *load, Size room, double avglen)
{
	MemoryContext cxt;
	int64		target;

	Assert(load->ntuples == 0);
	if (load->keys->norm != SRM_NORM_NONE)
	{
		load->reserve_max = Min(room / SRM_SCRATCH_SHARE, SRM_SCRATCH_MAX) /
			sizeof(SrmTuple);
		if (load->reserve_max < SRM_SCRATCH_MIN)
			load->reserve_max = 0;
	}
	target = (int64) (room / (sizeof(SrmTuple) + avglen));
	/* the scratch's share of room, itself no larger than the array */
	if (load->reserve_max > 0)
	{
		int64		res = reserve_for(load, target);
		Size		rbytes = res * sizeof(SrmTuple);

		target = (int64) ((room > rbytes ? room - rbytes : 0) /
						  (sizeof(SrmTuple) + avglen));
	}
	target = Max(target, SRM_INITIAL_TUPLES);
	if ((Size) (target + reserve_for(load, target)) * sizeof(SrmTuple) >
		MaxAllocHugeSize)
		target = MaxAllocHugeSize / sizeof(SrmTuple) - load->reserve_max;
	if (load->tuples == NULL)
	{
		/* released (SrmMemLoadRelease): a new array where the old one was */
		load->maxtuples = target;
		load->reserve = reserve_for(load, target);
		load->tuples = MemoryContextAllocHuge(load->array_cxt,
											  (target + load->reserve) *
											  sizeof(SrmTuple));
	}
	else if (target <= load->maxtuples - load->maxtuples / 32 ||
			 target >= load->maxtuples + load->maxtuples / 32 ||
			 load->reserve < reserve_for(load, target) / 2)
	{
		/* reallocated only for a change worth the fresh pages */
		cxt = GetMemoryChunkContext(load->tuples);
		pfree(load->tuples);
		load->maxtuples = target;
		load->reserve = reserve_for(load, target);
		load->tuples = MemoryContextAllocHuge(cxt, (target + load->reserve) *
											  sizeof(SrmTuple));
	}
}

/*
 * SrmMemLoadRelease
 *		Between runs (the load is empty): give back the tuple array and every
 *		arena chunk, for merges that run before the next load (sortmerge.c's
 *		early merges; SrmMemLoadFit sizes a new array afterwards) or after
 *		the last run.
 */
void
SrmMemLoadRelease(SrmMemLoad *load)
{
	Assert(load->ntuples == 0);
	SrmMemLoadTrim(load, 0);
	pfree(load->tuples);
	load->tuples = NULL;
	load->maxtuples = 0;
	load->reserve = 0;
}

/* ---------- btree index tuples formed in place ---------- */

/*
 * SrmIndexTupleSize
 *		The size index_form_tuple would give the index tuple of values,
 *		and its data size, when the values need none of its TOAST work:
 *		no external value, and no plain varlena above TOAST_INDEX_TARGET
 *		(which it would try to compress).  0 otherwise, and for tuples too
 *		large for an index tuple, which index_form_tuple must refuse in its
 *		own words.
 */
Size
SrmIndexTupleSize(SrmMemLoad *load, const Datum *values, const bool *isnull,
				  Size *data_size)
{
	TupleDesc	desc = load->keys->tupdesc;
	bool		hasnull = false;
	Size		size;
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		const struct varlena *v;

		if (isnull[i])
		{
			hasnull = true;
			continue;
		}
		if (load->ix_fixed || TupleDescAttr(desc, i)->attlen != -1)
			continue;
		v = (const struct varlena *) DatumGetPointer(values[i]);
		if (VARATT_IS_EXTERNAL(v) ||
			(!VARATT_IS_EXTENDED(v) && VARSIZE(v) > TOAST_INDEX_TARGET))
			return 0;
	}
	if (load->ix_fixed && !hasnull)
	{
		*data_size = 0;			/* not needed */
		return load->ix_size;
	}
	*data_size = heap_compute_data_size(desc, (Datum *) values, (bool *) isnull);
	size = MAXALIGN(IndexInfoFindDataOffset(hasnull ? INDEX_NULL_MASK : 0) +
					*data_size);
	if ((size & INDEX_SIZE_MASK) != size)
		return 0;
	return size;
}

/*
 * SrmIndexTupleFill
 *		Form at dst the index tuple SrmIndexTupleSize sized: byte for byte
 *		what index_form_tuple would palloc (padding zeroed), without the
 *		palloc and the copy.  Fixed-length columns without NULLs are stored
 *		as heap_fill_tuple would store them, without its general loop.  The
 *		caller sets t_tid.
 */
void
SrmIndexTupleFill(SrmMemLoad *load, const Datum *values, const bool *isnull,
				  Size size, Size data_size, char *dst)
{
	TupleDesc	desc = load->keys->tupdesc;
	IndexTuple	itup = (IndexTuple) dst;
	unsigned short infomask = 0;
	uint16		tupmask = 0;
	bool		hasnull = false;
	int			i;

	for (i = 0; i < desc->natts && !hasnull; i++)
		hasnull = isnull[i];
	memset(dst, 0, size);
	if (load->ix_fixed && !hasnull)
	{
		char	   *data = dst + IndexInfoFindDataOffset(0);
		Size		off = 0;

		for (i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			off = att_align_nominal(off, att->attalign);
			if (att->attbyval)
				store_att_byval(data + off, values[i], att->attlen);
			else
				memcpy(data + off, DatumGetPointer(values[i]), att->attlen);
			off += att->attlen;
		}
		itup->t_info = size;
		return;
	}
	if (hasnull)
		infomask |= INDEX_NULL_MASK;
	heap_fill_tuple(desc, (Datum *) values, (bool *) isnull,
					dst + IndexInfoFindDataOffset(infomask), data_size,
					&tupmask,
					hasnull ? (uint8 *) dst + sizeof(IndexTupleData) : NULL);
	if (tupmask & HEAP_HASVARWIDTH)
		infomask |= INDEX_VAR_MASK;
	itup->t_info = infomask | size;
}
