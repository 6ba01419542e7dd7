/*-------------------------------------------------------------------------
 *
 * mapslot.h
 *	  A result slot whose columns are columns of another slot's tuple,
 *	  deformed only when a parent asks for them.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/query/mapslot.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_MAPSLOT_H
#define SRM_MAPSLOT_H

#include "executor/tuptable.h"
#include "nodes/execnodes.h"

extern const TupleTableSlotOps *SrmMapSlotOps(void);
extern TupleTableSlot *SrmMapSlotMake(EState *estate, TupleDesc desc,
									  TupleTableSlot *src,
									  const AttrNumber *map);

/*
 * SrmMapSlotStore
 *		slot now stands for the tuple src holds (the caller has stored it
 *		there, or cleared src at the end): nothing is deformed yet.
 */
static inline TupleTableSlot *
SrmMapSlotStore(TupleTableSlot *slot, TupleTableSlot *src)
{
	ExecClearTuple(slot);
	if (!TupIsNull(src))
		slot->tts_flags &= ~TTS_FLAG_EMPTY;
	return slot;
}

#endif							/* SRM_MAPSLOT_H */
