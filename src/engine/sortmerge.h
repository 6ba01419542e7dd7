/*-------------------------------------------------------------------------
 *
 * sortmerge.h
 *	  A sort's merges: its runs merged down to the final merge.
 *
 * IDENTIFICATION
 *	  src/engine/sortmerge.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SORTMERGE_H
#define SRM_SORTMERGE_H

#include "engine/sortruns.h"

/*
 * Between two runs: merge the smallest runs early if the runs' bookkeeping
 * is past its share of the budget.  True if it merged.
 */
extern bool SrmSorterMergeEarly(SrmSorter *s);

/* At Perform: merge down to the final merge (or to one run and its scan). */
extern void SrmSorterRunMerges(SrmSorter *s);

#endif							/* SRM_SORTMERGE_H */
