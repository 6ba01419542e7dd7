/*-------------------------------------------------------------------------
 *
 * pstream.h
 *	  What srmsort's parallel contexts share: the workers' query text and
 *	  instrumentation, waiting for the participants, and the stream of
 *	  merged records from worker 0 to the leader.
 *
 * IDENTIFICATION
 *	  src/engine/pstream.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_PSTREAM_H
#define SRM_PSTREAM_H

#include "access/parallel.h"
#include "executor/instrument.h"
#include "storage/condition_variable.h"
#include "storage/shm_mq.h"
#include "storage/spin.h"

#include "engine/sorter.h"
#include "io/disks.h"

/* The length of a record of the stream, from its first bytes. */
typedef Size (*SrmRecordSize) (const char *rec);

/* The leader's side of a context. */
typedef struct SrmPStream
{
	ParallelContext *pcxt;
	MemoryContext cxt;			/* the leader's, for the aligned copy */
	WalUsage   *walusage;
	BufferUsage *bufferusage;
	shm_mq_handle *mqh;			/* the merged stream from worker 0 */
	SrmRecordSize recsize;
	char	   *chunk;			/* its current message */
	Size		chunk_len;
	Size		chunk_pos;
	char	   *aligned;		/* a copy of a message not MAXALIGNed */
	Size		aligned_size;
	bool		done;
} SrmPStream;

/* Worker 0's side of the stream. */
typedef struct SrmPStreamSender
{
	shm_mq_handle *mqh;
	char	   *buf;
	Size		size;
	Size		used;
	bool		leader_gone;
} SrmPStreamSender;

/* This library as the workers should load it, entry: one of its functions. */
extern const char *SrmPStreamLibrary(void *entry);

/*
 * Enter parallel mode and set up a context of nworkers workers that start
 * at entry (entry_name: its name), with the shared parts and the caller's
 * state of shared_size bytes, zeroed, under key (*shared); records of the
 * stream are recsize long.  False, out of parallel mode again, if there is
 * no DSM segment for it.
 */
extern bool SrmPStreamBegin(SrmPStream *ps, void *entry, const char *entry_name,
							int nworkers, uint64 key, Size shared_size,
							void **shared, SrmRecordSize recsize);

/*
 * The shared disks (as many as a merge of maintenance_work_mem can use,
 * nfiles per disk) and the block size for nparticipants forming runs of
 * rows of tuple_bytes (0: no estimate).
 */
extern int	SrmPStreamDisks(SrmPStream *ps, SrmSharedDisks *disks, int nfiles,
							int nparticipants, double rows,
							double tuple_bytes);

/* Launch the workers; false if none could be (the context is ended). */
extern bool SrmPStreamLaunch(SrmPStream *ps);

/*
 * The leader, its own share done: once the workers are attached, publish
 * *nlaunched = nparticipants and sleep on cv until *ndone reaches it.
 */
extern void SrmPStreamLeaderWait(SrmPStream *ps, ConditionVariable *cv,
								 slock_t *mutex, int *nlaunched,
								 const int *ndone, int nparticipants);

/*
 * The next record from worker 0 (MAXALIGNed, valid until the next call),
 * or NULL at the end.  *sent_all, read under mutex, says whether worker 0
 * sent everything before it detached; if not, its error (or what says it
 * ended early) is raised.
 */
extern char *SrmPStreamNext(SrmPStream *ps, slock_t *mutex,
							const bool *sent_all);

/* Wait until worker 0 has sent its first records (or none). */
extern void SrmPStreamWaitFirst(SrmPStream *ps, slock_t *mutex,
								const bool *sent_all);

/* Wait for the workers, count their instrumentation, leave parallel mode. */
extern void SrmPStreamEnd(SrmPStream *ps);

/* Sleep on cv until *ndone equals *nexpected (> 0), both read under mutex. */
extern void SrmPStreamWaitAll(ConditionVariable *cv, slock_t *mutex,
							  const int *ndone, const int *nexpected);

/*
 * The merging sorter of a context's shared disks (its file nworkers + 1,
 * reading every participant's): share for SrmSorterUseShared.
 */
extern void SrmPStreamMergeShare(SrmSorterShare *share, SrmSharedDisks *disks,
								 int block_size, int nworkers);

/*
 * Participant q of n of a context's shared disks, writing its file myfile
 * over its share of the disks (SrmPlanParticipantDisks).
 */
extern void SrmPStreamParticipantShare(SrmSorterShare *share,
									   SrmSharedDisks *disks, int block_size,
									   int myfile, int q, int n);

/* Give s the runs listed in disk 0's file name; returns how many. */
extern int64 SrmPStreamAdopt(SrmSorter *s, SrmSharedDisks *disks,
							 const char *name);

/* "participants N (W workers and the leader), runs per participant ..."
 * for the trace: runs[p] of participant p (the leader nworkers), -1 if it
 * did not take part. */
extern char *SrmPStreamDescribe(int nparticipants, int nlaunched,
								bool leader_participates, int nworkers,
								const int64 *runs);

/* A worker's first and last steps. */
extern void SrmPStreamWorkerBegin(shm_toc *toc, uint64 queryid);
extern void SrmPStreamWorkerEnd(shm_toc *toc);

/* Worker 0: send records, in order; false once the leader is gone. */
extern void SrmPStreamSenderBegin(SrmPStreamSender *s, dsm_segment *seg,
								  shm_toc *toc);
extern bool SrmPStreamSend(SrmPStreamSender *s, const void *rec, Size len);
/* Send what is left; true if the leader received everything. */
extern bool SrmPStreamFlush(SrmPStreamSender *s);
extern void SrmPStreamSenderEnd(SrmPStreamSender *s);

#endif							/* SRM_PSTREAM_H */
