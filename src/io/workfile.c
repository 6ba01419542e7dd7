/*-------------------------------------------------------------------------
 *
 * workfile.c
 *	  The workfiles of a disk set: one temporary file per disk, and the
 *	  kernel file descriptors srmsort's I/O goes through.
 *
 * Workfiles.  Each disk's file is made by fd.c's OpenTemporaryFile with
 * the temporary-tablespace list briefly forced to that one tablespace, so
 * that the file is registered with the resource owner (closed and deleted
 * at abort), counted against temp_file_limit, reported to log_temp_files
 * when deleted, and named pgsql_tmp* inside the tablespace's pgsql_tmp
 * directory (removed by a crash restart).  Since fd.c may close and reopen
 * its kernel fds at any time, the I/O itself uses a second, stable fd
 * opened on the same path and declared to fd.c with AcquireExternalFD.
 * Before a write extends a file, a zero-length FileWrite at the new end
 * makes fd.c check temp_file_limit and account the growth.
 *
 * Disks shared by the participants of a parallel sort live in file sets
 * of the parallel context's DSM segment (SrmSharedDisks): each
 * participant creates its own file on the disks it writes and opens the
 * others' files to read their runs.
 *
 * Memory: a set and its paths live in the context current when it is
 * opened (SrmDiskSetOpen, SrmDiskSetOpenShared).  In an abort the
 * resource owner deletes the files; the owner of the set only closes the
 * stable fds (SrmDiskSetClose(set, true)).
 *
 * IDENTIFICATION
 *	  src/io/workfile.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>

#include "access/xact.h"
#include "catalog/pg_tablespace.h"
#include "commands/tablespace.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/sharedfileset.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "io/aio.h"
#include "io/workfile.h"

static bool warned_no_direct = false;

/*
 * create_temp_file
 *		A temporary file of fd.c in disk's tablespace (deleted at close, at
 *		the end of the transaction or by a crash restart; counted against
 *		temp_file_limit).
 */
static File
create_temp_file(SrmDisk *disk)
{
	Oid			saved_buf[SRM_MAX_DISKS];
	Oid		   *saved;
	Oid		   *one;
	int			nsaved;
	File		f;
	char		tmpdir[MAXPGPATH];
	Oid			where;

	/* force the temporary-tablespace list to this one tablespace */
	PrepareTempTablespaces();
	nsaved = GetTempTablespaces(saved_buf, SRM_MAX_DISKS);
	saved = MemoryContextAlloc(TopTransactionContext, Max(nsaved, 1) * sizeof(Oid));
	memcpy(saved, saved_buf, nsaved * sizeof(Oid));
	one = MemoryContextAlloc(TopTransactionContext, sizeof(Oid));
	*one = disk->spcOid;
	SetTempTablespaces(one, 1);
	PG_TRY();
	{
		f = OpenTemporaryFile(false);
	}
	PG_FINALLY();
	{
		SetTempTablespaces(saved, nsaved);
	}
	PG_END_TRY();

	/* OpenTemporaryFile falls back to the default tablespace silently */
	where = OidIsValid(disk->spcOid) ? disk->spcOid :
		(OidIsValid(MyDatabaseTableSpace) ? MyDatabaseTableSpace : DEFAULTTABLESPACE_OID);
	TempTablespacePath(tmpdir, where);
	if (strncmp(FilePathName(f), tmpdir, strlen(tmpdir)) != 0)
	{
		char	   *got = pstrdup(FilePathName(f));

		FileClose(f);
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("could not create a workfile in tablespace \"%s\"",
						disk->spcname),
				 errdetail("The file was created as \"%s\" instead of in \"%s\".",
						   got, tmpdir),
				 errhint("Check that the tablespace's directory exists and is writable by the server.")));
	}
	return f;
}

/*
 * open_stable_fd
 *		The stable kernel fd for I/O on a workfile at path (O_DIRECT when
 *		the set asks for it and the filesystem allows), accounted with
 *		AcquireExternalFD.
 */
static int
open_stable_fd(SrmDiskSet *set, const char *path)
{
	int			flags;
	int			fd;

	if (!AcquireExternalFD())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("too many open files for srmsort workfiles"),
				 errhint("Raise max_files_per_process or use fewer tablespaces in srmsort.tablespaces.")));
	flags = O_RDWR | PG_BINARY;
#ifdef O_DIRECT
	if (set->direct_io)
		flags |= O_DIRECT;
#endif
	fd = open(path, flags, 0);
	if (fd < 0 && set->direct_io && errno == EINVAL)
	{
		/* the filesystem refuses O_DIRECT: go on buffered */
		if (!warned_no_direct)
			ereport(LOG,
					(errmsg("srmsort.direct_io is not supported for \"%s\", using buffered I/O",
							path)));
		warned_no_direct = true;
		fd = open(path, O_RDWR | PG_BINARY, 0);
	}
	if (fd < 0)
	{
		int			save_errno = errno;

		ReleaseExternalFD();
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	}
	return fd;
}

/*
 * SrmDiskOpenWorkfile
 *		Create disk's workfile in its tablespace through fd.c and open the
 *		stable fd.
 */
void
SrmDiskOpenWorkfile(SrmDiskSet *set, SrmDisk *disk)
{
	File		f = create_temp_file(disk);

	disk->vfd = f;
	disk->path = pstrdup(FilePathName(f));
	disk->accounted = 0;
	disk->fd = open_stable_fd(set, disk->path);
}

/*
 * SrmDiskInit
 *		A disk of a set, no file open yet.
 */
void
SrmDiskInit(SrmDisk *disk, Oid spc, const char *name)
{
	disk->spcOid = spc;
	strlcpy(disk->spcname, name, NAMEDATALEN);
	disk->fd = -1;
	disk->vfd = -1;
}

/*
 * SrmDiskExtend
 *		See disks.h.
 */
void
SrmDiskExtend(SrmDiskSet *set, int d, off_t new_eof)
{
	SrmDisk    *disk = &set->disks[d];
	char		dummy = 0;

	if (new_eof <= disk->accounted)
		return;
	if (FileWrite(disk->vfd, &dummy, 0, new_eof, WAIT_EVENT_BUFFILE_WRITE) < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write to file \"%s\": %m", disk->path)));
	disk->accounted = new_eof;
}

/*
 * SrmDiskCreateAuxFile
 *		See disks.h.
 */
File
SrmDiskCreateAuxFile(SrmDiskSet *set, int d)
{
	return create_temp_file(&set->disks[d]);
}

/*
 * SrmDiskOpenProbe
 *		See disks.h.
 */
int
SrmDiskOpenProbe(SrmDisk *disk, File *vfd, bool *direct)
{
	SrmDiskSet	probe;
	int			fd;

	*vfd = create_temp_file(disk);
	memset(&probe, 0, sizeof(probe));
#ifdef O_DIRECT
	if (!AcquireExternalFD())
	{
		FileClose(*vfd);
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("too many open files for srmsort workfiles"),
				 errhint("Raise max_files_per_process or use fewer tablespaces in srmsort.tablespaces.")));
	}
	fd = open(FilePathName(*vfd), O_RDWR | O_DIRECT | PG_BINARY, 0);
	if (fd >= 0)
	{
		*direct = true;
		return fd;
	}
	ReleaseExternalFD();
#endif
	/* no O_DIRECT here: buffered, as the sorts will be */
	*direct = false;
	return open_stable_fd(&probe, FilePathName(*vfd));
}

/*
 * SrmDiskCloseProbe
 *		See disks.h.
 */
void
SrmDiskCloseProbe(int fd, File vfd)
{
	if (fd >= 0)
	{
		close(fd);
		ReleaseExternalFD();
	}
	if (vfd >= 0)
		FileClose(vfd);
}

/*
 * SrmDiskSetClose
 *		See disks.h.
 */
void
SrmDiskSetClose(SrmDiskSet *set, bool in_abort)
{
	int			i;
	int			f;
	bool		own_vfd;

	for (i = 0; i < set->nopen; i++)
	{
		SrmDisk    *disk = &set->disks[i];

		/* a shared set's other files (disk->fd is among them) */
		for (f = 0; disk->fds != NULL && f < set->nfiles; f++)
		{
			if (disk->fds[f] >= 0 && disk->fds[f] != disk->fd)
			{
				close(disk->fds[f]);
				ReleaseExternalFD();
			}
			disk->fds[f] = -1;
		}
		/*
		 * A workfile of gigabytes takes seconds to free on a filesystem with
		 * online discard, in the process that closes it last.  fd.c unlinks
		 * and closes its file first (it counts the file's size out of
		 * temp_file_limit and logs it), and io_uring's worker closes ours,
		 * the last, off the sort's time.  In an abort the resource owner
		 * closes fd.c's file.
		 */
		own_vfd = !in_abort && disk->vfd >= 0;
		if (own_vfd)
		{
			FileClose(disk->vfd);
			disk->vfd = -1;
		}
		if (disk->fd >= 0)
		{
			if (!own_vfd || !SrmIoCloseAsync(disk->fd))
				close(disk->fd);
			ReleaseExternalFD();
			disk->fd = -1;
		}
	}
}

/*
 * shared_name
 *		The name of workfile f in a disk's file set.
 */
static void
shared_name(char *name, int f)
{
	snprintf(name, MAXPGPATH, "srm%d", f);
}

/*
 * SrmSharedDisksAttach
 *		See disks.h.
 */
void
SrmSharedDisksAttach(SrmSharedDisks *sd, dsm_segment *seg)
{
	int			i;

	for (i = 0; i < sd->ndisks; i++)
		SharedFileSetAttach(&sd->filesets[i], seg);
}

/*
 * SrmDiskSetOpenShared
 *		See disks.h.
 */
SrmDiskSet *
SrmDiskSetOpenShared(SrmSharedDisks *sd, int myfile, int first, int count,
					 int peer_first, int npeers)
{
	SrmDiskSet *set = palloc0(sizeof(SrmDiskSet));
	int			i;
	int			f;

	Assert(myfile >= 0 && myfile < sd->nfiles && sd->nfiles <= SRM_MAX_SHARED_FILES);
	set->ndisks = sd->ndisks;
	set->partno = sd->partno;
	set->nleftout = sd->nleftout;
	set->direct_io = sd->direct_io;
	set->nfiles = sd->nfiles;
	set->myfile = myfile;
	set->disks = palloc0(set->ndisks * sizeof(SrmDisk));
	set->weights = palloc(set->ndisks * sizeof(double));
	memcpy(set->weights, sd->weights, set->ndisks * sizeof(double));
	set->weight_source = sd->weight_source;
	for (i = 0; i < set->ndisks; i++)
	{
		SrmDisk    *disk = &set->disks[i];

		SrmDiskInit(disk, sd->spcs[i], sd->names[i]);
		disk->fds = palloc(set->nfiles * sizeof(int));
		disk->paths = palloc0(set->nfiles * sizeof(char *));
		for (f = 0; f < set->nfiles; f++)
			disk->fds[f] = -1;
	}
	for (i = 0; i < set->ndisks; i++)
	{
		SrmDisk    *disk = &set->disks[i];
		FileSet    *fs = &sd->filesets[i].fs;
		char		name[MAXPGPATH];

		set->nopen = i + 1;
		if (i >= first && i < first + count)
		{
			/* this participant's own file: it writes and accounts it */
			shared_name(name, myfile);
			disk->vfd = FileSetCreate(fs, name);
			disk->path = pstrdup(FilePathName(disk->vfd));
			disk->fd = open_stable_fd(set, disk->path);
			disk->fds[myfile] = disk->fd;
			disk->paths[myfile] = disk->path;
		}
		for (f = peer_first; f < peer_first + npeers; f++)
		{
			File		vfd;

			if (f == myfile)
				continue;
			shared_name(name, f);
			vfd = FileSetOpen(fs, name, O_RDWR);
			if (vfd <= 0)
				continue;		/* that participant wrote nothing here */
			disk->paths[f] = pstrdup(FilePathName(vfd));
			/* only the stable fd is needed; the file stays in the set */
			FileClose(vfd);
			disk->fds[f] = open_stable_fd(set, disk->paths[f]);
		}
	}
	return set;
}
