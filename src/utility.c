/*-------------------------------------------------------------------------
 *
 * utility.c
 *	  The ProcessUtility hook that routes CREATE INDEX and REINDEX of btree
 *	  indexes to srmsort's build.
 *
 * PostgreSQL's btree build cannot be hooked: btbuild is reached only
 * through the relcache entry's rd_indam->ambuild, which exists only once
 * the index does.  So, for a plain CREATE INDEX (btree, not CONCURRENTLY,
 * on a table or materialized view, not partitioned), this hook does what
 * ProcessUtilitySlow does for the statement (read-only checks, event
 * trigger bracket, lock and name lookup, transformIndexStmt) but calls
 * DefineIndex with skip_build, then builds the new, still empty index with
 * index_build while the index's rd_indam->ambuild points at SrmBtBuild.
 * index_build does the rest as always (owner switch, init fork of
 * unlogged indexes, indcheckxmin, statistics, exclusion checks).  The
 * pointer is restored at the end, error or not; rd_indam belongs to the
 * relcache entry, which an open index keeps across invalidations.
 *
 * REINDEX INDEX and REINDEX TABLE (not CONCURRENTLY) are simpler: the
 * indexes exist, so the hook takes the locks core would take, in core's
 * order, puts SrmBtBuild into the btree indexes' relcache entries and runs
 * the standard command unchanged.  reindex_index refuses an index someone
 * else has open, so these entries cannot be held open and restored after;
 * instead SrmBtBuild only builds indexes "armed" for the current command
 * and hands any other to btbuild, which makes a swapped pointer that
 * outlives the command harmless.

 * Everything else goes to the previous hook or standard_ProcessUtility:
 * CONCURRENTLY, partitioned tables and indexes, other access methods,
 * system catalogs, and the indexes ALTER TABLE and CREATE TABLE create for
 * constraints (they are built inside ALTER TABLE, out of this hook's reach;
 * CREATE UNIQUE INDEX + ALTER TABLE ... ADD PRIMARY KEY USING INDEX goes
 * through srmsort).  SrmBtBuild itself hands builds that would not spill
 * back to btbuild.
 *
 * IDENTIFICATION
 *	  src/utility.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "commands/event_trigger.h"
#include "commands/progress.h"
#include "commands/tablecmds.h"
#include "miscadmin.h"
#include "parser/parse_utilcmd.h"
#include "pgstat.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "build.h"
#include "srmsort.h"

static ProcessUtility_hook_type prev_ProcessUtility = NULL;

static void srm_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
							   bool readOnlyTree, ProcessUtilityContext context,
							   ParamListInfo params, QueryEnvironment *queryEnv,
							   DestReceiver *dest, QueryCompletion *qc);
static void call_next(PlannedStmt *pstmt, const char *queryString,
					  bool readOnlyTree, ProcessUtilityContext context,
					  ParamListInfo params, QueryEnvironment *queryEnv,
					  DestReceiver *dest, QueryCompletion *qc);
static bool create_index(PlannedStmt *pstmt, const char *queryString,
						 ProcessUtilityContext context);
static void build_new_index(Oid heapOid, Oid indexOid);
static bool reindex_wanted(ReindexStmt *stmt);
static void reindex_callback(const RangeVar *relation, Oid relId,
							 Oid oldRelId, void *arg);
static void arm_reindex_targets(ReindexStmt *stmt);

/*
 * SrmUtilityInit
 *		Install the hook (from _PG_init).
 */
void
SrmUtilityInit(void)
{
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = srm_ProcessUtility;
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
 * swap_ambuild
 *		Point an open btree index's ambuild at ours; returns the old one.
 */
static ambuild_function
swap_ambuild(Relation index, ambuild_function fn)
{
	ambuild_function old = index->rd_indam->ambuild;

	index->rd_indam->ambuild = fn;
	return old;
}

/*
 * srm_ProcessUtility
 *		Take CREATE INDEX and REINDEX when srmsort should; see file header.
 */
static void
srm_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
				   bool readOnlyTree, ProcessUtilityContext context,
				   ParamListInfo params, QueryEnvironment *queryEnv,
				   DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	if (srmsort_enabled && srmsort_create_index)
	{
		if (IsA(parsetree, IndexStmt))
		{
			IndexStmt  *stmt = (IndexStmt *) parsetree;

			if (!stmt->concurrent && !stmt->transformed &&
				stmt->accessMethod != NULL &&
				strcmp(stmt->accessMethod, "btree") == 0)
			{
				if (readOnlyTree)
					pstmt = copyObject(pstmt);
				if (create_index(pstmt, queryString, context))
				{
					CommandCounterIncrement();
					return;
				}
			}
		}
		else if (IsA(parsetree, ReindexStmt) &&
				 reindex_wanted((ReindexStmt *) parsetree))
		{
			/* lock and arm as core will lock, then the standard command */
			arm_reindex_targets((ReindexStmt *) parsetree);
			PG_TRY();
			{
				call_next(pstmt, queryString, readOnlyTree, context, params,
						  queryEnv, dest, qc);
			}
			PG_FINALLY();
			{
				SrmBuildDisarmAll();
			}
			PG_END_TRY();
			return;
		}
	}
	call_next(pstmt, queryString, readOnlyTree, context, params, queryEnv,
			  dest, qc);
}

/*
 * create_index
 *		ProcessUtilitySlow's CREATE INDEX with the build done by srmsort.
 *		Returns false, having done nothing but lock the table, when the
 *		table is not one srmsort builds for (the caller then runs the
 *		standard path, which takes the same lock again).
 */
static bool
create_index(PlannedStmt *pstmt, const char *queryString,
			 ProcessUtilityContext context)
{
	IndexStmt  *stmt = (IndexStmt *) pstmt->utilityStmt;
	Node	   *parsetree = (Node *) stmt;
	bool		complete = (context != PROCESS_UTILITY_SUBCOMMAND);
	bool		cleanup;
	Oid			relid;
	char		relkind;
	ObjectAddress address;

	check_stack_depth();
	if (XactReadOnly || IsInParallelMode())
	{
		PreventCommandIfReadOnly("CREATE INDEX");
		PreventCommandIfParallelMode("CREATE INDEX");
		PreventCommandDuringRecovery("CREATE INDEX");
	}

	/* the lock DefineIndex needs, taken up front as core does */
	relid = RangeVarGetRelidExtended(stmt->relation, ShareLock, 0,
									 RangeVarCallbackOwnsRelation, NULL);
	relkind = get_rel_relkind(relid);
	if ((relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW) ||
		IsCatalogRelationOid(relid))
		return false;

	cleanup = complete && EventTriggerBeginCompleteQuery();
	PG_TRY();
	{
		if (complete)
			EventTriggerDDLCommandStart(parsetree);

		stmt = transformIndexStmt(relid, stmt, queryString);
		EventTriggerAlterTableStart(parsetree);
		address = DefineIndex(relid, stmt, InvalidOid, InvalidOid, InvalidOid,
#if PG_VERSION_NUM >= 160000
							  -1,	/* total_parts */
#endif
							  false,	/* is_alter_table */
							  true, /* check_rights */
							  true, /* check_not_in_use */
							  true, /* skip_build: we build below */
							  false);	/* quiet */
		if (OidIsValid(address.objectId))
			build_new_index(relid, address.objectId);
		EventTriggerCollectSimpleCommand(address, InvalidObjectAddress,
										 parsetree);
		EventTriggerAlterTableEnd();

		if (complete)
		{
			EventTriggerSQLDrop(parsetree);
			EventTriggerDDLCommandEnd(parsetree);
		}
	}
	PG_FINALLY();
	{
		if (cleanup)
			EventTriggerEndCompleteQuery();
	}
	PG_END_TRY();
	return true;
}

/*
 * build_new_index
 *		Build the index DefineIndex left empty, through SrmBtBuild.
 */
static void
build_new_index(Oid heapOid, Oid indexOid)
{
	Relation	heap = table_open(heapOid, NoLock);
	Relation	index = index_open(indexOid, NoLock);
	IndexInfo  *ii = BuildIndexInfo(index);
	ambuild_function saved;
	const int	idx[] = {
		PROGRESS_CREATEIDX_COMMAND,
		PROGRESS_CREATEIDX_INDEX_OID,
		PROGRESS_CREATEIDX_ACCESS_METHOD_OID
	};
	const int64 val[] = {
		PROGRESS_CREATEIDX_COMMAND_CREATE,
		indexOid,
		BTREE_AM_OID
	};

	/* DefineIndex ended its progress report; the build starts a new one */
	pgstat_progress_start_command(PROGRESS_COMMAND_CREATE_INDEX, heapOid);
	pgstat_progress_update_multi_param(3, idx, val);

	saved = swap_ambuild(index, SrmBtBuild);
	SrmBuildArm(indexOid);
	PG_TRY();
	{
		index_build(heap, index, ii, false, true);
	}
	PG_FINALLY();
	{
		SrmBuildDisarmAll();
		swap_ambuild(index, saved);
	}
	PG_END_TRY();

	pgstat_progress_end_command();
	index_close(index, NoLock);
	table_close(heap, NoLock);
}

/*
 * reindex_wanted
 *		REINDEX INDEX or TABLE without CONCURRENTLY.
 */
static bool
reindex_wanted(ReindexStmt *stmt)
{
	ListCell   *lc;

	if (stmt->kind != REINDEX_OBJECT_INDEX && stmt->kind != REINDEX_OBJECT_TABLE)
		return false;
	foreach(lc, stmt->params)
	{
		DefElem    *opt = (DefElem *) lfirst(lc);

		if (strcmp(opt->defname, "concurrently") == 0)
			return false;
	}
	return true;
}

/*
 * reindex_callback
 *		RangeVarGetRelidExtended callback for REINDEX INDEX: the same checks
 *		and the same table-before-index locking as core's.
 */
static void
reindex_callback(const RangeVar *relation, Oid relId, Oid oldRelId, void *arg)
{
	Oid		   *locked = (Oid *) arg;
	char		relkind;

	if (relId != oldRelId && OidIsValid(oldRelId) && OidIsValid(*locked))
	{
		UnlockRelationOid(*locked, ShareLock);
		*locked = InvalidOid;
	}
	if (!OidIsValid(relId))
		return;
	relkind = get_rel_relkind(relId);
	if (!relkind)
		return;
	if (relkind != RELKIND_INDEX && relkind != RELKIND_PARTITIONED_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an index", relation->relname)));
#if PG_VERSION_NUM >= 160000
	if (!object_ownercheck(RelationRelationId, relId, GetUserId()))
#else
	if (!pg_class_ownercheck(relId, GetUserId()))
#endif
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_INDEX, relation->relname);
	if (relId != oldRelId)
	{
		Oid			table = IndexGetRelation(relId, true);

		if (OidIsValid(table))
		{
			LockRelationOid(table, ShareLock);
			*locked = table;
		}
	}
}

/*
 * arm_reindex_targets
 *		Lock what the REINDEX will lock, in the same order, and arm the
 *		btree indexes srmsort will rebuild.  Each gets SrmBtBuild as its
 *		ambuild and is closed again at once: reindex_index insists on being
 *		the only one with the index open.  Its relcache entry, locked
 *		exclusively by us, stays until reindex_index opens it again; if a
 *		cache reset rebuilds it in between, PostgreSQL builds that index.
 */
static void
arm_reindex_targets(ReindexStmt *stmt)
{
	List	   *indexes = NIL;
	Oid			heapOid;
	ListCell   *lc;

	if (stmt->kind == REINDEX_OBJECT_INDEX)
	{
		Oid			locked = InvalidOid;
		Oid			indexOid = RangeVarGetRelidExtended(stmt->relation,
														AccessExclusiveLock, 0,
														reindex_callback,
														&locked);

		heapOid = IndexGetRelation(indexOid, false);
		indexes = list_make1_oid(indexOid);
	}
	else
	{
		Relation	heap;

		heapOid = RangeVarGetRelidExtended(stmt->relation, ShareLock, 0,
										   RangeVarCallbackOwnsTable, NULL);
		if (get_rel_relkind(heapOid) == RELKIND_PARTITIONED_TABLE)
			return;
		heap = table_open(heapOid, NoLock);
		indexes = RelationGetIndexList(heap);
		table_close(heap, NoLock);
	}
	if (IsCatalogRelationOid(heapOid))
		return;

	foreach(lc, indexes)
	{
		Oid			oid = lfirst_oid(lc);
		Relation	index;

		if (get_rel_relkind(oid) != RELKIND_INDEX)
			continue;
		/* reindex_index takes this lock next; take it now, in list order */
		index = index_open(oid, AccessExclusiveLock);
		if (index->rd_rel->relam == BTREE_AM_OID)
		{
			swap_ambuild(index, SrmBtBuild);
			SrmBuildArm(oid);
		}
		index_close(index, NoLock);
	}
}
