/*-------------------------------------------------------------------------
 *
 * sortruns.h
 *	  A sorter's handle and flags, and its runs and memory budget as the
 *	  engine's files keep them (sortruns.c).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/engine/sortruns.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SORTRUNS_H
#define SRM_SORTRUNS_H

#include "merge/mergeplan.h"
#include "runs/tape.h"

typedef struct SrmSorter SrmSorter;

/* flags for SrmSorterBegin* */
#define SRM_SORT_NONE			0
#define SRM_SORT_RANDOMACCESS	(1 << 0)	/* rescan, mark/restore, backward */

/* What the merge planner takes from the settings and the runs' format. */
extern SrmPlanLimits SrmSorterPlanLimits(void);

/* for sorter.c and sortmerge.c: the runs and the budget */
extern Size SrmSorterMemUsed(SrmSorter *s);
extern void SrmSorterNoteMem(SrmSorter *s, Size beside);
extern SrmRun *SrmSorterNewRun(SrmSorter *s, Size expect);
extern void SrmSorterAddRun(SrmSorter *s, SrmRun *run);
extern void SrmSorterNoOpenRun(SrmSorter *s, const char *where);

#endif							/* SRM_SORTRUNS_H */
