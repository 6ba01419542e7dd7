/*-------------------------------------------------------------------------
 *
 * sortstats.c
 *	  The facts of a sort in words: method names and the server log's line.
 *
 * The facts themselves are the sorter's (SrmSorterGetStats); EXPLAIN shows
 * them property by property (node.c), the server log and the index build's
 * DETAIL as the one line made here.
 *
 * IDENTIFICATION
 *	  src/sortstats.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "placement.h"
#include "sorter.h"

/*
 * SrmSortMethodName
 *		The name EXPLAIN shows for a method.
 */
const char *
SrmSortMethodName(SrmSortMethod method)
{
	switch (method)
	{
		case SRM_METHOD_STILL_RUNNING:
			return "still in progress";
		case SRM_METHOD_QUICKSORT:
			return "quicksort";
		case SRM_METHOD_RADIX:
			return "radix sort";
		case SRM_METHOD_SRM:
			return "external SRM merge";
		case SRM_METHOD_DSM:
			return "external DSM merge";
		case SRM_METHOD_SRM_MATERIALIZED:
			return "external SRM sort";
		case SRM_METHOD_PARTICIPANT_RUNS:
			return "runs for the parallel merge";
		case SRM_METHOD_DSM_MATERIALIZED:
			return "external DSM sort";
	}
	return "unknown";
}

/*
 * SrmSortStatsText
 *		See sorter.h.
 */
char *
SrmSortStatsText(const SrmSortStats *st)
{
	return psprintf("Sort method %s, disks %d (%s), %d left out for memory, block %d kB, "
					"direct I/O %s, stripe of %d blocks (weights %s), "
					"runs %lld, merge order %d, passes %d, nu %.3f, parallel reads %lld, "
					"flushes %lld, stalls %lld, temp written %lld kB, read %lld kB, "
					"peak %lld kB, I/O wait %.1f ms, memory peak %lld kB of %lld kB, "
					"paged bookkeeping %lld kB, input %lld tuples of %lld bytes",
					SrmSortMethodName(st->method), st->ndisks, st->disk_names,
					st->disks_left_out, st->block_size / 1024,
					st->direct_io ? "on" : "off", st->stripe_width,
					SrmWeightSourceName(st->weight_source),
					(long long) st->runs, st->merge_order, st->passes, st->nu,
					(long long) st->parallel_reads, (long long) st->flushes,
					(long long) st->stalls, (long long) (st->temp_written / 1024),
					(long long) (st->temp_read / 1024),
					(long long) (st->temp_peak / 1024), st->io_wait_ms,
					(long long) (st->mem_peak / 1024),
					(long long) (st->mem_budget / 1024),
					(long long) ((st->meta_paged + 1023) / 1024),
					(long long) st->tuples, (long long) st->input_bytes);
}
