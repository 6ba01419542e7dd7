/*-------------------------------------------------------------------------
 *
 * disks.c
 *	  Which disks a sort writes to: tablespaces, partitions and weights.
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
 * The workfiles themselves, and the disk sets of parallel sorts whose
 * participants share the disks, are workfile.c's.
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

#include "base/settings.h"
#include "base/shmem.h"
#include "io/aio.h"
#include "io/disks.h"
#include "io/iomode.h"
#include "io/placement.h"
#include "io/workfile.h"

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
		SrmDiskInit(&set->disks[i], oids[first + i], names[first + i]);
	for (i = 0; i < count; i++)
	{
		SrmDiskOpenWorkfile(set, &set->disks[i]);
		set->nopen = i + 1;
	}
	SrmDiskWeightsResolve(set);
	return set;
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
		SrmDiskInit(&probe.disks[i], oids[first + i], names[first + i]);
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
