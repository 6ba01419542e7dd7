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
 * Portions Copyright (c) 2026, the srmsort developers
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
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/resowner.h"

#include "base/compat.h"
#include "builds/armed.h"
#include "builds/citus.h"

static int	arm_kinds = 0;
static List *arm_sets[SRM_ARMED_NSETS];

/*
 * The relcache entries held open across the statement's transactions
 * (SrmArmedPin), and the resource owner that holds them: one for the
 * backend's life, outside every transaction's.  At each top-level commit
 * or abort they are let go just before PostgreSQL checks the relcache's
 * reference counts (an entry created in that transaction must then be
 * closed) and, on commit, taken again right after (pins_held false in
 * between); nothing frees or rebuilds an entry in that window.  On abort
 * they are forgotten: the entry may be gone.
 */
static List *arm_pins = NIL;
static bool pins_held = true;
static ResourceOwner pin_owner = NULL;
static bool pin_callback_registered = false;

static void
pins_set(bool hold)
{
	ResourceOwner save = CurrentResourceOwner;
	ListCell   *lc;

	CurrentResourceOwner = pin_owner;
	foreach(lc, arm_pins)
	{
		if (hold)
			RelationIncrementReferenceCount((Relation) lfirst(lc));
		else
			RelationDecrementReferenceCount((Relation) lfirst(lc));
	}
	CurrentResourceOwner = save;
	pins_held = hold;
}

static void
pins_release_callback(ResourceReleasePhase phase, bool isCommit,
					  bool isTopLevel, void *arg)
{
	if (!isTopLevel || arm_pins == NIL)
		return;
	if (phase == RESOURCE_RELEASE_BEFORE_LOCKS && pins_held)
		pins_set(false);
	else if (phase == RESOURCE_RELEASE_AFTER_LOCKS && !pins_held)
	{
		if (isCommit)
			pins_set(true);
		else
		{
			list_free(arm_pins);
			arm_pins = NIL;
			pins_held = true;
		}
	}
}

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

	if (arm_pins != NIL && pins_held)
		pins_set(false);
	list_free(arm_pins);
	arm_pins = NIL;
	pins_held = true;
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

/*
 * SrmArmedPin
 *		Hold index's relcache entry open until the statement ends.  A
 *		CONCURRENTLY build runs in a later transaction than the one that
 *		created the index; an entry nobody holds is dropped at the first
 *		invalidation and built afresh from the access method's handler,
 *		without srmsort's ambuild.  An open index entry is only reloaded
 *		(RelationReloadIndexInfo), keeping its routine.
 */
void
SrmArmedPin(Relation index)
{
	ResourceOwner save = CurrentResourceOwner;
	MemoryContext old;

	Assert(pins_held);
	if (list_member_ptr(arm_pins, index))
		return;
	if (pin_owner == NULL)
		pin_owner = ResourceOwnerCreate(NULL, "srmsort armed statement");
	if (!pin_callback_registered)
	{
		RegisterResourceReleaseCallback(pins_release_callback, NULL);
		pin_callback_registered = true;
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	arm_pins = lappend(arm_pins, index);
	MemoryContextSwitchTo(old);
	CurrentResourceOwner = pin_owner;
	PG_TRY();
	{
		RelationIncrementReferenceCount(index);
	}
	PG_CATCH();
	{
		CurrentResourceOwner = save;
		arm_pins = list_delete_last(arm_pins);
		PG_RE_THROW();
	}
	PG_END_TRY();
	CurrentResourceOwner = save;
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
