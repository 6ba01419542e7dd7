/*-------------------------------------------------------------------------
 *
 * plan.c
 *	  Planner hook: swap eligible Sort nodes for the SRMSort custom scan.
 *
 * After the standard planner has finished (setrefs included), the hook
 * walks the plan tree and every subplan and replaces each Sort that
 *
 *	 - no LIMIT bound can reach, unless the bound is a constant too large
 *	   for the sort's memory: ExecSetTupleBound does not know custom scans,
 *	   so srmsort sorts everything and its final merge simply stops early,
 *	   which only pays when PostgreSQL's top-N heapsort could not keep the
 *	   bound in memory either (small bounds are faster native),
 *	 - would take PostgreSQL's own sort at least srmsort.min_input_size
 *	   bytes of memory by the planner's estimates (default 64kB: srmsort's
 *	   in-memory radix sort beats PostgreSQL's quicksort from a few
 *	   thousand rows up; -1 takes only sorts PostgreSQL would spill), and
 *	 - has the plain target list setrefs gives a Sort,
 *
 * by a CustomScan that keeps the Sort's whole Plan header (plan_node_id,
 * initPlans, parameters, parallel safety), has the Sort's child as its
 * lefttree (so EXPLAIN, parameter changes and parallel walks treat it like
 * Sort's), scans the child's columns through custom_scan_tlist (OUTER_VAR
 * Vars) and returns them unchanged through INDEX_VAR Vars in the Sort's
 * positions, so no projection is built.  The sort keys and the input
 * estimate travel in custom_private as plain Node lists, which copy, print
 * and reach parallel workers.
 *
 * Incremental sorts are different nodes and are left alone, as are the
 * never-executed Sorts of Agg's grouping-set chain (not walked).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/query/plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "storage/bufmgr.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "base/compat.h"
#include "base/settings.h"
#include "query/node.h"
#include "query/plan.h"
#include "query/psort.h"

static planner_hook_type prev_planner_hook = NULL;

/* bounds passed down the walk */
#define NOT_BOUNDED		(-1.0)		/* no LIMIT can reach the node */
#define UNKNOWN_BOUND	0.0			/* a LIMIT with a non-constant count */

/* the statement being planned: may its top sort run in parallel? */
typedef struct SrmPlannerWalk
{
	PlannedStmt *stmt;
	bool		parallel_ok;
	int			next_node_id;	/* for the nodes a parallel sort adds */
} SrmPlannerWalk;

static SrmPlannerWalk *cur_walk = NULL;

static Plan *walk(Plan *plan, double bound, bool top);

/*
 * input_bytes
 *		The planner's estimate of the bytes a sort keeps for its input, as
 *		cost_sort estimates it.
 */
static double
input_bytes(Plan *child)
{
	return child->plan_rows *
		(MAXALIGN(child->plan_width) + MAXALIGN(SizeofHeapTupleHeader));
}

/*
 * native_sort_bytes
 *		The memory PostgreSQL's own sort would take for the input: per tuple
 *		a SortTuple (24 bytes), the memory chunk header of its copy (24 bytes
 *		in PostgreSQL 15's generation context, 8 in 16's, none in the bump
 *		context of 17 and later) and the
 *		MinimalTuple (16-byte header and the data).  cost_sort's figure (the
 *		width plus a heap tuple header) is about half of that for narrow
 *		rows, so sorts it expects in memory often spill; whether PostgreSQL's
 *		sort would spill is what decides here.
 */
static double
native_sort_bytes(Plan *child)
{
#if PG_VERSION_NUM >= 170000
	const double chunk_header = 0;	/* tuples in a bump context */
#elif PG_VERSION_NUM >= 160000
	const double chunk_header = 8;
#else
	const double chunk_header = 24;
#endif

	return child->plan_rows *
		(24 + chunk_header + MAXALIGN(16 + child->plan_width));
}

/*
 * plain_tlist
 *		Does the Sort return its child's columns in order (Vars referring to
 *		OUTER_VAR in the same position, or Consts)?
 */
static bool
plain_tlist(Sort *sort)
{
	List	   *tl = sort->plan.targetlist;
	List	   *ctl = sort->plan.lefttree->targetlist;
	ListCell   *lc;
	int			i = 0;

	if (list_length(tl) != list_length(ctl))
		return false;
	foreach(lc, tl)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		i++;
		if (tle->resno != i)
			return false;
		if (IsA(tle->expr, Var))
		{
			Var		   *v = (Var *) tle->expr;

			if (v->varno != OUTER_VAR || v->varattno != i)
				return false;
		}
		else if (!IsA(tle->expr, Const))
			return false;
	}
	return true;
}

/*
 * eligible
 *		Should srmsort take this Sort?
 */
static bool
eligible(Sort *sort, double bound)
{
	Plan	   *child = sort->plan.lefttree;
	double		threshold;

	if (child == NULL || sort->numCols <= 0 || bound == UNKNOWN_BOUND ||
		work_mem < srmsort_min_work_mem)
		return false;
	threshold = (srmsort_min_input_size >= 0 ? srmsort_min_input_size : work_mem) * 1024.0;
	if (native_sort_bytes(child) < threshold)
		return false;
	/* a bound that fits in memory: PostgreSQL's top-N heapsort is better */
	if (bound > 0 && bound * native_sort_bytes(child) / Max(child->plan_rows, 1) < work_mem * 1024.0)
		return false;
	return plain_tlist(sort);
}

/*
 * limit_bound
 *		The number of rows a Limit needs from its child: count + offset when
 *		both are constants, UNKNOWN_BOUND otherwise, NOT_BOUNDED when it has
 *		no count or has WITH TIES (then it passes no bound down).
 */
static double
limit_bound(Limit *limit)
{
	double		n = 0;

	if (limit->limitCount == NULL || limit->limitOption == LIMIT_OPTION_WITH_TIES)
		return NOT_BOUNDED;
	if (!IsA(limit->limitCount, Const) ||
		(limit->limitOffset != NULL && !IsA(limit->limitOffset, Const)))
		return UNKNOWN_BOUND;
	if (((Const *) limit->limitCount)->constisnull)
		return NOT_BOUNDED;		/* LIMIT NULL means no limit */
	n = (double) DatumGetInt64(((Const *) limit->limitCount)->constvalue);
	if (limit->limitOffset != NULL && !((Const *) limit->limitOffset)->constisnull)
		n += (double) DatumGetInt64(((Const *) limit->limitOffset)->constvalue);
	return Max(n, 1);
}

/*
 * scan_column
 *		The table column a Seq Scan's target entry expr returns unchanged:
 *		a Var of the scanned table, bare or under a RelabelType that keeps
 *		its type (a COLLATE); NULL for anything else.
 */
static Var *
scan_column(Node *expr, Index scanrelid, int natts)
{
	Var		   *v;

	if (IsA(expr, RelabelType))
	{
		RelabelType *r = (RelabelType *) expr;

		if (!IsA(r->arg, Var) || r->resulttype != ((Var *) r->arg)->vartype)
			return NULL;
		expr = (Node *) r->arg;
	}
	if (!IsA(expr, Var))
		return NULL;
	v = (Var *) expr;
	if (v->varno != scanrelid || v->varlevelsup != 0 ||
		v->varattno <= 0 || v->varattno > natts)
		return NULL;
	return v;
}

/*
 * raw_scan_input
 *		Let a Sort's plain Seq Scan return the table's tuples as they are
 *		when it projects only to repeat, reorder or relabel the table's
 *		columns (ORDER BY k COLLATE "C" adds k once more, as a resjunk
 *		column).  Otherwise every row costs the scan a projection into a
 *		virtual slot and the sort a tuple formed from it; this way the
 *		sort copies the scan's heap tuple with one memcpy and stores each
 *		column once.  Taken only when the scan names every column of a
 *		table without dropped ones, so the stored tuples are no wider.
 *		The scan gets a physical target list, the SRMSort scans the
 *		table's columns and its own target list rebuilds the Sort's (a
 *		projection of each returned row); cols, the sort keys' positions,
 *		are mapped to the table's columns.  Returns whether it did.
 */
static bool
raw_scan_input(CustomScan *cscan, Sort *sort, List *cols)
{
	Plan	   *child = sort->plan.lefttree;
	Index		scanrelid;
	RangeTblEntry *rte;
	Relation	rel;
	TupleDesc	desc;
	int			natts;
	Var		  **byatt;
	AttrNumber *map;
	bool		physical;
	bool		ok = true;
	ListCell   *lc;
	int			i;

	if (cur_walk == NULL || !IsA(child, SeqScan))
		return false;
	scanrelid = ((Scan *) child)->scanrelid;
	rte = rt_fetch(scanrelid, cur_walk->stmt->rtable);
	if (rte->rtekind != RTE_RELATION)
		return false;
	/* locked by the planner already */
	rel = table_open(rte->relid, NoLock);
	desc = RelationGetDescr(rel);
	natts = desc->natts;
	for (i = 0; i < natts && ok; i++)
		ok = !TupleDescAttr(desc, i)->attisdropped;
	table_close(rel, NoLock);
	if (!ok || natts == 0)
		return false;

	byatt = palloc0((natts + 1) * sizeof(Var *));
	map = palloc(list_length(child->targetlist) * sizeof(AttrNumber));
	physical = list_length(child->targetlist) == natts;
	i = 0;
	foreach(lc, child->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Var		   *v = scan_column((Node *) tle->expr, scanrelid, natts);

		if (v == NULL)
			return false;
		if (byatt[v->varattno] == NULL)
			byatt[v->varattno] = v;
		map[i++] = v->varattno;
		if (!IsA(tle->expr, Var) || v->varattno != i)
			physical = false;
	}
	/* nothing to gain, or a column the scan would have left out */
	if (physical)
		return false;
	for (i = 1; i <= natts; i++)
		if (byatt[i] == NULL)
			return false;

	/* the SRMSort's columns, from its scan tuple: the table's */
	foreach(lc, cscan->scan.plan.targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Var		   *v = (Var *) tle->expr;
		Node	   *cexpr;
		Var		   *col;
		Var		   *nv;

		if (!IsA(v, Var))
			continue;			/* a Const */
		cexpr = (Node *) get_tle_by_resno(child->targetlist, v->varattno)->expr;
		col = byatt[map[v->varattno - 1]];
		nv = makeVar(INDEX_VAR, col->varattno, col->vartype, col->vartypmod,
					 col->varcollid, 0);
		if (IsA(cexpr, RelabelType))
		{
			RelabelType *r = copyObject((RelabelType *) cexpr);

			r->arg = (Expr *) nv;
			tle->expr = (Expr *) r;
		}
		else
			tle->expr = (Expr *) nv;
	}
	foreach(lc, cols)
		lfirst_int(lc) = map[lfirst_int(lc) - 1];

	/* the scan returns the table's columns, and the SRMSort scans them */
	child->targetlist = NIL;
	cscan->custom_scan_tlist = NIL;
	for (i = 1; i <= natts; i++)
	{
		Var		   *v = byatt[i];
		char	   *name = get_attname(rte->relid, i, false);

		child->targetlist = lappend(child->targetlist,
									makeTargetEntry((Expr *) copyObject(v), i,
													name, false));
		cscan->custom_scan_tlist =
			lappend(cscan->custom_scan_tlist,
					makeTargetEntry((Expr *) makeVar(OUTER_VAR, i, v->vartype,
													 v->vartypmod, v->varcollid, 0),
									i, name, false));
	}
	return true;
}

/*
 * make_srmsort
 *		The SRMSort custom scan replacing sort.
 */
static Plan *
make_srmsort(Sort *sort, int mode)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *child = sort->plan.lefttree;
	List	   *cols = NIL,
			   *ops = NIL,
			   *colls = NIL,
			   *nulls = NIL;
	ListCell   *lc;
	int			i;

	/* the whole Plan header: costs, ids, initPlans, params, parallel flags */
	cscan->scan.plan = sort->plan;
	cscan->scan.plan.type = T_CustomScan;
	cscan->scan.plan.qual = NIL;
	cscan->scan.plan.lefttree = child;
	cscan->scan.plan.righttree = NULL;
	cscan->scan.scanrelid = 0;
	cscan->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN | CUSTOMPATH_SUPPORT_MARK_RESTORE;
	cscan->custom_plans = NIL;
#if PG_VERSION_NUM >= 180000

	/*
	 * 18's EXPLAIN prints "Disabled: true" on a custom scan whose
	 * disabled_nodes (the Sort's, copied above) exceed those of its
	 * custom_plans.  The child is listed there for that count alone, so that
	 * SRMSort is "Disabled" exactly when the Sort was; it runs, rescans and
	 * shows through lefttree, and custom_ps stays empty.
	 */
	cscan->custom_plans = list_make1(child);
#endif
	cscan->custom_exprs = NIL;
	cscan->custom_relids = NULL;
	cscan->methods = &SrmSortScanMethods;

	/* the scan tuple is the child's output */
	cscan->custom_scan_tlist = NIL;
	foreach(lc, child->targetlist)
	{
		TargetEntry *ctle = lfirst_node(TargetEntry, lc);
		Node	   *expr = (Node *) ctle->expr;
		Var		   *var = makeVar(OUTER_VAR, ctle->resno, exprType(expr),
								  exprTypmod(expr), exprCollation(expr), 0);

		cscan->custom_scan_tlist =
			lappend(cscan->custom_scan_tlist,
					makeTargetEntry((Expr *) var, ctle->resno,
									ctle->resname, ctle->resjunk));
	}

	/* and is returned as is, in the Sort's positions */
	cscan->scan.plan.targetlist = NIL;
	foreach(lc, sort->plan.targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Node	   *expr = (Node *) tle->expr;
		TargetEntry *ntle;

		/* a Sort keeps Consts in its tlist (EXPLAIN shows them bare): so do we */
		if (IsA(expr, Const))
			ntle = makeTargetEntry((Expr *) copyObject(expr),
								   tle->resno, tle->resname, tle->resjunk);
		else
			ntle = makeTargetEntry((Expr *) makeVar(INDEX_VAR, tle->resno,
													exprType(expr), exprTypmod(expr),
													exprCollation(expr), 0),
								   tle->resno, tle->resname, tle->resjunk);
		ntle->ressortgroupref = tle->ressortgroupref;
		ntle->resorigtbl = tle->resorigtbl;
		ntle->resorigcol = tle->resorigcol;
		cscan->scan.plan.targetlist = lappend(cscan->scan.plan.targetlist, ntle);
	}

	for (i = 0; i < sort->numCols; i++)
	{
		cols = lappend_int(cols, sort->sortColIdx[i]);
		ops = lappend_oid(ops, sort->sortOperators[i]);
		colls = lappend_oid(colls, sort->collations[i]);
		nulls = lappend_int(nulls, sort->nullsFirst[i] ? 1 : 0);
	}
	if (mode == SRM_MODE_PLAIN)
		(void) raw_scan_input(cscan, sort, cols);
	cscan->custom_private = list_make5(cols, ops, colls, nulls,
									   makeString(psprintf("%.0f", input_bytes(child))));
	if (mode != SRM_MODE_PLAIN)
		cscan->custom_private = lappend(cscan->custom_private,
										makeInteger(mode));
	return (Plan *) cscan;
}

/*
 * walk_list
 *		Walk every plan of a list in place.
 */
static void
walk_list(List *plans, double bound)
{
	ListCell   *lc;

	foreach(lc, plans)
		lfirst(lc) = walk((Plan *) lfirst(lc), bound, false);
}

/*
 * max_node_id
 *		The largest plan_node_id in a plan tree.
 */
static int
max_node_id(Plan *plan)
{
	int			id;
	ListCell   *lc;
	List	   *more = NIL;

	if (plan == NULL)
		return -1;
	id = Max(plan->plan_node_id,
			 Max(max_node_id(plan->lefttree), max_node_id(plan->righttree)));
	switch (nodeTag(plan))
	{
		case T_Append:
			more = ((Append *) plan)->appendplans;
			break;
		case T_MergeAppend:
			more = ((MergeAppend *) plan)->mergeplans;
			break;
		case T_BitmapAnd:
			more = ((BitmapAnd *) plan)->bitmapplans;
			break;
		case T_BitmapOr:
			more = ((BitmapOr *) plan)->bitmapplans;
			break;
		case T_CustomScan:
			more = ((CustomScan *) plan)->custom_plans;
			break;
		case T_SubqueryScan:
			id = Max(id, max_node_id(((SubqueryScan *) plan)->subplan));
			break;
		default:
			break;
	}
	foreach(lc, more)
		id = Max(id, max_node_id((Plan *) lfirst(lc)));
	return id;
}

/*
 * parallel_workers
 *		The workers a parallel sort of this Sort gets (0: none): where the
 *		statement may run in parallel and the Sort reads a whole table
 *		through a plain, parallel-safe Seq Scan, PostgreSQL's own rule for
 *		a parallel scan of that table (compute_parallel_worker: its
 *		parallel_workers setting, else one worker from
 *		min_parallel_table_scan_size on and one more for every tripling),
 *		at most max_parallel_workers_per_gather and at most the workers
 *		the parallel sort's shared state numbers (SRM_PSORT_MAX_WORKERS).
 */
static int
parallel_workers(Sort *sort, double bound)
{
	Plan	   *child = sort->plan.lefttree;
	RangeTblEntry *rte;
	Relation	rel;
	BlockNumber pages;
	int			n;

	/* the dsm baseline sorts in one process, as the parallel builds do */
	if (srmsort_merge_strategy != SRM_MERGE_SRM)
		return 0;
	if (cur_walk == NULL || !cur_walk->parallel_ok || bound != NOT_BOUNDED ||
		!IsA(child, SeqScan) || child->parallel_aware ||
		!child->parallel_safe || !sort->plan.parallel_safe ||
		child->initPlan != NIL || !bms_is_empty(child->extParam))
		return 0;
	rte = rt_fetch(((Scan *) child)->scanrelid, cur_walk->stmt->rtable);
	if (rte->rtekind != RTE_RELATION ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return 0;
	/* locked by the planner already */
	rel = table_open(rte->relid, NoLock);
	pages = RelationGetNumberOfBlocks(rel);
	n = RelationGetParallelWorkers(rel, -1);
	table_close(rel, NoLock);
	if (n < 0)
	{
		double		threshold = Max(min_parallel_table_scan_size, 1);

		if (pages < (BlockNumber) min_parallel_table_scan_size)
			return 0;
		n = 1;
		while (pages >= threshold * 3 && threshold <= INT_MAX / 3)
		{
			n++;
			threshold *= 3;
		}
	}
	return Min(Min(n, max_parallel_workers_per_gather), SRM_PSORT_MAX_WORKERS);
}

/*
 * outer_vars
 *		A target list of Vars returning plan's columns as they are.
 */
static List *
outer_vars(Plan *plan)
{
	List	   *tlist = NIL;
	ListCell   *lc;

	foreach(lc, plan->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Node	   *expr = (Node *) tle->expr;

		tlist = lappend(tlist,
						makeTargetEntry((Expr *) makeVar(OUTER_VAR, tle->resno,
														 exprType(expr),
														 exprTypmod(expr),
														 exprCollation(expr), 0),
										tle->resno, tle->resname,
										tle->resjunk));
	}
	return tlist;
}

/*
 * make_parallel_srmsort
 *		The plan of a parallel sort of sort (psort.c): an SRMSort merging,
 *		over a Gather of nworkers, over a parallel-aware SRMSort forming
 *		runs, over the Seq Scan made parallel-aware.
 */
static Plan *
make_parallel_srmsort(Sort *sort, int nworkers)
{
	Plan	   *scan = sort->plan.lefttree;
	Sort	   *lsort = makeNode(Sort);
	Gather	   *gather = makeNode(Gather);
	Plan	   *lower;

	scan->parallel_aware = true;

	/* the participants' sort: the scan's columns, no initPlans */
	memcpy(lsort, sort, sizeof(Sort));
	lsort->plan.targetlist = outer_vars(scan);
	lsort->plan.initPlan = NIL;
	lsort->plan.extParam = NULL;
	lsort->plan.allParam = NULL;
	lsort->plan.plan_node_id = cur_walk->next_node_id++;
	lower = make_srmsort(lsort, SRM_MODE_RUNS);
	lower->parallel_aware = true;

	gather->plan = sort->plan;
	gather->plan.type = T_Gather;
	gather->plan.targetlist = outer_vars(lower);
	gather->plan.qual = NIL;
	gather->plan.lefttree = lower;
	gather->plan.righttree = NULL;
	gather->plan.initPlan = NIL;
	gather->plan.extParam = NULL;
	gather->plan.allParam = NULL;
	gather->plan.parallel_aware = false;
	gather->plan.parallel_safe = false;
	gather->plan.plan_node_id = cur_walk->next_node_id++;
	gather->num_workers = nworkers;
	gather->rescan_param = -1;
	gather->single_copy = false;
	gather->invisible = false;
	gather->initParam = NULL;

	sort->plan.lefttree = (Plan *) gather;
	sort->plan.parallel_safe = false;
	cur_walk->stmt->parallelModeNeeded = true;
	return make_srmsort(sort, SRM_MODE_MERGE);
}

/*
 * walk
 *		Replace eligible Sorts below plan.  bound says whether a LIMIT above
 *		may push a bound down to this node, and which: the nodes that pass
 *		a bound on are those of the executor's ExecSetTupleBound.  top says
 *		whether the node is on the statement's top chain, which no node
 *		above rescans (where a sort may run in parallel).
 */
static Plan *
walk(Plan *plan, double bound, bool top)
{
	if (plan == NULL)
		return NULL;

	switch (nodeTag(plan))
	{
		case T_Limit:
			{
				Limit	   *limit = (Limit *) plan;

				plan->lefttree = walk(plan->lefttree, limit_bound(limit), top);
				return plan;
			}
		case T_Result:
			/* passes a bound on to its child */
			plan->lefttree = walk(plan->lefttree, bound, top);
			plan->righttree = walk(plan->righttree, NOT_BOUNDED, false);
			return plan;
		case T_Gather:
		case T_GatherMerge:
			/* these pass a bound on to their child */
			plan->lefttree = walk(plan->lefttree, bound, false);
			plan->righttree = walk(plan->righttree, NOT_BOUNDED, false);
			return plan;
		case T_Unique:
		case T_Agg:
		case T_WindowAgg:
		case T_ProjectSet:
			/* read their input once */
			plan->lefttree = walk(plan->lefttree, NOT_BOUNDED, top);
			return plan;
		case T_SubqueryScan:
			{
				SubqueryScan *sq = (SubqueryScan *) plan;

				sq->subplan = walk(sq->subplan, plan->qual == NIL ? bound : NOT_BOUNDED,
								   top);
				return plan;
			}
		case T_Append:
			walk_list(((Append *) plan)->appendplans, bound);
			return plan;
		case T_MergeAppend:
			walk_list(((MergeAppend *) plan)->mergeplans, bound);
			return plan;
		case T_BitmapAnd:
			walk_list(((BitmapAnd *) plan)->bitmapplans, NOT_BOUNDED);
			return plan;
		case T_BitmapOr:
			walk_list(((BitmapOr *) plan)->bitmapplans, NOT_BOUNDED);
			return plan;
		case T_CustomScan:
			walk_list(((CustomScan *) plan)->custom_plans, NOT_BOUNDED);
			break;
		case T_Sort:
			plan->lefttree = walk(plan->lefttree, NOT_BOUNDED, false);
			if (eligible((Sort *) plan, bound))
			{
				int			nworkers = top ? parallel_workers((Sort *) plan, bound) : 0;

				if (nworkers > 0)
					return make_parallel_srmsort((Sort *) plan, nworkers);
				return make_srmsort((Sort *) plan, SRM_MODE_PLAIN);
			}
			return plan;
		default:
			break;
	}
	plan->lefttree = walk(plan->lefttree, NOT_BOUNDED, false);
	plan->righttree = walk(plan->righttree, NOT_BOUNDED, false);
	return plan;
}

/*
 * srm_planner
 *		Plan as usual, then swap eligible Sorts in the plan and subplans.
 */
static PlannedStmt *
srm_planner(Query *parse, const char *query_string, int cursorOptions,
			ParamListInfo boundParams SRM_PLANNER_EXTRA_PARAM)
{
	PlannedStmt *stmt;
	ListCell   *lc;
	SrmPlannerWalk w;

	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursorOptions, boundParams
								 SRM_PLANNER_EXTRA_ARG);
	else
		stmt = standard_planner(parse, query_string, cursorOptions, boundParams
								 SRM_PLANNER_EXTRA_ARG);

	if (!srmsort_enabled)
		return stmt;

	/* where the planner itself may use workers (standard_planner's test) */
	w.stmt = stmt;
	w.parallel_ok = srmsort_parallel_sort &&
		(cursorOptions & CURSOR_OPT_PARALLEL_OK) != 0 &&
		(cursorOptions & CURSOR_OPT_SCROLL) == 0 &&
		IsUnderPostmaster && !IsParallelWorker() &&
		max_parallel_workers_per_gather > 0 &&
		parse->commandType == CMD_SELECT && !parse->hasModifyingCTE &&
		stmt->commandType == CMD_SELECT;
	w.next_node_id = 0;
	if (w.parallel_ok)
	{
		w.next_node_id = max_node_id(stmt->planTree) + 1;
		foreach(lc, stmt->subplans)
			w.next_node_id = Max(w.next_node_id,
								 max_node_id((Plan *) lfirst(lc)) + 1);
	}
	cur_walk = &w;
	PG_TRY();
	{
		stmt->planTree = walk(stmt->planTree, NOT_BOUNDED, true);
		foreach(lc, stmt->subplans)
			lfirst(lc) = walk((Plan *) lfirst(lc), NOT_BOUNDED, false);
	}
	PG_FINALLY();
	{
		cur_walk = NULL;
	}
	PG_END_TRY();
	return stmt;
}

/*
 * SrmPlannerInit
 *		Install the planner hook (from _PG_init).
 */
void
SrmPlannerInit(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = srm_planner;
}
