/*-------------------------------------------------------------------------
 *
 * pbuild.c
 *	  Parallel btree and sorted GiST builds through srmsort.
 *
 * When PostgreSQL plans workers for a btree build (plan_create_index_workers
 * sets ii_ParallelWorkers, from max_parallel_maintenance_workers, the
 * table's size and the parallel_workers reloption), srmsort launches them
 * in a parallel context of its own, as nbtsort.c does for core's build
 * (gistbuild.c does the same for a sorted GiST build, which PostgreSQL
 * builds serially, when it may: see there):
 * each participant -- the workers and, unless parallel_leader_participation
 * is off, the leader -- joins one parallel table scan, feeds its share of
 * the index tuples into its own sorters (maintenance_work_mem divided among
 * the participants as core divides it; work_mem for the dead tuples of
 * unique indexes), writes all of them as runs on its share of the disks
 * of the partition (SrmPlanParticipantDisks), and describes its runs in a
 * file.  Worker 0 then takes
 * every participant's live runs into one sorter with the whole
 * maintenance_work_mem, merges them in one SRM merge and sends the tuples
 * through a shm_mq to the leader, which loads the btree from them (and
 * from its own merge of the dead tuples) exactly as after a serial scan:
 * the merge and the load, the build's serial tail, run on two CPUs.  A GiST
 * build's participants compress the keys with the operator classes (each
 * with its own GISTSTATE) and sort them in GiST's order (sortsupport, then
 * heap TID): the merged stream is the serial build's, tuple for tuple.
 *
 * Workfiles live in SharedFileSets in the parallel context's DSM segment
 * (disks.c), so they outlive the participant that wrote them and are
 * deleted when the leader detaches, after an error too; a crash restart
 * removes them as all temporary files.  An error in a worker reaches the
 * leader through the parallel context and ends the build; the leader's
 * abort terminates the workers.
 *
 * The parallel context restores the leader's user, security context, GUCs
 * and search_path in the workers, so expressions and predicates run there
 * as in the leader (under the table owner, security-restricted).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/pbuild.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/parallel.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_am_d.h"
#include "commands/progress.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "storage/buffile.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "base/compat.h"
#include "base/settings.h"
#include "builds/pbuild.h"
#include "engine/pstream.h"
#include "engine/sorter.h"
#include "io/disks.h"
#include "merge/mergeplan.h"

#define SRM_KEY_SHARED			UINT64CONST(0x5352500000000001)

/*
 * Files per disk: each participant (workers 0 .. n-1, the leader n) and
 * the merges (n + 1: worker 0's of the live tuples, the leader's of the
 * dead ones) write their own, for live and for dead tuples: 2 (n + 2)
 * files, numbered in the block slots' high bits.
 */
#define SRM_PB_MAX_WORKERS	(SRM_MAX_SHARED_FILES / 2 - 2)

typedef struct SrmPBParticipant
{
	bool		done;
	int64		live_runs;
	int64		dead_runs;
	double		tuples;
} SrmPBParticipant;

typedef struct SrmPBShared
{
	Oid			heaprelid;
	Oid			indexrelid;
	bool		gist;			/* a sorted GiST build */
	bool		isunique;
	bool		isconcurrent;
	int			nworkers;		/* requested: numbers the files */
	int			nparticipants;	/* divides maintenance_work_mem */
	int			block_size;
	uint64		queryid;

	ConditionVariable workersdonecv;
	ConditionVariable barriercv;	/* srmsort.debug_scan_barrier */
	slock_t		mutex;
	int			nscanners;		/* participants launched, for the barrier */
	int			narrived;		/* ... and those at it */
	int			nparticipantsdone;
	int			nlaunched;		/* participants launched, set by the leader
								 * once they are (0 until then) */
	bool		merge_done;		/* worker 0 sent the whole merge */
	SrmSortStats merge_stats;	/* ... and these are its facts */
	double		reltuples;
	bool		havedead;
	double		indtuples;
	bool		brokenhotchain;
	SrmPBParticipant parts[SRM_PB_MAX_WORKERS + 1];	/* by participant */

	SrmSharedDisks disks;
	/* the parallel table scan follows, BUFFERALIGNed */
} SrmPBShared;

#define ParallelTableScanFromShared(shared) \
	(ParallelTableScanDesc) ((char *) (shared) + BUFFERALIGN(sizeof(SrmPBShared)))

struct SrmParallelBuild
{
	SrmPStream	ps;				/* the context, and worker 0's merged
								 * index tuples */
	SrmPBShared *shared;
	Snapshot	snapshot;
	bool		leader_participates;
	int			nparticipants;	/* launched workers + leader */
	Relation	heap;
	Relation	index;
};

/*
 * live_file / dead_file
 *		The file number participant p's live or dead sorter writes; the
 *		merges (worker 0's, the leader's) are participant nworkers + 1.
 */
static inline int
live_file(SrmPBShared *sh, int p)
{
	return p;
}

static inline int
dead_file(SrmPBShared *sh, int p)
{
	return sh->nworkers + 2 + p;
}

/*
 * export_name
 *		The name of participant p's list of live (or dead) runs, in disk 0's
 *		file set.
 */
static void
export_name(char *name, int p, bool dead)
{
	snprintf(name, MAXPGPATH, "srmruns%d%s", p, dead ? "d" : "");
}

/*
 * adopt_runs
 *		Give every participant's live (or dead) runs to s.
 */
static void
adopt_runs(SrmPBShared *sh, SrmSorter *s, bool dead)
{
	int			p;

	for (p = 0; p <= sh->nworkers; p++)
	{
		char		name[MAXPGPATH];

		if (!sh->parts[p].done)
			continue;
		export_name(name, p, dead);
		(void) SrmPStreamAdopt(s, &sh->disks, name);
	}
}

/*
 * begin_sorter
 *		A sorter of the index's tuples, in its order, with memKB.
 */
static SrmSorter *
begin_sorter(SrmPBShared *sh, Relation heap, Relation index, int memKB)
{
	if (sh->gist)
		return SrmSorterBeginGist(index, memKB, 0, SRM_SORT_NONE);
	return SrmSorterBeginIndex(heap, index, memKB, 0, SRM_SORT_NONE);
}

/*
 * merge_sorter
 *		A sorter for the merge of every participant's live (or dead) runs,
 *		with memKB, writing its intermediate merges to the merge's files.
 */
static SrmSorter *
merge_sorter(SrmPBShared *sh, Relation heap, Relation index, int memKB,
			 bool dead)
{
	SrmSorterShare share;
	SrmSorter  *s;

	memset(&share, 0, sizeof(share));
	share.disks = &sh->disks;
	share.block_size = sh->block_size;
	share.myfile = dead ? dead_file(sh, sh->nworkers + 1) :
		live_file(sh, sh->nworkers + 1);
	share.peer_first = dead ? dead_file(sh, 0) : live_file(sh, 0);
	share.npeers = sh->nworkers + 1;
	s = begin_sorter(sh, heap, index, memKB);
	SrmSorterUseShared(s, &share);
	adopt_runs(sh, s, dead);
	return s;
}

/*
 * participant_mem
 *		A participant's memory (kB): its share of maintenance_work_mem, as
 *		core divides it, unless srmsort.debug_participant_mem sets another.
 */
static int
participant_mem(int nparticipants)
{
	if (srmsort_debug_participant_mem > 0)
		return srmsort_debug_participant_mem;
	return maintenance_work_mem / nparticipants;
}

/* A participant's scan under srmsort.debug_scan_barrier. */
typedef struct SrmPBBarrierScan
{
	SrmBuildState *st;
	SrmPBShared *sh;
	bool		arrived;
} SrmPBBarrierScan;

/*
 * arrive
 *		srmsort.debug_scan_barrier: wait until every participant has a row
 *		of its own (or has ended its scan without one).  A participant
 *		holds the block of its first row meanwhile, so none can take all.
 */
static void
arrive(SrmPBBarrierScan *bs)
{
	SrmPBShared *sh = bs->sh;

	bs->arrived = true;
	SpinLockAcquire(&sh->mutex);
	sh->narrived++;
	SpinLockRelease(&sh->mutex);
	ConditionVariableBroadcast(&sh->barriercv);
	SrmPStreamWaitAll(&sh->barriercv, &sh->mutex, &sh->narrived,
					  &sh->nscanners);
}

/* SrmBuildCallback, after the barrier at the first row */
static void
barrier_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
				 bool tupleIsAlive, void *state)
{
	SrmPBBarrierScan *bs = (SrmPBBarrierScan *) state;

	if (!bs->arrived)
		arrive(bs);
	SrmBuildCallback(index, tid, values, isnull, tupleIsAlive, bs->st);
}

/*
 * scan_and_sort
 *		One participant's part: join the parallel scan, form runs of its
 *		share with sortmem kB (work_mem for dead tuples), describe them and
 *		report to the leader.  p numbers the participant, q places it among
 *		the n participants on the disks.
 */
static void
scan_and_sort(SrmPBShared *sh, Relation heap, Relation index, int p, int q,
			  int n, int sortmem, bool progress)
{
	SrmBuildState st;
	SrmSorterShare share;
	SrmPBBarrierScan bs;
	IndexInfo  *ii;
	TableScanDesc scan;
	double		reltuples;
	BufFile    *f;
	char		name[MAXPGPATH];
	int64		live_runs;
	int64		dead_runs = 0;

	memset(&st, 0, sizeof(st));
	SrmPStreamParticipantShare(&share, &sh->disks, sh->block_size,
							   live_file(sh, p), q, n);

	st.live = begin_sorter(sh, heap, index, sortmem);
	SrmSorterUseShared(st.live, &share);
	if (sh->isunique)
	{
		st.dead = SrmSorterBeginIndex(heap, index,
									  Max(work_mem, srmsort_min_work_mem), 0,
									  SRM_SORT_NONE);
		share.myfile = dead_file(sh, p);
		SrmSorterUseShared(st.dead, &share);
	}

	if (sh->gist)
		st.giststate = SrmGistStateBegin(index);

	ii = BuildIndexInfo(index);
	ii->ii_Concurrent = sh->isconcurrent;
	scan = SrmTableBeginScanParallel(heap, ParallelTableScanFromShared(sh));
	if (!srmsort_debug_scan_barrier)
		reltuples = table_index_build_scan(heap, index, ii, true, progress,
										   SrmBuildCallback, &st, scan);
	else
	{
		bs.st = &st;
		bs.sh = sh;
		bs.arrived = false;
		reltuples = table_index_build_scan(heap, index, ii, true, progress,
										   barrier_callback, &bs, scan);
		if (!bs.arrived)
			arrive(&bs);
	}
	if (st.giststate != NULL)
		SrmGistStateEnd(st.giststate);

	SrmSorterFinishRuns(st.live);
	if (st.dead != NULL)
		SrmSorterFinishRuns(st.dead);
	export_name(name, p, false);
	f = BufFileCreateFileSet(&sh->disks.filesets[0].fs, name);
	live_runs = SrmSorterExportRuns(st.live, f);
	BufFileClose(f);
	if (st.dead != NULL)
	{
		export_name(name, p, true);
		f = BufFileCreateFileSet(&sh->disks.filesets[0].fs, name);
		dead_runs = SrmSorterExportRuns(st.dead, f);
		BufFileClose(f);
		SrmSorterEnd(st.dead);
	}
	SrmSorterEnd(st.live);

	SpinLockAcquire(&sh->mutex);
	sh->nparticipantsdone++;
	sh->reltuples += reltuples;
	if (st.havedead)
		sh->havedead = true;
	sh->indtuples += st.indtuples;
	if (ii->ii_BrokenHotChain)
		sh->brokenhotchain = true;
	sh->parts[p].done = true;
	sh->parts[p].live_runs = live_runs;
	sh->parts[p].dead_runs = dead_runs;
	sh->parts[p].tuples = st.indtuples;
	SpinLockRelease(&sh->mutex);

	/* the leader and worker 0 both wait for this */
	ConditionVariableBroadcast(&sh->workersdonecv);
}

/*
 * merge_and_send
 *		Worker 0, once every participant is done: merge all live runs and
 *		send the tuples to the leader, which loads the btree meanwhile --
 *		the build's serial tail on two CPUs instead of one.
 */
static void
merge_and_send(SrmPBShared *sh, Relation heap, Relation index,
			   dsm_segment *seg, shm_toc *toc)
{
	SrmPStreamSender sender;
	SrmSorter  *s;
	IndexTuple	itup;
	bool		sent;

	SrmPStreamSenderBegin(&sender, seg, toc);
	SrmPStreamWaitAll(&sh->workersdonecv, &sh->mutex, &sh->nparticipantsdone,
					  &sh->nlaunched);

	s = merge_sorter(sh, heap, index, maintenance_work_mem, false);
	SrmSorterPerform(s);
	while ((itup = SrmSorterGetIndexTuple(s)) != NULL &&
		   SrmPStreamSend(&sender, itup, IndexTupleSize(itup)))
		;
	sent = SrmPStreamFlush(&sender);

	/* the leader reads the facts only once it sees merge_done */
	SrmSorterGetStats(s, &sh->merge_stats);
	SpinLockAcquire(&sh->mutex);
	sh->merge_done = sent;
	SpinLockRelease(&sh->mutex);
	SrmPStreamSenderEnd(&sender);
	SrmSorterEnd(s);
}

/* the length of a merged index tuple, for the stream */
static Size
index_tuple_size(const char *rec)
{
	return IndexTupleSize((IndexTuple) rec);
}

/*
 * SrmParallelBegin
 *		See pbuild.h.  Mirrors _bt_begin_parallel.
 */
SrmParallelBuild *
SrmParallelBegin(Relation heap, Relation index, IndexInfo *ii, int nworkers,
				 double estRows, double tupleBytes)
{
	SrmParallelBuild *pb;
	SrmPBShared *sh;
	Snapshot	snapshot;
	int			nparticipants;

	if (srmsort_merge_strategy != SRM_MERGE_SRM)
		return NULL;
	nworkers = Min(nworkers, SRM_PB_MAX_WORKERS);

	pb = palloc0(sizeof(SrmParallelBuild));
	pb->heap = heap;
	pb->index = index;
	pb->leader_participates = parallel_leader_participation;
	nparticipants = pb->leader_participates ? nworkers + 1 : nworkers;

	if (!ii->ii_Concurrent)
		snapshot = SnapshotAny;
	else
		snapshot = RegisterSnapshot(GetTransactionSnapshot());
	if (!SrmPStreamBegin(&pb->ps, (void *) srm_parallel_build_main,
						 "srm_parallel_build_main", nworkers, SRM_KEY_SHARED,
						 add_size(BUFFERALIGN(sizeof(SrmPBShared)),
								  table_parallelscan_estimate(heap, snapshot)),
						 (void **) &sh, index_tuple_size))
	{
		if (IsMVCCSnapshot(snapshot))
			UnregisterSnapshot(snapshot);
		pfree(pb);
		return NULL;
	}
	sh->heaprelid = RelationGetRelid(heap);
	sh->indexrelid = RelationGetRelid(index);
	sh->gist = index->rd_rel->relam == GIST_AM_OID;
	sh->isunique = ii->ii_Unique;
	sh->isconcurrent = ii->ii_Concurrent;
	sh->nworkers = nworkers;
	sh->nparticipants = nparticipants;
	sh->queryid = pgstat_get_my_query_id();
	ConditionVariableInit(&sh->workersdonecv);
	ConditionVariableInit(&sh->barriercv);
	SpinLockInit(&sh->mutex);
	sh->block_size = SrmPStreamDisks(&pb->ps, &sh->disks, 2 * (nworkers + 2),
									 nparticipants, estRows, tupleBytes);
	table_parallelscan_initialize(heap, ParallelTableScanFromShared(sh),
								  snapshot);
	pb->shared = sh;
	pb->snapshot = snapshot;

	/* no worker: back out, the caller builds serially; the stream is gone */
	if (!SrmPStreamLaunch(&pb->ps))
	{
		if (IsMVCCSnapshot(snapshot))
			UnregisterSnapshot(snapshot);
		pfree(pb);
		return NULL;
	}
	pb->nparticipants = pb->ps.pcxt->nworkers_launched +
		(pb->leader_participates ? 1 : 0);
	SpinLockAcquire(&sh->mutex);
	sh->nscanners = pb->nparticipants;
	SpinLockRelease(&sh->mutex);
	ConditionVariableBroadcast(&sh->barriercv);
	return pb;
}

/*
 * SrmParallelScan
 *		See pbuild.h.  The leader's part of _bt_parallel_heapscan and
 *		_bt_leader_participate_as_worker, then the adoption of the dead
 *		tuples' runs.
 */
double
SrmParallelScan(SrmParallelBuild *pb, SrmBuildState *st, bool *brokenHotChain)
{
	SrmPBShared *sh = pb->shared;
	double		reltuples;

	if (pb->leader_participates)
		scan_and_sort(sh, pb->heap, pb->index, sh->nworkers, sh->nworkers,
					  sh->nparticipants, participant_mem(pb->nparticipants), true);

	SrmPStreamLeaderWait(&pb->ps, &sh->workersdonecv, &sh->mutex,
						 &sh->nlaunched, &sh->nparticipantsdone,
						 pb->nparticipants);
	SpinLockAcquire(&sh->mutex);
	st->havedead = sh->havedead;
	st->indtuples = sh->indtuples;
	*brokenHotChain = sh->brokenhotchain;
	reltuples = sh->reltuples;
	SpinLockRelease(&sh->mutex);

	/* worker 0 merges the live runs (SrmParallelNextTuple); dead ones here */
	st->live = NULL;
	st->pipe = pb;
	if (sh->isunique)
		st->dead = merge_sorter(sh, pb->heap, pb->index,
								Max(work_mem, srmsort_min_work_mem), true);
	return reltuples;
}

/*
 * SrmParallelNextTuple
 *		See pbuild.h.
 */
IndexTuple
SrmParallelNextTuple(SrmParallelBuild *pb)
{
	return (IndexTuple) SrmPStreamNext(&pb->ps, &pb->shared->mutex,
									   &pb->shared->merge_done);
}

/*
 * SrmParallelWaitMerge
 *		See pbuild.h.
 */
void
SrmParallelWaitMerge(SrmParallelBuild *pb)
{
	SrmPStreamWaitFirst(&pb->ps, &pb->shared->mutex, &pb->shared->merge_done);
}

/*
 * SrmParallelMergeStats
 *		See pbuild.h.
 */
void
SrmParallelMergeStats(SrmParallelBuild *pb, SrmSortStats *stats)
{
	/* written before merge_done, which the end of the stream has shown */
	Assert(pb->ps.done);
	*stats = pb->shared->merge_stats;
}

/*
 * SrmParallelDescribe
 *		See pbuild.h.
 */
char *
SrmParallelDescribe(SrmParallelBuild *pb)
{
	SrmPBShared *sh = pb->shared;
	int64		runs[SRM_PB_MAX_WORKERS + 1];
	int			p;
	char	   *desc;
	StringInfoData buf;
	bool		first = true;

	for (p = 0; p <= sh->nworkers; p++)
		runs[p] = sh->parts[p].done ?
			sh->parts[p].live_runs + sh->parts[p].dead_runs : -1;
	desc = SrmPStreamDescribe(pb->nparticipants, pb->ps.pcxt->nworkers_launched,
							  pb->leader_participates, sh->nworkers, runs);
	if (!sh->gist)
		return desc;

	/* a GiST build's scan is serial in PostgreSQL: show each share */
	initStringInfo(&buf);
	appendStringInfo(&buf, "%s, tuples per participant ", desc);
	for (p = 0; p <= sh->nworkers; p++)
	{
		if (!sh->parts[p].done)
			continue;
		if (first)
			first = false;
		else
			appendStringInfoString(&buf, ", ");
		if (p == sh->nworkers)
			appendStringInfoString(&buf, "leader");
		else
			appendStringInfo(&buf, "worker %d", p);
		appendStringInfo(&buf, " %.0f", sh->parts[p].tuples);
	}
	return buf.data;
}

/*
 * SrmParallelEnd
 *		See pbuild.h.  As _bt_end_parallel.
 */
void
SrmParallelEnd(SrmParallelBuild *pb)
{
	SrmPStreamEnd(&pb->ps);
	if (IsMVCCSnapshot(pb->snapshot))
		UnregisterSnapshot(pb->snapshot);
}

/*
 * srm_parallel_build_main
 *		A worker of a parallel build.  Mirrors _bt_parallel_build_main.
 */
void
srm_parallel_build_main(dsm_segment *seg, shm_toc *toc)
{
	SrmPBShared *sh;
	Relation	heap;
	Relation	index;
	LOCKMODE	heapLockmode;
	LOCKMODE	indexLockmode;

	sh = shm_toc_lookup(toc, SRM_KEY_SHARED, false);
	if (!sh->isconcurrent)
	{
		heapLockmode = ShareLock;
		indexLockmode = AccessExclusiveLock;
	}
	else
	{
		heapLockmode = ShareUpdateExclusiveLock;
		indexLockmode = RowExclusiveLock;
	}
	SrmPStreamWorkerBegin(toc, sh->queryid);

	heap = table_open(sh->heaprelid, heapLockmode);
	index = index_open(sh->indexrelid, indexLockmode);
	SrmSharedDisksAttach(&sh->disks, seg);

	/*
	 * The disks are divided among the participants as planned (the leader
	 * last), whether or not all workers could be launched; the memory too,
	 * as core divides it.
	 */
	scan_and_sort(sh, heap, index, ParallelWorkerNumber, ParallelWorkerNumber,
				  sh->nparticipants, participant_mem(sh->nparticipants), false);
	if (ParallelWorkerNumber == 0)
		merge_and_send(sh, heap, index, seg, toc);

	SrmPStreamWorkerEnd(toc);

	index_close(index, indexLockmode);
	table_close(heap, heapLockmode);
}
