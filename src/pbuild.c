/*-------------------------------------------------------------------------
 *
 * pbuild.c
 *	  Parallel btree builds through srmsort.
 *
 * When PostgreSQL plans workers for a btree build (plan_create_index_workers
 * sets ii_ParallelWorkers, from max_parallel_maintenance_workers, the
 * table's size and the parallel_workers reloption), srmsort launches them
 * in a parallel context of its own, as nbtsort.c does for core's build:
 * each participant -- the workers and, unless parallel_leader_participation
 * is off, the leader -- joins one parallel table scan, feeds its share of
 * the index tuples into its own sorters (maintenance_work_mem divided among
 * the participants as core divides it; work_mem for the dead tuples of
 * unique indexes), writes all of them as runs on its own disks of the
 * partition (disjoint disks where there are at least as many disks as
 * participants), and describes its runs in a file.  The leader then takes
 * every participant's runs into one sorter with the whole
 * maintenance_work_mem and merges them in one SRM merge; build.c loads the
 * btree from it exactly as after a serial scan.
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
 * IDENTIFICATION
 *	  src/pbuild.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dlfcn.h>

#include "access/nbtree.h"
#include "access/parallel.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "executor/instrument.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "storage/buffile.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/backend_status.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "disks.h"
#include "mergeplan.h"
#include "pbuild.h"
#include "sorter.h"
#include "srmsort.h"

#define SRM_KEY_SHARED			UINT64CONST(0x5352500000000001)
#define SRM_KEY_QUERY_TEXT		UINT64CONST(0x5352500000000002)
#define SRM_KEY_WAL_USAGE		UINT64CONST(0x5352500000000003)
#define SRM_KEY_BUFFER_USAGE	UINT64CONST(0x5352500000000004)

/*
 * Files per disk: each participant (workers 0 .. n-1, the leader n) and
 * the leader's merge (n + 1) write their own, once for the live tuples and
 * once for the dead ones: 2 (n + 2) files, numbered in the block slots'
 * high bits.
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
	bool		isunique;
	bool		isconcurrent;
	int			nworkers;		/* requested: numbers the files */
	int			nparticipants;	/* divides maintenance_work_mem */
	int			block_size;
	uint64		queryid;

	ConditionVariable workersdonecv;
	slock_t		mutex;
	int			nparticipantsdone;
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
	ParallelContext *pcxt;
	SrmPBShared *shared;
	Snapshot	snapshot;
	bool		leader_participates;
	int			nparticipants;	/* launched workers + leader */
	WalUsage   *walusage;
	BufferUsage *bufferusage;
	Relation	heap;
	Relation	index;
};

/*
 * live_file / dead_file
 *		The file number participant p's live or dead sorter writes; the
 *		leader's merges are participant nworkers + 1.
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
 * participant_disks
 *		The disks participant q of n writes to: a disjoint range when there
 *		are at least as many disks as participants, else one disk, shared.
 */
static void
participant_disks(int ndisks, int q, int n, int *first, int *count)
{
	if (ndisks >= n)
	{
		*first = q * ndisks / n;
		*count = (q + 1) * ndisks / n - *first;
	}
	else
	{
		*first = q % ndisks;
		*count = 1;
	}
}

/*
 * export_name
 *		The name of participant p's run list (in disk 0's file set).
 */
static void
export_name(char *name, int p)
{
	snprintf(name, MAXPGPATH, "srmruns%d", p);
}

/*
 * library_name
 *		This library as the workers should load it: its path as loaded
 *		(shared_preload_libraries may name it by path, outside $libdir).
 */
static const char *
library_name(void)
{
	Dl_info		info;

	if (dladdr((void *) srm_parallel_build_main, &info) != 0 &&
		info.dli_fname != NULL && info.dli_fname[0] == '/')
		return info.dli_fname;
	return "srmsort";
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
	IndexInfo  *ii;
	TableScanDesc scan;
	double		reltuples;
	BufFile    *f;
	char		name[MAXPGPATH];
	int64		live_runs;
	int64		dead_runs = 0;

	memset(&st, 0, sizeof(st));
	memset(&share, 0, sizeof(share));
	share.disks = &sh->disks;
	share.block_size = sh->block_size;
	participant_disks(sh->disks.ndisks, q, n, &share.first_disk, &share.ndisks);

	st.live = SrmSorterBeginIndex(heap, index, sortmem, 0, SRM_SORT_NONE);
	share.myfile = live_file(sh, p);
	SrmSorterUseShared(st.live, &share);
	if (sh->isunique)
	{
		st.dead = SrmSorterBeginIndex(heap, index,
									  Max(work_mem, srmsort_min_work_mem), 0,
									  SRM_SORT_NONE);
		share.myfile = dead_file(sh, p);
		SrmSorterUseShared(st.dead, &share);
	}

	ii = BuildIndexInfo(index);
	ii->ii_Concurrent = sh->isconcurrent;
	scan = table_beginscan_parallel(heap, ParallelTableScanFromShared(sh));
	reltuples = table_index_build_scan(heap, index, ii, true, progress,
									   SrmBuildCallback, &st, scan);

	SrmSorterFinishRuns(st.live);
	if (st.dead != NULL)
		SrmSorterFinishRuns(st.dead);
	export_name(name, p);
	f = BufFileCreateFileSet(&sh->disks.filesets[0].fs, name);
	live_runs = SrmSorterExportRuns(st.live, f);
	if (st.dead != NULL)
		dead_runs = SrmSorterExportRuns(st.dead, f);
	BufFileClose(f);
	if (st.dead != NULL)
		SrmSorterEnd(st.dead);
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

	ConditionVariableSignal(&sh->workersdonecv);
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
	ParallelContext *pcxt;
	SrmPBShared *sh;
	Snapshot	snapshot;
	Size		estshared;
	int			nparticipants;
	int			maxdisks;
	int			part_disks;
	int			querylen = 0;
	char	   *sharedquery;

	if (srmsort_merge_strategy != SRM_MERGE_SRM)
		return NULL;
	nworkers = Min(nworkers, SRM_PB_MAX_WORKERS);

	pb = palloc0(sizeof(SrmParallelBuild));
	pb->heap = heap;
	pb->index = index;
	pb->leader_participates = parallel_leader_participation;

	EnterParallelMode();
	pcxt = CreateParallelContext(library_name(), "srm_parallel_build_main",
								 nworkers);
	nparticipants = pb->leader_participates ? nworkers + 1 : nworkers;

	if (!ii->ii_Concurrent)
		snapshot = SnapshotAny;
	else
		snapshot = RegisterSnapshot(GetTransactionSnapshot());

	estshared = add_size(BUFFERALIGN(sizeof(SrmPBShared)),
						 table_parallelscan_estimate(heap, snapshot));
	shm_toc_estimate_chunk(&pcxt->estimator, estshared);
	shm_toc_estimate_chunk(&pcxt->estimator,
						   mul_size(sizeof(WalUsage), pcxt->nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator,
						   mul_size(sizeof(BufferUsage), pcxt->nworkers));
	shm_toc_estimate_keys(&pcxt->estimator, 3);
	if (debug_query_string)
	{
		querylen = strlen(debug_query_string);
		shm_toc_estimate_chunk(&pcxt->estimator, querylen + 1);
		shm_toc_estimate_keys(&pcxt->estimator, 1);
	}

	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		if (IsMVCCSnapshot(snapshot))
			UnregisterSnapshot(snapshot);
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		pfree(pb);
		return NULL;
	}

	sh = shm_toc_allocate(pcxt->toc, estshared);
	memset(sh, 0, sizeof(SrmPBShared));
	sh->heaprelid = RelationGetRelid(heap);
	sh->indexrelid = RelationGetRelid(index);
	sh->isunique = ii->ii_Unique;
	sh->isconcurrent = ii->ii_Concurrent;
	sh->nworkers = nworkers;
	sh->nparticipants = nparticipants;
	sh->queryid = pgstat_get_my_query_id();
	ConditionVariableInit(&sh->workersdonecv);
	SpinLockInit(&sh->mutex);

	/* the disks: as many as the leader's merge can use */
	maxdisks = SrmPlanParallelDisks(maintenance_work_mem);
	SrmSharedDisksInit(&sh->disks, pcxt->seg, maxdisks, 2 * (nworkers + 2));
	part_disks = Max(sh->disks.ndisks / nparticipants, 1);
	sh->block_size = SrmPlanParallelBlockSize(maintenance_work_mem,
											  maintenance_work_mem / nparticipants,
											  nparticipants, sh->disks.ndisks,
											  part_disks, estRows, tupleBytes);
	table_parallelscan_initialize(heap, ParallelTableScanFromShared(sh),
								  snapshot);
	shm_toc_insert(pcxt->toc, SRM_KEY_SHARED, sh);

	if (debug_query_string)
	{
		sharedquery = shm_toc_allocate(pcxt->toc, querylen + 1);
		memcpy(sharedquery, debug_query_string, querylen + 1);
		shm_toc_insert(pcxt->toc, SRM_KEY_QUERY_TEXT, sharedquery);
	}
	pb->walusage = shm_toc_allocate(pcxt->toc,
									mul_size(sizeof(WalUsage), pcxt->nworkers));
	shm_toc_insert(pcxt->toc, SRM_KEY_WAL_USAGE, pb->walusage);
	pb->bufferusage = shm_toc_allocate(pcxt->toc,
									   mul_size(sizeof(BufferUsage), pcxt->nworkers));
	shm_toc_insert(pcxt->toc, SRM_KEY_BUFFER_USAGE, pb->bufferusage);

	LaunchParallelWorkers(pcxt);
	pb->pcxt = pcxt;
	pb->shared = sh;
	pb->snapshot = snapshot;
	pb->nparticipants = pcxt->nworkers_launched +
		(pb->leader_participates ? 1 : 0);

	/* no worker: back out, the caller builds serially */
	if (pcxt->nworkers_launched == 0)
	{
		SrmParallelEnd(pb);
		return NULL;
	}
	return pb;
}

/*
 * SrmParallelScan
 *		See pbuild.h.  The leader's part of _bt_parallel_heapscan and
 *		_bt_leader_participate_as_worker, then the adoption of the runs.
 */
double
SrmParallelScan(SrmParallelBuild *pb, SrmBuildState *st, bool *brokenHotChain)
{
	SrmPBShared *sh = pb->shared;
	SrmSorterShare share;
	double		reltuples;
	int			p;

	if (pb->leader_participates)
		scan_and_sort(sh, pb->heap, pb->index, sh->nworkers, sh->nworkers,
					  sh->nparticipants,
					  maintenance_work_mem / pb->nparticipants, true);

	/* a worker that failed to start must not leave us waiting */
	WaitForParallelWorkersToAttach(pb->pcxt);
	for (;;)
	{
		SpinLockAcquire(&sh->mutex);
		if (sh->nparticipantsdone == pb->nparticipants)
		{
			st->havedead = sh->havedead;
			st->indtuples = sh->indtuples;
			*brokenHotChain = sh->brokenhotchain;
			reltuples = sh->reltuples;
			SpinLockRelease(&sh->mutex);
			break;
		}
		SpinLockRelease(&sh->mutex);
		ConditionVariableSleep(&sh->workersdonecv,
							   WAIT_EVENT_PARALLEL_CREATE_INDEX_SCAN);
	}
	ConditionVariableCancelSleep();

	/* the leader's merges: every disk, every participant's files */
	memset(&share, 0, sizeof(share));
	share.disks = &sh->disks;
	share.block_size = sh->block_size;
	share.myfile = live_file(sh, sh->nworkers + 1);
	share.peer_first = live_file(sh, 0);
	share.npeers = sh->nworkers + 1;
	st->live = SrmSorterBeginIndex(pb->heap, pb->index, maintenance_work_mem,
								   0, SRM_SORT_NONE);
	SrmSorterUseShared(st->live, &share);
	if (sh->isunique)
	{
		share.myfile = dead_file(sh, sh->nworkers + 1);
		share.peer_first = dead_file(sh, 0);
		st->dead = SrmSorterBeginIndex(pb->heap, pb->index,
									   Max(work_mem, srmsort_min_work_mem), 0,
									   SRM_SORT_NONE);
		SrmSorterUseShared(st->dead, &share);
	}
	for (p = 0; p <= sh->nworkers; p++)
	{
		char		name[MAXPGPATH];
		BufFile    *f;

		if (!sh->parts[p].done)
			continue;
		export_name(name, p);
		f = BufFileOpenFileSet(&sh->disks.filesets[0].fs, name, O_RDONLY,
							   false);
		SrmSorterAdoptRuns(st->live, f);
		if (st->dead != NULL)
			SrmSorterAdoptRuns(st->dead, f);
		BufFileClose(f);
	}
	return reltuples;
}

/*
 * SrmParallelDescribe
 *		See pbuild.h.
 */
char *
SrmParallelDescribe(SrmParallelBuild *pb)
{
	SrmPBShared *sh = pb->shared;
	StringInfoData buf;
	int			p;
	bool		first = true;

	initStringInfo(&buf);
	appendStringInfo(&buf, "participants %d (%d workers%s), runs per participant ",
					 pb->nparticipants, pb->pcxt->nworkers_launched,
					 pb->leader_participates ? " and the leader" : "");
	for (p = 0; p <= sh->nworkers; p++)
	{
		if (!sh->parts[p].done)
			continue;
		appendStringInfo(&buf, "%s%s %lld", first ? "" : ", ",
						 p == sh->nworkers ? "leader" : psprintf("worker %d", p),
						 (long long) (sh->parts[p].live_runs + sh->parts[p].dead_runs));
		first = false;
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
	int			i;

	WaitForParallelWorkersToFinish(pb->pcxt);
	for (i = 0; i < pb->pcxt->nworkers_launched; i++)
		InstrAccumParallelQuery(&pb->bufferusage[i], &pb->walusage[i]);
	if (IsMVCCSnapshot(pb->snapshot))
		UnregisterSnapshot(pb->snapshot);
	DestroyParallelContext(pb->pcxt);
	ExitParallelMode();
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
	WalUsage   *walusage;
	BufferUsage *bufferusage;

	debug_query_string = shm_toc_lookup(toc, SRM_KEY_QUERY_TEXT, true);
	pgstat_report_activity(STATE_RUNNING, debug_query_string);

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
	pgstat_report_query_id(sh->queryid, false);

	heap = table_open(sh->heaprelid, heapLockmode);
	index = index_open(sh->indexrelid, indexLockmode);
	SrmSharedDisksAttach(&sh->disks, seg);

	InstrStartParallelQuery();
	/*
	 * The disks are divided among the participants as planned (the leader
	 * last), whether or not all workers could be launched; the memory too,
	 * as core divides it.
	 */
	scan_and_sort(sh, heap, index, ParallelWorkerNumber, ParallelWorkerNumber,
				  sh->nparticipants, maintenance_work_mem / sh->nparticipants,
				  false);

	bufferusage = shm_toc_lookup(toc, SRM_KEY_BUFFER_USAGE, false);
	walusage = shm_toc_lookup(toc, SRM_KEY_WAL_USAGE, false);
	InstrEndParallelQuery(&bufferusage[ParallelWorkerNumber],
						  &walusage[ParallelWorkerNumber]);

	index_close(index, indexLockmode);
	table_close(heap, heapLockmode);
}
