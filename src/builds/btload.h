/*-------------------------------------------------------------------------
 *
 * btload.h
 *	  Bulk loading of a btree index from index tuples in sorted order.
 *
 * IDENTIFICATION
 *	  src/builds/btload.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_BTLOAD_H
#define SRM_BTLOAD_H

#include "access/itup.h"
#include "utils/relcache.h"

typedef struct SrmBtLoader SrmBtLoader;

/*
 * Begin loading the empty index indexRel of heapRel.  Tuples must then come
 * in btree order (key columns under the index's opclasses, then heap TID).
 * Posting lists are formed when the index allows deduplication and
 * allow_dedup is true (callers pass false for unique indexes).
 */
extern SrmBtLoader *SrmBtLoadBegin(Relation heapRel, Relation indexRel,
								   bool allow_dedup);

/* Add the next tuple; the loader copies it.  May ERROR (oversized tuple). */
extern void SrmBtLoadAdd(SrmBtLoader *ld, IndexTuple itup);

/*
 * Write the upper levels and the metapage, make the index durable, and
 * release the loader.  Returns the number of pages written.
 */
extern BlockNumber SrmBtLoadFinish(SrmBtLoader *ld);

#endif							/* SRM_BTLOAD_H */
