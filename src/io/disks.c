/*-------------------------------------------------------------------------
 *
 * disks.c
 *	  The workfile disks of a sort: one temporary file per tablespace.
 *
 * Resolution.  srmsort.tablespaces names the disks; when it is empty, the
 * session's temp_tablespaces are used (already filtered for CREATE
 * permission by PostgreSQL), and when those are empty too, the database's
 * default tablespace is the one disk.  As with temp_tablespaces, an
 * interactive SET refuses unknown names, pg_global, duplicates and
 * tablespaces without CREATE permission (SrmCheckTablespaces), while at
 * use, in the transaction of the sort, such names are skipped silently
 * (the sort must not fail where PostgreSQL's own would not).
 *
 * Partitions (Wu, Yu, Chung, Teng).  Of the resolved disks the sort takes
 * one partition.  The D disks are split into P groups as evenly as
 * possible (group p holds disks [p*D/P, (p+1)*D/P)); a new sort takes the
 * group whose disks carry the fewest active jobs per disk, and among
 * equals the fewest bytes in flight, as shared memory counts them
 * (shmem.c).  srmsort.partitions = auto (0) chooses P from the number of
 * other active jobs n: one partition while n < 8, then one more for every
 * 4 further jobs, at most D -- full sharing at light load, more isolation
 * as load grows (the paper's simplified adaptive scheme; the thresholds
 * are bench/concurrency.sh's).  Without shared memory P is 1.
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
 * Memory: the set and its paths live in the context current at
 * SrmDiskSetOpen.  In an abort the resource owner deletes the files; the
 * owner of the set only closes the stable fds (SrmDiskSetClose(set, true)).
 *
 * IDENTIFICATION
 *	  src/io/disks.c
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
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/varlena.h"
#include "utils/wait_event.h"

#include "base/shmem.h"
#include "io/aio.h"
#include "io/disks.h"
#include "io/iomode.h"
#include "io/placement.h"

static bool warned_no_direct = false;

/*
 * may_create_in
 *		Does the current user have CREATE on tablespace spc?
 */
static bool
may_create_in(Oid spc)
{
	AclResult	aclresult;

	if (!OidIsValid(spc) || spc == MyDatabaseTableSpace)
		return true;
#if PG_VERSION_NUM >= 160000
	aclresult = object_aclcheck(TableSpaceRelationId, spc, GetUserId(), ACL_CREATE);
#else
	aclresult = pg_tablespace_aclcheck(spc, GetUserId(), ACL_CREATE);
#endif
	return aclresult == ACLCHECK_OK;
}

/* why a tablespace named in srmsort.tablespaces cannot be a disk */
typedef enum SrmSpcProblem
{
	SRM_SPC_OK = 0,
	SRM_SPC_MISSING,
	SRM_SPC_GLOBAL,
	SRM_SPC_TWICE,
	SRM_SPC_NO_CREATE
} SrmSpcProblem;

/*
 * spc_problem
 *		Can tablespace spc (InvalidOid: the name did not resolve) be a disk
 *		beside the ntaken already taken?  One rule for SET (which refuses)
 *		and for use (which skips).
 */
static SrmSpcProblem
spc_problem(Oid spc, const Oid *taken, int ntaken)
{
	int			i;

	if (!OidIsValid(spc))
		return SRM_SPC_MISSING;
	if (spc == GLOBALTABLESPACE_OID)
		return SRM_SPC_GLOBAL;
	for (i = 0; i < ntaken; i++)
		if (taken[i] == spc)
			return SRM_SPC_TWICE;
	if (!may_create_in(spc))
		return SRM_SPC_NO_CREATE;
	return SRM_SPC_OK;
}

/*
 * resolve_named
 *		Resolve the names of srmsort.tablespaces into oids[]/names[].  As
 *		PostgreSQL does with temp_tablespaces at use, names that do not
 *		resolve to a tablespace the current user may create files in are
 *		skipped without a word to the client (a setting can go stale: a
 *		tablespace dropped, a privilege revoked, an index build running as
 *		the table's owner); the server log says so at DEBUG1.  Returns 0
 *		when none is left.
 */
static int
resolve_named(Oid *oids, char names[][NAMEDATALEN])
{
	char	   *raw = pstrdup(srmsort_tablespaces);
	List	   *list;
	ListCell   *lc;
	int			n = 0;

	if (!SplitIdentifierString(raw, ',', &list))
		return 0;
	foreach(lc, list)
	{
		char	   *name = (char *) lfirst(lc);
		Oid			spc = get_tablespace_oid(name, true);
		static const char *const whys[] = {
			[SRM_SPC_MISSING] = "does not exist",
			[SRM_SPC_GLOBAL] = "cannot hold workfiles",
			[SRM_SPC_TWICE] = "is listed twice",
			[SRM_SPC_NO_CREATE] = "is not open to the current user for CREATE"
		};
		SrmSpcProblem problem = spc_problem(spc, oids, n);
		const char *why = problem != SRM_SPC_OK ? whys[problem] :
			n >= SRM_MAX_DISKS ? "is beyond the number of disks srmsort uses" : NULL;

		if (why != NULL)
		{
			ereport(DEBUG1,
					(errmsg_internal("srmsort: tablespace \"%s\" of srmsort.tablespaces %s, skipped",
									 name, why)));
			continue;
		}
		oids[n] = spc;
		strlcpy(names[n], name, NAMEDATALEN);
		n++;
	}
	return n;
}

/*
 * resolve_disks
 *		The disks of a sort, in configuration order.
 */
static int
resolve_disks(Oid *oids, char names[][NAMEDATALEN])
{
	int			n;
	int			i;

	if (srmsort_tablespaces != NULL && srmsort_tablespaces[0] != '\0')
	{
		n = resolve_named(oids, names);
		if (n > 0)
			return n;
	}

	PrepareTempTablespaces();
	n = GetTempTablespaces(oids, SRM_MAX_DISKS);
	if (n == 0)
	{
		oids[0] = InvalidOid;
		n = 1;
	}
	for (i = 0; i < n; i++)
	{
		char	   *name = OidIsValid(oids[i]) ? get_tablespace_name(oids[i]) : NULL;

		if (name == NULL)
			name = get_tablespace_name(MyDatabaseTableSpace);
		strlcpy(names[i], name ? name : "pg_default", NAMEDATALEN);
	}
	return n;
}

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
 * open_workfile
 *		Create disk d's workfile in its tablespace through fd.c and open the
 *		stable fd.
 */
static void
open_workfile(SrmDiskSet *set, SrmDisk *disk)
{
	File		f = create_temp_file(disk);

	disk->vfd = f;
	disk->path = pstrdup(FilePathName(f));
	disk->accounted = 0;
	disk->fd = open_stable_fd(set, disk->path);
}

/*
 * choose_partition
 *		The partition of the ndisks disks spcs[] a new sort takes: the least
 *		loaded of P = srmsort.partitions groups (or P from the load, for
 *		auto).  Sets *first and *count to the disks of the partition, and
 *		*partno.  A P above ndisks is clamped to ndisks (said at
 *		DEBUG1).
 */
static void
choose_partition(const Oid *spcs, int ndisks, int *first, int *count,
				 int *partno)
{
	int			P = srmsort_partitions;
	int			best = 0;
	uint64		bestjobs = 0;
	uint64		bestinflight = 0;
	int			p;

	/*
	 * More partitions than disks (srmsort.partitions set for a longer list
	 * of tablespaces than this sort has): one disk each.  The sort must not
	 * fail where PostgreSQL's own would not.
	 */
	if (P > ndisks)
	{
		ereport(DEBUG1,
				(errmsg_internal("srmsort: srmsort.partitions (%d) exceeds the %d workfile disks; using %d",
								 P, ndisks, ndisks)));
		P = ndisks;
	}

	if (!SrmShmemAvailable() || ndisks <= 1)
	{
		*first = 0;
		*count = ndisks;
		*partno = 0;
		return;
	}

	if (P == 0)
	{
		/* auto: one partition at light load, then one more per 4 jobs */
		int			others = SrmActiveJobs();

		P = (others < 8) ? 1 : Min(ndisks, 2 + (others - 8) / 4);
	}

	for (p = 0; p < P; p++)
	{
		int			lo = p * ndisks / P;
		int			hi = (p + 1) * ndisks / P;
		uint64		jobs = 0;
		uint64		inflight = 0;
		int			i;

		for (i = lo; i < hi; i++)
		{
			uint32		disk_jobs;
			uint64		disk_inflight;

			if (SrmDiskLoad(spcs[i], &disk_jobs, &disk_inflight))
			{
				jobs += disk_jobs;
				inflight += disk_inflight;
			}
		}
		/* per disk, so uneven partitions are fair; in-flight bytes break ties */
		jobs = jobs * 1000 / (hi - lo);
		inflight /= (hi - lo);
		if (p == 0 || jobs < bestjobs ||
			(jobs == bestjobs && inflight < bestinflight))
		{
			bestjobs = jobs;
			bestinflight = inflight;
			best = p;
		}
	}
	*first = best * ndisks / P;
	*count = (best + 1) * ndisks / P - *first;
	*partno = best;
}

/*
 * take_partition
 *		Resolve the disks and take a partition of them, at most maxdisks:
 *		oids[first .. first + *count - 1] (names likewise) are the sort's.
 */
static void
take_partition(int maxdisks, Oid *oids, char names[][NAMEDATALEN],
			   int *first, int *count, int *partno, int *nleftout)
{
	int			n = resolve_disks(oids, names);

	choose_partition(oids, n, first, count, partno);
	*nleftout = Max(*count - Max(maxdisks, 1), 0);
	*count -= *nleftout;
}

/*
 * init_disk
 *		A disk of a set, no file open yet.
 */
static void
init_disk(SrmDisk *disk, Oid spc, const char *name)
{
	disk->spcOid = spc;
	strlcpy(disk->spcname, name, NAMEDATALEN);
	disk->fd = -1;
	disk->vfd = -1;
}

/*
 * SrmDiskSetOpen
 *		See disks.h.
 */
SrmDiskSet *
SrmDiskSetOpen(int maxdisks, double expect_bytes)
{
	Oid			oids[SRM_MAX_DISKS];
	char		names[SRM_MAX_DISKS][NAMEDATALEN];
	int			first,
				count,
				partno;
	SrmDiskSet *set = palloc0(sizeof(SrmDiskSet));
	int			i;

	take_partition(maxdisks, oids, names, &first, &count, &partno,
				   &set->nleftout);
	set->ndisks = count;
	set->partno = partno;
	set->direct_io = SrmChooseDirectIo(expect_bytes);
	set->disks = palloc0(count * sizeof(SrmDisk));
	for (i = 0; i < count; i++)
		init_disk(&set->disks[i], oids[first + i], names[first + i]);
	for (i = 0; i < count; i++)
	{
		open_workfile(set, &set->disks[i]);
		set->nopen = i + 1;
	}
	SrmDiskWeightsResolve(set);
	return set;
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

/* ---------- disks shared by the participants of a parallel build ---------- */

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
 * SrmSharedDisksInit
 *		See disks.h.
 */
void
SrmSharedDisksInit(SrmSharedDisks *sd, dsm_segment *seg, int maxdisks,
				   int nfiles)
{
	Oid			oids[SRM_MAX_DISKS];
	char		names[SRM_MAX_DISKS][NAMEDATALEN];
	int			first,
				count,
				partno;
	int			i;
	SrmDiskSet	probe;

	take_partition(maxdisks, oids, names, &first, &count, &partno,
				   &sd->nleftout);
	sd->ndisks = count;
	sd->partno = partno;
	sd->nfiles = nfiles;
	/* the build's size is not known here: auto stays buffered */
	sd->direct_io = SrmChooseDirectIo(0);

	/* the weights, once for all participants */
	memset(&probe, 0, sizeof(probe));
	probe.ndisks = count;
	probe.disks = palloc0(count * sizeof(SrmDisk));
	for (i = 0; i < count; i++)
		init_disk(&probe.disks[i], oids[first + i], names[first + i]);
	SrmDiskWeightsResolve(&probe);
	memcpy(sd->weights, probe.weights, count * sizeof(double));
	sd->weight_source = probe.weight_source;
	pfree(probe.weights);
	pfree(probe.disks);

	for (i = 0; i < count; i++)
	{
		Oid			spc = oids[first + i];
		FileSet    *fs = &sd->filesets[i].fs;

		sd->spcs[i] = spc;
		strlcpy(sd->names[i], names[first + i], NAMEDATALEN);
		SharedFileSetInit(&sd->filesets[i], seg);
		/* this disk's files go to its tablespace only */
		fs->ntablespaces = 1;
		fs->tablespaces[0] = OidIsValid(spc) ? spc :
			(OidIsValid(MyDatabaseTableSpace) ? MyDatabaseTableSpace :
			 DEFAULTTABLESPACE_OID);
	}
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

		init_disk(disk, sd->spcs[i], sd->names[i]);
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

/*
 * SrmCheckTablespaces
 *		GUC check hook of srmsort.tablespaces: the list must parse; in an
 *		interactive SET inside a transaction the names must also exist, be
 *		unique and allow CREATE, as for temp_tablespaces.
 */
bool
SrmCheckTablespaces(char **newval, void **extra, GucSource source)
{
	char	   *raw = pstrdup(*newval);
	List	   *list;
	ListCell   *lc;
	Oid			seen[SRM_MAX_DISKS];
	int			nseen = 0;

	if (!SplitIdentifierString(raw, ',', &list))
	{
		GUC_check_errdetail("List syntax is invalid.");
		pfree(raw);
		list_free(list);
		return false;
	}
	if (IsTransactionState() && MyDatabaseId != InvalidOid &&
		source >= PGC_S_INTERACTIVE)
	{
		foreach(lc, list)
		{
			char	   *name = (char *) lfirst(lc);
			Oid			spc = get_tablespace_oid(name, true);

			switch (spc_problem(spc, seen, nseen))
			{
				case SRM_SPC_OK:
					break;
				case SRM_SPC_MISSING:
					GUC_check_errdetail("Tablespace \"%s\" does not exist.", name);
					return false;
				case SRM_SPC_GLOBAL:
					GUC_check_errdetail("Tablespace \"%s\" cannot hold workfiles.", name);
					return false;
				case SRM_SPC_TWICE:
					GUC_check_errdetail("Tablespace \"%s\" is listed twice.", name);
					return false;
				case SRM_SPC_NO_CREATE:
					GUC_check_errdetail("Permission denied to create files in tablespace \"%s\".",
										name);
					return false;
			}
			if (nseen < SRM_MAX_DISKS)
				seen[nseen++] = spc;
		}
	}
	list_free(list);
	pfree(raw);
	return true;
}
