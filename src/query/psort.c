/*-------------------------------------------------------------------------
 *
 * psort.c
 *	  One ORDER BY on every core: runs formed by parallel workers, merged
 *	  once by the leader.
 *
 * PostgreSQL sorts in parallel only under a Gather Merge: every worker
 * sorts its share and the leader merges the workers' sorted streams
 * through tuple queues, one tuple at a time.  The planner prices every
 * tuple through a queue (parallel_tuple_cost), so a sort that returns its
 * whole input, the usual large ORDER BY, is planned without workers.
 * srmsort splits such a sort as its parallel index builds do (pbuild.c):
 *
 *	 SRMSort				   the leader: one SRM merge of every run
 *	   -> Gather			   launches the workers, carries no tuples
 *		   -> SRMSort		   every participant: its share of the scan
 *								   sorted into runs on the shared disks
 *			   -> Parallel Seq Scan
 *
 * (plan.c makes the plan.)  The lower SRMSort is parallel-aware: through
 * the custom scan's DSM callbacks it keeps this file's shared state in the
 * Gather's DSM segment: the workfile disks (one SharedFileSet each, as
 * for a parallel build: the files outlive the worker that wrote them and
 * go when the leader detaches, after an error too), the block size every
 * participant uses, and which participants have described their runs.
 * Each participant -- every worker, and the leader when it runs the
 * Gather's plan itself -- forms runs with its own work_mem, as a worker's
 * Sort under a Gather Merge would, writes them to its own disks of the
 * partition, describes them in a file of the shared set and returns no
 * tuple.  When the Gather has returned its last (empty) result, every
 * participant has finished; the upper SRMSort then takes all their runs
 * into one sorter with work_mem and merges them as if it had written them:
 * one SRM merge, one forecasting heap, the result streamed to the parent
 * from the page cache with no tuple queue in between.
 *
 * Without parallel mode (a portal fetched in pieces) the Gather runs its
 * plan in the leader without a DSM segment; the lower SRMSort then passes
 * its input through and the upper one sorts it alone (node.c).
 *
 * IDENTIFICATION
 *	  src/query/psort.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "storage/buffile.h"
#include "storage/spin.h"

#include "engine/pstream.h"
#include "io/disks.h"
#include "merge/mergeplan.h"
#include "query/psort.h"

/* Participants: the workers 0 .. nworkers - 1 and the leader, nworkers. */
#define SRM_PS_MAX_PARTS	(SRM_MAX_SHARED_FILES - 1)

struct SrmPSortShared
{
	dsm_handle	seg;			/* the Gather's segment, for the workers */
	int			nworkers;		/* planned: numbers the files */
	int			block_size;
	slock_t		mutex;
	bool		done[SRM_PS_MAX_PARTS];	/* runs described */
	SrmSharedDisks disks;
};

/*
 * participant
 *		This process's participant number.
 */
static int
participant(SrmPSortShared *sh)
{
	return IsParallelWorker() ? ParallelWorkerNumber : sh->nworkers;
}

/*
 * runs_name
 *		The name of participant p's list of runs, in disk 0's file set.
 */
static void
runs_name(char *name, int p)
{
	snprintf(name, MAXPGPATH, "srmsortruns%d", p);
}

/*
 * SrmPSortEstimate
 *		See psort.h.
 */
Size
SrmPSortEstimate(void)
{
	return MAXALIGN(sizeof(SrmPSortShared));
}

/*
 * SrmPSortInit
 *		See psort.h.  The disks are those a merge with workMemKB can use,
 *		of the partition the leader takes.
 */
SrmPSortShared *
SrmPSortInit(void *space, dsm_segment *seg, int nworkers, int workMemKB,
			 double rows, double tuple_bytes)
{
	SrmPSortShared *sh = (SrmPSortShared *) space;
	int			nparts;
	int			first,
				count;

	nworkers = Min(nworkers, SRM_PS_MAX_PARTS - 1);
	memset(sh, 0, sizeof(SrmPSortShared));
	sh->seg = dsm_segment_handle(seg);
	sh->nworkers = nworkers;
	SpinLockInit(&sh->mutex);
	/* the files: one per participant, and the leader's merge */
	SrmSharedDisksInit(&sh->disks, seg,
					   SrmPlanParallelDisks(SrmSorterPlanLimits(), workMemKB),
					   nworkers + 2);
	nparts = nworkers + 1;
	SrmPlanParticipantDisks(sh->disks.ndisks, 0, nparts, &first, &count);
	sh->block_size = SrmPlanParallelBlockSize(SrmSorterPlanLimits(),
											  workMemKB, workMemKB, nparts,
											  sh->disks.ndisks, count,
											  rows, tuple_bytes);
	return sh;
}

/*
 * SrmPSortReInit
 *		See psort.h.  The participants' files of the last sort are deleted;
 *		the next one creates them again.
 */
void
SrmPSortReInit(SrmPSortShared *sh)
{
	int			i;

	for (i = 0; i < sh->disks.ndisks; i++)
		SharedFileSetDeleteAll(&sh->disks.filesets[i]);
	SpinLockAcquire(&sh->mutex);
	memset(sh->done, 0, sizeof(sh->done));
	SpinLockRelease(&sh->mutex);
}

/*
 * SrmPSortAttach
 *		See psort.h.
 */
void
SrmPSortAttach(SrmPSortShared *sh)
{
	dsm_segment *seg = dsm_find_mapping(sh->seg);

	if (seg == NULL)
		elog(ERROR, "srmsort: the parallel sort's segment is not attached");
	SrmSharedDisksAttach(&sh->disks, seg);
}

/*
 * SrmPSortShare
 *		See psort.h.  Participant q of the nworkers + 1 writes to its share
 *		of the disks (SrmPlanParticipantDisks).
 */
void
SrmPSortShare(SrmPSortShared *sh, SrmSorter *s)
{
	SrmSorterShare share;
	int			p = participant(sh);

	SrmPStreamParticipantShare(&share, &sh->disks, sh->block_size, p, p,
							   sh->nworkers + 1);
	SrmSorterUseShared(s, &share);
}

/*
 * SrmPSortFinish
 *		See psort.h.
 */
void
SrmPSortFinish(SrmPSortShared *sh, SrmSorter *s)
{
	char		name[MAXPGPATH];
	BufFile    *f;
	int			p = participant(sh);

	SrmSorterFinishRuns(s);
	runs_name(name, p);
	f = BufFileCreateFileSet(&sh->disks.filesets[0].fs, name);
	(void) SrmSorterExportRuns(s, f);
	BufFileClose(f);
	SpinLockAcquire(&sh->mutex);
	sh->done[p] = true;
	SpinLockRelease(&sh->mutex);
}

/*
 * SrmPSortAdopt
 *		See psort.h.
 */
int
SrmPSortAdopt(SrmPSortShared *sh, SrmSorter *s)
{
	SrmSorterShare share;
	int			p;
	int			n = 0;

	SrmPStreamMergeShare(&share, &sh->disks, sh->block_size, sh->nworkers);
	SrmSorterUseShared(s, &share);
	for (p = 0; p <= sh->nworkers; p++)
	{
		char		name[MAXPGPATH];
		bool		done;

		SpinLockAcquire(&sh->mutex);
		done = sh->done[p];
		SpinLockRelease(&sh->mutex);
		if (!done)
			continue;
		runs_name(name, p);
		(void) SrmPStreamAdopt(s, &sh->disks, name);
		n++;
	}
	return n;
}
