/*-------------------------------------------------------------------------
 *
 * runwriter.h
 *	  Writing a striped run: blocks, forecast entries, big records.
 *
 * IDENTIFICATION
 *	  src/runs/runwriter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_RUNWRITER_H
#define SRM_RUNWRITER_H

#include "runs/tape.h"

/* A run being written, through 2*D block buffers. */
typedef struct SrmRunWriter
{
	SrmTapeSet *ts;
	SrmRun	   *run;
	int			nbufs;
	char	  **bufs;
	SrmIo	   *ios;
	int			batch;			/* writes submitted together */
	int			unsubmitted;	/* writes prepared since the last submit */
	int			cur;			/* buffer being filled */
	char	   *pos;			/* fill position in bufs[cur] */
	char	   *last_rec;		/* last record put in bufs[cur] */
	uint64		last_key;		/* its normalized key and NULL rank */
	uint8		last_nrank;
	bool		have_block;
	SrmTupleBuf scratch;		/* a tuple rebuilt for its forecast key */
} SrmRunWriter;

extern SrmRunWriter *SrmRunWriterBegin(SrmTapeSet *ts, SrmRun *run,
									   int nbufs, char **bufs, SrmIo *ios,
									   int first);
extern void SrmRunWriterPutTuple(SrmRunWriter *w, const void *tuple,
								 uint32 len, uint64 key, uint8 nrank);
extern void SrmRunWriterPutRecord(SrmRunWriter *w, const char *rec,
								  Size reclen, uint64 key, uint8 nrank);
extern int	SrmRunWriterEnd(SrmRunWriter *w, bool wait);

/* Bookkeeping after a record was placed at w->pos. */
static inline void
SrmRunWriterPlaced(SrmRunWriter *w, Size recsz, uint64 key, uint8 nrank)
{
	w->last_rec = w->pos;
	w->last_key = key;
	w->last_nrank = nrank;
	w->pos += recsz;
	((SrmBlockHeader *) w->bufs[w->cur])->nrecords++;
	w->run->nrecords++;
}

/* Bytes left in the open block (0 if none is open). */
static inline Size
SrmRunWriterRoom(SrmRunWriter *w)
{
	return w->have_block ? w->bufs[w->cur] + w->ts->block_size - w->pos : 0;
}

/*
 * SrmRunWriterAppend
 *		SrmRunWriterPutRecord, with the common case -- the record fits in
 *		the open block -- inline, for the intermediate merges' loop.
 */
static inline void
SrmRunWriterAppend(SrmRunWriter *w, const char *rec, Size reclen,
				   uint64 key, uint8 nrank)
{
	if (likely(reclen <= SrmRunWriterRoom(w)))
	{
		SrmRecCopy(w->pos, rec, reclen);
		SrmRunWriterPlaced(w, reclen, key, nrank);
	}
	else
		SrmRunWriterPutRecord(w, rec, reclen, key, nrank);
}

/*
 * SrmRunWriterPut
 *		Append a tuple of len bytes to the run, with its normalized first
 *		key (if the sort has them): SrmRunWriterPutTuple, with the common
 *		case -- a short plain record that fits in the open block -- inline,
 *		for the loop that writes a memory load.
 */
static inline void
SrmRunWriterPut(SrmRunWriter *w, const void *tuple, uint32 len, uint64 key,
				uint8 nrank)
{
	Size		recsz = SrmRecEncodePlain(w->ts->fmt, w->pos,
										  SrmRunWriterRoom(w), tuple, len);

	if (likely(recsz > 0))
		SrmRunWriterPlaced(w, recsz, key, nrank);
	else
		SrmRunWriterPutTuple(w, tuple, len, key, nrank);
}

/* Appending to a run's bookkeeping (the writer's, and imported runs'). */
extern void SrmRunAddBlock(SrmTapeSet *ts, SrmRun *run,
						   const SrmBlockRef *ref);
extern void SrmRunAddForecast(SrmTapeSet *ts, SrmRun *run, Datum key,
							  bool isnull, uint8 nrank, int64 next_head);

#endif							/* SRM_RUNWRITER_H */
