/*-------------------------------------------------------------------------
 *
 * tape.c
 *	  Striped runs: block format, placement over the disks, block reuse.
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
 * whole (B bytes), so that O_DIRECT needs no special cases.
 *
 * Forecast data is produced while writing: when a block that begins
 * records is closed, the first key of its last record is copied into the
 * run's forecast list (memory the sorter counts against its budget).  When
 * the sorter says so, new runs keep their block references and forecast
 * lists in two metadata workfiles instead (runmeta.c).
 *
 * Tuples are seen only through the record format (record.h, which brings
 * keys.h along for the sort's key description); a forecast key without a
 * normalized form is taken from the rebuilt tuple (SrmKeysGetKey0).
 *
 * IDENTIFICATION
 *	  src/tape.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/instrument.h"
#include "storage/buffile.h"
#include "utils/datum.h"
#include "utils/memutils.h"

#include "diskspeed.h"
#include "shmem.h"
#include "srmsort.h"
#include "tape.h"

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
 * SrmTapeStripeFor
 *		The index in ts->stripes of the stripe over disks first .. first +
 *		ndisks - 1 (ndisks 0: all), built from the set's weights the first
 *		time.  Every process of a parallel build builds the same stripes
 *		from the same weights, so a run's blocks are found by all.
 */
int
SrmTapeStripeFor(SrmTapeSet *ts, int first, int ndisks)
{
	int			i;

	if (ndisks == 0 || (first == 0 && ndisks == ts->ndisks))
		return 0;
	for (i = 1; i < ts->nstripes; i++)
		if (ts->stripes[i].ndisks == ndisks && ts->stripes[i].first == first)
			return i;
	if (ts->nstripes > PG_UINT8_MAX)
		elog(ERROR, "srmsort: too many disk subsets in one sort");
	ts->stripes = repalloc(ts->stripes, (ts->nstripes + 1) * sizeof(SrmStripe));
	SrmStripeBuild(&ts->stripes[ts->nstripes], ts->disks->weights + first,
				   ndisks, ts->maxwidth);
	ts->stripes[ts->nstripes].first = first;
	return ts->nstripes++;
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
 * alloc_slot
 *		A free block slot on disk d: a released one, or a new one at the end
 *		of the workfile (checked against temp_file_limit first).
 */
static int32
alloc_slot(SrmTapeSet *ts, int d)
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
 * slot_place
 *		The stable fd, path and offset of block slot slot on disk d.
 */
static inline off_t
slot_place(SrmTapeSet *ts, int d, int32 slot, int *fd, const char **path)
{
	SrmDisk    *disk = &ts->disks->disks[d];
	int			f;

	if (likely(ts->disks->nfiles == 0))
	{
		*fd = disk->fd;
		*path = disk->path;
		return (off_t) slot * ts->block_size;
	}
	f = slot >> SRM_SLOT_FILE_SHIFT;
	*fd = disk->fds[f];
	*path = disk->paths[f];
	if (*fd < 0)
		elog(ERROR, "srmsort: workfile %d on disk %d is not open", f, d);
	return (off_t) (slot & ((1 << SRM_SLOT_FILE_SHIFT) - 1)) * ts->block_size;
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
	off = slot_place(ts, d, ref->slot, &fd, &path);
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
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("srmsort workfile block %lld of a run is corrupt",
						(long long) blockno)));
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
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("srmsort workfile block %u of a run is corrupt",
						hdr->blockno)));
	return big;
}

/*
 * grow_array
 *		Double one of an in-memory run's arrays (*max elements of elsz
 *		bytes), keeping the memory charged to its bookkeeping exact.
 */
static void *
grow_array(SrmRun *run, void *array, int64 *max, Size elsz)
{
	run->meta_bytes -= GetMemoryChunkSpace(array);
	*max *= 2;
	array = repalloc(array, *max * elsz);
	run->meta_bytes += GetMemoryChunkSpace(array);
	return array;
}

/*
 * add_forecast
 *		Append the forecast entry "key predicts block next_head" to run,
 *		copying a by-reference key into the run's memory.
 */
static void
add_forecast(SrmTapeSet *ts, SrmRun *run, Datum key, bool isnull,
			 uint8 nrank, int64 next_head)
{
	SrmForecastEntry *e;

	/*
	 * A by-reference key: its position in the keys file, or a copy in the
	 * run's memory (taken before the entry, as either may fail).
	 */
	if (!isnull && SrmTapeKeysByRef(ts))
	{
		if (run->paged)
			key = (Datum) SrmKeyFileAppend(&ts->meta_keys,
										   DatumGetPointer(key),
										   (uint32) datumGetSize(key, false,
																 ts->fmt->key0_typlen));
		else
		{
			MemoryContext old = MemoryContextSwitchTo(ts->cxt);

			key = datumCopy(key, false, ts->fmt->key0_typlen);
			run->meta_bytes += GetMemoryChunkSpace(DatumGetPointer(key));
			MemoryContextSwitchTo(old);
		}
	}

	if (run->paged)
	{
		e = SrmPagedAppend(&ts->meta_forecast, &run->pforecast);
		run->nforecast++;
		Assert(run->pforecast.n == run->nforecast);
	}
	else
	{
		if (run->nforecast >= run->maxforecast)
			run->forecast = grow_array(run, run->forecast, &run->maxforecast,
									   sizeof(SrmForecastEntry));
		e = &run->forecast[run->nforecast++];
	}
	e->key = key;
	e->next_head = (int32) next_head;
	e->isnull = isnull;
	e->nrank = nrank;
}

/*
 * SrmRunWriterBegin
 *		Start writing run through nbufs caller-owned block buffers (with
 *		their SrmIo structs), used in turn from buffer first on; two
 *		periods of the run's stripe (2D buffers, with equal weights) give
 *		full parallelism.  A buffer whose earlier write is still in flight
 *		is waited for when its turn comes.
 */
SrmRunWriter *
SrmRunWriterBegin(SrmTapeSet *ts, SrmRun *run, int nbufs, char **bufs,
				  SrmIo *ios, int first)
{
	SrmRunWriter *w = palloc0(sizeof(SrmRunWriter));

	w->ts = ts;
	w->run = run;
	w->nbufs = nbufs;
	w->bufs = bufs;
	w->ios = ios;
	w->batch = Max(Min(nbufs / 2, ts->stripes[run->stripe].width), 1);
	w->cur = first % nbufs;
	w->have_block = false;
	return w;
}

/*
 * open_block
 *		Start a new block of the run in the next free buffer.
 */
static void
open_block(SrmRunWriter *w, uint32 flags)
{
	SrmTapeSet *ts = w->ts;
	SrmRun	   *run = w->run;
	SrmBlockHeader *hdr;
	SrmIo	   *io = &w->ios[w->cur];

	/* the buffer may still be on its way to disk */
	if (io->state != SRM_IO_IDLE)
		SrmIoWait(ts->io, io);

	if (run->paged)
	{
		SrmBlockRef *ref = SrmPagedAppend(&ts->meta_blocks, &run->pblocks);

		ref->slot = -1;
		ref->nrecords = 0;
	}
	else
	{
		if (run->nblocks >= run->maxblocks)
			run->blocks = grow_array(run, run->blocks, &run->maxblocks,
									 sizeof(SrmBlockRef));
		run->blocks[run->nblocks].slot = -1;
		run->blocks[run->nblocks].nrecords = 0;
	}

	hdr = (SrmBlockHeader *) w->bufs[w->cur];
	hdr->magic = SRM_BLOCK_MAGIC;
	hdr->used = SRM_BLOCK_HDRSZ;
	hdr->nrecords = 0;
	hdr->flags = flags;
	hdr->ncont = 0;
	hdr->blockno = (uint32) run->nblocks;
	w->pos = w->bufs[w->cur] + SRM_BLOCK_HDRSZ;
	run->nblocks++;
	w->have_block = true;
}

/*
 * write_block
 *		Issue the write of the block in the current buffer and move on to
 *		the next buffer.
 */
static void
write_block(SrmRunWriter *w)
{
	SrmTapeSet *ts = w->ts;
	SrmRun	   *run = w->run;
	SrmBlockHeader *hdr = (SrmBlockHeader *) w->bufs[w->cur];
	int64		blockno = hdr->blockno;
	SrmBlockRef *ref = SrmRunBlockRef(ts, run, blockno, true);
	int			d;
	int			fd;
	const char *path;
	off_t		off;

	hdr->used = (uint32) (w->pos - w->bufs[w->cur]);
	ref->nrecords = hdr->nrecords;
	d = SrmRunBlockDisk(ts, run, blockno);
	ref->slot = alloc_slot(ts, d);
	off = slot_place(ts, d, ref->slot, &fd, &path);
	SrmIoPrepWrite(ts->io, &w->ios[w->cur], fd, path, w->bufs[w->cur],
				   ts->block_size, off);
	w->ios[w->cur].tag = d;

	/*
	 * Submit a period of the stripe's writes at once (half the buffers of
	 * the usual two periods): a buffered write usually goes to io_uring's
	 * worker, and waking it (another CPU) costs more than the submission;
	 * one wake-up then serves the batch.  Reusing a buffer waits for its
	 * write, which submits it if it is still held.
	 */
	if (++w->unsubmitted >= w->batch)
	{
		SrmIoSubmit(ts->io);
		w->unsubmitted = 0;
	}

	SrmJobCountIO(d, true, ts->block_size);
	ts->blocks_written++;
	run->nbytes += ts->block_size;
	pgBufferUsage.temp_blks_written += ts->block_size / BLCKSZ;

	w->cur = (w->cur + 1) % w->nbufs;
	w->have_block = false;
}

/*
 * rec_forecast_key
 *		The first key of the record at rec, for a forecast entry: rebuilt
 *		into the writer's scratch tuple, whose memory the key may point to.
 */
static Datum
rec_forecast_key(SrmRunWriter *w, const char *rec, bool *isnull)
{
	SrmTapeSet *ts = w->ts;
	Size		len = SrmRecTupleLen(ts->fmt, rec);

	if (w->scratch_size < len)
	{
		if (w->scratch != NULL)
			pfree(w->scratch);
		w->scratch_size = Max(len, 256);
		w->scratch = MemoryContextAllocHuge(ts->cxt, w->scratch_size);
	}
	SrmRecMaterialize(ts->fmt, rec, w->scratch);
	return SrmKeysGetKey0(ts->fmt->keys, w->scratch, isnull);
}

/*
 * add_rec_forecast
 *		Record the forecast entry of the record at rec (key and nrank if
 *		normalized): it predicts the head block to be opened next.
 */
static void
add_rec_forecast(SrmRunWriter *w, const char *rec, uint64 key, uint8 nrank)
{
	if (w->ts->normalized)
		add_forecast(w->ts, w->run, (Datum) key, false, nrank,
					 w->run->nblocks);
	else
	{
		bool		isnull;
		Datum		d = rec_forecast_key(w, rec, &isnull);

		add_forecast(w->ts, w->run, d, isnull, 0, w->run->nblocks);
		/* a BIG record's tuple: not kept */
		if (w->scratch_size > (Size) w->ts->block_size)
		{
			pfree(w->scratch);
			w->scratch = NULL;
			w->scratch_size = 0;
		}
	}
}

/*
 * close_head_block
 *		Finish a block that begins records: record its forecast entry (the
 *		key of its last record, predicting the block after it) and write it.
 */
static void
close_head_block(SrmRunWriter *w)
{
	add_rec_forecast(w, w->last_rec, w->last_key, w->last_nrank);
	write_block(w);
}

/*
 * put_big
 *		Write a record too large for one block over a BIG block and as many
 *		CONT blocks as it needs.
 */
static void
put_big(SrmRunWriter *w, const char *rec, Size total, uint64 nkey,
		uint8 nrank)
{
	SrmTapeSet *ts = w->ts;
	Size		payload = ts->block_size - SRM_BLOCK_HDRSZ;
	Size		done = 0;
	uint32		ncont = (uint32) ((total + payload - 1) / payload - 1);
	bool		first = true;

	while (done < total)
	{
		Size		chunk = Min(payload, total - done);

		open_block(w, first ? SRM_BLOCK_BIG : SRM_BLOCK_CONT);
		if (first)
		{
			SrmBlockHeader *hdr = (SrmBlockHeader *) w->bufs[w->cur];

			hdr->nrecords = 1;
			hdr->ncont = ncont;
		}
		memcpy(w->pos, rec + done, chunk);
		w->pos += chunk;
		done += chunk;
		first = false;
		write_block(w);
	}

	/* the key of the big record predicts the next head block */
	add_rec_forecast(w, rec, nkey, nrank);
}

/*
 * record_space
 *		Room for a record of recsz bytes in the current block, a new one if
 *		need be; false if the record needs BIG blocks (the current block is
 *		closed then).
 */
static bool
record_space(SrmRunWriter *w, Size recsz)
{
	SrmTapeSet *ts = w->ts;

	if (recsz > ts->block_size - SRM_BLOCK_HDRSZ)
	{
		if (w->have_block)
			close_head_block(w);
		return false;
	}
	if (!w->have_block)
		open_block(w, 0);
	else if (w->pos + recsz > w->bufs[w->cur] + ts->block_size)
	{
		close_head_block(w);
		open_block(w, 0);
	}
	return true;
}

/*
 * SrmRunWriterPutTuple
 *		Append a tuple of len bytes to the run, with its normalized first
 *		key (if the sort has them); SrmRunWriterPut's way for records that
 *		are not short and plain or need a new block.
 */
void
SrmRunWriterPutTuple(SrmRunWriter *w, const void *tuple, uint32 len,
					 uint64 key, uint8 nrank)
{
	SrmTapeSet *ts = w->ts;
	Size		room = SrmRunWriterRoom(w);
	Size		recsz = SrmRecEncode(ts->fmt, w->pos, room, tuple, len, key,
									 nrank);

	if (recsz > room)
	{
		/* a new block, or BIG blocks */
		if (!record_space(w, recsz))
		{
			char	   *rec = MemoryContextAllocHuge(CurrentMemoryContext, recsz);

			SrmRecEncode(ts->fmt, rec, recsz, tuple, len, key, nrank);
			put_big(w, rec, recsz, key, nrank);
			pfree(rec);
			w->run->nrecords++;
			return;
		}
		SrmRecEncode(ts->fmt, w->pos, recsz, tuple, len, key, nrank);
	}
	SrmRunWriterPlaced(w, recsz, key, nrank);
}

/*
 * SrmRunWriterPutRecord
 *		Append a record of reclen bytes as it is (an intermediate merge's
 *		output), with its normalized first key; SrmRunWriterAppend's way
 *		when it needs a new block.
 */
void
SrmRunWriterPutRecord(SrmRunWriter *w, const char *rec, Size reclen,
					  uint64 key, uint8 nrank)
{
	if (!record_space(w, reclen))
	{
		put_big(w, rec, reclen, key, nrank);
		w->run->nrecords++;
		return;
	}
	SrmRecCopy(w->pos, rec, reclen);
	SrmRunWriterPlaced(w, reclen, key, nrank);
}

/*
 * SrmRunWriterEnd
 *		Write the last block and, with wait, wait until every block of the
 *		run is on disk; else submit what is left and return at once (the
 *		caller waits for the buffers before anything reads the run or
 *		frees them).  The last forecast entry predicts nothing.  Returns
 *		the buffer a writer that follows through the same buffers should
 *		start with: the oldest.
 */
int
SrmRunWriterEnd(SrmRunWriter *w, bool wait)
{
	int			i;
	int			next;

	if (w->have_block)
		close_head_block(w);
	if (wait)
	{
		for (i = 0; i < w->nbufs; i++)
			if (w->ios[i].state != SRM_IO_IDLE)
				SrmIoWait(w->ts->io, &w->ios[i]);
	}
	else
		SrmIoSubmit(w->ts->io);
	if (w->run->nforecast > 0)
		SrmRunForecast(w->ts, w->run, w->run->nforecast - 1, true)->next_head = -1;
	SrmRunCloseMeta(w->ts, w->run);
	if (w->scratch != NULL)
		pfree(w->scratch);
	next = w->cur;
	pfree(w);
	return next;
}

/* ---------- runs handed between processes ---------- */

/*
 * read_exact
 *		Read len bytes from f, or ERROR.
 */
static void
read_exact(BufFile *f, void *p, size_t len)
{
	size_t		got = BufFileRead(f, p, len);

	if (got != len)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from srmsort run list: read only %zu of %zu bytes",
						got, len)));
}

/*
 * SrmRunExport
 *		Write run's extent, block references and forecast entries to f
 *		(by-reference keys as a length word and their bytes).
 */
void
SrmRunExport(SrmTapeSet *ts, SrmRun *run, BufFile *f)
{
	SrmRunExtent x;
	char	   *kbuf = NULL;
	Size		kbufsize = 0;
	int64		i;

	memset(&x, 0, sizeof(x));
	x.start = run->start;
	x.first_disk = run->first_disk;
	x.ndisks = run->ndisks;
	x.merges = run->merges;
	x.nblocks = run->nblocks;
	x.nrecords = run->nrecords;
	x.nbytes = run->nbytes;
	x.nforecast = run->nforecast;
	BufFileWrite(f, &x, sizeof(x));
	for (i = 0; i < run->nblocks; i++)
	{
		SrmBlockRef ref = *SrmRunBlockRef(ts, run, i, false);

		BufFileWrite(f, &ref, sizeof(ref));
	}
	for (i = 0; i < run->nforecast; i++)
	{
		SrmForecastEntry e = *SrmRunForecast(ts, run, i, false);

		if (!e.isnull && SrmTapeKeysByRef(ts))
		{
			Datum		key = SrmRunForecastKey(ts, run, &e, &kbuf, &kbufsize,
											   CurrentMemoryContext);
			uint32		len = (uint32) datumGetSize(key, false, ts->fmt->key0_typlen);

			e.key = (Datum) 0;
			BufFileWrite(f, &e, sizeof(e));
			BufFileWrite(f, &len, sizeof(len));
			BufFileWrite(f, DatumGetPointer(key), len);
		}
		else
			BufFileWrite(f, &e, sizeof(e));
	}
	SrmRunCloseMeta(ts, run);
	if (kbuf != NULL)
		pfree(kbuf);
}

/*
 * SrmRunImportExtent
 *		Read the extent of the next run in f.
 */
void
SrmRunImportExtent(BufFile *f, SrmRunExtent *x)
{
	read_exact(f, x, sizeof(*x));
}

/*
 * SrmRunImport
 *		Fill run (new and empty) with the run of extent x whose block
 *		references and forecast entries follow in f.
 */
void
SrmRunImport(SrmTapeSet *ts, SrmRun *run, const SrmRunExtent *x, BufFile *f)
{
	char	   *kbuf = NULL;
	Size		kbufsize = 0;
	int64		i;

	run->start = (int16) x->start;
	run->first_disk = (uint8) x->first_disk;
	run->ndisks = (uint8) x->ndisks;
	run->stripe = SrmTapeStripeFor(ts, x->first_disk, x->ndisks);
	run->merges = (int16) x->merges;
	for (i = 0; i < x->nblocks; i++)
	{
		SrmBlockRef ref;
		SrmBlockRef *dst;

		read_exact(f, &ref, sizeof(ref));
		if (run->paged)
			dst = SrmPagedAppend(&ts->meta_blocks, &run->pblocks);
		else
		{
			if (run->nblocks >= run->maxblocks)
				run->blocks = grow_array(run, run->blocks, &run->maxblocks,
										 sizeof(SrmBlockRef));
			dst = &run->blocks[run->nblocks];
		}
		*dst = ref;
		run->nblocks++;
		if (ref.slot >= 0)
		{
			ts->slots_in_use++;
			ts->blocks_written++;
		}
	}
	for (i = 0; i < x->nforecast; i++)
	{
		SrmForecastEntry e;
		Datum		key;

		read_exact(f, &e, sizeof(e));
		key = e.key;
		if (!e.isnull && SrmTapeKeysByRef(ts))
		{
			uint32		len;

			read_exact(f, &len, sizeof(len));
			if (kbuf == NULL || kbufsize < len)
			{
				if (kbuf != NULL)
					pfree(kbuf);
				kbufsize = Max(len, 64);
				kbuf = palloc(kbufsize);
			}
			read_exact(f, kbuf, len);
			key = PointerGetDatum(kbuf);
		}
		add_forecast(ts, run, key, e.isnull, e.nrank, e.next_head);
	}
	run->nrecords = x->nrecords;
	run->nbytes = x->nbytes;
	if (ts->slots_in_use > ts->peak_slots_in_use)
		ts->peak_slots_in_use = ts->slots_in_use;
	SrmRunCloseMeta(ts, run);
	if (kbuf != NULL)
		pfree(kbuf);
}
