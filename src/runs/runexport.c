/*-------------------------------------------------------------------------
 *
 * runexport.c
 *	  Runs handed from one process to another (parallel builds).
 *
 * A participant's runs are described in a BufFile: each run's extent,
 * then its block references and forecast entries (a by-reference key as a
 * length word and its bytes).  The process that merges them imports each
 * into a run of its own tape set, in memory or paged as that set does
 * now.  Block slots stay valid: both tape sets are over the same shared
 * disks, and a slot names its process's workfile.  Which disk holds each
 * block is the writer's stripe, exported with the run: the reader's own
 * budget may build another from the same weights.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/runs/runexport.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/buffile.h"
#include "utils/datum.h"

#include "runs/runexport.h"
#include "runs/runwriter.h"

/*
 * SrmRunListRead
 *		Read len bytes of a run list from f, or ERROR.
 */
void
SrmRunListRead(BufFile *f, void *p, size_t len)
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
	x.stripe = ts->stripes[run->stripe];
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
	SrmRunListRead(f, x, sizeof(*x));
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
	if (x->ndisks != 0 &&
		(x->stripe.first != x->first_disk || x->stripe.ndisks != x->ndisks))
		elog(ERROR, "srmsort: a run over disks %d..%d comes with a stripe over %d..%d",
			 x->first_disk, x->first_disk + x->ndisks - 1, x->stripe.first,
			 x->stripe.first + x->stripe.ndisks - 1);
	run->stripe = SrmTapeStripeAdopt(ts, &x->stripe);
	run->merges = (int16) x->merges;
	for (i = 0; i < x->nblocks; i++)
	{
		SrmBlockRef ref;

		SrmRunListRead(f, &ref, sizeof(ref));
		SrmRunAddBlock(ts, run, &ref);
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

		SrmRunListRead(f, &e, sizeof(e));
		key = e.key;
		if (!e.isnull && SrmTapeKeysByRef(ts))
		{
			uint32		len;

			SrmRunListRead(f, &len, sizeof(len));
			if (kbuf == NULL || kbufsize < len)
			{
				if (kbuf != NULL)
					pfree(kbuf);
				kbufsize = Max(len, 64);
				kbuf = palloc(kbufsize);
			}
			SrmRunListRead(f, kbuf, len);
			key = PointerGetDatum(kbuf);
		}
		SrmRunAddForecast(ts, run, key, e.isnull, e.nrank, e.next_head);
	}
	run->nrecords = x->nrecords;
	run->nbytes = x->nbytes;
	if (ts->slots_in_use > ts->peak_slots_in_use)
		ts->peak_slots_in_use = ts->slots_in_use;
	SrmRunCloseMeta(ts, run);
	if (kbuf != NULL)
		pfree(kbuf);
}
