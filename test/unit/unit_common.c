/*-------------------------------------------------------------------------
 *
 * unit_common.c
 *	  srmsort_unit: unit tests of srmsort's pure parts, as a test-only
 *	  loadable module.  This file is its shell; unit.h declares it.
 *
 * Four SQL functions, one per area and one file each, run that area's
 * checks and return a line per failed check (none when all pass):
 *
 *	 srmsort_unit_settings()  the settings' initial values (unit_settings.c)
 *	 srmsort_unit_mergeplan()  the merge planner (unit_mergeplan.c)
 *	 srmsort_unit_record()  the record format (unit_record.c)
 *	 srmsort_unit_radix()  the radix sort (unit_radix.c)
 *
 * Here is what they share: the module's magic, the record of failed checks (unit_fail; CHECK in unit.h), the
 * set-returning shell unit_srf, and the tuple helpers of the record and
 * radix tests.
 *
 * The module links its own copies of those files and of the settings'
 * variables (test/unit/Makefile), so a test may change a setting (each
 * area gets them back as they were); it never becomes part of srmsort.so.  Each function runs in a memory context of
 * its own, deleted before it returns its lines.
 *
 * IDENTIFICATION
 *	  test/unit/unit_common.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "base/compat.h"
#include "base/settings.h"
#include "keys/icukey.h"
#include "unit.h"

PG_MODULE_MAGIC;

#define UNIT_MAX_LINES	100

UnitRun    *unit;

/*
 * unit_fail
 *		Record a failed check (the first UNIT_MAX_LINES are kept).
 */
void
unit_fail(const char *fmt,...)
{
	MemoryContext old;
	StringInfoData buf;

	unit->nfailed++;
	if (unit->nfailed > UNIT_MAX_LINES)
		return;
	old = MemoryContextSwitchTo(unit->out_cxt);
	initStringInfo(&buf);
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&buf, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	unit->lines = lappend(unit->lines, buf.data);
	MemoryContextSwitchTo(old);
}

/*
 * unit_srf
 *		The set-returning shell of every area: run tests once in a context
 *		of their own, then return the failure lines one per call.  Fewer
 *		than min_checks checks is itself a failure (a test that no longer
 *		tests).
 */
Datum
unit_srf(FunctionCallInfo fcinfo, void (*tests) (void), int64 min_checks)
{
	FuncCallContext *funcctx;
	List	   *lines;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext work;
		MemoryContext old;
		UnitRun		run = {0};
		int			block_size = srmsort_block_size;
		int			max_merge_order = srmsort_max_merge_order;

		funcctx = SRF_FIRSTCALL_INIT();
		run.out_cxt = funcctx->multi_call_memory_ctx;
		work = AllocSetContextCreate(CurrentMemoryContext, "srmsort_unit",
									 ALLOCSET_DEFAULT_SIZES);
		old = MemoryContextSwitchTo(work);
		unit = &run;
		tests();
		/* the tests may change these; the next area sees settings.c's */
		srmsort_block_size = block_size;
		srmsort_max_merge_order = max_merge_order;
		if (run.nfailed > UNIT_MAX_LINES)
		{
			MemoryContextSwitchTo(run.out_cxt);
			run.lines = lappend(run.lines,
								psprintf("... and " INT64_FORMAT " more failed checks",
										 run.nfailed - UNIT_MAX_LINES));
		}
		if (run.nchecks < min_checks)
		{
			MemoryContextSwitchTo(run.out_cxt);
			run.lines = lappend(run.lines,
								psprintf("only " INT64_FORMAT " checks ran, expected at least " INT64_FORMAT,
										 run.nchecks, min_checks));
		}
		elog(DEBUG1, "srmsort_unit: " INT64_FORMAT " checks, " INT64_FORMAT " failed",
			 run.nchecks, run.nfailed);
		unit = NULL;
		MemoryContextSwitchTo(old);
		MemoryContextDelete(work);
		funcctx->user_fctx = run.lines;
	}
	funcctx = SRF_PERCALL_SETUP();
	lines = (List *) funcctx->user_fctx;
	if (funcctx->call_cntr < (uint64) list_length(lines))
	{
		/* SRF_RETURN_NEXT counts the call before it evaluates its result */
		Datum		line = CStringGetTextDatum((char *) list_nth(lines,
																 (int) funcctx->call_cntr));

		SRF_RETURN_NEXT(funcctx, line);
	}
	SRF_RETURN_DONE(funcctx);
}


/*
 * rec_desc
 *		A tuple descriptor of n columns of types[i % ntypes]; storage 'p'
 *		(plain: 4-byte varlena headers however short) if plain.
 */
TupleDesc
rec_desc(int n, const Oid *types, int ntypes, bool plain)
{
	TupleDesc	desc = CreateTemplateTupleDesc(n);
	int			i;

	for (i = 0; i < n; i++)
	{
		TupleDescInitEntry(desc, (AttrNumber) (i + 1), NULL, types[i % ntypes], -1, 0);
		if (plain)
		{
			TupleDescAttr(desc, i)->attstorage = TYPSTORAGE_PLAIN;
#if PG_VERSION_NUM >= 180000
			populate_compact_attribute(desc, i);
#endif
		}
	}
	SrmTupleDescFinalize(desc);
	return desc;
}

/* a minimal tuple of values/isnull, on any server version */
MinimalTuple
form_minimal(TupleDesc desc, Datum *values, bool *isnull)
{
#if PG_VERSION_NUM >= 180000
	return heap_form_minimal_tuple(desc, values, isnull, 0);
#else
	return heap_form_minimal_tuple(desc, values, isnull);
#endif
}
