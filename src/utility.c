/*-------------------------------------------------------------------------
 *
 * utility.c
 *	  The ProcessUtility hook that routes CREATE INDEX and REINDEX of btree
 *	  indexes to srmsort's build.
 *
 * PostgreSQL's btree build cannot be hooked: btbuild is reached only
 * through the relcache entry's rd_indam->ambuild, which exists only once
 * the index does.  So the statement runs exactly as PostgreSQL runs it
 * (every hook after ours, core's checks, locks, errors, event triggers and
 * security context, in core's order), and srmsort only swaps ambuild in
 * the index's relcache entry at the last moment before index_build calls
 * it, from a relcache invalidation callback:
 *
 *	CREATE INDEX: index_create makes the new index's relcache entry, fires
 *	the object-access post-create hook (we note the OID) and then runs a
 *	CommandCounterIncrement that rebuilds the entry and calls the relcache
 *	callbacks for it; the entry is open and valid there, and index_build
 *	follows.  Indexes DefineIndex creates for the partitions of a
 *	partitioned table are caught the same way, and so are those ALTER
 *	TABLE creates: PRIMARY KEY and UNIQUE constraints (ATExecAddIndex calls
 *	DefineIndex), and the indexes it recreates after ALTER COLUMN TYPE.
 *	(The indexes ALTER TABLE rebuilds after rewriting a table are rebuilt
 *	by reindex_relation, not created: they stay PostgreSQL's.)
 *
 *	REINDEX INDEX / TABLE: reindex_index opens the index, marks it as being
 *	reindexed (ReindexIsProcessingIndex) and gives it a new relfilenode,
 *	whose CommandCounterIncrement calls the callbacks for it; the open
 *	entry keeps its rd_indam through that rebuild.  We act only for an
 *	index we hold AccessExclusiveLock on: no other backend can then send an
 *	invalidation for it, so the callback comes from reindex_index itself,
 *	with the entry open.
 *
 * The callback never does catalog access: it only looks up an entry that
 * is open.  SrmBtBuild builds only indexes armed in the current statement
 * and hands any other to btbuild, which makes a swapped pointer that
 * outlives the statement harmless.  Everything srmsort does not take is
 * left alone: CONCURRENTLY, other access methods, REINDEX SCHEMA, DATABASE
 * and SYSTEM, the indexes of CREATE TABLE (on an empty table), the
 * indexes that table rewrites (ALTER TABLE, CLUSTER, VACUUM FULL) rebuild,
 * and statements on tables Citus manages (citus.c: Citus sends each shard
 * its own statement, which srmsort builds on the shard's node).
 * SrmBtBuild itself hands catalogs, TOAST tables and builds below
 * srmsort.min_input_size back to btbuild.
 *
 * IDENTIFICATION
 *	  src/utility.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "build.h"
#include "compat.h"
#include "srmsort.h"

/* what the statement in progress lets srmsort build */
typedef enum SrmArmKind
{
	SRM_ARM_NONE = 0,
	SRM_ARM_CREATE,				/* CREATE INDEX: indexes it creates */
	SRM_ARM_REINDEX				/* REINDEX INDEX/TABLE: indexes it rebuilds */
} SrmArmKind;

static ProcessUtility_hook_type prev_ProcessUtility = NULL;
static object_access_hook_type prev_object_access = NULL;

/*
 * The state of the armed statement, in TopMemoryContext: the relations it
 * created (CREATE INDEX), the indexes whose ambuild is ours, and those
 * whose build has begun (never swapped again).
 */
static SrmArmKind arm_kind = SRM_ARM_NONE;
static List *arm_created = NIL;
static List *arm_swapped = NIL;
static List *arm_started = NIL;

static void srm_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
							   bool readOnlyTree, ProcessUtilityContext context,
							   ParamListInfo params, QueryEnvironment *queryEnv,
							   DestReceiver *dest, QueryCompletion *qc);
static void srm_object_access(ObjectAccessType access, Oid classId,
							  Oid objectId, int subId, void *arg);
static void srm_relcache_callback(Datum arg, Oid relid);
static SrmArmKind statement_kind(Node *parsetree);
static void remember_oid(List **set, Oid oid);
static void disarm(void);

/*
 * SrmUtilityInit
 *		Install the hook (from _PG_init).
 */
void
SrmUtilityInit(void)
{
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = srm_ProcessUtility;
	prev_object_access = object_access_hook;
	object_access_hook = srm_object_access;
	CacheRegisterRelcacheCallback(srm_relcache_callback, (Datum) 0);
}

static void
call_next(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
		  ProcessUtilityContext context, ParamListInfo params,
		  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	if (prev_ProcessUtility)
		prev_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
							queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

/*
 * statement_kind
 *		Which index builds of this statement srmsort may take.
 */
static SrmArmKind
statement_kind(Node *parsetree)
{
	ListCell   *lc;

	if (!srmsort_enabled || !srmsort_create_index)
		return SRM_ARM_NONE;
	if (IsA(parsetree, IndexStmt))
	{
		IndexStmt  *stmt = (IndexStmt *) parsetree;

		if (!stmt->concurrent && stmt->accessMethod != NULL &&
			strcmp(stmt->accessMethod, "btree") == 0 &&
			!SrmCitusOwnsStatement(parsetree))
			return SRM_ARM_CREATE;
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		/* the indexes it creates (see the file header) */
		if (!SrmCitusOwnsStatement(parsetree))
			return SRM_ARM_CREATE;
	}
	else if (IsA(parsetree, ReindexStmt))
	{
		ReindexStmt *stmt = (ReindexStmt *) parsetree;

		if (stmt->kind != REINDEX_OBJECT_INDEX &&
			stmt->kind != REINDEX_OBJECT_TABLE)
			return SRM_ARM_NONE;
		/* any CONCURRENTLY, even "false", goes to core untouched */
		foreach(lc, stmt->params)
		{
			DefElem    *opt = (DefElem *) lfirst(lc);

			if (strcmp(opt->defname, "concurrently") == 0)
				return SRM_ARM_NONE;
		}
		if (SrmCitusOwnsStatement(parsetree))
			return SRM_ARM_NONE;
		return SRM_ARM_REINDEX;
	}
	return SRM_ARM_NONE;
}

/*
 * remember_oid
 *		Add oid to one of the armed statement's sets (in TopMemoryContext,
 *		where they live until disarm).
 */
static void
remember_oid(List **set, Oid oid)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	*set = list_append_unique_oid(*set, oid);
	MemoryContextSwitchTo(old);
}

/*
 * disarm
 *		Forget the armed statement; never ERRORs (used in PG_FINALLY).
 */
static void
disarm(void)
{
	arm_kind = SRM_ARM_NONE;
	list_free(arm_created);
	list_free(arm_swapped);
	list_free(arm_started);
	arm_created = arm_swapped = arm_started = NIL;
}

/*
 * srm_ProcessUtility
 *		Arm CREATE INDEX and REINDEX for srmsort and run them unchanged.
 */
static void
srm_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
				   bool readOnlyTree, ProcessUtilityContext context,
				   ParamListInfo params, QueryEnvironment *queryEnv,
				   DestReceiver *dest, QueryCompletion *qc)
{
	SrmArmKind	kind = statement_kind(pstmt->utilityStmt);
	SrmArmKind	outer = arm_kind;

	/*
	 * A statement nested in an armed one (a function an index expression
	 * calls, an event trigger) is not armed: the outer statement's state
	 * stays as it is and is forgotten only when that one ends.
	 */
	if (kind == SRM_ARM_NONE || outer != SRM_ARM_NONE)
	{
		call_next(pstmt, queryString, readOnlyTree, context, params, queryEnv,
				  dest, qc);
		return;
	}

	arm_kind = kind;
	PG_TRY();
	{
		call_next(pstmt, queryString, readOnlyTree, context, params, queryEnv,
				  dest, qc);
	}
	PG_FINALLY();
	{
		disarm();
	}
	PG_END_TRY();
}

/*
 * srm_object_access
 *		Note the relations an armed CREATE INDEX creates.
 */
static void
srm_object_access(ObjectAccessType access, Oid classId, Oid objectId,
				  int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	if (arm_kind == SRM_ARM_CREATE && access == OAT_POST_CREATE &&
		classId == RelationRelationId && subId == 0)
		remember_oid(&arm_created, objectId);
}

/*
 * srm_relcache_callback
 *		Swap ambuild into an armed statement's btree index just before its
 *		build; see the file header for why the entry is open here.
 */
static void
srm_relcache_callback(Datum arg, Oid relid)
{
	Relation	index;
	LOCKTAG		tag;

	if (arm_kind == SRM_ARM_NONE || !OidIsValid(relid) ||
		!IsTransactionState() || list_member_oid(arm_started, relid))
		return;
	if (arm_kind == SRM_ARM_CREATE)
	{
		/* only the first call: the one from index_create, entry open */
		if (!list_member_oid(arm_created, relid))
			return;
		arm_created = list_delete_oid(arm_created, relid);
	}
	else
	{
		if (!ReindexIsProcessingIndex(relid))
			return;
		SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
		if (!SrmLockHeldByMe(&tag, AccessExclusiveLock))
			return;
	}

	index = RelationIdGetRelation(relid);
	if (index == NULL)
		return;
	if (index->rd_rel->relkind == RELKIND_INDEX &&
		index->rd_rel->relam == BTREE_AM_OID && index->rd_indam != NULL)
	{
		/*
		 * A copy of the routine in the entry's own memory: 19's entries
		 * point at the access method's read-only routine, shared by every
		 * btree index.
		 */
		IndexAmRoutine *routine = MemoryContextAlloc(index->rd_indexcxt,
													 sizeof(IndexAmRoutine));

		memcpy(routine, index->rd_indam, sizeof(IndexAmRoutine));
		routine->ambuild = SrmBtBuild;
		index->rd_indam = routine;
		remember_oid(&arm_swapped, relid);
	}
	RelationClose(index);
}

/*
 * SrmBuildClaim
 *		Called by SrmBtBuild: may srmsort build this index?  True only for
 *		an index swapped in the statement in progress; from now on the
 *		callback leaves its entry alone.
 */
bool
SrmBuildClaim(Oid indexOid)
{
	if (arm_kind == SRM_ARM_NONE || !list_member_oid(arm_swapped, indexOid))
		return false;
	remember_oid(&arm_started, indexOid);
	return true;
}
