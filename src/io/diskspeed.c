/*-------------------------------------------------------------------------
 *
 * diskspeed.c
 *	  The workfile disks' bandwidth: measured once, then learned.
 *
 * Weighted striping (placement.c) gives each disk a share of the blocks in
 * proportion to its bandwidth.  As NOW-Sort does, the bandwidth is
 * measured rather than asked for: the first sort that uses a tablespace
 * (with srmsort.disk_weights = auto and srmsort preloaded) writes, then
 * reads, a probe file of 1MB requests, four in flight per disk, on all the
 * disks it has to measure at once, for SRM_PROBE_MS each way; the
 * requests completed after SRM_PROBE_WARMUP_MS give the figure (a disk, a
 * cloud volume or the kernel's throttle may let a burst through after
 * idling).  That costs well under a second, once per tablespace while the
 * server runs; the figures are kept in shared memory (shmem.c) and shown
 * by srmsort_disks.  Only one backend measures a disk at a time; others
 * meanwhile treat it as unknown.
 *
 * The probe uses O_DIRECT, or the page cache would be measured instead: a
 * disk whose filesystem refuses O_DIRECT is not measured (it weighs the
 * mean of the others).  It writes at most SRM_PROBE_MAX_BYTES, and at most
 * a quarter of temp_file_limit (none below four requests' worth).  An I/O
 * error of the probe leaves the disk unmeasured and says so at DEBUG1: the
 * sort's own I/O will report what is wrong, in its own words.
 *
 * Afterwards each sort with direct I/O over several disks, striped by the
 * measured weights, refreshes the figures: its bytes read (written) on a disk over the time it had a read
 * (a write) of the disk in flight is what the disk gave it, against the
 * other disks (SrmDiskSpeedsLearn), and the learned figure moves a
 * quarter of the way there -- when the sort moved enough data to tell
 * (SRM_LEARN_MIN_BYTES in SRM_LEARN_MIN_MS or more).  Buffered I/O says
 * more about the page cache than about the disk, and does not refresh.
 *
 * IDENTIFICATION
 *	  src/io/diskspeed.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/pg_prng.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "base/settings.h"
#include "base/shmem.h"
#include "io/aio.h"
#include "io/diskspeed.h"

#define SRM_PROBE_CHUNK			(1024 * 1024)
#define SRM_PROBE_DEPTH			4
#define SRM_PROBE_MS			300.0
#define SRM_PROBE_WARMUP_MS		100.0
#define SRM_PROBE_MAX_BYTES		((int64) 64 * 1024 * 1024)

#define SRM_LEARN_MIN_BYTES		((int64) 32 * 1024 * 1024)
#define SRM_LEARN_MIN_MS		500.0

/* One disk being measured. */
typedef struct SrmProbe
{
	int			disk;			/* index in the set */
	File		vfd;
	int			fd;
	bool		failed;
	int64		extent;			/* bytes written so far */
	int64		next;			/* offset of the next request */
	/* completions in the current direction */
	int64		bytes_all;
	int64		bytes_late;		/* ... after the warm-up */
	double		last_all_ms;
	double		last_late_ms;
	double		bps[2];			/* [0] read, [1] write; 0: not measured */
	SrmIo		ios[SRM_PROBE_DEPTH];
	uint64		seq[SRM_PROBE_DEPTH];	/* issue order */
} SrmProbe;

typedef struct SrmProbeRun
{
	SrmIoSet   *io;
	SrmProbe   *probes;
	int			nprobes;
	char	   *buf;			/* one buffer for every request: the data
								 * read is not looked at */
	int64		limit;			/* bytes to write at most per disk */
	instr_time	start;			/* of the current direction */
	uint64		next_seq;
} SrmProbeRun;

/*
 * probe_done
 *		A probe request completed: count its bytes, and after the warm-up
 *		separately.  (Its result is not known yet: a failure marks the
 *		probe failed when it is collected.)
 */
static void
probe_done(SrmIo *io, double ms, void *arg)
{
	SrmProbeRun *pr = (SrmProbeRun *) arg;
	SrmProbe   *p = &pr->probes[io->tag];
	instr_time	now;
	double		at;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, pr->start);
	at = INSTR_TIME_GET_MILLISEC(now);
	p->bytes_all += io->len;
	p->last_all_ms = at;
	if (at >= SRM_PROBE_WARMUP_MS)
	{
		p->bytes_late += io->len;
		p->last_late_ms = at;
	}
}

/*
 * probe_issue
 *		Prepare the next request of probe p in its slot k, if the direction
 *		still runs (elapsed_ms) and, for writes, the probe file may grow.
 */
static void
probe_issue(SrmProbeRun *pr, SrmProbe *p, int k, bool write, double elapsed_ms)
{
	SrmIo	   *io = &p->ios[k];

	if (p->failed || elapsed_ms >= SRM_PROBE_MS)
		return;
	if (write)
	{
		if (p->next + SRM_PROBE_CHUNK > pr->limit)
			return;
		SrmIoPrepWrite(pr->io, io, p->fd, "srmsort probe", pr->buf,
					   SRM_PROBE_CHUNK, p->next);
		p->extent = Max(p->extent, p->next + SRM_PROBE_CHUNK);
	}
	else
		SrmIoPrepRead(pr->io, io, p->fd, "srmsort probe", pr->buf,
					  SRM_PROBE_CHUNK, p->next);
	io->tag = (int) (p - pr->probes);
	p->seq[k] = pr->next_seq++;
	p->next += SRM_PROBE_CHUNK;
	if (!write && p->next >= p->extent)
		p->next = 0;
}

/* Milliseconds since the direction started. */
static double
probe_elapsed(SrmProbeRun *pr)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, pr->start);
	return INSTR_TIME_GET_MILLISEC(now);
}

/*
 * probe_collect
 *		Request k of probe p is done: note a failure, and issue the next.
 */
static void
probe_collect(SrmProbeRun *pr, SrmProbe *p, int k, bool write)
{
	SrmIo	   *io = &p->ios[k];

	SrmIoWait(pr->io, io);
	if (io->result != (int) io->len)
	{
		if (!p->failed)
			ereport(DEBUG1,
					(errmsg_internal("srmsort: could not measure a workfile disk: %s of %u bytes gave %d",
									 write ? "write" : "read", io->len, io->result)));
		p->failed = true;
	}
	probe_issue(pr, p, k, write, probe_elapsed(pr));
}

/*
 * probe_direction
 *		Write (or read back) the probe files of probes[first .. first + n)
 *		for SRM_PROBE_MS, SRM_PROBE_DEPTH requests in flight on each, and
 *		set their bandwidth in that direction.
 */
static void
probe_direction(SrmProbeRun *pr, int first, int n, bool write)
{
	int			i,
				k;

	INSTR_TIME_SET_CURRENT(pr->start);
	for (i = first; i < first + n; i++)
	{
		SrmProbe   *p = &pr->probes[i];

		p->bytes_all = p->bytes_late = 0;
		p->last_all_ms = p->last_late_ms = 0;
		p->next = 0;
		for (k = 0; k < SRM_PROBE_DEPTH; k++)
			probe_issue(pr, p, k, write, 0);
	}
	for (;;)
	{
		SrmProbe   *op = NULL;
		int			ok = 0;

		/* what completed meanwhile is collected, and its slot reissued */
		for (i = first; i < first + n; i++)
			for (k = 0; k < SRM_PROBE_DEPTH; k++)
				if (pr->probes[i].ios[k].state == SRM_IO_DONE)
					probe_collect(pr, &pr->probes[i], k, write);
		SrmIoSubmit(pr->io);
		/* then wait for the oldest request in flight */
		for (i = first; i < first + n; i++)
			for (k = 0; k < SRM_PROBE_DEPTH; k++)
			{
				SrmProbe   *p = &pr->probes[i];

				if (p->ios[k].state != SRM_IO_IDLE &&
					(op == NULL || p->seq[k] < op->seq[ok]))
				{
					op = p;
					ok = k;
				}
			}
		if (op == NULL)
			break;
		probe_collect(pr, op, ok, write);
	}
	for (i = first; i < first + n; i++)
	{
		SrmProbe   *p = &pr->probes[i];
		double		bps = 0;

		if (p->bytes_late >= 2 * SRM_PROBE_CHUNK &&
			p->last_late_ms > SRM_PROBE_WARMUP_MS)
			bps = p->bytes_late / ((p->last_late_ms - SRM_PROBE_WARMUP_MS) / 1000.0);
		else if (p->last_all_ms > 0)
			bps = p->bytes_all / (p->last_all_ms / 1000.0);	/* done early */
		p->bps[write ? 1 : 0] = p->failed ? 0 : bps;
	}
}

/*
 * measure
 *		Measure the disks of set marked in todo[]: rbps[d], wbps[d] (0 if
 *		not measured).
 */
static void
measure(SrmDiskSet *set, const bool *todo, double *rbps, double *wbps)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "srmsort disk probe",
											  ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SrmProbeRun *pr = palloc0(sizeof(SrmProbeRun));
	pg_prng_state prng;
	int			d,
				i;

	pr->limit = SRM_PROBE_MAX_BYTES;
	if (temp_file_limit >= 0)
		pr->limit = Min(pr->limit, (int64) temp_file_limit * 1024 / 4);
	pr->limit -= pr->limit % SRM_PROBE_CHUNK;
	if (pr->limit < SRM_PROBE_DEPTH * SRM_PROBE_CHUNK)
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return;
	}
	pr->probes = palloc0(set->ndisks * sizeof(SrmProbe));
	pr->buf = (char *) TYPEALIGN(SRM_IO_ALIGN, palloc(SRM_PROBE_CHUNK + SRM_IO_ALIGN));
	/* data a disk cannot compress */
	pg_prng_seed(&prng, 0x5352);
	for (i = 0; i < SRM_PROBE_CHUNK / 8; i++)
		((uint64 *) pr->buf)[i] = pg_prng_uint64(&prng);
	pr->io = SrmIoSetCreate();
	pr->io->soft_errors = true;
	pr->io->on_complete = probe_done;
	pr->io->on_complete_arg = pr;

	PG_TRY();
	{
		for (d = 0; d < set->ndisks; d++)
		{
			SrmProbe   *p = &pr->probes[pr->nprobes];
			bool		direct;

			if (!todo[d])
				continue;
			p->disk = d;
			p->vfd = -1;
			p->fd = SrmDiskOpenProbe(&set->disks[d], &p->vfd, &direct);
			pr->nprobes++;
			if (!direct)
			{
				ereport(DEBUG1,
						(errmsg_internal("srmsort: workfile disk \"%s\" refuses O_DIRECT: not measured",
										 set->disks[d].spcname)));
				p->failed = true;
			}
		}
		if (pr->io->method == SRM_IO_METHOD_IO_URING)
		{
			/* all at once: each disk's own pace */
			probe_direction(pr, 0, pr->nprobes, true);
			probe_direction(pr, 0, pr->nprobes, false);
		}
		else
		{
			/* one request at a time: one disk at a time */
			for (i = 0; i < pr->nprobes; i++)
			{
				probe_direction(pr, i, 1, true);
				probe_direction(pr, i, 1, false);
			}
		}
	}
	PG_FINALLY();
	{
		/* nothing in flight may land in freed memory */
		SrmIoDrain(pr->io);
		for (i = 0; i < pr->nprobes; i++)
			SrmDiskCloseProbe(pr->probes[i].fd, -1);
	}
	PG_END_TRY();

	for (i = 0; i < pr->nprobes; i++)
	{
		SrmProbe   *p = &pr->probes[i];
		double		slow = 1.0;

		FileClose(p->vfd);
		if (srmsort_debug_slow_disk != NULL &&
			strcmp(srmsort_debug_slow_disk, set->disks[p->disk].spcname) == 0)
			slow = 8.0;
		rbps[p->disk] = p->bps[0] / slow;
		wbps[p->disk] = p->bps[1] / slow;
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/*
 * effective
 *		The bandwidth of a block written once and read once.
 */
static double
effective(double rbps, double wbps)
{
	return 1.0 / (1.0 / rbps + 1.0 / wbps);
}

/*
 * SrmDiskSpeeds
 *		See diskspeed.h.
 */
bool
SrmDiskSpeeds(SrmDiskSet *set, double *bw)
{
	int			n = set->ndisks;
	bool		todo[SRM_MAX_DISKS] = {0};
	bool		known[SRM_MAX_DISKS] = {0};
	double		rbps[SRM_MAX_DISKS] = {0};
	double		wbps[SRM_MAX_DISKS] = {0};
	int			nknown = 0;
	int			ntodo = 0;
	double		sum = 0;
	int			d;

	for (d = 0; d < n; d++)
	{
		if (SrmDiskSpeedGet(set->disks[d].spcOid, &rbps[d], &wbps[d]))
			known[d] = true;
		else if (SrmDiskSpeedClaim(set->disks[d].spcOid))
		{
			todo[d] = true;
			ntodo++;
		}
	}
	if (ntodo > 0)
	{
		PG_TRY();
		{
			measure(set, todo, rbps, wbps);
		}
		PG_FINALLY();
		{
			/* the claims end, measured or not */
			for (d = 0; d < n; d++)
				if (todo[d])
					SrmDiskSpeedPut(set->disks[d].spcOid, rbps[d], wbps[d], false);
		}
		PG_END_TRY();
		for (d = 0; d < n; d++)
		{
			if (!todo[d] || !(rbps[d] > 0 && wbps[d] > 0))
				continue;
			known[d] = true;
			ereport(LOG,
					(errmsg("srmsort: measured workfile disk \"%s\": read %.1f MB/s, write %.1f MB/s",
							set->disks[d].spcname, rbps[d] / 1e6, wbps[d] / 1e6)));
		}
	}
	for (d = 0; d < n; d++)
		if (known[d])
		{
			bw[d] = effective(rbps[d], wbps[d]);
			sum += bw[d];
			nknown++;
		}
	if (nknown == 0)
		return false;
	for (d = 0; d < n; d++)
		if (!known[d])
			bw[d] = sum / nknown;
	return true;
}

/*
 * SrmDiskSpeedsLearn
 *		See diskspeed.h.  A sort learns how fast its disks are against each
 *		other, not how fast they are: a completion is seen when the backend
 *		next looks, so a sort whose CPU was busy (or taken by other work)
 *		sees every disk busy longer than it was.  That error is about the
 *		same on all its disks, so the sort's figures are scaled to the sum
 *		of those known for the same disks, and each disk moves towards its
 *		part of that sum: equal disks stay where they are, a disk that
 *		slowed down loses weight to the others.  A sort on one disk teaches
 *		nothing.
 */
void
SrmDiskSpeedsLearn(SrmDiskSet *set, const SrmDiskUse *use)
{
	double		seen[2][SRM_MAX_DISKS];
	int			dir,
				d;

	/*
	 * Only a sort striped by the measured weights: with other weights the
	 * disks are busy unevenly (round robin over a fast and a slow disk
	 * leaves the fast one idle between requests), and a completion seen
	 * late then lengthens the idle disk's busy time more than the busy
	 * one's -- weights learned from round-robin sorts crept towards equal.
	 */
	if (!set->direct_io || use == NULL || set->ndisks < 2 ||
		set->weight_source != SRM_WEIGHTS_FROM_MEASURED)
		return;
	for (dir = 0; dir < 2; dir++)
	{
		double		sum_known = 0,
					sum_seen = 0;
		int			n = 0;

		for (d = 0; d < set->ndisks; d++)
		{
			double		r,
						w;

			seen[dir][d] = 0;
			if (use[d].bytes[dir] < SRM_LEARN_MIN_BYTES ||
				use[d].busy_ms[dir] < SRM_LEARN_MIN_MS ||
				!SrmDiskSpeedGet(set->disks[d].spcOid, &r, &w))
				continue;
			seen[dir][d] = use[d].bytes[dir] / (use[d].busy_ms[dir] / 1000.0);
			sum_known += dir == 0 ? r : w;
			sum_seen += seen[dir][d];
			n++;
		}
		for (d = 0; d < set->ndisks; d++)
			seen[dir][d] = (n >= 2 && sum_seen > 0) ?
				seen[dir][d] * sum_known / sum_seen : 0;
	}
	for (d = 0; d < set->ndisks; d++)
		if (seen[0][d] > 0 || seen[1][d] > 0)
			SrmDiskSpeedPut(set->disks[d].spcOid, seen[0][d], seen[1][d], true);
}
