/*-------------------------------------------------------------------------
 *
 * tape.h
 *	  Striped runs: block format, placement over the disks, block reuse,
 *	  reading blocks back (writing: runwriter.h; handing runs over:
 *	  runexport.h).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/runs/tape.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_TAPE_H
#define SRM_TAPE_H

#include "common/pg_prng.h"

#include "io/aio.h"
#include "io/disks.h"
#include "io/placement.h"
#include "keys/record.h"
#include "runs/runmeta.h"

#define SRM_BLOCK_MAGIC		0x53524d42	/* "SRMB" */

/* block flags */
#define SRM_BLOCK_BIG		0x01	/* one record begins here, continues */
#define SRM_BLOCK_CONT		0x02	/* continuation of a BIG record */

/* Every block starts with this header. */
typedef struct SrmBlockHeader
{
	uint32		magic;
	uint32		used;			/* bytes used, header included */
	uint32		nrecords;		/* records that begin in this block */
	uint32		flags;
	uint32		ncont;			/* BIG: continuation blocks that follow */
	uint32		blockno;		/* index of the block in its run */
} SrmBlockHeader;

#define SRM_BLOCK_HDRSZ		MAXALIGN(sizeof(SrmBlockHeader))

/*
 * Where one block of a run lives: its slot on the disk the run's stripe
 * gives it (SrmRunBlockDisk).  Kept small: a run's bookkeeping counts
 * against the sort's memory.
 */
typedef struct SrmBlockRef
{
	int32		slot;			/* block slot in its disk's workfile */
	uint32		nrecords;		/* records that begin in the block */
} SrmBlockRef;

/*
 * Forecast data of a run: for every block that begins records (a "head"
 * block), the first sort key of its last record.  Entry j predicts when
 * the next head block, next_head[j], begins to participate in a merge.
 */
typedef struct SrmForecastEntry
{
	Datum		key;			/* first key, or its normalized form */
	int32		next_head;		/* block index forecast by this key, or -1 */
	bool		isnull;
	uint8		nrank;			/* normalized keys: NULL rank */
} SrmForecastEntry;

/*
 * A run.  Its block references and forecast entries are arrays in memory,
 * or, once the sort's bookkeeping outgrows its share of the budget, arrays
 * in the tape set's metadata files (paged: only cached pages in memory).
 * Read them through SrmRunBlockRef and SrmRunForecast.
 */
typedef struct SrmRun
{
	int16		start;			/* block 0's position in the stripe */
	int16		merges;			/* times its tuples were merged so far */
	uint8		first_disk;		/* the run's disks: first_disk .. */
	uint8		ndisks;			/* .. + ndisks - 1; 0: all of the set */
	uint8		stripe;			/* its stripe: ts->stripes[stripe] */
	bool		paged;
	int64		nblocks;
	int64		nrecords;
	int64		nbytes;			/* bytes of blocks written */
	int64		nforecast;
	Size		meta_bytes;		/* memory held by the run's bookkeeping */
	/* in memory */
	int64		maxblocks;
	SrmBlockRef *blocks;
	int64		maxforecast;
	SrmForecastEntry *forecast;
	/* paged */
	SrmPaged	pblocks;
	SrmPaged	pforecast;
} SrmRun;

/*
 * The workfile disks of one sort, the I/O set, and block slot bookkeeping.
 */
typedef struct SrmTapeSet
{
	SrmDiskSet *disks;
	SrmIoSet   *io;
	int			ndisks;
	/*
	 * The stripes runs are written with (placement.c): [0] over all the
	 * disks, others over the disks of a participant of a parallel build.
	 */
	SrmStripe  *stripes;
	int			nstripes;
	int			maxwidth;		/* the longest period the budget allows */
	SrmDiskUse *use;			/* per disk: what this sort did on it */
	int			block_size;
	bool		normalized;		/* records carry normalized first keys */
	SrmRecFormat *fmt;			/* the records' format */
	pg_prng_state prng;
	MemoryContext cxt;
	/* new runs go to disks run_first .. + run_ndisks - 1 (0: all) */
	int			run_first;
	int			run_ndisks;
	/* per disk: slots allocated in the workfile, and the free ones */
	int32	   *nslots;
	int32	  **freeslots;
	int32	   *nfree;
	int32	   *freecap;
	bool		reuse_slots;	/* off only in fault-injection tests */
	/* runs created from now on keep their bookkeeping in these files */
	bool		page_meta;
	SrmMetaFile meta_blocks;	/* SrmBlockRef entries */
	SrmMetaFile meta_forecast;	/* SrmForecastEntry entries */
	SrmKeyFile	meta_keys;		/* by-reference forecast keys */
	int64		slots_in_use;
	int64		peak_slots_in_use;
	/* counters */
	int64		blocks_written;
	int64		blocks_read;
} SrmTapeSet;

extern int	SrmTapeWidthFor(SrmDiskSet *disks, int maxdisks);
extern SrmTapeSet *SrmTapeSetCreate(SrmDiskSet *disks, int maxdisks,
									int block_size, int run_first,
									int run_ndisks, SrmRecFormat *fmt);
extern void SrmTapeSetClose(SrmTapeSet *ts, bool in_abort);
extern int	SrmTapeRandomStart(SrmTapeSet *ts);
extern int	SrmTapeStripeFor(SrmTapeSet *ts, int first, int ndisks);
extern int	SrmTapeStripeAdopt(SrmTapeSet *ts, const SrmStripe *st);

/*
 * The stripe of the whole set: its period (the planner's "D": a merge
 * reads, and a writer keeps in flight, up to one period of blocks), and
 * disk d's share of it.
 */
static inline int
SrmTapeWidth(SrmTapeSet *ts)
{
	return ts->stripes[0].width;
}

static inline int
SrmTapeShare(SrmTapeSet *ts, int d)
{
	return ts->stripes[0].share[d];
}

/*
 * Forecast keys that are pointers (no normalized form, a by-reference
 * type): copied into a run's memory, or kept in the keys file.
 */
static inline bool
SrmTapeKeysByRef(SrmTapeSet *ts)
{
	return !ts->normalized && !ts->fmt->key0_byval;
}

extern SrmRun *SrmRunCreate(SrmTapeSet *ts, int start);
extern void SrmRunFree(SrmTapeSet *ts, SrmRun *run);
extern void SrmTapePageMeta(SrmTapeSet *ts);
extern Size SrmRunOpenBytes(SrmTapeSet *ts);
extern int64 SrmTapeMetaBytes(SrmTapeSet *ts);
extern Datum SrmRunForecastKey(SrmTapeSet *ts, SrmRun *run,
							   const SrmForecastEntry *e, char **buf,
							   Size *bufsize, MemoryContext cxt);
extern void SrmRunCloseMeta(SrmTapeSet *ts, SrmRun *run);

/*
 * Block reference i of a run; valid until the next access to the run's
 * block references.  With dirty, the caller changes it.
 */
static inline SrmBlockRef *
SrmRunBlockRef(SrmTapeSet *ts, SrmRun *run, int64 i, bool dirty)
{
	if (likely(!run->paged))
		return &run->blocks[i];
	return (SrmBlockRef *) SrmPagedAt(&ts->meta_blocks, &run->pblocks, i,
									  dirty);
}

/*
 * Forecast entry i of a run; as SrmRunBlockRef.  A paged run's
 * by-reference key is a position in the keys file: see SrmRunForecastKey.
 */
static inline SrmForecastEntry *
SrmRunForecast(SrmTapeSet *ts, SrmRun *run, int64 i, bool dirty)
{
	if (likely(!run->paged))
		return &run->forecast[i];
	return (SrmForecastEntry *) SrmPagedAt(&ts->meta_forecast,
										   &run->pforecast, i, dirty);
}

/*
 * Block i of run lives on the disk its stripe gives position start + i
 * (placement.c): with equal weights disk (start + i) mod D, D the run's
 * disks (all of the set, except for the runs of one participant of a
 * parallel build).
 */
static inline int
SrmRunBlockDisk(SrmTapeSet *ts, SrmRun *run, int64 i)
{
	return run->first_disk + SrmStripeDisk(&ts->stripes[run->stripe],
										   run->start + i);
}

extern int32 SrmTapeAllocSlot(SrmTapeSet *ts, int d);

/*
 * Memory charged per block buffer beyond its block: buffers come in one
 * allocation, aligned (SrmTapeAllocBuffers); every budget that holds
 * buffers (the merge planner, the write ring, scans) charges B + this.
 */
#define SRM_BUF_SLACK		64

/*
 * SrmTapeSlotPlace
 *		The stable fd, path and offset of block slot slot on disk d.
 */
static inline off_t
SrmTapeSlotPlace(SrmTapeSet *ts, int d, int32 slot, int *fd, const char **path)
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

extern char *SrmTapeAllocBuffer(SrmTapeSet *ts, MemoryContext cxt);
extern char *SrmTapeAllocBuffers(SrmTapeSet *ts, MemoryContext cxt, int n,
								 char **raw);
extern void SrmTapePrepRead(SrmTapeSet *ts, SrmRun *run, int64 blockno,
							char *buf, SrmIo *io);
extern void SrmTapeCheckBlock(SrmTapeSet *ts, SrmRun *run, int64 blockno,
							  char *buf);
extern int	SrmTapeErrCorrupt(int64 blockno);
extern void SrmTapeReleaseBlock(SrmTapeSet *ts, SrmRun *run, int64 blockno);
extern char *SrmTapeReadBig(SrmTapeSet *ts, SrmRun *run, char *buf,
							char **scratch, MemoryContext cxt, bool release);

#endif							/* SRM_TAPE_H */
