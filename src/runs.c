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
 * With normalized first keys, loads after the first are sorted in segments
 * as they fill: every sixth of the array goes to the sort thread (thread.c)
 * while the input goes on, the rest is split between the thread and this
 * one at the end, and the run is written by merging the segments.  The
 * first load stays one segment: it may be the whole (in-memory) result,
 * read by position, and its size is not known while it fills.
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

#include <sys/mman.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "radix.h"
#include "runs.h"
#include "thread.h"

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
 * comparison.  NULLs are handled by the Apply*SortComparator inlines.
 */
static inline int
cmp_signed(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys)
{
	int			cmp = ApplySignedSortComparator(a->datum1, a->isnull1,
												b->datum1, b->isnull1,
												keys->sortKeys);

	return cmp != 0 ? cmp : SrmCompareTiebreak(a, b, keys);
}

static inline int
cmp_unsigned(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys)
{
	int			cmp = ApplyUnsignedSortComparator(a->datum1, a->isnull1,
												  b->datum1, b->isnull1,
												  keys->sortKeys);

	return cmp != 0 ? cmp : SrmCompareTiebreak(a, b, keys);
}

static inline int
cmp_int32(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys)
{
	int			cmp = ApplyInt32SortComparator(a->datum1, a->isnull1,
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
#define SRM_HUGE_PAGE		((Size) 2 * 1024 * 1024)	/* x86-64, arm64 */
#define SRM_SEG_MIN			8192	/* fewer tuples: not worth a hand-over */
#define SRM_SEGS_PER_LOAD	6	/* segments of a full load handed over */

/*
 * quiesce_callback
 *		The load's memory is going away (the end of the sort, or an error):
 *		the sort thread must be done with the tuple array.  The array lives
 *		in the parent context, which frees its own memory after this.
 */
static void
quiesce_callback(void *arg)
{
	SrmThreadQuiesce();
}

/*
 * set_seg_target
 *		Segments of a load that holds maxtuples: a sixth of it each, so that
 *		the thread sorts most of the load as it fills and the merge of the
 *		segments stays cheap (at most SRM_MAX_SEGS ways).
 */
static void
set_seg_target(SrmMemLoad *load, int64 maxtuples)
{
	if (!load->threaded)
		return;
	load->seg_target = Max(SRM_SEG_MIN, maxtuples / SRM_SEGS_PER_LOAD);
	load->seg_next = load->segs[load->nsegs] + load->seg_target;
}

/*
 * hand_over
 *		Make tuples[from .. from + n) the next segment, sorted by the thread.
 */
static void
hand_over(SrmMemLoad *load, int64 from, int64 n)
{
	SrmThreadSubmit(load->tuples + from, n);
	load->thread_segs++;
	load->thread_tuples += n;
	load->segs[++load->nsegs] = from + n;
}

/*
 * cut_segment
 *		Hand the tuples added since the last segment to the sort thread.
 *		The last two segments are cut by SrmMemLoadSort.
 */
static void
cut_segment(SrmMemLoad *load)
{
	int64		from = load->segs[load->nsegs];

	if (load->nsegs >= SRM_MAX_SEGS - 2)
	{
		load->seg_next = PG_INT64_MAX;
		return;
	}
	if (!SrmThreadStart())
	{
		load->threaded = false;
		load->seg_next = PG_INT64_MAX;
		return;
	}
	hand_over(load, from, load->ntuples - from);
	load->seg_next = load->ntuples + load->seg_target;
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
	load->cxt = AllocSetContextCreate(CurrentMemoryContext, "srmsort tuples",
									  ALLOCSET_DEFAULT_SIZES);
	load->threaded = keys->norm != SRM_NORM_NONE && srmsort_sort_thread;
	load->seg_next = PG_INT64_MAX;
	if (load->threaded)
	{
		MemoryContextCallback *cb = MemoryContextAlloc(load->cxt,
													   sizeof(MemoryContextCallback));

		/* the array may go with the sort's memory: the thread first */
		cb->func = quiesce_callback;
		cb->arg = NULL;
		MemoryContextRegisterResetCallback(load->cxt, cb);
	}
	/*
	 * Chunks of 1/16 of the budget, 32kB to 1MB; from a 32MB budget on,
	 * whole huge pages (see alloc_chunk).
	 */
	if (budget / 16 >= SRM_HUGE_PAGE)
		load->chunk_size = Min(budget / 16, 4 * SRM_HUGE_PAGE) & ~(SRM_HUGE_PAGE - 1);
	else
		load->chunk_size = Max(Min(budget / 16, 1024 * 1024), 32 * 1024);
	load->chunk_cap = 0;
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
	if (sz >= SRM_HUGE_PAGE && sz % SRM_HUGE_PAGE == 0)
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
		Size		sz = load->chunk_size;
		SrmArenaChunk *c;

		if (load->chunk_cap > 0 && load->chunk_cap < sz)
			sz = load->chunk_cap;
		sz = Max(sz, len);
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
		if (c->size < len)
		{
			/* a new chunk (or a kept one too small for this tuple) */
			if (c->raw != NULL)
				pfree(c->raw);
			alloc_chunk(load, c, sz);
		}
		/* a kept chunk may be larger than the budget allows now: use less */
		load->arena_pos = c->data;
		load->arena_left = Min(c->size, sz);
		load->arena_bytes += load->arena_left;
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
	int64		newmax = load->maxtuples * 2;

	if (used + extra > budget)
	{
		/*
		 * Doubling does not fit: a last step to as many slots as the rest
		 * of the budget holds at the average tuple size so far.  Without
		 * it a run fills the budget only as far as a power of two of slots
		 * happens to (measured: runs of half the budget, twice the runs).
		 */
		Size		arena_used = load->arena_bytes - load->arena_left;
		double		per;

		if (load->ntuples == 0 || used >= budget)
			return false;
		per = sizeof(SrmTuple) + (double) arena_used / load->ntuples;
		newmax = load->maxtuples + (int64) ((budget - used) / per);
		if (newmax - load->maxtuples < load->maxtuples / 32 + 16)
			return false;
	}
	if (newmax * sizeof(SrmTuple) > MaxAllocHugeSize)
		return false;
	/* the thread may be sorting segments of the array about to move */
	if (load->nsegs > 0)
		SrmThreadWait();
	load->tuples = repalloc_huge(load->tuples, newmax * sizeof(SrmTuple));
	/* the new part is fresh memory: fault it in off this CPU (aio.c) */
	SrmIoPrefault(load->tuples + load->maxtuples,
				  (newmax - load->maxtuples) * sizeof(SrmTuple));
	load->maxtuples = newmax;
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
	if (load->ntuples >= load->seg_next)
		cut_segment(load);
}

/*
 * SrmMemLoadSort
 *		Sort the load in memory: the segments not handed over yet (the rest
 *		is split between the thread and this one), then every segment's
 *		ties.  Without normalized keys, the whole load as one segment.
 */
void
SrmMemLoadSort(SrmMemLoad *load)
{
	SrmKeys    *keys = load->keys;
	SortSupport ssup = keys->sortKeys;
	int64		from = load->segs[load->nsegs];
	int64		n = load->ntuples - from;
	int			i;

	load->seg_next = PG_INT64_MAX;
	if (keys->norm != SRM_NORM_NONE)
	{
		if (load->nsegs > 0 && load->threaded && n >= 2 * SRM_SEG_MIN)
		{
			int64		half = n / 2;

			hand_over(load, from, half);
			from += half;
			n -= half;
		}
		if (n > 0)
		{
			SrmRadixSort(load->tuples + from, n, true);
			load->segs[++load->nsegs] = load->ntuples;
		}
		if (load->threaded)
			SrmThreadWait();
		if (SrmRadixNeedsTies(keys))
			for (i = 0; i < load->nsegs; i++)
				SrmRadixFixTies(load->tuples + load->segs[i],
								load->segs[i + 1] - load->segs[i], keys);
		return;
	}

	Assert(load->nsegs == 0);
	if (load->ntuples == 0)
		return;
#if SIZEOF_DATUM >= 8
	if (ssup->comparator == ssup_datum_signed_cmp)
		srm_qsort_signed(load->tuples, load->ntuples, keys);
	else
#endif
	if (ssup->comparator == ssup_datum_unsigned_cmp)
		srm_qsort_unsigned(load->tuples, load->ntuples, keys);
	else if (ssup->comparator == ssup_datum_int32_cmp)
		srm_qsort_int32(load->tuples, load->ntuples, keys);
	else
		srm_qsort_tuples(load->tuples, load->ntuples, keys);
	load->segs[++load->nsegs] = load->ntuples;
}

/*
 * The loser tree over a sorted load's segments.  Nodes hold their head
 * tuple's (NULL rank, key) inline; an exhausted segment has rank
 * SEG_DONE, after every tuple.  Which segment wins a node is a coin toss,
 * so nodes are compared and swapped without branches, which a predictor
 * cannot get wrong (measured: no faster than with branches on this
 * machine, where writing from seven segments costs the cache misses of
 * seven streams through the array more than the comparisons).
 */
#define SEG_DONE		((uint64) 3)	/* above SRM_NRANK_LAST */
#define SEG_RANK(n)		((n).rank_seg >> 32)
#define SEG_OF(n)		((int) ((n).rank_seg & 0xffffffff))

static inline SrmSegNode
seg_node(SrmMemLoad *load, int seg)
{
	SrmSegNode	n;

	if (load->head[seg] < load->segs[seg + 1])
	{
		SrmTuple   *t = &load->tuples[load->head[seg]];

		n.key = (uint64) t->datum1;
		n.rank_seg = ((uint64) t->nrank << 32) | (uint64) seg;
	}
	else
	{
		n.key = 0;
		n.rank_seg = (SEG_DONE << 32) | (uint64) seg;
	}
	return n;
}

/* Does node a come before node b? */
static inline bool
seg_before(SrmMemLoad *load, SrmSegNode a, SrmSegNode b)
{
	if (unlikely(a.key == b.key && SEG_RANK(a) == SEG_RANK(b)) &&
		load->ties && SEG_RANK(a) != SEG_DONE)
		return SrmCompareNorm(&load->tuples[load->head[SEG_OF(a)]],
							  &load->tuples[load->head[SEG_OF(b)]],
							  load->keys) < 0;
	return (SEG_RANK(a) < SEG_RANK(b)) |
		((SEG_RANK(a) == SEG_RANK(b)) & (a.key < b.key));
}

/*
 * begin_read
 *		Start reading the sorted load in order (several segments only with
 *		normalized keys).
 */
static void
begin_read(SrmMemLoad *load)
{
	SrmSegNode	win[2 * SRM_MAX_SEGS];
	int			k = load->nsegs;
	int			leaves = 1;
	int			i;

	for (i = 0; i < k; i++)
		load->head[i] = load->segs[i];
	while (leaves < k)
		leaves *= 2;
	load->tree_leaves = leaves;
	load->ties = SrmRadixNeedsTies(load->keys);
	if (k <= 1)
		return;
	for (i = 0; i < leaves; i++)
	{
		if (i < k)
			win[leaves + i] = seg_node(load, i);
		else
		{
			win[leaves + i].key = 0;
			win[leaves + i].rank_seg = SEG_DONE << 32;
		}
	}
	for (i = leaves - 1; i >= 1; i--)
	{
		SrmSegNode	a = win[2 * i],
					b = win[2 * i + 1];

		if (seg_before(load, b, a))
		{
			win[i] = b;
			load->tree[i] = a;
		}
		else
		{
			win[i] = a;
			load->tree[i] = b;
		}
	}
	load->winner = win[1];
}

/*
 * read_next
 *		The next tuple of the sorted load, or NULL at the end.
 */
static SrmTuple *
read_next(SrmMemLoad *load)
{
	SrmTuple   *t;
	SrmSegNode	c;
	int			w;
	int			node;

	if (load->nsegs <= 1)
	{
		if (load->nsegs == 0 || load->head[0] >= load->ntuples)
			return NULL;
		w = 0;
	}
	else
	{
		if (SEG_RANK(load->winner) == SEG_DONE)
			return NULL;
		w = SEG_OF(load->winner);
	}
	t = &load->tuples[load->head[w]++];
#ifdef __GNUC__

	/*
	 * Tuples are visited in sorted order, i.e. all over memory: fetch them
	 * a few ahead.  The array itself is read in as many streams as there
	 * are segments, too many for the hardware prefetcher: fetch it further
	 * ahead.
	 */
	if (load->head[w] + 32 < load->segs[w + 1])
		__builtin_prefetch(&load->tuples[load->head[w] + 32]);
	if (load->head[w] + 8 < load->segs[w + 1])
		__builtin_prefetch(load->tuples[load->head[w] + 8].tuple);
#endif
	if (load->nsegs <= 1)
		return t;

	/* replay w's path with its next tuple: the loser stays, the winner rises */
	c = seg_node(load, w);
	for (node = (load->tree_leaves + w) / 2; node >= 1; node /= 2)
	{
		SrmSegNode	l = load->tree[node];
		bool		swap = seg_before(load, l, c);
		uint64		mask = -(uint64) swap;

		load->tree[node].key = l.key ^ ((l.key ^ c.key) & mask);
		load->tree[node].rank_seg = l.rank_seg ^ ((l.rank_seg ^ c.rank_seg) & mask);
		c.key ^= (l.key ^ c.key) & mask;
		c.rank_seg ^= (l.rank_seg ^ c.rank_seg) & mask;
	}
	load->winner = c;
	return t;
}

/*
 * SrmMemLoadWriteRun
 *		Write the sorted load through w (the caller ends the writer).
 */
void
SrmMemLoadWriteRun(SrmMemLoad *load, SrmRunWriter *w)
{
	SrmTuple   *t;
	int64		i = 0;

	begin_read(load);
	while ((t = read_next(load)) != NULL)
	{
		if ((i++ & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		SrmRunWriterPut(w, t->tuple, (uint32) SrmTupleLen(load->keys, t->tuple),
						(uint64) t->datum1, t->nrank);
	}
}

/*
 * SrmMemLoadReset
 *		Forget the load's tuples.  The arena chunks stay for the next run:
 *		freed, glibc gave the memory back to the kernel and the next run
 *		faulted every page in again (measured: a fifth of a 64MB sort of
 *		5M records in page faults).
 */
void
SrmMemLoadReset(SrmMemLoad *load)
{
	load->ntuples = 0;
	load->nsegs = 0;
	load->seg_next = load->threaded ? load->seg_target : PG_INT64_MAX;
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
 *		so that array and arena fill room bytes together at avglen arena
 *		bytes per tuple, the last run's average.  Sized once by doubling,
 *		the array would leave a run a fifth of its budget short (measured
 *		at 4MB, where the write buffers join the budget after the first
 *		run).
 */
void
SrmMemLoadFit(SrmMemLoad *load, Size room, double avglen)
{
	MemoryContext cxt;
	int64		target;

	Assert(load->ntuples == 0);
	target = (int64) (room / (sizeof(SrmTuple) + avglen));
	target = Max(target, SRM_INITIAL_TUPLES);
	if ((Size) target * sizeof(SrmTuple) > MaxAllocHugeSize)
		target = MaxAllocHugeSize / sizeof(SrmTuple);
	if (load->tuples == NULL)
	{
		/* released (SrmMemLoadRelease): a new array where the old one was */
		load->tuples = MemoryContextAllocHuge(load->array_cxt,
											  target * sizeof(SrmTuple));
		load->maxtuples = target;
	}
	else if (target <= load->maxtuples - load->maxtuples / 32 ||
			 target >= load->maxtuples + load->maxtuples / 32)
	{
		cxt = GetMemoryChunkContext(load->tuples);
		pfree(load->tuples);
		load->tuples = MemoryContextAllocHuge(cxt, target * sizeof(SrmTuple));
		load->maxtuples = target;
	}
	set_seg_target(load, load->maxtuples);
}

/*
 * SrmMemLoadRelease
 *		Between runs (the load is empty): give back the tuple array and every
 *		arena chunk, for merges that run before the next load (mergeplan.c's
 *		early merges); SrmMemLoadFit sizes a new array afterwards.
 */
void
SrmMemLoadRelease(SrmMemLoad *load)
{
	Assert(load->ntuples == 0 && load->nsegs == 0);
	SrmMemLoadTrim(load, 0);
	pfree(load->tuples);
	load->tuples = NULL;
	load->maxtuples = 0;
}
