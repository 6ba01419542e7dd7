/*-------------------------------------------------------------------------
 *
 * pcluster.c
 *	  CLUSTER's heap sort with parallel workers.
 *
 * PostgreSQL's CLUSTER scans and sorts the table in one process.  srmsort
 * gives that sort the workers PostgreSQL would plan for building the index
 * (plan_create_index_workers: max_parallel_maintenance_workers, the table's
 * size and parallel_workers, 32MB of maintenance_work_mem per participant)
 * when no user code would run in them (no index expressions, built-in
 * comparison functions), in a parallel context of its own as
 * pbuild.c does for index builds: each participant -- the workers and,
 * unless parallel_leader_participation is off, the leader -- joins one
 * parallel scan of the table with SnapshotAny, judges and sorts its share
 * (clusterscan.c) into runs on its own disks of the partition, and
 * describes them in a file.  Worker 0 then merges every participant's runs
 * and sends the records through a shm_mq to the leader, which writes the
 * new heap from them through heap's rewrite API meanwhile: the merge and
 * the rewrite run on two CPUs.
 *
 * Only the leader talks to the client and to the rewrite: the workers
 * count the dead tuples and the tuples worth a WARNING (concurrent insert
 * or delete in progress), and the leader adds their counts to its own and
 * raises their WARNINGs, so that the counts and messages are those of one
 * scan.  Progress (blocks and tuples scanned) is the sum over all
 * participants, reported by the leader.
 *
 * Workfiles live in SharedFileSets in the parallel context's DSM segment
 * (disks.c) and are deleted when the leader detaches, after an error too.
 * The parallel context restores the leader's user, security context, GUCs
 * and search_path in the workers, so index expressions run there as in the
 * leader (under the table owner, security-restricted); the workers join
 * the leader's lock group, so the table's AccessExclusiveLock does not
 * stop them.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/pcluster.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/parallel.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/buffile.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "base/compat.h"
#include "base/settings.h"
#include "builds/pcluster.h"
#include "engine/pstream.h"
#include "engine/sorter.h"
#include "io/disks.h"
#include "merge/mergeplan.h"

#define SRM_KEY_CL_SHARED		UINT64CONST(0x5352430000000001)

/* Files per disk: each participant's (workers 0 .. n-1, the leader n),
 * and worker 0's merge's (n + 1). */
#define SRM_PC_MAX_WORKERS		(SRM_MAX_SHARED_FILES - 2)

typedef struct SrmPCParticipant
{
	bool		done;
	int64		runs;
} SrmPCParticipant;

typedef struct SrmPCShared
{
	Oid			heaprelid;
	Oid			indexrelid;
	TransactionId OldestXmin;
	int			nworkers;		/* requested: numbers the files */
	int			nparticipants;	/* divides maintenance_work_mem */
	int			block_size;
	uint64		queryid;

	ConditionVariable workersdonecv;
	slock_t		mutex;
	int			nparticipantsdone;
	int			nlaunched;		/* participants launched, set by the leader
								 * once they are (0 until then) */
	bool		merge_done;		/* worker 0 sent the whole merge */
	SrmSortStats merge_stats;	/* ... and these are its facts */
	SrmClusterCounts counts;	/* the workers' counts, summed */
	SrmPCParticipant parts[SRM_PC_MAX_WORKERS + 1];

	SrmClusterShared progress;
	SrmSharedDisks disks;
	/* the parallel table scan follows, BUFFERALIGNed */
} SrmPCShared;

#define ParallelTableScanFromPCShared(shared) \
	(ParallelTableScanDesc) ((char *) (shared) + BUFFERALIGN(sizeof(SrmPCShared)))

struct SrmParallelCluster
{
	SrmPStream	ps;				/* the context, and worker 0's merged
								 * records */
	SrmPCShared *shared;
	bool		leader_participates;
	int			nparticipants;	/* launched workers + leader */
	Relation	heap;
	Relation	index;
};

/*
 * runs_name
 *		The name of participant p's list of runs, in disk 0's file set.
 */
static void
runs_name(char *name, int p)
{
	snprintf(name, MAXPGPATH, "srmclruns%d", p);
}

/* the length of a merged record, for the stream */
static Size
record_size(const char *rec)
{
	return ((MinimalTuple) rec)->t_len;
}

/*
 * SrmClusterWorkers
 *		See pcluster.h.
 */
int
SrmClusterWorkers(Relation heap, Relation index)
{
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	int			k;

	if (srmsort_merge_strategy != SRM_MERGE_SRM ||
		RelationGetIndexExpressions(index) != NIL)
		return 0;

	/*
	 * PostgreSQL's CLUSTER runs no user code in a worker, so that an error
	 * there never says "parallel worker": no expressions, and the key
	 * columns' comparison (and sort support) functions built in.
	 */
	for (k = 1; k <= nkeys; k++)
	{
		Oid			cmp = index_getprocid(index, k, BTORDER_PROC);
		Oid			ssup = index_getprocid(index, k, BTSORTSUPPORT_PROC);

		if (cmp >= FirstNormalObjectId ||
			(OidIsValid(ssup) && ssup >= FirstNormalObjectId))
			return 0;
	}
	return Min(plan_create_index_workers(RelationGetRelid(heap),
										 RelationGetRelid(index)),
			   SRM_PC_MAX_WORKERS);
}

/*
 * scan_and_sort
 *		One participant's part: join the parallel scan, sort its share into
 *		runs with sortmem kB, describe them and report to the leader.  p
 *		numbers the participant, q places it among the n participants on
 *		the disks.  rwstate: the leader's rewrite (NULL in a worker).
 */
static void
scan_and_sort(SrmPCShared *sh, Relation heap, Relation index, int p, int q,
			  int n, int sortmem, RewriteState rwstate,
			  SrmClusterCounts *counts)
{
	SrmSorterShare share;
	SrmSorter  *sorter;
	TupleDesc	sdesc = SrmClusterSortDesc(index);
	TableScanDesc scan;
	BufFile    *f;
	char		name[MAXPGPATH];
	int64		runs;

	SrmPStreamParticipantShare(&share, &sh->disks, sh->block_size, p, q, n);
	sorter = SrmSorterBeginIndexOrder(sdesc, index, sortmem,
									  (double) RelationGetNumberOfBlocks(heap) *
									  BLCKSZ / n, SRM_SORT_NONE);
	SrmSorterUseShared(sorter, &share);

	scan = SrmTableBeginScanParallel(heap, ParallelTableScanFromPCShared(sh));
	SrmClusterScan(heap, index, scan, sorter, sh->OldestXmin, rwstate,
				   rwstate != NULL, &sh->progress, counts);
	table_endscan(scan);

	SrmSorterFinishRuns(sorter);
	runs_name(name, p);
	f = BufFileCreateFileSet(&sh->disks.filesets[0].fs, name);
	runs = SrmSorterExportRuns(sorter, f);
	BufFileClose(f);
	SrmSorterEnd(sorter);

	SpinLockAcquire(&sh->mutex);
	sh->nparticipantsdone++;
	if (rwstate == NULL)
	{
		sh->counts.num_tuples += counts->num_tuples;
		sh->counts.tups_vacuumed += counts->tups_vacuumed;
		sh->counts.tups_recently_dead += counts->tups_recently_dead;
		sh->counts.insert_in_progress += counts->insert_in_progress;
		sh->counts.delete_in_progress += counts->delete_in_progress;
	}
	sh->parts[p].done = true;
	sh->parts[p].runs = runs;
	SpinLockRelease(&sh->mutex);

	/* the leader and worker 0 both wait for this */
	ConditionVariableBroadcast(&sh->workersdonecv);
}

/*
 * merge_and_send
 *		Worker 0, once every participant is done: merge all runs and send
 *		the records to the leader, which rewrites the table meanwhile.
 */
static void
merge_and_send(SrmPCShared *sh, Relation index, dsm_segment *seg,
			   shm_toc *toc)
{
	SrmPStreamSender sender;
	SrmSorterShare share;
	SrmSorter  *s;
	TupleDesc	sdesc = SrmClusterSortDesc(index);
	TupleTableSlot *slot;
	bool		sent;
	int			p;
	char		name[MAXPGPATH];

	SrmPStreamSenderBegin(&sender, seg, toc);
	SrmPStreamWaitAll(&sh->workersdonecv, &sh->mutex, &sh->nparticipantsdone,
					  &sh->nlaunched);

	SrmPStreamMergeShare(&share, &sh->disks, sh->block_size, sh->nworkers);
	s = SrmSorterBeginIndexOrder(sdesc, index, maintenance_work_mem, 0,
								 SRM_SORT_NONE);
	SrmSorterUseShared(s, &share);
	for (p = 0; p <= sh->nworkers; p++)
	{
		if (!sh->parts[p].done)
			continue;
		runs_name(name, p);
		(void) SrmPStreamAdopt(s, &sh->disks, name);
	}
	SrmSorterPerform(s);

	/* the sorter's records are MinimalTuples: sent as they are */
	slot = MakeSingleTupleTableSlot(sdesc, &TTSOpsMinimalTuple);
	while (SrmSorterGetSlot(s, true, slot))
	{
		bool		shouldFree;
		MinimalTuple mt = ExecFetchSlotMinimalTuple(slot, &shouldFree);
		bool		more = SrmPStreamSend(&sender, mt, mt->t_len);

		if (shouldFree)
			pfree(mt);
		if (!more)
			break;
	}
	sent = SrmPStreamFlush(&sender);

	/* the leader reads the facts only once it sees merge_done */
	SrmSorterGetStats(s, &sh->merge_stats);
	SpinLockAcquire(&sh->mutex);
	sh->merge_done = sent;
	SpinLockRelease(&sh->mutex);
	SrmPStreamSenderEnd(&sender);
	ExecDropSingleTupleTableSlot(slot);
	SrmSorterEnd(s);
}

/*
 * SrmClusterParallelBegin
 *		See pcluster.h.  As SrmParallelBegin (pbuild.c).
 */
SrmParallelCluster *
SrmClusterParallelBegin(Relation heap, Relation index, int nworkers,
						TransactionId OldestXmin)
{
	SrmParallelCluster *pc;
	SrmPCShared *sh;
	int			nparticipants;
	double		rows;

	pc = palloc0(sizeof(SrmParallelCluster));
	pc->heap = heap;
	pc->index = index;
	pc->leader_participates = parallel_leader_participation;
	nparticipants = pc->leader_participates ? nworkers + 1 : nworkers;

	if (!SrmPStreamBegin(&pc->ps, (void *) srm_parallel_cluster_main,
						 "srm_parallel_cluster_main", nworkers,
						 SRM_KEY_CL_SHARED,
						 add_size(BUFFERALIGN(sizeof(SrmPCShared)),
								  table_parallelscan_estimate(heap, SnapshotAny)),
						 (void **) &sh, record_size))
	{
		pfree(pc);
		return NULL;
	}
	sh->heaprelid = RelationGetRelid(heap);
	sh->indexrelid = RelationGetRelid(index);
	sh->OldestXmin = OldestXmin;
	sh->nworkers = nworkers;
	sh->nparticipants = nparticipants;
	sh->queryid = pgstat_get_my_query_id();
	ConditionVariableInit(&sh->workersdonecv);
	SpinLockInit(&sh->mutex);
	pg_atomic_init_u64(&sh->progress.blocks, 0);
	pg_atomic_init_u64(&sh->progress.tuples, 0);
	/* the records are about as long as the tuples; no estimate: 0 */
	rows = Max(heap->rd_rel->reltuples, 0);
	sh->block_size = SrmPStreamDisks(&pc->ps, &sh->disks, nworkers + 2,
									 nparticipants, rows,
									 rows > 0 ? (double) RelationGetNumberOfBlocks(heap) *
									 BLCKSZ / rows : 0);
	table_parallelscan_initialize(heap, ParallelTableScanFromPCShared(sh),
								  SnapshotAny);
	pc->shared = sh;

	/* no worker: back out, the caller sorts alone; the stream is gone */
	if (!SrmPStreamLaunch(&pc->ps))
	{
		pfree(pc);
		return NULL;
	}
	pc->nparticipants = pc->ps.pcxt->nworkers_launched +
		(pc->leader_participates ? 1 : 0);
	return pc;
}

/*
 * SrmClusterParallelScan
 *		See pcluster.h.
 */
void
SrmClusterParallelScan(SrmParallelCluster *pc, RewriteState rwstate,
					   SrmClusterCounts *counts)
{
	SrmPCShared *sh = pc->shared;
	SrmClusterCounts theirs;

	if (pc->leader_participates)
		scan_and_sort(sh, pc->heap, pc->index, sh->nworkers, sh->nworkers,
					  sh->nparticipants,
					  maintenance_work_mem / pc->nparticipants, rwstate,
					  counts);

	SrmPStreamLeaderWait(&pc->ps, &sh->workersdonecv, &sh->mutex,
						 &sh->nlaunched, &sh->nparticipantsdone,
						 pc->nparticipants);
	SpinLockAcquire(&sh->mutex);
	theirs = sh->counts;
	SpinLockRelease(&sh->mutex);

	counts->num_tuples += theirs.num_tuples;
	counts->tups_vacuumed += theirs.tups_vacuumed;
	counts->tups_recently_dead += theirs.tups_recently_dead;
	SrmClusterWarn(pc->heap, &theirs);
}

/*
 * SrmClusterParallelNext
 *		See pcluster.h.
 */
MinimalTuple
SrmClusterParallelNext(SrmParallelCluster *pc)
{
	return (MinimalTuple) SrmPStreamNext(&pc->ps, &pc->shared->mutex,
										 &pc->shared->merge_done);
}

/*
 * SrmClusterParallelStats
 *		See pcluster.h.
 */
void
SrmClusterParallelStats(SrmParallelCluster *pc, SrmSortStats *stats)
{
	/* written before merge_done, which the end of the stream has shown */
	Assert(pc->ps.done);
	*stats = pc->shared->merge_stats;
}

/*
 * SrmClusterParallelDescribe
 *		See pcluster.h.
 */
char *
SrmClusterParallelDescribe(SrmParallelCluster *pc)
{
	SrmPCShared *sh = pc->shared;
	int64		runs[SRM_PC_MAX_WORKERS + 1];
	int			p;

	for (p = 0; p <= sh->nworkers; p++)
		runs[p] = sh->parts[p].done ? sh->parts[p].runs : -1;
	return SrmPStreamDescribe(pc->nparticipants, pc->ps.pcxt->nworkers_launched,
							  pc->leader_participates, sh->nworkers, runs);
}

/*
 * SrmClusterParallelEnd
 *		See pcluster.h.
 */
void
SrmClusterParallelEnd(SrmParallelCluster *pc)
{
	SrmPStreamEnd(&pc->ps);
}

/*
 * srm_parallel_cluster_main
 *		A worker of CLUSTER's parallel sort.
 */
void
srm_parallel_cluster_main(dsm_segment *seg, shm_toc *toc)
{
	SrmPCShared *sh;
	Relation	heap;
	Relation	index;
	SrmClusterCounts counts;

	sh = shm_toc_lookup(toc, SRM_KEY_CL_SHARED, false);
	SrmPStreamWorkerBegin(toc, sh->queryid);

	/* the leader holds AccessExclusiveLock; its lock group shares it */
	heap = table_open(sh->heaprelid, AccessShareLock);
	index = index_open(sh->indexrelid, AccessShareLock);
	SrmSharedDisksAttach(&sh->disks, seg);

	memset(&counts, 0, sizeof(counts));
	scan_and_sort(sh, heap, index, ParallelWorkerNumber, ParallelWorkerNumber,
				  sh->nparticipants, maintenance_work_mem / sh->nparticipants,
				  NULL, &counts);
	if (ParallelWorkerNumber == 0)
		merge_and_send(sh, index, seg, toc);

	SrmPStreamWorkerEnd(toc);

	index_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);
}
