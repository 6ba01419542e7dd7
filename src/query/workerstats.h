/*-------------------------------------------------------------------------
 *
 * workerstats.h
 *	  The facts of parallel workers' sorts, left in shared memory for the
 *	  leader's EXPLAIN ANALYZE.
 *
 * IDENTIFICATION
 *	  src/query/workerstats.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_WORKERSTATS_H
#define SRM_WORKERSTATS_H

/* the facts of a sort (sorter.h); only pointers to them here */
struct SrmSortStats;

/* From _PG_init: request the shared memory, if we are being preloaded. */
extern void SrmWorkerStatsInit(void);

/*
 * A parallel worker publishes the facts of its sort for plan node id; the
 * leader clears its old ones when the node starts and collects them
 * (once) when it explains.  Without shared memory nothing is kept.
 */
extern void SrmWorkerStatsPublish(int plan_node_id,
								  const struct SrmSortStats *st);
extern void SrmWorkerStatsClear(int plan_node_id);
extern int	SrmWorkerStatsCollect(int plan_node_id, struct SrmSortStats *out,
								  int *workers, int max);

#endif							/* SRM_WORKERSTATS_H */
