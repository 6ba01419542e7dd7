/*-------------------------------------------------------------------------
 *
 * relwrite.c
 *	  Writing a new relation fork's blocks in the background (io_uring).
 *
 * An index build writes every page of a new index once, bypassing shared
 * buffers, as PostgreSQL's own build does through the storage manager, one
 * synchronous 8kB write a page.  Here pages are gathered in windows of
 * SRM_RW_WINDOW consecutive blocks and each full window goes to the kernel
 * as one asynchronous write (io_uring's worker copies it into the page
 * cache on another CPU) while the loader fills the next one.  Blocks of a
 * window that no page has reached yet -- pages still open on the upper
 * levels of the tree, which get their block numbers early and are written
 * late -- are written as zeros, as the storage manager zero-fills skipped
 * blocks; their pages come later and overwrite them in place, after the
 * window holding them is known to be on disk (so the zeros cannot land
 * last).
 *
 * The files are the fork's segment files (RELSEG_SIZE blocks each, windows
 * never straddle two), opened as transient files: the storage manager finds
 * them as it would after its own writes (it measures a fork by the sizes of
 * its segment files), and the end of the transaction closes them on error.
 * Write errors are reported in the storage manager's words.  A memory
 * context reset callback waits for writes in flight before their buffers
 * go.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/io/relwrite.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>

#include "access/xloginsert.h"
#include "access/xlogrecord.h"
#include "storage/fd.h"
#include "storage/smgr.h"
#include "utils/memutils.h"

#include "base/compat.h"
#include "io/aio.h"
#include "io/relwrite.h"

#define SRM_RW_WINDOW	32		/* blocks a write: 256kB */
#define SRM_RW_NBUF		4		/* windows: one filling, the rest in flight */
#define SRM_RW_ALIGN	4096	/* buffer alignment, for the kernel's copy */

StaticAssertDecl(RELSEG_SIZE % SRM_RW_WINDOW == 0 && SRM_RW_WINDOW <= 32,
				 "windows must not straddle segment files, and fit a 32-bit mask");

typedef struct SrmRwBuf
{
	char	   *data;			/* SRM_RW_WINDOW blocks */
	SrmIo		io;
	BlockNumber first;			/* the window's first block */
	int			nblocks;		/* blocks of it being written */
} SrmRwBuf;

struct SrmRelWriter
{
	MemoryContext cxt;
	MemoryContextCallback cb;
	SrmIoSet   *set;
	char	   *path;			/* segment 0's path */
	int			nsegs;			/* fds[] and paths[] entries */
	int		   *fds;			/* per segment, -1 until opened */
	char	  **paths;
	SrmRwBuf	bufs[SRM_RW_NBUF];
	int			cur;			/* the window being filled */
	BlockNumber base;			/* its first block */
	int			top;			/* its blocks up to the last one filled */
	uint32		filled;			/* its blocks filled, a bit each */
	BlockNumber length;			/* the fork's length when all is written */
	/* SrmRelWriterPutLogged's pages waiting for their WAL record */
	Relation	rel;
	int			npending;
	BlockNumber pending_blknos[XLR_MAX_BLOCK_ID];
	Page		pending[XLR_MAX_BLOCK_ID];
};

/*
 * relwriter_reset_callback
 *		The writer's memory goes: no write may still be reading it.
 */
static void
relwriter_reset_callback(void *arg)
{
	SrmRelWriter *w = arg;

	SrmIoDrain(w->set);
}

/*
 * SrmRelWriterBegin
 *		See relwrite.h.
 */
SrmRelWriter *
SrmRelWriterBegin(Relation rel)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "srmsort relation writer",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SrmRelWriter *w = palloc0(sizeof(SrmRelWriter));
	char	   *mem;
	int			i;

	w->rel = rel;
	w->cxt = cxt;
	w->set = SrmIoSetCreate();
	w->set->relation_writes = true;
	w->set->write_piece = SRM_WRITE_PIECE;
	w->path = SrmRelationPath(RelationGetSmgr(rel), MAIN_FORKNUM);
	w->nsegs = 4;
	w->fds = palloc(w->nsegs * sizeof(int));
	w->paths = palloc0(w->nsegs * sizeof(char *));
	for (i = 0; i < w->nsegs; i++)
		w->fds[i] = -1;
	mem = (char *) TYPEALIGN(SRM_RW_ALIGN,
							 palloc(SRM_RW_NBUF * SRM_RW_WINDOW * BLCKSZ +
									 SRM_RW_ALIGN));
	for (i = 0; i < SRM_RW_NBUF; i++)
		w->bufs[i].data = mem + (Size) i * SRM_RW_WINDOW * BLCKSZ;
	w->cb.func = relwriter_reset_callback;
	w->cb.arg = w;
	MemoryContextRegisterResetCallback(cxt, &w->cb);
	MemoryContextSwitchTo(old);
	return w;
}

/*
 * segment_fd
 *		The open file of segment seg, created if need be.
 */
static int
segment_fd(SrmRelWriter *w, int seg, char **path)
{
	if (seg >= w->nsegs)
	{
		int			n = Max(w->nsegs * 2, seg + 1);
		int			i;

		w->fds = repalloc(w->fds, n * sizeof(int));
		w->paths = repalloc(w->paths, n * sizeof(char *));
		for (i = w->nsegs; i < n; i++)
		{
			w->fds[i] = -1;
			w->paths[i] = NULL;
		}
		w->nsegs = n;
	}
	if (w->fds[seg] < 0)
	{
		w->paths[seg] = seg == 0 ? w->path :
			MemoryContextStrdup(w->cxt, psprintf("%s.%d", w->path, seg));
		w->fds[seg] = OpenTransientFile(w->paths[seg], O_RDWR | O_CREAT | PG_BINARY);
		if (w->fds[seg] < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open file \"%s\": %m", w->paths[seg])));
	}
	*path = w->paths[seg];
	return w->fds[seg];
}

/*
 * flush
 *		Send the window being filled to the kernel (its first n blocks) and
 *		start filling the next buffer at block next_base.
 */
static void
flush(SrmRelWriter *w, int n, BlockNumber next_base)
{
	SrmRwBuf   *b = &w->bufs[w->cur];
	char	   *path;
	int			fd;

	if (n > 0)
	{
		int			i;

		/* zeros where no page has come yet */
		for (i = 0; i < n; i++)
			if (!(w->filled & ((uint32) 1 << i)))
				memset(b->data + (Size) i * BLCKSZ, 0, BLCKSZ);
		fd = segment_fd(w, w->base / RELSEG_SIZE, &path);
		b->first = w->base;
		b->nblocks = n;
		SrmIoPrepWrite(w->set, &b->io, fd, path, b->data, (uint32) n * BLCKSZ,
					   (off_t) (w->base % RELSEG_SIZE) * BLCKSZ);
		SrmIoSubmit(w->set);
		w->length = Max(w->length, w->base + n);
	}
	w->cur = (w->cur + 1) % SRM_RW_NBUF;
	b = &w->bufs[w->cur];
	SrmIoWait(w->set, &b->io);
	b->nblocks = 0;
	w->base = next_base;
	w->top = 0;
	w->filled = 0;
}

/*
 * write_late
 *		Write page to blkno, behind the window: wait for any write of a
 *		window holding blkno, then overwrite the zeros in place.
 */
static void
write_late(SrmRelWriter *w, BlockNumber blkno, Page page)
{
	char	   *path;
	int			fd;
	int			i;
	ssize_t		r;

	for (i = 0; i < SRM_RW_NBUF; i++)
	{
		SrmRwBuf   *b = &w->bufs[i];

		if (b->nblocks > 0 && blkno >= b->first && blkno < b->first + b->nblocks)
			SrmIoWait(w->set, &b->io);
	}
	fd = segment_fd(w, blkno / RELSEG_SIZE, &path);
	r = pg_pwrite(fd, page, BLCKSZ, (off_t) (blkno % RELSEG_SIZE) * BLCKSZ);
	if (r != BLCKSZ)
	{
		if (r >= 0)
			errno = ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write block %u in file \"%s\": %m",
						blkno, path)));
	}
	w->length = Max(w->length, blkno + 1);
}

/*
 * SrmRelWriterPut
 *		See relwrite.h.
 */
void
SrmRelWriterPut(SrmRelWriter *w, BlockNumber blkno, Page page)
{
	if (blkno < w->base)
	{
		write_late(w, blkno, page);
		return;
	}
	if (blkno >= w->base + SRM_RW_WINDOW)
	{
		/* a later window: this one is done, zeros and all */
		flush(w, w->top > 0 ? SRM_RW_WINDOW : 0,
			  blkno - blkno % SRM_RW_WINDOW);
	}
	memcpy(w->bufs[w->cur].data + (Size) (blkno - w->base) * BLCKSZ, page, BLCKSZ);
	w->top = Max(w->top, (int) (blkno - w->base) + 1);
	w->filled |= (uint32) 1 << (blkno - w->base);
}

/*
 * flush_logged
 *		WAL-log the pending pages in one record (if the relation needs WAL),
 *		then checksum them and write them.
 */
static void
flush_logged(SrmRelWriter *w)
{
	int			i;

	if (w->npending == 0)
		return;
	if (RelationNeedsWAL(w->rel))
		log_newpages(SRM_REL_LOCATOR(w->rel), MAIN_FORKNUM, w->npending,
					 w->pending_blknos, w->pending, true);
	for (i = 0; i < w->npending; i++)
	{
		SrmPageSetChecksum(w->pending[i], w->pending_blknos[i]);
		SrmRelWriterPut(w, w->pending_blknos[i], w->pending[i]);
		pfree(w->pending[i]);
	}
	w->npending = 0;
}

/*
 * SrmRelWriterPutLogged
 *		See relwrite.h.
 */
void
SrmRelWriterPutLogged(SrmRelWriter *w, BlockNumber blkno, Page page)
{
	w->pending_blknos[w->npending] = blkno;
	w->pending[w->npending++] = page;
	if (w->npending == XLR_MAX_BLOCK_ID)
		flush_logged(w);
}

/*
 * SrmRelWriterEnd
 *		See relwrite.h.
 */
BlockNumber
SrmRelWriterEnd(SrmRelWriter *w)
{
	BlockNumber length;
	int			i;

	flush_logged(w);
	flush(w, w->top, w->base + SRM_RW_WINDOW);
	for (i = 0; i < SRM_RW_NBUF; i++)
		SrmIoWait(w->set, &w->bufs[i].io);
	for (i = 0; i < w->nsegs; i++)
		if (w->fds[i] >= 0)
			CloseTransientFile(w->fds[i]);
	length = w->length;
	MemoryContextDelete(w->cxt);
	return length;
}
