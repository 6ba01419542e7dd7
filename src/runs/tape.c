/*-------------------------------------------------------------------------
 *
 * tape.c
 *	  Striped runs: the tape set, placement over the disks, block slots and
 *	  reading blocks back.
 *
 * A run is a sequence of fixed-size blocks (the sort's block size B).
 * Block i of a run whose start is s lives on the disk at position s + i of
 * the sort's stripe (placement.c: with equal weights, disk (s + i) mod D;
 * weighted, each disk in proportion to its bandwidth); s is drawn
 * uniformly at random per run (SRM), or is 0 for every run (DSM).
 * Each disk has one workfile, an array of B-byte block slots.  A slot is
 * released when the merge has the block in memory for good (it has become
 * a leading block), and later writes on the same disk reuse released slots
 * first, so the workfiles stay close to the size of the data.
 *
 * Block format: an SrmBlockHeader, then records (record.c: unaligned, no
 * padding) that never straddle blocks -- except a record too large for
 * one block, which starts a "BIG" block and continues in the following
 * "CONT" blocks, with no other record in them.  Blocks are always written
 * whole (B bytes), so that O_DIRECT needs no special cases.  runwriter.c
 * writes runs (and their forecast data); this file reads them back.
 *
 * A run's block references and forecast list are arrays in memory (which
 * the sorter counts against its budget) or, once the sorter says so, kept
 * in metadata workfiles (runmeta.c) and paged in while the run is in use.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/runs/tape.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/instrument.h"
#include "utils/memutils.h"

#include "base/settings.h"
#include "base/shmem.h"
#include "io/diskspeed.h"
#include "runs/tape.h"

/* workfile growth is accounted against temp_file_limit this many slots at once */
#define SRM_EXTEND_SLOTS	16

/*
 * io_done
 *		A workfile request completed (ms after its submission): its bytes
 *		leave the disk's in-flight count, and the time it was in flight
 *		that no request of the same kind covered already makes the disk
 *		busy -- requests in flight together count once (completions come
 *		in time order, so the busy time counted so far ends at until_ms).
 */
static void
io_done(SrmIo *io, double ms, void *arg)
{
	SrmTapeSet *ts = (SrmTapeSet *) arg;
	SrmDiskUse *u = &ts->use[io->tag];
	int			kinds[2] = {io->is_write ? 1 : 0, 2};
	double		busy_any = 0;
	instr_time	now;
	double		now_ms;
	int			i;

	INSTR_TIME_SET_CURRENT(now);
	now_ms = INSTR_TIME_GET_MILLISEC(now);
	u->bytes[kinds[0]] += io->len;
	for (i = 0; i < 2; i++)
	{
		int			k = kinds[i];
		double		from = Max(now_ms - ms, u->until_ms[k]);

		if (now_ms > from)
		{
			u->busy_ms[k] += now_ms - from;
			if (k == 2)
				busy_any = now_ms - from;
		}
		u->until_ms[k] = Max(u->until_ms[k], now_ms);
	}
	SrmJobCountDone(io->tag, io->len, busy_any);
}

/*
 * SrmTapeWidthFor
 *		The period of the stripe over all of disks that SrmTapeSetCreate
 *		builds for maxdisks: the block size is chosen for it before the
 *		set exists.
 */
int
SrmTapeWidthFor(SrmDiskSet *disks, int maxdisks)
{
	SrmStripe	st;

	SrmStripeBuild(&st, disks->weights, disks->ndisks, Max(maxdisks, 1));
	return st.width;
}

/*
 * SrmTapeSetCreate
 *		The tape set of a sort over disks (its own, or a parallel build's
 *		shared set; closed with the tape set), with stripes of at most
 *		maxdisks blocks a period and blocks of block_size bytes; new runs
 *		go to disks run_first .. + run_ndisks - 1 (0: all).  Allocates in
 *		CurrentMemoryContext.
 */
SrmTapeSet *
SrmTapeSetCreate(SrmDiskSet *disks, int maxdisks, int block_size,
				 int run_first, int run_ndisks, SrmRecFormat *fmt)
{
	SrmTapeSet *ts = palloc0(sizeof(SrmTapeSet));
	int			d;

	ts->cxt = CurrentMemoryContext;
	ts->block_size = block_size;
	ts->run_first = run_first;
	ts->run_ndisks = run_ndisks;
	ts->fmt = fmt;
	ts->normalized = fmt->normalized;

	if (srmsort_random_seed >= 0)
		pg_prng_seed(&ts->prng, (uint64) srmsort_random_seed);
	else
		pg_prng_seed(&ts->prng, pg_prng_uint64(&pg_global_prng_state));

	ts->disks = disks;
	ts->ndisks = ts->disks->ndisks;
	ts->maxwidth = Max(maxdisks, 1);
	ts->stripes = palloc(sizeof(SrmStripe));
	SrmStripeBuild(&ts->stripes[0], ts->disks->weights, ts->ndisks,
				   ts->maxwidth);
	ts->nstripes = 1;
	ts->use = palloc0(ts->ndisks * sizeof(SrmDiskUse));
	ts->io = SrmIoSetCreate();
	ts->io->on_complete = io_done;
	ts->io->on_complete_arg = ts;
	ts->io->async_reads = !ts->disks->direct_io;
	ts->io->write_piece = ts->disks->direct_io ? 0 : SRM_WRITE_PIECE;

	ts->nslots = palloc0(ts->ndisks * sizeof(int32));
	ts->nfree = palloc0(ts->ndisks * sizeof(int32));
	ts->freecap = palloc0(ts->ndisks * sizeof(int32));
	ts->freeslots = palloc0(ts->ndisks * sizeof(int32 *));
	/*
	 * A merge writes into the slots its reads free, so a disk that fills up
	 * after run formation hardly ever fails one.  The disk-full test turns
	 * reuse off (srmsort.debug_no_slot_reuse) to make a merge's writes
	 * reach the full disk.
	 */
	ts->reuse_slots = !srmsort_debug_no_slot_reuse;
	ts->meta_blocks.vfd = -1;
	ts->meta_forecast.vfd = -1;
	ts->meta_keys.vfd = -1;
	for (d = 0; d < ts->ndisks; d++)
	{
		ts->freecap[d] = 64;
		ts->freeslots[d] = palloc(ts->freecap[d] * sizeof(int32));
	}
	return ts;
}

/*
 * SrmTapeSetClose
 *		Wait for all I/O of the set, then close and delete the workfiles.
 *		With in_abort, never ERRORs (see SrmDiskSetClose).
 */
void
SrmTapeSetClose(SrmTapeSet *ts, bool in_abort)
{
	if (ts->io)
		SrmIoDrain(ts->io);
	if (ts->disks)
	{
		/* what the disks gave this sort refreshes their bandwidths */
		if (!in_abort)
			SrmDiskSpeedsLearn(ts->disks, ts->use);
		SrmDiskSetClose(ts->disks, in_abort);
	}
	/* at abort fd.c deletes them with the resource owner */
	if (!in_abort)
	{
		if (ts->meta_blocks.vfd >= 0)
			FileClose(ts->meta_blocks.vfd);
		if (ts->meta_forecast.vfd >= 0)
			FileClose(ts->meta_forecast.vfd);
		if (ts->meta_keys.vfd >= 0)
			FileClose(ts->meta_keys.vfd);
	}
	ts->meta_blocks.vfd = -1;
	ts->meta_forecast.vfd = -1;
	ts->meta_keys.vfd = -1;
}

/*
 * The page cache slots of a paged run's arrays in use: the block
 * references are visited at the forecast frontier, at the block being
 * consumed and (DSM) at the superblock being read; the forecast list only
 * at the frontier.
 */
#define SRM_BLOCK_PAGE_SLOTS	4
#define SRM_FORECAST_PAGE_SLOTS 2

/*
 * SrmTapePageMeta
 *		From now on, create runs whose bookkeeping lives in metadata
 *		workfiles (on the first disk), paged in while they are in use.
 *		By-reference forecast keys (no normalized form) go to a third file,
 *		their entries holding their positions.
 */
void
SrmTapePageMeta(SrmTapeSet *ts)
{
	if (ts->page_meta)
		return;
	if (SrmTapeKeysByRef(ts))
	{
		ts->meta_keys.vfd = SrmDiskCreateAuxFile(ts->disks, 0);
		ts->meta_keys.eof = 0;
	}
	SrmMetaFileInit(&ts->meta_blocks, SrmDiskCreateAuxFile(ts->disks, 0),
					sizeof(SrmBlockRef), SRM_BLOCK_PAGE_SLOTS, ts->cxt);
	SrmMetaFileInit(&ts->meta_forecast, SrmDiskCreateAuxFile(ts->disks, 0),
					sizeof(SrmForecastEntry), SRM_FORECAST_PAGE_SLOTS, ts->cxt);
	ts->page_meta = true;
}

/*
 * SrmRunOpenBytes
 *		Memory a paged run's bookkeeping takes while it is written or
 *		merged (its page caches); 0 for runs kept in memory.
 */
Size
SrmRunOpenBytes(SrmTapeSet *ts)
{
	if (!ts->page_meta)
		return 0;
	/* and the two caches' allocation overhead */
	return SrmMetaCacheBytes(&ts->meta_blocks) +
		SrmMetaCacheBytes(&ts->meta_forecast) + 2 * MAXIMUM_ALIGNOF + 32;
}

/*
 * SrmTapeMetaBytes
 *		Bytes of bookkeeping written to the metadata files so far.
 */
int64
SrmTapeMetaBytes(SrmTapeSet *ts)
{
	if (!ts->page_meta)
		return 0;
	return ts->meta_blocks.eof * ts->meta_blocks.entsz +
		ts->meta_forecast.eof * ts->meta_forecast.entsz +
		(ts->meta_keys.vfd >= 0 ? ts->meta_keys.eof : 0);
}

/*
 * SrmRunForecastKey
 *		The key of forecast entry e (of run) as a Datum.  A paged run's
 *		by-reference key is read from the keys file into *buf (grown in cxt
 *		as needed; valid until the next call with the same buffer).
 */
Datum
SrmRunForecastKey(SrmTapeSet *ts, SrmRun *run, const SrmForecastEntry *e,
				  char **buf, Size *bufsize, MemoryContext cxt)
{
	if (!run->paged || e->isnull || !SrmTapeKeysByRef(ts))
		return e->key;
	return PointerGetDatum(SrmKeyFileRead(&ts->meta_keys, (off_t) e->key,
										  buf, bufsize, cxt));
}

/*
 * SrmRunCloseMeta
 *		A paged run is not in use for now: write back and free its caches.
 */
void
SrmRunCloseMeta(SrmTapeSet *ts, SrmRun *run)
{
	if (!run->paged)
		return;
	SrmPagedClose(&ts->meta_blocks, &run->pblocks, true);
	SrmPagedClose(&ts->meta_forecast, &run->pforecast, true);
}

/*
 * stripe_index
 *		The index in ts->stripes of a stripe equal to st (disks, period and
 *		pattern), appended if there is none.
 */
static int
stripe_index(SrmTapeSet *ts, const SrmStripe *st)
{
	int			i;

	for (i = 0; i < ts->nstripes; i++)
	{
		const SrmStripe *o = &ts->stripes[i];

		if (o->first == st->first && o->ndisks == st->ndisks &&
			o->width == st->width &&
			memcmp(o->pattern, st->pattern, st->width) == 0)
			return i;
	}
	if (ts->nstripes > PG_UINT8_MAX)
		elog(ERROR, "srmsort: too many stripes in one sort");
	ts->stripes = repalloc(ts->stripes, (ts->nstripes + 1) * sizeof(SrmStripe));
	ts->stripes[ts->nstripes] = *st;
	return ts->nstripes++;
}

/*
 * SrmTapeStripeFor
 *		The index in ts->stripes of this set's stripe over disks first ..
 *		first + ndisks - 1 (ndisks 0: all), built from the set's weights for
 *		its budget the first time.  Looked up by content, so that a stripe
 *		adopted from another process's runs is never taken for new runs.
 */
int
SrmTapeStripeFor(SrmTapeSet *ts, int first, int ndisks)
{
	SrmStripe	st;

	if (ndisks == 0 || (first == 0 && ndisks == ts->ndisks))
		return 0;
	SrmStripeBuild(&st, ts->disks->weights + first, ndisks, ts->maxwidth);
	st.first = first;
	return stripe_index(ts, &st);
}

/*
 * SrmTapeStripeAdopt
 *		The index in ts->stripes of st, the stripe another process wrote a
 *		run with (runexport.c), added if this set has none equal.  The
 *		stripe must lie within the set's disks.
 */
int
SrmTapeStripeAdopt(SrmTapeSet *ts, const SrmStripe *st)
{
	int			j;

	if (st->ndisks < 1 || st->first < 0 || st->first + st->ndisks > ts->ndisks ||
		st->width < st->ndisks || st->width > SRM_MAX_STRIPE)
		elog(ERROR, "srmsort: a run's stripe (disks %d..%d, period %d) does not fit the %d disks of this sort",
			 st->first, st->first + st->ndisks - 1, st->width, ts->ndisks);
	for (j = 0; j < st->width; j++)
		if (st->pattern[j] >= st->ndisks)
			elog(ERROR, "srmsort: a run's stripe names disk %d of %d",
				 st->pattern[j], st->ndisks);
	return stripe_index(ts, st);
}

/*
 * SrmTapeRandomStart
 *		A start position in the stripe of new runs, drawn uniformly at
 *		random.
 */
int
SrmTapeRandomStart(SrmTapeSet *ts)
{
	int			st = SrmTapeStripeFor(ts, ts->run_first, ts->run_ndisks);

	return (int) pg_prng_uint64_range(&ts->prng, 0, ts->stripes[st].width - 1);
}

/*
 * SrmRunCreate
 *		An empty run whose block 0 lies at position start of its stripe,
 *		with its own memory context.
 */
SrmRun *
SrmRunCreate(SrmTapeSet *ts, int start)
{
	MemoryContext old = MemoryContextSwitchTo(ts->cxt);
	SrmRun	   *run;

	/* thousands of runs in a small budget: keep the header one 128-byte chunk */
	StaticAssertStmt(sizeof(SrmRun) <= 128, "SrmRun outgrew 128 bytes");
	run = palloc0(sizeof(SrmRun));

	run->start = start;
	run->first_disk = ts->run_first;
	run->ndisks = ts->run_ndisks;
	run->stripe = SrmTapeStripeFor(ts, ts->run_first, ts->run_ndisks);
	run->paged = ts->page_meta;
	run->meta_bytes = GetMemoryChunkSpace(run);
	if (!run->paged)
	{
		run->maxblocks = 16;
		run->blocks = palloc(run->maxblocks * sizeof(SrmBlockRef));
		run->maxforecast = 16;
		run->forecast = palloc(run->maxforecast * sizeof(SrmForecastEntry));
		run->meta_bytes += GetMemoryChunkSpace(run->blocks) +
			GetMemoryChunkSpace(run->forecast);
	}
	MemoryContextSwitchTo(old);
	return run;
}

/*
 * free_slot
 *		Put a slot of disk d on its free list.
 */
static void
free_slot(SrmTapeSet *ts, int d, int32 slot)
{
	if (ts->nfree[d] >= ts->freecap[d])
	{
		ts->freecap[d] *= 2;
		ts->freeslots[d] = repalloc(ts->freeslots[d],
									ts->freecap[d] * sizeof(int32));
	}
	ts->freeslots[d][ts->nfree[d]++] = slot;
	ts->slots_in_use--;
}

/*
 * SrmRunFree
 *		Release the run's remaining block slots and its memory.
 */
void
SrmRunFree(SrmTapeSet *ts, SrmRun *run)
{
	int64		i;

	/*
	 * Give back the slots still held.  The references are dropped with the
	 * run, so they are left as they are (a paged run's dead pages are not
	 * written back).
	 */
	for (i = 0; i < run->nblocks; i++)
	{
		SrmBlockRef *ref = SrmRunBlockRef(ts, run, i, false);

		if (ref->slot >= 0)
			free_slot(ts, SrmRunBlockDisk(ts, run, i), ref->slot);
	}
	if (run->paged)
	{
		SrmPagedClose(&ts->meta_blocks, &run->pblocks, false);
		SrmPagedClose(&ts->meta_forecast, &run->pforecast, false);
	}
	else
	{
		/* copied by-reference keys; normalized keys are plain integers */
		if (SrmTapeKeysByRef(ts))
			for (i = 0; i < run->nforecast; i++)
				if (!run->forecast[i].isnull)
					pfree(DatumGetPointer(run->forecast[i].key));
		pfree(run->blocks);
		pfree(run->forecast);
	}
	pfree(run);
}

/*
 * SrmTapeAllocSlot
 *		A free block slot on disk d for a block about to be written: a
 *		released one, or a new one at the end of the workfile (checked
 *		against temp_file_limit first).
 */
int32
SrmTapeAllocSlot(SrmTapeSet *ts, int d)
{
	int32		slot;

	if (ts->nfree[d] > 0 && ts->reuse_slots)
		slot = ts->freeslots[d][--ts->nfree[d]];
	else
	{
		slot = ts->nslots[d];
		if (ts->disks->nfiles > 0)
		{
			/* a shared set: this process's file, in the high bits */
			if (slot >= (1 << SRM_SLOT_FILE_SHIFT))
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("srmsort workfile on disk \"%s\" exceeds %d blocks",
								ts->disks->disks[d].spcname,
								1 << SRM_SLOT_FILE_SHIFT)));
			slot |= ts->disks->myfile << SRM_SLOT_FILE_SHIFT;
		}
		/*
		 * Account SRM_EXTEND_SLOTS slots at a time: the accounting write
		 * takes the file's inode lock, which a block write in flight holds
		 * while it copies: per slot, the backend would spin on it.
		 */
		SrmDiskExtend(ts->disks, d,
					  (off_t) (ts->nslots[d] / SRM_EXTEND_SLOTS + 1) *
					  SRM_EXTEND_SLOTS * ts->block_size);
		ts->nslots[d]++;
	}
	ts->slots_in_use++;
	if (ts->slots_in_use > ts->peak_slots_in_use)
		ts->peak_slots_in_use = ts->slots_in_use;
	return slot;
}

/*
 * SrmTapeReleaseBlock
 *		Give block blockno's slot back to its disk for reuse.  Idempotent.
 */
void
SrmTapeReleaseBlock(SrmTapeSet *ts, SrmRun *run, int64 blockno)
{
	SrmBlockRef *ref = SrmRunBlockRef(ts, run, blockno, false);

	if (ref->slot < 0)
		return;
	/* changed after all: mark its page */
	ref = SrmRunBlockRef(ts, run, blockno, true);
	free_slot(ts, SrmRunBlockDisk(ts, run, blockno), ref->slot);
	ref->slot = -1;
}

/*
 * SrmTapeAllocBuffer
 *		A block buffer in cxt, aligned for O_DIRECT.
 */
char *
SrmTapeAllocBuffer(SrmTapeSet *ts, MemoryContext cxt)
{
	return SrmTapeAllocBuffers(ts, cxt, 1, NULL);
}

/*
 * SrmTapeAllocBuffers
 *		n consecutive block buffers in one allocation, the first aligned for
 *		O_DIRECT (and so all, block sizes being multiples of the alignment):
 *		buffer i starts at the result + i * block_size.  One allocation pays
 *		the alignment once, not 4kB per buffer (at 16-32kB blocks, an eighth
 *		to a fifth of a merge's buffer memory).  *raw, if wanted, is the
 *		pointer to pfree.
 */
char *
SrmTapeAllocBuffers(SrmTapeSet *ts, MemoryContext cxt, int n, char **raw)
{
	char	   *p = MemoryContextAllocHuge(cxt, (Size) n * ts->block_size + SRM_IO_ALIGN);

	if (raw)
		*raw = p;
	return (char *) TYPEALIGN(SRM_IO_ALIGN, p);
}

/*
 * SrmTapePrepRead
 *		Prepare (not submit) the read of block blockno of run into buf.
 */
void
SrmTapePrepRead(SrmTapeSet *ts, SrmRun *run, int64 blockno, char *buf,
				SrmIo *io)
{
	SrmBlockRef *ref = SrmRunBlockRef(ts, run, blockno, false);
	int			d = SrmRunBlockDisk(ts, run, blockno);
	int			fd;
	const char *path;
	off_t		off;

	Assert(ref->slot >= 0);
	off = SrmTapeSlotPlace(ts, d, ref->slot, &fd, &path);
	SrmIoPrepRead(ts->io, io, fd, path, buf, ts->block_size, off);
	io->tag = d;
	SrmJobCountIO(d, false, ts->block_size);
	ts->blocks_read++;
	pgBufferUsage.temp_blks_read += ts->block_size / BLCKSZ;
}

/*
 * SrmTapeCheckBlock
 *		Verify that buf holds block blockno of a run.
 */
void
SrmTapeCheckBlock(SrmTapeSet *ts, SrmRun *run, int64 blockno, char *buf)
{
	SrmBlockHeader *hdr = (SrmBlockHeader *) buf;

	if (hdr->magic != SRM_BLOCK_MAGIC || hdr->blockno != (uint32) blockno ||
		hdr->used > (uint32) ts->block_size)
		ereport(ERROR, SrmTapeErrCorrupt(blockno));
}

/*
 * SrmTapeErrCorrupt
 *		The error code and message of a block that is not what was written,
 *		for use in ereport (an errdetail may follow).
 */
int
SrmTapeErrCorrupt(int64 blockno)
{
	errcode(ERRCODE_DATA_CORRUPTED);
	return errmsg("srmsort workfile block %lld of a run is corrupt",
				  (long long) blockno);
}

/*
 * SrmTapeReadBig
 *		Assemble the BIG record that begins in buf (a block of run already
 *		read): copy its first part and read its continuation blocks
 *		synchronously through *scratch (a block buffer allocated in cxt on
 *		first use).  Returns the record, allocated in cxt.  With release,
 *		the continuation blocks' slots are given back (the merge reads a
 *		run once; a random-access scan may come back).
 */
char *
SrmTapeReadBig(SrmTapeSet *ts, SrmRun *run, char *buf, char **scratch,
			   MemoryContext cxt, bool release)
{
	SrmBlockHeader *hdr = (SrmBlockHeader *) buf;
	Size		payload = ts->block_size - SRM_BLOCK_HDRSZ;
	Size		total = SrmRecSize(buf + SRM_BLOCK_HDRSZ);
	Size		done = Min(payload, total);
	char	   *big;
	uint32		c;
	SrmIo		io;

	if (*scratch == NULL)
		*scratch = SrmTapeAllocBuffer(ts, cxt);
	big = MemoryContextAllocHuge(cxt, total);
	memcpy(big, buf + SRM_BLOCK_HDRSZ, done);
	memset(&io, 0, sizeof(io));
	for (c = 1; c <= hdr->ncont; c++)
	{
		int64		blockno = hdr->blockno + c;
		Size		chunk = Min(payload, total - done);

		SrmTapePrepRead(ts, run, blockno, *scratch, &io);
		SrmIoWait(ts->io, &io);
		SrmTapeCheckBlock(ts, run, blockno, *scratch);
		memcpy(big + done, *scratch + SRM_BLOCK_HDRSZ, chunk);
		done += chunk;
		if (release)
			SrmTapeReleaseBlock(ts, run, blockno);
	}
	if (done != total)
		ereport(ERROR, SrmTapeErrCorrupt(hdr->blockno));
	return big;
}
