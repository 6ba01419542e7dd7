/*-------------------------------------------------------------------------
 *
 * gistload.c
 *	  Bulk loading of a GiST index from index tuples in sorted order.
 *
 * The loader writes the pages PostgreSQL's sorted GiST build writes
 * (gistbuild.c's sorted path, re-implemented here around GiST's own page
 * and split routines): tuples fill a level's page to the brim (GiST's
 * sorted build ignores the fillfactor), and a level keeps a batch of up to
 * SRM_GIST_BATCH pages.  When the batch is full, or at the end, its tuples
 * are divided again by the opclass's picksplit (gistSplit: pages of tuples
 * that lie close together, not just in curve order), or, for a batch of
 * one page, kept as they are; each resulting page is written, chained by
 * its right link to the level's previous page, and its union key becomes a
 * downlink on the level above, built the same way.  Block numbers are
 * handed out as pages are finished; block 0 is reserved for the root,
 * written last.
 *
 * With workers (gistsplit.c), the leaf level's batches are divided there
 * and come back in their order; the leader writes them as it writes its
 * own, so the pages, their block numbers and the levels above are the
 * same.
 *
 * Pages bypass shared buffers.  When the index needs WAL they are logged as
 * full-page images, 32 to a record, before they are written (relwrite.c,
 * in the background), and the file is fsynced at the end, as btload.c does
 * and for the same reasons.  The root's block 0 is zeros until the end,
 * as in PostgreSQL's build.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/gistload.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/gist_private.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "storage/bufpage.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "base/compat.h"
#include "builds/gistload.h"
#include "builds/gistsplit.h"
#include "io/relwrite.h"

/* pages of a level divided again by picksplit at once (PostgreSQL's 4) */
#define SRM_GIST_BATCH		4

/* One level of the tree being built: its batch of open pages. */
typedef struct SrmGistLevel
{
	Page		pages[SRM_GIST_BATCH];	/* allocated as needed */
	int			cur;			/* the page being filled */
	BlockNumber last_blkno;		/* the level's last page written (0: none) */
	struct SrmGistLevel *parent;
} SrmGistLevel;

struct SrmGistLoader
{
	Relation	index;
	GISTSTATE  *giststate;
	MemoryContext cxt;
	bool		need_sync;
	BlockNumber alloced;		/* next block number to hand out */
	SrmRelWriter *writer;
	SrmGistLevel *leaf;
	SrmGistSplitters *splitters;	/* the leaf level's, or NULL */
	bool		leader_splits;	/* the leader divides when they are busy */
};

static void level_add(SrmGistLoader *ld, SrmGistLevel *lv, IndexTuple itup);
static void level_flush(SrmGistLoader *ld, SrmGistLevel *lv);
static void leaf_flush_parallel(SrmGistLoader *ld, SrmGistLevel *lv);

/*
 * new_level
 *		A level whose first page is open, a leaf or an internal page.
 */
static SrmGistLevel *
new_level(bool leaf)
{
	SrmGistLevel *lv = palloc0(sizeof(SrmGistLevel));

	lv->pages[0] = palloc(BLCKSZ);
	gistinitpage(lv->pages[0], leaf ? F_LEAF : 0);
	return lv;
}

/*
 * SrmGistLoadBegin
 *		Start loading the empty index; see gistload.h.
 */
SrmGistLoader *
SrmGistLoadBegin(Relation indexRel, GISTSTATE *giststate,
				 SrmGistSplitters *splitters)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "srmsort gist load",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SrmGistLoader *ld = palloc0(sizeof(SrmGistLoader));

	ld->index = indexRel;
	ld->giststate = giststate;
	ld->cxt = cxt;
	ld->need_sync = RelationNeedsWAL(indexRel) ||
		indexRel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED;
	ld->alloced = GIST_ROOT_BLKNO + 1;	/* the root comes last */
	ld->writer = SrmRelWriterBegin(indexRel);
	ld->leaf = new_level(true);
	ld->splitters = splitters;
	ld->leader_splits = parallel_leader_participation;
	MemoryContextSwitchTo(old);
	return ld;
}

/*
 * write_page
 *		Hand a finished page (the writer frees it) to its WAL record and
 *		write.  Its LSN is GiST's build LSN unless the WAL record sets one.
 */
static void
write_page(SrmGistLoader *ld, Page page, BlockNumber blkno)
{
	PageSetLSN(page, GistBuildLSN);
	SrmRelWriterPutLogged(ld->writer, blkno, page);
}

/*
 * level_add
 *		Put itup on the level's current page; when it does not fit, open
 *		the batch's next page, or divide and write a full batch first.
 */
static void
level_add(SrmGistLoader *ld, SrmGistLevel *lv, IndexTuple itup)
{
	Page		page = lv->pages[lv->cur];

	if (PageGetFreeSpace(page) < IndexTupleSize(itup) + sizeof(ItemIdData))
	{
		uint16		flags = GistPageGetOpaque(page)->flags;

		if (lv->cur + 1 < SRM_GIST_BATCH)
			lv->cur++;
		else if (lv == ld->leaf && ld->splitters != NULL)
			leaf_flush_parallel(ld, lv);	/* back to the first page */
		else
			level_flush(ld, lv);	/* back to the batch's first page */
		if (lv->pages[lv->cur] == NULL)
			lv->pages[lv->cur] = palloc(BLCKSZ);
		page = lv->pages[lv->cur];
		gistinitpage(page, flags);
	}
	gistfillbuffer(page, &itup, 1, InvalidOffsetNumber);
}

/*
 * level_write
 *		Write a batch's division (SrmGistSplitBatch's): each page chained
 *		to the level's previous one, given the next block number, its union
 *		key a downlink on the level above, which is opened if there is none
 *		(a new root).
 */
static void
level_write(SrmGistLoader *ld, SrmGistLevel *lv, const char *data, Size len)
{
	Size		pos = 0;

	while (pos < len)
	{
		SrmGistSplitPage hdr;
		IndexTuple	downlink;
		Page		page;
		BlockNumber blkno;

		CHECK_FOR_INTERRUPTS();
		memcpy(&hdr, data + pos, sizeof(hdr));
		pos += MAXALIGN(sizeof(hdr));
		downlink = MemoryContextAlloc(ld->giststate->tempCxt, hdr.union_size);
		memcpy(downlink, data + pos, hdr.union_size);
		pos += MAXALIGN(hdr.union_size);
		page = palloc(BLCKSZ);
		memcpy(page, data + pos, BLCKSZ);
		pos += BLCKSZ;

		/* a chain through the level, each page to the one before */
		if (lv->last_blkno != 0)
			GistPageGetOpaque(page)->rightlink = lv->last_blkno;
		blkno = ld->alloced++;
		write_page(ld, page, blkno);
		lv->last_blkno = blkno;

		ItemPointerSetBlockNumber(&downlink->t_tid, blkno);
		if (lv->parent == NULL)
			lv->parent = new_level(false);
		level_add(ld, lv->parent, downlink);
	}
}

/*
 * level_flush
 *		Divide the level's batch by picksplit (one page is kept as it is)
 *		and write it.
 */
static void
level_flush(SrmGistLoader *ld, SrmGistLevel *lv)
{
	GISTSTATE  *gs = ld->giststate;
	MemoryContext old;
	StringInfoData out;

	CHECK_FOR_INTERRUPTS();

	/* the split's work is per tuple: the build resets tempCxt after each */
	old = MemoryContextSwitchTo(gs->tempCxt);
	initStringInfo(&out);
	SrmGistSplitBatch(ld->index, gs, lv->pages, lv->cur + 1, &out);
	MemoryContextSwitchTo(old);
	lv->cur = 0;
	level_write(ld, lv, out.data, out.len);
}

/*
 * leaf_written
 *		Write the leaf batches whose divisions are back, in their order;
 *		with wait, the oldest one at least (false if none is in flight).
 */
static bool
leaf_written(SrmGistLoader *ld, bool wait)
{
	char	   *data;
	Size		len;
	bool		any = false;

	while (SrmGistSplitNext(ld->splitters, wait, &data, &len))
	{
		level_write(ld, ld->leaf, data, len);
		any = true;
		wait = false;
	}
	return any;
}

/*
 * leaf_flush_parallel
 *		A full leaf batch, with workers: to a worker with room; when all
 *		are busy and no division is back, divided by the leader itself
 *		(queued in its turn), or else the oldest one waited for.
 */
static void
leaf_flush_parallel(SrmGistLoader *ld, SrmGistLevel *lv)
{
	SrmGistSplitters *sp = ld->splitters;

	CHECK_FOR_INTERRUPTS();
	(void) leaf_written(ld, false);
	while (!SrmGistSplitSend(sp, lv->pages, lv->cur + 1))
	{
		if (leaf_written(ld, false))
			continue;
		if (ld->leader_splits)
		{
			MemoryContext old = MemoryContextSwitchTo(ld->cxt);
			StringInfoData out;

			initStringInfo(&out);
			MemoryContextSwitchTo(ld->giststate->tempCxt);
			SrmGistSplitBatch(ld->index, ld->giststate, lv->pages,
							  lv->cur + 1, &out);
			MemoryContextSwitchTo(old);
			if (SrmGistSplitQueueLocal(sp, &out))
				break;
			/* no room: write it now, as soon as the older ones are */
			while (leaf_written(ld, true))
				;
			level_write(ld, lv, out.data, out.len);
			pfree(out.data);
			break;
		}
		(void) leaf_written(ld, true);
	}
	lv->cur = 0;
}

/*
 * SrmGistLoadAdd
 *		Add the next leaf tuple.
 */
void
SrmGistLoadAdd(SrmGistLoader *ld, IndexTuple itup)
{
	MemoryContext old = MemoryContextSwitchTo(ld->cxt);

	level_add(ld, ld->leaf, itup);
	MemoryContextSwitchTo(old);
	MemoryContextReset(ld->giststate->tempCxt);
}

/*
 * SrmGistLoadFinish
 *		Write every level's open batch bottom-up (each may open the level
 *		above), then the root into block 0; sync if needed.
 */
BlockNumber
SrmGistLoadFinish(SrmGistLoader *ld)
{
	MemoryContext old = MemoryContextSwitchTo(ld->cxt);
	SrmGistLevel *lv = ld->leaf;
	BlockNumber npages;

	/* the leaf batches in flight come before the leaf's open one */
	if (ld->splitters != NULL)
		while (leaf_written(ld, true))
			;
	while (lv->parent != NULL || lv->cur != 0)
	{
		level_flush(ld, lv);
		lv = lv->parent;
	}
	write_page(ld, lv->pages[0], GIST_ROOT_BLKNO);
	lv->pages[0] = NULL;
	npages = SrmRelWriterEnd(ld->writer);
	ld->writer = NULL;

	if (ld->need_sync)
		smgrimmedsync(RelationGetSmgr(ld->index), MAIN_FORKNUM);

	MemoryContextSwitchTo(old);
	MemoryContextReset(ld->giststate->tempCxt);
	MemoryContextDelete(ld->cxt);
	return npages;
}
