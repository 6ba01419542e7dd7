/*-------------------------------------------------------------------------
 *
 * dsmread.c
 *	  Reading a merge's runs the DSM way (the disk-striped baseline, §2.4).
 *
 * Runs are striped from disk 0, and each run reads D consecutive blocks
 * (one per disk: a superblock) at a time into one of its two superblock
 * buffers, double-buffered: while the merge consumes one superblock, the
 * next one is in flight.  On disks striped by weight (placement.c) a
 * superblock is a period of the stripe: L blocks, n_d of them on disk d.  merge.c asks for each run's next block
 * (SrmDsmBlock) where an SRM merge would consult its forecasts.
 *
 * IDENTIFICATION
 *	  src/merge/dsmread.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "merge/dsmread.h"

/* superblock buffers not holding any block */
#define SRM_NO_SUPER	(PG_INT64_MAX / 2)

typedef struct SrmDsmRun
{
	SrmRun	   *run;
	char	   *super[2];		/* two superblocks of D buffers */
	SrmIo	   *io[2];			/* their reads */
	int64		super_first[2]; /* first block index of each superblock */
	int			cur_super;
} SrmDsmRun;

struct SrmDsmReader
{
	SrmTapeSet *ts;
	int			ndisks;			/* blocks of a superblock: the stripe's L */
	int			nruns;
	SrmDsmRun  *runs;
	SrmMergeCounters *counters;
	/* a superblock refill waiting until the last tuple is consumed */
	int			refill_run;
	int			refill_super;
	int64		refill_first;
};

/*
 * SrmDsmBegin
 *		See dsmread.h.
 */
SrmDsmReader *
SrmDsmBegin(SrmTapeSet *ts, SrmRun **runs, int nruns,
			SrmMergeCounters *counters)
{
	SrmDsmReader *d = palloc0(sizeof(SrmDsmReader));
	int			D = SrmTapeWidth(ts);
	char	   *bufmem;
	int			r,
				s;

	d->ts = ts;
	d->ndisks = D;
	d->nruns = nruns;
	d->counters = counters;
	d->refill_run = -1;
	d->runs = palloc0(Max(nruns, 1) * sizeof(SrmDsmRun));
	bufmem = SrmTapeAllocBuffers(ts, CurrentMemoryContext, 2 * D * nruns, NULL);
	for (r = 0; r < nruns; r++)
	{
		d->runs[r].run = runs[r];
		for (s = 0; s < 2; s++)
		{
			d->runs[r].super[s] = bufmem + (Size) (2 * r + s) * D * ts->block_size;
			d->runs[r].io[s] = palloc0(D * sizeof(SrmIo));
			d->runs[r].super_first[s] = SRM_NO_SUPER;
		}
	}
	return d;
}

/* Buffer i of superblock s of run dr. */
static inline char *
super_buf(SrmDsmReader *d, SrmDsmRun *dr, int s, int i)
{
	return dr->super[s] + (Size) i * d->ts->block_size;
}

/* Wait until the read into superblock s, buffer i of run dr is done. */
static void
wait_super(SrmDsmReader *d, SrmDsmRun *dr, int s, int i)
{
	SrmIoWait(d->ts->io, &dr->io[s][i]);
}

/*
 * read_super
 *		Issue the reads of the superblock of run r that begins at block
 *		first into its superblock buffers s: one striped read of D blocks
 *		(L, weighted).
 */
static void
read_super(SrmDsmReader *d, int r, int s, int64 first)
{
	SrmDsmRun  *dr = &d->runs[r];
	int			i;
	int			issued = 0;

	dr->super_first[s] = first;
	for (i = 0; i < d->ndisks && first + i < dr->run->nblocks; i++)
	{
		/* continuation blocks of a BIG record may be consumed already */
		if (SrmRunBlockRef(d->ts, dr->run, first + i, false)->slot < 0)
			continue;
		SrmTapePrepRead(d->ts, dr->run, first + i, super_buf(d, dr, s, i),
						&dr->io[s][i]);
		issued++;
	}
	if (issued > 0)
	{
		SrmIoSubmit(d->ts->io);
		d->counters->parallel_reads++;
	}
}

/*
 * SrmDsmBlock
 *		Switch superblocks and issue the read of the one after as the
 *		current one is used up; see dsmread.h.
 */
char *
SrmDsmBlock(SrmDsmReader *d, int r, int64 want, SrmIo **io)
{
	SrmDsmRun  *dr = &d->runs[r];
	int			D = d->ndisks;
	int			s = dr->cur_super;
	int			o = 1 - s;
	int			i;

	if (want >= dr->super_first[s] && want < dr->super_first[s] + D)
	{
		*io = &dr->io[s][want - dr->super_first[s]];
		return super_buf(d, dr, s, want - dr->super_first[s]);
	}
	if (want >= dr->super_first[o] && want < dr->super_first[o] + D)
	{
		int64		ahead = dr->super_first[o] + D;

		/*
		 * Superblock s is used up; move to the other one.  s may still hold
		 * the tuple returned last, so its refill waits for the next call.
		 */
		dr->cur_super = o;
		dr->super_first[s] = SRM_NO_SUPER;
		if (ahead < dr->run->nblocks)
		{
			Assert(d->refill_run < 0);
			d->refill_run = r;
			d->refill_super = s;
			d->refill_first = ahead;
		}
		*io = &dr->io[o][want - dr->super_first[o]];
		return super_buf(d, dr, o, want - dr->super_first[o]);
	}

	/*
	 * The run's first block, or a BIG record's continuation blocks (read on
	 * their own) skipped past both superblocks: (re)start the stream at
	 * want's superblock.  The tuple returned last is the BIG record, in its
	 * own memory.
	 */
	for (i = 0; i < D; i++)
	{
		wait_super(d, dr, 0, i);
		wait_super(d, dr, 1, i);
	}
	dr->cur_super = 0;
	read_super(d, r, 0, want - want % D);
	dr->super_first[1] = SRM_NO_SUPER;
	if (want - want % D + D < dr->run->nblocks)
		read_super(d, r, 1, want - want % D + D);
	*io = &dr->io[0][want % D];
	return super_buf(d, dr, 0, want % D);
}

/*
 * SrmDsmRefill
 *		See dsmread.h.
 */
void
SrmDsmRefill(SrmDsmReader *d)
{
	if (d->refill_run >= 0)
	{
		read_super(d, d->refill_run, d->refill_super, d->refill_first);
		d->refill_run = -1;
	}
}

/*
 * SrmDsmEnd
 *		See dsmread.h.
 */
void
SrmDsmEnd(SrmDsmReader *d)
{
	int			r,
				i;

	for (r = 0; r < d->nruns; r++)
		for (i = 0; i < d->ndisks; i++)
		{
			wait_super(d, &d->runs[r], 0, i);
			wait_super(d, &d->runs[r], 1, i);
		}
}
