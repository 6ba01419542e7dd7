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
#include "storage/bufpage.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "base/compat.h"
#include "builds/gistload.h"
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
};

static void level_add(SrmGistLoader *ld, SrmGistLevel *lv, IndexTuple itup);
static void level_flush(SrmGistLoader *ld, SrmGistLevel *lv);

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
SrmGistLoadBegin(Relation indexRel, GISTSTATE *giststate)
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
 * level_flush
 *		Write the level's batch: its tuples divided by picksplit (one page
 *		is kept as it is), each page's union key a downlink on the level
 *		above, which is opened if there is none (a new root).
 */
static void
level_flush(SrmGistLoader *ld, SrmGistLevel *lv)
{
	GISTSTATE  *gs = ld->giststate;
	bool		leaf = GistPageIsLeaf(lv->pages[0]);
	MemoryContext old;
	IndexTuple *itvec;
	int			n;
	int			i;
	SrmGistSplitLayout *dist;

	CHECK_FOR_INTERRUPTS();

	/* the split's work is per tuple: the build resets tempCxt after each */
	old = MemoryContextSwitchTo(gs->tempCxt);
	itvec = gistextractpage(lv->pages[0], &n);
	for (i = 1; i <= lv->cur; i++)
	{
		int			m;
		IndexTuple *more = gistextractpage(lv->pages[i], &m);

		itvec = gistjoinvector(itvec, &n, more, m);
	}
	if (lv->cur > 0)
		dist = gistSplit(ld->index, lv->pages[0], itvec, n, gs);
	else
	{
		dist = palloc0(sizeof(*dist));
		dist->itup = gistunion(ld->index, itvec, n, gs);
		dist->list = gistfillitupvec(itvec, n, &dist->lenlist);
		dist->block.num = n;
	}
	MemoryContextSwitchTo(old);
	lv->cur = 0;

	for (; dist != NULL; dist = dist->next)
	{
		Page		page = palloc(BLCKSZ);
		char	   *data = (char *) dist->list;
		BlockNumber blkno;

		CHECK_FOR_INTERRUPTS();
		gistinitpage(page, leaf ? F_LEAF : 0);
		for (i = 0; i < dist->block.num; i++)
		{
			Size		sz = IndexTupleSize((IndexTuple) data);

			if (PageAddItem(page, data, sz, i + FirstOffsetNumber,
							false, false) == InvalidOffsetNumber)
				elog(ERROR, "failed to add item to index page in \"%s\"",
					 RelationGetRelationName(ld->index));
			data += sz;
		}
		/* a chain through the level, each page to the one before */
		if (lv->last_blkno != 0)
			GistPageGetOpaque(page)->rightlink = lv->last_blkno;
		blkno = ld->alloced++;
		write_page(ld, page, blkno);
		lv->last_blkno = blkno;

		ItemPointerSetBlockNumber(&dist->itup->t_tid, blkno);
		if (lv->parent == NULL)
			lv->parent = new_level(false);
		level_add(ld, lv->parent, dist->itup);
	}
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
