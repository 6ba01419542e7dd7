/*-------------------------------------------------------------------------
 *
 * shmem.h
 *	  Shared load accounting: disks, sort jobs, partitions, views.
 *
 * IDENTIFICATION
 *	  src/shmem.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SHMEM_H
#define SRM_SHMEM_H

/* the facts of a sort (sorter.h); only pointers to them here */
struct SrmSortStats;

typedef enum SrmJobPhase
{
	SRM_PHASE_NONE = 0,
	SRM_PHASE_RUNS,				/* writing initial runs */
	SRM_PHASE_MERGE,			/* intermediate merge passes */
	SRM_PHASE_FINAL				/* final merge, or reading the result */
} SrmJobPhase;

/* srmsort.partitions: 0 means "auto" */
extern PGDLLIMPORT int srmsort_partitions;

extern void SrmShmemInit(void);
extern bool SrmShmemAvailable(void);

/*
 * Choose the partition of the ndisks disks spcs[] a new sort job uses:
 * the least loaded of P = srmsort.partitions groups (or P from the load,
 * for "auto").  Sets *first and *count to the disks of the partition,
 * *partno and *nparts.  A P above ndisks is clamped to ndisks (said at
 * DEBUG1).
 */
extern void SrmPartitionChoose(const Oid *spcs, int ndisks, int *first,
							   int *count, int *partno, int *nparts);

/* Sort jobs running on srmsort's disks, this backend's not counted. */
extern int	SrmActiveJobs(void);

/* The job of this backend: registered while a sort uses workfiles. */
extern void SrmJobBegin(const Oid *spcs, int ndisks, int partno);
extern void SrmJobSetPhase(SrmJobPhase phase, int pass);
extern void SrmJobAddRun(int64 bytes);
extern void SrmJobEnd(void);	/* idempotent; never ERRORs */

/*
 * I/O of this backend's job on its disk i (index into the job's disks):
 * issued (in flight from then on), and completed after ms of service.
 */
extern void SrmJobCountIO(int disk, bool write, int64 bytes);
extern void SrmJobCountDone(int disk, int64 bytes, double ms);	/* never ERRORs */

/*
 * The bandwidth of workfile disks (diskspeed.c): what is known of
 * tablespace spc, in bytes per second; whether this backend should
 * measure it (then it must Put, with figures <= 0 if it could not); a
 * measurement or a refresh from a sort's busy time.
 */
extern bool SrmDiskSpeedGet(Oid spc, double *read_bps, double *write_bps);
extern bool SrmDiskSpeedClaim(Oid spc);
extern void SrmDiskSpeedPut(Oid spc, double read_bps, double write_bps,
							bool refresh);

/*
 * Per-worker facts for EXPLAIN ANALYZE: a parallel worker publishes the
 * facts of its sort for plan node id; the leader clears its old ones when
 * the node starts and collects them (once) when it explains.
 */
extern void SrmWorkerStatsPublish(int plan_node_id,
								  const struct SrmSortStats *st);
extern void SrmWorkerStatsClear(int plan_node_id);
extern int	SrmWorkerStatsCollect(int plan_node_id, struct SrmSortStats *out,
								  int *workers, int max);

#endif							/* SRM_SHMEM_H */
