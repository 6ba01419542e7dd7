/*-------------------------------------------------------------------------
 *
 * gistsplit.c
 *	  The picksplit of a sorted GiST build's leaf batches, in parallel
 *	  workers.
 *
 * Most of a sorted GiST build is the operator class's picksplit: every
 * batch of four full pages of a level is divided again (gistSplit) before
 * it is written (gistload.c).  The leaf level's batches do not depend on
 * one another -- where one ends follows from the sorted stream and the
 * tuples' sizes alone -- so the leader sends them, as page images, to
 * workers, each through a shm_mq of its own, and takes back each batch's
 * division (the pages to write and their union keys) in the order of the
 * batches, writing them exactly as it would have written its own: right
 * links, block numbers and the downlinks to the level above, which the
 * leader builds itself, all come out as in a serial build.  When every
 * worker is busy and the oldest batch's division is not back yet, the
 * leader divides the next batch itself (unless parallel_leader_participation
 * is off) and queues its result behind the others.
 *
 * A worker has at most SRM_GS_INFLIGHT batches in flight (sent, their
 * division not yet received), and its batches' queue holds that many and
 * what a receiver may have read without yet marking it read (shm_mq marks
 * it lazily, up to a quarter of the ring): the leader's sends never wait.
 * The leader waits only for the oldest batch's division, which its worker
 * can always send, all of that worker's older ones having been read; a
 * later one may wait for room in the worker's results' queue, but the
 * leader reads it in its turn.  So no queue can stall the build, however
 * many pages a division makes.
 *
 * The workers are PostgreSQL's as many as it would plan for a parallel
 * build of the index (plan_create_index_workers), and only when every
 * support function a split calls is PARALLEL SAFE.  The parallel context
 * restores the leader's user, security context and GUCs in the workers, so
 * the operator class's functions run there as in the leader; the workers
 * join the leader's lock group to open the index.  An error in a worker
 * reaches the leader through the parallel context; the leader's abort
 * ends the workers.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/gistsplit.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/gist_private.h"
#include "access/parallel.h"
#include "catalog/pg_proc.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "storage/proc.h"
#include "storage/shm_mq.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "base/compat.h"
#include "base/settings.h"
#include "builds/buildscan.h"
#include "builds/gistsplit.h"
#include "engine/pstream.h"

#define SRM_KEY_GS_SHARED		UINT64CONST(0x5352470000000001)

#define SRM_GS_MAX_WORKERS		32
#define SRM_GS_BATCH_PAGES		4	/* gistload.c's SRM_GIST_BATCH */
#define SRM_GS_INFLIGHT			4	/* batches in flight per worker */
#define SRM_GS_LOCAL			8	/* the leader's own, queued */

/* A batch's message: this, then npages page images. */
typedef struct SrmGSBatch
{
	int32		npages;			/* 0: the end */
	int32		pad;
} SrmGSBatch;

#define SRM_GS_BATCH_MAX \
	(MAXALIGN(sizeof(SrmGSBatch)) + SRM_GS_BATCH_PAGES * BLCKSZ)
/*
 * A worker's batches' queue: room for every batch it may have in flight,
 * and for a quarter of the ring read but not yet marked read (two more
 * batches are more than a quarter of this ring).
 */
#define SRM_GS_IN_QUEUE \
	MAXALIGN((SRM_GS_INFLIGHT + 2) * (MAXALIGN(sizeof(Size)) + SRM_GS_BATCH_MAX) + 1024)
#define SRM_GS_OUT_QUEUE		(256 * 1024)

typedef struct SrmGSShared
{
	Oid			indexrelid;
	int			nworkers;
	uint64		queryid;
	/* then each worker's two queues, batches then results */
} SrmGSShared;

#define SRM_GS_QUEUES_AT	MAXALIGN(sizeof(SrmGSShared))

/* One batch in flight: at a worker, or divided by the leader. */
typedef struct SrmGSEntry
{
	int			worker;			/* -1: the leader's */
	char	   *data;			/* the leader's division */
	Size		len;
} SrmGSEntry;

struct SrmGistSplitters
{
	SrmPStream	ps;
	int			nworkers;		/* launched */
	shm_mq_handle **in;
	shm_mq_handle **out;
	int		   *inflight;
	int64	   *done;			/* batches each worker divided */
	int64		done_leader;
	int			nlocal;			/* the leader's divisions queued */
	int			next;			/* the next worker to try */
	SrmGSEntry *fifo;
	int			cap;
	int			head;
	int			len;
	char	   *given;			/* the leader's division last returned */
	char	   *aligned;		/* a copy of a result not MAXALIGNed */
	Size		aligned_size;
	MemoryContext cxt;
};

static shm_mq *
queue_of(SrmGSShared *sh, int w, bool out)
{
	return (shm_mq *) ((char *) sh + SRM_GS_QUEUES_AT +
					   (Size) w * (SRM_GS_IN_QUEUE + SRM_GS_OUT_QUEUE) +
					   (out ? SRM_GS_IN_QUEUE : 0));
}

/* no stream of records in this context */
static Size
no_records(const char *rec)
{
	return 0;
}

/*
 * SrmGistSplitBatch
 *		See gistsplit.h.  What level_flush did inline: the tuples of the
 *		batch's pages divided by picksplit, or one page kept as it is; each
 *		resulting page filled in the order of its tuples.
 */
void
SrmGistSplitBatch(Relation index, GISTSTATE *gs, Page *pages, int npages,
				  StringInfo out)
{
	bool		leaf = GistPageIsLeaf(pages[0]);
	IndexTuple *itvec;
	SrmGistSplitLayout *dist;
	int			n;
	int			i;

	itvec = gistextractpage(pages[0], &n);
	for (i = 1; i < npages; i++)
	{
		int			m;
		IndexTuple *more = gistextractpage(pages[i], &m);

		itvec = gistjoinvector(itvec, &n, more, m);
	}
	if (npages > 1)
		dist = gistSplit(index, pages[0], itvec, n, gs);
	else
	{
		dist = palloc0(sizeof(*dist));
		dist->itup = gistunion(index, itvec, n, gs);
		dist->list = gistfillitupvec(itvec, n, &dist->lenlist);
		dist->block.num = n;
	}

	for (; dist != NULL; dist = dist->next)
	{
		SrmGistSplitPage hdr;
		char	   *data = (char *) dist->list;
		Page		page;

		hdr.union_size = IndexTupleSize(dist->itup);
		enlargeStringInfo(out, MAXALIGN(sizeof(hdr)) +
						  MAXALIGN(hdr.union_size) + BLCKSZ);
		memcpy(out->data + out->len, &hdr, sizeof(hdr));
		out->len += MAXALIGN(sizeof(hdr));
		memcpy(out->data + out->len, dist->itup, hdr.union_size);
		out->len += MAXALIGN(hdr.union_size);

		page = (Page) (out->data + out->len);
		gistinitpage(page, leaf ? F_LEAF : 0);
		for (i = 0; i < dist->block.num; i++)
		{
			Size		sz = IndexTupleSize((IndexTuple) data);

			if (PageAddItem(page, data, sz, i + FirstOffsetNumber,
							false, false) == InvalidOffsetNumber)
				elog(ERROR, "failed to add item to index page in \"%s\"",
					 RelationGetRelationName(index));
			data += sz;
		}
		out->len += BLCKSZ;
		out->data[out->len] = '\0';
	}
}

/*
 * SrmGistSplitWorkers
 *		See gistsplit.h.
 */
int
SrmGistSplitWorkers(Relation heap, Relation index)
{
	/*
	 * What gistSplit, gistunion and the key's (de)compression call: the
	 * scan's compression among them.  Not sortsupport, whose comparators a
	 * parallel sort runs in its workers unchecked, as PostgreSQL's parallel
	 * btree builds run the opclass's (PostGIS does not mark its GiST
	 * sortsupport function PARALLEL SAFE; it only fills in a struct).
	 */
	static const int procs[] = {GIST_UNION_PROC, GIST_COMPRESS_PROC,
		GIST_DECOMPRESS_PROC, GIST_PENALTY_PROC, GIST_PICKSPLIT_PROC,
	GIST_EQUAL_PROC, GIST_OPTIONS_PROC};
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	int			k;
	int			i;

	if (!srmsort_parallel_build)
		return 0;
	for (k = 1; k <= nkeys; k++)
		for (i = 0; i < lengthof(procs); i++)
		{
			Oid			proc = index_getprocid(index, k, procs[i]);

			if (OidIsValid(proc) && func_parallel(proc) != PROPARALLEL_SAFE)
				return 0;
		}

	/*
	 * The planner's look at the table (and at the index's expressions and
	 * predicate, which the scan evaluates) for this; utility.c's hook acts
	 * only on CLUSTER's.
	 */
	return Min(plan_create_index_workers(RelationGetRelid(heap),
										 RelationGetRelid(index)),
			   SRM_GS_MAX_WORKERS);
}

/*
 * SrmGistSplitBegin
 *		See gistsplit.h.
 */
SrmGistSplitters *
SrmGistSplitBegin(Relation index, int nworkers)
{
	SrmGistSplitters *sp = palloc0(sizeof(SrmGistSplitters));
	SrmGSShared *sh;
	int			w;

	if (!SrmPStreamBegin(&sp->ps, (void *) srm_gist_split_main,
						 "srm_gist_split_main", nworkers, SRM_KEY_GS_SHARED,
						 add_size(SRM_GS_QUEUES_AT,
								  mul_size(nworkers,
										   SRM_GS_IN_QUEUE + SRM_GS_OUT_QUEUE)),
						 (void **) &sh, no_records))
	{
		pfree(sp);
		return NULL;
	}
	sh->indexrelid = RelationGetRelid(index);
	sh->nworkers = nworkers;
	sh->queryid = pgstat_get_my_query_id();

	sp->cxt = CurrentMemoryContext;
	sp->in = palloc0(sizeof(shm_mq_handle *) * nworkers);
	sp->out = palloc0(sizeof(shm_mq_handle *) * nworkers);
	for (w = 0; w < nworkers; w++)
	{
		shm_mq	   *in = shm_mq_create(queue_of(sh, w, false), SRM_GS_IN_QUEUE);
		shm_mq	   *out = shm_mq_create(queue_of(sh, w, true), SRM_GS_OUT_QUEUE);

		shm_mq_set_sender(in, MyProc);
		shm_mq_set_receiver(out, MyProc);
		sp->in[w] = shm_mq_attach(in, sp->ps.pcxt->seg, NULL);
		sp->out[w] = shm_mq_attach(out, sp->ps.pcxt->seg, NULL);
	}

	if (!SrmPStreamLaunch(&sp->ps))
	{
		/* the segment is gone: free the handles, no shm_mq_detach */
		for (w = 0; w < nworkers; w++)
		{
			pfree(sp->in[w]);
			pfree(sp->out[w]);
		}
		pfree(sp->in);
		pfree(sp->out);
		pfree(sp);
		return NULL;
	}
	/* a worker that did not start must not leave the leader waiting */
	sp->nworkers = sp->ps.pcxt->nworkers_launched;
	for (w = 0; w < sp->nworkers; w++)
	{
		shm_mq_set_handle(sp->in[w], sp->ps.pcxt->worker[w].bgwhandle);
		shm_mq_set_handle(sp->out[w], sp->ps.pcxt->worker[w].bgwhandle);
	}
	sp->inflight = palloc0(sizeof(int) * sp->nworkers);
	sp->done = palloc0(sizeof(int64) * sp->nworkers);
	sp->cap = sp->nworkers * SRM_GS_INFLIGHT + SRM_GS_LOCAL;
	sp->fifo = palloc0(sizeof(SrmGSEntry) * sp->cap);
	return sp;
}

/*
 * worker_gone
 *		A worker detached from a queue the build still needs: its error,
 *		if it sent one, is raised here.
 */
static void
worker_gone(SrmGistSplitters *sp)
{
	WaitForParallelWorkersToFinish(sp->ps.pcxt);
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("srmsort: a parallel worker dividing GiST pages exited early")));
}

static void
push(SrmGistSplitters *sp, int worker, char *data, Size len)
{
	SrmGSEntry *e = &sp->fifo[(sp->head + sp->len) % sp->cap];

	Assert(sp->len < sp->cap);
	e->worker = worker;
	e->data = data;
	e->len = len;
	sp->len++;
}

/*
 * SrmGistSplitSend
 *		See gistsplit.h.  The workers in turn, skipping a full one.
 */
bool
SrmGistSplitSend(SrmGistSplitters *sp, Page *pages, int npages)
{
	shm_mq_iovec iov[SRM_GS_BATCH_PAGES + 1];
	SrmGSBatch	hdr;
	int			i;

	Assert(npages >= 1 && npages <= SRM_GS_BATCH_PAGES);
	if (sp->len >= sp->cap)
		return false;
	for (i = 0; i < sp->nworkers; i++)
	{
		int			w = (sp->next + i) % sp->nworkers;
		int			p;

		if (sp->inflight[w] >= SRM_GS_INFLIGHT)
			continue;

		hdr.npages = npages;
		hdr.pad = 0;
		iov[0].data = (const char *) &hdr;
		iov[0].len = MAXALIGN(sizeof(hdr));
		for (p = 0; p < npages; p++)
		{
			iov[p + 1].data = (const char *) pages[p];
			iov[p + 1].len = BLCKSZ;
		}
		/* the queue has room for it: this does not wait */
		if (shm_mq_sendv(sp->in[w], iov, npages + 1, false, true) !=
			SHM_MQ_SUCCESS)
			worker_gone(sp);
		sp->inflight[w]++;
		push(sp, w, NULL, 0);
		sp->next = (w + 1) % sp->nworkers;
		return true;
	}
	return false;
}

/*
 * SrmGistSplitQueueLocal
 *		See gistsplit.h.
 */
bool
SrmGistSplitQueueLocal(SrmGistSplitters *sp, StringInfo out)
{
	if (sp->len >= sp->cap || sp->nlocal >= SRM_GS_LOCAL)
		return false;
	push(sp, -1, out->data, out->len);
	sp->nlocal++;
	sp->done_leader++;
	return true;
}

/*
 * SrmGistSplitNext
 *		See gistsplit.h.
 */
bool
SrmGistSplitNext(SrmGistSplitters *sp, bool wait, char **data, Size *len)
{
	SrmGSEntry *e;
	shm_mq_result res;
	Size		n;
	void	   *msg;

	if (sp->given != NULL)
	{
		pfree(sp->given);
		sp->given = NULL;
	}
	if (sp->len == 0)
		return false;
	e = &sp->fifo[sp->head];
	if (e->worker < 0)
	{
		*data = sp->given = e->data;
		*len = e->len;
		sp->nlocal--;
	}
	else
	{
		/* waits on its latch, honouring interrupts */
		res = shm_mq_receive(sp->out[e->worker], &n, &msg, !wait);
		if (res == SHM_MQ_WOULD_BLOCK)
			return false;
		if (res != SHM_MQ_SUCCESS)
			worker_gone(sp);
		if ((uintptr_t) msg % MAXIMUM_ALIGNOF != 0)
		{
			if (n > sp->aligned_size)
			{
				if (sp->aligned != NULL)
					pfree(sp->aligned);
				sp->aligned_size = Max(n, 8 * BLCKSZ);
				sp->aligned = MemoryContextAlloc(sp->cxt, sp->aligned_size);
			}
			memcpy(sp->aligned, msg, n);
			msg = sp->aligned;
		}
		*data = msg;
		*len = n;
		sp->inflight[e->worker]--;
		sp->done[e->worker]++;
	}
	sp->head = (sp->head + 1) % sp->cap;
	sp->len--;
	return true;
}

/*
 * SrmGistSplitDescribe
 *		See gistsplit.h.
 */
char *
SrmGistSplitDescribe(SrmGistSplitters *sp)
{
	StringInfoData buf;
	int			w;

	initStringInfo(&buf);
	appendStringInfo(&buf, "leaf batches divided by %d worker%s (", sp->nworkers,
					 sp->nworkers == 1 ? "" : "s");
	for (w = 0; w < sp->nworkers; w++)
		appendStringInfo(&buf, "%sworker %d " INT64_FORMAT, w > 0 ? ", " : "",
						 w, sp->done[w]);
	appendStringInfo(&buf, ") and the leader " INT64_FORMAT, sp->done_leader);
	return buf.data;
}

/*
 * SrmGistSplitRethrow
 *		See gistsplit.h.  The parallel context appends the line to the
 *		worker's context when it raises the error in the leader.
 */
void
SrmGistSplitRethrow(MemoryContext cxt)
{
	const char *tag = _("parallel worker");
	ErrorData  *edata;
	size_t		len;
	size_t		taglen = strlen(tag);

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	len = edata->context != NULL ? strlen(edata->context) : 0;
	if (edata->elevel != ERROR || len < taglen ||
		strcmp(edata->context + len - taglen, tag) != 0 ||
		(len > taglen && edata->context[len - taglen - 1] != '\n'))
	{
		FreeErrorData(edata);
		PG_RE_THROW();
	}
	if (len == taglen)
		edata->context = NULL;
	else
		edata->context[len - taglen - 1] = '\0';
	FlushErrorState();
	ReThrowError(edata);
}

/*
 * SrmGistSplitEnd
 *		See gistsplit.h.
 */
void
SrmGistSplitEnd(SrmGistSplitters *sp)
{
	SrmGSBatch	end;
	int			w;

	Assert(sp->len == 0);
	end.npages = 0;
	end.pad = 0;
	for (w = 0; w < sp->nworkers; w++)
	{
		/* a worker gone now has nothing left to do: its error is raised
		 * by SrmPStreamEnd */
		(void) shm_mq_send(sp->in[w], sizeof(end), &end, false, true);
		shm_mq_detach(sp->in[w]);
		shm_mq_detach(sp->out[w]);
	}
	SrmPStreamEnd(&sp->ps);
}

/*
 * srm_gist_split_main
 *		A worker: divide the batches the leader sends, in turn, and send
 *		back each division, until the end.
 */
void
srm_gist_split_main(dsm_segment *seg, shm_toc *toc)
{
	SrmGSShared *sh = shm_toc_lookup(toc, SRM_KEY_GS_SHARED, false);
	Relation	index;
	GISTSTATE  *gs;
	shm_mq	   *mq;
	shm_mq_handle *in;
	shm_mq_handle *out;
	Page		pages[SRM_GS_BATCH_PAGES];
	StringInfoData res;
	int			p;
	int			nbatches;

	SrmPStreamWorkerBegin(toc, sh->queryid);

	/* the leader's lock on the index; its lock group shares it */
	index = index_open(sh->indexrelid, AccessShareLock);
	gs = SrmGistStateBegin(index);

	mq = queue_of(sh, ParallelWorkerNumber, false);
	shm_mq_set_receiver(mq, MyProc);
	in = shm_mq_attach(mq, seg, NULL);
	mq = queue_of(sh, ParallelWorkerNumber, true);
	shm_mq_set_sender(mq, MyProc);
	out = shm_mq_attach(mq, seg, NULL);

	for (p = 0; p < SRM_GS_BATCH_PAGES; p++)
		pages[p] = palloc(BLCKSZ);
	initStringInfo(&res);

	for (nbatches = 1;; nbatches++)
	{
		SrmGSBatch	hdr;
		Size		n;
		void	   *msg;
		MemoryContext old;

		/* detached: the leader is failing and says why */
		if (shm_mq_receive(in, &n, &msg, false) != SHM_MQ_SUCCESS)
			break;
		memcpy(&hdr, msg, sizeof(hdr));
		if (hdr.npages <= 0 || hdr.npages > SRM_GS_BATCH_PAGES ||
			n != MAXALIGN(sizeof(hdr)) + (Size) hdr.npages * BLCKSZ)
			break;
		/* page images, MAXALIGNed as the GiST routines read them */
		for (p = 0; p < hdr.npages; p++)
			memcpy(pages[p], (char *) msg + MAXALIGN(sizeof(hdr)) +
				   (Size) p * BLCKSZ, BLCKSZ);

		if (nbatches == srmsort_debug_gist_split_fail)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("srmsort: debug_gist_split_fail at batch %d", nbatches)));

		resetStringInfo(&res);
		old = MemoryContextSwitchTo(gs->tempCxt);
		SrmGistSplitBatch(index, gs, pages, hdr.npages, &res);
		MemoryContextSwitchTo(old);
		MemoryContextReset(gs->tempCxt);
		if (shm_mq_send(out, res.len, res.data, false, true) != SHM_MQ_SUCCESS)
			break;
	}

	SrmPStreamWorkerEnd(toc);
	SrmGistStateEnd(gs);
	index_close(index, AccessShareLock);
}
