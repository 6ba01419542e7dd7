/*-------------------------------------------------------------------------
 *
 * utility.c
 *	  Arms the utility statements whose btree and GiST builds (and
 *	  CLUSTER's heap sort) srmsort takes, and swaps srmsort in for the one
 *	  call.
 *
 * PostgreSQL's index builds cannot be hooked: btbuild (gistbuild) is reached only
 * through the relcache entry's rd_indam->ambuild, which exists only once
 * the index does; CLUSTER's sort is reached only through the table's
 * rd_tableam->relation_copy_for_cluster.  So every statement runs exactly
 * as PostgreSQL runs it (every hook after ours, core's checks, locks,
 * transactions, waits, errors, event triggers and security context, in
 * core's order).  The ProcessUtility hook only arms the statement (notes
 * what srmsort may take, in TopMemoryContext, so that the arming survives
 * the statement's own transaction boundaries) and disarms it when the
 * statement ends, however it ends.  srmsort then swaps its routine into a
 * relation's relcache entry at the last moment before PostgreSQL calls it,
 * at a point where PostgreSQL holds that entry open:
 *
 *	CREATE INDEX (also the indexes ALTER TABLE creates: PRIMARY KEY, UNIQUE,
 *	those it recreates after ALTER COLUMN TYPE): index_create makes the new
 *	index's relcache entry, fires the object-access post-create hook (we
 *	note the OID) and runs a CommandCounterIncrement that rebuilds the
 *	entry and calls the relcache callbacks for it; the entry is open there,
 *	and index_build follows.  Partitions of a partitioned table are caught
 *	the same way.
 *
 *	REINDEX INDEX / TABLE / SCHEMA / DATABASE, and the indexes rebuilt by
 *	reindex_relation after a table rewrite (ALTER TABLE that rewrites,
 *	CLUSTER, VACUUM FULL, REFRESH MATERIALIZED VIEW): reindex_index opens
 *	the index, marks it as being reindexed (ReindexIsProcessingIndex) and
 *	gives it a new relfilenode, whose CommandCounterIncrement calls the
 *	callbacks for it; the open entry keeps its rd_indam through that
 *	rebuild.  We act only for an index we hold AccessExclusiveLock on: no
 *	other backend can then send an invalidation for it, so the callback
 *	comes from reindex_index itself, with the entry open.  SCHEMA and
 *	DATABASE run a transaction per table; the arming lives on.
 *
 *	CREATE INDEX CONCURRENTLY, REINDEX CONCURRENTLY: the index is created
 *	(index_create, swapped as above) in one transaction and built
 *	(index_concurrently_build) in a later one.  An entry nobody holds open
 *	would be dropped at the first invalidation in between and built afresh
 *	from the access method's handler, and nothing calls an extension
 *	between index_concurrently_build's index_open and ambuild.  So the
 *	swapped entry is held open until the statement ends (armed.c's pins),
 *	and an open index entry is only reloaded, keeping its routine.
 *
 *	CLUSTER's heap sort: copy_table_data asks the planner whether to sort
 *	(plan_cluster_use_sort: get_relation_info_hook on the table, which
 *	copy_table_data holds open with AccessExclusiveLock) and then calls
 *	relation_copy_for_cluster on that same open entry; cluster.c swaps the
 *	table AM routine there and restores it inside that one call.  With
 *	enable_indexscan off, PostgreSQL sorts without asking the planner, and
 *	the sort stays PostgreSQL's.
 *
 * The relcache callback never does catalog access for an entry that is
 * not open.  SrmBtBuild builds only indexes swapped in the statement in
 * progress and hands any other to btbuild (SrmGistBuild likewise to
 * gistbuild, and every GiST build PostgreSQL would not sort), which makes a swapped pointer
 * that outlives the statement harmless; cluster.c likewise.  Everything
 * srmsort does not take is left alone: other access methods, REINDEX
 * SYSTEM, REPACK (CONCURRENTLY), the indexes of CREATE TABLE (on an empty
 * table), and tables Citus manages (citus.c: Citus sends each shard its
 * own statement, which srmsort builds on the shard's node).  SrmBtBuild
 * itself hands catalogs, TOAST tables and builds below
 * srmsort.min_input_size back to btbuild.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/utility.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#if PG_VERSION_NUM >= 190000
#include "optimizer/pathnode.h"
#else
#include "optimizer/plancat.h"
#endif
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "base/compat.h"
#include "base/settings.h"
#include "builds/armed.h"
#include "builds/build.h"
#include "builds/citus.h"
#include "builds/cluster.h"
#include "builds/gistbuild.h"
#include "builds/utility.h"

static ProcessUtility_hook_type prev_ProcessUtility = NULL;
static object_access_hook_type prev_object_access = NULL;
#if PG_VERSION_NUM >= 190000
static build_simple_rel_hook_type prev_build_simple_rel = NULL;
#else
static get_relation_info_hook_type prev_get_relation_info = NULL;
#endif

static void srm_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
							   bool readOnlyTree, ProcessUtilityContext context,
							   ParamListInfo params, QueryEnvironment *queryEnv,
							   DestReceiver *dest, QueryCompletion *qc);
static void srm_object_access(ObjectAccessType access, Oid classId,
							  Oid objectId, int subId, void *arg);
static void srm_relcache_callback(Datum arg, Oid relid);
#if PG_VERSION_NUM >= 190000
static void srm_build_simple_rel(PlannerInfo *root, RelOptInfo *rel,
								 RangeTblEntry *rte);
#else
static void srm_get_relation_info(PlannerInfo *root, Oid relationObjectId,
								  bool inhparent, RelOptInfo *rel);
#endif
static int	statement_kinds(Node *parsetree);

/*
 * SrmUtilityInit
 *		Install the hooks (from _PG_init).
 */
void
SrmUtilityInit(void)
{
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = srm_ProcessUtility;
	prev_object_access = object_access_hook;
	object_access_hook = srm_object_access;
#if PG_VERSION_NUM >= 190000
	prev_build_simple_rel = build_simple_rel_hook;
	build_simple_rel_hook = srm_build_simple_rel;
#else
	prev_get_relation_info = get_relation_info_hook;
	get_relation_info_hook = srm_get_relation_info;
#endif
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
 * option_value
 *		The value of the boolean option name in a statement's option list:
 *		1 (also when given without a value), 0, absent (-1), or -2 when the
 *		value is not a boolean -- PostgreSQL then raises its own error, and
 *		srmsort arms nothing.  Never ERRORs.
 */
static int
option_value(List *options, const char *name)
{
	ListCell   *lc;
	int			result = -1;

	foreach(lc, options)
	{
		DefElem    *opt = (DefElem *) lfirst(lc);
		bool		b;

		if (strcmp(opt->defname, name) != 0)
			continue;
		if (opt->arg == NULL)
			result = 1;
		else if (IsA(opt->arg, Integer))
			result = intVal(opt->arg) != 0;
		else if ((IsA(opt->arg, String) || IsA(opt->arg, Boolean)) &&
				 parse_bool(defGetString(opt), &b))
			result = b;
		else
			return -2;
	}
	return result;
}

/*
 * cluster_kinds
 *		CLUSTER (REPACK on 19): the indexes rebuilt after the rewrite and,
 *		with srmsort.cluster, the heap sort.  REPACK (CONCURRENTLY) applies
 *		concurrent changes and builds its indexes its own way: left alone.
 */
static int
cluster_kinds(Node *parsetree)
{
	List	   *options;

#if PG_VERSION_NUM >= 190000
	options = ((RepackStmt *) parsetree)->params;
#else
	options = ((ClusterStmt *) parsetree)->params;
#endif
	if (option_value(options, "concurrently") != -1)
		return 0;
	return (srmsort_create_index ? SRM_ARM_REINDEX : 0) |
		(srmsort_cluster ? SRM_ARM_CLUSTER : 0);
}

/*
 * statement_kinds
 *		What srmsort may take of this statement's work (SRM_ARM_* bits).
 */
static int
statement_kinds(Node *parsetree)
{
	if (!srmsort_enabled)
		return 0;
	if (SrmIsClusterStmt(parsetree))
		return cluster_kinds(parsetree);
	if (!srmsort_create_index)
		return 0;

	switch (nodeTag(parsetree))
	{
		case T_IndexStmt:
			{
				IndexStmt  *stmt = (IndexStmt *) parsetree;

				/* the access methods srmsort builds (gist: sorted builds) */
				if (stmt->accessMethod == NULL ||
					(strcmp(stmt->accessMethod, "btree") != 0 &&
					 strcmp(stmt->accessMethod, "gist") != 0) ||
					SrmCitusOwnsStatement(parsetree))
					return 0;
				/* CONCURRENTLY on a temporary table builds in place */
				return SRM_ARM_CREATE |
					(stmt->concurrent ? SRM_ARM_CONCURRENT : 0);
			}
		case T_AlterTableStmt:
			/* the indexes it creates, and those a rewrite rebuilds */
			if (SrmCitusOwnsStatement(parsetree))
				return 0;
			return SRM_ARM_CREATE | SRM_ARM_REINDEX;
		case T_ReindexStmt:
			{
				ReindexStmt *stmt = (ReindexStmt *) parsetree;
				int			concurrently = option_value(stmt->params, "concurrently");

				if (stmt->kind == REINDEX_OBJECT_SYSTEM || concurrently == -2 ||
					SrmCitusOwnsStatement(parsetree))
					return 0;
				/* CONCURRENTLY reindexes temporary tables in place */
				return SRM_ARM_REINDEX |
					(concurrently == 1 ? SRM_ARM_CONCURRENT : 0);
			}
		case T_VacuumStmt:
			{
				VacuumStmt *stmt = (VacuumStmt *) parsetree;

				if (stmt->is_vacuumcmd && option_value(stmt->options, "full") == 1)
					return SRM_ARM_REINDEX;
				return 0;
			}
		case T_RefreshMatViewStmt:
			/* the concurrent refresh updates the indexes row by row */
			if (((RefreshMatViewStmt *) parsetree)->concurrent)
				return 0;
			return SRM_ARM_REINDEX;
		default:
			return 0;
	}
}

/*
 * srm_ProcessUtility
 *		Arm the statements srmsort takes part in and run them unchanged.
 */
static void
srm_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
				   bool readOnlyTree, ProcessUtilityContext context,
				   ParamListInfo params, QueryEnvironment *queryEnv,
				   DestReceiver *dest, QueryCompletion *qc)
{
	int			kinds;

	/*
	 * A statement nested in an armed one (a function an index expression
	 * calls, an event trigger) is not armed: the outer statement's state
	 * stays as it is and is forgotten only when that one ends.
	 */
	if (SrmArmedKinds() != 0 ||
		(kinds = statement_kinds(pstmt->utilityStmt)) == 0)
	{
		call_next(pstmt, queryString, readOnlyTree, context, params, queryEnv,
				  dest, qc);
		return;
	}

	SrmArm(kinds);
	PG_TRY();
	{
		call_next(pstmt, queryString, readOnlyTree, context, params, queryEnv,
				  dest, qc);
	}
	PG_CATCH();
	{
		/* still within the failed (sub)transaction: entries still open */
		SrmClusterDisarm(true);
		SrmDisarm();
		PG_RE_THROW();
	}
	PG_END_TRY();
	SrmClusterDisarm(false);
	SrmDisarm();
}

/*
 * srm_object_access
 *		Note the relations an armed statement creates.
 */
static void
srm_object_access(ObjectAccessType access, Oid classId, Oid objectId,
				  int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	if (access != OAT_POST_CREATE || classId != RelationRelationId ||
		subId != 0)
		return;
	if (SrmArmedKinds() & (SRM_ARM_CREATE | SRM_ARM_CONCURRENT))
		SrmArmedAdd(SRM_ARMED_CREATED, objectId);
}

/*
 * The routines swapped in, one per access method srmsort builds: made once
 * per backend from the first routine of that method met, with srmsort's
 * ambuild, beside the routine it was made from.  Every entry's routine is
 * its handler's (15-18: a copy per entry, in its rd_indexcxt; 19: the
 * handler's read-only one), so swapped entries all point here and a swap
 * allocates nothing: a copy per swap in the entry's memory stayed there as
 * long as the entry (272 bytes on 15).
 */
typedef struct SrmSwapped
{
	IndexAmRoutine routine;
	IndexAmRoutine original;
	bool		made;
} SrmSwapped;

static SrmSwapped swapped_btree;
static SrmSwapped swapped_gist;

/*
 * swap_ambuild
 *		Make srmsort's build the ambuild of an open btree (SrmBtBuild) or
 *		GiST (SrmGistBuild) index's relcache entry.  A routine other than
 *		the one the swapped routine was made from (another extension
 *		swapped something of its own) is left as it is, and the build to
 *		PostgreSQL.  True if the entry's ambuild is srmsort's.
 */
static bool
swap_ambuild(Relation index)
{
	SrmSwapped *sw;
	ambuild_function build;

	if (index->rd_rel->relkind != RELKIND_INDEX || index->rd_indam == NULL)
		return false;
	if (index->rd_rel->relam == BTREE_AM_OID)
	{
		sw = &swapped_btree;
		build = SrmBtBuild;
	}
	else if (index->rd_rel->relam == GIST_AM_OID)
	{
		sw = &swapped_gist;
		build = SrmGistBuild;
	}
	else
		return false;
	if (index->rd_indam != &sw->routine)
	{
		if (!sw->made)
		{
			memcpy(&sw->original, index->rd_indam, sizeof(IndexAmRoutine));
			memcpy(&sw->routine, index->rd_indam, sizeof(IndexAmRoutine));
			sw->routine.ambuild = build;
			sw->made = true;
		}
		if (memcmp(index->rd_indam, &sw->original, sizeof(IndexAmRoutine)) != 0)
			return false;
		index->rd_indam = &sw->routine;
	}
	SrmArmedAdd(SRM_ARMED_SWAPPED, RelationGetRelid(index));
	return true;
}

/*
 * srm_relcache_callback
 *		Swap ambuild into an armed statement's btree or GiST index just
 *		before its
 *		build; see the file header for why the entry is open here.
 */
static void
srm_relcache_callback(Datum arg, Oid relid)
{
	int			kinds = SrmArmedKinds();
	bool		created = false;
	Relation	index;

	if (kinds == 0 || !OidIsValid(relid) ||
		!IsTransactionState() || SrmArmedHas(SRM_ARMED_STARTED, relid))
		return;
	if (SrmArmedHas(SRM_ARMED_CREATED, relid))
	{
		/* only the first call: the one from index_create, entry open */
		SrmArmedRemove(SRM_ARMED_CREATED, relid);
		index = RelationIdGetRelation(relid);
		created = true;
	}
	else
	{
		if (!(kinds & SRM_ARM_REINDEX) || !ReindexIsProcessingIndex(relid))
			return;
		index = SrmOpenIfLockedByMe(relid, AccessExclusiveLock);
	}
	if (index == NULL)
		return;
	/*
	 * A CONCURRENTLY statement builds the index it created in a later
	 * transaction: keep the entry.
	 * Not a system index's (a TOAST table's, which srmsort leaves to
	 * PostgreSQL anyway): an open entry of one keeps its pg_index flags
	 * from when it was opened, and REINDEX CONCURRENTLY changes them.
	 */
	if (swap_ambuild(index) && created && (kinds & SRM_ARM_CONCURRENT) &&
		!IsSystemRelation(index))
		SrmArmedPin(index);
	RelationClose(index);
}

/*
 * planner_look
 *		The planner's look at table relid.  Only the dummy plan CLUSTER
 *		makes to choose a sort (a Query without a jointree, the table not
 *		as an inheritance parent) matters here; see the file header.
 */
static void
planner_look(PlannerInfo *root, Oid relid, bool inhparent)
{
	int			kinds = SrmArmedKinds();

	if (kinds == 0 || root->parse == NULL || root->parse->jointree != NULL)
		return;
	if (!inhparent && (kinds & SRM_ARM_CLUSTER))
		SrmClusterArm(relid);
}

#if PG_VERSION_NUM >= 190000
/*
 * srm_build_simple_rel
 *		19's hook where get_relation_info_hook was: right after
 *		get_relation_info, in build_simple_rel.
 */
static void
srm_build_simple_rel(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte)
{
	if (prev_build_simple_rel)
		prev_build_simple_rel(root, rel, rte);
	if (rte->rtekind == RTE_RELATION)
		planner_look(root, rte->relid, rte->inh);
}
#else
/*
 * srm_get_relation_info
 *		The end of get_relation_info, in build_simple_rel.
 */
static void
srm_get_relation_info(PlannerInfo *root, Oid relationObjectId, bool inhparent,
					  RelOptInfo *rel)
{
	if (prev_get_relation_info)
		prev_get_relation_info(root, relationObjectId, inhparent, rel);
	planner_look(root, relationObjectId, inhparent);
}
#endif
