/*-------------------------------------------------------------------------
 *
 * runs.h
 *	  Run formation: a memory load of tuples, sorted and written as a run.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/runs/runs.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_RUNS_H
#define SRM_RUNS_H

#include "keys/keys.h"
#include "runs/runwriter.h"

/* An arena chunk, kept from run to run (see SrmMemLoadReset). */
typedef struct SrmArenaChunk
{
	char	   *data;
	char	   *raw;			/* what to pfree (data may be aligned up) */
	Size		size;
} SrmArenaChunk;

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
	int64		reserve;		/* slots past maxtuples: radix sort scratch */
	int64		reserve_max;	/* ... the most it takes (0: first load, or
								 * no radix sort) */
	char	   *arena_pos;
	Size		arena_left;
	Size		arena_bytes;	/* bytes of arena chunks this run uses */
	Size		chunk_size;
	Size		chunk_cap;		/* if > 0: the next chunk's size limit */
	SrmRecFormat fmt;			/* for reading integer keys in place */
	bool		ix_fixed;		/* index sort, every column fixed-length */
	Size		ix_size;		/* ... the size of its tuples without NULLs */
	int			ix_natts;		/* ... its columns (SrmIndexTupleFillFixed) */
	int16	   *ix_off;			/* ... their data offsets */
	int16	   *ix_len;			/* ... their lengths: by value if > 0, else
								 * by reference of -ix_len bytes */
	void	   *lent;			/* heap tuple handed out by SrmMemLoadGet */
	uint32		lent_save;		/* the bytes its t_len covers */
	/*
	 * Heap sorts on one integer column of 8 bytes (the common case): its
	 * normalized key is the column's bits xor int8_xor (sign and DESC),
	 * read in place by SrmMemLoadPutHeap without the format's tests.
	 */
	bool		int8_key;
	uint64		int8_xor;
} SrmMemLoad;

/*
 * Heap tuples in the arena begin this far into the MinimalTuple: its t_len
 * and the start of its padding are not stored, and what follows keeps its
 * alignment.
 */
#define SRM_ARENA_SKIP	TYPEALIGN_DOWN(MAXIMUM_ALIGNOF, MINIMAL_TUPLE_DATA_OFFSET)

extern void SrmMemLoadInit(SrmMemLoad *load, SrmKeys *keys, Size budget);
extern void SrmMemLoadNewChunk(SrmMemLoad *load, Size space);
extern bool SrmMemLoadChunkFits(SrmMemLoad *load, Size space, Size room);
extern bool SrmMemLoadGrow(SrmMemLoad *load, Size budget, Size used);
extern void SrmMemLoadAddSlow(SrmMemLoad *load, SrmTuple *t);
extern void SrmMemLoadSort(SrmMemLoad *load, int64 lo, int64 n);
extern void SrmMemLoadWriteRun(SrmMemLoad *load, int64 lo, int64 n,
							   SrmRunWriter *w);
extern void SrmMemLoadReset(SrmMemLoad *load);
extern void SrmMemLoadFit(SrmMemLoad *load, Size room, double avglen);
extern void SrmMemLoadTrim(SrmMemLoad *load, Size keep);
extern void SrmMemLoadRelease(SrmMemLoad *load);

/*
 * SrmMemLoadSpace
 *		Arena bytes a tuple of len bytes takes.
 */
static inline Size
SrmMemLoadSpace(SrmMemLoad *load, Size len)
{
	if (load->fmt.heap)
		return MAXALIGN(len - SRM_ARENA_SKIP);
	return MAXALIGN(len);
}

/*
 * SrmMemLoadAlloc
 *		Arena space for a tuple of len bytes: a MAXALIGNed pointer to it,
 *		whose first SRM_ARENA_SKIP bytes a heap tuple must not write.  Inline
 *		for the input loop while the open chunk has room.
 */
static inline void *
SrmMemLoadAlloc(SrmMemLoad *load, Size len)
{
	Size		space = SrmMemLoadSpace(load, len);
	char	   *p;

	if (unlikely(space > load->arena_left))
		SrmMemLoadNewChunk(load, space);
	p = load->arena_pos;
	load->arena_pos += space;
	load->arena_left -= space;
	if (load->fmt.heap)
		p -= SRM_ARENA_SKIP;
	return p;
}

/*
 * SrmMemLoadAdd
 *		Append a tuple already copied into the arena.  The array must have
 *		room (see SrmMemLoadGrow).  An integer or bytes key is read in place,
 *		as run records do; other keys take SrmMemLoadAddSlow.  Always
 *		inline: every input row passes here, and the compiler, seeing
 *		several callers, would otherwise make it a call.
 */
static pg_attribute_always_inline void
SrmMemLoadAdd(SrmMemLoad *load, void *tuple, Size len)
{
	SrmTuple   *t = &load->tuples[load->ntuples];
	const char *mt = tuple;
	uint64		key;

	Assert(load->ntuples < load->maxtuples);
	t->tuple = tuple;
	t->len = (uint32) len;
	load->ntuples++;
	if (SrmRecFast(&load->fmt) &&
		(load->fmt.heap ?
		 SrmRecHeapFastKey(&load->fmt, mt + MINIMAL_TUPLE_DATA_OFFSET,
						   mt + ((const MinimalTupleData *) mt)->t_hoff -
						   MINIMAL_TUPLE_OFFSET, &key) :
		 SrmRecIndexFastKey(&load->fmt, mt, &key)))
	{
		t->datum1 = (Datum) key;
		t->nrank = SRM_NRANK_VALUE;
		t->isnull1 = false;
		return;
	}
	SrmMemLoadAddSlow(load, t);
}

/*
 * SrmIndexTupleFillFixed
 *		SrmIndexTupleFill's common case, for the input loop of an index
 *		sort whose columns all have a fixed length (ix_fixed) when none is
 *		NULL: the ix_size bytes at dst (MAXALIGNed) zeroed word by word,
 *		then each column stored at its offset.  The caller sets t_tid.
 */
static pg_attribute_always_inline void
SrmIndexTupleFillFixed(SrmMemLoad *load, const Datum *values, char *dst)
{
	char	   *data = dst + IndexInfoFindDataOffset(0);
	Size		w;
	int			i;

#if MAXIMUM_ALIGNOF >= 8
	for (w = 0; w < load->ix_size; w += sizeof(uint64))
		*(uint64 *) (dst + w) = 0;
#else
	for (w = 0; w < load->ix_size; w += sizeof(uint32))
		*(uint32 *) (dst + w) = 0;
#endif
	for (i = 0; i < load->ix_natts; i++)
	{
		char	   *p = data + load->ix_off[i];

		switch (load->ix_len[i])
		{
			case 8:
				*(int64 *) p = DatumGetInt64(values[i]);
				break;
			case 4:
				*(int32 *) p = DatumGetInt32(values[i]);
				break;
			case 2:
				*(int16 *) p = DatumGetInt16(values[i]);
				break;
			case 1:
				*p = DatumGetChar(values[i]);
				break;
			default:
				memcpy(p, DatumGetPointer(values[i]), -load->ix_len[i]);
				break;
		}
	}
	((IndexTuple) dst)->t_info = (unsigned short) load->ix_size;
}

/*
 * SrmMemLoadPutHeap
 *		A heap sort's common input: copy the heap tuple body htup (t_len
 *		bytes) into the arena as a MinimalTuple and append it, returning its
 *		length; 0, with nothing done, if the array or the open chunk is full
 *		(the caller's general way makes room).  Always inline, for the input
 *		loop: no tests of the sort kind, one per tuple of the key's.
 */
static pg_attribute_always_inline Size
SrmMemLoadPutHeap(SrmMemLoad *load, const char *htup, uint32 t_len)
{
	Size		len = t_len - MINIMAL_TUPLE_OFFSET;
	Size		space = MAXALIGN(len - SRM_ARENA_SKIP);
	char	   *p = load->arena_pos;
	char	   *mt = p - SRM_ARENA_SKIP;
	SrmTuple   *t;
	uint16		infomask2,
				infomask;
	int64		v;

	Assert(load->fmt.heap);
	if (unlikely(load->ntuples >= load->maxtuples ||
				 space > load->arena_left))
		return 0;
	load->arena_pos = p + space;
	load->arena_left -= space;
	SrmRecCopy(p, htup + MINIMAL_TUPLE_OFFSET + SRM_ARENA_SKIP,
			   len - SRM_ARENA_SKIP);
	if (!load->int8_key)
	{
		SrmMemLoadAdd(load, mt, len);
		return len;
	}
	t = &load->tuples[load->ntuples++];
	t->tuple = mt;
	t->len = (uint32) len;
	memcpy(&infomask2, mt + MINIMAL_TUPLE_DATA_OFFSET, sizeof(uint16));
	memcpy(&infomask, mt + MINIMAL_TUPLE_DATA_OFFSET + sizeof(uint16),
		   sizeof(uint16));
	if (unlikely((infomask & HEAP_HASNULL) ||
				 (infomask2 & HEAP_NATTS_MASK) <= load->fmt.last_att))
	{
		SrmMemLoadAddSlow(load, t);
		return len;
	}
	memcpy(&v, mt + ((const MinimalTupleData *) mt)->t_hoff -
		   MINIMAL_TUPLE_OFFSET + load->fmt.key_off, sizeof(int64));
	t->datum1 = (Datum) ((uint64) v ^ load->int8_xor);
	t->nrank = SRM_NRANK_VALUE;
	t->isnull1 = false;
	return len;
}

/*
 * SrmMemLoadGet
 *		Tuple i of the load, complete (a heap tuple's t_len written in
 *		place, over its neighbour's bytes, until the next call), for the
 *		caller of an in-memory sort.  Not for loads still being sorted.
 *		Inline: every row of an in-memory result comes through it.
 */
static inline void *
SrmMemLoadGet(SrmMemLoad *load, int64 i)
{
	SrmTuple   *t = &load->tuples[i];
	void	   *lent = load->lent;

	if (lent != NULL)
		memcpy(lent, &load->lent_save, sizeof(uint32));
	load->lent = NULL;
	if (load->fmt.heap)
	{
		memcpy(&load->lent_save, t->tuple, sizeof(uint32));
		load->lent = t->tuple;
		((MinimalTuple) t->tuple)->t_len = t->len;
	}
	return t->tuple;
}

/* Forming btree index tuples in place (see runs.c). */
extern Size SrmIndexTupleSize(SrmMemLoad *load, const Datum *values,
							  const bool *isnull, Size *data_size);
extern void SrmIndexTupleFill(SrmMemLoad *load, const Datum *values,
							  const bool *isnull, Size size, Size data_size,
							  char *dst);

/* Bytes the load occupies: arena chunks and the tuple array. */
static inline Size
SrmMemLoadBytes(SrmMemLoad *load)
{
	return load->arena_bytes +
		(load->maxtuples + load->reserve) * sizeof(SrmTuple);
}

#endif							/* SRM_RUNS_H */
