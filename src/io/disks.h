/*-------------------------------------------------------------------------
 *
 * disks.h
 *	  The workfile disks of a sort: one temporary file per tablespace.
 *
 * The disks are the tablespaces named in srmsort.tablespaces; when that is
 * empty, those of temp_tablespaces; when that is empty too, the database's
 * default tablespace (one disk).  Each needs CREATE permission for the
 * current user (checked at use, like temp_tablespaces).
 *
 * Each disk's workfile is created through fd.c's temporary-file machinery
 * (OpenTemporaryFile with the tablespace forced) so that temp_file_limit,
 * log_temp_files, cleanup at abort and crash-restart cleanup all apply; a
 * second, stable kernel fd (accounted with AcquireExternalFD) is used for
 * the actual I/O, optionally with O_DIRECT.
 *
 * IDENTIFICATION
 *	  src/io/disks.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_DISKS_H
#define SRM_DISKS_H

#include "storage/fd.h"
#include "storage/sharedfileset.h"
#include "utils/guc.h"

#define SRM_MAX_DISKS		64
#define SRM_IO_ALIGN		4096	/* buffer/offset/length alignment for O_DIRECT */

typedef struct SrmDisk
{
	Oid			spcOid;			/* InvalidOid = database default */
	char		spcname[NAMEDATALEN];
	File		vfd;			/* fd.c temp file: accounting, deletion */
	int			fd;				/* stable kernel fd for I/O, -1 if closed */
	char	   *path;			/* the workfile's path */
	off_t		accounted;		/* size declared to fd.c so far */
	/* shared sets: every participant's file on the disk, by file number */
	int		   *fds;			/* stable fds, -1 if not open */
	char	  **paths;
} SrmDisk;

/* where a disk set's weights come from (placement.c) */
typedef enum SrmWeightSource
{
	SRM_WEIGHTS_FROM_EQUAL = 0, /* srmsort.disk_weights = equal, or one disk */
	SRM_WEIGHTS_FROM_SETTING,	/* a list in srmsort.disk_weights */
	SRM_WEIGHTS_FROM_MEASURED,	/* auto: the disks' learned bandwidths */
	SRM_WEIGHTS_FROM_UNMEASURED /* auto, but no bandwidth known */
} SrmWeightSource;

typedef struct SrmDiskSet
{
	int			ndisks;
	int			nopen;			/* disks whose files are open */
	int			partno;			/* partition taken (disks.c) */
	int			nleftout;		/* disks of the partition left out for memory */
	bool		direct_io;
	int			nfiles;			/* shared sets: files per disk, else 0 */
	int			myfile;			/* shared sets: the file this set writes */
	SrmDisk	   *disks;			/* ndisks entries */
	double	   *weights;		/* ndisks relative weights (placement.c) */
	int			weight_source;	/* SrmWeightSource */
} SrmDiskSet;

/*
 * What one sort did on one of its disks: bytes read and written, and the
 * time a read or a write of it was in flight (a union of intervals, so
 * that requests in flight together count once), for EXPLAIN and for
 * learning the disk's bandwidth.
 */
typedef struct SrmDiskUse
{
	int64		bytes[2];		/* [0] read, [1] written */
	double		busy_ms[3];		/* [0] reading, [1] writing, [2] either */
	double		until_ms[3];	/* the end of the busy time counted so far */
} SrmDiskUse;

/*
 * The workfile disks of a parallel index build, in its DSM segment.  Every
 * participant writes its runs to its own file on each disk it uses (file
 * number f, named after f, created by that participant: temp_file_limit
 * and log_temp_files see it), in one SharedFileSet per disk limited to
 * that disk's tablespace, so the files outlive their writers and are
 * deleted when the last process detaches from the segment, after an error
 * too, and by a crash restart.  A block slot of a shared set carries its
 * file number in its high bits (SRM_SLOT_FILE_SHIFT), so a run written by
 * one participant can be read, and its slots reused, by another.
 */
#define SRM_SLOT_FILE_SHIFT		24
#define SRM_MAX_SHARED_FILES	127

typedef struct SrmSharedDisks
{
	int			ndisks;
	int			partno;
	int			nleftout;
	int			nfiles;
	bool		direct_io;
	int			weight_source;
	double		weights[SRM_MAX_DISKS];
	Oid			spcs[SRM_MAX_DISKS];
	char		names[SRM_MAX_DISKS][NAMEDATALEN];
	SharedFileSet filesets[SRM_MAX_DISKS];
} SrmSharedDisks;

/* srmsort.direct_io */
typedef enum SrmDirectIo
{
	SRM_DIRECT_IO_OFF = 0,
	SRM_DIRECT_IO_ON,
	SRM_DIRECT_IO_AUTO
} SrmDirectIo;

/* settings (defined in srmsort.c) */
extern PGDLLIMPORT char *srmsort_tablespaces;
extern PGDLLIMPORT int srmsort_partitions;	/* 0: auto */
extern PGDLLIMPORT int srmsort_direct_io;

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
 * Declare that disk's workfile is about to grow to new_eof bytes, so that
 * temp_file_limit is enforced (ERROR "temporary file size exceeds
 * temp_file_limit") before the write is issued.  Cheap when the file does
 * not grow.
 */
extern void SrmDiskExtend(SrmDiskSet *set, int disk, off_t new_eof);

/*
 * A further temporary file of fd.c in disk d's tablespace, for small
 * buffered I/O through FileRead/FileWrite (the caller closes it).
 */
extern File SrmDiskCreateAuxFile(SrmDiskSet *set, int d);

/*
 * Close the kernel fds and delete the workfiles (reporting their size to
 * log_temp_files).  Idempotent.  Never ERRORs when called with
 * in_abort = true (from a reset callback during abort the VFDs may already
 * be gone: then only the kernel fds are closed).
 */
extern void SrmDiskSetClose(SrmDiskSet *set, bool in_abort);

/*
 * Leader of a parallel build: resolve the disks and take a partition as
 * SrmDiskSetOpen does (at most maxdisks), and set up their file sets in
 * seg for nfiles files per disk.  Workers attach with
 * SrmSharedDisksAttach.
 */
extern void SrmSharedDisksInit(SrmSharedDisks *sd, dsm_segment *seg,
							   int maxdisks, int nfiles);
extern void SrmSharedDisksAttach(SrmSharedDisks *sd, dsm_segment *seg);

/*
 * A disk set over shared disks: this process's file myfile is created on
 * disks [first, first + count) (the only disks it may write new blocks
 * to), and the existing files peer_first .. peer_first + npeers - 1 of
 * the other participants are opened on every disk, for reading their runs.
 */
extern SrmDiskSet *SrmDiskSetOpenShared(SrmSharedDisks *sd, int myfile,
										int first, int count,
										int peer_first, int npeers);

/*
 * For measuring a disk (diskspeed.c): a temporary file of fd.c in its
 * tablespace (*vfd, deleted when closed) and a stable fd on it for I/O,
 * with O_DIRECT where the filesystem allows it (*direct says if it did).
 * The caller closes both with SrmDiskCloseProbe.
 */
extern int	SrmDiskOpenProbe(SrmDisk *disk, File *vfd, bool *direct);
extern void SrmDiskCloseProbe(int fd, File vfd);

/* GUC check hook of srmsort.tablespaces. */
extern bool SrmCheckTablespaces(char **newval, void **extra, GucSource source);

#endif							/* SRM_DISKS_H */
