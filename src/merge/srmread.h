/*-------------------------------------------------------------------------
 *
 * srmread.h
 *	  SRM's block choice (srmread.c) and the state of one merge it shares
 *	  with merge.c (the loser tree).  Private to merge/: callers use
 *	  merge.h.  The merge is spelled struct SrmMerge here, as merge.h's
 *	  typedef would make the two headers include each other.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/merge/srmread.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SRMREAD_H
#define SRM_SRMREAD_H

#include "lib/ilist.h"

#include "keys/keys.h"
#include "merge/dsmread.h"
#include "merge/forecast.h"
#include "runs/runwriter.h"

typedef struct SrmBuf
{
	char	   *data;
	SrmIo		io;
	struct SrmBuf *next_free;
} SrmBuf;

typedef struct SrmPlaceholder
{
	int			run;
	int64		blockno;
	int			disk;
	int64		seq;			/* position in participation order */
	SrmBuf	   *buf;			/* block_ptr: NULL while on disk */
	struct SrmPlaceholder *next_free;	/* in SrmMerge.free_ph */
	bool		in_oq;
	dlist_node	lq_node;
	dlist_node	oq_node;
	dlist_node	run_node;
} SrmPlaceholder;

/* A node of the loser tree (see loser_replay). */
typedef struct SrmLoser
{
	uint64		key;			/* the input's order key (order_key) */
	uint64		idx;			/* the input */
} SrmLoser;

typedef struct SrmInput
{
	SrmRun	   *run;
	int64		blockno;		/* leading block, -1 when exhausted */
	char	   *block;			/* the leading block's data */
	SrmBuf	   *leading;		/* SRM: its buffer */
	char	   *rec;			/* next record in the leading block */
	uint32		recs_left;
	char	   *big;			/* BIG record being assembled, palloc'd */
	char	   *big_in_heap;	/* BIG record now in the main merge */
	const char *cur_rec;		/* the record of the current tuple */
	Size		cur_reclen;
	SrmTupleBuf tbuf[2];		/* tuple buffers, used in turn */
	int			tnext;			/* the one to use next */
	dlist_head	placeholders;	/* this run's placeholders in LQ */
} SrmInput;

struct SrmMerge
{
	SrmTapeSet *ts;
	SrmKeys    *keys;
	SrmDsmReader *dsm;			/* DSM: its reader; NULL for SRM */
	int			nruns;
	int			ndisks;
	int			width;			/* L: blocks of a period of the stripe */
	SrmInput   *inputs;
	SrmMergeCounters *counters;
	MemoryContext cxt;

	/* buffers */
	int			nbufs;
	SrmBuf	   *bufs;
	SrmBuf	   *free_bufs;
	int			nfree;
	SrmBuf	   *release_buf;	/* depleted leading buffer, freed next call */
	char	   *release_big;	/* BIG record returned last, freed next call */
	bool		attention;		/* the next step has more to do than merge:
								 * either is set, a BIG record or a pause
								 * is pending, DSM refills, or the merge
								 * is over (see attend) */
	int			nbig;			/* inputs with a big_in_heap */
	char	   *scratch;		/* block buffer for continuation blocks */

	/* SRM state */
	SrmForecastHeap *fh;
	dlist_head	lq;
	dlist_head *oq;
	int		   *oq_len;			/* placeholders in each OQ */
	int			oq_short;		/* OQs with fewer than their disk's share */
	int64		next_seq;
	SrmPlaceholder *marked;
	SrmPlaceholder *next_marked;
	SrmPlaceholder *free_ph;	/* recycled placeholders, by next_free */
	bool		pause;			/* marked became leading: Parallel_Read */

	/* the main merge: a loser tree over the inputs' current tuples */
	SrmTuple   *cur;
	bool	   *done;
	SrmLoser   *tree;			/* the loser tree, order keys inline */
	bool		normalized;		/* keys->norm != SRM_NORM_NONE */
	bool		plain;			/* records may be SrmRecTakePlain's */
	bool		plain_int8;		/* ... and the key is one int8 column */
	uint64		int8_xor;		/* then its SrmRecInt8Key xor */
	bool		ties;			/* equal normalized keys need the tuples */
	int			nlive;
};

/* buffers: the free list of input block buffers */

static inline SrmBuf *
get_buf(struct SrmMerge *m)
{
	SrmBuf	   *b = m->free_bufs;

	if (b == NULL)
		return NULL;
	m->free_bufs = b->next_free;
	m->nfree--;
	return b;
}

static inline void
put_buf(struct SrmMerge *m, SrmBuf *b)
{
	Assert(b->io.state == SRM_IO_IDLE);
	b->next_free = m->free_bufs;
	m->free_bufs = b;
	m->nfree++;
}

/* Wait until b's read (if any) is done. */
static inline void
wait_buf(struct SrmMerge *m, SrmBuf *b)
{
	SrmIoWait(m->ts->io, &b->io);
}

extern void SrmReadFillOqs(struct SrmMerge *m);
extern void SrmReadPrepare(struct SrmMerge *m);
extern SrmBuf *SrmReadBlock(struct SrmMerge *m, int r, int64 want);

#endif							/* SRM_SRMREAD_H */
