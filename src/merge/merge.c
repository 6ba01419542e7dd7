/*-------------------------------------------------------------------------
 *
 * merge.c
 *	  One merge of R striped runs: SRM (forecast and flush) or DSM.
 *
 * docs/design.md teaches the whole algorithm (run formation, striping,
 * forecasting, this merge step by step, merge planning).
 *
 * SRM (Barve & Vitter, §4.4).  m >= 2R + D block buffers hold the R
 * leading blocks (one per run, pinned until depleted) and prefetched
 * blocks.  Blocks that will be needed are represented by placeholders:
 *
 *	 LQ	  the lookahead queue, all placeholders in participation order, as
 *		  produced one Lookahead() at a time by the forecasting heap;
 *	 OQ_d one occupancy queue per disk d: the placeholders of LQ whose
 *		  blocks are on disk d and not in memory, in participation order.
 *
 * Parallel_Read issues, in one batch and without waiting, the read of the
 * block at the head of every non-empty OQ_d -- at most one per disk, each
 * the smallest unread block of its disk.  (On disks of different speeds
 * the runs are striped by weight, placement.c: disk d holds n_d blocks of
 * every period of L, and Parallel_Read reads up to n_d blocks of it, the
 * heads of OQ_d; with equal weights n_d = 1 and L = D, as in the paper.)
 * Flushing is lazy: the paper frees D buffers before every Parallel_Read,
 * here a block is flushed (dropped without I/O and its placeholder put
 * back at the head of its OQ) only when a read finds no free buffer, one
 * block per read, the prefetched block nearest the tail of LQ -- and by
 * Parallel_Read only if that block is needed later than the one read, so
 * a flush never costs a block needed sooner (see srmread.c).
 * "marked" is the smallest block read by the latest Parallel_Read; when it
 * becomes a leading block, the merge pauses to issue the next Parallel_Read
 * (after Lookahead()s that make every OQ non-empty), with next_marked --
 * the smallest unread block after the previous read -- as the new marked.
 *
 * The merge is a pull iterator (SrmMergeNext), so the final merge can
 * stream to the caller; step 11 of the paper is one call.  Forecasts only
 * decide what to read: when a run needs a block that is not in memory
 * (forecast keys hold only the first sort key, so ties may be predicted in
 * another order), the block is read on demand and counted as a stall.
 * When the block is in flight, the merge waits for it.
 *
 * SRM's block choice (placeholders, LQ and OQs, Parallel_Read, flushing)
 * is srmread.c's.  DSM (§2.4) is the baseline: only that step (which
 * buffer holds a run's next block, and which reads to issue) differs, and
 * it is dsmread.c's.
 *
 * Records too large for a block (BIG + CONT blocks) are read into a
 * separate buffer, continuation blocks synchronously.
 *
 * Records are read in place for their normalized keys (record.c); an
 * input's current tuple is rebuilt into one of its two tuple buffers only
 * when needed: to break a tie, for the caller of SrmMergeNext, or at once
 * when the sort has no normalized keys.  The final merge hands every tuple
 * out, so it rebuilds the common record (short, no NULLs, its key derived
 * from a column) at once and reads the key from the rebuilt tuple: one
 * pass over the record instead of two.  SrmMergeToRun copies the records
 * themselves, as they are, into an intermediate merge's output run.
 *
 * A leading block is released (its disk slot freed for reuse by later
 * writes) as soon as it is in memory for good; its buffer is recycled only
 * at the next call, because the record returned last may lie in it.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/merge/merge.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "merge/merge.h"
#include "merge/mergeplan.h"
#include "merge/srmread.h"

/* ---------- reading records of a leading block ---------- */

/*
 * read_big
 *		Assemble the BIG record that begins in input's leading block: copy
 *		its first part and read its continuation blocks synchronously.
 */
static void
read_big(SrmMerge *m, SrmInput *in)
{
	SrmBlockHeader *hdr = (SrmBlockHeader *) in->block;

	in->big = SrmTapeReadBig(m->ts, in->run, in->block, &m->scratch,
							 m->cxt, true);
	m->counters->blocks_consumed += hdr->ncont;
	in->rec = in->big;
}

/*
 * set_leading
 *		Make data, holding block blockno once io is done, the leading block
 *		of input r.
 */
static void
set_leading(SrmMerge *m, int r, int64 blockno, char *data, SrmIo *io)
{
	SrmInput   *in = &m->inputs[r];
	SrmBlockHeader *hdr;

	SrmIoWait(m->ts->io, io);
	SrmTapeCheckBlock(m->ts, in->run, blockno, data);
	/* in memory for good: the slot can take later writes */
	SrmTapeReleaseBlock(m->ts, in->run, blockno);
	m->counters->blocks_consumed++;

	hdr = (SrmBlockHeader *) data;
	in->blockno = blockno;
	in->block = data;
	in->recs_left = hdr->nrecords;
	in->rec = data + SRM_BLOCK_HDRSZ;
	if (hdr->flags & SRM_BLOCK_BIG)
		read_big(m, in);
}

/*
 * next_head_of
 *		The block index that follows input's leading block, or -1.
 */
static int64
next_head_of(SrmMerge *m, SrmInput *in)
{
	SrmBlockHeader *hdr = (SrmBlockHeader *) in->block;
	int64		next = in->blockno + 1 + ((hdr->flags & SRM_BLOCK_BIG) ? hdr->ncont : 0);

	return next < in->run->nblocks ? next : -1;
}

/*
 * next_block
 *		Input r's leading block is depleted: make its next block the leading
 *		one, choosing the buffer the SRM way or the DSM way.  Returns false
 *		if the run is exhausted.
 */
static bool
next_block(SrmMerge *m, int r)
{
	SrmInput   *in = &m->inputs[r];
	int64		want = next_head_of(m, in);
	char	   *data;
	SrmIo	   *io;

	/*
	 * Interrupts are checked once a block rather than once a record:
	 * between two blocks a merge only moves records in memory.
	 */
	CHECK_FOR_INTERRUPTS();

	/* the tuple returned last may point into the buffer: free it next call */
	if (in->leading != NULL)
	{
		m->release_buf = in->leading;
		m->attention = true;
	}
	in->leading = NULL;
	in->block = NULL;
	if (want < 0)
	{
		in->blockno = -1;
		return false;
	}
	if (m->dsm)
		data = SrmDsmBlock(m->dsm, r, want, &io);
	else
	{
		in->leading = SrmReadBlock(m, r, want);
		data = in->leading->data;
		io = &in->leading->io;
	}
	set_leading(m, r, want, data, io);
	return true;
}

/* ---------- the main merge: a loser tree ---------- */

/*
 * rebuild
 *		Rebuild input r's current record into the tuple buffer not holding
 *		the tuple before it, which the caller may still use.  A buffer grown
 *		for a BIG record shrinks again.  Inline: the final merge rebuilds
 *		every tuple it hands out.
 */
static pg_attribute_always_inline void *
rebuild(SrmMerge *m, SrmInput *in)
{
	int			f = in->tnext;

	in->tnext = f ^ 1;
	return SrmRecMaterializeInline(m->ts->fmt, in->cur_rec, &in->tbuf[f],
								   m->ts->block_size, m->cxt);
}

/*
 * materialize
 *		Input r's current tuple, rebuilt if not done yet (to break a tie).
 */
static void *
materialize(SrmMerge *m, int r)
{
	if (m->cur[r].tuple == NULL)
		m->cur[r].tuple = rebuild(m, &m->inputs[r]);
	return m->cur[r].tuple;
}

/*
 * The main merge is a tournament ("loser") tree over the R inputs: leaf r
 * holds input r's current tuple; every inner node keeps the loser of the
 * match played there and tree[0] the overall winner.  Replacing the winner
 * by its input's next tuple replays only the matches on its path: log2(R)
 * comparisons, against log2(R) to 2 log2(R) for a binary heap.
 *
 * Each node holds its loser's order key next to the input number, so that
 * a match compares two registers and never touches a tuple: the order key
 * is the normalized key of a non-NULL value, 0 for a NULL that sorts
 * first, all ones for a NULL that sorts last or a finished input, and 0
 * for every tuple of a sort without normalized keys.  It never decreases
 * along the exact order (NULL rank, normalized key), so unequal order keys
 * decide a match, and only equal ones need the exact comparison
 * (loser_beats): equal keys, NULLs, the ends of inputs, and every match of
 * a sort without normalized keys.
 */
#define SRM_RANK_DONE	3

/* A tuple's order key (see above). */
static pg_attribute_always_inline uint64
order_key(bool normalized, uint64 key, uint8 nrank)
{
	if (!normalized)
		return 0;
	if (likely(nrank == SRM_NRANK_VALUE))
		return key;
	return nrank < SRM_NRANK_VALUE ? 0 : PG_UINT64_MAX;
}

/*
 * loser_beats
 *		The exact match between inputs a and b, whose order keys are equal:
 *		NULL rank (a finished input last), normalized key, the full
 *		comparison where the keys say a tie needs it, then the input number.
 */
static pg_noinline bool
loser_beats(SrmMerge *m, int a, int b)
{
	uint32		ra = m->done[a] ? SRM_RANK_DONE : (m->normalized ? m->cur[a].nrank : 0);
	uint32		rb = m->done[b] ? SRM_RANK_DONE : (m->normalized ? m->cur[b].nrank : 0);
	uint64		ka = m->normalized ? (uint64) m->cur[a].datum1 : 0;
	uint64		kb = m->normalized ? (uint64) m->cur[b].datum1 : 0;

	if (ra != rb)
		return ra < rb;
	if (ka != kb)
		return ka < kb;
	if (ra != SRM_RANK_DONE && m->ties && SrmKeysTieAt(m->keys, ka))
	{
		int			cmp;

		if (m->normalized)
		{
			materialize(m, a);
			materialize(m, b);
			cmp = SrmCompareTiebreak(&m->cur[a], &m->cur[b], m->keys);
		}
		else
			cmp = SrmCompareFull(&m->cur[a], &m->cur[b], m->keys);
		if (cmp != 0)
			return cmp < 0;
	}
	return a < b;
}

/*
 * loser_init
 *		Play every match of the tree once.
 */
static void
loser_init(SrmMerge *m)
{
	int			K = m->nruns;
	SrmLoser   *winner = palloc(2 * K * sizeof(SrmLoser));
	int			i;

	for (i = 0; i < K; i++)
	{
		winner[K + i].key = m->done[i] ? PG_UINT64_MAX :
			order_key(m->normalized, (uint64) m->cur[i].datum1, m->cur[i].nrank);
		winner[K + i].idx = i;
	}
	for (i = K - 1; i >= 1; i--)
	{
		SrmLoser   *l = &winner[2 * i],
				   *r = &winner[2 * i + 1];
		bool		lwins;

		if (l->key != r->key)
			lwins = l->key < r->key;
		else
			lwins = loser_beats(m, (int) l->idx, (int) r->idx);
		winner[i] = lwins ? *l : *r;
		m->tree[i] = lwins ? *r : *l;
	}
	m->tree[0] = K > 1 ? winner[1] : winner[K];
	pfree(winner);
}

/*
 * loser_match
 *		The match at node n, whose loser has order key nk and input ni,
 *		against the winner so far (*wkey, *widx), whose key differs: the
 *		node keeps the greater, the winner goes on with the smaller.
 *		The outcome on random keys is a coin toss, so a branch on it would
 *		mispredict half the time.  On x86-64 four conditional moves after
 *		one comparison do it (compilers turn conditional moves written in
 *		C back into branches here); elsewhere the pairs swap by masks.
 */
static pg_attribute_always_inline void
loser_match(SrmLoser *n, uint64 nk, uint64 ni, uint64 *wkey, uint64 *widx)
{
#if defined(__x86_64__) && defined(__GNUC__)
	uint64		tk,
				ti;

	__asm__("cmpq %[wk], %[nk]\n\t"
			"movq %[nk], %[tk]\n\t"
			"movq %[ni], %[ti]\n\t"
			"cmovbq %[wk], %[tk]\n\t"
			"cmovbq %[wi], %[ti]\n\t"
			"cmovbq %[nk], %[wk]\n\t"
			"cmovbq %[ni], %[wi]"
:			[tk] "=&r"(tk), [ti] "=&r"(ti), [wk] "+r"(*wkey), [wi] "+r"(*widx)
:			[nk] "r"(nk), [ni] "r"(ni)
:			"cc");
	n->key = tk;
	n->idx = ti;
#else
	uint64		mask = -(uint64) (nk < *wkey);
	uint64		dk = (nk ^ *wkey) & mask;
	uint64		di = (ni ^ *widx) & mask;

	n->key = nk ^ dk;
	n->idx = ni ^ di;
	*wkey ^= dk;
	*widx ^= di;
#endif
}

/*
 * loser_replay
 *		Input r has a new current tuple of order key key (or is done):
 *		replay its path.  The node's byte offset, not its number, walks
 *		up the tree: the parent's is half of it rounded down to a node,
 *		and the loads and stores index the tree with it directly.
 */
static pg_attribute_always_inline void
loser_replay(SrmMerge *m, int r, uint64 key)
{
	char	   *tree = (char *) m->tree;
	uint64		wkey = key;
	uint64		widx = (uint64) r;
	uint64		off = (((uint64) r + (uint64) m->nruns) >> 1) * sizeof(SrmLoser);

	StaticAssertStmt(sizeof(SrmLoser) == 16, "loser tree nodes are 16 bytes");
	while (off != 0)
	{
		SrmLoser   *n = (SrmLoser *) (tree + off);
		uint64		nkey = n->key;
		uint64		nidx = n->idx;

		if (likely(nkey != wkey))
			loser_match(n, nkey, nidx, &wkey, &widx);
		else if (loser_beats(m, (int) nidx, (int) widx))
		{
			/* equal order keys: the exact comparison decides */
			n->idx = widx;
			widx = nidx;
		}
		off = (off >> 1) & ~(uint64) (sizeof(SrmLoser) - 1);
	}
	/* through the local: the stores above may alias m (no strict aliasing) */
	((SrmLoser *) tree)->key = wkey;
	((SrmLoser *) tree)->idx = widx;
}

/*
 * read_key
 *		Input in's current record's key into t when SrmRecFastKey cannot
 *		read it; returns its order key.  Out of line, so that no local of
 *		the merge's every step has its address taken.
 */
static pg_noinline uint64
read_key(SrmMerge *m, SrmInput *in, SrmTuple *t)
{
	uint64		key;
	uint8		nrank;

	in->cur_reclen = SrmRecKey(m->ts->fmt, in->cur_rec, &key, &nrank);
	t->datum1 = (Datum) key;
	t->nrank = nrank;
	t->isnull1 = (nrank != SRM_NRANK_VALUE);
	return order_key(true, key, nrank);
}

/* t holds a value (not NULL) of normalized key key, its order key too. */
static pg_attribute_always_inline void
set_value_key(SrmTuple *t, uint64 key, uint64 *okey)
{
	t->datum1 = (Datum) key;
	t->nrank = SRM_NRANK_VALUE;
	t->isnull1 = false;
	*okey = key;
}

/*
 * take_plain
 *		The final merge's common record: its tuple rebuilt at once, with
 *		its key read from it, into the tuple buffer not holding the tuple
 *		before it (see rebuild); returns the record's size, 0 for any
 *		other record.
 */
static pg_attribute_always_inline Size
take_plain(SrmMerge *m, SrmInput *in, SrmTuple *t, uint64 *okey)
{
	uint64		key;
	/* read before the tuple's stores, which might alias it */
	Size		reclen = SrmRecSize(in->cur_rec);
	void	   *tuple;

	/* the common int8 key without the format's tests on every record */
	if (m->plain_int8)
		tuple = SrmRecTakePlainInt8(m->ts->fmt, in->cur_rec,
									&in->tbuf[in->tnext], m->ts->block_size,
									m->int8_xor, &key);
	else
		tuple = SrmRecTakePlain(m->ts->fmt, in->cur_rec,
								&in->tbuf[in->tnext], m->ts->block_size,
								&key);
	if (tuple == NULL)
		return 0;
	in->tnext ^= 1;
	in->cur_reclen = reclen;
	t->tuple = tuple;
	set_value_key(t, key, okey);
	return reclen;
}

/*
 * head_key
 *		The key of input r's (in's) current record into *t, and its order
 *		key into *okey: read from the record in place, or, without
 *		normalized keys, from the tuple rebuilt at once.
 */
static pg_attribute_always_inline void
head_key(SrmMerge *m, SrmInput *in, int r, SrmTuple *t, uint64 *okey)
{
	t->tuple = NULL;
	if (m->normalized)
	{
		/* the record gives the normalized key: no tuple, no deforming */
		uint64		key;

		in->cur_reclen = SrmRecFastKey(m->ts->fmt, in->cur_rec, &key);
		if (likely(in->cur_reclen != 0))
			set_value_key(t, key, okey);
		else
			*okey = read_key(m, in, t);
	}
	else
	{
		Assert(t == &m->cur[r]);
		in->cur_reclen = SrmRecSize(in->cur_rec);
		materialize(m, r);
		SrmKeysSetDatum1(m->keys, t, false);
		*okey = 0;
	}
}

/*
 * next_record
 *		Input in's next record is at rec (in its leading block).
 */
static pg_attribute_always_inline void
next_record(SrmInput *in, char *rec)
{
	in->rec = rec;

	/*
	 * It is needed when the current one has been output, on average R
	 * outputs later for R inputs: fetch its lines now.  With tens of
	 * inputs the hardware's stream prefetcher loses track and the first
	 * touch of every record missed the caches.
	 */
#ifdef __GNUC__
	__builtin_prefetch(rec + 64);
	__builtin_prefetch(rec + 128);
#endif
}

/*
 * input_head
 *		Take the next record of input r into *t, and its order key into
 *		*okey; false if it has none left.  eager: the caller hands every
 *		tuple out (the final merge), so the common record's tuple is
 *		rebuilt at once (take_plain) rather than when it wins.  fresh: the
 *		input's leading block was just set (SrmMergeBegin).
 *
 *		A BIG record is alone in its block, so it can only come first after
 *		a new leading block; an exhausted input has no records left either.
 *		Both are tested only when the block's records run out or it is
 *		fresh, not for every record.
 */
static pg_attribute_always_inline bool
input_head(SrmMerge *m, int r, SrmTuple *t, uint64 *okey, bool eager,
		   bool fresh)
{
	SrmInput   *in = &m->inputs[r];
	char	   *rec;
	Size		reclen;

	if (fresh || unlikely(in->recs_left == 0))
	{
		if (in->blockno < 0)
			return false;
		if (in->recs_left == 0 && !next_block(m, r))
			return false;
		if (in->big != NULL && in->rec == in->big)
		{
			in->cur_rec = in->big;
			in->big_in_heap = in->big;
			m->nbig++;
			m->attention = true;
			in->big = NULL;
			in->rec = NULL;
			goto keyed;
		}
	}
	rec = in->rec;
	in->cur_rec = rec;
	/* a record taken is in the block: its size in a register, no test */
	if (eager && m->plain && (reclen = take_plain(m, in, t, okey)) != 0)
	{
		in->recs_left--;
		next_record(in, rec + reclen);
		return true;
	}
keyed:
	head_key(m, in, r, t, okey);
	in->recs_left--;
	if (in->rec != NULL)
		next_record(in, in->rec + in->cur_reclen);
	return true;
}

/* ---------- begin / next / end ---------- */

/*
 * SrmMergeBegin
 *		Steps 1-9 of the paper (SRM), or the first two superblocks of every
 *		run (DSM, whose reader has its own buffers: nbufs is ignored).
 */
SrmMerge *
SrmMergeBegin(SrmTapeSet *ts, SrmKeys *keys, SrmRun **runs, int nruns,
			  int nbufs, bool dsm, SrmMergeCounters *counters)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "srmsort merge",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SrmMerge   *m = palloc0(sizeof(SrmMerge));
	int			D = ts->ndisks;
	int			r,
				i;
	char	   *bufmem;

	m->cxt = cxt;
	m->ts = ts;
	m->keys = keys;
	m->nruns = nruns;
	m->ndisks = D;
	m->width = SrmTapeWidth(ts);
	m->counters = counters;
	m->inputs = palloc0(nruns * sizeof(SrmInput));
	m->cur = palloc0(nruns * sizeof(SrmTuple));
	m->done = palloc0(nruns * sizeof(bool));
	m->normalized = (keys->norm != SRM_NORM_NONE);
	m->attention = dsm;
	m->ties = !m->normalized || SrmKeysNeedTies(keys);
	m->plain = m->normalized && ts->fmt->heap && SrmRecFast(ts->fmt);
	m->plain_int8 = m->plain && SrmRecInt8Key(ts->fmt, &m->int8_xor);
	m->tree = palloc0(Max(nruns, 1) * sizeof(SrmLoser));
	if (!dsm)
	{
		m->nbufs = nbufs;
		m->bufs = palloc0(nbufs * sizeof(SrmBuf));
		bufmem = SrmTapeAllocBuffers(ts, cxt, nbufs, NULL);
		for (i = 0; i < nbufs; i++)
		{
			m->bufs[i].data = bufmem + (Size) i * ts->block_size;
			put_buf(m, &m->bufs[i]);
		}
	}
	dlist_init(&m->lq);
	m->oq = palloc(D * sizeof(dlist_head));
	m->oq_len = palloc0(D * sizeof(int));
	for (i = 0; i < D; i++)
		dlist_init(&m->oq[i]);
	m->oq_short = D;

	for (r = 0; r < nruns; r++)
	{
		m->inputs[r].run = runs[r];
		m->inputs[r].blockno = runs[r]->nblocks > 0 ? 0 : -1;
		dlist_init(&m->inputs[r].placeholders);
	}

	if (dsm)
	{
		m->dsm = SrmDsmBegin(ts, runs, nruns, counters);
		for (r = 0; r < nruns; r++)
		{
			char	   *data;
			SrmIo	   *io;

			if (m->inputs[r].blockno < 0)
				continue;
			data = SrmDsmBlock(m->dsm, r, 0, &io);
			set_leading(m, r, 0, data, io);
		}
	}
	else
	{
		int		   *per_disk = palloc0(D * sizeof(int));
		int			maxper = 0;

		/* step 1: the first block of every run, all reads in one batch */
		for (r = 0; r < nruns; r++)
		{
			SrmInput   *in = &m->inputs[r];
			int			d;

			if (in->blockno < 0)
				continue;
			d = SrmRunBlockDisk(ts, in->run, 0);
			in->leading = get_buf(m);
			SrmTapePrepRead(ts, in->run, 0, in->leading->data, &in->leading->io);
			per_disk[d]++;
			/* the disk's share of blocks per Parallel_Read */
			maxper = Max(maxper, (per_disk[d] + SrmTapeShare(ts, d) - 1) /
						 SrmTapeShare(ts, d));
		}
		SrmIoSubmit(ts->io);
		counters->parallel_reads += maxper;
		for (r = 0; r < nruns; r++)
			if (m->inputs[r].blockno >= 0)
				set_leading(m, r, 0, m->inputs[r].leading->data,
							&m->inputs[r].leading->io);
		pfree(per_disk);

		/* steps 2-5 */
		m->fh = SrmForecastBegin(ts, keys, runs, nruns);
		SrmReadFillOqs(m);
		m->marked = dlist_is_empty(&m->lq) ? NULL :
			dlist_container(SrmPlaceholder, lq_node, dlist_head_node(&m->lq));
		/* steps 6-9 */
		SrmReadPrepare(m);
	}

	/* step 2: the first item of every run into the main merge */
	for (r = 0; r < nruns; r++)
	{
		uint64		okey;

		m->done[r] = !input_head(m, r, &m->cur[r], &okey, false, true);
		if (!m->done[r])
			m->nlive++;
	}
	if (m->nlive == 0)
		m->attention = true;
	loser_init(m);

	MemoryContextSwitchTo(old);
	return m;
}

/*
 * attend
 *		The rare work of a step, behind one flag (attention) that every
 *		step tests: the Parallel_Read the previous step's marked block
 *		asked for (steps 12, 6-9), recycling what the previous step handed
 *		out, DSM's refills, a BIG record handed out now, and the end.
 *		Returns false at the end.
 */
static pg_noinline bool
attend(SrmMerge *m)
{
	SrmInput   *in;

	if (m->pause)
	{
		m->pause = false;
		m->marked = m->next_marked;
		SrmReadPrepare(m);
	}
	if (m->release_buf != NULL)
	{
		put_buf(m, m->release_buf);
		m->release_buf = NULL;
	}
	if (m->release_big != NULL)
	{
		pfree(m->release_big);
		m->release_big = NULL;
	}
	if (m->dsm)
		SrmDsmRefill(m->dsm);
	m->attention = (m->dsm != NULL || m->nbig > 0 || m->nlive == 0);
	if (m->nlive == 0)
		return false;

	in = &m->inputs[m->tree[0].idx];
	if (m->nbig > 0 &&
		in->big_in_heap != NULL && in->big_in_heap == in->cur_rec)
	{
		/* a BIG record handed out: freed at the next step */
		m->release_big = in->big_in_heap;
		in->big_in_heap = NULL;
		m->nbig--;
		m->attention = true;
	}
	return true;
}

/*
 * merge_winner
 *		Start a step of the merge: the input whose tuple is next, after
 *		the rare work if any (attend); false at the end.  Every row passes
 *		here.
 */
static pg_attribute_always_inline bool
merge_winner(SrmMerge *m, int *winner)
{
	if (unlikely(m->attention) && !attend(m))
		return false;
	*winner = (int) m->tree[0].idx;
	return true;
}

/*
 * merge_advance
 *		Finish a step: the winner r's next tuple replaces the one handed
 *		out.  When the marked block begins to participate, the next step
 *		issues the next Parallel_Read first (attend).
 */
static pg_attribute_always_inline void
merge_advance(SrmMerge *m, int r, bool eager)
{
	uint64		okey;

	if (unlikely(!input_head(m, r, &m->cur[r], &okey, eager, false)))
	{
		m->done[r] = true;
		if (--m->nlive == 0)
			m->attention = true;
		okey = PG_UINT64_MAX;
	}
	loser_replay(m, r, okey);
}

/*
 * SrmMergeNext
 *		Step 11: the next tuple of the merge, valid until the next call;
 *		NULL at the end.
 */
void *
SrmMergeNext(SrmMerge *m)
{
	int			r;
	void	   *tuple;

	if (!merge_winner(m, &r))
		return NULL;
	/* rebuilt already (take_plain, or to break a tie), else now */
	tuple = m->cur[r].tuple;
	if (tuple == NULL)
		tuple = rebuild(m, &m->inputs[r]);
	merge_advance(m, r, true);
	return tuple;
}

/*
 * SrmMergeToRun
 *		Write every item of the merge, its record as it is, to the run w
 *		(an intermediate merge): one loop, with the merge's steps and the
 *		writer's common case inline.
 */
void
SrmMergeToRun(SrmMerge *m, SrmRunWriter *w)
{
	int			r;

	while (merge_winner(m, &r))
	{
		SrmInput   *in = &m->inputs[r];

		SrmRunWriterAppend(w, in->cur_rec, in->cur_reclen,
						   (uint64) m->cur[r].datum1, m->cur[r].nrank);
		merge_advance(m, r, false);
	}
}

/*
 * SrmMergeMemory
 *		See merge.h.
 */
Size
SrmMergeMemory(SrmTapeSet *ts, int nruns, int nbufs)
{
	return SrmRunOpenBytes(ts) * (Size) nruns +
		(Size) nbufs * (ts->block_size + SRM_BUF_SLACK);
}

/*
 * SrmMergeEnd
 *		Wait for reads still in flight (their buffers are about to be
 *		freed) and release the merge's memory.
 */
void
SrmMergeEnd(SrmMerge *m)
{
	int			i;

	for (i = 0; i < m->nbufs; i++)
		wait_buf(m, &m->bufs[i]);
	if (m->dsm)
		SrmDsmEnd(m->dsm);
	MemoryContextDelete(m->cxt);
}
