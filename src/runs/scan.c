/*-------------------------------------------------------------------------
 *
 * scan.c
 *	  Random access to a materialised run: either direction, any position.
 *
 * When the executor may rewind, scan backward or mark and restore, the
 * sorted result is written once more as a single striped run, and this
 * reader serves it.  A position is a tuple's ordinal (0 .. n-1), as in
 * tuplesort's in-memory case, so mark/restore and rewind are just saved
 * integers.  The writer recorded how many records begin in every block;
 * the reader turns that into the ordinal of the first record of every
 * "head" block (a block that begins records) and finds a tuple by binary
 * search, then by a per-block offset table built when the block is first
 * used.  Only every SRM_SCAN_GROUP-th head is kept in memory (16 bytes per
 * head would take a big run in little memory past its budget); a group's
 * heads are worked out again from the run's block references when needed.
 *
 * A few block buffers form a cache.  Whenever a block is used, the next D
 * head blocks in the direction of the scan -- consecutive blocks, hence on
 * D different disks (a period of the stripe, on disks striped by weight)
 * -- are prefetched in one batch, so a scan in either direction keeps
 * every disk busy.  The tuple returned is rebuilt from its
 * record (record.c) into the scan's tuple buffer, valid until the next
 * call.  Records larger than a block are assembled in their own memory,
 * their continuation blocks read synchronously.
 *
 * IDENTIFICATION
 *	  src/runs/scan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "runs/scan.h"

typedef struct SrmScanBuf
{
	char	   *data;
	SrmIo		io;
	int64		head;			/* index into heads[], -1 if empty */
	bool		indexed;		/* offs[] built */
	uint32	   *offs;			/* record offsets within the block */
	uint32		maxoffs;
	char	   *big;			/* assembled BIG record */
	uint64		used;			/* LRU clock */
} SrmScanBuf;

#define SRM_SCAN_GROUP	32

/* The heads of one group, worked out. */
typedef struct SrmScanGroup
{
	int64		g;				/* group number, -1 if none */
	int			n;				/* heads in the group */
	int64		block[SRM_SCAN_GROUP];	/* block index of each head */
	int64		first[SRM_SCAN_GROUP + 1];	/* ordinal of its first record */
} SrmScanGroup;

struct SrmScan
{
	SrmTapeSet *ts;
	SrmRun	   *run;
	MemoryContext cxt;
	int64		nheads;
	int64		ntuples;
	int64		ngroups;
	int64	   *group_block;	/* block index of head g * SRM_SCAN_GROUP */
	int64	   *group_first;	/* ordinal of its first record; [ngroups] = n */
	SrmScanGroup groups[2];		/* the two groups used last */
	int			group_last;
	int64		cur_head;		/* the head found last, -1 if none ... */
	int64		cur_first;		/* ... and its records' ordinals */
	int64		cur_end;
	int			nbufs;
	SrmScanBuf *bufs;
	uint64		clock;
	int			pinned;			/* buffer of the tuple returned last */
	int			prefetch;		/* head blocks to prefetch (D) */
	char	   *scratch;		/* for continuation blocks */
	SrmTupleBuf tuple;			/* the tuple returned last */
};

/*
 * SrmScanMemory
 *		Bytes a scan of run with nbufs buffers occupies, a paged run's page
 *		caches included.
 */
Size
SrmScanMemory(SrmTapeSet *ts, SrmRun *run, int nbufs)
{
	return SrmRunOpenBytes(ts) +
		(Size) nbufs * (ts->block_size + SRM_BUF_SLACK + sizeof(SrmScanBuf)) +
		(Size) (run->nblocks / SRM_SCAN_GROUP + 2) * 2 * sizeof(int64) +
		sizeof(SrmScan);
}

/*
 * SrmScanBegin
 *		A reader of run with nbufs block buffers (at least D + 2).
 */
SrmScan *
SrmScanBegin(SrmTapeSet *ts, SrmRun *run, int nbufs)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "srmsort scan",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SrmScan    *scan = palloc0(sizeof(SrmScan));
	int64		b;
	int64		ord = 0;
	int			i;
	char	   *bufmem;

	scan->ts = ts;
	scan->run = run;
	scan->cxt = cxt;
	scan->prefetch = SrmTapeWidth(ts);
	scan->nbufs = Max(nbufs, SrmTapeWidth(ts) + 2);
	scan->pinned = -1;
	scan->group_block = palloc((run->nblocks / SRM_SCAN_GROUP + 2) * sizeof(int64));
	scan->group_first = palloc((run->nblocks / SRM_SCAN_GROUP + 2) * sizeof(int64));
	for (b = 0; b < run->nblocks; b++)
	{
		uint32		nrec = SrmRunBlockRef(ts, run, b, false)->nrecords;

		if (nrec == 0)
			continue;			/* continuation block */
		if (scan->nheads % SRM_SCAN_GROUP == 0)
		{
			scan->group_block[scan->ngroups] = b;
			scan->group_first[scan->ngroups] = ord;
			scan->ngroups++;
		}
		scan->nheads++;
		ord += nrec;
	}
	scan->group_first[scan->ngroups] = ord;
	scan->ntuples = ord;
	scan->groups[0].g = scan->groups[1].g = -1;
	scan->cur_head = -1;

	scan->bufs = palloc0(scan->nbufs * sizeof(SrmScanBuf));
	bufmem = SrmTapeAllocBuffers(ts, cxt, scan->nbufs, NULL);
	for (i = 0; i < scan->nbufs; i++)
	{
		scan->bufs[i].data = bufmem + (Size) i * ts->block_size;
		scan->bufs[i].head = -1;
	}
	MemoryContextSwitchTo(old);
	return scan;
}

/*
 * SrmScanCount
 *		Tuples in the run.
 */
int64
SrmScanCount(SrmScan *scan)
{
	return scan->ntuples;
}

/*
 * group_of
 *		The heads of group g, worked out from the run's block references
 *		(kept for the two groups used last: a scan and its prefetch may
 *		straddle two).
 */
static SrmScanGroup *
group_of(SrmScan *scan, int64 g)
{
	SrmScanGroup *grp = &scan->groups[scan->group_last];
	int64		b;
	int64		ord;

	if (grp->g == g)
		return grp;
	scan->group_last ^= 1;
	grp = &scan->groups[scan->group_last];
	if (grp->g == g)
		return grp;

	Assert(g >= 0 && g < scan->ngroups);
	grp->g = g;
	grp->n = 0;
	ord = scan->group_first[g];
	for (b = scan->group_block[g];
		 b < scan->run->nblocks && grp->n < SRM_SCAN_GROUP; b++)
	{
		uint32		nrec = SrmRunBlockRef(scan->ts, scan->run, b, false)->nrecords;

		if (nrec == 0)
			continue;			/* continuation block */
		grp->block[grp->n] = b;
		grp->first[grp->n] = ord;
		grp->n++;
		ord += nrec;
	}
	grp->first[grp->n] = ord;
	return grp;
}

/* Block index of head h. */
static inline int64
head_block(SrmScan *scan, int64 h)
{
	return group_of(scan, h / SRM_SCAN_GROUP)->block[h % SRM_SCAN_GROUP];
}

/*
 * find_buf
 *		The buffer holding (or reading) head h, or -1.
 */
static int
find_buf(SrmScan *scan, int64 h)
{
	int			i;

	for (i = 0; i < scan->nbufs; i++)
		if (scan->bufs[i].head == h)
			return i;
	return -1;
}

/*
 * victim
 *		The least recently used buffer other than the pinned one and keep.
 */
static int
victim(SrmScan *scan, int keep)
{
	int			best = -1;
	int			i;

	for (i = 0; i < scan->nbufs; i++)
	{
		SrmScanBuf *b = &scan->bufs[i];

		if (i == scan->pinned || i == keep)
			continue;
		if (b->head < 0)
			return i;
		if (best < 0 || b->used < scan->bufs[best].used)
			best = i;
	}
	Assert(best >= 0);
	return best;
}

/*
 * start_read
 *		Prepare the read of head h into buffer i (after waiting for whatever
 *		it was doing).
 */
static void
start_read(SrmScan *scan, int i, int64 h)
{
	SrmScanBuf *b = &scan->bufs[i];

	SrmIoWait(scan->ts->io, &b->io);
	if (b->big != NULL)
	{
		pfree(b->big);
		b->big = NULL;
	}
	b->head = h;
	b->indexed = false;
	b->used = ++scan->clock;
	SrmTapePrepRead(scan->ts, scan->run, head_block(scan, h), b->data, &b->io);
}

/*
 * index_block
 *		Build the record offset table of a block that has been read.
 */
static void
index_block(SrmScan *scan, SrmScanBuf *b)
{
	SrmBlockHeader *hdr = (SrmBlockHeader *) b->data;
	uint32		off = SRM_BLOCK_HDRSZ;
	uint32		k;

	SrmTapeCheckBlock(scan->ts, scan->run, head_block(scan, b->head), b->data);
	if (hdr->flags & SRM_BLOCK_BIG)
	{
		b->big = SrmTapeReadBig(scan->ts, scan->run, b->data, &scan->scratch,
								scan->cxt, false);
		b->indexed = true;
		return;
	}
	if (b->maxoffs < hdr->nrecords)
	{
		if (b->offs)
			pfree(b->offs);
		b->offs = MemoryContextAlloc(scan->cxt, hdr->nrecords * sizeof(uint32));
		b->maxoffs = hdr->nrecords;
	}
	for (k = 0; k < hdr->nrecords; k++)
	{
		Size		len = off < hdr->used ? SrmRecSize(b->data + off) : 0;

		if (len == 0 || off + len > hdr->used)
			ereport(ERROR,
					(SrmTapeErrCorrupt(hdr->blockno),
					 errdetail_plural("Record %u of %u at offset %u has length %zu; %u byte is used.",
									  "Record %u of %u at offset %u has length %zu; %u bytes are used.",
									  hdr->used, k, hdr->nrecords, off, len,
									  hdr->used)));
		b->offs[k] = off;
		off += len;
	}
	b->indexed = true;
}

/*
 * prefetch
 *		Issue, in one batch, reads of the next D head blocks after h in the
 *		scan's direction that are not cached yet.
 */
static void
prefetch(SrmScan *scan, int64 h, bool forward, int keep)
{
	int			j;
	bool		any = false;

	for (j = 1; j <= scan->prefetch; j++)
	{
		int64		hh = forward ? h + j : h - j;

		if (hh < 0 || hh >= scan->nheads)
			break;
		if (find_buf(scan, hh) >= 0)
			continue;
		start_read(scan, victim(scan, keep), hh);
		any = true;
	}
	if (any)
		SrmIoSubmit(scan->ts->io);
}

/*
 * rebuild
 *		The tuple of the record at rec, in the scan's tuple buffer (grown
 *		as needed; shrunk again after a BIG record).
 */
static void *
rebuild(SrmScan *scan, const char *rec)
{
	return SrmRecMaterializeInto(scan->ts->fmt, rec, &scan->tuple,
								 scan->ts->block_size, scan->cxt);
}

/*
 * SrmScanGet
 *		The tuple with the given ordinal; forward tells which way the scan
 *		is moving, for prefetching.  Valid until the next call.
 */
void *
SrmScanGet(SrmScan *scan, int64 ordinal, bool forward)
{
	int64		lo = 0,
				hi = scan->ngroups - 1;
	int			i;
	int			k;
	int64		first;
	SrmScanBuf *b;
	SrmScanGroup *grp;

	Assert(ordinal >= 0 && ordinal < SrmScanCount(scan));
	if (scan->cur_head >= 0 && ordinal >= scan->cur_first &&
		ordinal < scan->cur_end)
	{
		/* mostly the head of the last call */
		lo = scan->cur_head;
		first = scan->cur_first;
	}
	else
	{
		/* the group, then the head block whose records include ordinal */
		while (lo < hi)
		{
			int64		mid = (lo + hi + 1) / 2;

			if (scan->group_first[mid] <= ordinal)
				lo = mid;
			else
				hi = mid - 1;
		}
		grp = group_of(scan, lo);
		for (k = 0; k + 1 < grp->n && grp->first[k + 1] <= ordinal; k++)
			;
		first = grp->first[k];
		scan->cur_head = lo * SRM_SCAN_GROUP + k;
		scan->cur_first = first;
		scan->cur_end = grp->first[k + 1];
		lo = scan->cur_head;
	}

	i = find_buf(scan, lo);
	if (i < 0)
	{
		i = victim(scan, -1);
		start_read(scan, i, lo);
		SrmIoSubmit(scan->ts->io);
	}
	b = &scan->bufs[i];
	b->used = ++scan->clock;
	scan->pinned = i;
	prefetch(scan, lo, forward, i);
	SrmIoWait(scan->ts->io, &b->io);
	if (!b->indexed)
		index_block(scan, b);
	return rebuild(scan, b->big != NULL ? b->big :
				   b->data + b->offs[ordinal - first]);
}

/*
 * SrmScanEnd
 *		Wait for reads in flight and free the reader.
 */
void
SrmScanEnd(SrmScan *scan)
{
	int			i;

	for (i = 0; i < scan->nbufs; i++)
		SrmIoWait(scan->ts->io, &scan->bufs[i].io);
	MemoryContextDelete(scan->cxt);
}
