/*-------------------------------------------------------------------------
 *
 * disks.h
 *	  Which disks a sort writes to: tablespaces, partitions and weights.
 *
 * The disks are the tablespaces named in srmsort.tablespaces; when that is
 * empty, those of temp_tablespaces; when that is empty too, the database's
 * default tablespace (one disk).  Each needs CREATE permission for the
 * current user (checked at use, like temp_tablespaces).  A sort takes the
 * least loaded partition of them, and its workfiles (workfile.h) are made
 * there.
 *
 * IDENTIFICATION
 *	  src/io/disks.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_DISKS_H
#define SRM_DISKS_H

#include "utils/guc.h"

#include "io/workfile.h"

/*
 * Resolve the configured disks, take a partition of them and at most
 * maxdisks of its disks, and create one workfile on each, in
 * CurrentMemoryContext, for a sort expected to write expect_bytes (0:
 * unknown).  Must run inside a transaction.  Tablespaces that cannot be
 * used are skipped as temp_tablespaces skips them; ERRORs only for a file
 * that cannot be created.
 */
extern SrmDiskSet *SrmDiskSetOpen(int maxdisks, double expect_bytes);

/*
 * Leader of a parallel build: resolve the disks and take a partition as
 * SrmDiskSetOpen does (at most maxdisks), and set up their file sets in
 * seg for nfiles files per disk.  Workers attach with
 * SrmSharedDisksAttach.
 */
extern void SrmSharedDisksInit(SrmSharedDisks *sd, dsm_segment *seg,
							   int maxdisks, int nfiles);

/* GUC check hook of srmsort.tablespaces. */
extern bool SrmCheckTablespaces(char **newval, void **extra, GucSource source);

#endif							/* SRM_DISKS_H */
