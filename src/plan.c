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
 * IDENTIFICATION
 *	  src/plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/planner.h"

#include "compat.h"
#include "node.h"
#include "srmsort.h"

static planner_hook_type prev_planner_hook = NULL;

/* bounds passed down the walk */
#define NOT_BOUNDED		(-1.0)		/* no LIMIT can reach the node */
#define UNKNOWN_BOUND	0.0			/* a LIMIT with a non-constant count */

static Plan *walk(Plan *plan, double bound);

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
 * make_srmsort
 *		The SRMSort custom scan replacing sort.
 */
static Plan *
make_srmsort(Sort *sort)
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
	cscan->custom_private = list_make5(cols, ops, colls, nulls,
									   makeString(psprintf("%.0f", input_bytes(child))));
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
		lfirst(lc) = walk((Plan *) lfirst(lc), bound);
}

/*
 * walk
 *		Replace eligible Sorts below plan.  bound says whether a LIMIT above
 *		may push a bound down to this node, and which: the nodes that pass
 *		a bound on are those of the executor's ExecSetTupleBound.
 */
static Plan *
walk(Plan *plan, double bound)
{
	if (plan == NULL)
		return NULL;

	switch (nodeTag(plan))
	{
		case T_Limit:
			{
				Limit	   *limit = (Limit *) plan;

				plan->lefttree = walk(plan->lefttree, limit_bound(limit));
				return plan;
			}
		case T_Result:
		case T_Gather:
		case T_GatherMerge:
			/* these pass a bound on to their child */
			plan->lefttree = walk(plan->lefttree, bound);
			plan->righttree = walk(plan->righttree, NOT_BOUNDED);
			return plan;
		case T_SubqueryScan:
			{
				SubqueryScan *sq = (SubqueryScan *) plan;

				sq->subplan = walk(sq->subplan, plan->qual == NIL ? bound : NOT_BOUNDED);
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
			plan->lefttree = walk(plan->lefttree, NOT_BOUNDED);
			if (eligible((Sort *) plan, bound))
				return make_srmsort((Sort *) plan);
			return plan;
		default:
			break;
	}
	plan->lefttree = walk(plan->lefttree, NOT_BOUNDED);
	plan->righttree = walk(plan->righttree, NOT_BOUNDED);
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

	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursorOptions, boundParams
								 SRM_PLANNER_EXTRA_ARG);
	else
		stmt = standard_planner(parse, query_string, cursorOptions, boundParams
								 SRM_PLANNER_EXTRA_ARG);

	if (!srmsort_enabled)
		return stmt;
	stmt->planTree = walk(stmt->planTree, NOT_BOUNDED);
	foreach(lc, stmt->subplans)
		lfirst(lc) = walk((Plan *) lfirst(lc), NOT_BOUNDED);
	return stmt;
}

/*
 * SrmPlanInit
 *		Install the planner hook (from _PG_init).
 */
void
SrmPlanInit(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = srm_planner;
}
