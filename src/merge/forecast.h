/*-------------------------------------------------------------------------
 *
 * forecast.h
 *	  The forecasting heap: participation order of the blocks of a merge.
 *
 * IDENTIFICATION
 *	  src/merge/forecast.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_FORECAST_H
#define SRM_FORECAST_H

#include "keys/keys.h"
#include "runs/tape.h"

typedef struct SrmForecastHeap
{
	SrmTapeSet *ts;
	SrmKeys    *keys;
	int			nruns;
	SrmRun	  **runs;
	int64	   *pos;			/* per run: next forecast entry */
	SrmForecastEntry *cur;		/* per run: a copy of that entry */
	char	  **keybuf;			/* per run: its by-reference key, if paged */
	Size	   *keybufsize;
	MemoryContext cxt;
	int		   *heap;			/* run indexes, ordered by their entry */
	int			nheap;
} SrmForecastHeap;

extern SrmForecastHeap *SrmForecastBegin(SrmTapeSet *ts, SrmKeys *keys,
										 SrmRun **runs, int nruns);
extern bool SrmForecastNext(SrmForecastHeap *fh, int *run, int64 *blockno);

#endif							/* SRM_FORECAST_H */
