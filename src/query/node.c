/*-------------------------------------------------------------------------
 *
 * node.c
 *	  The SRMSort custom scan executor node: a drop-in for Sort.
 *
 * The node mirrors nodeSort.c: it initialises its child with REWIND,
 * BACKWARD and MARK cleared (it shields its child), asks for random access
 * when its own eflags carry any of them, drains the child on the first
 * fetch (with the scan direction forced forward), sorts, and then returns
 * tuples in the direction the executor asks for.  Rescan, mark and restore
 * behave as for Sort.  The sorting itself is the srmsort engine's
 * (sorter.h), including random access; when srmsort.enabled is off at run
 * time (a cached plan made while it was on), the node sorts with
 * PostgreSQL's tuplesort instead, exactly as Sort would.
 *
 * Result slots hold MinimalTuples, and the node says so (resultops), so
 * that parents deform them -- a custom scan's result is otherwise assumed
 * to be a virtual slot.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/query/node.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#endif
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/tuplesort.h"
#include "utils/typcache.h"

#include "access/parallel.h"

#include "base/compat.h"
#include "base/settings.h"
#include "engine/sorter.h"
#include "engine/sortstats.h"
#include "merge/merge.h"
#include "query/mapslot.h"
#include "query/node.h"
#include "query/psort.h"
#include "query/workerstats.h"

typedef struct SrmSortScanState
{
	CustomScanState css;
	int			nkeys;
	AttrNumber *sortColIdx;
	Oid		   *sortOperators;
	Oid		   *collations;
	bool	   *nullsFirst;
	double		est_input;
	int			mode;			/* SRM_MODE_*: parallel sorts (psort.c) */
	SrmPSortShared *pshared;	/* SRM_MODE_RUNS in parallel mode */
	bool		randomAccess;
	bool		sorted;
	bool		streaming;		/* sorted by srmsort, rows go out as they are */
	bool		mapping;		/* sorted by srmsort, rows go out in mapslot */
	TupleTableSlot *mapslot;	/* result slot if the output only repeats or
								 * relabels scan columns (mapslot.c) */
	bool		delegated;		/* sorted by tuplesort */
	const char *delegated_why;	/* for EXPLAIN */
	SrmSorter  *sorter;
	SrmMerge   *merge;			/* the sorter's final merge, read directly */
	Tuplesortstate *tuplesort;
	TupleTableSlot *result;
	/* facts of the last sort, kept for EXPLAIN ANALYZE */
	SrmSortStats stats;
	TuplesortInstrumentation ts_stats;
} SrmSortScanState;

static Node *srm_create_state(CustomScan *cscan);
static void srm_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *srm_exec(CustomScanState *node);
static TupleTableSlot *srm_next(PlanState *pstate);
static TupleTableSlot *map_next(SrmSortScanState *state, bool forward);
static void srm_end(CustomScanState *node);
static void srm_rescan(CustomScanState *node);
static void srm_markpos(CustomScanState *node);
static void srm_restrpos(CustomScanState *node);
static void srm_explain(CustomScanState *node, List *ancestors, ExplainState *es);
static Size srm_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void srm_init_dsm(CustomScanState *node, ParallelContext *pcxt,
						 void *coordinate);
static void srm_reinit_dsm(CustomScanState *node, ParallelContext *pcxt,
						   void *coordinate);
static void srm_init_worker(CustomScanState *node, shm_toc *toc,
							void *coordinate);

CustomScanMethods SrmSortScanMethods = {
	"SRMSort",
	srm_create_state
};

static const CustomExecMethods srm_exec_methods = {
	.CustomName = "SRMSort",
	.BeginCustomScan = srm_begin,
	.ExecCustomScan = srm_exec,
	.EndCustomScan = srm_end,
	.ReScanCustomScan = srm_rescan,
	.MarkPosCustomScan = srm_markpos,
	.RestrPosCustomScan = srm_restrpos,
	.ExplainCustomScan = srm_explain,
	/* a parallel sort's participants (SRM_MODE_RUNS, parallel-aware) */
	.EstimateDSMCustomScan = srm_estimate_dsm,
	.InitializeDSMCustomScan = srm_init_dsm,
	.ReInitializeDSMCustomScan = srm_reinit_dsm,
	.InitializeWorkerCustomScan = srm_init_worker,
};

/*
 * SrmNodeInit
 *		Register the custom scan (from _PG_init, once per process, so that
 *		parallel workers find it too).
 */
void
SrmNodeInit(void)
{
	RegisterCustomScanMethods(&SrmSortScanMethods);
}

/*
 * srm_create_state
 *		The node's state, with the sort keys from custom_private.
 */
static Node *
srm_create_state(CustomScan *cscan)
{
	SrmSortScanState *state = palloc0(sizeof(SrmSortScanState));
	List	   *priv = cscan->custom_private;
	List	   *cols = (List *) linitial(priv);
	List	   *ops = (List *) lsecond(priv);
	List	   *colls = (List *) lthird(priv);
	List	   *nulls = (List *) lfourth(priv);
	int			i;

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &srm_exec_methods;
#if PG_VERSION_NUM >= 160000
	state->css.slotOps = &TTSOpsMinimalTuple;
#endif
	state->nkeys = list_length(cols);
	state->sortColIdx = palloc(state->nkeys * sizeof(AttrNumber));
	state->sortOperators = palloc(state->nkeys * sizeof(Oid));
	state->collations = palloc(state->nkeys * sizeof(Oid));
	state->nullsFirst = palloc(state->nkeys * sizeof(bool));
	for (i = 0; i < state->nkeys; i++)
	{
		state->sortColIdx[i] = (AttrNumber) list_nth_int(cols, i);
		state->sortOperators[i] = list_nth_oid(ops, i);
		state->collations[i] = list_nth_oid(colls, i);
		state->nullsFirst[i] = list_nth_int(nulls, i) != 0;
	}
	/* a String: a Float such as "123" would come back as an Integer */
	state->est_input = strtod(strVal(list_nth(priv, 4)), NULL);
	state->mode = list_length(priv) > 5 ? intVal(list_nth(priv, 5)) : SRM_MODE_PLAIN;
	return (Node *) state;
}

/*
 * output_map
 *		When each output column is a scan column, bare or relabelled (a
 *		table's columns repeated: plan.c, raw_scan_input), which one, for
 *		a result slot that lends them (mapslot.c) instead of a projection
 *		that would deform every row.  NULL otherwise.
 */
static AttrNumber *
output_map(SrmSortScanState *state)
{
	List	   *tlist = state->css.ss.ps.plan->targetlist;
	AttrNumber *map = palloc(Max(list_length(tlist), 1) * sizeof(AttrNumber));
	int			n = 0;
	ListCell   *lc;

	foreach(lc, tlist)
	{
		Node	   *expr = (Node *) lfirst_node(TargetEntry, lc)->expr;

		if (IsA(expr, RelabelType))
			expr = (Node *) ((RelabelType *) expr)->arg;
		if (!IsA(expr, Var) || ((Var *) expr)->varno != INDEX_VAR ||
			((Var *) expr)->varattno <= 0)
		{
			pfree(map);
			return NULL;
		}
		map[n++] = ((Var *) expr)->varattno;
	}
	return map;
}

/*
 * srm_begin
 *		Initialise the child like ExecInitSort does; no sorting yet.
 */
static void
srm_begin(CustomScanState *node, EState *estate, int eflags)
{
	SrmSortScanState *state = (SrmSortScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	TupleDesc	desc = node->ss.ss_ScanTupleSlot->tts_tupleDescriptor;

	state->randomAccess = (eflags & (EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD |
									 EXEC_FLAG_MARK)) != 0;
	if (!IsParallelWorker() && !(eflags & EXEC_FLAG_EXPLAIN_ONLY))
		SrmWorkerStatsClear(cscan->scan.plan.plan_node_id);
	outerPlanState(node) = ExecInitNode(outerPlan(cscan), estate,
										eflags & ~(EXEC_FLAG_REWIND |
												   EXEC_FLAG_BACKWARD |
												   EXEC_FLAG_MARK));

	/*
	 * Rows come from srm_next, not through core's ExecCustomScan, which
	 * would check for interrupts and make one more indirect call a row to
	 * reach srm_exec.  ExecInitNode sets the node's ExecProcNode up after
	 * this returns, and wraps what it finds here.
	 */
	node->ss.ps.ExecProcNode = srm_next;

#if PG_VERSION_NUM >= 160000
	state->result = node->ss.ss_ScanTupleSlot;
#else
	/* a MinimalTuple result slot, and tell the parents so */
	state->result = ExecInitExtraTupleSlot(estate, desc, &TTSOpsMinimalTuple);
	if (node->ss.ps.ps_ProjInfo == NULL)
	{
		node->ss.ps.resultops = &TTSOpsMinimalTuple;
		node->ss.ps.resultopsfixed = true;
		node->ss.ps.resultopsset = true;
	}
#endif
	if (node->ss.ps.ps_ProjInfo != NULL)
	{
		AttrNumber *map = output_map(state);

		if (map != NULL)
		{
			/* every row goes out in it: tell the parents */
			state->mapslot = SrmMapSlotMake(estate, ExecGetResultType(&node->ss.ps),
											state->result, map);
			node->ss.ps.resultops = SrmMapSlotOps();
			node->ss.ps.resultopsfixed = true;
			node->ss.ps.resultopsset = true;
		}
	}
	(void) desc;
}

/*
 * end_sort
 *		End the current sort, keeping its facts for EXPLAIN.
 */
static void
end_sort(SrmSortScanState *state)
{
	state->streaming = false;
	state->merge = NULL;
	state->mapping = false;
	if (state->sorter != NULL)
	{
		SrmSorterGetStats(state->sorter, &state->stats);
		SrmSorterEnd(state->sorter);
		state->sorter = NULL;
		/* only an EXPLAIN ANALYZE (or auto_explain) collects them */
		if (IsParallelWorker() && state->css.ss.ps.instrument != NULL)
			SrmWorkerStatsPublish(state->css.ss.ps.plan->plan_node_id, &state->stats);
	}
	if (state->tuplesort != NULL)
	{
		tuplesort_get_stats(state->tuplesort, &state->ts_stats);
		tuplesort_end(state->tuplesort);
		state->tuplesort = NULL;
	}
}

/*
 * begin_sorter
 *		A new srmsort sort of the node's input.
 */
static SrmSorter *
begin_sorter(SrmSortScanState *state, TupleDesc desc)
{
	return SrmSorterBeginHeap(desc, state->nkeys, state->sortColIdx,
							  state->sortOperators, state->collations,
							  state->nullsFirst, work_mem, state->est_input,
							  state->randomAccess ? SRM_SORT_RANDOMACCESS : SRM_SORT_NONE);
}

/*
 * runs_node
 *		The participants' SRMSort below a merging one's Gather, or NULL.
 */
static SrmSortScanState *
runs_node(SrmSortScanState *state)
{
	PlanState  *gather = outerPlanState(state);
	PlanState  *below;

	if (gather == NULL || !IsA(gather, GatherState))
		return NULL;
	below = outerPlanState(gather);
	if (below == NULL || !IsA(below, CustomScanState) ||
		((CustomScanState *) below)->methods != &srm_exec_methods)
		return NULL;
	return (SrmSortScanState *) below;
}

/*
 * delegated_now
 *		Must this sort go to tuplesort (a cached plan meeting settings that
 *		would not have chosen srmsort)?  Sets why for EXPLAIN.
 */
static bool
delegated_now(const char **why)
{
	*why = !srmsort_enabled ? "srmsort disabled" :
		"work_mem below srmsort.min_work_mem";
	return !srmsort_enabled || work_mem < srmsort_min_work_mem;
}

/*
 * debug_misuse
 *		srmsort.debug_sorter_misuse: call the sorter out of order, before
 *		(performed false) or after its Perform, for the test that the
 *		sorter refuses with an error instead of crashing.
 */
static void
debug_misuse(SrmSortScanState *state, bool performed)
{
	SrmSorter  *s = state->sorter;
	int			misuse = srmsort_debug_sorter_misuse;

	if (misuse == SRM_MISUSE_OFF ||
		performed != (misuse != SRM_MISUSE_GET_BEFORE_PERFORM))
		return;
	switch ((SrmSorterMisuse) misuse)
	{
		case SRM_MISUSE_GET_BEFORE_PERFORM:
			(void) SrmSorterGetSlot(s, true, state->result);
			break;
		case SRM_MISUSE_PUT_AFTER_PERFORM:
			SrmSorterPutSlot(s, state->result);
			break;
		case SRM_MISUSE_PERFORM_TWICE:
			SrmSorterPerform(s);
			break;
		case SRM_MISUSE_FINISH_RUNS:
			SrmSorterFinishRuns(s);
			break;
		case SRM_MISUSE_EXPORT_RUNS:
			(void) SrmSorterExportRuns(s, NULL);
			break;
		case SRM_MISUSE_ADOPT_RUNS:
			(void) SrmSorterAdoptRuns(s, NULL);
			break;
		case SRM_MISUSE_RESCAN:
			SrmSorterRescan(s);
			break;
		case SRM_MISUSE_MARKPOS:
			SrmSorterMarkPos(s);
			break;
		case SRM_MISUSE_RESTOREPOS:
			SrmSorterRestorePos(s);
			break;
		case SRM_MISUSE_OFF:
			break;
	}
}

/*
 * do_sort
 *		Drain the child into a new sort and sort.  Not inlined: srm_exec
 *		runs once per row and should not carry its frame.  A merging
 *		SRMSort of a parallel sort receives no rows when its participants
 *		formed runs: then it merges theirs.
 */
static pg_noinline void
do_sort(SrmSortScanState *state)
{
	EState	   *estate = state->css.ss.ps.state;
	PlanState  *outer = outerPlanState(state);
	TupleDesc	desc = ExecGetResultType(outer);
	ScanDirection dir = estate->es_direction;

	estate->es_direction = ForwardScanDirection;
	state->delegated = delegated_now(&state->delegated_why);
	if (state->delegated)
		state->tuplesort = tuplesort_begin_heap(desc, state->nkeys, state->sortColIdx,
												state->sortOperators, state->collations,
												state->nullsFirst, work_mem, NULL,
												state->randomAccess ? TUPLESORT_RANDOMACCESS : TUPLESORT_NONE);
	else if (state->mode != SRM_MODE_MERGE)
		state->sorter = begin_sorter(state, desc);
	if (state->sorter != NULL)
		debug_misuse(state, false);
	/* one loop each: the input's rows take no test they do not need */
	if (state->delegated)
	{
		for (;;)
		{
			TupleTableSlot *slot = ExecProcNode(outer);

			if (TupIsNull(slot))
				break;
			tuplesort_puttupleslot(state->tuplesort, slot);
		}
	}
	else
	{
		TupleTableSlot *slot = ExecProcNode(outer);

		/* a merging SRMSort (SRM_MODE_MERGE) begins one with a first row */
		if (!TupIsNull(slot) && state->sorter == NULL)
			state->sorter = begin_sorter(state, desc);
		while (!TupIsNull(slot))
		{
			SrmSorterPutSlot(state->sorter, slot);
			slot = ExecProcNode(outer);
		}
	}
	if (state->delegated)
		tuplesort_performsort(state->tuplesort);
	else
	{
		if (state->sorter == NULL)
		{
			SrmSortScanState *runs = runs_node(state);

			state->sorter = begin_sorter(state, desc);
			if (runs != NULL && runs->pshared != NULL)
				(void) SrmPSortAdopt(runs->pshared, state->sorter);
		}
		SrmSorterPerform(state->sorter);
		debug_misuse(state, true);
	}
	estate->es_direction = dir;
	state->sorted = true;
	/* srm_next's path: the sorter's rows, no projection */
	state->streaming = !state->delegated &&
		state->css.ss.ps.ps_ProjInfo == NULL;
	state->merge = state->streaming ?
		SrmSorterForwardMerge(state->sorter) : NULL;
	state->mapping = !state->delegated && state->mapslot != NULL;
}

/*
 * form_runs
 *		A participant of a parallel sort (SRM_MODE_RUNS): sort this
 *		process's share of the input into runs for the merge above and
 *		return nothing.  Without parallel mode (no shared state), when
 *		the sort is delegated, or under srmsort.merge_strategy = dsm (a
 *		cached plan: the baseline sorts in one process, as the parallel
 *		builds do), the input passes through to the SRMSort above, which
 *		sorts it alone.  A worker beyond the shared state reads nothing:
 *		the others scan its share.
 */
static TupleTableSlot *
form_runs(SrmSortScanState *state)
{
	PlanState  *outer = outerPlanState(state);
	const char *why;

	if (state->pshared == NULL || delegated_now(&why) ||
		srmsort_merge_strategy != SRM_MERGE_SRM)
	{
		TupleTableSlot *slot = ExecProcNode(outer);

		if (TupIsNull(slot))
			return ExecClearTuple(state->result);
		return ExecCopySlot(state->result, slot);
	}
	if (!state->sorted && SrmPSortTakesPart(state->pshared))
	{
		state->sorter = begin_sorter(state, ExecGetResultType(outer));
		SrmPSortShare(state->pshared, state->sorter);
		for (;;)
		{
			TupleTableSlot *slot = ExecProcNode(outer);

			if (TupIsNull(slot))
				break;
			SrmSorterPutSlot(state->sorter, slot);
		}
		SrmPSortFinish(state->pshared, state->sorter);
		end_sort(state);
		state->sorted = true;
	}
	return ExecClearTuple(state->result);
}

/*
 * srm_exec
 *		The next tuple of the sorted result in the executor's direction
 *		(srm_next checked for interrupts).
 */
static TupleTableSlot *
srm_exec(CustomScanState *node)
{
	SrmSortScanState *state = (SrmSortScanState *) node;
	bool		forward;

	if (state->mode == SRM_MODE_RUNS)
		return form_runs(state);
	if (!state->sorted)
		do_sort(state);
	forward = ScanDirectionIsForward(node->ss.ps.state->es_direction);
	if (state->delegated)
		(void) tuplesort_gettupleslot(state->tuplesort, forward, false,
									  state->result, NULL);
	else
		(void) SrmSorterGetSlot(state->sorter, forward, state->result);

	if (state->mapslot != NULL)
		return SrmMapSlotStore(state->mapslot, state->result);

	/*
	 * A Sort's tlist may hold Consts (columns the parent does not use become
	 * NULL constants), which we keep for EXPLAIN: then the executor has set
	 * up a projection, and its slot is what the parents expect.
	 */
	if (node->ss.ps.ps_ProjInfo != NULL && !TupIsNull(state->result))
	{
		ExprContext *econtext = node->ss.ps.ps_ExprContext;
		TupleTableSlot *scan = node->ss.ss_ScanTupleSlot;

		/*
		 * The projection was compiled for the scan slot's kind (virtual
		 * before 16): lend it the result's values, without copying data.
		 */
		if (scan != state->result)
		{
			int			natts = scan->tts_tupleDescriptor->natts;

			slot_getallattrs(state->result);
			ExecClearTuple(scan);
			memcpy(scan->tts_values, state->result->tts_values, natts * sizeof(Datum));
			memcpy(scan->tts_isnull, state->result->tts_isnull, natts * sizeof(bool));
			ExecStoreVirtualTuple(scan);
		}
		ResetExprContext(econtext);
		econtext->ecxt_scantuple = scan;
		return ExecProject(node->ss.ps.ps_ProjInfo);
	}
	return state->result;
}

/*
 * srm_next
 *		The node's ExecProcNode (see srm_begin): a row of a result the
 *		sorter streams goes straight out; the rest is srm_exec's.  A final
 *		merge read forward, the common external sort, hands its rows to the
 *		slot without the sorter's call and checks in between; its end, and
 *		a backward fetch (an error there), go through the sorter.
 */
static TupleTableSlot *
srm_next(PlanState *pstate)
{
	SrmSortScanState *state = (SrmSortScanState *) pstate;

	CHECK_FOR_INTERRUPTS();
	if (likely(state->merge != NULL) &&
		likely(ScanDirectionIsForward(pstate->state->es_direction)))
	{
		/* valid until the next SrmMergeNext: the slot need not own it */
		void	   *tuple = SrmMergeNext(state->merge);

		if (likely(tuple != NULL))
			return ExecStoreMinimalTuple((MinimalTuple) tuple,
										 state->result, false);
		state->merge = NULL;
	}
	if (likely(state->streaming))
		return SrmSorterNextSlot(state->sorter,
								 ScanDirectionIsForward(pstate->state->es_direction),
								 state->result);
	if (state->mapping)
		return map_next(state, ScanDirectionIsForward(pstate->state->es_direction));
	return srm_exec(&state->css);
}

/*
 * map_next
 *		The next row of a sorter whose tuples hold the scan's columns, in
 *		the slot that lends them as the output's (output_map).  Not
 *		inlined: srm_next's streaming path should not save the registers
 *		this one needs.
 */
static pg_noinline TupleTableSlot *
map_next(SrmSortScanState *state, bool forward)
{
	return SrmMapSlotStore(state->mapslot,
						   SrmSorterNextSlot(state->sorter, forward, state->result));
}

/*
 * srm_end
 *		Release the sort and the child (core does not end a custom scan's
 *		lefttree).  The leader drops what its workers left that no EXPLAIN
 *		took (auto_explain below its duration), so the mailbox does not
 *		fill up.
 */
static void
srm_end(CustomScanState *node)
{
	SrmSortScanState *state = (SrmSortScanState *) node;

	end_sort(state);
	if (!IsParallelWorker())
		SrmWorkerStatsClear(node->ss.ps.plan->plan_node_id);
	if (state->result)
		ExecClearTuple(state->result);
	if (state->mapslot)
		ExecClearTuple(state->mapslot);
	ExecEndNode(outerPlanState(node));
}

/*
 * srm_rescan
 *		As ExecReScanSort: replay the result when it can be re-read and the
 *		child's parameters did not change, else sort again.
 */
static void
srm_rescan(CustomScanState *node)
{
	SrmSortScanState *state = (SrmSortScanState *) node;
	PlanState  *outer = outerPlanState(node);

	if (!state->sorted)
		return;
	ExecClearTuple(state->result);
	/* it lends the values of result's tuple */
	if (state->mapslot)
		ExecClearTuple(state->mapslot);
	if (outer->chgParam != NULL || !state->randomAccess)
	{
		end_sort(state);
		state->sorted = false;
		if (outer->chgParam == NULL)
			ExecReScan(outer);
	}
	else if (state->delegated)
		tuplesort_rescan(state->tuplesort);
	else
		SrmSorterRescan(state->sorter);
}

static void
srm_markpos(CustomScanState *node)
{
	SrmSortScanState *state = (SrmSortScanState *) node;

	if (!state->sorted)
		return;
	if (state->delegated)
		tuplesort_markpos(state->tuplesort);
	else
		SrmSorterMarkPos(state->sorter);
}

static void
srm_restrpos(CustomScanState *node)
{
	SrmSortScanState *state = (SrmSortScanState *) node;

	if (!state->sorted)
		return;
	if (state->delegated)
		tuplesort_restorepos(state->tuplesort);
	else
		SrmSorterRestorePos(state->sorter);
}

/* ---------- a parallel sort's participants (psort.c) ---------- */

static Size
srm_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return SrmPSortEstimate();
}

/*
 * srm_init_dsm
 *		The leader, as the Gather starts its workers: the shared state.
 *		With every DSM slot in use, PostgreSQL puts the Gather's state in
 *		private memory, launches no worker and still calls this, with no
 *		segment: then there is no shared state, the leader's copy of this
 *		node passes its input through and the SRMSort above sorts alone.
 */
static void
srm_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	SrmSortScanState *state = (SrmSortScanState *) node;
	Plan	   *plan = node->ss.ps.plan;
	double		rows = Max(plan->plan_rows, 1.0);

	if (pcxt->seg == NULL)
	{
		state->pshared = NULL;
		return;
	}
	state->pshared = SrmPSortInit(coordinate, pcxt->seg, pcxt->nworkers,
								  work_mem, plan->plan_rows,
								  state->est_input / rows);
}

static void
srm_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	SrmSortScanState *state = (SrmSortScanState *) node;

	if (state->pshared != NULL)
		SrmPSortReInit(state->pshared);
}

static void
srm_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	SrmSortScanState *state = (SrmSortScanState *) node;

	state->pshared = (SrmPSortShared *) coordinate;
	SrmPSortAttach(state->pshared);
}

/* ---------- EXPLAIN ---------- */

/*
 * sort_key_text
 *		One sort key as core's EXPLAIN prints it: the expression, then
 *		COLLATE, DESC or USING, and NULLS FIRST/LAST where not the default.
 */
static char *
sort_key_text(Node *expr, Oid sortop, Oid coll, bool nullsFirst,
			  List *context, bool useprefix)
{
	StringInfoData buf;
	Oid			type = exprType(expr);
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	bool		reverse = false;

	initStringInfo(&buf);
	appendStringInfoString(&buf, deparse_expression(expr, context, useprefix, true));
	if (OidIsValid(coll) && coll != get_typcollation(type))
		appendStringInfo(&buf, " COLLATE %s",
						 quote_identifier(get_collation_name(coll)));
	if (sortop == tc->gt_opr)
	{
		appendStringInfoString(&buf, " DESC");
		reverse = true;
	}
	else if (sortop != tc->lt_opr)
	{
		appendStringInfo(&buf, " USING %s", get_opname(sortop));
		(void) get_equality_op_for_ordering_op(sortop, &reverse);
	}
	if (nullsFirst && !reverse)
		appendStringInfoString(&buf, " NULLS FIRST");
	else if (!nullsFirst && reverse)
		appendStringInfoString(&buf, " NULLS LAST");
	return buf.data;
}

/*
 * show_sort_keys
 *		"Sort Key: ..." exactly like a Sort node.  The keys' positions are
 *		those of the scan tuple (custom_scan_tlist), which are the output's
 *		unless the planner let the child return a table's tuples as they
 *		are (plan.c, raw_scan_input).
 */
static void
show_sort_keys(SrmSortScanState *state, List *ancestors, ExplainState *es)
{
	Plan	   *plan = state->css.ss.ps.plan;
	List	   *scan_tlist = ((CustomScan *) plan)->custom_scan_tlist;
	List	   *context = set_deparse_context_plan(es->deparse_cxt, plan, ancestors);
	bool		useprefix = SrmExplainRelations(es) > 1 || es->verbose;
	List	   *keys = NIL;
	int			i;

	for (i = 0; i < state->nkeys; i++)
	{
		TargetEntry *tle = get_tle_by_resno(scan_tlist, state->sortColIdx[i]);

		if (tle == NULL)
			elog(ERROR, "srmsort: no target entry for sort key %d", i + 1);
		keys = lappend(keys, sort_key_text((Node *) tle->expr, state->sortOperators[i],
										   state->collations[i], state->nullsFirst[i],
										   context, useprefix));
	}
	ExplainPropertyList("Sort Key", keys, es);
}

/*
 * sort_method_text
 *		TEXT format's "Sort Method" value, in core's words: "quicksort
 *		Memory: 25kB".  Palloc'd.
 */
static char *
sort_method_text(const char *method, const char *spacetype, int64 spaceKB)
{
	return psprintf("%s  %s: " INT64_FORMAT "kB", method, spacetype, spaceKB);
}

/*
 * show_delegated_facts
 *		Core's words for a sort that tuplesort did.
 */
static void
show_delegated_facts(TuplesortInstrumentation *ts, const char *why,
					 ExplainState *es)
{
	const char *method = tuplesort_method_name(ts->sortMethod);
	const char *spacetype = tuplesort_space_type_name(ts->spaceType);

	if (es->format == EXPLAIN_FORMAT_TEXT)
		ExplainPropertyText("Sort Method",
							sort_method_text(method, spacetype, ts->spaceUsed), es);
	else
	{
		ExplainPropertyText("Sort Method", method, es);
		ExplainPropertyInteger("Sort Space Used", "kB", ts->spaceUsed, es);
		ExplainPropertyText("Sort Space Type", spacetype, es);
	}
	ExplainPropertyText("Delegated", why, es);
}

/*
 * show_worker_facts
 *		"Worker N:" facts of the parallel workers' sorts, as Sort shows them.
 */
static void
show_worker_facts(SrmSortScanState *state, ExplainState *es)
{
	/* room for every entry of the mailbox: a parallel sort has up to 125 */
	SrmSortStats *ws = palloc(MaxBackends * sizeof(SrmSortStats));
	int		   *wn = palloc(MaxBackends * sizeof(int));
	int			n = SrmWorkerStatsCollect(state->css.ss.ps.plan->plan_node_id,
										  ws, wn, MaxBackends);
	int			i;

	if (n == 0)
		return;
	if (es->format != EXPLAIN_FORMAT_TEXT)
		ExplainOpenGroup("SRMSort Workers", "SRMSort Workers", false, es);
	for (i = 0; i < n; i++)
	{
		if (es->format == EXPLAIN_FORMAT_TEXT)
		{
			ExplainPropertyText(psprintf("Worker %d", wn[i]),
								SrmSortStatsWorkerText(&ws[i]), es);
			continue;
		}
		ExplainOpenGroup("Worker", NULL, true, es);
		ExplainPropertyInteger("Worker Number", NULL, wn[i], es);
		SrmSortStatsExplain(&ws[i], es);
		ExplainCloseGroup("Worker", NULL, true, es);
	}
	if (es->format != EXPLAIN_FORMAT_TEXT)
		ExplainCloseGroup("SRMSort Workers", "SRMSort Workers", false, es);
}

/*
 * srm_explain
 *		Sort Key always; the facts of the sort under ANALYZE.
 */
static void
srm_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	SrmSortScanState *state = (SrmSortScanState *) node;

	show_sort_keys(state, ancestors, es);
	if (!es->analyze || !state->sorted)
		return;
	if (state->delegated)
	{
		if (state->tuplesort != NULL)
			tuplesort_get_stats(state->tuplesort, &state->ts_stats);
		show_delegated_facts(&state->ts_stats, state->delegated_why, es);
	}
	else
	{
		if (state->sorter != NULL)
			SrmSorterGetStats(state->sorter, &state->stats);
		SrmSortStatsExplain(&state->stats, es);
	}
	show_worker_facts(state, es);
}
