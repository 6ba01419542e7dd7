/*-------------------------------------------------------------------------
 *
 * gistsplit.h
 *	  The picksplit of a sorted GiST build's leaf batches, in parallel
 *	  workers.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/gistsplit.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_GISTSPLIT_H
#define SRM_GISTSPLIT_H

#include "access/gist_private.h"
#include "lib/stringinfo.h"
#include "storage/dsm.h"
#include "storage/shm_toc.h"
#include "utils/relcache.h"

typedef struct SrmGistSplitters SrmGistSplitters;

/*
 * A batch's division, as the loader writes it: for each resulting page in
 * order, an SrmGistSplitPage, its union tuple (MAXALIGNed) and the page
 * itself (BLCKSZ, its right link and LSN still unset).
 */
typedef struct SrmGistSplitPage
{
	Size		union_size;
} SrmGistSplitPage;

/*
 * Divide the tuples of pages[0 .. npages-1] of a level as PostgreSQL's
 * sorted build does (picksplit for more than one page, the page as it is
 * for one) and append the result to out.  Allocates in CurrentMemoryContext.
 */
extern void SrmGistSplitBatch(Relation index, GISTSTATE *gs, Page *pages,
							  int npages, StringInfo out);

/*
 * Workers for the build of index on heap (its scan and sort, and the
 * picksplit): as many as PostgreSQL would plan for a parallel build of it
 * (none if its expressions or predicate are not parallel safe); 0 if
 * none, or if a support function the scan or the split calls is not
 * PARALLEL SAFE.
 */
extern int	SrmGistSplitWorkers(Relation heap, Relation index);

/* Launch nworkers; NULL if none could be launched (the caller splits). */
extern SrmGistSplitters *SrmGistSplitBegin(Relation index, int nworkers);

/*
 * Send the batch pages[0 .. npages-1] to a worker with room for it; false
 * if every worker has as many batches in flight as it may.
 */
extern bool SrmGistSplitSend(SrmGistSplitters *sp, Page *pages, int npages);

/*
 * Queue a division the leader made itself (out's data, palloc'd, now the
 * queue's), to be returned in its turn.  False if the queue is full.
 */
extern bool SrmGistSplitQueueLocal(SrmGistSplitters *sp, StringInfo out);

/*
 * The oldest batch's division (MAXALIGNed, valid until the next call):
 * true and *data, *len if there is one and it is ready, or wait (when
 * wait) until it is; false if no batch is in flight, or none ready.
 */
extern bool SrmGistSplitNext(SrmGistSplitters *sp, bool wait, char **data,
							 Size *len);

/* "batches divided by N workers (...) and the leader (...)": the trace */
extern char *SrmGistSplitDescribe(SrmGistSplitters *sp);

/*
 * In PG_CATCH around the build with workers: rethrow the error, without
 * the CONTEXT line "parallel worker" if a worker raised it (allocates in
 * cxt).
 */
extern void SrmGistSplitRethrow(MemoryContext cxt);

/* Stop the workers (no batch may be in flight) and leave parallel mode. */
extern void SrmGistSplitEnd(SrmGistSplitters *sp);

/* A worker's entry point (by name, from the parallel context). */
extern PGDLLEXPORT void srm_gist_split_main(dsm_segment *seg, shm_toc *toc);

#endif							/* SRM_GISTSPLIT_H */
