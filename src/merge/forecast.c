/*-------------------------------------------------------------------------
 *
 * forecast.c
 *	  The forecasting heap: participation order of the blocks of a merge.
 *
 * Each run carries forecast data (tape.c): for every block that begins
 * records, the first sort key of its last record, which is the key whose
 * output makes the run's next block the leading one.  Merging the R runs'
 * forecast lists therefore yields the blocks in the order the merge will
 * need them -- SRM's participation order (paper §4.1.1).  Each call of
 * SrmForecastNext is one Lookahead(): the next block to participate.
 *
 * Forecast keys hold only the first sort key, so among blocks whose
 * forecast keys are equal the predicted order may differ from the real
 * one.  That only costs an on-demand read (a stall) in the merge: forecasts
 * decide what to read, never what to output.
 *
 * IDENTIFICATION
 *	  src/merge/forecast.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "merge/forecast.h"

/*
 * entry_of
 *		The current forecast entry of run index r.
 */
static inline SrmForecastEntry *
entry_of(SrmForecastHeap *fh, int r)
{
	return &fh->cur[r];
}

/*
 * load_entry
 *		Copy run r's entry at pos[r] into cur[r] (a paged run's entries are
 *		only in memory while their page is cached, and its by-reference
 *		keys are in a file: they are read into the run's key buffer).
 */
static void
load_entry(SrmForecastHeap *fh, int r)
{
	SrmRun	   *run = fh->runs[r];

	if (fh->pos[r] >= run->nforecast)
		return;
	fh->cur[r] = *SrmRunForecast(fh->ts, run, fh->pos[r], false);
	fh->cur[r].key = SrmRunForecastKey(fh->ts, run, &fh->cur[r],
									   &fh->keybuf[r], &fh->keybufsize[r],
									   fh->cxt);
}

/*
 * heap_less
 *		Does run a's current entry come before run b's?  Ties go to the
 *		lower run index, so that the order is deterministic.
 */
static inline bool
heap_less(SrmForecastHeap *fh, int a, int b)
{
	SrmForecastEntry *ea = entry_of(fh, a);
	SrmForecastEntry *eb = entry_of(fh, b);
	int			cmp;

	if (fh->keys->norm != SRM_NORM_NONE)
	{
		if (ea->nrank != eb->nrank)
			cmp = ea->nrank < eb->nrank ? -1 : 1;
		else
			cmp = (uint64) ea->key < (uint64) eb->key ? -1 :
				(uint64) ea->key > (uint64) eb->key ? 1 : 0;
	}
	else
		cmp = SrmCompareKey0(ea->key, ea->isnull, eb->key, eb->isnull,
							 fh->keys);

	return cmp < 0 || (cmp == 0 && a < b);
}

/*
 * sift_down
 *		Restore heap order from position i downwards.
 */
static void
sift_down(SrmForecastHeap *fh, int i)
{
	int			n = fh->nheap;
	int		   *h = fh->heap;

	for (;;)
	{
		int			l = 2 * i + 1;
		int			m = i;

		if (l < n && heap_less(fh, h[l], h[m]))
			m = l;
		if (l + 1 < n && heap_less(fh, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			break;
		{
			int			tmp = h[i];

			h[i] = h[m];
			h[m] = tmp;
		}
		i = m;
	}
}

/*
 * has_forecast
 *		Does run r have an entry that predicts a block?
 */
static inline bool
has_forecast(SrmForecastHeap *fh, int r)
{
	return fh->pos[r] < fh->runs[r]->nforecast &&
		fh->cur[r].next_head >= 0;
}

/*
 * SrmForecastBegin
 *		A forecasting heap over runs[0..nruns), in CurrentMemoryContext.
 */
SrmForecastHeap *
SrmForecastBegin(SrmTapeSet *ts, SrmKeys *keys, SrmRun **runs, int nruns)
{
	SrmForecastHeap *fh = palloc0(sizeof(SrmForecastHeap));
	int			r;

	fh->ts = ts;
	fh->keys = keys;
	fh->nruns = nruns;
	fh->runs = runs;
	fh->pos = palloc0(nruns * sizeof(int64));
	fh->heap = palloc(nruns * sizeof(int));
	fh->cur = palloc0(nruns * sizeof(SrmForecastEntry));
	fh->keybuf = palloc0(nruns * sizeof(char *));
	fh->keybufsize = palloc0(nruns * sizeof(Size));
	fh->cxt = CurrentMemoryContext;
	for (r = 0; r < nruns; r++)
		load_entry(fh, r);
	for (r = 0; r < nruns; r++)
		if (has_forecast(fh, r))
			fh->heap[fh->nheap++] = r;
	for (r = fh->nheap / 2 - 1; r >= 0; r--)
		sift_down(fh, r);
	return fh;
}

/*
 * SrmForecastNext
 *		Lookahead(): the next block to begin participating, as (run index,
 *		block number).  Returns false when every block has been forecast.
 */
bool
SrmForecastNext(SrmForecastHeap *fh, int *run, int64 *blockno)
{
	int			r;

	if (fh->nheap == 0)
		return false;
	r = fh->heap[0];
	*run = r;
	*blockno = entry_of(fh, r)->next_head;
	fh->pos[r]++;
	load_entry(fh, r);
	if (!has_forecast(fh, r))
		fh->heap[0] = fh->heap[--fh->nheap];
	if (fh->nheap > 0)
		sift_down(fh, 0);
	return true;
}
