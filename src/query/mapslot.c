/*-------------------------------------------------------------------------
 *
 * mapslot.c
 *	  A result slot whose columns are columns of another slot's tuple.
 *
 * When the SRMSort stores a table's tuples and its output only repeats
 * or relabels their columns (plan.c, raw_scan_input), its rows go out in
 * this slot: a virtual slot whose values are lent, column by column
 * through a map, from the slot holding the sorted tuple, and only when a
 * parent first asks for any of them (a LIMIT's OFFSET, count(*) or a
 * parent that copies the tuple whole never deforms it; a projection would
 * deform every row).  Everything else is the virtual slot's own behaviour,
 * once the values are there: materializing, copying, clearing.
 *
 * The source slot keeps its tuple until the node's next row, which is as
 * long as a parent may use a result slot's values without materializing.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/query/mapslot.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"

#include "base/compat.h"
#include "query/mapslot.h"

typedef struct SrmMapSlot
{
	VirtualTupleTableSlot base;
	TupleTableSlot *src;		/* holds the tuple */
	const AttrNumber *map;		/* src's column (1-based) of each column */
	int			src_natts;		/* src's columns the map reads */
} SrmMapSlot;

static TupleTableSlotOps map_ops;
static bool map_ops_made = false;

/*
 * map_fill
 *		Lend every column's value from the source's tuple.
 */
static void
map_fill(TupleTableSlot *slot)
{
	SrmMapSlot *m = (SrmMapSlot *) slot;
	const AttrNumber *map = m->map;
	Datum	   *values;
	bool	   *isnull;
	int			n = slot->tts_tupleDescriptor->natts;
	int			i;

	Assert(!TTS_EMPTY(slot) && !TupIsNull(m->src));
	slot_getsomeattrs(m->src, m->src_natts);
	values = m->src->tts_values;
	isnull = m->src->tts_isnull;
	for (i = 0; i < n; i++)
	{
		slot->tts_values[i] = values[map[i] - 1];
		slot->tts_isnull[i] = isnull[map[i] - 1];
	}
	slot->tts_nvalid = n;
}

static void
map_getsomeattrs(TupleTableSlot *slot, int natts)
{
	map_fill(slot);
}

/* The virtual slot's ways, which read every value: fill them first. */

static void
map_materialize(TupleTableSlot *slot)
{
	if (slot->tts_nvalid < slot->tts_tupleDescriptor->natts)
		map_fill(slot);
	TTSOpsVirtual.materialize(slot);
}

static HeapTuple
map_copy_heap_tuple(TupleTableSlot *slot)
{
	if (slot->tts_nvalid < slot->tts_tupleDescriptor->natts)
		map_fill(slot);
	return TTSOpsVirtual.copy_heap_tuple(slot);
}

static MinimalTuple
map_copy_minimal_tuple(TupleTableSlot *slot SRM_COPY_MINIMAL_EXTRA_PARAM)
{
	if (slot->tts_nvalid < slot->tts_tupleDescriptor->natts)
		map_fill(slot);
	return TTSOpsVirtual.copy_minimal_tuple(slot SRM_COPY_MINIMAL_EXTRA_ARG);
}

/*
 * SrmMapSlotOps
 *		The slot's operations: the virtual slot's, but for those above.
 */
const TupleTableSlotOps *
SrmMapSlotOps(void)
{
	if (!map_ops_made)
	{
		map_ops = TTSOpsVirtual;
		map_ops.base_slot_size = sizeof(SrmMapSlot);
		map_ops.getsomeattrs = map_getsomeattrs;
		map_ops.materialize = map_materialize;
		map_ops.copy_heap_tuple = map_copy_heap_tuple;
		map_ops.copy_minimal_tuple = map_copy_minimal_tuple;
		map_ops_made = true;
	}
	return &map_ops;
}

/*
 * SrmMapSlotMake
 *		A slot of desc whose column i is column map[i] of src's tuples.
 */
TupleTableSlot *
SrmMapSlotMake(EState *estate, TupleDesc desc, TupleTableSlot *src,
			   const AttrNumber *map)
{
	TupleTableSlot *slot = ExecInitExtraTupleSlot(estate, desc, SrmMapSlotOps());
	SrmMapSlot *m = (SrmMapSlot *) slot;
	int			i;

	m->src = src;
	m->map = map;
	m->src_natts = 0;
	for (i = 0; i < desc->natts; i++)
		m->src_natts = Max(m->src_natts, map[i]);
	return slot;
}
