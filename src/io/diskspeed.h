/*-------------------------------------------------------------------------
 *
 * diskspeed.h
 *	  The workfile disks' bandwidth: measured once, then learned.
 *
 * IDENTIFICATION
 *	  src/io/diskspeed.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_DISKSPEED_H
#define SRM_DISKSPEED_H

#include "io/workfile.h"

/*
 * Set bw[d] to the bandwidth (bytes per second) of disk d of set for a
 * block written once and read once, measuring the disks never measured
 * (each in a fraction of a second, all at once).  Disks whose bandwidth
 * stays unknown get the mean of the others'.  Returns false, bw
 * untouched, if none is known (no shared memory, say).  May ERROR on an
 * error of the measurement's own files (as creating a workfile would).
 */
extern bool SrmDiskSpeeds(SrmDiskSet *set, double *bw);

/*
 * A sort with direct I/O is over: move each disk's learned bandwidth
 * towards what the sort saw (its bytes over its busy time), where it
 * moved enough to tell.  Never ERRORs.
 */
extern void SrmDiskSpeedsLearn(SrmDiskSet *set, const SrmDiskUse *use);

#endif							/* SRM_DISKSPEED_H */
