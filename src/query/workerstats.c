/*-------------------------------------------------------------------------
 *
 * workerstats.c
 *	  The facts of parallel workers' sorts, left in shared memory for the
 *	  leader's EXPLAIN ANALYZE.
 *
 * A parallel worker's SRMSort sorts in the worker, but EXPLAIN runs in the
 * leader, after the workers have exited: so each worker leaves the facts
 * of its sort (SrmSortStats) in a mailbox in shared memory, tagged with its
 * leader's pid, the plan node and its worker number, and the leader takes
 * them out when it explains ("Worker N:" lines, as core's Sort shows).  The
 * mailbox has an entry per backend slot; a worker writes its own, or a
 * free one when its slot still holds a sibling's facts not yet collected.
 * The entries share the lock of srmsort's shared accounting (shmem.c,
 * which also allocates the mailbox): they are written once per sort and
 * read once per EXPLAIN.
 *
 * Without shared_preload_libraries there is no mailbox, and EXPLAIN shows
 * no worker lines.
 *
 * IDENTIFICATION
 *	  src/query/workerstats.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "storage/shmem.h"

#include "base/compat.h"
#include "base/shmem.h"
#include "engine/sortstats.h"
#include "query/workerstats.h"

typedef struct SrmWorkerStatsEntry
{
	bool		valid;			/* facts not yet collected */
	int			leader;			/* pid of the worker's leader */
	int			node;			/* plan_node_id */
	int			worker;			/* ParallelWorkerNumber */
	SrmSortStats stats;
} SrmWorkerStatsEntry;

typedef struct SrmWorkerStatsShared
{
	LWLock	   *lock;
	SrmWorkerStatsEntry entries[FLEXIBLE_ARRAY_MEMBER];	/* MaxBackends */
} SrmWorkerStatsShared;

static SrmWorkerStatsShared *mailbox = NULL;

/*
 * mailbox_size
 *		The mailbox's bytes in shared memory: an entry per backend slot.
 */
static Size
mailbox_size(void)
{
	return add_size(offsetof(SrmWorkerStatsShared, entries),
					mul_size(MaxBackends, sizeof(SrmWorkerStatsEntry)));
}

/*
 * mailbox_attach
 *		From shmem.c's startup hook, in every process: the mailbox is mem;
 *		the process that creates it (found false) empties it.
 */
static void
mailbox_attach(void *mem, bool found, LWLock *lock)
{
	mailbox = (SrmWorkerStatsShared *) mem;
	if (!found)
	{
		memset(mailbox, 0, mailbox_size());
		mailbox->lock = lock;
	}
}

/*
 * SrmWorkerStatsInit
 *		See workerstats.h.
 */
void
SrmWorkerStatsInit(void)
{
	SrmShmemRequest("srmsort worker stats", mailbox_size, mailbox_attach);
}

/*
 * SrmWorkerStatsPublish
 *		In a parallel worker: leave the facts of the sort of plan node
 *		plan_node_id for the leader.
 */
void
SrmWorkerStatsPublish(int plan_node_id, const SrmSortStats *st)
{
	int			slot = SrmMyBackendSlot();
	SrmWorkerStatsEntry *e;
	int			leader;
	int			i;

	if (mailbox == NULL || slot < 0 || !IsParallelWorker() ||
		MyProc->lockGroupLeader == NULL)
		return;
	leader = MyProc->lockGroupLeader->pid;
	e = &mailbox->entries[slot];

	/*
	 * A worker that starts after a sibling of the same query has exited can
	 * get the sibling's slot, whose facts the leader has not collected yet:
	 * then take a free entry, or the sibling's facts would be overwritten
	 * and the leader's EXPLAIN would show one worker too few.
	 */
	LWLockAcquire(mailbox->lock, LW_EXCLUSIVE);
	/* a rescan's sort replaces this worker's facts of an earlier loop */
	for (i = 0; i < MaxBackends; i++)
	{
		SrmWorkerStatsEntry *other = &mailbox->entries[i];

		if (other->valid && other->leader == leader &&
			other->node == plan_node_id &&
			other->worker == ParallelWorkerNumber)
			other->valid = false;
	}
	if (e->valid && e->leader == leader && e->node == plan_node_id)
	{
		for (i = 0; i < MaxBackends; i++)
		{
			if (!mailbox->entries[i].valid)
			{
				e = &mailbox->entries[i];
				break;
			}
		}
	}
	e->leader = leader;
	e->node = plan_node_id;
	e->worker = ParallelWorkerNumber;
	e->stats = *st;
	e->valid = true;
	LWLockRelease(mailbox->lock);
}

/*
 * SrmWorkerStatsClear
 *		In the leader: forget facts its workers left for plan_node_id in an
 *		earlier execution.
 */
void
SrmWorkerStatsClear(int plan_node_id)
{
	int			i;

	if (mailbox == NULL)
		return;
	LWLockAcquire(mailbox->lock, LW_EXCLUSIVE);
	for (i = 0; i < MaxBackends; i++)
	{
		SrmWorkerStatsEntry *e = &mailbox->entries[i];

		if (e->valid && e->leader == MyProcPid && e->node == plan_node_id)
			e->valid = false;
	}
	LWLockRelease(mailbox->lock);
}

/*
 * SrmWorkerStatsCollect
 *		In the leader: the facts its workers left for plan_node_id (at most
 *		max), ordered by worker number; they are consumed.
 */
int
SrmWorkerStatsCollect(int plan_node_id, SrmSortStats *out, int *workers, int max)
{
	int			n = 0;
	int			i;

	if (mailbox == NULL)
		return 0;
	LWLockAcquire(mailbox->lock, LW_EXCLUSIVE);
	for (i = 0; i < MaxBackends && n < max; i++)
	{
		SrmWorkerStatsEntry *e = &mailbox->entries[i];
		int			k;

		if (!e->valid || e->leader != MyProcPid || e->node != plan_node_id)
			continue;
		/* insertion by worker number */
		for (k = n; k > 0 && workers[k - 1] > e->worker; k--)
		{
			workers[k] = workers[k - 1];
			out[k] = out[k - 1];
		}
		workers[k] = e->worker;
		out[k] = e->stats;
		e->valid = false;
		n++;
	}
	LWLockRelease(mailbox->lock);
	return n;
}
