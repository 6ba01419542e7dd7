/*-------------------------------------------------------------------------
 *
 * writering.c
 *	  The block buffers runs are written through, and write-behind.
 *
 * A sort writes its runs -- initial runs, intermediate merges' outputs --
 * through one ring of block buffers, each with its I/O request, used in
 * turn: a buffer is refilled once its write is done.  Two periods of the
 * stripe (2D buffers on D equal disks) keep every disk writing while the
 * next blocks fill (tape.c).
 *
 * That is enough while the writes go to the page cache: the kernel takes a
 * run's blocks at memory speed and writes them back while the sort reads
 * and sorts its next memory load.  With direct I/O every block waits for
 * its disk, so a run's end would wait for the whole run to reach the disks,
 * and the next load's scan and sort would leave them idle: the CPU's time
 * and the disks' time would add up instead of overlapping (50M rows on one
 * disk: 89.8 s against 72.0 s buffered, the disk busy 82% of the time).
 * Write-behind gives the ring a share of the budget (1/
 * SRM_WRITE_BEHIND_SHARE) from the second run on, lets a run end with its
 * last blocks still in flight, and starts the next run's writes at the
 * oldest buffer, so that the disks write one run while the next load fills
 * -- NOW-Sort's pipelining of reading, sorting and writing.  The loads are
 * smaller by that share (more runs, which a merge of a few hundred takes
 * in one pass), and everything that reads runs or frees the ring first
 * waits for the writes (SrmWriteRingWait).  On error, the tape set's I/O
 * is drained before the memory goes (the sorter's reset callback).
 *
 * IDENTIFICATION
 *	  src/runs/writering.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "runs/writering.h"

/*
 * SrmWriteRingAlloc
 *		See writering.h.
 */
void
SrmWriteRingAlloc(SrmWriteRing *r, SrmTapeSet *ts, int nbufs, bool behind,
				  MemoryContext cxt)
{
	int			i;

	Assert(r->nbufs == 0 && nbufs > 0);
	r->nbufs = nbufs;
	r->bufs = MemoryContextAlloc(cxt, nbufs * sizeof(char *));
	r->ios = MemoryContextAllocZero(cxt, nbufs * sizeof(SrmIo));
	r->bufs[0] = SrmTapeAllocBuffers(ts, cxt, nbufs, &r->raw);
	for (i = 1; i < nbufs; i++)
		r->bufs[i] = r->bufs[0] + (Size) i * ts->block_size;
	r->next = 0;
	r->behind = behind;
}

/*
 * SrmWriteBehindBuffers
 *		See writering.h: its share of the budget, when that is more than
 *		the nbufs_min buffers the sort writes through anyway.
 */
int
SrmWriteBehindBuffers(Size budget, int block_size, int nbufs_min)
{
	Size		n = budget / SRM_WRITE_BEHIND_SHARE / (block_size + SRM_BUF_SLACK);

	return n > (Size) nbufs_min ? (int) Min(n, (Size) PG_INT32_MAX / 2) : 0;
}

/*
 * SrmWriteRingWait
 *		See writering.h.
 */
void
SrmWriteRingWait(SrmWriteRing *r, SrmTapeSet *ts)
{
	int			i;

	for (i = 0; i < r->nbufs; i++)
		SrmIoWait(ts->io, &r->ios[i]);
}

/*
 * SrmWriteRingFree
 *		See writering.h.
 */
void
SrmWriteRingFree(SrmWriteRing *r, SrmTapeSet *ts)
{
	if (r->nbufs == 0)
		return;
	SrmWriteRingWait(r, ts);
	pfree(r->raw);
	pfree(r->bufs);
	pfree(r->ios);
	r->nbufs = 0;
	r->bufs = NULL;
	r->ios = NULL;
}

/*
 * SrmWriteRingBegin
 *		See writering.h.
 */
SrmRunWriter *
SrmWriteRingBegin(SrmWriteRing *r, SrmTapeSet *ts, SrmRun *run)
{
	return SrmRunWriterBegin(ts, run, r->nbufs, r->bufs, r->ios, r->next);
}

/*
 * SrmWriteRingEnd
 *		See writering.h.
 */
void
SrmWriteRingEnd(SrmWriteRing *r, SrmRunWriter *w)
{
	r->next = SrmRunWriterEnd(w, !r->behind);
}
