/*-------------------------------------------------------------------------
 *
 * sortread.h
 *	  Reading a performed sort's result (sortread.c): part of the sorter's
 *	  public API, which sorter.h includes; the legal calls are sorter.h's.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/engine/sortread.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SORTREAD_H
#define SRM_SORTREAD_H

#include "access/itup.h"
#include "executor/tuptable.h"

#include "engine/sortruns.h"
#include "merge/merge.h"

/*
 * Fetch the next tuple into slot (as a MinimalTuple, not owned by the slot,
 * valid until the next call).  Returns false at the end.  forward = false
 * needs SRM_SORT_RANDOMACCESS.
 */
extern bool SrmSorterGetSlot(SrmSorter *sorter, bool forward,
							 TupleTableSlot *slot);
/* The same, returning slot (stored, or cleared at the end). */
extern TupleTableSlot *SrmSorterNextSlot(SrmSorter *sorter, bool forward,
										 TupleTableSlot *slot);

/*
 * The final merge that streams a performed sort's result, or NULL when the
 * result is read otherwise.  A reader may pull forward rows from it
 * directly (SrmMergeNext), skipping a call and the sorter's state checks
 * on every row, as long as it reads only forward and comes back to the
 * sorter's calls at the merge's end (a NULL), so that the sorter sees the
 * end.  It lives as long as the sorter.
 */
extern SrmMerge *SrmSorterForwardMerge(SrmSorter *sorter);

/* Index flavour: next index tuple, valid until the next call; NULL at end. */
extern IndexTuple SrmSorterGetIndexTuple(SrmSorter *sorter);

/* Random access (SRM_SORT_RANDOMACCESS only). */
extern void SrmSorterRescan(SrmSorter *sorter);
extern void SrmSorterMarkPos(SrmSorter *sorter);
extern void SrmSorterRestorePos(SrmSorter *sorter);

#endif							/* SRM_SORTREAD_H */
