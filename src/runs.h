/*-------------------------------------------------------------------------
 *
 * runs.h
 *	  Run formation: a memory load of tuples, sorted and written as a run.
 *
 * IDENTIFICATION
 *	  src/runs.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_RUNS_H
#define SRM_RUNS_H

#include "keys.h"
#include "tape.h"

/* An arena chunk, kept from run to run (see SrmMemLoadReset). */
typedef struct SrmArenaChunk
{
	char	   *data;
	char	   *raw;			/* what to pfree (data may be aligned up) */
	Size		size;
} SrmArenaChunk;

/*
 * A load is sorted in segments, tuples[segs[i] .. segs[i + 1]), each sorted
 * by itself (most by the sort thread as the load fills) and merged when
 * the load is written as a run.  A load returned as the in-memory result
 * is one segment.
 */
#define SRM_MAX_SEGS		8

/* A node of the segments' loser tree: a head tuple's key, inline. */
typedef struct SrmSegNode
{
	uint64		key;			/* normalized key */
	uint64		rank_seg;		/* NULL rank << 32 | segment */
} SrmSegNode;

/* The tuples of one memory load. */
typedef struct SrmMemLoad
{
	SrmKeys    *keys;
	MemoryContext cxt;			/* arena chunks */
	SrmArenaChunk *chunks;		/* every chunk held, in order of use */
	int			nchunks;
	int			maxchunks;
	int			next_chunk;		/* the next chunk a run takes */
	SrmTuple   *tuples;
	MemoryContext array_cxt;	/* where tuples is allocated */
	int64		ntuples;
	int64		maxtuples;
	char	   *arena_pos;
	Size		arena_left;
	Size		arena_bytes;	/* bytes of arena chunks this run uses */
	Size		chunk_size;
	Size		chunk_cap;		/* if > 0: the next chunk's size limit */
	/* segments */
	bool		threaded;		/* hand segments to the sort thread */
	int64		seg_target;		/* tuples per segment handed over */
	int64		seg_next;		/* hand one over when ntuples gets here */
	int			nsegs;			/* segments cut so far */
	int64		segs[SRM_MAX_SEGS + 1];
	int64		thread_segs;	/* statistics: segments the thread sorted */
	int64		thread_tuples;	/* ... and their tuples */
	/* reading the sorted load: a loser tree over the segments */
	int64		head[SRM_MAX_SEGS]; /* each segment's next tuple */
	SrmSegNode	tree[SRM_MAX_SEGS];
	SrmSegNode	winner;
	int			tree_leaves;
	bool		ties;			/* equal keys need the full comparison */
} SrmMemLoad;

extern void SrmMemLoadInit(SrmMemLoad *load, SrmKeys *keys, Size budget);
extern void *SrmMemLoadAlloc(SrmMemLoad *load, Size len);
extern bool SrmMemLoadGrow(SrmMemLoad *load, Size budget, Size used);
extern void SrmMemLoadAdd(SrmMemLoad *load, void *tuple);
extern void SrmMemLoadSort(SrmMemLoad *load);
extern void SrmMemLoadWriteRun(SrmMemLoad *load, SrmRunWriter *w);
extern void SrmMemLoadReset(SrmMemLoad *load);
extern void SrmMemLoadFit(SrmMemLoad *load, Size room, double avglen);
extern void SrmMemLoadTrim(SrmMemLoad *load, Size keep);
extern void SrmMemLoadRelease(SrmMemLoad *load);

/* Bytes the load occupies: arena chunks and the tuple array. */
static inline Size
SrmMemLoadBytes(SrmMemLoad *load)
{
	return load->arena_bytes + load->maxtuples * sizeof(SrmTuple);
}

#endif							/* SRM_RUNS_H */
