/*-------------------------------------------------------------------------
 *
 * gistload.h
 *	  Bulk loading of a GiST index from index tuples in sorted order.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/gistload.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_GISTLOAD_H
#define SRM_GISTLOAD_H

#include "access/gist_private.h"
#include "access/itup.h"
#include "utils/relcache.h"

#include "builds/gistsplit.h"

typedef struct SrmGistLoader SrmGistLoader;

/*
 * Begin loading the empty GiST index indexRel.  giststate is the build's
 * (its tempCxt is reset by the loader after each tuple).  Tuples must then
 * come in the order of the GiST sort (sorter.h, SrmSorterBeginGist).
 * splitters: workers for the leaf level's picksplit (gistsplit.h), or
 * NULL; the caller ends them after SrmGistLoadFinish.
 */
extern SrmGistLoader *SrmGistLoadBegin(Relation indexRel, GISTSTATE *giststate,
									   SrmGistSplitters *splitters);

/* Add the next leaf tuple; the loader copies it. */
extern void SrmGistLoadAdd(SrmGistLoader *ld, IndexTuple itup);

/*
 * Write the partly filled pages and the upper levels, the root last into
 * block 0, make the index durable and release the loader.  Returns the
 * number of pages written.
 */
extern BlockNumber SrmGistLoadFinish(SrmGistLoader *ld);

#endif							/* SRM_GISTLOAD_H */
