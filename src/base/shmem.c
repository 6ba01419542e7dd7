/*-------------------------------------------------------------------------
 *
 * shmem.c
 *	  Shared load accounting: disks, sort jobs, views.
 *
 * When srmsort is in shared_preload_libraries it keeps, in shared memory:
 *
 *	 - one entry per workfile disk (tablespace) ever used: sort jobs active
 *	   on it, bytes in flight (requests issued, not yet completed), bytes
 *	   and operations read and written, busy time (time with a request of
 *	   a job in flight, summed over the jobs), and the bandwidth learned
 *	   for it (diskspeed.c), with the backend measuring it if one is;
 *	 - one entry per backend: the sort job it runs, if any (phase,
 *	   partition, runs written, bytes written, merge pass).
 *
 * Counters are atomics, updated without locks; the lock is taken only to
 * give a new tablespace its entry, to reset, and for the bandwidths.  A job is registered when a
 * sort starts writing runs and removed when it ends -- also on error (the
 * sorter's reset callback) and at backend exit, so active-job counts never
 * drift or go negative.
 *
 * These counts are what disks.c chooses a new sort's partition of the
 * disks by (SrmDiskLoad, SrmActiveJobs).
 *
 * The shared memory of srmsort's other parts (the parallel workers'
 * facts for EXPLAIN: workerstats.c) is requested and allocated here too
 * (SrmShmemRequest), so that srmsort chains the shared memory hooks once;
 * they share this file's lock.
 *
 * Without preloading there is no shared memory: no accounting, one
 * partition, and a line in the server log (once per backend) says so; the
 * views' functions raise an error.
 *
 * IDENTIFICATION
 *	  src/base/shmem.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "commands/tablespace.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "base/compat.h"
#include "base/shmem.h"

#define SRM_SHARED_DISKS	64

typedef struct SrmSharedDisk
{
	Oid			spcoid;
	bool		used;
	int			partition;		/* partition of the last job using it */
	pg_atomic_uint32 active_jobs;
	pg_atomic_uint64 bytes_in_flight;	/* requests prepared, not completed */
	pg_atomic_uint64 bytes_read;
	pg_atomic_uint64 bytes_written;
	pg_atomic_uint64 reads;
	pg_atomic_uint64 writes;
	pg_atomic_uint64 busy_us;
	/* bandwidth learned (diskspeed.c), bytes per second; under the lock */
	double		read_bps;		/* 0: not known */
	double		write_bps;
	int			measuring_pid;	/* a backend measuring it now, or 0 */
} SrmSharedDisk;

typedef struct SrmSharedJob
{
	int			pid;			/* 0 if no job */
	int			phase;
	int			partition;
	int			ndisks;
	int			merge_pass;
	int64		runs;
	int64		bytes_written;
	TimestampTz started;
} SrmSharedJob;

typedef struct SrmShared
{
	LWLock	   *lock;
	pg_atomic_uint32 active_jobs;
	SrmSharedDisk disks[SRM_SHARED_DISKS];
	SrmSharedJob jobs[FLEXIBLE_ARRAY_MEMBER];
} SrmShared;

static SrmShared *srm_shared = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* this backend's job */
static bool job_active = false;
static int	job_ndisks = 0;
static int	job_slots[SRM_SHARED_DISKS];
/* this job's share of each disk's bytes_in_flight, given back at its end */
static uint64 job_inflight[SRM_SHARED_DISKS];
static bool exit_cb_registered = false;
static bool warned_no_shmem = false;

/* the other parts of srmsort that keep state in shared memory */
typedef struct SrmShmemClient
{
	const char *name;
	SrmShmemSizeFn size;
	SrmShmemAttachFn attach;
} SrmShmemClient;

#define SRM_SHMEM_CLIENTS	4
static SrmShmemClient clients[SRM_SHMEM_CLIENTS];
static int	nclients = 0;

PG_FUNCTION_INFO_V1(srmsort_disks);
PG_FUNCTION_INFO_V1(srmsort_activity);
PG_FUNCTION_INFO_V1(srmsort_stats_reset);

static Size
shared_size(void)
{
	return add_size(offsetof(SrmShared, jobs),
					mul_size(MaxBackends, sizeof(SrmSharedJob)));
}

static void
srm_shmem_request(void)
{
	Size		size = shared_size();
	int			i;

	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	for (i = 0; i < nclients; i++)
		size = add_size(size, CACHELINEALIGN(clients[i].size()));
	RequestAddinShmemSpace(size);
	RequestNamedLWLockTranche("srmsort", 1);
}

static void
srm_shmem_startup(void)
{
	bool		found;
	int			i;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	srm_shared = ShmemInitStruct("srmsort", shared_size(), &found);
	if (!found)
	{
		memset(srm_shared, 0, shared_size());
		srm_shared->lock = &(GetNamedLWLockTranche("srmsort"))->lock;
		pg_atomic_init_u32(&srm_shared->active_jobs, 0);
		for (i = 0; i < SRM_SHARED_DISKS; i++)
		{
			SrmSharedDisk *d = &srm_shared->disks[i];

			pg_atomic_init_u32(&d->active_jobs, 0);
			pg_atomic_init_u64(&d->bytes_in_flight, 0);
			pg_atomic_init_u64(&d->bytes_read, 0);
			pg_atomic_init_u64(&d->bytes_written, 0);
			pg_atomic_init_u64(&d->reads, 0);
			pg_atomic_init_u64(&d->writes, 0);
			pg_atomic_init_u64(&d->busy_us, 0);
		}
	}
	for (i = 0; i < nclients; i++)
	{
		void	   *mem = ShmemInitStruct(clients[i].name, clients[i].size(),
										  &found);

		clients[i].attach(mem, found, srm_shared->lock);
	}
	LWLockRelease(AddinShmemInitLock);
}

/*
 * SrmShmemInit
 *		From _PG_init: request shared memory if we are being preloaded.
 */
void
SrmShmemInit(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = srm_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = srm_shmem_startup;
}

/*
 * SrmShmemRequest
 *		See shmem.h.
 */
void
SrmShmemRequest(const char *name, SrmShmemSizeFn size, SrmShmemAttachFn attach)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	if (nclients >= SRM_SHMEM_CLIENTS)
		elog(ERROR, "srmsort: too many parts in shared memory");
	clients[nclients].name = name;
	clients[nclients].size = size;
	clients[nclients].attach = attach;
	nclients++;
}

/*
 * SrmShmemAvailable
 *		Is shared accounting available?  If not, say so once per backend.
 */
bool
SrmShmemAvailable(void)
{
	if (srm_shared != NULL)
		return true;
	if (!warned_no_shmem)
	{
		warned_no_shmem = true;
		ereport(LOG,
				(errmsg("srmsort is not in shared_preload_libraries: workfile disks are not partitioned and not monitored"),
				 errhint("Add srmsort to shared_preload_libraries and restart the server.")));
	}
	return false;
}

/*
 * disk_slot
 *		The shared entry of tablespace spcoid, created if need be; -1 if the
 *		table is full.
 */
static int
disk_slot(Oid spcoid)
{
	int			i;
	int			freeslot = -1;

	for (i = 0; i < SRM_SHARED_DISKS; i++)
		if (srm_shared->disks[i].used && srm_shared->disks[i].spcoid == spcoid)
			return i;

	LWLockAcquire(srm_shared->lock, LW_EXCLUSIVE);
	for (i = 0; i < SRM_SHARED_DISKS; i++)
	{
		SrmSharedDisk *d = &srm_shared->disks[i];

		if (d->used && d->spcoid == spcoid)
		{
			freeslot = i;
			break;
		}
		if (!d->used && freeslot < 0)
			freeslot = i;
	}
	if (freeslot >= 0 && !srm_shared->disks[freeslot].used)
	{
		srm_shared->disks[freeslot].spcoid = spcoid;
		srm_shared->disks[freeslot].used = true;
	}
	LWLockRelease(srm_shared->lock);
	return freeslot;
}

/*
 * SrmDiskLoad
 *		See shmem.h.
 */
bool
SrmDiskLoad(Oid spc, uint32 *jobs, uint64 *inflight)
{
	int			slot;

	if (srm_shared == NULL || (slot = disk_slot(spc)) < 0)
		return false;
	*jobs = pg_atomic_read_u32(&srm_shared->disks[slot].active_jobs);
	*inflight = pg_atomic_read_u64(&srm_shared->disks[slot].bytes_in_flight);
	return true;
}

/*
 * SrmActiveJobs
 *		See shmem.h; 0 without shared memory.
 */
int
SrmActiveJobs(void)
{
	int			n;

	if (srm_shared == NULL)
		return 0;
	n = (int) pg_atomic_read_u32(&srm_shared->active_jobs) - (job_active ? 1 : 0);
	return Max(n, 0);
}

/*
 * job_exit_cb
 *		Backend exit: end a job still registered.
 */
static void
job_exit_cb(int code, Datum arg)
{
	SrmJobEnd();
}

/*
 * my_job
 *		This backend's job entry, or NULL.
 */
static SrmSharedJob *
my_job(void)
{
	int			slot = SrmMyBackendSlot();

	if (srm_shared == NULL || slot < 0)
		return NULL;
	return &srm_shared->jobs[slot];
}

/*
 * SrmJobBegin
 *		Register this backend's sort job on disks spcs[0..ndisks).
 */
void
SrmJobBegin(const Oid *spcs, int ndisks, int partno)
{
	SrmSharedJob *job = my_job();
	int			i;

	if (job == NULL)
		return;
	if (job_active)
		SrmJobEnd();
	if (!exit_cb_registered)
	{
		before_shmem_exit(job_exit_cb, (Datum) 0);
		exit_cb_registered = true;
	}

	job_ndisks = Min(ndisks, SRM_SHARED_DISKS);
	for (i = 0; i < job_ndisks; i++)
	{
		job_slots[i] = disk_slot(spcs[i]);
		job_inflight[i] = 0;
		if (job_slots[i] >= 0)
		{
			pg_atomic_fetch_add_u32(&srm_shared->disks[job_slots[i]].active_jobs, 1);
			srm_shared->disks[job_slots[i]].partition = partno;
		}
	}
	pg_atomic_fetch_add_u32(&srm_shared->active_jobs, 1);
	job->phase = SRM_PHASE_RUNS;
	job->partition = partno;
	job->ndisks = ndisks;
	job->merge_pass = 0;
	job->runs = 0;
	job->bytes_written = 0;
	job->started = GetCurrentTimestamp();
	pg_write_barrier();
	job->pid = MyProcPid;
	job_active = true;
}

/*
 * SrmJobSetPhase
 *		The job moved on to a phase (and merge pass).
 */
void
SrmJobSetPhase(SrmJobPhase phase, int pass)
{
	SrmSharedJob *job = my_job();

	if (job == NULL || !job_active)
		return;
	job->phase = phase;
	job->merge_pass = pass;
}

/*
 * SrmJobAddRun
 *		The job wrote a run of bytes bytes.
 */
void
SrmJobAddRun(int64 bytes)
{
	SrmSharedJob *job = my_job();

	if (job == NULL || !job_active)
		return;
	job->runs++;
}

/*
 * SrmJobCountIO
 *		Count an I/O of bytes bytes the job prepared on its disk i; the
 *		bytes are in flight on the disk until SrmJobCountDone.
 */
void
SrmJobCountIO(int disk, bool write, int64 bytes)
{
	SrmSharedJob *job = my_job();
	SrmSharedDisk *d;

	if (job == NULL || !job_active || disk < 0 || disk >= job_ndisks ||
		job_slots[disk] < 0 || bytes <= 0)
		return;
	d = &srm_shared->disks[job_slots[disk]];
	if (write)
	{
		pg_atomic_fetch_add_u64(&d->bytes_written, bytes);
		pg_atomic_fetch_add_u64(&d->writes, 1);
		job->bytes_written += bytes;
	}
	else
	{
		pg_atomic_fetch_add_u64(&d->bytes_read, bytes);
		pg_atomic_fetch_add_u64(&d->reads, 1);
	}
	pg_atomic_fetch_add_u64(&d->bytes_in_flight, bytes);
	job_inflight[disk] += bytes;
}

/*
 * SrmJobCountDone
 *		A request of bytes bytes on the job's disk i completed after ms of
 *		service.  Never ERRORs (runs while draining I/O during abort).
 *		Completions arriving after the job ended (their bytes were given
 *		back then) or beyond what the job has in flight are not subtracted,
 *		so the shared count cannot go negative.
 */
void
SrmJobCountDone(int disk, int64 bytes, double ms)
{
	SrmSharedJob *job = my_job();
	SrmSharedDisk *d;
	uint64		give;

	if (job == NULL || !job_active || disk < 0 || disk >= job_ndisks ||
		job_slots[disk] < 0)
		return;
	d = &srm_shared->disks[job_slots[disk]];
	give = Min((uint64) Max(bytes, 0), job_inflight[disk]);
	if (give > 0)
	{
		pg_atomic_fetch_sub_u64(&d->bytes_in_flight, give);
		job_inflight[disk] -= give;
	}
	if (ms > 0)
		pg_atomic_fetch_add_u64(&d->busy_us, (uint64) (ms * 1000));
}

/*
 * SrmJobEnd
 *		Unregister this backend's job.  Idempotent, never ERRORs: it runs
 *		from reset callbacks during abort and at backend exit.
 */
void
SrmJobEnd(void)
{
	SrmSharedJob *job = my_job();
	int			i;

	if (job == NULL || !job_active)
		return;
	job_active = false;
	for (i = 0; i < job_ndisks; i++)
	{
		if (job_slots[i] < 0)
			continue;
		pg_atomic_fetch_sub_u32(&srm_shared->disks[job_slots[i]].active_jobs, 1);
		/* requests never completed (abandoned on error) leave with the job */
		if (job_inflight[i] > 0)
			pg_atomic_fetch_sub_u64(&srm_shared->disks[job_slots[i]].bytes_in_flight,
									job_inflight[i]);
		job_inflight[i] = 0;
	}
	pg_atomic_fetch_sub_u32(&srm_shared->active_jobs, 1);
	job->pid = 0;
	job->phase = SRM_PHASE_NONE;
	job_ndisks = 0;
}

/* ---------- the disks' learned bandwidth ---------- */

/*
 * SrmDiskSpeedGet
 *		The bandwidth learned for tablespace spc (bytes per second); false
 *		if none is known (or there is no shared memory).
 */
bool
SrmDiskSpeedGet(Oid spc, double *read_bps, double *write_bps)
{
	int			slot;
	bool		known;

	if (srm_shared == NULL || (slot = disk_slot(spc)) < 0)
		return false;
	LWLockAcquire(srm_shared->lock, LW_SHARED);
	*read_bps = srm_shared->disks[slot].read_bps;
	*write_bps = srm_shared->disks[slot].write_bps;
	known = *read_bps > 0 && *write_bps > 0;
	LWLockRelease(srm_shared->lock);
	return known;
}

/*
 * SrmDiskSpeedClaim
 *		Should this backend measure tablespace spc?  True, and the disk is
 *		marked as being measured by it, when no bandwidth is known and no
 *		live backend is measuring it.  The caller must SrmDiskSpeedPut.
 */
bool
SrmDiskSpeedClaim(Oid spc)
{
	int			slot;
	bool		mine = false;

	if (srm_shared == NULL || (slot = disk_slot(spc)) < 0)
		return false;
	LWLockAcquire(srm_shared->lock, LW_EXCLUSIVE);
	{
		SrmSharedDisk *d = &srm_shared->disks[slot];

		/* a claim of a backend that died measuring is stale */
		if (d->measuring_pid != 0 && d->measuring_pid != MyProcPid &&
			kill(d->measuring_pid, 0) != 0 && errno == ESRCH)
			d->measuring_pid = 0;
		if (!(d->read_bps > 0 && d->write_bps > 0) && d->measuring_pid == 0)
		{
			d->measuring_pid = MyProcPid;
			mine = true;
		}
	}
	LWLockRelease(srm_shared->lock);
	return mine;
}

/*
 * SrmDiskSpeedPut
 *		Record bandwidths for tablespace spc.  A measurement (refresh
 *		false) replaces what was known and ends this backend's claim (a
 *		figure <= 0: nothing measured, the claim ends all the same); a
 *		refresh from a sort's busy time moves what is known a quarter of
 *		the way to it, for either figure that is > 0.  Never ERRORs.
 */
void
SrmDiskSpeedPut(Oid spc, double read_bps, double write_bps, bool refresh)
{
	int			slot;
	SrmSharedDisk *d;

	if (srm_shared == NULL || (slot = disk_slot(spc)) < 0)
		return;
	d = &srm_shared->disks[slot];
	LWLockAcquire(srm_shared->lock, LW_EXCLUSIVE);
	if (!refresh)
	{
		if (read_bps > 0 && write_bps > 0)
		{
			d->read_bps = read_bps;
			d->write_bps = write_bps;
		}
		if (d->measuring_pid == MyProcPid)
			d->measuring_pid = 0;
	}
	else if (d->read_bps > 0 && d->write_bps > 0)
	{
		if (read_bps > 0)
			d->read_bps = 0.75 * d->read_bps + 0.25 * read_bps;
		if (write_bps > 0)
			d->write_bps = 0.75 * d->write_bps + 0.25 * write_bps;
	}
	LWLockRelease(srm_shared->lock);
}

/* ---------- SQL-callable functions behind the views ---------- */

static void
require_shmem(void)
{
	if (srm_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("srmsort must be loaded via shared_preload_libraries")));
}

/*
 * srmsort_disks
 *		One row per workfile disk srmsort has used since the last reset.
 */
Datum
srmsort_disks(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			i;

	require_shmem();
	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < SRM_SHARED_DISKS; i++)
	{
		SrmSharedDisk *d = &srm_shared->disks[i];
		Datum		values[12];
		bool		nulls[12] = {0};
		char		path[MAXPGPATH];
		char	   *name;
		double		rbps,
					wbps;

		if (!d->used)
			continue;
		name = OidIsValid(d->spcoid) ? get_tablespace_name(d->spcoid) : NULL;
		if (name == NULL)
			name = OidIsValid(d->spcoid) ? psprintf("(dropped %u)", d->spcoid) : "pg_default";
		TempTablespacePath(path, d->spcoid);
		values[0] = CStringGetTextDatum(name);
		values[1] = CStringGetTextDatum(path);
		values[2] = Int32GetDatum(d->partition);
		values[3] = Int32GetDatum((int32) pg_atomic_read_u32(&d->active_jobs));
		values[4] = Int64GetDatum((int64) pg_atomic_read_u64(&d->bytes_in_flight));
		values[5] = Int64GetDatum((int64) pg_atomic_read_u64(&d->bytes_read));
		values[6] = Int64GetDatum((int64) pg_atomic_read_u64(&d->bytes_written));
		values[7] = Int64GetDatum((int64) pg_atomic_read_u64(&d->reads));
		values[8] = Int64GetDatum((int64) pg_atomic_read_u64(&d->writes));
		values[9] = Float8GetDatum(pg_atomic_read_u64(&d->busy_us) / 1000.0);
		LWLockAcquire(srm_shared->lock, LW_SHARED);
		rbps = d->read_bps;
		wbps = d->write_bps;
		LWLockRelease(srm_shared->lock);
		values[10] = Float8GetDatum(rbps / 1e6);
		values[11] = Float8GetDatum(wbps / 1e6);
		nulls[10] = !(rbps > 0);
		nulls[11] = !(wbps > 0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

static const char *
phase_name(int phase)
{
	switch (phase)
	{
		case SRM_PHASE_RUNS:
			return "writing runs";
		case SRM_PHASE_MERGE:
			return "merging";
		case SRM_PHASE_FINAL:
			return "final merge";
		default:
			return "idle";
	}
}

/*
 * srmsort_activity
 *		One row per running srmsort sort job.
 */
Datum
srmsort_activity(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			i;

	require_shmem();
	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < MaxBackends; i++)
	{
		SrmSharedJob job = srm_shared->jobs[i];
		Datum		values[8];
		bool		nulls[8] = {0};

		if (job.pid == 0)
			continue;
		values[0] = Int32GetDatum(job.pid);
		values[1] = CStringGetTextDatum(phase_name(job.phase));
		values[2] = Int32GetDatum(job.partition);
		values[3] = Int32GetDatum(job.ndisks);
		values[4] = Int64GetDatum(job.runs);
		values[5] = Int64GetDatum(job.bytes_written);
		values[6] = Int32GetDatum(job.merge_pass);
		values[7] = TimestampTzGetDatum(job.started);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * srmsort_stats_reset
 *		Zero the cumulative disk counters (superuser only).
 */
Datum
srmsort_stats_reset(PG_FUNCTION_ARGS)
{
	int			i;

	require_shmem();
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to reset srmsort statistics"),
				 errhint("Only superusers may reset them.")));
	LWLockAcquire(srm_shared->lock, LW_EXCLUSIVE);
	for (i = 0; i < SRM_SHARED_DISKS; i++)
	{
		SrmSharedDisk *d = &srm_shared->disks[i];

		pg_atomic_write_u64(&d->bytes_read, 0);
		pg_atomic_write_u64(&d->bytes_written, 0);
		pg_atomic_write_u64(&d->reads, 0);
		pg_atomic_write_u64(&d->writes, 0);
		pg_atomic_write_u64(&d->busy_us, 0);
	}
	LWLockRelease(srm_shared->lock);
	PG_RETURN_VOID();
}
