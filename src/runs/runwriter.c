/*-------------------------------------------------------------------------
 *
 * runwriter.c
 *	  Writing a striped run: blocks, forecast entries, big records.
 *
 * A writer fills the run's blocks in turn through the caller's block
 * buffers (writering.c owns them), each block's slot taken on its disk
 * (tape.c) when the block is written, so a block is always written whole.
 * Records never straddle blocks, except a record too large for one block:
 * it starts a "BIG" block and continues in "CONT" blocks of its own.
 *
 * Forecast data is produced while writing: when a block that begins
 * records is closed, the first key of its last record is appended to the
 * run's forecast list (paper §4.1.1): the normalized key the record
 * carries, or the key of the rebuilt tuple (SrmKeysGetKey0), copied into
 * the run's memory or, for a paged run, its keys file.  The inline common
 * cases of putting a record are in runwriter.h.
 *
 * IDENTIFICATION
 *	  src/runs/runwriter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/instrument.h"
#include "utils/datum.h"
#include "utils/memutils.h"

#include "base/shmem.h"
#include "runs/runwriter.h"

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
 * SrmRunAddBlock
 *		Append the block reference ref to run (a block opened by the writer,
 *		or one of an imported run).
 */
void
SrmRunAddBlock(SrmTapeSet *ts, SrmRun *run, const SrmBlockRef *ref)
{
	SrmBlockRef *dst;

	if (run->paged)
		dst = SrmPagedAppend(&ts->meta_blocks, &run->pblocks);
	else
	{
		if (run->nblocks >= run->maxblocks)
			run->blocks = grow_array(run, run->blocks, &run->maxblocks,
									 sizeof(SrmBlockRef));
		dst = &run->blocks[run->nblocks];
	}
	*dst = *ref;
	run->nblocks++;
}

/*
 * SrmRunAddForecast
 *		Append the forecast entry "key predicts block next_head" to run,
 *		copying a by-reference key into the run's memory (or its keys
 *		file).
 */
void
SrmRunAddForecast(SrmTapeSet *ts, SrmRun *run, Datum key, bool isnull,
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
	SrmBlockRef unwritten = {-1, 0};

	/* the buffer may still be on its way to disk */
	SrmIoWait(ts->io, io);

	hdr = (SrmBlockHeader *) w->bufs[w->cur];
	hdr->magic = SRM_BLOCK_MAGIC;
	hdr->used = SRM_BLOCK_HDRSZ;
	hdr->nrecords = 0;
	hdr->flags = flags;
	hdr->ncont = 0;
	hdr->blockno = (uint32) run->nblocks;
	/* its slot is taken when it is written */
	SrmRunAddBlock(ts, run, &unwritten);
	w->pos = w->bufs[w->cur] + SRM_BLOCK_HDRSZ;
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
	ref->slot = SrmTapeAllocSlot(ts, d);
	off = SrmTapeSlotPlace(ts, d, ref->slot, &fd, &path);
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

	return SrmKeysGetKey0(ts->fmt->keys,
						  SrmRecMaterializeInto(ts->fmt, rec, &w->scratch,
												ts->block_size, ts->cxt),
						  isnull);
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
		SrmRunAddForecast(w->ts, w->run, (Datum) key, false, nrank,
						  w->run->nblocks);
	else
	{
		bool		isnull;
		Datum		d = rec_forecast_key(w, rec, &isnull);

		SrmRunAddForecast(w->ts, w->run, d, isnull, 0, w->run->nblocks);
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
			SrmIoWait(w->ts->io, &w->ios[i]);
	}
	else
		SrmIoSubmit(w->ts->io);
	if (w->run->nforecast > 0)
		SrmRunForecast(w->ts, w->run, w->run->nforecast - 1, true)->next_head = -1;
	SrmRunCloseMeta(w->ts, w->run);
	if (w->scratch.data != NULL)
		pfree(w->scratch.data);
	next = w->cur;
	pfree(w);
	return next;
}
