/*-------------------------------------------------------------------------
 *
 * pstream.c
 *	  What srmsort's parallel contexts share: the workers' query text and
 *	  instrumentation, waiting for the participants, and the stream of
 *	  merged records from worker 0 to the leader.
 *
 * The parallel index build (pbuild.c) and CLUSTER's parallel sort
 * (pcluster.c) run the same way: every participant sorts its share into
 * runs, worker 0 merges all of them and sends the records, in order,
 * through a shm_mq to the leader, which consumes them meanwhile (loads
 * the btree, rewrites the table).  Records go in messages of up to
 * SRM_PS_CHUNK bytes, each record MAXALIGNed, so that the leader reads them
 * in place.  The key numbers below are this module's; each context's own
 * state has its own.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/engine/pstream.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dlfcn.h>

#include "access/xact.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/buffile.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/backend_status.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "base/settings.h"
#include "engine/pstream.h"
#include "merge/mergeplan.h"

#define SRM_PS_KEY_QUERY_TEXT	UINT64CONST(0x5352530000000001)
#define SRM_PS_KEY_WAL_USAGE	UINT64CONST(0x5352530000000002)
#define SRM_PS_KEY_BUFFER_USAGE UINT64CONST(0x5352530000000003)
#define SRM_PS_KEY_QUEUE		UINT64CONST(0x5352530000000004)

#define SRM_PS_CHUNK			(64 * 1024)
#define SRM_PS_QUEUE			(1024 * 1024)

/*
 * SrmPStreamLibrary
 *		See pstream.h: its path as loaded (shared_preload_libraries may name
 *		it by path, outside $libdir).
 */
const char *
SrmPStreamLibrary(void *entry)
{
	Dl_info		info;

	if (dladdr(entry, &info) != 0 && info.dli_fname != NULL &&
		info.dli_fname[0] == '/')
		return info.dli_fname;
	return "srmsort";
}

/*
 * estimate
 *		Room for the shared parts in pcxt's segment.
 */
static void
estimate(ParallelContext *pcxt)
{
	shm_toc_estimate_chunk(&pcxt->estimator,
						   mul_size(sizeof(WalUsage), pcxt->nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator,
						   mul_size(sizeof(BufferUsage), pcxt->nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator, SRM_PS_QUEUE);
	shm_toc_estimate_keys(&pcxt->estimator, 3);
	if (debug_query_string)
	{
		shm_toc_estimate_chunk(&pcxt->estimator, strlen(debug_query_string) + 1);
		shm_toc_estimate_keys(&pcxt->estimator, 1);
	}
}

/*
 * init_shared
 *		Put the shared parts in pcxt's segment; attach the leader to the
 *		queue.
 */
static void
init_shared(SrmPStream *ps, ParallelContext *pcxt, SrmRecordSize recsize)
{
	shm_mq	   *mq;

	ps->pcxt = pcxt;
	ps->cxt = CurrentMemoryContext;
	ps->recsize = recsize;
	if (debug_query_string)
	{
		Size		len = strlen(debug_query_string) + 1;
		char	   *q = shm_toc_allocate(pcxt->toc, len);

		memcpy(q, debug_query_string, len);
		shm_toc_insert(pcxt->toc, SRM_PS_KEY_QUERY_TEXT, q);
	}
	ps->walusage = shm_toc_allocate(pcxt->toc,
									mul_size(sizeof(WalUsage), pcxt->nworkers));
	shm_toc_insert(pcxt->toc, SRM_PS_KEY_WAL_USAGE, ps->walusage);
	ps->bufferusage = shm_toc_allocate(pcxt->toc,
									   mul_size(sizeof(BufferUsage), pcxt->nworkers));
	shm_toc_insert(pcxt->toc, SRM_PS_KEY_BUFFER_USAGE, ps->bufferusage);
	mq = shm_mq_create(shm_toc_allocate(pcxt->toc, SRM_PS_QUEUE), SRM_PS_QUEUE);
	shm_mq_set_receiver(mq, MyProc);
	shm_toc_insert(pcxt->toc, SRM_PS_KEY_QUEUE, mq);
	ps->mqh = shm_mq_attach(mq, pcxt->seg, NULL);
}

/*
 * SrmPStreamBegin
 *		See pstream.h.
 */
bool
SrmPStreamBegin(SrmPStream *ps, void *entry, const char *entry_name,
				int nworkers, uint64 key, Size shared_size, void **shared,
				SrmRecordSize recsize)
{
	ParallelContext *pcxt;

	memset(ps, 0, sizeof(SrmPStream));
	EnterParallelMode();
	pcxt = CreateParallelContext(SrmPStreamLibrary(entry), entry_name,
								 nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, shared_size);
	shm_toc_estimate_keys(&pcxt->estimator, 1);
	estimate(pcxt);
	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return false;
	}
	*shared = shm_toc_allocate(pcxt->toc, shared_size);
	memset(*shared, 0, shared_size);
	shm_toc_insert(pcxt->toc, key, *shared);
	init_shared(ps, pcxt, recsize);
	return true;
}

/*
 * SrmPStreamDisks
 *		See pstream.h.
 */
int
SrmPStreamDisks(SrmPStream *ps, SrmSharedDisks *disks, int nfiles,
				int nparticipants, double rows, double tuple_bytes)
{
	int			maxdisks = SrmPlanParallelDisks(SrmSorterPlanLimits(),
												maintenance_work_mem);
	int			first,
				count;

	SrmSharedDisksInit(disks, ps->pcxt->seg, maxdisks, nfiles);
	/* each participant's share of the disks, as scan_and_sort takes it */
	SrmPlanParticipantDisks(disks->ndisks, 0, nparticipants, &first, &count);
	return SrmPlanParallelBlockSize(SrmSorterPlanLimits(), maintenance_work_mem,
									maintenance_work_mem / nparticipants,
									nparticipants, disks->ndisks, count,
									rows, tuple_bytes);
}

/*
 * SrmPStreamLaunch
 *		See pstream.h.  Worker 0 sends: if it dies, the leader must not
 *		wait for its records.
 */
bool
SrmPStreamLaunch(SrmPStream *ps)
{
	LaunchParallelWorkers(ps->pcxt);
	if (ps->pcxt->nworkers_launched == 0)
	{
		SrmPStreamEnd(ps);
		return false;
	}
	shm_mq_set_handle(ps->mqh, ps->pcxt->worker[0].bgwhandle);
	return true;
}

/*
 * SrmPStreamLeaderWait
 *		See pstream.h.  A worker that failed to start must not leave the
 *		leader waiting.
 */
void
SrmPStreamLeaderWait(SrmPStream *ps, ConditionVariable *cv, slock_t *mutex,
					 int *nlaunched, const int *ndone, int nparticipants)
{
	WaitForParallelWorkersToAttach(ps->pcxt);
	SpinLockAcquire(mutex);
	*nlaunched = nparticipants;
	SpinLockRelease(mutex);
	ConditionVariableBroadcast(cv);
	SrmPStreamWaitAll(cv, mutex, ndone, nlaunched);
}

/*
 * next_chunk
 *		Make worker 0's next message the current one; false at the end.
 */
static bool
next_chunk(SrmPStream *ps, slock_t *mutex, const bool *sent_all)
{
	shm_mq_result res;
	Size		n;
	void	   *data;
	bool		done;

	if (ps->done)
		return false;
	res = shm_mq_receive(ps->mqh, &n, &data, false);
	if (res == SHM_MQ_SUCCESS)
	{
		if ((uintptr_t) data % MAXIMUM_ALIGNOF != 0)
		{
			if (n > ps->aligned_size)
			{
				if (ps->aligned != NULL)
					pfree(ps->aligned);
				ps->aligned_size = Max(n, SRM_PS_CHUNK);
				ps->aligned = MemoryContextAlloc(ps->cxt, ps->aligned_size);
			}
			memcpy(ps->aligned, data, n);
			data = ps->aligned;
		}
		ps->chunk = data;
		ps->chunk_len = n;
		ps->chunk_pos = 0;
		return true;
	}
	/* detached: the end of the merge, or worker 0 failed */
	SpinLockAcquire(mutex);
	done = *sent_all;
	SpinLockRelease(mutex);
	if (!done)
	{
		/* its error, if it sent one, is raised here */
		WaitForParallelWorkersToFinish(ps->pcxt);
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("srmsort: the parallel worker merging the sort exited early")));
	}
	ps->done = true;
	return false;
}

/*
 * SrmPStreamNext
 *		See pstream.h.
 */
char *
SrmPStreamNext(SrmPStream *ps, slock_t *mutex, const bool *sent_all)
{
	char	   *rec;

	while (ps->chunk_pos >= ps->chunk_len)
		if (!next_chunk(ps, mutex, sent_all))
			return NULL;
	rec = ps->chunk + ps->chunk_pos;
	ps->chunk_pos += MAXALIGN(ps->recsize(rec));
	return rec;
}

/*
 * SrmPStreamWaitFirst
 *		See pstream.h.
 */
void
SrmPStreamWaitFirst(SrmPStream *ps, slock_t *mutex, const bool *sent_all)
{
	if (ps->chunk_pos >= ps->chunk_len)
		(void) next_chunk(ps, mutex, sent_all);
}

/*
 * SrmPStreamEnd
 *		See pstream.h.  As _bt_end_parallel.
 */
void
SrmPStreamEnd(SrmPStream *ps)
{
	int			i;

	WaitForParallelWorkersToFinish(ps->pcxt);
	for (i = 0; i < ps->pcxt->nworkers_launched; i++)
		InstrAccumParallelQuery(&ps->bufferusage[i], &ps->walusage[i]);
	/* frees the handle, which would otherwise outlive the segment */
	shm_mq_detach(ps->mqh);
	ps->mqh = NULL;
	/* the aligned copy too: the caller's context may outlast many streams */
	if (ps->aligned != NULL)
		pfree(ps->aligned);
	ps->aligned = NULL;
	ps->aligned_size = 0;
	DestroyParallelContext(ps->pcxt);
	ExitParallelMode();
}

/*
 * SrmPStreamWaitAll
 *		See pstream.h.
 */
void
SrmPStreamWaitAll(ConditionVariable *cv, slock_t *mutex, const int *ndone,
				  const int *nexpected)
{
	for (;;)
	{
		bool		all;

		SpinLockAcquire(mutex);
		all = *nexpected > 0 && *ndone == *nexpected;
		SpinLockRelease(mutex);
		if (all)
			break;
		ConditionVariableSleep(cv, WAIT_EVENT_PARALLEL_CREATE_INDEX_SCAN);
	}
	ConditionVariableCancelSleep();
}

/*
 * SrmPStreamMergeShare
 *		See pstream.h.
 */
void
SrmPStreamMergeShare(SrmSorterShare *share, SrmSharedDisks *disks,
					 int block_size, int nworkers)
{
	memset(share, 0, sizeof(SrmSorterShare));
	share->disks = disks;
	share->block_size = block_size;
	share->myfile = nworkers + 1;
	share->peer_first = 0;
	share->npeers = nworkers + 1;
}

/*
 * SrmPStreamParticipantShare
 *		See pstream.h.
 */
void
SrmPStreamParticipantShare(SrmSorterShare *share, SrmSharedDisks *disks,
						   int block_size, int myfile, int q, int n)
{
	memset(share, 0, sizeof(SrmSorterShare));
	share->disks = disks;
	share->block_size = block_size;
	share->myfile = myfile;
	SrmPlanParticipantDisks(disks->ndisks, q, n, &share->first_disk,
							&share->ndisks);
}

/*
 * SrmPStreamAdopt
 *		See pstream.h.
 */
int64
SrmPStreamAdopt(SrmSorter *s, SrmSharedDisks *disks, const char *name)
{
	BufFile    *f = BufFileOpenFileSet(&disks->filesets[0].fs, name, O_RDONLY,
									   false);
	int64		n = SrmSorterAdoptRuns(s, f);

	BufFileClose(f);
	return n;
}

/*
 * SrmPStreamDescribe
 *		See pstream.h.
 */
char *
SrmPStreamDescribe(int nparticipants, int nlaunched, bool leader_participates,
				   int nworkers, const int64 *runs)
{
	StringInfoData buf;
	int			p;
	bool		first = true;

	initStringInfo(&buf);
	appendStringInfo(&buf, "participants %d (%d workers%s), runs per participant ",
					 nparticipants, nlaunched,
					 leader_participates ? " and the leader" : "");
	for (p = 0; p <= nworkers; p++)
	{
		if (runs[p] < 0)
			continue;
		appendStringInfo(&buf, "%s%s %lld", first ? "" : ", ",
						 p == nworkers ? "leader" : psprintf("worker %d", p),
						 (long long) runs[p]);
		first = false;
	}
	return buf.data;
}

/*
 * SrmPStreamWorkerBegin
 *		See pstream.h.
 */
void
SrmPStreamWorkerBegin(shm_toc *toc, uint64 queryid)
{
	debug_query_string = shm_toc_lookup(toc, SRM_PS_KEY_QUERY_TEXT, true);
	pgstat_report_activity(STATE_RUNNING, debug_query_string);
	pgstat_report_query_id(queryid, false);
	InstrStartParallelQuery();
}

/*
 * SrmPStreamWorkerEnd
 *		See pstream.h.
 */
void
SrmPStreamWorkerEnd(shm_toc *toc)
{
	BufferUsage *bufferusage = shm_toc_lookup(toc, SRM_PS_KEY_BUFFER_USAGE, false);
	WalUsage   *walusage = shm_toc_lookup(toc, SRM_PS_KEY_WAL_USAGE, false);

	InstrEndParallelQuery(&bufferusage[ParallelWorkerNumber],
						  &walusage[ParallelWorkerNumber]);
}

/*
 * SrmPStreamSenderBegin
 *		See pstream.h.
 */
void
SrmPStreamSenderBegin(SrmPStreamSender *s, dsm_segment *seg, shm_toc *toc)
{
	shm_mq	   *mq = shm_toc_lookup(toc, SRM_PS_KEY_QUEUE, false);

	shm_mq_set_sender(mq, MyProc);
	s->mqh = shm_mq_attach(mq, seg, NULL);
	s->size = SRM_PS_CHUNK;
	s->buf = palloc(s->size);
	s->used = 0;
	s->leader_gone = false;
}

/*
 * send_chunk
 *		Send the records gathered; detached means the leader is failing
 *		and will say why.
 */
static void
send_chunk(SrmPStreamSender *s)
{
	if (!s->leader_gone && s->used > 0)
		s->leader_gone = shm_mq_send(s->mqh, s->used, s->buf, false, true) !=
			SHM_MQ_SUCCESS;
	s->used = 0;
}

/*
 * SrmPStreamSend
 *		See pstream.h.
 */
bool
SrmPStreamSend(SrmPStreamSender *s, const void *rec, Size len)
{
	if (s->used + MAXALIGN(len) > s->size)
		send_chunk(s);
	if (MAXALIGN(len) > s->size)
	{
		/* a record larger than a message goes alone */
		s->size = MAXALIGN(len);
		s->buf = repalloc(s->buf, s->size);
	}
	memcpy(s->buf + s->used, rec, len);
	s->used += MAXALIGN(len);
	return !s->leader_gone;
}

/*
 * SrmPStreamFlush
 *		See pstream.h.
 */
bool
SrmPStreamFlush(SrmPStreamSender *s)
{
	send_chunk(s);
	return !s->leader_gone;
}

/*
 * SrmPStreamSenderEnd
 *		See pstream.h.
 */
void
SrmPStreamSenderEnd(SrmPStreamSender *s)
{
	shm_mq_detach(s->mqh);
	pfree(s->buf);
}
