/*-------------------------------------------------------------------------
 *
 * armed.c
 *	  The armed statement: what the utility statement in progress lets
 *	  srmsort take, and the relations it has met so far.
 *
 * utility.c's hooks arm a statement when it begins and disarm it when it
 * ends; between the two they note the relations the statement creates and
 * the indexes whose ambuild they swapped (utility.c's header says when).
 * The builds below ask here whether they may act: SrmBtBuild claims an
 * index swapped in this statement, cluster.c asks whether CLUSTER is
 * armed.  The state lives in TopMemoryContext so that it survives the
 * statement's own transaction boundaries (CONCURRENTLY, REINDEX SCHEMA);
 * a statement nested in an armed one is not armed again.
 *
 * IDENTIFICATION
 *	  src/builds/armed.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/index.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/relcache.h"

#include "base/compat.h"
#include "builds/armed.h"
#include "builds/citus.h"

static int	arm_kinds = 0;
static List *arm_sets[SRM_ARMED_NSETS];

/*
 * SrmArm
 *		The statement beginning lets srmsort take kinds (SRM_ARM_* bits).
 */
void
SrmArm(int kinds)
{
	Assert(arm_kinds == 0);
	arm_kinds = kinds;
}

/*
 * SrmDisarm
 *		Forget the armed statement; never ERRORs (used in PG_CATCH).
 */
void
SrmDisarm(void)
{
	int			i;

	arm_kinds = 0;
	for (i = 0; i < SRM_ARMED_NSETS; i++)
	{
		list_free(arm_sets[i]);
		arm_sets[i] = NIL;
	}
}

int
SrmArmedKinds(void)
{
	return arm_kinds;
}

/*
 * SrmArmedAdd
 *		Add relid to one of the armed statement's sets (in TopMemoryContext,
 *		where they live until SrmDisarm).
 */
void
SrmArmedAdd(SrmArmedSet set, Oid relid)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	arm_sets[set] = list_append_unique_oid(arm_sets[set], relid);
	MemoryContextSwitchTo(old);
}

void
SrmArmedRemove(SrmArmedSet set, Oid relid)
{
	arm_sets[set] = list_delete_oid(arm_sets[set], relid);
}

bool
SrmArmedHas(SrmArmedSet set, Oid relid)
{
	return list_member_oid(arm_sets[set], relid);
}

/* The set itself, to walk (not to change). */
List *
SrmArmedList(SrmArmedSet set)
{
	return arm_sets[set];
}

/*
 * SrmBuildClaim
 *		Called by SrmBtBuild: may srmsort build this index?  True only for
 *		an index swapped in the statement in progress, on a table Citus
 *		does not manage; from now on the swap is not redone for it.
 */
bool
SrmBuildClaim(Oid indexOid)
{
	if (arm_kinds == 0 || !SrmArmedHas(SRM_ARMED_SWAPPED, indexOid))
		return false;
	SrmArmedAdd(SRM_ARMED_STARTED, indexOid);
	return !SrmCitusOwnsRelation(IndexGetRelation(indexOid, true));
}

/*
 * SrmClusterArmed
 *		Does the statement in progress let srmsort sort CLUSTER's table?
 */
bool
SrmClusterArmed(void)
{
	return (arm_kinds & SRM_ARM_CLUSTER) != 0;
}

/*
 * SrmOpenIfLockedByMe
 *		Relation relid's relcache entry (RelationClose it) if this backend
 *		holds exactly lockmode on it, else NULL.
 */
Relation
SrmOpenIfLockedByMe(Oid relid, LOCKMODE lockmode)
{
	LOCKTAG		tag;

	SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
	if (!SrmLockHeldByMe(&tag, lockmode))
		return NULL;
	return RelationIdGetRelation(relid);
}
