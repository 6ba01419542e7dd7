/*-------------------------------------------------------------------------
 *
 * shmem.h
 *	  Shared load accounting: disks, sort jobs, views.
 *
 * IDENTIFICATION
 *	  src/base/shmem.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SHMEM_H
#define SRM_SHMEM_H

#include "storage/lwlock.h"

typedef enum SrmJobPhase
{
	SRM_PHASE_NONE = 0,
	SRM_PHASE_RUNS,				/* writing initial runs */
	SRM_PHASE_MERGE,			/* intermediate merge passes */
	SRM_PHASE_FINAL				/* final merge, or reading the result */
} SrmJobPhase;

extern void SrmShmemInit(void);
extern bool SrmShmemAvailable(void);

/*
 * From _PG_init: another part of srmsort keeps state
 * in shared memory, of size() bytes (called once MaxBackends is known).
 * Once the memory exists, attach gets it in every process, with found
 * false in the one that must initialise it, and the lock that guards
 * srmsort's shared accounting, for its own use.  Does nothing unless we
 * are being preloaded.
 */
typedef Size (*SrmShmemSizeFn) (void);
typedef void (*SrmShmemAttachFn) (void *mem, bool found, LWLock *lock);
extern void SrmShmemRequest(const char *name, SrmShmemSizeFn size,
							SrmShmemAttachFn attach);

/*
 * The load on tablespace spc: sort jobs active on it and bytes in flight
 * to it (this backend's included); false without shared memory.
 */
extern bool SrmDiskLoad(Oid spc, uint32 *jobs, uint64 *inflight);

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

#endif							/* SRM_SHMEM_H */
