/*-------------------------------------------------------------------------
 *
 * btload.c
 *	  Bulk loading of a btree index from index tuples in sorted order.
 *
 * The loader writes the same index PostgreSQL's own build writes (the page
 * layout of nbtsort.c, re-implemented here): leaves are filled left to right
 * up to the fillfactor, each finished page gets a high key made by suffix
 * truncation of its last tuple against the next page's first one, and the
 * page's low key (the previous page's high key, or "minus infinity" for the
 * first page of a level) becomes a downlink on the level above, which is
 * built the same way at the same time (internal pages 70% full).  The first
 * item of every internal page is stored as a minus-infinity pivot (header
 * only).  At the end the rightmost page of each level is closed (it has no
 * high key, so its line pointers slide left by one), the top level's page is
 * the root, and the metapage is written last into block 0, which was
 * reserved at the start: a crash mid-build leaves no valid metapage.
 *
 * Deduplication, when the index allows it (not unique, the
 * deduplicate_items option, and every key column "equal image"), groups
 * runs of binary-equal keys into posting lists of at most 1/10 of a page.
 *
 * Pages bypass shared buffers.  When the index needs WAL the pages are
 * logged as full-page images, 32 to a record, before they are written (by
 * relwrite.c, in the background), and the file is fsynced at the end,
 * because a checkpoint that started during the build knows nothing of
 * these writes.  Unlogged indexes are fsynced too, for the same reason (a
 * clean shutdown followed by an OS crash must not lose them); temporary
 * ones need neither.  Permanent indexes that skip WAL (wal_level minimal,
 * new relfilenode) are synced or logged at commit by the storage manager.
 *
 * All memory lives in the loader's context, a child of the caller's.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/btload.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "miscadmin.h"
#include "storage/bufpage.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "base/compat.h"
#include "builds/btload.h"
#include "io/relwrite.h"
#include "keys/record.h"

/* fill limit of internal pages: free space to keep (nbtree's 70%) */
#define SRM_INTERNAL_FREE	(BLCKSZ * (100 - BTREE_NONLEAF_FILLFACTOR) / 100)

/* One level of the tree being built: its current (rightmost) page. */
typedef struct SrmBtLevel
{
	Page		page;
	BlockNumber blkno;
	IndexTuple	lowkey;			/* the page's low key: its downlink-to-be */
	OffsetNumber lastoff;		/* last item added; P_HIKEY when empty */
	Size		lastextra;		/* posting list bytes of the last item */
	uint32		level;			/* 0 = leaf */
	Size		full;			/* free space below which the page is full */
	struct SrmBtLevel *parent;
} SrmBtLevel;

struct SrmBtLoader
{
	Relation	heap;
	Relation	index;
	MemoryContext cxt;
	BTScanInsert inskey;		/* for suffix truncation */
	int			nkeyatts;
	bool		use_wal;
	bool		need_sync;
	BlockNumber alloced;		/* next block number to hand out */
	SrmRelWriter *writer;
	SrmBtLevel *leaf;			/* NULL until the first tuple */
	BTDedupState dstate;		/* NULL unless deduplicating */
	IndexTuple	dbase;			/* room for the pending list's base tuple */
	bool		dlone;			/* dbase pending alone, dstate not started */
	bool		fixed_keys;		/* every key column of fixed length */
};

static Page new_page(uint32 level);
static SrmBtLevel *new_level(SrmBtLoader *ld, uint32 level);
static inline void page_add(Page page, Size size, IndexTuple itup,
							OffsetNumber off, bool minus_infinity);
static void level_add(SrmBtLoader *ld, SrmBtLevel *lv, IndexTuple itup,
					  Size truncextra);
static void finish_page(SrmBtLoader *ld, SrmBtLevel *lv);
static void write_page(SrmBtLoader *ld, Page page, BlockNumber blkno);
static void slide_left(Page page);
static void dedup_flush(SrmBtLoader *ld);

/*
 * page_free
 *		PageGetFreeSpace, inline: every tuple of the build asks it.
 */
static inline Size
page_free(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	int			space = (int) phdr->pd_upper - (int) phdr->pd_lower;

	return space < (int) sizeof(ItemIdData) ? 0 : space - sizeof(ItemIdData);
}

/*
 * SrmBtLoadBegin
 *		Start loading the empty index; see btload.h.
 */
SrmBtLoader *
SrmBtLoadBegin(Relation heapRel, Relation indexRel, bool allow_dedup)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "srmsort btree load",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SrmBtLoader *ld = palloc0(sizeof(SrmBtLoader));

	ld->heap = heapRel;
	ld->index = indexRel;
	ld->cxt = cxt;
	ld->nkeyatts = IndexRelationGetNumberOfKeyAttributes(indexRel);
	ld->inskey = _bt_mkscankey(indexRel, NULL);
	/* without a metapage _bt_mkscankey cannot know this */
	ld->inskey->allequalimage = _bt_allequalimage(indexRel, true);
	ld->use_wal = RelationNeedsWAL(indexRel);
	ld->need_sync = ld->use_wal ||
		indexRel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED;
	ld->alloced = BTREE_METAPAGE + 1;	/* the metapage comes last */
	ld->writer = SrmRelWriterBegin(indexRel);

	if (allow_dedup && ld->inskey->allequalimage &&
		BTGetDeduplicateItems(indexRel))
	{
		BTDedupState d = palloc0(sizeof(BTDedupStateData));

		d->deduplicate = true;
		/* a tenth of a page, like PostgreSQL's build (fillfactor 90) */
		d->maxpostingsize = MAXALIGN_DOWN(BLCKSZ * 10 / 100) - sizeof(ItemIdData);
		d->htids = palloc(d->maxpostingsize);
		d->baseoff = InvalidOffsetNumber;
		ld->dstate = d;
		/* an index tuple never fills a page */
		ld->dbase = palloc(BLCKSZ);
		ld->fixed_keys = SrmFixedAttsEnd(RelationGetDescr(indexRel),
										 ld->nkeyatts) >= 0;
	}
	MemoryContextSwitchTo(old);
	return ld;
}

/*
 * new_page
 *		A fresh page of a level with the high key's line pointer reserved
 *		(data items start at P_FIRSTKEY until the page turns out rightmost).
 */
static Page
new_page(uint32 level)
{
	Page		page = palloc(BLCKSZ);
	BTPageOpaque opaque;

	_bt_pageinit(page, BLCKSZ);
	opaque = BTPageGetOpaque(page);
	opaque->btpo_prev = P_NONE;
	opaque->btpo_next = P_NONE;
	opaque->btpo_level = level;
	opaque->btpo_flags = level == 0 ? BTP_LEAF : 0;
	opaque->btpo_cycleid = 0;
	((PageHeader) page)->pd_lower += sizeof(ItemIdData);
	return page;
}

/*
 * new_level
 *		The state of a new level, with its first page's block assigned.
 */
static SrmBtLevel *
new_level(SrmBtLoader *ld, uint32 level)
{
	SrmBtLevel *lv = palloc0(sizeof(SrmBtLevel));

	lv->page = new_page(level);
	lv->blkno = ld->alloced++;
	lv->lastoff = P_HIKEY;
	lv->level = level;
	lv->full = level > 0 ? SRM_INTERNAL_FREE : BTGetTargetPageFreeSpace(ld->index);
	return lv;
}

/*
 * page_add
 *		Put an item on a page being built at offset off.  The first data
 *		item of an internal page is stored as a minus-infinity pivot.
 *		Inline, and the copy without a call: every tuple of the build
 *		passes here.
 */
static pg_attribute_always_inline void
page_add(Page page, Size size, IndexTuple itup, OffsetNumber off,
		 bool minus_infinity)
{
	PageHeader	phdr = (PageHeader) page;
	IndexTupleData pivot;
	ItemId		lp;

	if (minus_infinity)
	{
		pivot = *itup;
		pivot.t_info = sizeof(IndexTupleData);
		BTreeTupleSetNAtts(&pivot, 0, false);
		itup = &pivot;
		size = sizeof(IndexTupleData);
	}

	/*
	 * Items only ever go after the last one: what PageAddItem would do,
	 * without its search for a free line pointer and its shuffling.
	 */
	Assert(off == PageGetMaxOffsetNumber(page) + 1);
	if (phdr->pd_upper - phdr->pd_lower < MAXALIGN(size) + sizeof(ItemIdData))
		elog(ERROR, "failed to add item to the index page");
	lp = PageGetItemId(page, off);
	phdr->pd_lower += sizeof(ItemIdData);
	phdr->pd_upper -= MAXALIGN(size);
	ItemIdSetNormal(lp, phdr->pd_upper, size);
	SrmRecCopy((char *) page + phdr->pd_upper, (const char *) itup, size);
}

/*
 * level_add
 *		Append a tuple to a level, finishing the current page first when
 *		the tuple does not fit or the page has reached its fill limit.
 *		truncextra is the size of the tuple's posting list (0 if none):
 *		it will be truncated away if the tuple becomes a high key, so the
 *		fill limit check of the next call counts it as free.
 */
static void
level_add(SrmBtLoader *ld, SrmBtLevel *lv, IndexTuple itup, Size truncextra)
{
	bool		leaf = lv->level == 0;
	Size		size = MAXALIGN(IndexTupleSize(itup));
	Size		freespace = page_free(lv->page);
	Size		prev_extra = lv->lastextra;

	CHECK_FOR_INTERRUPTS();
	lv->lastextra = truncextra;

	/* raises PostgreSQL's "index row size exceeds maximum" error */
	if (unlikely(size > SrmBTMaxItemSize(lv->page)))
		_bt_check_third_page(ld->index, ld->heap, leaf, lv->page, itup);

	/*
	 * Leaves keep room for the heap TID a truncated high key may need.  A
	 * page always gets at least two data items before the fill limit
	 * counts.
	 */
	if (freespace < size + (leaf ? MAXALIGN(sizeof(ItemPointerData)) : 0) ||
		(freespace + prev_extra < lv->full && lv->lastoff > P_FIRSTKEY))
		finish_page(ld, lv);

	if (lv->lastoff == P_HIKEY)
	{
		/* the first item of the whole level: its low key is minus infinity */
		lv->lowkey = palloc0(sizeof(IndexTupleData));
		lv->lowkey->t_info = sizeof(IndexTupleData);
		BTreeTupleSetNAtts(lv->lowkey, 0, false);
	}
	lv->lastoff = OffsetNumberNext(lv->lastoff);
	page_add(lv->page, size, itup, lv->lastoff,
			 !leaf && lv->lastoff == P_FIRSTKEY);
}

/*
 * finish_page
 *		Close the level's current page: its last item moves to a new page
 *		and becomes (truncated, on leaves) the old page's high key; the old
 *		page's low key goes up as a downlink; the old page is written.
 */
static void
finish_page(SrmBtLoader *ld, SrmBtLevel *lv)
{
	bool		leaf = lv->level == 0;
	Page		opage = lv->page;
	BlockNumber oblkno = lv->blkno;
	Page		npage = new_page(lv->level);
	BlockNumber nblkno = ld->alloced++;
	ItemId		last = PageGetItemId(opage, lv->lastoff);
	IndexTuple	lastitup = (IndexTuple) PageGetItem(opage, last);
	IndexTuple	hikey;

	Assert(lv->lastoff > P_FIRSTKEY);
	page_add(npage, ItemIdGetLength(last), lastitup, P_FIRSTKEY, !leaf);

	/* the last item's line pointer becomes the high key's */
	*PageGetItemId(opage, P_HIKEY) = *last;
	ItemIdSetUnused(last);
	((PageHeader) opage)->pd_lower -= sizeof(ItemIdData);

	if (leaf)
	{
		IndexTuple	lastleft = (IndexTuple)
			PageGetItem(opage, PageGetItemId(opage, OffsetNumberPrev(lv->lastoff)));
		IndexTuple	trunc = _bt_truncate(ld->index, lastleft, lastitup, ld->inskey);

		if (!PageIndexTupleOverwrite(opage, P_HIKEY, (char *) trunc,
									 IndexTupleSize(trunc)))
			elog(ERROR, "failed to add high key to the index page");
		pfree(trunc);
	}
	hikey = (IndexTuple) PageGetItem(opage, PageGetItemId(opage, P_HIKEY));

	if (lv->parent == NULL)
		lv->parent = new_level(ld, lv->level + 1);
	BTreeTupleSetDownLink(lv->lowkey, oblkno);
	level_add(ld, lv->parent, lv->lowkey, 0);
	pfree(lv->lowkey);
	lv->lowkey = CopyIndexTuple(hikey);

	BTPageGetOpaque(opage)->btpo_next = nblkno;
	BTPageGetOpaque(npage)->btpo_prev = oblkno;
	write_page(ld, opage, oblkno);

	lv->page = npage;
	lv->blkno = nblkno;
	lv->lastoff = P_FIRSTKEY;
}

/*
 * write_page
 *		Queue a finished page for its WAL record and write (the writer
 *		frees it).  Blocks are written in the background (relwrite.c), as
 *		PostgreSQL's build writes them: zeros for blocks reserved for pages
 *		still open, overwritten when those pages are done.
 */
static void
write_page(SrmBtLoader *ld, Page page, BlockNumber blkno)
{
	SrmRelWriterPutLogged(ld->writer, blkno, page);
}

/*
 * slide_left
 *		A level's rightmost page has no high key: move its line pointers
 *		down over the reserved P_HIKEY slot.
 */
static void
slide_left(Page page)
{
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber off;

	for (off = P_FIRSTKEY; off <= maxoff; off = OffsetNumberNext(off))
		*PageGetItemId(page, off - 1) = *PageGetItemId(page, off);
	((PageHeader) page)->pd_lower -= sizeof(ItemIdData);
}

/*
 * dedup_flush
 *		Emit what is pending, if anything, to the leaves: the lone tuple,
 *		or the posting list (a tuple as it was if it has one TID).
 */
static void
dedup_flush(SrmBtLoader *ld)
{
	BTDedupState d = ld->dstate;

	if (ld->dlone)
	{
		level_add(ld, ld->leaf, ld->dbase, 0);
		ld->dlone = false;
		return;
	}
	if (d->base == NULL)
		return;
	if (d->nitems == 1)
		level_add(ld, ld->leaf, d->base, 0);
	else
	{
		IndexTuple	posting = _bt_form_posting(d->base, d->htids, d->nhtids);

		level_add(ld, ld->leaf, posting,
				  IndexTupleSize(posting) - BTreeTupleGetPostingOffset(posting));
		pfree(posting);
	}
	d->base = NULL;
	d->nmaxitems = 0;
	d->nhtids = 0;
	d->nitems = 0;
	d->phystupsize = 0;
}

/*
 * same_key
 *		Whether two leaf tuples' keys are binary equal (all of them, as
 *		_bt_keep_natts_fast finds).  Without NULLs, keys of fixed length
 *		lie at the same offsets in both and the bytes between (alignment
 *		padding) are zeros, so the data compares as one block.
 */
static inline bool
same_key(SrmBtLoader *ld, IndexTuple a, IndexTuple b)
{
	if (ld->fixed_keys && !IndexTupleHasNulls(a) && !IndexTupleHasNulls(b))
	{
		Size		off = IndexInfoFindDataOffset(0);
		Size		size = IndexTupleSize(a);

		if (size != IndexTupleSize(b))
			return false;
		/* MAXALIGNed sizes: a word at a time, without memcmp's call */
		for (; off + sizeof(uint64) <= size; off += sizeof(uint64))
		{
			uint64		wa,
						wb;

			memcpy(&wa, (const char *) a + off, sizeof(wa));
			memcpy(&wb, (const char *) b + off, sizeof(wb));
			if (wa != wb)
				return false;
		}
		return memcmp((char *) a + off, (char *) b + off, size - off) == 0;
	}
	return _bt_keep_natts_fast(ld->index, a, b) > ld->nkeyatts;
}

/*
 * SrmBtLoadAdd
 *		Add the next tuple in btree order.  A tuple waits in dbase for the
 *		next one; a posting list is started only when that has the same
 *		key, so unique keys never pay for one.
 */
void
SrmBtLoadAdd(SrmBtLoader *ld, IndexTuple itup)
{
	MemoryContext old = MemoryContextSwitchTo(ld->cxt);
	BTDedupState d = ld->dstate;

	if (ld->leaf == NULL)
		ld->leaf = new_level(ld, 0);

	if (d == NULL)
		level_add(ld, ld->leaf, itup, 0);
	else
	{
		bool		same = false;

		if (ld->dlone)
		{
			same = same_key(ld, ld->dbase, itup);
			if (same)
			{
				_bt_dedup_start_pending(d, ld->dbase, InvalidOffsetNumber);
				ld->dlone = false;
			}
		}
		else if (d->base != NULL)
			same = same_key(ld, d->base, itup);
		if (same && _bt_dedup_save_htid(d, itup))
		{
			/* same key as the pending posting list: its TID was taken */
			MemoryContextSwitchTo(old);
			return;
		}
		dedup_flush(ld);
		/* the caller's tuple lives only until its next one: copy it */
		SrmRecCopy((char *) ld->dbase, (const char *) itup, IndexTupleSize(itup));
		ld->dlone = true;
	}
	MemoryContextSwitchTo(old);
}

/*
 * SrmBtLoadFinish
 *		Close every level bottom-up, write the metapage, sync if needed.
 */
BlockNumber
SrmBtLoadFinish(SrmBtLoader *ld)
{
	MemoryContext old = MemoryContextSwitchTo(ld->cxt);
	BlockNumber root = P_NONE;
	uint32		rootlevel = 0;
	SrmBtLevel *lv;
	Page		meta;
	BlockNumber npages;

	if (ld->dstate != NULL)
		dedup_flush(ld);

	/* adding a downlink may open a new level above: re-read lv->parent */
	for (lv = ld->leaf; lv != NULL; lv = lv->parent)
	{
		if (lv->parent == NULL)
		{
			BTPageGetOpaque(lv->page)->btpo_flags |= BTP_ROOT;
			root = lv->blkno;
			rootlevel = lv->level;
		}
		else
		{
			BTreeTupleSetDownLink(lv->lowkey, lv->blkno);
			level_add(ld, lv->parent, lv->lowkey, 0);
			pfree(lv->lowkey);
			lv->lowkey = NULL;
		}
		slide_left(lv->page);
		write_page(ld, lv->page, lv->blkno);
		lv->page = NULL;
	}

	meta = palloc(BLCKSZ);
	_bt_initmetapage(meta, root, rootlevel, ld->inskey->allequalimage);
	write_page(ld, meta, BTREE_METAPAGE);
	npages = SrmRelWriterEnd(ld->writer);
	ld->writer = NULL;

	if (ld->need_sync)
		smgrimmedsync(RelationGetSmgr(ld->index), MAIN_FORKNUM);

	MemoryContextSwitchTo(old);
	MemoryContextDelete(ld->cxt);
	return npages;
}
