/*-------------------------------------------------------------------------
 *
 * scan.h
 *	  Random access to a materialised run: either direction, any position.
 *
 * IDENTIFICATION
 *	  src/runs/scan.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SCAN_H
#define SRM_SCAN_H

#include "runs/tape.h"

typedef struct SrmScan SrmScan;

extern SrmScan *SrmScanBegin(SrmTapeSet *ts, SrmRun *run, int nbufs);
extern int64 SrmScanCount(SrmScan *scan);
extern void *SrmScanGet(SrmScan *scan, int64 ordinal, bool forward);
extern void SrmScanEnd(SrmScan *scan);
extern Size SrmScanMemory(SrmTapeSet *ts, SrmRun *run, int nbufs);

#endif							/* SRM_SCAN_H */
