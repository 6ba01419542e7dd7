/*-------------------------------------------------------------------------
 *
 * relwrite.h
 *	  Writing a new relation fork's blocks in the background (io_uring).
 *
 * IDENTIFICATION
 *	  src/io/relwrite.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_RELWRITE_H
#define SRM_RELWRITE_H

#include "storage/block.h"
#include "storage/bufpage.h"
#include "utils/rel.h"

typedef struct SrmRelWriter SrmRelWriter;

/*
 * Begin writing the main fork of rel, empty so far, in CurrentMemoryContext.
 * Blocks should come roughly in ascending order; any order is correct.
 */
extern SrmRelWriter *SrmRelWriterBegin(Relation rel);

/* Write page (checksummed already) to blkno; the writer copies it. */
extern void SrmRelWriterPut(SrmRelWriter *w, BlockNumber blkno, Page page);

/*
 * Write what is still buffered, wait until every write is done and close
 * the files.  Returns the fork's length in blocks.  ERRORs as PostgreSQL's
 * storage manager would on a failed write.
 */
extern BlockNumber SrmRelWriterEnd(SrmRelWriter *w);

#endif							/* SRM_RELWRITE_H */
