/*-------------------------------------------------------------------------
 *
 * workfile.h
 *	  The workfiles of a disk set: one temporary file per disk, and the
 *	  kernel file descriptors srmsort's I/O goes through.
 *
 * Each disk's workfile is created through fd.c's temporary-file machinery
 * (OpenTemporaryFile with the tablespace forced) so that temp_file_limit,
 * log_temp_files, cleanup at abort and crash-restart cleanup all apply; a
 * second, stable kernel fd (accounted with AcquireExternalFD) is used for
 * the actual I/O, optionally with O_DIRECT.
 *
 * IDENTIFICATION
 *	  src/io/workfile.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_WORKFILE_H
#define SRM_WORKFILE_H

#include "storage/fd.h"
#include "storage/sharedfileset.h"

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

/* A disk of a set in tablespace spc (its name), no file open yet. */
extern void SrmDiskInit(SrmDisk *disk, Oid spc, const char *name);

/* Create disk's workfile through fd.c and open its stable fd. */
extern void SrmDiskOpenWorkfile(SrmDiskSet *set, SrmDisk *disk);

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

/* A worker of a parallel sort: attach to the leader's shared disks. */
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

#endif							/* SRM_WORKFILE_H */
