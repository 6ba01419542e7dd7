/*-------------------------------------------------------------------------
 *
 * srmread.c
 *	  SRM's block choice (Barve & Vitter, §4.4): the placeholders of the
 *	  blocks still to be read, the lookahead queue LQ and the per-disk
 *	  occupancy queues OQ_d, Parallel_Read, lazy flushing, and the buffer
 *	  of a run's next leading block.  merge.c's header comment and
 *	  docs/design.md §5 describe the algorithm; DSM's counterpart is
 *	  dsmread.c.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/merge/srmread.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "merge/srmread.h"

/* ---------- placeholders, LQ and OQ ---------- */

static SrmPlaceholder *
new_placeholder(struct SrmMerge *m)
{
	SrmPlaceholder *p = m->free_ph;

	if (p != NULL)
		m->free_ph = p->next_free;
	else
		p = MemoryContextAlloc(m->cxt, sizeof(SrmPlaceholder));
	memset(p, 0, sizeof(SrmPlaceholder));
	return p;
}

static void
free_placeholder(struct SrmMerge *m, SrmPlaceholder *p)
{
	p->next_free = m->free_ph;
	m->free_ph = p;
}

static void
oq_remove(struct SrmMerge *m, SrmPlaceholder *p)
{
	Assert(p->in_oq);
	dlist_delete(&p->oq_node);
	p->in_oq = false;
	if (m->oq_len[p->disk]-- == SrmTapeShare(m->ts, p->disk))
		m->oq_short++;
}

static void
oq_add(struct SrmMerge *m, SrmPlaceholder *p, bool at_head)
{
	Assert(!p->in_oq);
	if (++m->oq_len[p->disk] == SrmTapeShare(m->ts, p->disk))
		m->oq_short--;
	if (at_head)
		dlist_push_head(&m->oq[p->disk], &p->oq_node);
	else
		dlist_push_tail(&m->oq[p->disk], &p->oq_node);
	p->in_oq = true;
}

/*
 * lookahead
 *		Lookahead(): append the next block in participation order to LQ and
 *		to the OQ of its disk.  Returns false when all blocks are forecast.
 */
static bool
lookahead(struct SrmMerge *m)
{
	int			r;
	int64		blockno;
	SrmPlaceholder *p;

	if (!SrmForecastNext(m->fh, &r, &blockno))
		return false;
	if (blockno < 0 || blockno >= m->inputs[r].run->nblocks)
		elog(ERROR, "srmsort: forecast names block %lld of a run of %lld blocks",
			 (long long) blockno, (long long) m->inputs[r].run->nblocks);
	p = new_placeholder(m);
	p->run = r;
	p->blockno = blockno;
	p->disk = SrmRunBlockDisk(m->ts, m->inputs[r].run, blockno);
	p->seq = m->next_seq++;
	dlist_push_tail(&m->lq, &p->lq_node);
	dlist_push_tail(&m->inputs[r].placeholders, &p->run_node);
	oq_add(m, p, false);
	return true;
}

/*
 * Lookahead()s until every OQ has as many entries as its disk's share of a
 * Parallel_Read (one, with equal weights: until no OQ is empty) or nothing
 * is left to forecast.
 */
void
SrmReadFillOqs(struct SrmMerge *m)
{
	while (m->oq_short > 0 && lookahead(m))
		;
}

/*
 * flush_one
 *		Drop prefetched block p and put its placeholder back at the head of
 *		its OQ.
 */
static void
flush_one(struct SrmMerge *m, SrmPlaceholder *p)
{
	/* a read in flight must land before its buffer can be reused */
	wait_buf(m, p->buf);
	put_buf(m, p->buf);
	p->buf = NULL;
	oq_add(m, p, true);
	if (m->marked != NULL && p->seq < m->marked->seq)
		m->marked = p;
	m->counters->flushes++;
}

/*
 * farthest_prefetched
 *		The prefetched block nearest the tail of LQ, or NULL.
 */
static SrmPlaceholder *
farthest_prefetched(struct SrmMerge *m)
{
	dlist_iter	it;

	dlist_reverse_foreach(it, &m->lq)
	{
		SrmPlaceholder *p = dlist_container(SrmPlaceholder, lq_node, it.cur);

		if (p->buf != NULL)
			return p;
	}
	return NULL;
}

/*
 * parallel_read
 *		Parallel_Read: issue, in one batch and without waiting, the read of
 *		the block at the head of every non-empty OQ, nearest first (up to
 *		its disk's share of a period, each time the OQ's new head) -- but
 *		only of blocks memory can hold until they are used.
 *
 * The paper frees D buffers first by flushing the blocks nearest the tail
 * of LQ.  When the runs are spread unevenly over the disks (a parallel
 * build's participants write to disjoint disks; the last run is short), a
 * disk that holds little of what is needed next still gets a read every
 * time, its blocks pile up far ahead, and flushing them then costs a second
 * read of each (the trace's nu).  So a block is read only when it lies
 * within the horizon of what the buffers not pinned as leading blocks can
 * hold (its distance from LQ's head), and a buffer is taken from a
 * prefetched block only when that block is needed later than the one read.
 */
static void
parallel_read(struct SrmMerge *m)
{
	int			reads_left[SRM_MAX_DISKS];
	int64		horizon;
	int			issued = 0;
	int			d;

	if (dlist_is_empty(&m->lq))
		return;
	horizon = dlist_container(SrmPlaceholder, lq_node,
							  dlist_head_node(&m->lq))->seq +
		Max(m->nbufs - m->nruns - 1, m->width);
	for (d = 0; d < m->ndisks; d++)
		reads_left[d] = SrmTapeShare(m->ts, d);
	for (;;)
	{
		SrmPlaceholder *p = NULL;
		SrmBuf	   *b;

		/* the nearest OQ head of a disk with reads left in this batch */
		for (d = 0; d < m->ndisks; d++)
		{
			SrmPlaceholder *h;

			if (reads_left[d] == 0 || dlist_is_empty(&m->oq[d]))
				continue;
			h = dlist_container(SrmPlaceholder, oq_node,
								dlist_head_node(&m->oq[d]));
			if (p == NULL || h->seq < p->seq)
				p = h;
		}
		if (p == NULL || p->seq >= horizon)
			break;
		b = get_buf(m);
		if (b == NULL)
		{
			SrmPlaceholder *v = farthest_prefetched(m);

			if (v == NULL || v->seq < p->seq)
				break;
			flush_one(m, v);
			b = get_buf(m);
		}
		reads_left[p->disk]--;
		oq_remove(m, p);
		p->buf = b;
		SrmTapePrepRead(m->ts, m->inputs[p->run].run, p->blockno, b->data, &b->io);
		issued++;
	}
	if (issued > 0)
	{
		SrmIoSubmit(m->ts->io);
		m->counters->parallel_reads++;
	}
}

/*
 * smallest_oq_head
 *		The placeholder closest to LQ's head among the OQ heads.
 */
static SrmPlaceholder *
smallest_oq_head(struct SrmMerge *m)
{
	SrmPlaceholder *best = NULL;
	int			d;

	for (d = 0; d < m->ndisks; d++)
	{
		SrmPlaceholder *p;

		if (dlist_is_empty(&m->oq[d]))
			continue;
		p = dlist_container(SrmPlaceholder, oq_node, dlist_head_node(&m->oq[d]));
		if (best == NULL || p->seq < best->seq)
			best = p;
	}
	return best;
}

/*
 * SrmReadPrepare
 *		Steps 6-9: Parallel_Read (flushing a block only when a read finds
 *		no free buffer), Lookahead()s to refill the OQs, and find
 *		next_marked.
 */
void
SrmReadPrepare(struct SrmMerge *m)
{
	parallel_read(m);
	SrmReadFillOqs(m);
	m->next_marked = smallest_oq_head(m);
}

/*
 * SrmReadBlock
 *		Step 11(b): the buffer for block want of input r, its next leading
 *		block: prefetched, in flight, or read now (a stall).
 */
SrmBuf *
SrmReadBlock(struct SrmMerge *m, int r, int64 want)
{
	SrmInput   *in = &m->inputs[r];
	SrmPlaceholder *p = NULL;
	SrmBuf	   *b;

	/* find the block's placeholder, looking further ahead if need be */
	for (;;)
	{
		if (!dlist_is_empty(&in->placeholders))
		{
			p = dlist_container(SrmPlaceholder, run_node,
								dlist_head_node(&in->placeholders));
			Assert(p->blockno == want);
			break;
		}
		if (!lookahead(m))
			elog(ERROR, "srmsort: block %lld of a run was never forecast",
				 (long long) want);
	}

	dlist_delete(&p->lq_node);
	dlist_delete(&p->run_node);
	if (p == m->marked)
	{
		m->pause = true;
		m->attention = true;
	}

	b = p->buf;
	if (b == NULL)
	{
		/* not prefetched: read it now */
		if (p->in_oq)
			oq_remove(m, p);
		b = get_buf(m);
		if (b == NULL)
		{
			SrmPlaceholder *v = farthest_prefetched(m);

			if (v != NULL)
				flush_one(m, v);
			b = get_buf(m);
		}
		if (b == NULL)
			elog(ERROR, "srmsort: no free block buffer for an on-demand read");
		SrmTapePrepRead(m->ts, in->run, want, b->data, &b->io);
		SrmIoSubmit(m->ts->io);
		m->counters->stalls++;
		m->counters->parallel_reads++;
	}
	if (p == m->marked)
		m->marked = NULL;
	if (p == m->next_marked)
		m->next_marked = smallest_oq_head(m);
	free_placeholder(m, p);
	return b;
}
