/*-------------------------------------------------------------------------
 *
 * runmeta.h
 *	  Run bookkeeping paged through a metadata workfile.
 *
 * IDENTIFICATION
 *	  src/runs/runmeta.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_RUNMETA_H
#define SRM_RUNMETA_H

#include "storage/fd.h"

/* entries per page, and pages cached per open array */
#define SRM_PAGE_ENTRIES	32

typedef struct SrmPageCache SrmPageCache;

/*
 * One workfile holding fixed-size entries of many runs' arrays, each run's
 * entries contiguous.  Only the newest array may grow (runs are written one
 * at a time), so appending is always at the end of the file.
 */
typedef struct SrmMetaFile
{
	File		vfd;
	int			entsz;			/* bytes per entry */
	int			nslots;			/* pages cached per open array */
	int64		eof;			/* entries in the file (logically) */
	MemoryContext cxt;			/* where page caches are allocated */
} SrmMetaFile;

/* A run's array in a metadata file. */
typedef struct SrmPaged
{
	int64		base;			/* file index of entry 0 */
	int64		n;				/* entries */
	SrmPageCache *cache;		/* NULL while the array is not in use */
} SrmPaged;

/*
 * A workfile of variable-length values (the by-reference forecast keys of
 * paged runs), appended one after another, each found by its position.
 */
typedef struct SrmKeyFile
{
	File		vfd;			/* -1: none */
	off_t		eof;			/* bytes written */
} SrmKeyFile;

extern void SrmMetaFileInit(SrmMetaFile *mf, File vfd, int entsz, int nslots,
							MemoryContext cxt);
extern Size SrmMetaCacheBytes(SrmMetaFile *mf);
extern void *SrmPagedAt(SrmMetaFile *mf, SrmPaged *pa, int64 i, bool dirty);
extern void *SrmPagedAppend(SrmMetaFile *mf, SrmPaged *pa);
extern void SrmPagedClose(SrmMetaFile *mf, SrmPaged *pa, bool write_back);
extern off_t SrmKeyFileAppend(SrmKeyFile *kf, const char *p, uint32 len);
extern char *SrmKeyFileRead(SrmKeyFile *kf, off_t pos, char **buf,
							Size *bufsize, MemoryContext cxt);

#endif							/* SRM_RUNMETA_H */
